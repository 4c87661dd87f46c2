'use strict';
/**
 * The raw client of `npm run bench -- rocketmq`, in its own process: the RocketMQ transport's own pull
 * (rocketmqTransport().connect().puller, the built dist users get), one loop per queue of the topic, pullBatchSize
 * 32 and 256 KiB per pull as in the mqkit run. Records are decoded by the transport (it always does) and
 * discarded: no engine, no process queue, no handler, no offset commits. What it reads per second is what the
 * broker serves one client on this machine, the ceiling a consumer's steady rate is compared with.
 *
 * Argument: one JSON object { namesrvAddr, topic, group, expected, timeoutMs }.
 * Prints "RESULT {json}" with the fields the consumer children print (SteadyMeter): steadyMsgsPerSec between the
 * 10 % and the 90 % record, totalMsgsPerSec and firstMessageMs from connect() on, peakRssKib (VmHWM).
 * With MQKIT_BENCH_CPU_PROF=<file> it writes a V8 CPU profile of the run there, to set beside mqkit's.
 */
const { cpuProfiler, meterReport } = require('./child-util.cjs');
const { SteadyMeter } = require('../../dist/report/steady-meter.js');
const { DEFAULT_PROFILE, EventBus, PullStatus, parseSubscription } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

async function main() {
  const settings = JSON.parse(process.argv[2]);
  const { expected } = settings;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), settings.timeoutMs);
  const stopProfile = await cpuProfiler(process.env.MQKIT_BENCH_CPU_PROF);
  // The meter's clock starts before connect(): total and first-message times include the route lookup.
  const meter = new SteadyMeter(expected);
  const transport = await rocketmqTransport({ nameServer: settings.namesrvAddr }).connect({
    clientId: `127.0.0.1@rawPull${process.pid}`,
    profile: DEFAULT_PROFILE,
    events: new EventBus(),
  });
  const queues = await transport.routes.subscribeQueues(settings.topic);
  const subscription = parseSubscription(settings.topic, '*');
  // A queue's loop ends once it reached the queue's max offset: the backlog is fixed, so nothing more will come,
  // and a further pull would only be held by the broker.
  const loop = async (mq) => {
    let offset = 0;
    while (!abort.signal.aborted) {
      const r = await transport.puller.pull(
        {
          group: settings.group,
          mq,
          offset,
          maxMsgs: 32,
          maxBytes: 256 * 1024,
          subscription,
          suspendMs: DEFAULT_PROFILE.pullSuspendMs,
          timeoutMs: DEFAULT_PROFILE.pullTimeoutMs,
        },
        abort.signal,
      );
      if (r.status === PullStatus.FOUND) meter.add(r.messages.length);
      offset = r.nextBeginOffset;
      if (offset >= r.maxOffset) return;
    }
  };
  let error;
  await Promise.all(queues.map((mq) => loop(mq))).catch((e) => (error = e));
  clearTimeout(timer);
  await stopProfile();
  const ok = !error && meter.done;
  const result = { client: 'raw-pull', ok, expected, queues: queues.length, ...meterReport(meter) };
  if (error) result.error = String(error?.message ? error.message : error);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await transport.close();
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
