import { createHmac } from 'node:crypto';

/** RocketMQ ACL credentials: accessKey is the user name, secretKey its password (ACL 2.0 "user"). */
export interface AclCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
}

/**
 * Adds `AccessKey` and `Signature` to a request's extFields the way RocketMQ's `AclClientRPCHook` does: the
 * signature is Base64(HmacSHA1(secretKey, values of all extFields sorted by key, concatenated, UTF-8, + body)).
 * The 5.x broker's `DefaultAuthenticationContextBuilder` rebuilds the same content to check it.
 */
export function signExtFields(
  extFields: Readonly<Record<string, string>>,
  body: Buffer | undefined,
  credentials: AclCredentials,
): Record<string, string> {
  const fields: Record<string, string> = { ...extFields, AccessKey: credentials.accessKey };
  delete fields.Signature;
  // Java's TreeMap orders by String.compareTo (UTF-16 code units), as does the default JS sort.
  const content = Object.keys(fields)
    .sort()
    .map((key) => fields[key])
    .join('');
  const hmac = createHmac('sha1', credentials.secretKey).update(Buffer.from(content, 'utf8'));
  if (body && body.length > 0) hmac.update(body);
  return { ...fields, Signature: hmac.digest('base64') };
}
