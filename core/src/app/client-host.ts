import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { IllegalStateError } from '../errors/state.error';
import { EventBus } from '../events/event-bus';
import { resolveProfile, type Profile, type ProfileOption } from '../options/profile';
import type { MqkitPlugin } from '../spi/plugin';
import type { ConsumerStatus } from '../model/consumer-status';
import { Tokens } from '../spi/tokens';
import { ROLE_NAMES, type OptionalRole, type TransportPlugin, type TransportRoles } from '../spi/transport.plugin';
import type { BrokerCallbacks } from '../spi/transport.roles';
import { buildClientId } from '../util/client-id';
import { toError } from '../util/deferred';
import { PluginHost } from './plugin-host';

/** What every client (consumer app, producer, admin client) is told about itself and where it lives. */
export interface ClientHostOptions {
  /** 'default' (RocketMQ's intervals), 'fast' (tests) or overrides. */
  readonly profile?: ProfileOption;
  /** Keeps the client id stable across restarts; default `<pid>#<n>`. */
  readonly instanceName?: string;
  /** The IP part of the client id; default the first non-internal IPv4. */
  readonly clientIp?: string;
  /** Parent of the client's own child container; default tsyringe's root container. */
  readonly container?: DependencyContainer;
  /** RocketMQ's namespace of the client, told to its plugins (they name things as the application does). */
  readonly namespace?: string;
}

/**
 * The bootstrap every client shares (consumer apps, producers, admin clients): a client id, a child container,
 * an event stream, the connected transport's roles, the registered plugins, and one close that tears them down
 * in reverse order. `source` names the client in configuration errors (`createConsumerApp`, `createProducer`).
 */
export class ClientHost {
  readonly clientId: string;
  readonly profile: Profile;
  readonly container: DependencyContainer;
  private readonly plugins: PluginHost;
  private connected: TransportRoles | undefined;
  private transportName = '';
  private closing: Promise<void> | undefined;

  constructor(
    private readonly source: string,
    options: ClientHostOptions,
    readonly events: EventBus = new EventBus(),
  ) {
    this.profile = resolveProfile(options.profile);
    this.clientId = buildClientId(options);
    this.container = (options.container ?? rootContainer).createChildContainer();
    this.plugins = new PluginHost(this.container, {
      clientId: this.clientId,
      profile: this.profile,
      namespace: options.namespace,
      events: this.events,
    });
  }

  /**
   * Connects the transport (after checking it is one) and registers its roles under the SPI tokens, so
   * application code can inject them. Broker callbacks go to the transport in its context, never through the
   * container.
   */
  async connect(transport: unknown, callbacks?: BrokerCallbacks): Promise<TransportRoles> {
    if (this.connected) throw new IllegalStateError(`${this.source}: the transport is already connected`);
    if (!isTransport(transport)) {
      throw new ConfigurationError({
        source: this.source,
        option: 'transport',
        value: transport,
        allowed: 'a transport plugin, e.g. memoryTransport() from @mqkit/transport-memory',
      });
    }
    this.transportName = transport.name;
    const roles = await transport.connect({
      clientId: this.clientId,
      profile: this.profile,
      events: this.events,
      callbacks,
    });
    this.connected = roles;
    const tokens: [InjectionToken<unknown>, unknown][] = [
      [Tokens.RouteResolver, roles.routes],
      [Tokens.GroupMembership, roles.membership],
      [Tokens.MessagePuller, roles.puller],
      [Tokens.BrokerOffsets, roles.offsets],
      [Tokens.RetryChannel, roles.retry],
      [Tokens.QueueLocks, roles.locks],
      [Tokens.MessageSender, roles.sender],
      [Tokens.TopicAdmin, roles.topicAdmin],
      [Tokens.OffsetAdmin, roles.offsetAdmin],
    ];
    for (const [token, role] of tokens) if (role !== undefined) this.container.register(token, { useValue: role });
    return roles;
  }

  /** The connected transport's roles. */
  get roles(): TransportRoles {
    if (!this.connected) throw new IllegalStateError(`${this.source}: no transport is connected (start it first)`);
    return this.connected;
  }

  /** The optional role, or a ConfigurationError naming the client, the transport and what needs the role. */
  require<K extends OptionalRole>(role: K, neededBy: string): NonNullable<TransportRoles[K]> {
    const issue = this.missing(role, neededBy);
    if (issue) throw new ConfigurationError(issue);
    return this.roles[role] as NonNullable<TransportRoles[K]>;
  }

  /** The issue a missing role makes (undefined when present), for validation that collects every issue. */
  missing(role: OptionalRole, neededBy: string, source = this.source): ConfigurationIssue | undefined {
    if (this.roles[role] !== undefined) return undefined;
    return {
      source,
      option: 'transport',
      value: this.transportName,
      allowed: `a transport that provides ${ROLE_NAMES[role]} (needed by ${neededBy})`,
    };
  }

  /** Where plugins read the client's consumer groups from (`PluginContext.consumers`). */
  readConsumerStatusFrom(read: () => readonly ConsumerStatus[]): void {
    this.plugins.consumers = read;
  }

  async register(plugins: readonly MqkitPlugin[]): Promise<void> {
    for (const plugin of plugins) await this.plugins.register(plugin);
  }

  /**
   * Plugin teardowns (last registered first), then the transport's close, then the event Observables complete.
   * Idempotent; errors are reported together.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose().finally(() => this.events.complete());
    return this.closing;
  }

  private async doClose(): Promise<void> {
    const errors: Error[] = [];
    try {
      await this.plugins.teardown();
    } catch (error) {
      errors.push(toError(error));
    }
    try {
      await this.connected?.close();
    } catch (error) {
      errors.push(toError(error));
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${this.source}: ${errors.length} teardowns failed`);
  }
}

function isTransport(value: unknown): value is TransportPlugin {
  return typeof value === 'object' && value !== null && typeof (value as TransportPlugin).connect === 'function';
}
