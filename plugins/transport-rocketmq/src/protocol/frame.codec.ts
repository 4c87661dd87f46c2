import { ProtocolError } from '@mqkit/core';
import { decodeJsonHeader, jsonHeaderText, type CommandHeader } from './json-header.codec';
import { MAX_FRAME_LENGTH, SerializeType } from './remoting-codes';
import type { RemotingCommand } from './remoting-command';
import { decodeRocketMqHeader, encodeRocketMqHeader } from './rocketmq-header.codec';

/**
 * Encodes a command as one frame: length i32 (4 + headerLen + bodyLen, the prefix not counted) · serialize type
 * (high byte) and header length (low 24 bits) · header · body. Refuses frames the broker would refuse (over
 * 16 MiB with the prefix) with a ProtocolError, before anything is written.
 */
export function encodeCommand(command: RemotingCommand): Buffer {
  // A JSON header (every request mqkit sends, one per pull) is written straight into the frame: no header buffer
  // in between, one allocation and one copy less per request.
  const json = command.serializeType === SerializeType.ROCKETMQ ? undefined : jsonHeaderText(command);
  const header = json === undefined ? encodeRocketMqHeader(command) : undefined;
  const headerLength = json === undefined ? header!.length : Buffer.byteLength(json, 'utf8');
  if (headerLength > 0xffffff) throw new ProtocolError(`header of ${headerLength} bytes does not fit 24 bits`);
  const length = 4 + headerLength + command.body.length;
  if (4 + length > MAX_FRAME_LENGTH) {
    throw new ProtocolError(
      `frame of ${4 + length} bytes exceeds the ${MAX_FRAME_LENGTH}-byte limit (code ${command.code})`,
    );
  }
  const frame = Buffer.allocUnsafe(4 + length);
  frame.writeInt32BE(length, 0);
  frame.writeUInt32BE((((command.serializeType & 0xff) << 24) | headerLength) >>> 0, 4);
  if (json === undefined) header!.copy(frame, 8);
  else frame.write(json, 8, headerLength, 'utf8');
  command.body.copy(frame, 8 + headerLength);
  return frame;
}

/**
 * Decodes one frame without its length prefix (what the stream decoder yields). The body is a view of the
 * frame's memory, not a copy. Unknown serialize types and header lengths past the frame are ProtocolErrors.
 */
export function decodeCommand(frame: Buffer): RemotingCommand {
  if (frame.length < 4) throw new ProtocolError(`frame of ${frame.length} bytes has no header length`);
  const typeAndLength = frame.readUInt32BE(0);
  const type = typeAndLength >>> 24;
  const headerLength = typeAndLength & 0xffffff;
  if (headerLength > frame.length - 4) {
    throw new ProtocolError(
      `header length ${headerLength} exceeds the frame (${frame.length - 4} bytes after the prefix)`,
    );
  }
  const headerBytes = frame.subarray(4, 4 + headerLength);
  let header: CommandHeader;
  if (type === SerializeType.JSON) header = decodeJsonHeader(headerBytes);
  else if (type === SerializeType.ROCKETMQ) header = decodeRocketMqHeader(headerBytes);
  else throw new ProtocolError(`unknown serialize type ${type}`);
  return { ...header, body: frame.subarray(4 + headerLength), serializeType: type };
}
