import { ProtocolError } from '@mqkit/core';
import { decodeBatchBody } from '../protocol/batch-body.codec';
import { parseFastJson } from '../protocol/fastjson.parser';
import { decodeCommand } from '../protocol/frame.codec';
import { FrameDecoder } from '../protocol/frame-decoder';
import { decodeMessageRecords } from '../protocol/message-record.decoder';
import { isResponse } from '../protocol/remoting-command';
import type { FuzzTarget } from './fuzz-corpus';
import type { Prng } from './prng';

/**
 * Feeds one input to a decoder the way the transport would. Frames go through the streaming decoder in random
 * chunks, and a response's body is decoded as message records (what a pull response carries).
 */
export function runTarget(target: FuzzTarget, input: Buffer, rng: Prng): void {
  switch (target) {
    case 'frame': {
      const decoder = new FrameDecoder();
      let at = 0;
      while (at < input.length) {
        const size = 1 + rng.int(input.length - at);
        decoder.push(input.subarray(at, at + size), (frame) => {
          const command = decodeCommand(frame);
          if (isResponse(command) && command.body.length > 0)
            decodeMessageRecords(command.body, { brokerName: 'broker-a' });
        });
        at += size;
      }
      return;
    }
    case 'record':
      decodeMessageRecords(input, { brokerName: 'broker-a' });
      return;
    case 'batch':
      decodeBatchBody(input);
      return;
    case 'fastjson':
      parseFastJson(input.toString('utf8'));
      return;
  }
}

/** True for the errors a decoder may throw: ProtocolError and its subclasses (MessageDecodeError, UnsafeLongError). */
export function isTypedDecodeError(error: unknown): boolean {
  return error instanceof ProtocolError;
}
