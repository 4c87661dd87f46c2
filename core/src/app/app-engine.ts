import { buildDefinitions } from '../definition/build-definitions';
import type { ConsumerDeclaration } from '../definition/consumer-definition';
import { exploreConsumers, type Constructor } from '../definition/explore-consumers';
import { inNamespace } from '../definition/namespace-definitions';
import type { ConsumerRuntime } from '../consumer/consumer-runtime';
import type { ByteBudget } from '../consumer/queue/byte-budget';
import type { ConsumerStatus, StopReport } from '../model/consumer-status';
import { traceSettings } from '../options/trace-options';
import { Producer } from '../producer/producer';
import { prepareProducerCompression, resolveProducerOptions } from '../producer/producer-options';
import { Tokens, resolveAllOf } from '../spi/tokens';
import { MessageTrace } from '../trace/message-trace';
import type { TraceStatus } from '../trace/trace-dispatcher';
import { toError } from '../util/deferred';
import { appCallbacks } from './app-callbacks';
import type { ConsumerAppOptions } from './app-options';
import { checkSubscriptions } from './check-subscriptions';
import type { ClientHost } from './client-host';
import { clientProducer } from './client-producer';
import { createConsumerGroups } from './consumer-groups';
import { Heartbeats } from './heartbeats';
import { StallWatch } from './stall-watch';

/**
 * What runs under a consumer app: one ConsumerRuntime per group, the app's producer, the message traces, the
 * heartbeats and the stall watch. `start` builds them in the order the brokers need them (the transport and the
 * plugins first, a first heartbeat before any group pulls), and `stop`, once the app's signal aborted, ends them in
 * the order that loses nothing (heartbeats, then the groups drain, then the producer, then the traces that carry
 * the last records of both). The app keeps its state, its signal and the client's connection.
 */
export class AppEngine {
  readonly #host: ClientHost;
  readonly #options: ConsumerAppOptions;
  readonly #budget: ByteBudget;
  readonly #signal: AbortSignal;
  readonly #runtimes = new Map<string, ConsumerRuntime>();
  readonly #traces: MessageTrace[] = [];
  #heartbeats: Heartbeats | undefined;
  #stallWatch: StallWatch | undefined;
  #producer: Producer | undefined;

  constructor(host: ClientHost, options: ConsumerAppOptions, budget: ByteBudget, signal: AbortSignal) {
    this.#host = host;
    this.#options = options;
    this.#budget = budget;
    this.#signal = signal;
  }

  /** The app's producer, once started with `producer` options. */
  get producer(): Producer | undefined {
    return this.#producer;
  }

