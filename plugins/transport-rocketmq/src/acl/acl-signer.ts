import { createHmac } from 'node:crypto';
import { ConfigurationError } from '@mqkit/core';
import { copyFields } from '../protocol/remoting-command';

/** RocketMQ ACL credentials (SessionCredentials). */
export interface AclCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
  /** Optional STS token; signed and sent as `SecurityToken` when present. */
  readonly securityToken?: string;
}

/** extFields keys the ACL hook adds (SessionCredentials constants). */
export const ACCESS_KEY = 'AccessKey';
export const SECURITY_TOKEN = 'SecurityToken';
export const SIGNATURE = 'Signature';

/**
 * HmacSHA1 of `content` keyed by the secret (UTF-8), base64: RocketMQ's AclSigner.calSignature with its defaults.
 */
export function aclSignature(content: Buffer, secretKey: string): string {
  return createHmac('sha1', Buffer.from(secretKey, 'utf8')).update(content).digest('base64');
}

/**
 * The bytes RocketMQ signs (AclUtils.combineRequestContent): the extFields values, without `Signature`, in the
 * order of their keys sorted as Java's TreeMap sorts strings (UTF-16 code units, which is also JavaScript's
 * default string order), concatenated and UTF-8 encoded, followed by the body. Keys themselves are not signed, and
 * neither are `unsigned` ones (fields the broker leaves out of its check).
 */
export function aclSigningContent(
  extFields: Readonly<Record<string, string>>,
  body: Buffer,
  unsigned: readonly string[] = [],
): Buffer {
  let text = '';
  for (const key of Object.keys(extFields).sort())
    if (key !== SIGNATURE && !unsigned.includes(key)) text += extFields[key];
  return Buffer.concat([Buffer.from(text, 'utf8'), body]);
}

/**
 * Signs a request as RocketMQ's AclClientRPCHook.doBeforeRequest does: adds `AccessKey` (and `SecurityToken`)
 * to the extFields, signs every extField value (but the `unsigned` ones) plus the body, and adds `Signature`.
 * Returns new extFields; the broker recomputes the same bytes from what it receives, so the fields must go on the
 * wire exactly as signed.
 */
export function signExtFields(
  extFields: Readonly<Record<string, string>>,
  body: Buffer,
  credentials: AclCredentials,
  unsigned: readonly string[] = [],
): Record<string, string> {
  const signed = copyFields(extFields);
  signed[ACCESS_KEY] = credentials.accessKey;
  if (credentials.securityToken !== undefined) signed[SECURITY_TOKEN] = credentials.securityToken;
  delete signed[SIGNATURE];
  signed[SIGNATURE] = aclSignature(aclSigningContent(signed, body, unsigned), credentials.secretKey);
  return signed;
}

/**
 * Refuses credentials RocketMQ cannot use: a blank access or secret key (AclUtils skips the hook; an empty HMAC
 * key makes Java throw). `source` names where they were configured, for the error.
 */
export function checkCredentials(credentials: AclCredentials, source: string): void {
  for (const option of ['accessKey', 'secretKey'] as const) {
    const value: unknown = credentials[option];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new ConfigurationError({
        source,
        option: `credentials.${option}`,
        value: option === 'secretKey' ? '(hidden)' : value,
        allowed: 'a non-blank string',
      });
    }
  }
  const token: unknown = credentials.securityToken;
  if (token !== undefined && typeof token !== 'string') {
    throw new ConfigurationError({
      source,
      option: 'credentials.securityToken',
      value: typeof token,
      allowed: 'a string or undefined',
    });
  }
}
