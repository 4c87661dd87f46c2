import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { needsCluster } from './rocketmq.global-setup';

const SRC = join(__dirname, '..');

/** Every spec file under src, as absolute paths. */
function specs(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return specs(path);
    return name.endsWith('.spec.ts') ? [path] : [];
  });
}

// The run's cluster is started only for the files needsCluster names (a JVM cluster costs a minute of two cores):
// a spec that asks for the run's cluster but is not one of them fails with "no RocketMQ cluster for this test" when
// it runs without one, and runs only by luck when another file of the run started it.
describe("the RocketMQ global setup's choice of files", () => {
  it("starts the cluster for a feature folder's <feature>.rocketmq.spec.ts and for src/rocketmq/, not for others", () => {
    expect(needsCluster('/repo/test/src/pause/pause.rocketmq.spec.ts')).toBe(true);
    expect(needsCluster('C:\\repo\\test\\src\\pull\\pull-consumer.rocketmq.spec.ts')).toBe(true);
    expect(needsCluster('/repo/test/src/rocketmq/acl-tls.spec.ts')).toBe(true);
    expect(needsCluster('/repo/test/src/pause/pause.spec.ts')).toBe(false);
    expect(needsCluster('/repo/test/src/engine/flow-control.spec.ts')).toBe(false);
  });

  it('covers every spec that runs on the run cluster (compat runs on its own setup)', () => {
    const asking = specs(SRC).filter((path) => {
      if (relative(SRC, path).startsWith('compat')) return false;
      return /rocketMqBroker\(|testCluster\(|useRocketMqHarness\(|rocketMqTestCluster\(/.test(
        readFileSync(path, 'utf8'),
      );
    });
    expect(asking.length).toBeGreaterThan(20);
    expect(asking.filter((path) => !needsCluster(path)).map((path) => relative(SRC, path))).toEqual([]);
  });
});
