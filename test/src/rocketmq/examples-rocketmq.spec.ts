import { describeRun, EXAMPLES, exampleHeader, runExample, runProblems, type Example } from '@mqkit/examples/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { brokerConfigs, mqadmin, testCluster } from '../support/rocketmq-fixtures';

// The examples of apps/examples on a real cluster, the way each one's header says to run it there: its mqadmin
// lines run as written (with this cluster's name server and cluster name), the broker settings it names checked on
// every broker, then `ROCKETMQ_NAMESRV=<name server> node dist/<name>.js`. Each must print the lines it prints on
// the embedded broker (the same expectations, from @mqkit/examples/testing) and exit 0 by itself.
//
// A program names its topics and groups (a user copies it as it is), so this file does not rename them: no other
// spec uses these names, and a second run on the same cluster passes too (its groups then start at their offsets). The harness's brokers check half messages after 2 s rather
// than RocketMQ's 6 s (broker-config.ts), so the transaction example's check-back comes within seconds here.

/** What a header says to do on a real cluster before running the program. */
interface ClusterSteps {
  /** Each `mqadmin ...` line, split into arguments. */
  readonly mqadmin: readonly (readonly string[])[];
  /** Broker settings it names (`enablePropertyFilter=true`), as key and value. */
  readonly brokerSettings: readonly (readonly [string, string])[];
}

function clusterSteps(header: string): ClusterSteps {
  const lines = header.split('\n').map((line) => line.trim());
  return {
    mqadmin: lines.filter((line) => line.startsWith('mqadmin ')).map((line) => line.split(/\s+/).slice(1)),
    // A broker.conf key is camelCase (ROCKETMQ_NAMESRV=... and METRICS_PORT are the program's environment).
    brokerSettings: [...header.matchAll(/\b([a-z][A-Za-z0-9]*)=(true|false|\d+)\b/g)].map((m) => [m[1]!, m[2]!]),
  };
}

/** The header's mqadmin arguments, pointed at this cluster: `-n` its name server, `-c` its cluster name. */
function onCluster(args: readonly string[], cluster: RocketMqCluster): string[] {
  const values: Record<string, string> = { '-n': cluster.namesrvAddr, '-c': cluster.clusterName };
  return args.map((arg, i) => values[args[i - 1] ?? ''] ?? arg);
}

/** A runner of at most `limit` tasks at a time (each mqadmin is a JVM; the box has two cores). */
function inTurns(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running < limit) running++;
    else await new Promise<void>((go) => waiting.push(go)); // the finishing task hands its turn over
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

const STEPS = new Map<string, ClusterSteps>(EXAMPLES.map((e) => [e.name, clusterSteps(exampleHeader(e.name))]));

let cluster: RocketMqCluster;
let configs: Map<string, Map<string, string>>;
/** Each example's mqadmin lines, done: all are started at once, a few at a time, while the programs run in turn. */
const created = new Map<string, Promise<void>>();
beforeAll(async () => {
  cluster = await testCluster();
  expect(cluster.acl ?? cluster.tlsCertificate, 'the examples connect without TLS or credentials').toBeUndefined();
  configs = await brokerConfigs(cluster);
  const turn = inTurns(3);
  for (const [name, steps] of STEPS) {
    const done = Promise.all(
      steps.mqadmin.map((args) =>
        turn(async () => {
          const out = await mqadmin(onCluster(args, cluster));
          if (!/ success/.test(out)) throw new Error(`${name}'s header: mqadmin ${args.join(' ')} said\n${out}`);
        }),
      ),
    ).then(() => undefined);
    done.catch(() => undefined); // its test reports the failure
    created.set(name, done);
  }
});

describe('the examples on a real RocketMQ cluster, as their headers say', () => {
  it.each(EXAMPLES.map((example) => [example.name, example] as const))(
    '%s prints what it prints on the embedded broker, and exits 0 by itself',
    async (name: string, example: Example) => {
      const steps = STEPS.get(name)!;
      expect(steps.mqadmin.length, `${name}'s header has its mqadmin lines`).toBeGreaterThan(0);
      for (const [key, value] of steps.brokerSettings)
        for (const [broker, config] of configs)
          expect(config.get(key), `${name}'s header asks for ${key}=${value}; broker ${broker} has`).toBe(value);

      await created.get(name);
      const run = await runExample(name, { env: { ROCKETMQ_NAMESRV: cluster.namesrvAddr }, timeoutMs: 90_000 });
      expect(runProblems(example, run), describeRun(run)).toEqual([]);
    },
    120_000,
  );
});
