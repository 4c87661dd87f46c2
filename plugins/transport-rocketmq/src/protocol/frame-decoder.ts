import { ProtocolError } from '@mqkit/core';
import { MAX_FRAME_LENGTH } from './remoting-codes';

/**
 * Splits a TCP byte stream into frames (RocketMQ's NettyDecoder: a 4-byte big-endian length, then that many
 * bytes). Handles frames split over many chunks and many frames in one chunk, copying only when a frame spans
 * chunks. A length below 4 or a frame over 16 MiB (prefix included) is a ProtocolError, after which the decoder
 * refuses more input: the stream is out of step and its connection must be closed. Frames completed before the
 * bad bytes are still delivered, so responses that arrived intact are not lost.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Length of the frame being collected, or -1 while its prefix is still awaited. */
  private expected = -1;
  private failure: ProtocolError | undefined;

  constructor(private readonly maxFrameLength = MAX_FRAME_LENGTH) {}

  /** Bytes received but not yet part of a complete frame. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** Adds a chunk and hands each frame it completes (without its length prefix) to `onFrame`, in order. */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    if (this.failure) throw this.failure;
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    for (;;) {
      if (this.expected < 0) {
        if (this.buffered < 4) break;
        const length = this.take(4).readInt32BE(0);
        if (length < 4 || length > this.maxFrameLength - 4) {
          this.failure = new ProtocolError(
            length < 4
              ? `frame length ${length} is below the 4-byte minimum`
              : `frame of ${length + 4} bytes exceeds the ${this.maxFrameLength}-byte limit`,
          );
          this.chunks = [];
          this.buffered = 0;
          throw this.failure;
        }
        this.expected = length;
      }
      if (this.buffered < this.expected) break;
      const frame = this.take(this.expected);
      this.expected = -1;
      onFrame(frame);
    }
  }

  /** Removes n buffered bytes (n ≤ buffered), as a view when they sit in one chunk. */
  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n) {
      this.buffered -= n;
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const head = this.chunks[0]!;
      const used = Math.min(head.length, n - filled);
      head.copy(out, filled, 0, used);
      filled += used;
      if (used === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(used);
    }
    this.buffered -= n;
    return out;
  }
}
