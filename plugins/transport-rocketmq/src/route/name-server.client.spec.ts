import { afterEach, describe, expect, it } from 'vitest';
import { RemotingConnectionError } from '../errors/remoting-connection.error';
import { FakeRemotingServer } from '../remoting/fake-remoting-server.fixture';
import { RemotingClient } from '../remoting/remoting-client';
import { NameServerClient } from './name-server.client';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function servers(n: number): Promise<FakeRemotingServer[]> {
  const out = await Promise.all(Array.from({ length: n }, () => new FakeRemotingServer().start()));
  cleanups.push(async () => void (await Promise.all(out.map((s) => s.stop()))));
  return out;
}

function client(): RemotingClient {
  const c = new RemotingClient({ reconnect: { enabled: false } });
  cleanups.push(() => c.close());
  return c;
}

describe('NameServerClient', () => {
  it('starts at a random name server and stays with it while it answers', async () => {
    const [a, b] = await servers(2);
    const names = new NameServerClient(client(), [a!.address, b!.address], () => 0.9);
    expect(names.active).toBe(b!.address);
    for (let i = 0; i < 3; i++)
      expect((await names.request({ code: 105, extFields: { i } }, 1000)).extFields.i).toBe(String(i));
    expect(a!.requests).toHaveLength(0);
    expect(b!.requests).toHaveLength(3);
  });

  it('fails over to the next one when the active one is down, and stays there', async () => {
    const [a, b] = await servers(2);
    await a!.stop();
    const names = new NameServerClient(client(), [a!.address, b!.address], () => 0);
    expect((await names.request({ code: 105 }, 1000)).code).toBe(0);
    expect(names.active).toBe(b!.address);
    await names.request({ code: 105 }, 1000);
    expect(b!.requests).toHaveLength(2);
  });

  it('fails over when the active one does not answer in time, within the same budget', async () => {
    const [a, b] = await servers(2);
    a!.onRequest = () => undefined; // hung
    const names = new NameServerClient(client(), [a!.address, b!.address], () => 0);
    const started = Date.now();
    expect((await names.request({ code: 105 }, 500)).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(names.active).toBe(b!.address);
  });

  it('an answer with an error code is an answer: no failover', async () => {
    const [a, b] = await servers(2);
    a!.onRequest = (request, peer) => peer.reply(request, { code: 17 });
    const names = new NameServerClient(client(), [a!.address, b!.address], () => 0);
    expect((await names.request({ code: 105 }, 1000)).code).toBe(17);
    expect(b!.requests).toHaveLength(0);
  });

  it('rejects with the last connection error when every name server is down', async () => {
    const [a, b] = await servers(2);
    await a!.stop();
    await b!.stop();
    const names = new NameServerClient(client(), [a!.address, b!.address], () => 0);
    const failure = names.request({ code: 105 }, 1000);
    await expect(failure).rejects.toBeInstanceOf(RemotingConnectionError);
    // The setting to check is named, with what it lists.
    await expect(failure).rejects.toThrow(
      `no name server answered; rocketmqTransport's nameServer option lists ${a!.address};${b!.address}`,
    );
  });
});
