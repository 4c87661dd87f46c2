import { ProtocolError } from '@mqkit/core';

/**
 * The harness's own minimal remoting frame codec (JSON headers only), so readiness probes do not depend on the
 * transport's codec. Frame: int32 length (excluding itself) · int32 (serialize type << 24 | header length) ·
 * JSON header · body. See docs/remoting-protocol.md#frame-layout.
 */
export interface ProbeCommand {
  readonly code: number;
  readonly opaque: number;
  /** Bit 0 = response, bit 1 = oneway. */
  readonly flag: number;
  readonly remark?: string;
  readonly extFields: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** 479 = MQVersion V5_3_3; ≥ 401 makes the name server answer route data in standard JSON. */
const PROBE_VERSION = 479;

/** Encodes a request. Language "JAVA" is accepted by every 5.x broker (NODE_JS only from 5.3.2). */
export function encodeProbeRequest(
  code: number,
  opaque: number,
  extFields: Readonly<Record<string, string>>,
  body?: Buffer,
): Buffer {
  const header = Buffer.from(
    JSON.stringify({ code, language: 'JAVA', version: PROBE_VERSION, opaque, flag: 0, extFields }),
    'utf8',
  );
  const payload = body ?? Buffer.alloc(0);
  const frame = Buffer.alloc(8 + header.length + payload.length);
  frame.writeInt32BE(4 + header.length + payload.length, 0);
  frame.writeInt32BE(header.length & 0xffffff, 4); // high byte 0 = JSON
  header.copy(frame, 8);
  payload.copy(frame, 8 + header.length);
  return frame;
}

/** Splits complete frames off the front of `buffer`; returns them and the unread rest. */
export function decodeProbeFrames(buffer: Buffer): { frames: ProbeCommand[]; rest: Buffer } {
  const frames: ProbeCommand[] = [];
  let offset = 0;
  while (buffer.length - offset >= 4) {
    const length = buffer.readInt32BE(offset);
    if (length < 4 || length > 16 * 1024 * 1024) throw new ProtocolError(`bad frame length ${length}`);
    if (buffer.length - offset - 4 < length) break;
    const mark = buffer.readUInt32BE(offset + 4);
    const serializeType = mark >>> 24;
    const headerLength = mark & 0xffffff;
    if (serializeType !== 0)
      throw new ProtocolError(`probe decodes JSON headers only, got serialize type ${serializeType}`);
    if (headerLength > length - 4)
      throw new ProtocolError(`header length ${headerLength} exceeds frame length ${length}`);
    const headerText = buffer.toString('utf8', offset + 8, offset + 8 + headerLength);
    const header = JSON.parse(headerText) as {
      code: number;
      opaque: number;
      flag?: number;
      remark?: string;
      extFields?: Record<string, string>;
    };
    frames.push({
      code: header.code,
      opaque: header.opaque,
      flag: header.flag ?? 0,
      remark: header.remark,
      extFields: header.extFields ?? {},
      body: Buffer.from(buffer.subarray(offset + 8 + headerLength, offset + 4 + length)),
    });
    offset += 4 + length;
  }
  return { frames, rest: buffer.subarray(offset) };
}
