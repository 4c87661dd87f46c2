import 'reflect-metadata';
import { Subject, exhaustMap, interval, merge, takeUntil } from 'rxjs';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { AllocateMessageQueueAveragely } from '../allocation/averagely.strategy';
import { StrategyRegistry } from '../allocation/strategy-registry';
import { buildDefinitions } from '../definition/build-definitions';
import type { ConsumerDeclaration, ConsumerDefinition } from '../definition/consumer-definition';
import { exploreConsumers, type Constructor } from '../definition/explore-consumers';
import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { IllegalStateError } from '../errors/state.error';
import { EventBus } from '../events/event-bus';
import type { MqkitEventName, MqkitListener } from '../events/event-map';
import { resolveProfile, type Profile } from '../options/profile';
import { brokerOffsetStore } from '../offsets/broker-offset-store';
import { Producer } from '../producer/producer';
import { resolveProducerOptions } from '../producer/producer-options';
import { ByteBudget } from '../runtime/byte-budget';
import { ConsumerRuntime } from '../runtime/consumer-runtime';
import type { ConsumerStatus, StopReport } from '../runtime/runtime-status';
import type { OffsetStoreProvider } from '../spi/offset-store';
import { Tokens, TransportRoleNames } from '../spi/tokens';
import type { BrokerCallbacks, GroupMembership } from '../spi/transport.roles';
import { buildClientId } from '../util/client-id';
import { toError } from '../util/deferred';
import type { ConsumerAppOptions, StopOptions } from './app-options';
import { PluginHost } from './plugin-host';

const DEFAULT_MAX_CACHED_BYTES = 256 * 1024 * 1024;

/** Per-consumer controls, at `app.consumer(group)`. */
export interface ConsumerControl {
  readonly group: string;
  /** Stops pulling (running handler calls finish); nothing is lost. */
  pause(): void;
  resume(): void;
  status(): ConsumerStatus;
  /**
   * Moves the whole group (every member, not just this one) back or forward to the first message stored at or
   * after `timestamp`, for each subscribed topic (or the given ones): the broker pushes the new offsets to every
   * member, which drops what it cached and pulls again from there.
   */
  resetOffsetByTimestamp(timestamp: number, topics?: readonly string[]): Promise<void>;
}

export interface AppStatus {
  readonly clientId: string;
  readonly state: ConsumerApp['state'];
  /** Every consumer running and rebalanced at least once. */
  readonly ready: boolean;
  readonly cachedBytes: number;
  readonly maxCachedBytes: number;
  readonly consumers: readonly ConsumerStatus[];
}

/**
 * A set of consumer groups (and optionally a producer) sharing one client id, one transport connection, one
 * child DI container and one byte budget. Two apps in one process share nothing, so three apps form a real
 * three-member group on one broker.
 */
export class ConsumerApp {
  readonly clientId: string;
  readonly container: DependencyContainer;
  readonly events = new EventBus();
  readonly profile: Profile;
  state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed' = 'new';
  private readonly host: PluginHost;
  private readonly budget: ByteBudget;
  private readonly runtimes = new Map<string, ConsumerRuntime>();
  private readonly stop$ = new Subject<void>();
  private readonly heartbeatNow$ = new Subject<void>();
  private producerInstance: Producer | undefined;
  private stopReport: Promise<StopReport> | undefined;

  constructor(private readonly options: ConsumerAppOptions) {
    this.profile = resolveProfile(options.profile);
    this.clientId = buildClientId({ clientIp: options.clientIp, instanceName: options.instanceName });
    this.container = (options.container ?? rootContainer).createChildContainer();
    this.host = new PluginHost(this.container, { clientId: this.clientId, profile: this.profile, events: this.events });
    this.budget = new ByteBudget(options.maxCachedBytes ?? DEFAULT_MAX_CACHED_BYTES);
  }

  on<K extends MqkitEventName>(event: K, listener: MqkitListener<K>): () => void {
    return this.events.on(event, listener);
  }

  /** The app's producer (when `producer` options were given). */
  get producer(): Producer {
    if (!this.producerInstance) throw new IllegalStateError('this app has no producer: pass `producer: { group }` to createConsumerApp and start it');
    return this.producerInstance;
  }

