import 'reflect-metadata';
import { IllegalStateError, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport, type EmbeddedBroker } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Consumer, MqPayload, MqkitModule, MqkitProducer } from '../index';
import { consumerOptions, gate, produce } from '../testing.fixture';

let broker: EmbeddedBroker;
let app: TestingModule | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  broker?.close();
});

describe('MqkitProducer', () => {
  it('is injectable and sends from another provider at onApplicationBootstrap and from inside a handler', async () => {
    broker = fastBroker();
    const [orders, invoices] = [uniqueName('orders'), uniqueName('invoices')];
    broker.createTopic({ topic: orders, queues: 2 });
    broker.createTopic({ topic: invoices, queues: 1 });
    const invoiced: string[] = [];
    @Injectable()
    class Seeder implements OnApplicationBootstrap {
      constructor(private readonly producer: MqkitProducer) {}
      async onApplicationBootstrap(): Promise<void> {
        for (const id of ['o1', 'o2']) await this.producer.send({ topic: orders, payload: { id }, keys: id });
      }
    }
    @Injectable()
    class Billing {
      constructor(private readonly producer: MqkitProducer) {}
      @Consumer(consumerOptions(uniqueName('billing'), orders))
      async bill(@MqPayload('id') id: string): Promise<void> {
        await this.producer.send({ topic: invoices, payload: { invoiceFor: id } });
      }
      @Consumer(consumerOptions(uniqueName('mail'), invoices))
      mail(message: Message<{ invoiceFor: string }>): void {
        invoiced.push(message.payload.invoiceFor);
      }
    }
    const producerGroup = uniqueName('shop-producer');
    app = await Test.createTestingModule({
      imports: [
        MqkitModule.forRoot({
          transport: memoryTransport({ broker }),
          profile: 'fast',
          producer: { group: producerGroup },
        }),
      ],
      providers: [Seeder, Billing],
    }).compile();
    app.useLogger(false);
    await app.init();
    await waitFor(() => invoiced.length === 2);
    expect(invoiced.sort()).toEqual(['o1', 'o2']);
    expect(
      broker
        .messages(orders)
        .map((m) => m.properties.KEYS)
        .sort(),
    ).toEqual(['o1', 'o2']);
    const producer = app.get(MqkitProducer);
    await app.close();
    app = undefined;
    expect(() => producer.producer).toThrow(IllegalStateError);
  });

  it('without producer options, a send fails with an IllegalStateError that says what to configure', async () => {
    broker = fastBroker();
    app = await Test.createTestingModule({
      imports: [MqkitModule.forRoot({ transport: memoryTransport({ broker }), profile: 'fast' })],
    }).compile();
    app.useLogger(false);
    await app.init();
    const producer = app.get(MqkitProducer);
    expect(() => producer.send({ topic: 'T', payload: 1 })).toThrow(
      /pass `producer: \{ group \}` to MqkitModule.forRoot/,
    );
  });

  it("sendInTransaction takes an async callback that returns a state literal (core's generic signature, not a fixed one)", async () => {
    broker = fastBroker();
    const orders = uniqueName('orders');
    broker.createTopic({ topic: orders, queues: 1 });
    app = await Test.createTestingModule({
      imports: [
        MqkitModule.forRoot({
          transport: memoryTransport({ broker }),
          profile: 'fast',
          producer: { group: uniqueName('tx'), transactionListener: { checkLocalTransaction: () => 'UNKNOW' } },
        }),
      ],
    }).compile();
    app.useLogger(false);
    await app.init();
    const producer = app.get(MqkitProducer);
    // Type-checked by the plugin's typecheck: with Parameters<Producer['sendInTransaction']> this was TS2345.
    const { state } = await producer.sendInTransaction({ topic: orders, payload: { id: 'o1' } }, async () => {
      await Promise.resolve();
      return 'COMMIT_MESSAGE';
    });
    expect(state).toBe('COMMIT_MESSAGE');
    await waitFor(() => broker.messages(orders).length === 1);
  });

  it('stays connected while app.close() drains, so a handler that sends during the drain succeeds', async () => {
    broker = fastBroker();
    const [orders, audit] = [uniqueName('orders'), uniqueName('audit')];
    broker.createTopic({ topic: orders, queues: 1 });
    broker.createTopic({ topic: audit, queues: 1 });
    const release = gate();
    const outcome: string[] = [];
    @Injectable()
    class Auditor {
      constructor(private readonly producer: MqkitProducer) {}
      @Consumer(consumerOptions(uniqueName('auditor'), orders))
      async handle(@MqPayload() n: number): Promise<void> {
        outcome.push('started');
        await release.promise;
        await this.producer.send({ topic: audit, payload: { audited: n } });
        outcome.push('sent');
      }
    }
    await produce(broker, orders, [3]);
    app = await Test.createTestingModule({
      imports: [
        MqkitModule.forRoot({
          transport: memoryTransport({ broker }),
          profile: 'fast',
          producer: { group: uniqueName('p') },
        }),
      ],
      providers: [Auditor],
    }).compile();
    app.useLogger(false);
    await app.init();
    await waitFor(() => outcome.includes('started'));
    const closing = app.close();
    release.open();
    await closing;
    app = undefined;
    expect(outcome).toEqual(['started', 'sent']);
    expect(broker.messages(audit).map((m) => JSON.parse(m.body.toString()))).toEqual([{ audited: 3 }]);
  });
});
