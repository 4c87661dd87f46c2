'use strict';
/*
 * One member of a consumer group, run as a real child process by group-convergence.spec.ts (plain CommonJS on the
 * built dist of @mqkit/core and @mqkit/transport-rocketmq, so it starts without a TypeScript loader).
 * Environment: NAMESRV, TOPIC, GROUP, INSTANCE. Talks to the parent over the IPC channel:
 *   → { type: 'starting', at }         just before app.start()
 *   → { type: 'owned', queues, at }     the active queues of TOPIC after every change (checked every 50 ms)
 *   → { type: 'consumed', seqs }        delivered sequence numbers, written before the handler call returns
 *   ← 'stop'                            graceful stop, then exit 0
 * It exits by itself when the parent goes away (the IPC channel closes).
 */
const { createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

const { NAMESRV, TOPIC, GROUP, INSTANCE } = process.env;

/*
 * A handler call returns only once its sequence number was written to the IPC channel: a SIGKILL can then never
 * lose a delivery the broker already counts as consumed (committed after the handler returned). Calls of the same
 * turn share one IPC message.
 */
let pending = [];
let written = null;
function report(seq) {
  pending.push(seq);
  if (!written) {
    written = new Promise((resolve) =>
      setImmediate(() => {
        const seqs = pending;
        pending = [];
        written = null;
        process.send({ type: 'consumed', seqs }, () => resolve());
      }),
    );
  }
  return written;
}

async function main() {
  const handler = {
    handle(message) {
      return report(message.payload.seq);
    },
  };
  const app = await createConsumerApp({
    transport: rocketmqTransport({ nameServer: NAMESRV }),
    profile: 'fast',
    instanceName: INSTANCE,
    consumers: [
      {
        options: { group: GROUP, topic: TOPIC, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 8 },
        handler: { className: 'GroupMember', method: 'handle', resolve: () => handler },
      },
    ],
  });
  let lastOwned = '';
  const reportOwned = () => {
    if (app.state !== 'running' && app.state !== 'starting') return;
    const queues = app
      .status()
      .consumers.flatMap((c) => c.queues)
      .filter((q) => q.mq.topic === TOPIC && q.state === 'active')
      .map((q) => `${q.mq.brokerName}/${q.mq.queueId}`)
      .sort();
    const text = queues.join(',');
    if (text === lastOwned) return;
    lastOwned = text;
    process.send({ type: 'owned', queues, at: Date.now(), clientId: app.clientId });
  };
  app.on('consumer.rebalance', reportOwned);
  app.on('consumer.queue-released', reportOwned);
  const timer = setInterval(reportOwned, 50);
  const stop = async () => {
    clearInterval(timer);
    await app.stop({ timeoutMs: 5000 });
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') stop().catch(() => process.exit(1));
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'starting', at: Date.now() });
  await app.start();
  process.send({ type: 'started', at: Date.now(), clientId: app.clientId });
}

main().catch((error) => {
  process.stderr.write(`group member failed: ${error?.stack ? error.stack : error}\n`);
  process.exit(1);
});