  /** The started groups, by their names on the wire (in the namespace). */
  get groups(): string[] {
    return [...this.#runtimes.keys()];
  }

  runtime(group: string): ConsumerRuntime | undefined {
    return this.#runtimes.get(group);
  }

  statuses(): ConsumerStatus[] {
    return [...this.#runtimes.values()].map((r) => r.status());
  }

  traceStatuses(): TraceStatus[] {
    return this.#traces.map((t) => t.status());
  }

  /**
   * Connects the transport, registers the plugins, then starts every consumer and the producer. Throws
   * ConfigurationError before anything consumes; what was started meanwhile is ended by `stop`.
   */
  async start(): Promise<void> {
    const host = this.#host;
    const options = this.#options;
    const definitions = inNamespace(buildDefinitions(this.#declarations()), options.namespace);
    const transport = await host.connect(
      options.transport,
      appCallbacks(this.#runtimes, () => this.#producer),
    );
    await checkSubscriptions(definitions, host);
    host.readConsumerStatusFrom(() => this.statuses());
    await host.register(options.plugins ?? []);
    // One trace for the app's groups (Java: one per push consumer), named after the first, as Java names it after its own.
    const trace = traceSettings(options);
    const consumerTrace =
      trace &&
      definitions[0] &&
      new MessageTrace({ group: definitions[0].group, type: 'CONSUME' }, trace, {
        routes: transport.routes,
        sender: host.require('sender', 'enableMsgTrace'),
        events: host.events,
        clientId: host.clientId,
      });
    if (consumerTrace) this.#traces.push(consumerTrace);
    const runtimes = createConsumerGroups(definitions, host, options, {
      clientId: host.clientId,
      profile: host.profile,
      events: host.events,
      budget: this.#budget,
      signal: this.#signal,
      transport,
      hooks: [
        ...(options.hooks ?? []),
        ...resolveAllOf(host.container, Tokens.ConsumeHook),
        ...(consumerTrace ? [consumerTrace.consumeHook()] : []),
      ],
      namespace: options.namespace,
      onAssignmentChanged: () => this.#heartbeats?.now(),
      messageQueueChanged: options.messageQueueListener
        ? (group, topic, mqAll, mqAssigned) => options.messageQueueListener!({ group, topic, mqAll, mqAssigned })
        : undefined,
    });
    for (const runtime of runtimes) runtime.bindHandlers();
    if (options.producer) {
      const resolved = resolveProducerOptions({ namespace: options.namespace, ...options.producer });
      await prepareProducerCompression(resolved);
      const client = clientProducer(
        host,
        resolved,
        transport.routes,
        host.require('sender', 'the producer'),
        async () => this.#heartbeats?.beatNow(),
      );
      this.#producer = client.producer;
      if (client.trace) this.#traces.push(client.trace);
      host.container.register(Producer, { useValue: this.#producer });
    }
    for (const runtime of runtimes) this.#runtimes.set(runtime.group, runtime);
    const producerGroups = () => (this.#producer?.heartbeats ? [this.#producer.group] : []);
    if (runtimes.length > 0 || this.#producer) {
      const registrations = () => [...this.#runtimes.values()].map((r) => r.registration());
      this.#heartbeats = new Heartbeats(
        transport.membership,
        registrations,
        (error) => this.#heartbeatFailed(error),
        this.#signal,
        producerGroups,
      );
      await transport.membership.heartbeat(registrations(), producerGroups());
    }
    for (const runtime of runtimes) await runtime.start();
    this.#heartbeats?.start(host.profile.heartbeatIntervalMs);
    if (runtimes.length > 0) {
      this.#stallWatch = new StallWatch(
        host.profile.stallThresholdMs,
        (frozenMs) => this.#recoverFromStall(frozenMs),
        this.#signal,
      );
      this.#stallWatch.start();
    }
  }

  /**
   * Ends what `start` started, after the app's signal aborted (heartbeats and every group stop pulling): drains the
   * groups until `deadline`, then stops the producer and the traces. Resolves with what happened per queue.
   */
  async stop(deadline: number): Promise<StopReport['consumers']> {
    await this.#heartbeats?.stopped();
    await this.#stallWatch?.stopped();
    const consumers = await Promise.all(
      [...this.#runtimes.values()].map(async (r) => ({ group: r.group, queues: await r.stop(deadline) })),
    );
    await this.#producer?.stop();
    // After the last handler call and send: the records they queued are sent before the connection closes.
    await Promise.all(this.#traces.map((t) => t.stop()));
    return consumers;
  }

  /** Every group stops at once, committing, unlocking and unregistering nothing (the app's simulated crash). */
  crash(): void {
    for (const runtime of this.#runtimes.values()) runtime.crash();
  }

  #declarations(): ConsumerDeclaration[] {
    const classes: Constructor[] = [];
    const declared: ConsumerDeclaration[] = [];
    for (const c of this.#options.consumers ?? []) {
      if (typeof c === 'function') classes.push(c);
      else declared.push(c);
    }
    return [...exploreConsumers(classes, this.#host.container), ...declared];
  }

  /** The process was frozen: register again at once, and let every group drop its stale state. */
  #recoverFromStall(frozenMs: number): void {
    this.#heartbeats?.now();
    for (const runtime of this.#runtimes.values()) runtime.recoverFromStall(frozenMs);
  }

  #heartbeatFailed(error: unknown): void {
    for (const group of this.#runtimes.keys())
      this.#host.events.emit('consumer.error', { group, where: 'heartbeat', error: toError(error) });
  }
}
