'use strict';
/**
 * The raw client of `npm run bench -- rocketmq`, in its own process: the RocketMQ transport's own pull
 * (rocketmqTransport().connect().puller, the built dist users get), one loop per queue of the topic, pullBatchSize
 * 32 and 256 KiB per pull as in the mqkit run. Records are decoded by the transport (it always does) and
 * discarded: no engine, no process queue, no handler, no offset commits. What it reads per second is what the
 * broker serves one client on this machine, the ceiling a consumer's steady rate is compared with.
 *
 * Argument: one JSON object { namesrvAddr, topic, group, expected, from, to, timeoutMs }.
 * Prints "RESULT {json}" with the fields the consumer children print: steadyMsgsPerSec between the from-th and
 * the to-th record, totalMsgsPerSec and firstMessageMs from connect() on, peakRssKib (VmHWM).
 * With MQKIT_BENCH_CPU_PROF=<file> it writes a V8 CPU profile of the run there, to set beside mqkit's.
 */
const { peakRssKib, cpuProfiler } = require('./child-util.cjs');
const { DEFAULT_PROFILE, EventBus, PullStatus, parseSubscription } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');


const ms = (a, b) => Number(b - a) / 1e6;


async function main() {
  const settings = JSON.parse(process.argv[2]);
  const { expected, from, to } = settings;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), settings.timeoutMs);
  const stopProfile = await cpuProfiler(process.env.MQKIT_BENCH_CPU_PROF);
  const startNs = process.hrtime.bigint();
  const transport = await rocketmqTransport({ nameServer: settings.namesrvAddr }).connect({
    clientId: `127.0.0.1@rawPull${process.pid}`,
    profile: DEFAULT_PROFILE,
    events: new EventBus(),
  });
  const queues = await transport.routes.subscribeQueues(settings.topic);
  const subscription = parseSubscription(settings.topic, '*');
  let received = 0;
  let firstNs = 0n;
  let fromNs = 0n;
  let toNs = 0n;
  let lastNs = 0n;
  let fromCount = 0;
  let toCount = 0;
  // Stamps are taken when the count crosses a mark, as the other children do; a pull adds up to 32 at once, so
  // the count at each stamp is kept and the steady rate divides what was really read between them.
  const count = (n) => {
    const before = received;
    received += n;
    if (before === 0) firstNs = process.hrtime.bigint();
    if (before < from && received >= from) [fromNs, fromCount] = [process.hrtime.bigint(), received];
    if (before < to && received >= to) [toNs, toCount] = [process.hrtime.bigint(), received];
    if (before < expected && received >= expected) lastNs = process.hrtime.bigint();
  };
  // A queue's loop ends once it reached the queue's max offset: the backlog is fixed, so nothing more will come,
  // and a further pull would only be held by the broker.
  const loop = async (mq) => {
    let offset = 0;
    while (!abort.signal.aborted) {
      const r = await transport.puller.pull(
        { group: settings.group, mq, offset, maxMsgs: 32, maxBytes: 256 * 1024, subscription, suspendMs: DEFAULT_PROFILE.pullSuspendMs, timeoutMs: DEFAULT_PROFILE.pullTimeoutMs },
        abort.signal,
      );
      if (r.status === PullStatus.FOUND) count(r.messages.length);
      offset = r.nextBeginOffset;
      if (offset >= r.maxOffset) return;
    }
  };
  let error;
  await Promise.all(queues.map((mq) => loop(mq))).catch((e) => (error = e));
  clearTimeout(timer);
  await stopProfile();
  const ok = !error && received >= expected;
  const endNs = ok ? lastNs : process.hrtime.bigint();
  const elapsedMs = ms(startNs, endNs);
  const result = {
    client: 'raw-pull',
    ok,
    received,
    expected,
    queues: queues.length,
    elapsedMs: Math.round(elapsedMs),
    totalMsgsPerSec: elapsedMs > 0 ? Math.round((received * 1000) / elapsedMs) : 0,
    firstMessageMs: firstNs ? Math.round(ms(startNs, firstNs)) : -1,
    steadyMs: fromNs && toNs ? Math.round(ms(fromNs, toNs)) : -1,
    steadyMsgsPerSec: fromNs && toNs ? Math.round(((toCount - fromCount) * 1000) / ms(fromNs, toNs)) : 0,
    peakRssKib: peakRssKib(),
  };
  if (error) result.error = String(error && error.message ? error.message : error);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await transport.close();
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
