import 'reflect-metadata';
import { ConfigurationError, Tokens, type ConsumeContext, type Message, type MqkitPlugin } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport, type EmbeddedBroker } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { Inject, Injectable, Module, Scope, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Consumer, MqkitConsumers, MqkitModule, MqkitProducer } from '../index';
import { waitUntilConsuming } from '../testing';
import { consumerOptions, gate, produce } from '../testing.fixture';

let broker: EmbeddedBroker;
let app: TestingModule | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  broker?.close();
});

async function compile(imports: unknown[], providers: unknown[]): Promise<TestingModule> {
  app = await Test.createTestingModule({ imports: imports as never[], providers: providers as never[] }).compile();
  app.useLogger(false);
  return app;
}

const offsetOf = (group: string, topic: string) =>
  broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId: 0 });

describe('MqkitModule: discovery and injection', () => {
  it('a @Consumer method of an ordinary provider runs on the Nest-built instance, with Nest-injected dependencies', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 1 });

    @Injectable()
    class OrderRepository {
      readonly saved: number[] = [];
    }
    @Injectable()
    class OrderHandler {
      constructor(readonly repo: OrderRepository) {}
      @Consumer(consumerOptions(group, topic))
      handle(message: Message<{ id: number }>, ctx: ConsumeContext): void {
        expect(ctx.group).toBe(group);
        this.repo.saved.push(message.payload.id);
      }
    }
    await produce(broker, topic, [{ id: 1 }, { id: 2 }, { id: 3 }]);
    await compile(
      [MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })],
      [OrderRepository, OrderHandler],
    );
    await app!.init();
    const repo = app!.get(OrderRepository);
    await waitFor(() => repo.saved.length === 3);
    expect(repo.saved.sort()).toEqual([1, 2, 3]);
    expect(app!.get(OrderHandler).repo).toBe(repo);
  });

  it('forRootAsync builds the options from injected providers; a class-level @Consumer calls handle()', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 2 });
    const CONFIG = Symbol('config');
    @Module({ providers: [{ provide: CONFIG, useValue: { broker } }], exports: [CONFIG] })
    class ConfigModule {}

    const seen: string[] = [];
    @Consumer(consumerOptions(group, topic))
    class SignupHandler {
      handle(message: Message<string>): void {
        seen.push(message.payload);
      }
    }
    await produce(broker, topic, ['a', 'b']);
    await compile(
      [
        MqkitModule.forRootAsync({
          imports: [ConfigModule],
          inject: [CONFIG],
          useFactory: async (config: { broker: EmbeddedBroker }) => ({
            transport: memoryTransport({ broker: config.broker }),
            profile: 'fast' as const,
          }),
        }),
      ],
      [SignupHandler],
    );
    await app!.init();
    await waitFor(() => seen.length === 2);
    expect(seen.sort()).toEqual(['a', 'b']);
  });

  it('a provider found under two tokens (useExisting) consumes once; group declarations of two providers merge', async () => {
    broker = fastBroker();
    const [orders, payments] = [uniqueName('orders'), uniqueName('payments')];
    const group = uniqueName('g');
    broker.createTopic({ topic: orders, queues: 1 });
    broker.createTopic({ topic: payments, queues: 1 });
    const calls: string[] = [];
    @Injectable()
    class Orders {
      @Consumer(consumerOptions(group, orders))
      onOrder(message: Message<string>): void {
        calls.push(`order:${message.payload}`);
      }
    }
    @Injectable()
    class Payments {
      @Consumer(consumerOptions(group, payments))
      onPayment(message: Message<string>): void {
        calls.push(`payment:${message.payload}`);
      }
    }
    await produce(broker, orders, ['o1']);
    await produce(broker, payments, ['p1']);
    await compile(
      [MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })],
      [Orders, Payments, { provide: 'ORDERS_ALIAS', useExisting: Orders }],
    );
    await app!.init();
    await waitFor(() => calls.length === 2);
    const consumers = app!.get(MqkitConsumers);
    expect(consumers.status()!.consumers.map((c) => c.group)).toEqual([group]);
    expect(calls.sort()).toEqual(['order:o1', 'payment:p1']);
  });

  it('a request-scoped provider with @Consumer, or one depending on a request-scoped provider, fails the start naming the class', async () => {
    broker = fastBroker();
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {
      @Consumer(consumerOptions(uniqueName('g'), uniqueName('T')))
      handle(): void {}
    }
    @Injectable({ scope: Scope.REQUEST })
    class RequestContextHolder {}
    @Injectable()
    class DependsOnRequest {
      constructor(readonly holder: RequestContextHolder) {}
      @Consumer(consumerOptions(uniqueName('g'), uniqueName('T')))
      handle(): void {}
    }
    await compile(
      [MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })],
      [PerRequest, RequestContextHolder, DependsOnRequest],
    );
    const error = await app!.init().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    const issues = (error as ConfigurationError).issues;
    expect(issues.map((i) => [i.source, i.option, i.value])).toEqual([
      ['PerRequest', 'scope', 'REQUEST'],
      ['DependsOnRequest', 'scope', 'REQUEST'],
    ]);
    expect((error as Error).message).toMatch(/default \(singleton\) scope/);
  });
  it('invalid @Consumer options fail app.init() with core ConfigurationError naming the provider class; close() still works', async () => {
    broker = fastBroker();
    @Injectable()
    class Misconfigured {
      @Consumer(consumerOptions(uniqueName('g'), uniqueName('T'), { consumeThreadMin: 0 }))
      handle(): void {}
    }
    await compile([MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })], [Misconfigured]);
    const error = await app!.init().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ source: 'Misconfigured', option: 'consumeThreadMin' });
    expect(app!.get(MqkitConsumers).ready).toBe(false);
    await app!.close();
    app = undefined;
  });
});

