import * as net from 'node:net';
import * as tls from 'node:tls';
import { decodeCommand, encodeCommand } from '../protocol/frame.codec';
import { FrameDecoder } from '../protocol/frame-decoder';
import { RemotingFlag } from '../protocol/remoting-codes';
import { remotingCommand, type RemotingCommand } from '../protocol/remoting-command';

/** A self-signed certificate for CN=localhost / IP 127.0.0.1 (test use only, valid 100 years). */
export const TEST_TLS = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgXkc8+VS5MF1QT6WO
4aCN1wMem2U2tBQ9UGCeBEwJelqhRANCAASxM6C7CLkXxHqYZeQwG3Bx/HIr//u8
Z+PA78O7WQYOrL2iXcs8p53MSHipK0BdAZEiKy9ZEBv9fs5FQKWdmzuu
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUGzpOXdKKJR8uBW2fNTBRdphI8XAwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyOTIyMDM1NloYDzIxMjYxMTA1
MjIwMzU2WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASxM6C7CLkXxHqYZeQwG3Bx/HIr//u8Z+PA78O7WQYOrL2iXcs8p53M
SHipK0BdAZEiKy9ZEBv9fs5FQKWdmzuuo28wbTAdBgNVHQ4EFgQUL6pMagfB7/+c
rJLgvCqb1Jsfp9cwHwYDVR0jBBgwFoAUL6pMagfB7/+crJLgvCqb1Jsfp9cwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIhAO14AL0hDJaLk2LwU963/78b3VZHuRLKG7qDSjVW7cMPAiB4
lajs9xJp80TncZ90WC/UEKY8LmZV/uJI6+u1QHd9Vg==
-----END CERTIFICATE-----
`,
};

/** One accepted client connection of the fake server. */
export class FakePeer {
  readonly received: RemotingCommand[] = [];
  private nextOpaque = 1000;
  private readonly waiting = new Map<number, (response: RemotingCommand) => void>();

  constructor(readonly socket: net.Socket) {}

  /** Writes a response to `request` (flag bit 0 set, same opaque). */
  reply(
    request: RemotingCommand,
    fields: { code?: number; extFields?: Record<string, string>; body?: Buffer; remark?: string } = {},
  ): void {
    this.write(
      encodeCommand(
        remotingCommand({
          code: fields.code ?? 0,
          opaque: request.opaque,
          flag: RemotingFlag.RESPONSE,
          extFields: fields.extFields,
          body: fields.body,
          remark: fields.remark,
          language: 'JAVA',
          version: 479,
        }),
      ),
    );
  }

  /** Writes raw bytes, optionally in pieces of `chunk` bytes with a turn of the event loop between them. */
  write(bytes: Buffer, chunk = 0): void {
    if (chunk <= 0) {
      this.socket.write(bytes);
      return;
    }
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += chunk) pieces.push(bytes.subarray(i, i + chunk));
    const next = (): void => {
      const piece = pieces.shift();
      if (piece === undefined || this.socket.destroyed) return;
      this.socket.write(piece, () => setImmediate(next));
    };
    next();
  }

  /** Sends a request as the broker does (its own opaque); resolves with the client's answer for sync ones. */
  send(
    code: number,
    fields: { oneway?: boolean; extFields?: Record<string, string>; body?: Buffer } = {},
  ): { opaque: number; answer: Promise<RemotingCommand> } {
    const opaque = this.nextOpaque++;
    const answer = new Promise<RemotingCommand>((resolve) => this.waiting.set(opaque, resolve));
    this.write(
      encodeCommand(
        remotingCommand({
          code,
          opaque,
          flag: fields.oneway ? RemotingFlag.ONEWAY : 0,
          extFields: fields.extFields,
          body: fields.body,
          language: 'JAVA',
          version: 479,
        }),
      ),
    );
    return { opaque, answer };
  }

  /** True when the client sent an answer to one of our requests. */
  answered(opaque: number): boolean {
    return !this.waiting.has(opaque) && opaque < this.nextOpaque;
  }

  accept(command: RemotingCommand): boolean {
    if ((command.flag & RemotingFlag.RESPONSE) === 0) return false;
    const resolve = this.waiting.get(command.opaque);
    this.waiting.delete(command.opaque);
    resolve?.(command);
    return true;
  }
}

/**
 * A small RocketMQ-speaking TCP (or TLS) server on 127.0.0.1 for connection tests: it records every request,
 * lets the test answer, stay silent, split writes, send garbage or its own requests, drop clients, stop and
 * listen again on the same port.
 */
export class FakeRemotingServer {
  readonly peers: FakePeer[] = [];
  readonly requests: RemotingCommand[] = [];
  /** Answers each request; the default echoes code 0 with the request's extFields and body. */
  onRequest: (request: RemotingCommand, peer: FakePeer) => void = (request, peer) =>
    peer.reply(request, { extFields: { ...request.extFields }, body: request.body });
  private server: net.Server | undefined;
  port = 0;

  constructor(private readonly tlsMode = false) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    const server = this.tlsMode ? tls.createServer({ key: TEST_TLS.key, cert: TEST_TLS.cert }) : net.createServer();
    server.on(this.tlsMode ? 'secureConnection' : 'connection', (socket: net.Socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this;
  }

  /** Stops listening and drops every client. */
  async stop(): Promise<void> {
    for (const peer of this.peers) peer.socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The newest connected peer. */
  get last(): FakePeer {
    const peer = this.peers[this.peers.length - 1];
    if (!peer) throw new Error('no client connected');
    return peer;
  }

  private accept(socket: net.Socket): void {
    const peer = new FakePeer(socket);
    this.peers.push(peer);
    const decoder = new FrameDecoder();
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      try {
        decoder.push(chunk, (frame) => {
          const command = decodeCommand(frame);
          if (peer.accept(command)) return;
          peer.received.push(command);
          this.requests.push(command);
          this.onRequest(command, peer);
        });
      } catch {
        socket.destroy();
      }
    });
  }
}
