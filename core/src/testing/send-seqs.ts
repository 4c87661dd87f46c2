import type { SendResult } from '../spi/transport.roles';
import type { Producer } from '../producer/producer';

/** How {@link sendSeqs} sends. */
export interface SendSeqsOptions {
  /** The first sequence number (default 0). */
  readonly from?: number;
  /** At most this many sends in flight (default 64); 1 sends one after the other. */
  readonly window?: number;
  /** The tag of each message, by sequence number. */
  readonly tags?: (seq: number) => string | undefined;
  /** Pads each payload to `{ seq, pad }` with a string of this many characters (for byte-sized tests). */
  readonly padding?: number;
}

/**
 * Sends `count` JSON messages `{ seq }` to `topic`, seq from `options.from`, each with the key `k<seq>`, and
 * resolves once every one is stored, with their results in seq order (so a test can tell which queue got which
 * message); rejects with the first send that failed. Sends overlap up to `options.window`.
 *
 * @example
 * ```ts
 * const producer = await createProducer({ transport, group: uniqueName('p') });
 * const results = await sendSeqs(producer, topic, 100, { tags: (seq) => (seq % 2 ? 'odd' : 'even') });
 * await producer.stop();
 * ```
 */
export async function sendSeqs(
  producer: Pick<Producer, 'send'>,
  topic: string,
  count: number,
  options: SendSeqsOptions = {},
): Promise<SendResult[]> {
  const from = options.from ?? 0;
  const size = Math.max(1, options.window ?? 64);
  const pad = options.padding ? 'x'.repeat(options.padding) : undefined;
  const results: SendResult[] = new Array<SendResult>(count);
  // A FIFO window: awaiting the oldest send is O(1), where racing all of them would attach a reaction to every
  // pending send at each step. A send failing while an older one is awaited is caught here and rethrown by its
  // own await, so it is never an unhandled rejection.
  const window: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const seq = from + i;
    const sent = producer
      .send({ topic, payload: pad ? { seq, pad } : { seq }, tags: options.tags?.(seq), keys: `k${seq}` })
      .then((result) => {
        results[i] = result;
      });
    sent.catch(() => undefined);
    window.push(sent);
    if (window.length >= size) await window.shift();
  }
  await Promise.all(window);
  return results;
}
