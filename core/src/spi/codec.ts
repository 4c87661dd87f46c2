import type { MessageRecord } from '../model/message';

/** Turns bodies into payloads and back. The default is JSON over UTF-8. */
export interface Codec<T = unknown> {
  readonly name: string;
  decode(body: Buffer, record: MessageRecord): T;
  encode(payload: T): Buffer;
}
