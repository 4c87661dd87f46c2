import { AllocateMessageQueueAveragely } from '../allocation/averagely.strategy';
import { StrategyRegistry } from '../allocation/strategy-registry';
import type { ConfigurationIssue } from '../errors/configuration.error';
import type { MessageModel } from '../model/constants';
import { brokerOffsetStore } from '../offsets/broker-offset-store';
import { adaptOffsetStore } from '../offsets/legacy-offset-store.adapter';
import type { AllocationStrategy, StrategyOption } from '../spi/allocation-strategy';
import type { OffsetStore, OffsetStoreProvider } from '../spi/offset-store';
import { Tokens } from '../spi/tokens';
import type { ClientHost } from './client-host';

/**
 * The one assembly step of a consumer group, shared by consumer apps (each @Consumer group) and pull consumers,
 * after the client connected and its plugins registered: the allocation strategy by name (AVG, a plugin's, or the
 * one given), and the offset store (the option's, else a plugin's, else the broker's), checked against the group's
 * message model. The hooks come from the same ClientHost for both.
 */
export class GroupAssembly {
  readonly #strategies = new StrategyRegistry();
  readonly #stores: OffsetStoreProvider;

  constructor(
    private readonly host: ClientHost,
    /** The client's `offsetStore` option. */
    given: OffsetStoreProvider | undefined,
  ) {
    const { container } = host;
    this.#strategies.register(new AllocateMessageQueueAveragely());
    if (container.isRegistered(Tokens.AllocationStrategy, true))
      for (const s of container.resolveAll(Tokens.AllocationStrategy)) this.#strategies.register(s);
    this.#stores =
      given ??
      (container.isRegistered(Tokens.OffsetStoreProvider, true)
        ? container.resolve(Tokens.OffsetStoreProvider)
        : brokerOffsetStore());
  }

  /** The strategy option's; throws a ConfigurationError naming `source` when no strategy has that name. */
  strategy(option: StrategyOption, source: string): AllocationStrategy {
    return this.#strategies.resolve(option, source);
  }

  /** Why the offset store cannot serve this message model, or undefined when it can. */
  storeIssue(messageModel: MessageModel, source: string): ConfigurationIssue | undefined {
    const provider = this.#stores;
    if (provider.models.includes(messageModel)) return undefined;
    return {
      source,
      option: 'offsetStore',
      value: provider.name,
      allowed: `an offset store that serves ${messageModel} (${provider.name} serves ${provider.models.join(', ')}${messageModel === 'BROADCASTING' ? '; use fileOffsetStore() from @mqkit/offset-store-file' : ''})`,
    };
  }

  /** The group's offset store (check `storeIssue` first); a LegacyOffsetStore comes wrapped. */
  store(group: string, messageModel: MessageModel, instanceName: string | undefined): OffsetStore {
    const { host } = this;
    const created = this.#stores.create({
      group,
      clientId: host.clientId,
      instanceName,
      messageModel,
      container: host.container,
      events: host.events,
      transport: host.roles,
    });
    return adaptOffsetStore(created, this.#stores.name);
  }
}
