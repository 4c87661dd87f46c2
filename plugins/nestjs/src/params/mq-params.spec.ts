import 'reflect-metadata';
import type { ConsumeContext, Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport, type EmbeddedBroker } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import {
  Injectable,
  ParseIntPipe,
  ValidationPipe,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { Test, type TestingModule } from '@nestjs/testing';
import { IsInt, IsString, Min } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { Consumer, MQKIT_CONTEXT_TYPE, MqConsumeContext, MqMessage, MqPayload, MqkitModule } from '../index';
import { consumerOptions, produce } from '../testing.fixture';

let broker: EmbeddedBroker;
let app: TestingModule | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  broker?.close();
});

async function start(providers: unknown[]): Promise<TestingModule> {
  app = await Test.createTestingModule({
    imports: [MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })],
    providers: providers as never[],
  }).compile();
  app.useLogger(false);
  await app.init();
  return app;
}

class OrderDto {
  @IsInt()
  @Min(1)
  id!: number;

  @IsString()
  item!: string;
}

describe('parameter decorators and pipes on @Consumer methods', () => {
  it('ValidationPipe on @MqPayload: a valid payload arrives as the DTO; an invalid one is retried, then dead-lettered, never lost', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 1 });
    const received: { order: OrderDto; msgId: string; group: string }[] = [];
    @Injectable()
    class Orders {
      @Consumer(consumerOptions(group, topic, { maxReconsumeTimes: 2 }))
      handle(
        @MqPayload(new ValidationPipe({ transform: true })) order: OrderDto,
        @MqMessage() message: Message,
        @MqConsumeContext() ctx: ConsumeContext,
      ): void {
        received.push({ order, msgId: message.msgId, group: ctx.group });
      }
    }
    await produce(broker, topic, [
      { id: 0, item: 'bad' },
      { id: 5, item: 'book' },
    ]);
    await start([Orders]);
    await waitFor(() => broker.messages(`%DLQ%${group}`).length === 1, { timeoutMs: 15_000 });
    const dead = broker.messages(`%DLQ%${group}`)[0]!;
    expect(JSON.parse(dead.body.toString())).toEqual({ id: 0, item: 'bad' });
    expect(dead.reconsumeTimes).toBe(3); // first try + 2 retries, each rejected by the pipe, as RocketMQ counts them
    expect(received).toHaveLength(1);
    expect(received[0]!.order).toBeInstanceOf(OrderDto);
    expect(received[0]!.order).toEqual({ id: 5, item: 'book' });
    expect(received[0]!.msgId).toMatch(/^[0-9A-F]{32}$/);
    expect(received[0]!.group).toBe(group);
    await waitFor(() => broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId: 0 }) === 2);
  }, 20_000);

  it('@MqPayload(property, pipe) picks and transforms one field; @Payload() and @Ctx() of @nestjs/microservices mean payload and consume context', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    broker.createTopic({ topic, queues: 1 });
    const group = uniqueName('g');
    const seen: [number, unknown, string][] = [];
    @Injectable()
    class Quantities {
      @Consumer(consumerOptions(group, topic))
      handle(
        @MqPayload('qty', ParseIntPipe) qty: number,
        @Payload('note') note: unknown,
        @Ctx() ctx: ConsumeContext,
      ): void {
        seen.push([qty, note, ctx.group]);
      }
    }
    await produce(broker, topic, [{ qty: '42', note: 'n' }]);
    await start([Quantities]);
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([[42, 'n', group]]);
  });

  it('batch: true gives @MqPayload the payloads and @MqMessage the messages of the batch', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    broker.createTopic({ topic, queues: 1 });
    const batches: { payloads: number[]; offsets: number[] }[] = [];
    @Injectable()
    class Batches {
      @Consumer(consumerOptions(uniqueName('g'), topic, { batch: true, consumeMessageBatchMaxSize: 10 }))
      handle(@MqMessage() messages: Message[], @MqPayload() payloads: number[]): void {
        batches.push({ payloads, offsets: messages.map((m) => m.queueOffset) });
      }
    }
    await produce(broker, topic, [0, 1, 2, 3, 4]);
    await start([Batches]);
    await waitFor(() => batches.flatMap((b) => b.payloads).length === 5);
    expect(batches.flatMap((b) => b.payloads)).toEqual([0, 1, 2, 3, 4]);
    expect(batches.flatMap((b) => b.offsets)).toEqual([0, 1, 2, 3, 4]);
    expect(batches.length).toBeLessThan(5);
  });

  it('global interceptors run around @Consumer methods, with the mqkit context type and the message as RPC data', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    broker.createTopic({ topic, queues: 1 });
    const intercepted: { type: string; topic: string; before: boolean }[] = [];
    const handled: number[] = [];
    @Injectable()
    class Recorder implements NestInterceptor {
      intercept(context: ExecutionContext, next: CallHandler) {
        const message = context.switchToRpc().getData<Message>();
        intercepted.push({ type: context.getType(), topic: message.topic, before: handled.length === 0 });
        return next.handle();
      }
    }
    @Injectable()
    class Plain {
      @Consumer(consumerOptions(uniqueName('g'), topic))
      handle(message: Message<number>): void {
        handled.push(message.payload); // no parameter decorators: called with (message, ctx) as core passes them
      }
    }
    await produce(broker, topic, [9]);
    await start([Plain, { provide: APP_INTERCEPTOR, useClass: Recorder }]);
    await waitFor(() => handled.length === 1);
    expect(handled).toEqual([9]);
    expect(intercepted).toEqual([{ type: MQKIT_CONTEXT_TYPE, topic, before: true }]);
  });
});
