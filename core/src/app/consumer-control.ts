import { wrapNamespace } from '../model/namespace';
import type { ConsumerRuntime } from '../consumer/consumer-runtime';
import type { ConsumerStatus } from '../model/consumer-status';
import type { ClientHost } from './client-host';

/** Per-consumer controls, at `app.consumer(group)`. */
export interface ConsumerControl {
  readonly group: string;
  /**
   * Stops handler calls and pulling until `resume()`; nothing is lost. From this call on no handler call starts:
   * messages already cached, those a long poll the broker was holding still brings in, and retries due meanwhile
   * stay cached, unhandled and uncommitted. The handler calls running at the time finish (they are not
   * interrupted): the promise resolves once they have and their results were processed, or earlier at `resume()`
   * or the app's stop; a call given up at `consumeTimeout` is not waited for. Not awaiting it still pauses at once. The consumer's `consumer.paused` event fires and `status().paused` is true.
   */
  pause(): Promise<void>;
  /** Hands what was cached while paused to the handlers, and pulls again. */
  resume(): void;
  status(): ConsumerStatus;
  /**
   * Moves the whole group (every member, not just this one) back or forward to the first message stored at or
   * after `timestamp`, for each subscribed topic (or the given ones): the broker pushes the new offsets to every
   * member, which drops what it cached and pulls again from there.
   */
  resetOffsetByTimestamp(timestamp: number, topics?: readonly string[]): Promise<void>;
}

/** The controls of one started group; topics given to a reset are wrapped in the app's namespace. */
export function consumerControl(
  group: string,
  runtime: ConsumerRuntime,
  host: ClientHost,
  namespace: string | undefined,
): ConsumerControl {
  return {
    group,
    pause: () => runtime.pause(),
    resume: () => runtime.resume(),
    status: () => runtime.status(),
    resetOffsetByTimestamp: async (timestamp, topics) => {
      const admin = host.require('offsetAdmin', 'the offset reset');
      for (const topic of topics?.map((t) => wrapNamespace(namespace, t)) ??
        runtime.definition.subscriptions.map((s) => s.topic))
        await admin.resetOffsetByTimestamp(runtime.group, topic, timestamp);
    },
  };
}
