import type * as net from 'node:net';
import { ProtocolError } from '@mqkit/core';
import { Subject, type Observable } from 'rxjs';
import { signExtFields, type AclCredentials } from '../acl/acl-signer';
import { RemotingConnectionError } from '../errors/remoting-connection.error';
import { decodeCommand, encodeCommand } from '../protocol/frame.codec';
import { FrameDecoder } from '../protocol/frame-decoder';
import { MQVersion, RemotingFlag, ResponseCode, SerializeType } from '../protocol/remoting-codes';
import { isOneway, isResponse, remotingCommand, type RemotingCommand } from '../protocol/remoting-command';
import { openSocket, type TlsOption } from './open-socket';
import { PendingRequests } from './pending-requests';
import { RECONNECT_DEFAULTS, reconnectDelay, type ReconnectOptions } from './reconnect-backoff';
import type { RemotingEvent } from './remoting-events';
import type { OutgoingRequest, RemotingReply, RemotingRequestHandler, RequestOptions } from './remoting-request';

/** Options shared by every connection of a client. */
export interface RemotingConnectionOptions {
  readonly tls?: TlsOption;
  /** Sign every request as RocketMQ's AclClientRPCHook does. */
  readonly credentials?: AclCredentials;
  /** LanguageCode name sent in headers. Default "JAVA": every 5.x broker knows it ("NODE_JS" only ≥ 5.3.2). */
  readonly language?: string;
  /** MQVersion ordinal sent in headers. Default 479 (V5_3_3); ≥ 401 gets standard JSON routes from the name server. */
  readonly version?: number;
  /** Default 3000 ms, and never more than the request's own timeout. */
  readonly connectTimeoutMs?: number;
  readonly reconnect?: ReconnectOptions;
  readonly requestHandler?: RemotingRequestHandler;
  /** Source of jitter for the back-off (tests pin it). Default Math.random. */
  readonly random?: () => number;
  /** First opaque to use (0..2^31-1). Default 0, as the Java client. */
  readonly initialOpaque?: number;
}

export type RemotingConnectionState = 'idle' | 'connecting' | 'open' | 'backoff' | 'closed';

const OPAQUE_MASK = 0x7fffffff;

/**
 * One multiplexed connection to a broker or name server: every request, long-poll pull and broker callback of
 * this address shares it, correlated by opaque. Connects on first use; after a drop it reconnects by itself with
 * exponential back-off and jitter, and requests made meanwhile fail at once with a retriable
 * RemotingConnectionError (as Java's RemotingConnectException) instead of queueing. Bad bytes from the peer close
 * the connection, reject its pending requests with the ProtocolError and emit `protocol-error`: nothing is ever
 * thrown out of a socket callback.
 */
export class RemotingConnection {
  readonly address: string;
  private readonly options: RemotingConnectionOptions;
  private readonly events = new Subject<RemotingEvent>();
  private readonly pending = new PendingRequests();
  private socket: net.Socket | undefined;
  private connecting: Promise<net.Socket> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempts = 0;
  private lastError: Error | undefined;
  private nextOpaque = 0;
  private closed = false;
  private readonly handlerTasks = new Set<Promise<void>>();

  constructor(address: string, options: RemotingConnectionOptions = {}) {
    this.address = address;
    this.options = options;
    this.nextOpaque = (options.initialOpaque ?? 0) & OPAQUE_MASK;
  }

  /** Connection events (connected, disconnected, protocol-error, reconnect-scheduled, ...). Completes on close. */
  get events$(): Observable<RemotingEvent> {
    return this.events.asObservable();
  }

  get state(): RemotingConnectionState {
    if (this.closed) return 'closed';
    if (this.socket) return 'open';
    if (this.connecting) return 'connecting';
    return this.reconnectTimer ? 'backoff' : 'idle';
  }

  /** Requests sent on this connection and not yet answered. */
  get pendingRequests(): number {
    return this.pending.size;
  }

  /** Opens the connection now (it also opens on the first request). */
  async connect(timeoutMs = this.options.connectTimeoutMs ?? 3000): Promise<void> {
    await this.ensureSocket(timeoutMs);
  }