describe('MqkitModule: lifecycle', () => {
  it('consumers start only after every module has initialised (onApplicationBootstrap), not at compile or onModuleInit', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 1 });
    const init = gate();
    @Injectable()
    class SlowDatabase implements OnModuleInit {
      connected = false;
      initialising = false;
      async onModuleInit(): Promise<void> {
        this.initialising = true;
        await init.promise; // held until the test has looked at the broker
        this.connected = true;
      }
    }
    const connectedAtCall: boolean[] = [];
    @Injectable()
    class Handler {
      constructor(private readonly db: SlowDatabase) {}
      @Consumer(consumerOptions(group, topic))
      handle(): void {
        connectedAtCall.push(this.db.connected);
      }
    }
    await produce(broker, topic, [1, 2]);
    await compile(
      [MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })],
      [SlowDatabase, Handler],
    );
    const consumers = app!.get(MqkitConsumers);
    const initialising = app!.init();
    // The app is initialising (SlowDatabase.onModuleInit is pending): nobody has joined the group yet.
    await waitFor(() => app!.get(SlowDatabase).initialising);
    expect(broker.consumerIds(group)).toEqual([]);
    expect(consumers.ready).toBe(false);
    expect(consumers.status()).toBeUndefined();
    init.open();
    await initialising;
    expect(broker.consumerIds(group)).toHaveLength(1);
    await waitFor(() => connectedAtCall.length === 2);
    expect(connectedAtCall).toEqual([true, true]);
  });

  it('readiness: false before init, true once rebalanced, false after close', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    broker.createTopic({ topic, queues: 4 });
    @Injectable()
    class Handler {
      @Consumer(consumerOptions(uniqueName('g'), topic))
      handle(): void {}
    }
    await compile([MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })], [Handler]);
    const consumers = app!.get(MqkitConsumers);
    expect(consumers.ready).toBe(false);
    await app!.init();
    await waitUntilConsuming(app!, 5_000);
    expect(consumers.ready).toBe(true);
    expect(consumers.status()!.consumers[0]!.queues.filter((q) => q.mq.topic === topic)).toHaveLength(4);
    await app!.close();
    expect(consumers.ready).toBe(false);
    expect(consumers.status()!.state).toBe('stopped');
    app = undefined;
  });

  it('app.close() waits for the running handler, commits its offset, and only then tears down its dependencies', async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 1 });
    const release = gate();
    const events: string[] = [];
    @Injectable()
    class Database implements OnApplicationShutdown {
      open = true;
      onApplicationShutdown(): void {
        events.push('database closed');
        this.open = false;
      }
    }
    @Injectable()
    class SlowHandler {
      constructor(@Inject(Database) private readonly db: Database) {}
      @Consumer(consumerOptions(group, topic))
      async handle(message: Message<number>): Promise<void> {
        events.push(`start ${message.payload}`);
        await release.promise;
        events.push(`end ${message.payload} (database open: ${this.db.open})`);
      }
    }
    await produce(broker, topic, [7]);
    await compile(
      [MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast', stopTimeoutMs: 10_000 })],
      [Database, SlowHandler],
    );
    await app!.init();
    await waitFor(() => events.includes('start 7'));
    let closed = false;
    const closing = app!.close().then(() => {
      closed = true;
      events.push('closed');
    });
    // close() is draining: it cannot finish while the handler runs.
    await waitFor(() => app!.get(MqkitConsumers).status()!.state === 'stopping');
    expect(closed).toBe(false);
    expect(offsetOf(group, topic)).toBe(-1); // nothing committed while the message is in flight
    release.open();
    await closing;
    app = undefined;
    expect(events).toEqual(['start 7', 'end 7 (database open: true)', 'database closed', 'closed']);
    expect(offsetOf(group, topic)).toBe(1);
    expect(broker.consumerIds(group)).toEqual([]);
  });
});

describe('MqkitModule: plugins', () => {
  it("registers the module's plugins with the consumer app and with MqkitProducer (a metrics plugin sees both)", async () => {
    broker = fastBroker();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 1 });
    const clients: string[] = [];
    const sends: string[] = [];
    const consumed: number[] = [];
    const recorder: MqkitPlugin = {
      name: 'recorder',
      register(container, context) {
        clients.push(context.clientId);
        container.register(Tokens.SendHook, {
          useValue: {
            name: 'recorder',
            around: (call, proceed) => {
              sends.push(`${call.group} ${call.topic}`);
              return proceed();
            },
          },
        });
        context.events.on('consumer.consume', (e) => consumed.push(e.ok));
      },
    };
    @Injectable()
    class Handler {
      @Consumer(consumerOptions(group, topic))
      handle(): void {}
    }
    await compile(
      [
        MqkitModule.forRoot({
          transport: memoryTransport({ broker }),
          profile: 'fast',
          plugins: [recorder],
          producer: { group: 'nest-producer' },
        }),
      ],
      [Handler],
    );
    await app!.init();
    await app!.get(MqkitProducer).send({ topic, body: 'x' });
    await waitFor(() => consumed.length === 1);
    expect(new Set(clients).size).toBe(2);
    expect(sends).toEqual([`nest-producer ${topic}`]);
  });
});
