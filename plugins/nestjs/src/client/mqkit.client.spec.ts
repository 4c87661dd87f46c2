import 'reflect-metadata';
import { IllegalStateError, RequestTimeoutError, type SendResult } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport, type EmbeddedBroker } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { Controller, type INestApplicationContext, type INestMicroservice } from '@nestjs/common';
import { ClientsModule, Ctx, EventPattern, MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { firstValueFrom, interval, map, take, type Observable } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MqMessagePattern,
  MqkitClient,
  MqkitContext,
  MqkitModule,
  MqkitProducer,
  type MqkitClientOptions,
  type MqkitServerOptions,
} from '../index';
import { gate, mqkitMicroservice } from '../testing.fixture';

let broker: EmbeddedBroker;
const apps: INestApplicationContext[] = [];
afterEach(async () => {
  // The requesting app first: its client's requests settle before the answering app drains.
  for (const app of apps.splice(0).reverse()) await app.close();
  broker?.close();
});

/** The answering side: a Nest microservice served by MqkitServer, listening. */
async function server(controllers: unknown[], options: Partial<MqkitServerOptions> = {}): Promise<INestMicroservice> {
  const { app } = await mqkitMicroservice(broker, controllers, [], { group: uniqueName('rpc'), ...options });
  apps.push(app);
  await app.listen();
  return app;
}

const MATH = Symbol('MATH');

/** The requesting side: a Nest app whose MqkitClient comes from ClientsModule, as an application registers it. */
async function clientApp(
  options: Partial<MqkitClientOptions> = {},
): Promise<{ app: INestApplicationContext; client: MqkitClient }> {
  const clientOptions = {
    transport: memoryTransport({ broker }),
    group: uniqueName('requester'),
    profile: 'fast',
    timeoutMs: 10_000,
    ...options,
  };
  const moduleRef = await Test.createTestingModule({
    imports: [ClientsModule.register([{ name: MATH, customClass: MqkitClient, options: clientOptions }])],
  }).compile();
  moduleRef.useLogger(false);
  apps.push(moduleRef);
  await moduleRef.init();
  return { app: moduleRef, client: moduleRef.get<MqkitClient>(MATH) };
}

