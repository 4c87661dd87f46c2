import {
  ConfigurationError,
  IllegalStateError,
  createConsumerApp,
  jsonCodec,
  type Codec,
  type ConfigurationIssue,
  type ConsumeContext,
  type ConsumerApp,
  type ConsumerDeclaration,
  type Message,
  type MqkitEventName,
  type MqkitListener,
  type StopReport,
} from '@mqkit/core';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { finalize, isObservable, lastValueFrom } from 'rxjs';
import { MqkitContext } from './mqkit.context';
import { MQKIT_TRANSPORT, type MqkitEventExtras, type MqkitServerOptions } from './mqkit-server-options';

/** Statuses emitted on `server.status`. */
export type MqkitServerStatus = 'connecting' | 'connected' | 'disconnected';

/**
 * A Nest microservice transport that consumes RocketMQ through mqkit: each `@EventPattern('<topic>')` and
 * `@MessagePattern('<topic>')` handler becomes a subscription of the server's consumer group. The handler gets the
 * decoded payload (`@Payload()`) and a {@link MqkitContext} (`@Ctx()`).
 *
 * A `@MessagePattern` handler is a `reply: true` subscription (RocketMQ request-reply): what it returns (a value, a
 * Promise, or an Observable, whose last value counts) is the reply to the requester (`MqkitClient.send`, core's
 * `producer.request`, a Java `DefaultMQProducer.request`), encoded with the subscription's codec, JSON by default.
 * A string is data like any other and goes through the codec too; a Buffer is sent as its bytes. A message that is
 * not a request (no correlation id) is consumed without a reply.
 *
 * A handler that throws (an `RpcException` included), or returns a stream that errors, fails the message, which is
 * retried and then dead-lettered as in any mqkit consumer; a failed request gets no reply, and its retry answers if
 * the requester still waits. `batch` extras are refused at `listen()`.
 *
 * @example
 * ```ts
 * const app = await NestFactory.createMicroservice(AppModule, {
 *   strategy: new MqkitServer({ transport: memoryTransport(), group: 'billing' }),
 * });
 * await app.listen();
 *
 * @Controller()
 * class BillingController {
 *   @EventPattern('orders', { tags: 'paid' })
 *   charge(@Payload() order: Order, @Ctx() ctx: MqkitContext) {}
 *
 *   @MessagePattern('invoice-totals')
 *   total(@Payload() invoice: Invoice): Promise<Total> { return this.totals.of(invoice); }
 * }
 * ```
 */
