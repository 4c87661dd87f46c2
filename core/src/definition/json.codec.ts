import type { Codec } from '../spi/codec';

/** The default codec: UTF-8 JSON. */
export const jsonCodec: Codec = Object.freeze({
  name: 'json',
  decode: (body: Buffer) => JSON.parse(body.toString('utf8')) as unknown,
  encode: (payload: unknown) => Buffer.from(JSON.stringify(payload) ?? 'null', 'utf8'),
});

/** Leaves bodies as Buffers (payload === body). */
export const rawCodec: Codec<Buffer> = Object.freeze({
  name: 'raw',
  decode: (body: Buffer) => body,
  encode: (payload: Buffer) => payload,
});

/** UTF-8 text. */
export const stringCodec: Codec<string> = Object.freeze({
  name: 'string',
  decode: (body: Buffer) => body.toString('utf8'),
  encode: (payload: string) => Buffer.from(payload, 'utf8'),
});
