import 'reflect-metadata';
import type { Observable } from 'rxjs';
import type { DependencyContainer } from 'tsyringe';
import { IllegalStateError } from '../errors/state.error';
import type { EventBus } from '../events/event-bus';
import type { MqkitEvent, MqkitEventName, MqkitEvents, MqkitListener } from '../events/event-map';
import { wrapNamespace } from '../model/namespace';
import type { Profile } from '../options/profile';
import type { Producer } from '../producer/producer';
import { ByteBudget } from '../consumer/queue/byte-budget';
import type { ConsumerStatus, StopReport } from '../model/consumer-status';
import type { TransportRoles } from '../spi/transport.plugin';
import { parentController } from '../util/abort';
import type { TraceStatus } from '../trace/trace-dispatcher';
import { AppEngine } from './app-engine';
import { whenReady } from './app-ready';
import { checkAppOptions, type ConsumerAppOptions, type StopOptions } from './app-options';
import { consumerControl, type ConsumerControl } from './consumer-control';
import { ClientHost } from './client-host';

const DEFAULT_MAX_CACHED_BYTES = 256 * 1024 * 1024;

export type { ConsumerControl } from './consumer-control';

/** The test kit's way in (`simulateCrash`): a symbol, so the crash is not part of the app's API. */
export const CRASH = Symbol.for('mqkit.app.crash');

export type AppState = 'new' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface AppStatus {
  readonly clientId: string;
  readonly state: AppState;
  /** Every consumer running and rebalanced at least once. */
  readonly ready: boolean;
  readonly cachedBytes: number;
  readonly maxCachedBytes: number;
  readonly consumers: readonly ConsumerStatus[];
  /** The message traces (`enableMsgTrace` of the app, of its producer): records queued, sent, dropped, failed. */
  readonly trace?: readonly TraceStatus[];
}

/**
 * A set of consumer groups (and optionally a producer) sharing one client id, one transport connection, one
 * child DI container and one byte budget. Two apps in one process share nothing, so three apps form a real
 * three-member group on one broker. This class is the facade and keeps the app's state; the bootstrap is
 * ClientHost, what runs (the groups' ConsumerRuntimes, the producer, heartbeats) is the AppEngine, and the app's
 * signal is the root of their cancellation tree.
 */
export class ConsumerApp {
  private readonly host: ClientHost;
  private readonly controller = parentController();
  private readonly budget: ByteBudget;
  private readonly engine: AppEngine;
  private stopReport: Promise<StopReport> | undefined;
  private currentState: AppState = 'new';
  private readonly stateListeners = new Set<() => void>();

  constructor(private readonly options: ConsumerAppOptions) {
    this.host = new ClientHost('createConsumerApp', options);
    this.budget = new ByteBudget(options.maxCachedBytes ?? DEFAULT_MAX_CACHED_BYTES);
    this.engine = new AppEngine(this.host, options, this.budget, this.controller.signal);
  }

  get clientId(): string {
    return this.host.clientId;
  }
  get container(): DependencyContainer {
    return this.host.container;
  }
  get events(): EventBus {
    return this.host.events;
  }
  get profile(): Profile {
    return this.host.profile;
  }
  get state(): AppState {
    return this.currentState;
  }

  /** The connected transport's roles (after `start()`). */
  get transport(): TransportRoles {
    return this.host.roles;
  }

  /** Calls `listener` with each `event`'s payload until the function it returns is called. */
  on<K extends MqkitEventName>(event: K, listener: MqkitListener<K>): () => void {
    return this.events.on(event, listener);
  }

  /**
   * Every event of the app as an Observable of `{ type, payload }` ({@link MqkitEvent}; narrow it with
   * {@link ofEvent}). Completes when the app has stopped (`stop()`, or a failed `start()`); subscribed after that,
   * it completes at once. An error thrown by an observer goes where RxJS sends unhandled errors
   * (`config.onUnhandledError`) and reaches neither the app nor the other subscribers.
   *
   * The cost: while a subscription is open the app listens to every event, so it builds every payload on the hot
   * path (`consumer.pull` per pull, `consumer.consume` per handler call, `producer.send` per send), filtered out
   * afterwards or not. Unsubscribing stops that. For one event, `event$(name)` costs only that event.
   *
   * @example
   * ```ts
   * const errors = app.events$.pipe(ofEvent('consumer.error')).subscribe(({ payload }) => console.warn(payload.error));
   * ```
   */
  get events$(): Observable<MqkitEvent> {
    return this.events.events$;
  }

  /**
   * One event's payloads as an Observable: `on(event, listener)` per subscription, so only that event's payload is
   * built for it, the others' hot-path checks staying off. Completes as `events$` does.
   */
  event$<K extends MqkitEventName>(event: K): Observable<MqkitEvents[K]> {
    return this.events.event$(event);
  }

