import 'reflect-metadata';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import {
  Consumer,
  MqPayload,
  MqkitClient,
  MqkitConsumers,
  MqkitContext,
  MqkitModule,
  MqkitProducer,
  MqkitServer,
} from '@mqkit/nestjs';
import { waitUntilConsuming } from '@mqkit/nestjs/testing';
import { RocketMqHarnessError, startRocketMqCluster, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { Controller, Injectable } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { Test, type TestingModule } from '@nestjs/testing';
import { spawn } from 'node:child_process';
import { firstValueFrom } from 'rxjs';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let ownCluster = false;
let harness: RocketMqHarness;
const apps: TestingModule[] = [];

beforeAll(async () => {
  try {
    cluster = await testCluster();
  } catch (error) {
    // Without a cluster from the run's global setup (or MQKIT_ROCKETMQ_NAMESRV), start one here.
    if (!(error instanceof RocketMqHarnessError)) throw error;
    cluster = await startRocketMqCluster();
    ownCluster = true;
  }
  harness = new RocketMqHarness(cluster);
}, 300_000);

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

afterAll(async () => {
  await harness?.close();
  if (ownCluster) await cluster.stop();
}, 60_000);

describe('@mqkit/nestjs on a real RocketMQ cluster', () => {
  it('a Nest app sends with MqkitProducer and consumes in a @Consumer provider; app.close() commits, so the next app resumes after it', async () => {
    const topic = uniqueName('nest');
    const group = uniqueName('nest-g');
    await harness.createTopic(topic, 2);

    @Injectable()
    class Store {
      readonly seqs: number[] = [];
    }
    @Injectable()
    class OrderHandler {
      constructor(private readonly store: Store) {}
      @Consumer({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
      handle(@MqPayload('seq') seq: number): void {
        this.store.seqs.push(seq);
      }
    }
    const boot = async (): Promise<TestingModule> => {
      const app = await Test.createTestingModule({
        imports: [
          MqkitModule.forRoot({
            transport: harness.transport(),
            profile: 'fast',
            producer: { group: uniqueName('nest-p') },
            instanceName: uniqueName('nest'),
          }),
        ],
        providers: [Store, OrderHandler],
      }).compile();
      app.useLogger(false);
      apps.push(app);
      await app.init();
      await waitUntilConsuming(app, 30_000);
      return app;
    };
    const send = async (app: TestingModule, from: number, count: number): Promise<void> => {
      const producer = app.get(MqkitProducer);
      for (let seq = from; seq < from + count; seq++) await producer.send({ topic, payload: { seq }, keys: `k${seq}` });
    };

    const first = await boot();
    await send(first, 0, 20);
    await waitFor(() => first.get(Store).seqs.length === 20, { timeoutMs: 30_000 });
    expect([...first.get(Store).seqs].sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    const consumers = first.get(MqkitConsumers);
    await first.close();
    apps.splice(apps.indexOf(first), 1);
    const report = await consumers.stop();
    expect(report!.drained).toBe(true);
    const committed = report!.consumers[0]!.queues.filter((q) => q.mq.topic === topic).reduce(
      (n, q) => n + q.offset,
      0,
    );
    expect(committed).toBe(20);

    // Same group, fresh app: only what is new arrives (the committed offsets hold across the restart).
    const second = await boot();
    await send(second, 20, 5);
    await waitFor(() => second.get(Store).seqs.length >= 5, { timeoutMs: 30_000 });
    expect([...second.get(Store).seqs].sort((a, b) => a - b)).toEqual([20, 21, 22, 23, 24]);
  }, 120_000);

  it('a Nest microservice (MqkitServer, @MessagePattern) answers a Nest client (MqkitClient.send), each reply pushed by the broker that stored its request', async () => {
    const topic = uniqueName('nestRpc');
    await harness.createTopic(topic, 2);
    const brokers = new Set<string>();
    @Controller()
    class Pricing {
      @MessagePattern(topic)
      async price(
        @Payload() line: { qty: number; unit: number },
        @Ctx() ctx: MqkitContext,
      ): Promise<{ total: number }> {
        brokers.add(ctx.getQueue().brokerName);
        return { total: line.qty * line.unit };
      }
    }
    const moduleRef = await Test.createTestingModule({ controllers: [Pricing] }).compile();
    const strategy = new MqkitServer({
      transport: harness.transport(),
      group: uniqueName('nestRpc-g'),
      profile: 'fast',
      instanceName: uniqueName('nestRpcServer'),
      consumer: { consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
    });
    const server = moduleRef.createNestMicroservice({ strategy, logger: false });
    // A generous budget: the test brokers share two cores with everything else, and the group rebalances first.
    const client = new MqkitClient({
      transport: harness.transport(),
      group: uniqueName('nestRpc-req'),
      profile: 'fast',
      sendMsgTimeout: 10_000,
      instanceName: uniqueName('nestRpcClient'),
      timeoutMs: 30_000,
    });
    try {
      await server.listen();
      const totals = await Promise.all(
        Array.from({ length: 16 }, (_, qty) => firstValueFrom(client.send<{ total: number }>(topic, { qty, unit: 3 }))),
      );
      expect(totals).toEqual(Array.from({ length: 16 }, (_, qty) => ({ total: qty * 3 })));
      expect(brokers).toEqual(new Set(['broker-a', 'broker-b']));
    } finally {
      await client.close();
      await server.close();
    }
  }, 120_000);

  it('npm run start:nest -- --namesrv runs the sample on the cluster with nothing lost', async () => {
    const main = resolve(__dirname, '../../../apps/sample-nest/dist/main.js');
    const child = spawn(
      process.execPath,
      [main, '--namesrv', cluster.namesrvAddr, '--messages', '300', '--no-progress'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((done, fail) => {
      child.on('error', fail);
      child.on('close', done);
    });
    expect(stderr).toContain(`on RocketMQ at ${cluster.namesrvAddr}`);
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ produced: 300, billed: 300, unique: 300, lost: 0, drained: true });
    expect(code).toBe(0);
  }, 90_000);
});
