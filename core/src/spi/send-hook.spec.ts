import { describe, expect, it } from 'vitest';
import type { SendResult } from './transport.roles';
import type { OutgoingMessage } from '../model/outgoing-message';
import { runSendHooks, type SendHook } from './send-hook';

const result = (msgId: string): SendResult => ({
  status: 'SEND_OK',
  msgId,
  offsetMsgId: '',
  messageQueue: { topic: 'T', brokerName: 'b', queueId: 0 },
  queueOffset: 0,
});

describe('runSendHooks', () => {
  it('runs hooks first outermost; properties they add reach the sent messages; proceed resolves with the results', async () => {
    const order: string[] = [];
    const seenResults: string[][] = [];
    const hook = (name: string): SendHook => ({
      name,
      async around(call, proceed) {
        order.push(`${name}>`);
        for (const i of call.messages.keys()) call.setProperty(i, `by-${name}`, `${call.kind}-${i}`);
        const results = await proceed();
        seenResults.push(results.map((r) => r.msgId));
        order.push(`<${name}`);
        return results;
      },
    });
    const messages: OutgoingMessage[] = [
      { topic: 'T', body: 'a', properties: { mine: 'x' } },
      { topic: 'T', body: 'b' },
    ];
    let sent: readonly OutgoingMessage[] = [];
    const outcome = await runSendHooks(
      [hook('outer'), hook('inner')],
      { group: 'g', kind: 'batch', messages },
      async (ms) => {
        sent = ms;
        order.push('send');
        return ['m1', 'm2'];
      },
      (ids) => ids.map(result),
    );
    expect(outcome).toEqual(['m1', 'm2']);
    expect(order).toEqual(['outer>', 'inner>', 'send', '<inner', '<outer']);
    expect(seenResults).toEqual([
      ['m1', 'm2'],
      ['m1', 'm2'],
    ]);
    expect(sent[0]!.properties).toEqual({ mine: 'x', 'by-outer': 'batch-0', 'by-inner': 'batch-0' });
    expect(sent[1]!.properties).toEqual({ 'by-outer': 'batch-1', 'by-inner': 'batch-1' });
    expect(messages[0]!.properties).toEqual({ mine: 'x' }); // the caller's message is left as it was
  });

  it('a failing send rejects through the hooks; a hook that throws fails the call; a hook that never proceeds is an error', async () => {
    const seen: unknown[] = [];
    const watching: SendHook = {
      name: 'w',
      around: (_c, proceed) =>
        proceed().catch((e: unknown) => {
          seen.push(e);
          return Promise.reject(e);
        }),
    };
    const boom = new Error('broker down');
    await expect(
      runSendHooks(
        [watching],
        { group: 'g', kind: 'send', messages: [{ topic: 'T', body: 'x' }] },
        () => Promise.reject(boom),
        () => [],
      ),
    ).rejects.toBe(boom);
    expect(seen).toEqual([boom]);
    const refusing: SendHook = { name: 'r', around: () => Promise.reject(new Error('refused')) };
    let sends = 0;
    await expect(
      runSendHooks(
        [refusing],
        { group: 'g', kind: 'send', messages: [{ topic: 'T', body: 'x' }] },
        async () => void sends++,
        () => [],
      ),
    ).rejects.toThrow('refused');
    expect(sends).toBe(0);
    const lazy: SendHook = { name: 'l', around: async () => [] };
    await expect(
      runSendHooks(
        [lazy],
        { group: 'g', kind: 'send', messages: [{ topic: 'T', body: 'x' }] },
        async () => 1,
        () => [],
      ),
    ).rejects.toThrow(/without calling proceed/);
    const badIndex: SendHook = {
      name: 'b',
      around: (c, proceed) => {
        c.setProperty(3, 'k', 'v');
        return proceed();
      },
    };
    await expect(
      runSendHooks(
        [badIndex],
        { group: 'g', kind: 'send', messages: [{ topic: 'T', body: 'x' }] },
        async () => 1,
        () => [],
      ),
    ).rejects.toThrow(RangeError);
  });
});