  /** The app's producer (when `producer` options were given). */
  get producer(): Producer {
    const producer = this.engine.producer;
    if (!producer)
      throw new IllegalStateError(
        'this app has no producer: pass `producer: { group }` to createConsumerApp and start it',
      );
    return producer;
  }

  /**
   * Validates every option, connects the transport, registers the plugins, then starts every consumer. Fails with
   * ConfigurationError before anything consumes; on any failure what was started is stopped again.
   */
  async start(): Promise<void> {
    if (this.currentState !== 'new')
      throw new IllegalStateError(`app ${this.clientId} cannot start: it is ${this.currentState}`);
    this.moveTo('starting');
    try {
      checkAppOptions(this.options);
      await this.engine.start();
      this.moveTo('running');
    } catch (error) {
      this.moveTo('failed');
      await this.shutdown(Date.now()).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Drains and leaves: stops rebalancing and pulling, waits for running handler calls (up to timeoutMs; then
   * their signals are aborted and their messages left for redelivery), commits what finished, unregisters,
   * and closes the transport. Resolves with what happened per queue. Calling it twice returns the same report.
   */
  stop(options: StopOptions = {}): Promise<StopReport> {
    this.stopReport ??= this.doStop(options.timeoutMs ?? 30_000);
    return this.stopReport;
  }

  /**
   * Resolves once the app is running and every consumer group has ended a balanced rebalance pass
   * (`status().ready`): each owns its share of the queues and pulls them. `start()` resolves before that, as the
   * first pass waits for the group's member list and the topics' routes. Resolves with that status: a subscribed
   * topic that has no route yet (not created) does not hold readiness back, as consumers are often deployed before
   * the producers that create their topics; the group's `unroutedTopics` lists it, `consumer.topic-missing` reports
   * it, and the group reads it from its start once it appears. Rejects with TimeoutError after `timeoutMs` (default
   * 30 s), naming each group that is not ready and its last error, and with IllegalStateError when the app stops or
   * fails first.
   */
  ready(options: { timeoutMs?: number } = {}): Promise<AppStatus> {
    return whenReady(
      {
        clientId: this.clientId,
        events: this.events,
        status: () => this.status(),
        onStateChange: (listener) => this.onStateChange(listener),
      },
      options.timeoutMs,
    );
  }

  consumer(group: string): ConsumerControl {
    const runtime = this.engine.runtime(wrapNamespace(this.options.namespace, group));
    if (!runtime)
      throw new IllegalStateError(
        `no consumer group ${group} in app ${this.clientId} (started groups: ${this.engine.groups.join(', ') || 'none'})`,
      );
    return consumerControl(group, runtime, this.host, this.options.namespace);
  }

  status(): AppStatus {
    const consumers = this.engine.statuses();
    const traces = this.engine.traceStatuses();
    return {
      clientId: this.clientId,
      state: this.currentState,
      ready: this.currentState === 'running' && consumers.every((c) => c.ready),
      cachedBytes: this.budget.inUse,
      maxCachedBytes: this.budget.limit,
      consumers,
      ...(traces.length > 0 ? { trace: traces } : {}),
    };
  }

  /** Peak of cached bytes (reservations included) since start; what the backlog benchmark reports. */
  get peakCachedBytes(): number {
    return this.budget.peakInUse;
  }

  /**
   * Stops as a killed process would (exported as `simulateCrash` from the testing entry): consumers stop at once
   * without committing, unlocking or unregistering, and the transport connection closes. The broker notices the
   * member is gone; its queue locks stay until they expire.
   */
  async [CRASH](): Promise<void> {
    if (this.currentState !== 'running') return;
    this.moveTo('stopped');
    this.controller.abort();
    this.engine.crash();
    this.stopReport = Promise.resolve({ clientId: this.clientId, elapsedMs: 0, drained: false, consumers: [] });
    await this.host.close();
  }

  private async doStop(timeoutMs: number): Promise<StopReport> {
    const started = Date.now();
    if (this.currentState !== 'running') {
      await this.shutdown(started + timeoutMs);
      return { clientId: this.clientId, elapsedMs: Date.now() - started, drained: true, consumers: [] };
    }
    this.moveTo('stopping');
    const consumers = await this.shutdown(started + timeoutMs);
    const drained = consumers.every((c) => c.queues.every((q) => q.drained));
    return { clientId: this.clientId, elapsedMs: Date.now() - started, drained, consumers };
  }

  /** Aborts the app's signal (heartbeats and every group stop pulling), ends what runs, then closes. */
  private async shutdown(deadline: number): Promise<StopReport['consumers']> {
    this.controller.abort();
    const consumers = await this.engine.stop(deadline);
    try {
      await this.host.close();
    } finally {
      this.moveTo('stopped');
    }
    return consumers;
  }

  private moveTo(state: AppState): void {
    this.currentState = state;
    for (const listener of [...this.stateListeners]) listener();
  }

  private onStateChange(listener: () => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }
}
