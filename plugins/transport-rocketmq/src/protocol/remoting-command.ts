import { RemotingFlag, SerializeType } from './remoting-codes';

/**
 * One RocketMQ RemotingCommand: a request or a response, header and body. `extFields` values are strings, as
 * the Java side keeps them (numbers in decimal, booleans as "true"/"false", enums by name).
 */
export interface RemotingCommand {
  readonly code: number;
  /** The sender's LanguageCode name ("JAVA", "GO", ...); undefined when absent or unknown. */
  readonly language: string | undefined;
  /** The sender's MQVersion ordinal; a broker's replies carry its own version. */
  readonly version: number;
  /** Correlates a response with its request; chosen by whoever sends the request. */
  readonly opaque: number;
  readonly flag: number;
  readonly remark: string | undefined;
  readonly extFields: Readonly<Record<string, string>>;
  /** Empty when the frame has no body. */
  readonly body: Buffer;
  /** How the header was (or will be) encoded. */
  readonly serializeType: SerializeType;
}

/** True when flag bit 0 is set: a response to a request this side sent. */
export function isResponse(command: Pick<RemotingCommand, 'flag'>): boolean {
  return (command.flag & RemotingFlag.RESPONSE) !== 0;
}

/** True when flag bit 1 is set: a request that must not be answered. */
export function isOneway(command: Pick<RemotingCommand, 'flag'>): boolean {
  return (command.flag & RemotingFlag.ONEWAY) !== 0;
}

/** An empty string map (a plain object; fill it with {@link putField} so wire keys stay data). */
export function emptyFields(): Record<string, string> {
  return {};
}

/**
 * Sets `key` on a plain object as an own data property. A plain assignment of `__proto__` would replace the
 * object's prototype instead; keys come from the wire, so this one is defined explicitly.
 */
export function putField<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A copy of a string map made with {@link putField}. */
export function copyFields(source: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(source)) putField(out, key, source[key]!);
  return out;
}

const EMPTY_BODY = Buffer.alloc(0);

/** Builds a command with defaults for what is left out (JSON header, version 0, no body). */
export function remotingCommand(fields: {
  code: number;
  opaque: number;
  flag?: number;
  language?: string;
  version?: number;
  remark?: string;
  extFields?: Readonly<Record<string, string | number | boolean | bigint | undefined | null>>;
  body?: Buffer;
  serializeType?: SerializeType;
}): RemotingCommand {
  return {
    code: fields.code,
    opaque: fields.opaque,
    flag: fields.flag ?? 0,
    language: fields.language,
    version: fields.version ?? 0,
    remark: fields.remark,
    extFields: stringFields(fields.extFields),
    body: fields.body ?? EMPTY_BODY,
    serializeType: fields.serializeType ?? SerializeType.JSON,
  };
}

/**
 * extFields as the Java side expects them: every value a string; null and undefined left out (fastjson leaves
 * out nulls, and a key with no value would be signed differently by the ACL hook than the broker reads it).
 */
export function stringFields(
  fields: Readonly<Record<string, string | number | boolean | bigint | undefined | null>> | undefined,
): Record<string, string> {
  const out = emptyFields();
  if (fields === undefined) return out;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined || value === null) continue;
    putField(out, key, typeof value === 'string' ? value : String(value));
  }
  return out;
}
