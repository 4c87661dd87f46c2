import { IllegalStateError } from '@mqkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeRemotingServer } from './fake-remoting-server.fixture';
import { RemotingClient } from './remoting-client';
import type { RemotingEvent } from './remoting-events';

const servers: FakeRemotingServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

describe('RemotingClient', () => {
  it('keeps one connection per address and routes each request to its address', async () => {
    const a = await new FakeRemotingServer().start();
    const b = await new FakeRemotingServer().start();
    servers.push(a, b);
    const client = new RemotingClient();
    const events: RemotingEvent[] = [];
    client.events$.subscribe((e) => events.push(e));
    await Promise.all([
      client.request(a.address, { code: 11, extFields: { to: 'a' } }, { timeoutMs: 1000 }),
      client.request(a.address, { code: 11, extFields: { to: 'a' } }, { timeoutMs: 1000 }),
      client.request(b.address, { code: 11, extFields: { to: 'b' } }, { timeoutMs: 1000 }),
    ]);
    expect(a.peers).toHaveLength(1);
    expect(b.peers).toHaveLength(1);
    expect(a.requests.map((r) => r.extFields.to)).toEqual(['a', 'a']);
    expect(b.requests.map((r) => r.extFields.to)).toEqual(['b']);
    expect(client.connection(a.address)).toBe(client.connection(a.address));
    expect(
      events
        .filter((e) => e.type === 'connected')
        .map((e) => e.address)
        .sort(),
    ).toEqual([a.address, b.address].sort());
    await client.closeConnection(a.address);
    expect(client.addresses).toEqual([b.address]);
    await client.close();
    expect(() => client.connection(a.address)).toThrow(IllegalStateError);
  });
});
