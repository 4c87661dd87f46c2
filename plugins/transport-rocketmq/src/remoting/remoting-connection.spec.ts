import { createHmac } from 'node:crypto';
import * as net from 'node:net';
import { ProtocolError, TimeoutError } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { aclSigningContent } from '../acl/acl-signer';
import { RemotingConnectionError } from '../errors/remoting-connection.error';
import { encodeCommand } from '../protocol/frame.codec';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';
import { FakeRemotingServer, TEST_TLS } from './fake-remoting-server.fixture';
import { RemotingConnection, type RemotingConnectionOptions } from './remoting-connection';
import type { RemotingEvent } from './remoting-events';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: RemotingConnectionOptions = {}, tlsMode = false) {
  const server = await new FakeRemotingServer(tlsMode).start();
  const connection = new RemotingConnection(server.address, {
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    ...options,
  });
  const events: RemotingEvent[] = [];
  connection.events$.subscribe((e) => events.push(e));
  cleanups.push(
    () => server.stop(),
    () => connection.close(),
  );
  return { server, connection, events };
}

const count = (events: RemotingEvent[], type: RemotingEvent['type']): number =>
  events.filter((e) => e.type === type).length;

describe('RemotingConnection', () => {
  it('sends a request and resolves with its response', async () => {
    const { server, connection } = await setup();
    const response = await connection.request(
      { code: RequestCode.GET_CONSUMER_LIST_BY_GROUP, extFields: { consumerGroup: 'g', n: 3 }, body: Buffer.from('b') },
      { timeoutMs: 2000 },
    );
    expect(response.extFields).toEqual({ consumerGroup: 'g', n: '3' });
    expect(response.body.toString()).toBe('b');
    expect(server.requests[0]).toMatchObject({ code: 38, flag: 0, language: 'JAVA', version: 479 });
  });

  it('multiplexes concurrent requests on one socket and matches answers given out of order', async () => {
    const { server, connection } = await setup();
    const held: Array<() => void> = [];
    server.onRequest = (request, peer) =>
      held.push(() => peer.reply(request, { extFields: { i: request.extFields.i! } }));
    const answers = Array.from({ length: 200 }, (_, i) =>
      connection.request({ code: 11, extFields: { i } }, { timeoutMs: 5000 }),
    );
    await waitFor(() => held.length === 200);
    for (const answer of held.reverse()) answer();
    expect((await Promise.all(answers)).map((r) => r.extFields.i)).toEqual(
      Array.from({ length: 200 }, (_, i) => String(i)),
    );
    expect(server.peers).toHaveLength(1);
  });

  it("coalesces the frames written in one tick into one socket write, and a later tick's into the next", async () => {
    const { server, connection } = await setup();
    server.onRequest = (request, peer) => peer.reply(request, { extFields: { i: request.extFields.i ?? '' } });
    await connection.connect();
    // Every socket write of the client's socket (its remote port is the server's), with the frames it carried.
    const serverPort = Number(server.address.split(':').pop());
    const writes: number[] = [];
    const proto = net.Socket.prototype as unknown as Record<
      '_write' | '_writev',
      (this: net.Socket, ...args: unknown[]) => void
    >;
    const saved = { _write: proto._write, _writev: proto._writev };
    proto._write = function (...args) {
      if (this.remotePort === serverPort) writes.push(1);
      return saved._write.apply(this, args);
    };
    proto._writev = function (...args) {
      if (this.remotePort === serverPort) writes.push((args[0] as unknown[]).length);
      return saved._writev.apply(this, args);
    };
    cleanups.push(async () => {
      Object.assign(proto, saved);
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => connection.request({ code: 11, extFields: { i } }, { timeoutMs: 2000 })),
    );
    expect(answers.map((a) => a.extFields.i)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    expect(writes).toEqual([20]);
    await connection.oneway({ code: 11, extFields: { i: 'oneway' } });
    await connection.request({ code: 11, extFields: { i: 'after' } }, { timeoutMs: 2000 });
    expect(writes).toEqual([20, 1, 1]);
    await waitFor(() => server.requests.length === 22);
  });

  it('reassembles responses written one byte at a time, and many responses in one write', async () => {
    const { server, connection } = await setup();
    server.onRequest = (request, peer) => {
      const frame = encodeCommand(
        remotingCommand({ code: 0, opaque: request.opaque, flag: 1, body: Buffer.alloc(300, 7) }),
      );
      peer.write(frame, 1);
    };
    expect((await connection.request({ code: 11 }, { timeoutMs: 5000 })).body).toEqual(Buffer.alloc(300, 7));
    const batch: Buffer[] = [];
    server.onRequest = (request, peer) => {
      batch.push(
        encodeCommand(remotingCommand({ code: 0, opaque: request.opaque, flag: 1, remark: String(request.opaque) })),
      );
      if (batch.length === 3) peer.write(Buffer.concat(batch.splice(0)));
    };
    const three = await Promise.all([1, 2, 3].map(() => connection.request({ code: 11 }, { timeoutMs: 2000 })));
    expect(three.map((r) => r.remark)).toEqual(three.map((r) => String(r.opaque)));
  });

  it('times out a request the server never answers, ignores the late answer and keeps the connection', async () => {
    const { server, connection, events } = await setup();
    const silent: Array<() => void> = [];
    server.onRequest = (request, peer) => silent.push(() => peer.reply(request));
    await expect(connection.request({ code: 11 }, { timeoutMs: 50 })).rejects.toBeInstanceOf(TimeoutError);
    expect(connection.pendingRequests).toBe(0);
    silent[0]!();
    await waitFor(() => count(events, 'unmatched-response') === 1);
    server.onRequest = (request, peer) => peer.reply(request, { remark: 'ok' });
    expect((await connection.request({ code: 11 }, { timeoutMs: 1000 })).remark).toBe('ok');
    expect(connection.state).toBe('open');
  });

  it('ends a held request when its signal aborts', async () => {
    const { server, connection } = await setup();
    server.onRequest = () => undefined;
    const controller = new AbortController();
    const pull = connection.request(
      { code: RequestCode.PULL_MESSAGE },
      { timeoutMs: 30000, signal: controller.signal },
    );
    await waitFor(() => server.requests.length === 1);
    controller.abort(new Error('stopping'));
    await expect(pull).rejects.toThrow('stopping');
    expect(connection.pendingRequests).toBe(0);
  });

  it('sends oneway requests with flag bit 1 and waits for no answer', async () => {
    const { server, connection } = await setup();
    server.onRequest = () => undefined;
    await connection.oneway({ code: RequestCode.UPDATE_CONSUMER_OFFSET, extFields: { commitOffset: 5 } });
    await waitFor(() => server.requests.length === 1);
    expect(server.requests[0]).toMatchObject({ code: 15, flag: 2, extFields: { commitOffset: '5' } });
    expect(connection.pendingRequests).toBe(0);
  });

  it('wraps opaques from 2^31-1 to 0', async () => {
    const { server, connection } = await setup({ initialOpaque: 0x7ffffffe });
    for (let i = 0; i < 3; i++) await connection.request({ code: 11 }, { timeoutMs: 1000 });
    expect(server.requests.map((r) => r.opaque)).toEqual([0x7ffffffe, 0x7fffffff, 0]);
  });

  it('still sends the reply to a broker request when the connection is closed in the tick the reply was written', async () => {
    // As a request-reply caller does: the handler's answer ends the caller's wait, and the caller stops at once,
    // a few microtasks after the reply frame was written (corked until the tick ends).
    let connection!: RemotingConnection;
    const { server, connection: c } = await setup({
      requestHandler: () => {
        void (async () => {
          for (let i = 0; i < 10; i++) await null;
          await connection.close();
        })();
        return { code: ResponseCode.SUCCESS, remark: 'replied' };
      },
    });
    connection = c;
    await connection.connect();
    await waitFor(() => server.peers.length === 1);
    const push = server.last.send(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, { extFields: { topic: 't' } });
    expect(await push.answer).toMatchObject({ code: 0, remark: 'replied', opaque: push.opaque });
    expect(connection.state).toBe('closed');
  });

  it('hands broker requests to the handler and answers sync ones on the same socket', async () => {
    const seen: number[] = [];
    const { server, connection } = await setup({
      requestHandler: (request) => {
        seen.push(request.code);
        if (request.code === RequestCode.GET_CONSUMER_RUNNING_INFO)
          return { code: ResponseCode.SUCCESS, body: Buffer.from('{"properties":{}}') };
        return undefined;
      },
    });
    await connection.connect();
    await waitFor(() => server.peers.length === 1);
    const peer = server.last;
    const notify = peer.send(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, {
      oneway: true,
      extFields: { consumerGroup: 'g' },
    });
    const info = peer.send(RequestCode.GET_CONSUMER_RUNNING_INFO, {
      extFields: { consumerGroup: 'g', clientId: 'c', jstackEnable: 'false' },
    });
    const response = await info.answer;
    expect(response).toMatchObject({ code: 0, opaque: info.opaque, flag: 1 });
    expect(response.body.toString()).toBe('{"properties":{}}');
    expect(seen).toEqual([40, 307]);
    const unknown = await peer.send(RequestCode.CONSUME_MESSAGE_DIRECTLY).answer;
    expect(unknown.code).toBe(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    // The oneway NOTIFY got no answer; the next request still works.
    expect(peer.answered(notify.opaque)).toBe(false);
    expect((await connection.request({ code: 11 }, { timeoutMs: 1000 })).code).toBe(0);
  });

  it('answers SYSTEM_ERROR and reports the error when the handler throws', async () => {
    const { server, connection, events } = await setup({
      requestHandler: () => {
        throw new Error('boom');
      },
    });
    await connection.connect();
    await waitFor(() => server.peers.length === 1);
    const response = await server.last.send(RequestCode.GET_CONSUMER_RUNNING_INFO).answer;
    expect(response).toMatchObject({ code: ResponseCode.SYSTEM_ERROR, remark: 'boom' });
    expect(events.find((e) => e.type === 'request-handler-error')).toMatchObject({ code: 307 });
  });

  it('closes the connection on garbage bytes, rejects pending requests with ProtocolError, reconnects', async () => {
    const { server, connection, events } = await setup();
    server.onRequest = (_request, peer) => peer.write(Buffer.from([0, 0, 0, 9, 0x7f, 0, 0, 1, 0x7b, 0, 0, 0, 0]));
    const failed = connection.request({ code: 11 }, { timeoutMs: 2000 });
    await expect(failed).rejects.toBeInstanceOf(ProtocolError);
    expect(events.find((e) => e.type === 'protocol-error')).toBeDefined();
    await waitFor(() => count(events, 'connected') === 2, { message: 'reconnected after the protocol error' });
    server.onRequest = (request, peer) => peer.reply(request, { remark: 'fine' });
    expect((await connection.request({ code: 11 }, { timeoutMs: 1000 })).remark).toBe('fine');
  });

  it('closes on an oversize length prefix and on an undecodable header alike', async () => {
    const { server, connection, events } = await setup();
    const garbage = [Buffer.from([0x7f, 0xff, 0xff, 0xff]), Buffer.from([0, 0, 0, 6, 0, 0, 0, 2, 0x5b, 0x5d])];
    for (const bytes of garbage) {
      server.onRequest = (_request, peer) => peer.write(bytes);
      await expect(connection.request({ code: 11 }, { timeoutMs: 2000 })).rejects.toBeInstanceOf(ProtocolError);
      await waitFor(() => connection.state === 'open');
    }
    expect(count(events, 'protocol-error')).toBe(2);
  });

  it('reconnects with growing back-off while the server is down, failing requests fast meanwhile', async () => {
    const { server, connection, events } = await setup({
      reconnect: { initialDelayMs: 40, maxDelayMs: 400 },
      random: () => 1,
    });
    await connection.request({ code: 11 }, { timeoutMs: 1000 });
    const port = server.port;
    await server.stop();
    await waitFor(() => count(events, 'reconnect-scheduled') >= 3);
    const delays = events.flatMap((e) => (e.type === 'reconnect-scheduled' ? [e.delayMs] : []));
    expect(delays.slice(0, 3)).toEqual([40, 80, 160]);
    await expect(connection.request({ code: 11 }, { timeoutMs: 1000 })).rejects.toBeInstanceOf(RemotingConnectionError);
    await server.start(port);
    await waitFor(() => connection.state === 'open', { message: 'reconnected to the restarted server' });
    expect(
      (await connection.request({ code: 11, extFields: { again: 'yes' } }, { timeoutMs: 1000 })).extFields,
    ).toEqual({ again: 'yes' });
  });

  it('rejects pending requests when the server drops the connection', async () => {
    const { server, connection, events } = await setup();
    server.onRequest = (_request, peer) => peer.socket.destroy();
    const error = await connection.request({ code: 11 }, { timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemotingConnectionError);
    expect(error).toMatchObject({ retriable: true, address: server.address });
    expect(events.find((e) => e.type === 'disconnected')).toBeDefined();
  });

  it('fails fast with a RemotingConnectionError when nothing listens', async () => {
    const server = await new FakeRemotingServer().start();
    const address = server.address;
    await server.stop();
    const connection = new RemotingConnection(address, { reconnect: { enabled: false } });
    cleanups.push(() => connection.close());
    await expect(connection.request({ code: 11 }, { timeoutMs: 1000 })).rejects.toBeInstanceOf(RemotingConnectionError);
    expect(connection.state).toBe('idle');
  });

  it('close() rejects pending requests, stops reconnecting and refuses new requests', async () => {
    const { server, connection, events } = await setup();
    server.onRequest = () => undefined;
    const pending = connection.request({ code: 11 }, { timeoutMs: 5000 }).catch((e: unknown) => e);
    await waitFor(() => server.requests.length === 1);
    await connection.close();
    expect(await pending).toBeInstanceOf(RemotingConnectionError);
    expect(connection.state).toBe('closed');
    expect(count(events, 'reconnect-scheduled')).toBe(0);
    await expect(connection.request({ code: 11 }, { timeoutMs: 100 })).rejects.toBeInstanceOf(RemotingConnectionError);
  });

  it('signs requests with the ACL credentials', async () => {
    const { server, connection } = await setup({ credentials: { accessKey: 'ak', secretKey: 'sk' } });
    await connection.request(
      { code: 11, extFields: { topic: 'T', queueId: 0 }, body: Buffer.from('x') },
      { timeoutMs: 1000 },
    );
    const fields = server.requests[0]!.extFields;
    expect(fields.AccessKey).toBe('ak');
    const expected = createHmac('sha1', 'sk')
      .update(aclSigningContent(fields, Buffer.from('x')))
      .digest('base64');
    expect(fields.Signature).toBe(expected);
    expect(aclSigningContent(fields, Buffer.from('x')).toString()).toBe('ak0Tx');
  });

  it('talks over TLS', async () => {
    const { server, connection } = await setup({ tls: { ca: TEST_TLS.cert } }, true);
    const response = await connection.request({ code: 11, extFields: { secure: 'yes' } }, { timeoutMs: 2000 });
    expect(response.extFields).toEqual({ secure: 'yes' });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a TLS server it does not trust', async () => {
    const { connection } = await setup({ tls: true, reconnect: { enabled: false } }, true);
    await expect(connection.request({ code: 11 }, { timeoutMs: 2000 })).rejects.toBeInstanceOf(RemotingConnectionError);
  });
});
