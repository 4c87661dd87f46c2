import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@mqkit/core/testing';
import { EXPECTED_ORDERS, allOrdersHandled, orderIds } from '../packaging/order-lines';
import { readmeQuickstart, readmeTsconfig } from '../packaging/readme-snippets';
import { runChecked } from '../packaging/run-command';
import { killLeftovers, startAndWaitFor } from '../packaging/run-until-output';
import { mqadmin, testCluster } from '../support/rocketmq-fixtures';

// The README's quickstart on a real cluster, the way the README says to run it there: the topic made with
// `mqadmin updateTopic`, then ROCKETMQ_NAMESRV set, compiled with the README's tsconfig. The packaging specs run it on the embedded broker from the
// packed tarballs; this one runs it against the workspace's packages (a folder under test/ resolves them).

const WORKSPACE = resolve(__dirname, '../../..');
const TSC = join(WORKSPACE, 'node_modules', '.bin', 'tsc');

let cluster: RocketMqCluster;
let dir: string;
beforeAll(async () => {
  cluster = await testCluster();
  dir = join(WORKSPACE, 'test', '.scratch', uniqueName('quickstart'));
  await mkdir(join(dir, 'src'), { recursive: true });
});
afterAll(async () => {
  killLeftovers();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the README quickstart on a real RocketMQ cluster', () => {
  it('consumes its three orders from a topic made with mqadmin, and exits 0 on SIGTERM', async () => {
    // Names of this run, so a rerun on the same cluster or another spec never shares the group or the topic.
    const topic = uniqueName('orders');
    const source = readmeQuickstart()
      .value.replaceAll(`'orders'`, `'${topic}'`)
      .replaceAll(`'order-service'`, `'${uniqueName('order_service')}'`)
      .replaceAll(`'order-producer'`, `'${uniqueName('order_producer')}'`);
    expect(source, 'the quickstart no longer names the topic this spec replaces').toContain(`'${topic}'`);
    await writeFile(join(dir, 'src', 'quickstart.ts'), source);
    const { value: tsconfig } = readmeTsconfig();
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, skipLibCheck: false } }),
    );
    await runChecked(TSC, ['-p', dir], { cwd: dir, timeoutMs: 120_000 });

    const out = await mqadmin(['updateTopic', '-n', cluster.namesrvAddr, '-c', cluster.clusterName, '-t', topic]);
    expect(out).toMatch(/create topic to .* success/);

    const program = await startAndWaitFor(process.execPath, [join(dir, 'dist', 'quickstart.js')], {
      cwd: dir,
      env: { ...process.env, ROCKETMQ_NAMESRV: cluster.namesrvAddr },
      until: allOrdersHandled,
      awaiting: `the lines of orders ${EXPECTED_ORDERS.join(', ')}`,
      timeoutMs: 90_000,
    });
    const result = await program.stop('SIGTERM');
    expect(orderIds(result.stdout.split('\n')).sort()).toEqual([...EXPECTED_ORDERS]);
    expect(result.code, result.output).toBe(0);
  }, 240_000);
});
