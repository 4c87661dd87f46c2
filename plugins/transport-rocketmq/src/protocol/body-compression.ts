/**
 * The body codec lives in core, shared with the producer and the embedded broker; the decoder and the encoder
 * here use it through these names.
 */
export { DEFAULT_MAX_INFLATED_BYTES, inflateBody, type InflatedBody } from '@mqkit/core/internal';
