/**
 * NestJS: `@Consumer` methods on ordinary Nest providers, built by Nest's own DI, and the injectable
 * `MqkitProducer`. Consumers start at onApplicationBootstrap and drain on `app.close()` (or SIGTERM with
 * enableShutdownHooks). A signup sent through MqkitProducer is handled by a provider that depends on another one;
 * it prints the mail it sends, and closes the app.
 *
 * On the embedded broker (no server to run):
 *   node dist/nestjs.js
 * On a real RocketMQ cluster: create the topic, then give the name server.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t signups
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/nestjs.js
 *
 * Guide: plugins/nestjs/README.md.
 */
import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { Consumer, MqPayload, MqkitConsumers, MqkitModule, MqkitProducer } from '@mqkit/nestjs';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

interface Signup {
  email: string;
}

/** An ordinary provider the consumer depends on. */
@Injectable()
class Mailer extends EventEmitter {
  send(to: string, subject: string): void {
    console.log(`mail to ${to}: ${subject}`);
    this.emit('sent', to);
  }
}

@Injectable()
class WelcomeConsumer {
  constructor(private readonly mailer: Mailer) {}

  @Consumer({ group: 'welcome-mail', topic: 'signups', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
  async welcome(@MqPayload() signup: Signup): Promise<void> {
    this.mailer.send(signup.email, 'Welcome!'); // a throw has the message retried, as in plain mqkit
  }
}

const nameServer = process.env.ROCKETMQ_NAMESRV;

@Module({
  imports: [
    MqkitModule.forRoot({
      transport: nameServer ? rocketmqTransport({ nameServer }) : memoryTransport(),
      producer: { group: 'signup-producer' },
    }),
  ],
  providers: [Mailer, WelcomeConsumer],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks(); // SIGTERM and SIGINT drain too
  await app.init(); // consumers start at onApplicationBootstrap
  await app.get(MqkitConsumers).app.ready(); // the group owns its queues

  const sent = once(app.get(Mailer), 'sent', { signal: AbortSignal.timeout(30_000) });
  await app.get(MqkitProducer).send({ topic: 'signups', payload: { email: 'ada@example.org' } });
  await sent;

  await app.close(); // drains, commits, then Nest tears down
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
