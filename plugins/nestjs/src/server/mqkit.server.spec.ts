import 'reflect-metadata';
import { ConfigurationError, type MessageQueue } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { EmbeddedBroker } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { Controller, Injectable, type INestMicroservice } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { afterEach, describe, expect, it } from 'vitest';
import { MqEventPattern, MqkitContext, MqkitServer, type MqkitServerOptions } from '../index';
import { gate, mqkitMicroservice, produce } from '../testing.fixture';

let broker: EmbeddedBroker;
let app: INestMicroservice | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  broker?.close();
});

async function microservice(
  controllers: unknown[],
  providers: unknown[],
  options: Partial<MqkitServerOptions> & { group: string },
): Promise<{ app: INestMicroservice; server: MqkitServer }> {
  const started = await mqkitMicroservice(broker, controllers, providers, options);
  app = started.app;
  return started;
}

interface Seen {
  payload: unknown;
  topic: string;
  queue: MessageQueue;
  offset: number;
  reconsumeTimes: number;
  msgId: string;
}

describe('MqkitServer: @EventPattern handlers consume through mqkit', () => {
  it('delivers payload and MqkitContext, filters by @EventPattern extras, retries a failing handler and dead-letters it', async () => {
    broker = fastBroker();
    const [orders, refunds] = [uniqueName('orders'), uniqueName('refunds')];
    const group = uniqueName('billing');
    broker.createTopic({ topic: orders, queues: 1 });
    broker.createTopic({ topic: refunds, queues: 1 });
    const seen: Seen[] = [];
    const refunded: unknown[] = [];
    @Injectable()
    class Ledger {
      readonly charged: string[] = [];
    }
    @Controller()
    class Billing {
      constructor(private readonly ledger: Ledger) {}
      @EventPattern<string>(orders)
      charge(@Payload() order: { id: string }, @Ctx() ctx: MqkitContext): void {
        const m = ctx.getMessage();
        seen.push({
          payload: order,
          topic: ctx.getTopic(),
          queue: ctx.getQueue(),
          offset: ctx.getOffset(),
          reconsumeTimes: ctx.getReconsumeTimes(),
          msgId: m.msgId,
        });
        expect(ctx.getConsumeContext().group).toBe(group);
        if (order.id === 'poison') throw new Error('cannot charge');
        this.ledger.charged.push(order.id);
      }
      @MqEventPattern(refunds, { tags: 'full' })
      refund(@Payload('id') id: string): void {
        refunded.push(id);
      }
    }
    await produce(broker, orders, [{ id: 'a' }, { id: 'poison' }, { id: 'b' }]);
    await produce(
      broker,
      refunds,
      [
        { id: 'r1', kind: 'full' },
        { id: 'r2', kind: 'partial' },
        { id: 'r3', kind: 'full' },
      ],
      (p) => (p as { kind: string }).kind,
    );
    const { app: ms } = await microservice([Billing], [Ledger], {
      group,
      consumer: { consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 1 },
    });
    await ms.listen();
    await waitFor(() => broker.messages(`%DLQ%${group}`).length === 1, { timeoutMs: 15_000 });
    await waitFor(() => refunded.length === 2);
    expect(ms.get(Ledger).charged.sort()).toEqual(['a', 'b']);
    expect(refunded.sort()).toEqual(['r1', 'r3']);
    const first = seen.find((s) => (s.payload as { id: string }).id === 'a')!;
    expect(first).toMatchObject({ topic: orders, queue: { topic: orders, queueId: 0 }, offset: 0, reconsumeTimes: 0 });
    const poison = seen.filter((s) => (s.payload as { id: string }).id === 'poison');
    expect(poison.map((s) => s.reconsumeTimes)).toEqual([0, 1]);
    expect(poison[1]!.topic).toBe(orders); // the original topic, though it came from %RETRY%
    expect(poison[1]!.queue.topic).toBe(`%RETRY%${group}`);
    expect(new Set(poison.map((s) => s.msgId)).size).toBe(1);
    expect(JSON.parse(broker.messages(`%DLQ%${group}`)[0]!.body.toString())).toEqual({ id: 'poison' });
  }, 20_000);

  it('listen() refuses batch extras on @EventPattern and @MessagePattern handlers with a ConfigurationError naming each', async () => {
    broker = fastBroker();
    @Controller()
    class Batched {
      @EventPattern<string>('events', { batch: true })
      events(): void {}
      @MessagePattern('sum', { batch: true })
      sum(@Payload() n: number[]): number {
        return n.reduce((a, b) => a + b, 0);
      }
    }
    const { app: ms } = await microservice([Batched], [], { group: uniqueName('g') });
    const error = await ms.listen().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).issues).toEqual([
      expect.objectContaining({ source: "@EventPattern('events')", option: 'batch', value: true }),
      expect.objectContaining({
        source: "@MessagePattern('sum')",
        option: 'batch',
        value: true,
        allowed: expect.stringMatching(/a reply answers one request message/),
      }),
    ]);
  });

  it('close() drains the running handler and commits before it resolves; status goes connected, then disconnected', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 1 });
    const release = gate();
    const events: string[] = [];
    @Controller()
    class Slow {
      @EventPattern<string>(topic)
      async handle(@Payload() n: number): Promise<void> {
        events.push(`start ${n}`);
        await release.promise;
        events.push(`end ${n}`);
      }
    }
    await produce(broker, topic, [1]);
    const { app: ms, server } = await microservice([Slow], [], { group });
    const statuses: string[] = [];
    server.status.subscribe((s) => statuses.push(s));
    await ms.listen();
    await waitFor(() => events.includes('start 1'));
    const closing = ms.close().then(() => events.push('closed'));
    await waitFor(() => server.unwrap<{ state: string }>().state === 'stopping');
    expect(events).toEqual(['start 1']);
    release.open();
    await closing;
    app = undefined;
    expect(events).toEqual(['start 1', 'end 1', 'closed']);
    expect(broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId: 0 })).toBe(1);
    expect(statuses).toEqual(['connecting', 'connected', 'disconnected']);
  });
});
