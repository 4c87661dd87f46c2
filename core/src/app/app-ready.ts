import { ConfigurationError } from '../errors/configuration.error';
import { IllegalStateError } from '../errors/state.error';
import { TimeoutError } from '../errors/timeout.error';
import type { EventBus } from '../events/event-bus';
import type { ConsumerStatus } from '../model/consumer-status';

/** The part of an app's status `whenReady` reads. */
export interface ReadyStatus {
  readonly state: string;
  readonly ready: boolean;
  readonly consumers: readonly ConsumerStatus[];
}

/** What `whenReady` watches: the app's state and status, and the events that can change them. */
export interface ReadySource<S extends ReadyStatus = ReadyStatus> {
  readonly clientId: string;
  readonly events: EventBus;
  status(): S;
  /** Calls `listener` after every change of the app's state; returns the unsubscribe function. */
  onStateChange(listener: () => void): () => void;
}

export const DEFAULT_READY_TIMEOUT_MS = 30_000;

/** States from which an app never becomes ready. */
const ENDED = new Set(['stopping', 'stopped', 'failed']);

/**
 * Resolves with the status that holds `ready`: the app is running and every group has ended a balanced rebalance
 * pass. Wakes on the events that can make it so (a group's first balanced pass, the app's state) rather than polling.
 */
export function whenReady<S extends ReadyStatus>(
  app: ReadySource<S>,
  timeoutMs = DEFAULT_READY_TIMEOUT_MS,
): Promise<S> {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    return Promise.reject(
      new ConfigurationError({
        source: 'ConsumerApp.ready',
        option: 'timeoutMs',
        value: timeoutMs,
        allowed: 'a number of milliseconds > 0',
      }),
    );
  }
  return new Promise<S>((resolve, reject) => {
    const cleanups: (() => void)[] = [];
    const settle = (outcome: { status: S } | { error: Error }): void => {
      for (const cleanup of cleanups) cleanup();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.status);
    };
    const check = (): void => {
      const status = app.status();
      if (status.ready) settle({ status });
      else if (ENDED.has(status.state))
        settle({ error: new IllegalStateError(`app ${app.clientId} will not become ready: it is ${status.state}`) });
    };
    const timer = setTimeout(
      () =>
        settle({
          error: new TimeoutError(`app ${app.clientId} not ready after ${timeoutMs} ms: ${notReady(app.status())}`),
        }),
      timeoutMs,
    );
    cleanups.push(() => clearTimeout(timer), app.onStateChange(check), app.events.on('consumer.ready', check));
    check();
  });
}

/** Why an app is not ready, for the timeout's message: its state, or each group that has not balanced and its last error. */
function notReady(status: ReadyStatus): string {
  if (status.state !== 'running') return `it is ${status.state}`;
  return status.consumers
    .filter((c) => !c.ready)
    .map(
      (c) =>
        `group ${c.group} owns ${c.queues.length} queue(s) and has ended no balanced rebalance pass${c.lastError ? ` (last error, in ${c.lastError.where}: ${c.lastError.message})` : ''}`,
    )
    .join('; ');
}
