import {
  ConfigurationError,
  IllegalStateError,
  createConsumerApp,
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
 * A Nest microservice transport that consumes RocketMQ through mqkit: each `@EventPattern('<topic>')` handler
 * becomes a subscription of the server's consumer group. The handler gets the decoded payload (`@Payload()`) and a
 * {@link MqkitContext} (`@Ctx()`). A handler that throws, or returns a stream that errors, fails the message, which
 * is retried and then dead-lettered as in any mqkit consumer. `@MessagePattern` (request-reply) is refused at
 * `listen()`.
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
 * }
 * ```
 */
export class MqkitServer extends Server<Record<string, Function>, MqkitServerStatus> implements CustomTransportStrategy {
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
  on<K extends string = string, C extends Function = Function>(event: K, callback: C): () => void {
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
    if (!report.drained) this.logger.warn?.(`mqkit server stopped without draining in ${report.elapsedMs} ms: unfinished messages will be redelivered`);
    return report;
  }

  private declarations(): ConsumerDeclaration[] {
    const issues: ConfigurationIssue[] = [];
    const declarations: ConsumerDeclaration[] = [];
    for (const [pattern, handler] of this.getHandlers()) {
      const source = `@EventPattern('${pattern}')`;
      if (!handler.isEventHandler) {
        issues.push({ source: `@MessagePattern('${pattern}')`, option: 'pattern', value: pattern, allowed: 'an @EventPattern: RocketMQ consumption has no reply, so MqkitServer serves events only' });
        continue;
      }
      const { batch, ...extras } = (handler.extras ?? {}) as MqkitEventExtras & { batch?: unknown };
      if (batch !== undefined) {
        issues.push({ source, option: 'batch', value: batch, allowed: 'no batch on @EventPattern handlers (one message per call); use @Consumer({ batch: true }) with MqkitModule' });
        continue;
      }
      const options = { ...this.options.consumer, ...extras, group: extras.group ?? this.options.group, topic: pattern };
      const target = { handle: (message: Message, ctx: ConsumeContext) => this.dispatch(pattern, handler, message, ctx) };
      declarations.push({ options, handler: { className: source, method: 'handle', resolve: () => target } });
    }
    if (issues.length > 0) throw new ConfigurationError(issues);
    return declarations;
  }

  /**
   * Calls the Nest handler chain for one message and settles when it has: its promise, or the stream it returns,
   * completing. The call goes through Nest's processing hooks (tracing) without depending on what they return.
   */
  private dispatch(pattern: string, handler: MessageHandler, message: Message, ctx: ConsumeContext): Promise<void> {
    const context = new MqkitContext([message, ctx]);
    return new Promise<void>((resolve, reject) => {
      const run = this.runWithProcessingHooks(context, async (runEndHook) => {
        try {
          const result: unknown = await handler(message.payload, context);
          if (isObservable(result)) await lastValueFrom(result.pipe(finalize(runEndHook)), { defaultValue: undefined });
          else runEndHook();
          resolve();
        } catch (error) {
          reject(asError(pattern, error));
          throw error;
        }
      });
      // The outcome is reported through resolve/reject above; the hook's own promise only repeats it.
      void Promise.resolve(run).catch(() => undefined);
    });
  }
}

/** Nest's RPC exception filter turns errors into plain `{ status, message }` objects; core wants an Error. */
function asError(pattern: string, error: unknown): unknown {
  if (error instanceof Error) return error;
  return new Error(`@EventPattern('${pattern}') handler failed: ${JSON.stringify(error)}`, { cause: error });
}