  /** Sends a request and resolves with its response, whatever the response code. */
  async request(request: OutgoingRequest, options: RequestOptions): Promise<RemotingCommand> {
    const started = Date.now();
    options.signal?.throwIfAborted();
    const opaque = this.allocateOpaque();
    const frame = this.encodeRequest(request, opaque, 0);
    const socket = await this.ensureSocket(options.timeoutMs);
    options.signal?.throwIfAborted();
    const answer = this.pending.add(
      opaque,
      options.timeoutMs - (Date.now() - started),
      options.signal,
      () => `request ${request.code} to ${this.address}`,
    );
    writeFrame(socket, frame, (error) => {
      if (error)
        this.pending.reject(
          opaque,
          new RemotingConnectionError(`write failed: ${error.message}`, { address: this.address, cause: error }),
        );
    });
    return answer;
  }

  /** Sends a oneway request (never answered); resolves once the frame is handed to the socket. */
  async oneway(request: OutgoingRequest, options: { timeoutMs?: number } = {}): Promise<void> {
    const frame = this.encodeRequest(request, this.allocateOpaque(), RemotingFlag.ONEWAY);
    const socket = await this.ensureSocket(options.timeoutMs ?? this.options.connectTimeoutMs ?? 3000);
    await new Promise<void>((resolve, reject) => {
      writeFrame(socket, frame, (error) =>
        error
          ? reject(
              new RemotingConnectionError(`write failed: ${error.message}`, { address: this.address, cause: error }),
            )
          : resolve(),
      );
    });
  }

  /** Closes for good: pending requests are rejected, no reconnect follows, handlers in flight are awaited. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const socket = this.socket;
    this.pending.rejectAll(new RemotingConnectionError('connection closed by the client', { address: this.address }));
    if (socket && !socket.destroyed) {
      // Frames corked in this tick (writeFrame) go to the socket first: a reply to a broker request may have been
      // written in the same tick as the close (a request-reply caller stopping on its last reply).
      while (socket.writableCorked > 0) socket.uncork();
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.destroy();
      });
    }
    await Promise.all([...this.handlerTasks]);
    this.events.complete();
  }

  private allocateOpaque(): number {
    // Opaques stay in 0..2^31-1 and wrap; one still pending after a full wrap is skipped.
    let opaque = this.nextOpaque;
    while (this.pending.has(opaque)) opaque = (opaque + 1) & OPAQUE_MASK;
    this.nextOpaque = (opaque + 1) & OPAQUE_MASK;
    return opaque;
  }

  private encodeRequest(request: OutgoingRequest, opaque: number, flag: number): Buffer {
    const command = remotingCommand({
      code: request.code,
      opaque,
      flag,
      language: this.options.language ?? 'JAVA',
      version: this.options.version ?? MQVersion.V5_3_3,
      remark: request.remark,
      extFields: request.extFields,
      body: request.body,
      serializeType: SerializeType.JSON,
    });
    if (!this.options.credentials) return encodeCommand(command);
    return encodeCommand({
      ...command,
      extFields: signExtFields(command.extFields, command.body, this.options.credentials, request.unsignedFields),
    });
  }

  private ensureSocket(timeoutMs: number): Promise<net.Socket> {
    if (this.closed)
      return Promise.reject(new RemotingConnectionError('connection is closed', { address: this.address }));
    if (this.socket) return Promise.resolve(this.socket);
    if (this.connecting) return this.connecting;
    if (this.reconnectTimer) {
      return Promise.reject(
        new RemotingConnectionError('not connected; reconnecting with back-off', {
          address: this.address,
          cause: this.lastError,
        }),
      );
    }
    return this.startConnect(Math.min(timeoutMs, this.options.connectTimeoutMs ?? 3000));
  }

  private startConnect(timeoutMs: number): Promise<net.Socket> {
    const attempt = openSocket(this.address, this.options.tls, Math.max(1, timeoutMs)).then(
      (socket) => this.adopt(socket),
      (error: Error) => {
        this.connecting = undefined;
        this.lastError = error;
        this.scheduleReconnect();
        throw error;
      },
    );
    this.connecting = attempt;
    return attempt;
  }

  private adopt(socket: net.Socket): net.Socket {
    this.connecting = undefined;
    if (this.closed) {
      socket.destroy();
      throw new RemotingConnectionError('connection closed while connecting', { address: this.address });
    }
    this.socket = socket;
    this.attempts = 0;
    this.lastError = undefined;
    const decoder = new FrameDecoder();
    socket.on('data', (chunk: Buffer) => this.onData(socket, decoder, chunk));
    socket.on('error', (error) => {
      this.lastError = error;
    });
    socket.on('close', () => this.drop(socket, this.lastError));
    this.events.next({ type: 'connected', address: this.address });
    return socket;
  }

  private onData(socket: net.Socket, decoder: FrameDecoder, chunk: Buffer): void {
    if (this.socket !== socket) return;
    try {
      decoder.push(chunk, (frame) => this.onCommand(socket, decodeCommand(frame)));
    } catch (error) {
      const protocolError =
        error instanceof ProtocolError
          ? error
          : new ProtocolError(`undecodable frame: ${String(error)}`, { cause: error });
      this.events.next({ type: 'protocol-error', address: this.address, error: protocolError });
      // Dropped at once, not on 'close': the stream is out of step and nothing more may be written to it.
      this.drop(socket, protocolError);
      socket.destroy();
    }
  }

  private onCommand(socket: net.Socket, command: RemotingCommand): void {
    if (isResponse(command)) {
      if (!this.pending.settle(command.opaque, command)) {
        this.events.next({
          type: 'unmatched-response',
          address: this.address,
          opaque: command.opaque,
          code: command.code,
        });
      }
      return;
    }
    const task = this.answer(socket, command);
    this.handlerTasks.add(task);
    void task.finally(() => this.handlerTasks.delete(task));
  }

  /** Runs the handler for a peer's request and writes its reply; never rejects. */
  private async answer(socket: net.Socket, request: RemotingCommand): Promise<void> {
    let reply: RemotingReply | undefined;
    try {
      reply = this.options.requestHandler
        ? await this.options.requestHandler(request, { address: this.address })
        : undefined;
      reply ??= { code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED, remark: `request code ${request.code} not supported` };
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      this.events.next({ type: 'request-handler-error', address: this.address, code: request.code, error: err });
      reply = { code: ResponseCode.SYSTEM_ERROR, remark: err.message };
    }
    if (isOneway(request) || socket.destroyed || this.socket !== socket) return;
    try {
      const response = remotingCommand({
        code: reply.code,
        opaque: request.opaque,
        flag: RemotingFlag.RESPONSE,
        language: this.options.language ?? 'JAVA',
        version: this.options.version ?? MQVersion.V5_3_3,
        remark: reply.remark,
        extFields: reply.extFields,
        body: reply.body,
      });
      writeFrame(socket, encodeCommand(response));
    } catch (error) {
      // An unencodable reply (e.g. over 16 MiB): report it, and let the broker time out as it would on no reply.
      this.events.next({
        type: 'request-handler-error',
        address: this.address,
        code: request.code,
        error: error as Error,
      });
    }
  }

