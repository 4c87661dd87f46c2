import { createProducer, type ConsumerOptions } from '@mqkit/core';
import { uniqueName } from '@mqkit/core/testing';
import { memoryTransport, type EmbeddedBroker } from '@mqkit/transport-memory';
import type { INestMicroservice } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MqkitServer } from './server/mqkit.server';
import type { MqkitServerOptions } from './server/mqkit-server-options';

/** Options every spec consumer starts from: read what was produced before the app started. */
export function consumerOptions(group: string, topic: string, extra: Partial<ConsumerOptions> = {}): ConsumerOptions {
  return { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', ...extra };
}

/** Sends the payloads (JSON) to the topic and resolves when every one is stored. */
export async function produce(
  broker: EmbeddedBroker,
  topic: string,
  payloads: readonly unknown[],
  tags?: (payload: unknown) => string,
): Promise<void> {
  const producer = await createProducer({ transport: memoryTransport({ broker }), group: uniqueName('spec-producer') });
  try {
    for (const payload of payloads) await producer.send({ topic, payload, tags: tags?.(payload) });
  } finally {
    await producer.stop();
  }
}

/** A promise and its resolve function, to hold a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A Nest microservice of these controllers and providers served by an MqkitServer on the broker, reading from the
 * first offset; the caller listens and closes it.
 */
export async function mqkitMicroservice(
  broker: EmbeddedBroker,
  controllers: unknown[],
  providers: unknown[],
  options: Partial<MqkitServerOptions> & { group: string },
): Promise<{ app: INestMicroservice; server: MqkitServer }> {
  const moduleRef = await Test.createTestingModule({
    controllers: controllers as never[],
    providers: providers as never[],
  }).compile();
  const server = new MqkitServer({
    transport: memoryTransport({ broker }),
    profile: 'fast',
    consumer: { consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
    ...options,
  });
  return { app: moduleRef.createNestMicroservice({ strategy: server, logger: false }), server };
}
