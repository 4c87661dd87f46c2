import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Message } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { findJavaToolchain, provisionRocketMq, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliveries, consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster, uniqueName } from './rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
beforeAll(async () => {
  cluster = await testCluster();
  harness = new RocketMqHarness(cluster);
});
afterAll(async () => harness?.close());

/** Runs RocketMQ's own `mqadmin` (MQAdminStartup from rocketmq-tools 5.3.3, on the harness's classpath). */
async function mqadmin(args: readonly string[]): Promise<string> {
  const java = findJavaToolchain();
  const { classpath } = await provisionRocketMq({ toolchain: java });
  // Its own user.home, so the tool's logs (~/logs/rocketmqlogs) land in a temp folder removed afterwards.
  const home = await mkdtemp(join(tmpdir(), 'mqkit-mqadmin-'));
  try {
    const { stdout } = await promisify(execFile)(java.java, ['-Xmx128m', `-Duser.home=${home}`, '-cp', classpath, 'org.apache.rocketmq.tools.command.MQAdminStartup', ...args], {
      env: { ...process.env, ROCKETMQ_HOME: home },
      cwd: home,
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe("RocketMQ's own admin tool reads mqkit clients", () => {
  it('mqadmin consumerStatus -i <client> parses the ConsumerRunningInfo the transport answers', async () => {
    const topic = uniqueName('admin');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const app = await harness.app([consumerClass({ group, topic, tags: 'A', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message<{ seq: number }>) => seen.record(m.payload.seq))]);
    await harness.produce(topic, 8, { tags: () => 'A' });
    await waitFor(() => seen.unique === 8);
    const out = await mqadmin(['consumerStatus', '-n', cluster.namesrvAddr, '-g', group, '-i', app.clientId]);
    // ConsumerRunningInfo.formatString(): Java's fastjson read the properties, the subscriptions and every mqTable
    // entry (MessageQueue object keys) with its ProcessQueueInfo.
    expect(out).toMatch(/PROP_CONSUME_TYPE\s+: CONSUME_PASSIVELY/);
    expect(out).toMatch(new RegExp(`consumerGroup\\s+: ${group}`));
    expect(out).toMatch(new RegExp(`Topic: ${topic}\\s+ClassFilter: false\\s+SubExpression: A`));
    expect(out).toMatch(new RegExp(`Topic: %RETRY%${group}\\s+ClassFilter: false\\s+SubExpression: \\*`));
    let committed = 0;
    for (const broker of ['broker-a', 'broker-b']) {
      for (const q of [0, 1]) {
        const line = new RegExp(`^${topic}\\s+${broker}\\s+${q}\\s+(\\d+)\\s*$`, 'm').exec(out);
        expect(line, `consumer offset line of ${broker}/${q}`).not.toBeNull();
        committed += Number(line![1]);
      }
    }
    expect(committed).toBe(8);
    expect(out).toMatch(new RegExp(`${topic}\\s+broker-b\\s+1\\s+ProcessQueueInfo \\[commitOffset=\\d+, .*droped=false`));
  }, 120_000);
});
