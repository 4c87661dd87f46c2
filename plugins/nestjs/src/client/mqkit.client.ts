import {
  IllegalStateError,
  createProducer,
  type OutgoingMessage,
  type SendResult,
  type StandaloneProducer,
} from '@mqkit/core';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { Observable } from 'rxjs';
import type { MqkitClientOptions, MqkitClientStatus, MqkitRequester } from './mqkit-client-options';

/**
 * A Nest `ClientProxy` over an mqkit producer. `send(pattern, data)` is a RocketMQ request to the topic `pattern`
 * (normalised as Nest does, the way {@link MqkitServer} reads its handlers' patterns), answered by a
 * `@MessagePattern` handler of `MqkitServer` or by any RocketMQ replier; `emit(pattern, data)` is a plain send, for
 * `@EventPattern` handlers, and emits the broker's `SendResult`.
 *
 * No Nest packet goes on the wire: the body is `data` encoded by the producer's codec (JSON by default), the topic
 * is the pattern, the correlation is RocketMQ's own (CORRELATION_ID, REPLY_TO_CLIENT), and the `packet.metadata`
 * that a `setOnDispatchHook` hook sets travels as user properties. A plain mqkit `reply: true` consumer or a Java
 * `RocketMQReplyListener` can therefore answer, and the reply body is decoded with the same codec. Nest's
 * `serializer` and `deserializer` options do not apply: the producer's `codec` is the place to change the encoding.
 *
 * `send()` emits the decoded reply once and completes, or errors with `RequestTimeoutError` when no reply arrives
 * within `timeoutMs`. Unsubscribing does not withdraw a request: its reply, if one comes, is dropped.
 *
 * @example
 * ```ts
 * const client = new MqkitClient({ transport: memoryTransport(), group: 'checkout-requests', timeoutMs: 5_000 });
 * const total = await firstValueFrom(client.send<Total>('invoice-totals', invoice));
 * client.emit('orders', order);
 * await client.close();
 * ```
 */
// The status type stays ClientProxy's `string` (the getter narrows it): ClientsModule's `customClass` takes only a
// `Type<ClientProxy>`, and a narrower status subject would not fit it.
export class MqkitClient extends ClientProxy {
  private connection: Promise<MqkitRequester> | undefined;
  private own: StandaloneProducer | undefined;
  private closing: Promise<void> = Promise.resolve();

  /** Options of its own producer (`createProducer`'s, started at `connect()`), or `{ producer }` to share one. */
  constructor(private readonly options: MqkitClientOptions) {
    super();
  }

  /** Emits `connecting`, `connected` and `disconnected`. */
  override get status(): Observable<MqkitClientStatus> {
    return super.status as Observable<MqkitClientStatus>;
  }

  /** Starts the client's own producer once (a shared one is used as it is); `send` and `emit` call it first. */
  connect(): Promise<MqkitRequester> {
    if (this.connection) return this.connection;
    const attempt = this.open();
    this.connection = attempt;
    // A failed start is not cached: the next send tries again. The caller sees the rejection itself.
    attempt.catch(() => {
      if (this.connection === attempt) this.connection = undefined;
    });
    return attempt;
  }

  /** Stops the client's own producer once its requests in flight have settled; a shared producer keeps running. */
  close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.closing = this.closing.then(() => this.shutdown(connection));
    return this.closing;
  }

  /** The producer behind the client: the shared one, or its own after `connect()`. */
  unwrap<T>(): T {
    const producer = 'producer' in this.options ? this.options.producer : this.own;
    if (!producer) throw new IllegalStateError('MqkitClient has no producer before connect()');
    return producer as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    let listening = true;
    void this.request(packet).then(
      (response) => {
        if (listening) callback({ response, isDisposed: true });
      },
      (err: unknown) => {
        if (listening) callback({ err });
      },
    );
    return () => {
      listening = false;
    };
  }

  protected async dispatchEvent<T = SendResult>(packet: ReadPacket): Promise<T> {
    const requester = await this.connect();
    return (await requester.send(this.outgoing(packet))) as T;
  }

  private async request(packet: ReadPacket): Promise<unknown> {
    const requester = await this.connect();
    const reply = await requester.request(this.outgoing(packet), { timeoutMs: this.options.timeoutMs });
    // Decoding is lazy in core: read here, a body the codec cannot decode errors this call, not the subscriber.
    return reply.payload;
  }

  private outgoing(packet: ReadPacket): OutgoingMessage {
    return { topic: this.normalizePattern(packet.pattern), payload: packet.data, properties: packet.metadata };
  }

  private async open(): Promise<MqkitRequester> {
    // A reconnect waits for the previous producer to leave: with a fixed instanceName both would share a client id.
    await this.closing;
    if ('producer' in this.options) {
      this.setStatus('connected');
      return this.options.producer;
    }
    const { timeoutMs: _timeoutMs, ...producerOptions } = this.options;
    this.setStatus('connecting');
    try {
      this.own = await createProducer(producerOptions);
    } catch (error) {
      this.setStatus('disconnected');
      throw error;
    }
    this.setStatus('connected');
    return this.own;
  }

  private setStatus(status: MqkitClientStatus): void {
    this._status$.next(status);
  }

  private async shutdown(connection: Promise<MqkitRequester> | undefined): Promise<void> {
    // A start that failed has nothing to stop and has reported its failure to its caller.
    const requester = await connection?.catch(() => undefined);
    if (requester === undefined) return;
    const own = this.own;
    if (own !== undefined && requester === own) {
      this.own = undefined;
      await own.stop();
    }
    this.setStatus('disconnected');
  }
}
