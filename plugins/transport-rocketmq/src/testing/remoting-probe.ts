import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { TimeoutError } from '@mqkit/core';
import { signExtFields, type AclCredentials } from './acl-signature';
import { decodeProbeFrames, encodeProbeRequest, type ProbeCommand } from './probe-frame.codec';

/** How to reach a name server or broker for a probe. */
export interface ProbeOptions {
  /** Use TLS; `ca` is the PEM to trust (without it the server certificate is not verified). */
  readonly tls?: { readonly ca?: string };
  /** Sign the request as RocketMQ's ACL RPC hook does. */
  readonly credentials?: AclCredentials;
  readonly timeoutMs?: number;
}

/** A request for {@link sendProbeRequest}. */
export interface ProbeRequest {
  readonly code: number;
  readonly extFields?: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

/** Request codes the harness uses (RequestCode.java). */
export const ProbeCode = {
  GET_BROKER_RUNTIME_INFO: 28,
  GET_BROKER_CLUSTER_INFO: 106,
  /** To a controller: a broker name's master, sync-state set and the replicas out of it (body: broker names). */
  CONTROLLER_GET_SYNC_STATE_DATA: 1006,
} as const;

let nextOpaque = 1;

function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}

/**
 * Sends one request over a fresh connection and resolves with the matching response (any response code);
 * rejects on connection errors, a closed connection or the timeout. Requests the server sends to us are ignored.
 */
export function sendProbeRequest(
  address: string,
  request: ProbeRequest,
  options: ProbeOptions = {},
): Promise<ProbeCommand> {
  const { host, port } = splitAddress(address);
  const opaque = nextOpaque++ & 0x7fffffff;
  const extFields = options.credentials
    ? signExtFields(request.extFields ?? {}, request.body, options.credentials)
    : (request.extFields ?? {});
  const frame = encodeProbeRequest(request.code, opaque, extFields, request.body);
  const timeoutMs = options.timeoutMs ?? 3_000;
  return new Promise<ProbeCommand>((resolve, reject) => {
    let settled = false;
    let pending: Buffer = Buffer.alloc(0);
    const socket: Socket = options.tls
      ? connectTls({ host, port, ca: options.tls.ca, rejectUnauthorized: options.tls.ca !== undefined })
      : connectTcp({ host, port });
    const finish = (error: Error | undefined, response?: ProbeCommand): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(response!);
    };
    const timer = setTimeout(
      () => finish(new TimeoutError(`no answer to request ${request.code} from ${address} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.once(options.tls ? 'secureConnect' : 'connect', () => socket.write(frame));
    socket.on('data', (chunk: Buffer) => {
      try {
        const { frames, rest } = decodeProbeFrames(Buffer.concat([pending, chunk]));
        pending = rest;
        const response = frames.find((f) => (f.flag & 1) === 1 && f.opaque === opaque);
        if (response) finish(undefined, response);
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () =>
      finish(new Error(`${address} closed the connection before answering request ${request.code}`)),
    );
  });
}
