import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration.error';
import { IllegalStateError } from '../errors/state.error';
import { Tokens } from '../spi/tokens';
import type { TransportContext, TransportPlugin, TransportRoles } from '../spi/transport.plugin';
import { ClientHost } from './client-host';

function transport(
  log: string[],
  extra: Partial<TransportRoles> = {},
): TransportPlugin & { context?: TransportContext } {
  const plugin: TransportPlugin & { context?: TransportContext } = {
    kind: 'transport',
    name: 'fake',
    async connect(context) {
      plugin.context = context;
      return {
        routes: { subscribeQueues: async () => [], publishQueues: async () => [] },
        membership: {
          heartbeat: async () => undefined,
          unregister: async () => undefined,
          consumerIds: async () => [],
          changes$: EMPTY,
        },
        puller: { pull: async () => Promise.reject(new Error('unused')) },
        offsets: {
          queryConsumerOffset: async () => -1,
          commitConsumerOffset: async () => undefined,
          minOffset: async () => 0,
          maxOffset: async () => 0,
          searchOffset: async () => 0,
        },
        close: async () => void log.push('transport closed'),
        ...extra,
      };
    },
  };
  return plugin;
}

describe('ClientHost (the bootstrap of apps, producers and admins)', () => {
  it('refuses what is not a transport, naming the client and the option', async () => {
    const host = new ClientHost('createProducer', { instanceName: 'a' });
    const error = await host.connect({ register() {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).issues[0]).toMatchObject({ source: 'createProducer', option: 'transport' });
    expect(() => host.roles).toThrow(IllegalStateError);
  });

  it('connects with the client id, profile, events and the broker callbacks in the context', async () => {
    const fake = transport([]);
    const host = new ClientHost('createConsumerApp', { instanceName: 'app-1', clientIp: '10.0.0.1', profile: 'fast' });
    const callbacks = {
      resetOffsets: async () => undefined,
      runningInfo: () => undefined,
      consumeDirectly: async () => undefined,
    };
    await host.connect(fake, callbacks);
    expect(fake.context).toMatchObject({ clientId: '10.0.0.1@app-1', profile: { name: 'fast' }, callbacks });
    expect(fake.context!.events).toBe(host.events);
  });

  it('registers the roles under the SPI tokens for injection, and names a missing optional role', async () => {
    const host = new ClientHost('createConsumerApp', {});
    const roles = await host.connect(transport([]));
    expect(host.container.resolve(Tokens.RouteResolver)).toBe(roles.routes);
    expect(host.container.isRegistered(Tokens.QueueLocks, true)).toBe(false);
    expect(host.missing('locks', 'consumeMode ORDERLY of group g', 'OrderConsumer')).toEqual({
      source: 'OrderConsumer',
      option: 'transport',
      value: 'fake',
      allowed: 'a transport that provides QueueLocks (needed by consumeMode ORDERLY of group g)',
    });
    expect(() => host.require('sender', 'the producer')).toThrow(/provides MessageSender \(needed by the producer\)/);
  });

  it('closes plugins before the transport, once', async () => {
    const log: string[] = [];
    const host = new ClientHost('createConsumerApp', {});
    await host.connect(transport(log));
    await host.register([
      { name: 'p', register: (_c, ctx) => ctx.addTeardown(() => void log.push('plugin torn down')) },
    ]);
    await Promise.all([host.close(), host.close()]);
    expect(log).toEqual(['plugin torn down', 'transport closed']);
  });
});