  /**
   * Validates every option, registers the plugins, then starts every consumer. Fails with ConfigurationError
   * before anything consumes; on any failure what was started is stopped again.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new IllegalStateError(`app ${this.clientId} cannot start: it is ${this.state}`);
    this.state = 'starting';
    try {
      const definitions = buildDefinitions(this.declarations());
      if (this.options.maxCachedBytes !== undefined && !(Number.isInteger(this.options.maxCachedBytes) && this.options.maxCachedBytes > 0)) {
        throw new ConfigurationError({ source: 'createConsumerApp', option: 'maxCachedBytes', value: this.options.maxCachedBytes, allowed: 'an integer number of bytes > 0' });
      }
      if (!this.options.transport || typeof this.options.transport.register !== 'function') {
        throw new ConfigurationError({ source: 'createConsumerApp', option: 'transport', value: this.options.transport, allowed: 'a transport plugin, e.g. memoryTransport() from @mqkit/transport-memory' });
      }
      this.container.register(Tokens.BrokerCallbacks, { useValue: this.brokerCallbacks() });
      await this.host.register(this.options.transport);
      for (const plugin of this.options.plugins ?? []) await this.host.register(plugin);
      const runtimes = this.createRuntimes(definitions);
      for (const runtime of runtimes) runtime.bindHandlers();
      if (this.options.producer) {
        this.producerInstance = new Producer({
          options: resolveProducerOptions(this.options.producer),
          routes: this.role(Tokens.RouteResolver, 'producer')!,
          sender: this.role(Tokens.MessageSender, 'producer')!,
          events: this.events,
        });
        this.container.register(Producer, { useValue: this.producerInstance });
      }
      for (const runtime of runtimes) this.runtimes.set(runtime.group, runtime);
      if (runtimes.length > 0) await this.heartbeat();
      for (const runtime of runtimes) await runtime.start();
      this.startHeartbeats();
      this.state = 'running';
    } catch (error) {
      this.state = 'failed';
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
    if (!this.stopReport) this.stopReport = this.doStop(options.timeoutMs ?? 30_000);
    return this.stopReport;
  }

  /**
   * Simulates a crash (for failure tests, exported as `simulateCrash` from the testing entry): consumers stop at
   * once without committing, unlocking or unregistering, and the transport connection closes, as when the process
   * is killed. The broker notices the member is gone; its queue locks stay until they expire.
   */
  async crashForTesting(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopped';
    this.stop$.next();
    for (const runtime of this.runtimes.values()) runtime.crash();
    this.stopReport = Promise.resolve({ clientId: this.clientId, elapsedMs: 0, drained: false, consumers: [] });
    await this.host.teardown();
  }

  consumer(group: string): ConsumerControl {
    const runtime = this.runtimes.get(group);
    if (!runtime) throw new IllegalStateError(`no consumer group ${group} in app ${this.clientId} (started groups: ${[...this.runtimes.keys()].join(', ') || 'none'})`);
    return {
      group,
      pause: () => runtime.pause(),
      resume: () => runtime.resume(),
      status: () => runtime.status(),
      resetOffsetByTimestamp: async (timestamp, topics) => {
        const admin = this.role(Tokens.OffsetAdmin, 'offset reset');
        for (const topic of topics ?? runtime.definition.subscriptions.map((s) => s.topic)) await admin.resetOffsetByTimestamp(group, topic, timestamp);
      },
    };
  }

  status(): AppStatus {
    const consumers = [...this.runtimes.values()].map((r) => r.status());
    return {
      clientId: this.clientId,
      state: this.state,
      ready: this.state === 'running' && consumers.every((c) => c.ready),
      cachedBytes: this.budget.inUse,
      maxCachedBytes: this.budget.limit,
      consumers,
    };
  }

  /** Peak of cached bytes (reservations included) since start; what the backlog benchmark reports. */
  get peakCachedBytes(): number {
    return this.budget.peakInUse;
  }

  private async doStop(timeoutMs: number): Promise<StopReport> {
    const started = Date.now();
    if (this.state !== 'running') {
      await this.shutdown(started + timeoutMs);
      return { clientId: this.clientId, elapsedMs: Date.now() - started, drained: true, consumers: [] };
    }
    this.state = 'stopping';
    const consumers = await this.shutdown(started + timeoutMs);
    const drained = consumers.every((c) => c.queues.every((q) => q.drained));
    return { clientId: this.clientId, elapsedMs: Date.now() - started, drained, consumers };
  }

  private async shutdown(deadline: number): Promise<StopReport['consumers']> {
    this.stop$.next();
    const consumers = await Promise.all([...this.runtimes.values()].map(async (r) => ({ group: r.group, queues: await r.stop(deadline) })));
    await this.producerInstance?.stop();
    try {
      await this.host.teardown();
    } finally {
      this.state = 'stopped';
    }
    return consumers;
  }

  private declarations(): ConsumerDeclaration[] {
    const classes: Constructor[] = [];
    const declared: ConsumerDeclaration[] = [];
    for (const c of this.options.consumers ?? []) {
      if (typeof c === 'function') classes.push(c);
      else declared.push(c);
    }
    return [...exploreConsumers(classes, this.container), ...declared];
  }