export class MqkitServer
  extends Server<Record<string, (...args: never[]) => unknown>, MqkitServerStatus>
  implements CustomTransportStrategy
{
  override readonly transportId = MQKIT_TRANSPORT;
  /** Handler failures must reach the consumer (retry, DLQ), not only Nest's log. */
  override readonly propagatesEventHandlerErrors = true;
  private app: ConsumerApp | undefined;
  private stopping: Promise<StopReport | undefined> | undefined;

  constructor(private readonly options: MqkitServerOptions) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    this.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  /** Drains and leaves the group; safe to call more than once. */
  async close(): Promise<void> {
    this.stopping ??= this.stop();
    await this.stopping;
  }

  /** Listens to one of core's events (`consumer.consume`, `consumer.error`, ...); returns the unsubscribe function. */
  on<K extends string = string, C extends (...args: never[]) => unknown = (...args: never[]) => unknown>(
    event: K,
    callback: C,
  ): () => void {
    return this.unwrap<ConsumerApp>().on(event as MqkitEventName, callback as unknown as MqkitListener<MqkitEventName>);
  }

  /** The core `ConsumerApp` behind the server (after `listen()`). */
  unwrap<T>(): T {
    if (!this.app) throw new IllegalStateError('MqkitServer has no consumer app before listen()');
    return this.app as T;
  }

  private async start(): Promise<void> {
    if (this.app) throw new IllegalStateError('MqkitServer is already listening');
    const { group: _group, consumer: _consumer, stopTimeoutMs: _stop, ...appOptions } = this.options;
    const consumers = this.declarations();
    this._status$.next('connecting');
    const app = await createConsumerApp({ ...appOptions, consumers });
    this.app = app;
    await app.start();
    this._status$.next('connected');
  }

  private async stop(): Promise<StopReport | undefined> {
    const app = this.app;
    if (!app) return undefined;
    const report = await app.stop({ timeoutMs: this.options.stopTimeoutMs ?? 30_000 });
    this._status$.next('disconnected');
    if (!report.drained)
      this.logger.warn?.(
        `mqkit server stopped without draining in ${report.elapsedMs} ms: unfinished messages will be redelivered`,
      );
    return report;
  }

  private declarations(): ConsumerDeclaration[] {
    const issues: ConfigurationIssue[] = [];
    const declarations: ConsumerDeclaration[] = [];
    for (const [pattern, handler] of this.getHandlers()) {
      const reply = !handler.isEventHandler;
      const source = reply ? `@MessagePattern('${pattern}')` : `@EventPattern('${pattern}')`;
      const { batch, ...extras } = (handler.extras ?? {}) as MqkitEventExtras & { batch?: unknown };
      if (batch !== undefined) {
        issues.push({ source, option: 'batch', value: batch, allowed: reply ? NO_BATCH_REPLY : NO_BATCH_EVENT });
        continue;
      }
      // The decorator decides whether a subscription replies, never an option spread in from `consumer` or extras.
      const options = {
        ...this.options.consumer,
        ...extras,
        group: extras.group ?? this.options.group,
        topic: pattern,
        reply,
      };
      const codec = reply ? (options.codec ?? jsonCodec) : undefined;
      const target = {
        handle: (message: Message, ctx: ConsumeContext) => this.dispatch(source, handler, message, ctx, codec),
      };
      declarations.push({ options, handler: { className: source, method: 'handle', resolve: () => target } });
    }
    if (issues.length > 0) throw new ConfigurationError(issues);
    return declarations;
  }

  /**
   * Calls the Nest handler chain for one message and settles when it has: its promise, or the stream it returns,
   * completing. The call goes through Nest's processing hooks (tracing) without depending on what they return.
   * With a reply codec (a `@MessagePattern`) it resolves with the reply; an event handler's result is dropped, as
   * core would read it as a consume status.
   */
  private dispatch(
    source: string,
    handler: MessageHandler,
    message: Message,
    ctx: ConsumeContext,
    replyCodec: Codec | undefined,
  ): Promise<unknown> {
    const context = new MqkitContext([message, ctx]);
    return new Promise<unknown>((resolve, reject) => {
      const run = this.runWithProcessingHooks(context, async (runEndHook) => {
        try {
          const result: unknown = await handler(message.payload, context);
          // One request has one reply: of a stream, the last value answers (Nest's own servers send each value as
          // a response packet; a RocketMQ reply cannot be followed by another).
          let value = result;
          if (isObservable(result))
            value = await lastValueFrom(result.pipe(finalize(runEndHook)), { defaultValue: undefined });
          else runEndHook();
          resolve(replyCodec ? replyBody(value, replyCodec) : undefined);
        } catch (error) {
          reject(asError(source, error));
          throw error;
        }
      });
      // The outcome is reported through resolve/reject above; the hook's own promise only repeats it.
      void Promise.resolve(run).catch(() => undefined);
    });
  }
}

const NO_BATCH_EVENT =
  'no batch on @EventPattern handlers (one message per call); use @Consumer({ batch: true }) with MqkitModule';
const NO_BATCH_REPLY = 'no batch on @MessagePattern handlers: a reply answers one request message';

/**
 * A Nest handler returns data, whatever its type: a string goes through the codec like an object, so a JSON
 * requester (MqkitClient) reads back the string that was returned, where core sends a string's bytes as they are.
 * A Buffer stays raw bytes, for requesters that want exactly those.
 */
function replyBody(value: unknown, codec: Codec): unknown {
  return typeof value === 'string' ? codec.encode(value) : value;
}

/** Nest's RPC exception filter turns errors into plain `{ status, message }` objects; core wants an Error. */
function asError(source: string, error: unknown): unknown {
  if (error instanceof Error) return error;
  return new Error(`${source} handler failed: ${JSON.stringify(error)}`, { cause: error });
}
