'use strict';
/**
 * One member of the 3-process group whose convergence `npm run bench -- rocketmq` measures. It joins the group
 * (default profile: RocketMQ's own intervals; CONSUME_FROM_LAST_OFFSET, so it rebalances without consuming the
 * backlog) and prints a line "REBALANCE {json}" with the wall-clock time and the queue ids it owns every time its
 * assignment changes. The parent SIGKILLs one member and reads the others' lines. Runs until killed.
 *
 * Argument: one JSON object { namesrvAddr, topic, group }.
 */
const { Consumer, createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

async function main() {
  const settings = JSON.parse(process.argv[2]);
  class IdleHandler {
    handle() {}
  }
  Consumer({ group: settings.group, topic: settings.topic, consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' })(IdleHandler);
  const app = await createConsumerApp({
    transport: rocketmqTransport({ nameServer: settings.namesrvAddr }),
    consumers: [IdleHandler],
  });
  app.on('consumer.rebalance', (event) => {
    // The group also rebalances its retry topic (%RETRY%<group>, one queue): only the measured topic counts.
    if (event.topic !== settings.topic) return;
    const queues = event.allocated.map((mq) => `${mq.brokerName}:${mq.queueId}`);
    process.stdout.write(
      `REBALANCE ${JSON.stringify({ at: Date.now(), pid: process.pid, topic: event.topic, members: event.cidAll.length, queues })}\n`,
    );
  });
  await app.start();
  const stop = () => app.stop({ timeoutMs: 2_000 }).finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
