import * as net from 'node:net';
import * as tls from 'node:tls';
import { ConfigurationError } from '@mqkit/core';
import { RemotingConnectionError } from '../errors/remoting-connection.error';

/** TLS for a connection: true for the system CAs and defaults, or Node's TLS options (ca, cert, key, servername, ...). */
export type TlsOption = boolean | tls.ConnectionOptions;

/** Splits `host:port` or `[v6]:port` (how RocketMQ writes broker and name server addresses). */
export function parseAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(colon + 1));
  if (colon <= 0 || host === '' || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new ConfigurationError({
      source: 'RemotingConnection',
      option: 'address',
      value: address,
      allowed: 'host:port or [ipv6]:port',
    });
  }
  return { host, port };
}

/**
 * Opens a TCP (or TLS) socket and resolves once it is ready to carry frames (after the TLS handshake). Fails with
 * a RemotingConnectionError on refusal, handshake failure or when connectTimeoutMs passes. TCP_NODELAY is on, as
 * the Java client sets it: frames are small and latency matters more than packet count.
 */
export function openSocket(
  address: string,
  tlsOption: TlsOption | undefined,
  connectTimeoutMs: number,
): Promise<net.Socket> {
  const { host, port } = parseAddress(address);
  return new Promise<net.Socket>((resolve, reject) => {
    let socket: net.Socket;
    const readyEvent = tlsOption ? 'secureConnect' : 'connect';
    if (tlsOption) {
      const options: tls.ConnectionOptions = tlsOption === true ? {} : tlsOption;
      socket = tls.connect({
        ...options,
        host,
        port,
        servername: options.servername ?? (net.isIP(host) ? undefined : host),
      });
    } else {
      socket = net.connect({ host, port });
    }
    const timer = setTimeout(() => fail(new Error(`connect timed out after ${connectTimeoutMs} ms`)), connectTimeoutMs);
    const onError = (error: Error): void => fail(error);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      socket.removeListener(readyEvent, onReady);
      socket.removeListener('error', onError);
      // A late error from a half-open socket must find a listener, or Node would throw it out of the event loop.
      socket.on('error', () => undefined);
      socket.destroy();
      reject(new RemotingConnectionError(`cannot connect: ${error.message}`, { address, cause: error }));
    };
    const onReady = (): void => {
      clearTimeout(timer);
      socket.removeListener('error', onError);
      socket.setNoDelay(true);
      resolve(socket);
    };
    socket.once(readyEvent, onReady);
    socket.once('error', onError);
  });
}
