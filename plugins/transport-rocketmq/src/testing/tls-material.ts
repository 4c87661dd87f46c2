import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RocketMqHarnessError } from './rocketmq-harness.error';
import { runCommand, type CommandResult } from './run-command';

/** A self-signed certificate for 127.0.0.1/localhost and its unencrypted PKCS#8 key, as files and PEM text. */
export interface TlsMaterial {
  readonly certPath: string;
  readonly keyPath: string;
  /** The certificate PEM: clients pass it as `ca` to verify the servers. */
  readonly certPem: string;
}

/** Where {@link createTlsMaterial} puts the certificate and key in `dir` (a cluster folder). */
export function tlsFilePaths(dir: string): { certPath: string; keyPath: string } {
  return { certPath: join(dir, 'tls-cert.pem'), keyPath: join(dir, 'tls-key.pem') };
}

/**
 * Makes a throwaway self-signed certificate with openssl (OpenSSL 3 writes `-nodes` keys as PKCS#8, the
 * format Netty's SslContextBuilder needs). Valid two days; SAN IP:127.0.0.1 so Node verifies it by address.
 */
export async function createTlsMaterial(dir: string): Promise<TlsMaterial> {
  const { certPath, keyPath } = tlsFilePaths(dir);
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '2'];
  args.push('-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost');
  let result: CommandResult;
  try {
    result = await runCommand('openssl', args, { timeoutMs: 60_000 });
  } catch (error) {
    throw new RocketMqHarnessError(
      'tls',
      'openssl is needed for the TLS cluster option (apt-get install openssl)',
      error,
    );
  }
  if (result.code !== 0)
    throw new RocketMqHarnessError('tls', `openssl could not make a certificate:\n${result.output}`);
  return { certPath, keyPath, certPem: await readFile(certPath, 'utf8') };
}