  /** Forgets a socket that closed or failed: rejects what waits on it, reports, and schedules a reconnect. */
  private drop(socket: net.Socket, error: Error | undefined): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.lastError = error;
    this.pending.rejectAll(
      error instanceof ProtocolError
        ? error
        : new RemotingConnectionError('connection lost', { address: this.address, cause: error }),
    );
    this.events.next({ type: 'disconnected', address: this.address, error });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const enabled = this.options.reconnect?.enabled ?? RECONNECT_DEFAULTS.enabled;
    if (this.closed || !enabled || this.reconnectTimer) return;
    this.attempts += 1;
    const delayMs = reconnectDelay(this.attempts, this.options.reconnect ?? {}, this.options.random ?? Math.random);
    this.events.next({ type: 'reconnect-scheduled', address: this.address, attempt: this.attempts, delayMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      // A failed attempt schedules the next one itself; nobody awaits this one, so its rejection is consumed here.
      this.startConnect(this.options.connectTimeoutMs ?? 3000).catch(() => undefined);
    }, delayMs);
    this.reconnectTimer.unref?.();
  }
}

/**
 * Writes a frame, coalescing every frame written to the socket in the same tick into one socket write. Bursts are
 * the normal case: the broker answers held long polls in batches and each answer's next pull is sent in the same
 * tick, and offset commits go out for every queue at once; one write (and one system call) per frame cost an idle
 * member owning 1,024 queues about a quarter of its CPU. The socket is corked on the tick's first frame and uncorked
 * once the tick's synchronous work and microtasks are done (process.nextTick), so no frame waits for I/O or a timer.
 */
function writeFrame(socket: net.Socket, frame: Buffer, done?: (error: Error | null | undefined) => void): void {
  if (socket.writableCorked === 0) {
    socket.cork();
    process.nextTick(() => socket.uncork());
  }
  socket.write(frame, done);
}