  private createRuntimes(definitions: readonly ConsumerDefinition[]): ConsumerRuntime[] {
    const registry = new StrategyRegistry();
    registry.register(new AllocateMessageQueueAveragely());
    if (this.container.isRegistered(Tokens.AllocationStrategy, true)) {
      for (const s of this.container.resolveAll(Tokens.AllocationStrategy)) registry.register(s);
    }
    const provider: OffsetStoreProvider =
      this.options.offsetStore ?? (this.container.isRegistered(Tokens.OffsetStoreProvider, true) ? this.container.resolve(Tokens.OffsetStoreProvider) : brokerOffsetStore());
    const issues: ConfigurationIssue[] = [];
    const runtimes: ConsumerRuntime[] = [];
    for (const definition of definitions) {
      const source = definition.sources[0] ?? definition.group;
      const o = definition.options;
      const needs: InjectionToken<unknown>[] = [Tokens.RouteResolver, Tokens.GroupMembership, Tokens.MessagePuller, Tokens.BrokerOffsets];
      if (o.consumeMode === 'ORDERLY' || o.exclusiveHandoff) needs.push(Tokens.QueueLocks);
      for (const token of needs) {
        if (!this.container.isRegistered(token, true)) {
          const why = token === Tokens.QueueLocks ? (o.consumeMode === 'ORDERLY' ? 'consumeMode ORDERLY' : 'exclusiveHandoff') : 'every consumer';
          issues.push({ source, option: 'transport', value: this.options.transport.name, allowed: `a transport that provides ${TransportRoleNames.get(token)} (needed by ${why} of group ${definition.group})` });
        }
      }
      if (!provider.models.includes(o.messageModel)) {
        issues.push({
          source,
          option: 'offsetStore',
          value: provider.name,
          allowed: `an offset store that serves ${o.messageModel} (${provider.name} serves ${provider.models.join(', ')}${o.messageModel === 'BROADCASTING' ? '; use fileOffsetStore() from @mqkit/offset-store-file' : ''})`,
        });
      }
      let strategy;
      try {
        strategy = registry.resolve(o.strategy, source);
      } catch (error) {
        if (error instanceof ConfigurationError) issues.push(...error.issues);
        else throw error;
      }
      if (issues.length > 0 || !strategy) continue;
      runtimes.push(
        new ConsumerRuntime(definition, {
          clientId: this.clientId,
          profile: this.profile,
          events: this.events,
          budget: this.budget,
          hooks: this.options.hooks ?? [],
          strategy,
          offsetStore: provider.create({ group: definition.group, clientId: this.clientId, instanceName: this.options.instanceName, messageModel: o.messageModel, container: this.container, events: this.events }),
          routes: this.container.resolve(Tokens.RouteResolver),
          membership: this.container.resolve(Tokens.GroupMembership),
          puller: this.container.resolve(Tokens.MessagePuller),
          brokerOffsets: this.container.resolve(Tokens.BrokerOffsets),
          retry: this.optionalRole(Tokens.RetryChannel),
          locks: this.optionalRole(Tokens.QueueLocks),
          onAssignmentChanged: () => this.heartbeatNow$.next(),
          messageQueueChanged: this.options.messageQueueListener
            ? (group, topic, mqAll, mqAssigned) => this.options.messageQueueListener!({ group, topic, mqAll, mqAssigned })
            : undefined,
        }),
      );
    }
    if (issues.length > 0) throw new ConfigurationError(issues);
    return runtimes;
  }

  private role<T>(token: InjectionToken<T>, neededBy: string): T {
    if (!this.container.isRegistered(token, true)) {
      throw new ConfigurationError({ source: 'createConsumerApp', option: 'transport', value: this.options.transport.name, allowed: `a transport that provides ${TransportRoleNames.get(token)} (needed by the ${neededBy})` });
    }
    return this.container.resolve(token);
  }

  private optionalRole<T>(token: InjectionToken<T>): T | undefined {
    return this.container.isRegistered(token, true) ? this.container.resolve(token) : undefined;
  }

  private async heartbeat(): Promise<void> {
    const membership: GroupMembership = this.container.resolve(Tokens.GroupMembership);
    await membership.heartbeat([...this.runtimes.values()].map((r) => r.registration()));
  }

  /** Heartbeats every heartbeatIntervalMs and after assignment changes, until stop. */
  private startHeartbeats(): void {
    if (this.runtimes.size === 0) return;
    merge(interval(this.profile.heartbeatIntervalMs), this.heartbeatNow$)
      .pipe(
        exhaustMap(() =>
          this.heartbeat().catch((error) => {
            for (const group of this.runtimes.keys()) this.events.emit('consumer.error', { group, where: 'heartbeat', error: toError(error) });
          }),
        ),
        takeUntil(this.stop$),
      )
      .subscribe();
  }

  private brokerCallbacks(): BrokerCallbacks {
    return {
      resetOffsets: async (group, offsets) => {
        await this.runtimes.get(group)?.resetOffsets(offsets);
      },
      runningInfo: (group) => this.runtimes.get(group)?.status(),
    };
  }
}

/**
 * Builds an app; `start()` validates and starts it.
 *
 * @example
 * ```ts
 * const app = await createConsumerApp({ transport: memoryTransport(), consumers: [OrderConsumer] });
 * await app.start();
 * // ...
 * const report = await app.stop({ timeoutMs: 10_000 });
 * ```
 */
export async function createConsumerApp(options: ConsumerAppOptions): Promise<ConsumerApp> {
  return new ConsumerApp(options);
}
