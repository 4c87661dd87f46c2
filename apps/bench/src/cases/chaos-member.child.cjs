'use strict';
/**
 * One mqkit member of a consumer group in `npm run bench -- chaos`: the default profile (RocketMQ's intervals),
 * except the heartbeat interval the scenario sets; the broker's offset store or Redis; CONCURRENTLY or ORDERLY. Every
 * delivery is written at once as "D <seq> <epoch ms> <broker>/<queue> <queue offset>" (stdout to a pipe is synchronous
 * on Linux, so a SIGKILL loses no record of what was handled). Prints "READY" once started. SIGTERM stops it cleanly
 * (drain, commit, leave).
 *
 * Argument: one JSON object { namesrvAddr, topic, group, heartbeatMs, store: 'broker' | 'redis', redisUrl?,
 * exclusiveHandoff?, consumeMode?: 'CONCURRENTLY' | 'ORDERLY' }.
 */
const { Consumer, createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

async function main() {
  const settings = JSON.parse(process.argv[2]);
  class ChaosHandler {
    handle(message) {
      process.stdout.write(
        `D ${message.payload.seq} ${Date.now()} ${message.brokerName}/${message.queueId} ${message.queueOffset}\n`,
      );
    }
  }
  Consumer({
    group: settings.group,
    topic: settings.topic,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    consumeMode: settings.consumeMode ?? 'CONCURRENTLY',
    exclusiveHandoff: settings.exclusiveHandoff === true,
  })(ChaosHandler);
  const offsetStore =
    settings.store === 'redis'
      ? require('@mqkit/offset-store-redis').redisOffsetStore({ url: settings.redisUrl })
      : undefined;
  const app = await createConsumerApp({
    transport: rocketmqTransport({ nameServer: settings.namesrvAddr }),
    consumers: [ChaosHandler],
    offsetStore,
    profile: { base: 'default', heartbeatIntervalMs: settings.heartbeatMs },
  });
  if (settings.trace) {
    // What the member did, for `--trace`: errors, rebalances, releases.
    const note = (text) => process.stdout.write(`E ${Date.now()} ${text}\n`);
    app.on('consumer.error', (e) =>
      note(`error ${e.where} ${e.mq ? `${e.mq.brokerName}/${e.mq.queueId} ` : ''}${e.error.message.slice(0, 160)}`),
    );
    app.on('consumer.rebalance', (e) =>
      note(
        `rebalance ${e.topic} members ${e.cidAll.length} added ${e.added.map((q) => `${q.brokerName}/${q.queueId}`)} removed ${e.removed.map((q) => `${q.brokerName}/${q.queueId}`)}`,
      ),
    );
  }
  await app.start();
  process.stdout.write('READY\n');
  const stop = () => app.stop({ timeoutMs: 5_000 }).finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
