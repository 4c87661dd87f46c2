import { getOrCreate } from '../util/get-or-create';
import { encodeTraceContext } from './trace-data-encoder';
import type { TraceContext } from './trace-context';

/** The body of one trace message and what it is indexed by. */
export interface TraceMessage {
  /** The traced messages' topic: one trace message holds the records of one topic, as Java's dispatcher groups them. */
  readonly topic: string;
  readonly body: string;
  /** The KEYS of the trace message: every traced msgId and key. */
  readonly keys: readonly string[];
  /** How many trace contexts it carries (for the sent and failed counts). */
  readonly contexts: number;
}

/**
 * The broker keeps a message's properties within 32767 bytes (a short on the wire); KEYS shares them with UNIQ_KEY
 * and WAIT. Half of that leaves room for both.
 */
const MAX_KEYS_LENGTH = 16 * 1024;

/**
 * AsyncTraceDispatcher.sendTraceData and flushData: contexts grouped by their first bean's topic (in order of first
 * appearance), each group's encoded records concatenated into messages of at most `maxBodyBytes`. Java cuts a
 * message only once it has reached the size, so its last record can push it past the trace producer's own
 * maxMessageSize (128000), and that send is refused; here a message is cut before a record that would not fit, and
 * before its keys outgrow the properties limit. Contexts without beans are skipped, as in Java.
 */
export function buildTraceMessages(contexts: readonly TraceContext[], maxBodyBytes: number): TraceMessage[] {
  const byTopic = new Map<string, TraceContext[]>();
  for (const ctx of contexts) {
    const first = ctx.traceBeans[0];
    if (!first) continue;
    getOrCreate(byTopic, first.topic, () => []).push(ctx);
  }
  const messages: TraceMessage[] = [];
  for (const [topic, group] of byTopic) {
    let body = '';
    let bytes = 0;
    let keys = new Set<string>();
    let keysLength = 0;
    let count = 0;
    const cut = (): void => {
      if (count > 0) messages.push({ topic, body, keys: [...keys], contexts: count });
      body = '';
      bytes = 0;
      keys = new Set();
      keysLength = 0;
      count = 0;
    };
    for (const ctx of group) {
      const transfer = encodeTraceContext(ctx);
      const size = Buffer.byteLength(transfer.data, 'utf8');
      const addedLength = transfer.keys.reduce((n, k) => (keys.has(k) ? n : n + k.length + 1), 0);
      if (count > 0 && (bytes + size > maxBodyBytes || keysLength + addedLength > MAX_KEYS_LENGTH)) cut();
      body += transfer.data;
      bytes += size;
      for (const key of transfer.keys) {
        if (keys.has(key)) continue;
        keys.add(key);
        keysLength += key.length + 1;
      }
      count++;
    }
    cut();
  }
  return messages;
}
