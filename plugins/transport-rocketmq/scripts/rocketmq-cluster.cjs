#!/usr/bin/env node
'use strict';
/**
 * Runs the test harness's RocketMQ cluster by hand (needs the package built: `npx tsc -p tsconfig.build.json`).
 *
 *   node scripts/rocketmq-cluster.cjs provision            fetch the jars into the cache, print where
 *   node scripts/rocketmq-cluster.cjs start [--tls] [--acl AK:SK] [--brokers a,b]
 *                                                          start, print one JSON line, run until Ctrl-C
 *   node scripts/rocketmq-cluster.cjs reap                  stop clusters left behind by killed runs
 *
 * Then e.g. `npm start -- --namesrv <namesrvAddr>` from the repository root.
 */
const path = require('node:path');
const os = require('node:os');

function loadKit() {
  try {
    return require(path.join(__dirname, '..', 'dist', 'testing.js'));
  } catch (error) {
    process.stderr.write(
      `build the package first (cd plugins/transport-rocketmq && npx tsc -p tsconfig.build.json): ${error.message}\n`,
    );
    process.exit(2);
  }
}

function flag(args, name) {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

async function main(argv) {
  const [command = 'start', ...args] = argv;
  const kit = loadKit();
  if (command === 'provision') {
    const started = Date.now();
    const dist = await kit.provisionRocketMq();
    process.stdout.write(
      `${JSON.stringify({ version: dist.version, libDir: dist.libDir, ms: Date.now() - started })}\n`,
    );
    return;
  }
  if (command === 'reap') {
    const { reapOrphanClusters } = require(path.join(__dirname, '..', 'dist', 'testing', 'orphan-reaper.js'));
    process.stdout.write(`${JSON.stringify({ reaped: await reapOrphanClusters(os.tmpdir()) })}\n`);
    return;
  }
  if (command !== 'start') throw new Error(`unknown command ${command}; use provision, start or reap`);
  const acl = flag(args, '--acl');
  const brokers = flag(args, '--brokers');
  const started = Date.now();
  const cluster = await kit.startRocketMqCluster({
    tls: args.includes('--tls'),
    acl: acl ? { accessKey: acl.split(':')[0], secretKey: acl.split(':').slice(1).join(':') } : undefined,
    brokers: brokers ? brokers.split(',') : undefined,
  });
  const summary = {
    namesrvAddr: cluster.namesrvAddr,
    brokers: cluster.brokers,
    baseDir: path.dirname(cluster.descriptorFile),
    startMs: Date.now() - started,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    cluster.stop().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`${error.stack}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Keep the process (the cluster's owner) alive until a signal arrives.
  setInterval(() => undefined, 1 << 30);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
