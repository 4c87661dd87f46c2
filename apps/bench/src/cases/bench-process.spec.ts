import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { childScript, runNodeChild } from './bench-process';

describe('bench child processes', () => {
  it('finds the child scripts next to the case sources', () => {
    for (const name of ['mqkit-consume.child.cjs', 'mqkit-member.child.cjs', 'mqkit-produce.child.cjs', 'raw-pull.child.cjs', 'mqkit-latency.child.cjs', 'latency-producer.child.cjs', 'mqkit-scale.child.cjs']) expect(existsSync(childScript(name)), name).toBe(true);
  });

  it('a child that fails before printing RESULT rejects with its own error output', async () => {
    // A bad name server address: rocketmqTransport refuses it before connecting anything.
    const child = runNodeChild('mqkit-produce.child.cjs', { namesrvAddr: 'no-port', topic: 'T', count: 1, size: 1, mode: 'sync', maxInFlight: 1 }, { timeoutMs: 20_000 });
    await expect(child.result).rejects.toThrow(/exited with 1 and no RESULT line[\s\S]*ConfigurationError[\s\S]*nameServer/);
  });
});