describe('MqkitClient and MqkitServer: a Nest app answers a Nest client', () => {
  it('answers with a value, a Promise and the last value of an Observable, a string as a string; emit reaches an @EventPattern', async () => {
    broker = fastBroker();
    const [sum, total, squares, shout, orders] = [
      uniqueName('sum'),
      uniqueName('total'),
      uniqueName('squares'),
      uniqueName('shout'),
      uniqueName('orders'),
    ];
    for (const topic of [sum, total, squares, shout, orders]) broker.createTopic({ topic, queues: 1 });
    const placed: { order: unknown; trace: string | undefined }[] = [];
    @Controller()
    class MathController {
      @MessagePattern(sum)
      sum(@Payload() numbers: number[]): number {
        return numbers.reduce((a, b) => a + b, 0);
      }
      @MqMessagePattern(total)
      async total(
        @Payload() invoice: { lines: { price: number; qty: number }[] },
        @Ctx() ctx: MqkitContext,
      ): Promise<{ total: number; topic: string }> {
        await Promise.resolve();
        return { total: invoice.lines.reduce((t, l) => t + l.price * l.qty, 0), topic: ctx.getTopic() };
      }
      @MessagePattern(squares)
      squares(@Payload() n: number): Observable<number> {
        // Asynchronous values: the reply waits for the stream to complete and carries its last value.
        return interval(5).pipe(
          take(n),
          map((i) => (i + 1) ** 2),
        );
      }
      @MessagePattern(shout)
      shout(@Payload() text: string): string {
        return `${text.toUpperCase()}!`;
      }
      @EventPattern<string>(orders)
      placed(@Payload() order: unknown, @Ctx() ctx: MqkitContext): void {
        placed.push({ order, trace: ctx.getMessage().properties.trace });
      }
    }
    await server([MathController]);
    const { client } = await clientApp();
    const statuses: string[] = [];
    client.status.subscribe((s) => statuses.push(s));

    expect(await firstValueFrom(client.send<number>(sum, [1, 2, 3, 4]))).toBe(10);
    expect(
      await firstValueFrom(
        client.send(total, {
          lines: [
            { price: 5, qty: 2 },
            { price: 1, qty: 3 },
          ],
        }),
      ),
    ).toEqual({ total: 13, topic: total });
    expect(await firstValueFrom(client.send<number>(squares, 4))).toBe(16);
    expect(await firstValueFrom(client.send<string>(shout, 'hello'))).toBe('HELLO!');
    // Several at once: each reply finds its own request.
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, n) => firstValueFrom(client.send<number>(sum, [n, n]))),
    );
    expect(many).toEqual(Array.from({ length: 20 }, (_, n) => 2 * n));

    client.setOnDispatchHook((packet) => (packet.metadata = { trace: 'trace-1' }));
    const sent = await firstValueFrom(client.emit<SendResult>(orders, { id: 'o1' }));
    expect(sent.status).toBe('SEND_OK');
    await waitFor(() => placed.length === 1);
    expect(placed).toEqual([{ order: { id: 'o1' }, trace: 'trace-1' }]);
    // The wire carries the data alone, JSON through the producer's codec: any RocketMQ consumer can read it.
    expect(
      JSON.parse(
        broker
          .messages(orders)
          .find((m) => m.properties.trace === 'trace-1')!
          .body.toString(),
      ),
    ).toEqual({ id: 'o1' });

    await client.close();
    expect(statuses).toEqual(['connecting', 'connected', 'disconnected']);
    expect(() => client.unwrap()).toThrow(IllegalStateError);
  });

  it('a handler that throws an RpcException fails the request, which is retried, and the client still gets the answer', async () => {
    broker = fastBroker();
    const topic = uniqueName('flaky');
    broker.createTopic({ topic, queues: 1 });
    const attempts: number[] = [];
    @Controller()
    class Flaky {
      @MessagePattern(topic)
      double(@Payload() n: number, @Ctx() ctx: MqkitContext): number {
        attempts.push(ctx.getReconsumeTimes());
        if (ctx.getReconsumeTimes() === 0) throw new RpcException('not yet');
        return n * 2;
      }
    }
    await server([Flaky]);
    const { client } = await clientApp();
    expect(await firstValueFrom(client.send<number>(topic, 21))).toBe(42);
    expect(attempts).toEqual([0, 1]);
  }, 20_000);

  it('errors with RequestTimeoutError when no reply comes in time; a client sharing MqkitProducer leaves it running at close()', async () => {
    broker = fastBroker();
    const topic = uniqueName('slow');
    broker.createTopic({ topic, queues: 1 });
    const release = gate();
    const started: number[] = [];
    @Controller()
    class Slow {
      @MessagePattern(topic)
      async answer(@Payload() n: number): Promise<number> {
        started.push(n);
        if (n === 1) await release.promise;
        return n;
      }
    }
    await server([Slow]);
    const moduleRef = await Test.createTestingModule({
      imports: [
        MqkitModule.forRoot({
          transport: memoryTransport({ broker }),
          profile: 'fast',
          producer: { group: uniqueName('requester') },
        }),
      ],
    }).compile();
    moduleRef.useLogger(false);
    apps.push(moduleRef);
    await moduleRef.init();
    const producer = moduleRef.get(MqkitProducer);
    const client = new MqkitClient({ producer, timeoutMs: 300 });
    expect(client.unwrap()).toBe(producer);

    // The handler holds the first request until the client has given up on it: the reply cannot be in time.
    const error = await firstValueFrom(client.send(topic, 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', timeoutMs: 300 });
    await waitFor(() => started.includes(1));
    release.open();
    // The late reply of the first request is dropped; the next request gets its own.
    const patient = new MqkitClient({ producer, timeoutMs: 10_000 });
    expect(await firstValueFrom(patient.send<number>(topic, 2))).toBe(2);

    await client.close();
    await patient.close();
    expect((await producer.send({ topic, payload: 3 })).status).toBe('SEND_OK');
  }, 20_000);
});
