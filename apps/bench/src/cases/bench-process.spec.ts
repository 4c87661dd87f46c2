import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@mqkit/core/testing';
import { describe, expect, it } from 'vitest';
import { childScript, clientNodeFlags, runNodeChild } from './bench-process';

describe('bench child processes', () => {
  it('finds the child scripts next to the case sources', () => {
    for (const name of [
      'mqkit-consume.child.cjs',
      'mqkit-member.child.cjs',
      'mqkit-produce.child.cjs',
      'raw-pull.child.cjs',
      'mqkit-latency.child.cjs',
      'latency-producer.child.cjs',
      'mqkit-scale.child.cjs',
    ])
      expect(existsSync(childScript(name)), name).toBe(true);
  });

  it('a child that fails before printing RESULT rejects with its own error output', async () => {
    // A bad name server address: rocketmqTransport refuses it before connecting anything.
    const child = runNodeChild(
      'mqkit-produce.child.cjs',
      { namesrvAddr: 'no-port', topic: 'T', count: 1, size: 1, mode: 'sync', maxInFlight: 1 },
      { timeoutMs: 20_000 },
    );
    await expect(child.result).rejects.toThrow(
      /exited with 1 and no RESULT line[\s\S]*ConfigurationError[\s\S]*nameServer/,
    );
  });

  it('MQKIT_BENCH_CHILD_LOG keeps the whole output of every child in a file of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mqkit-child-log-'));
    process.env.MQKIT_BENCH_CHILD_LOG = dir;
    try {
      const child = runNodeChild(
        'mqkit-produce.child.cjs',
        { namesrvAddr: 'no-port', topic: 'T', count: 1, size: 1, mode: 'sync', maxInFlight: 1 },
        { timeoutMs: 20_000 },
      );
      await child.result.catch(() => undefined);
      const file = join(dir, `mqkit-produce.child.cjs-${child.process.pid}.log`);
      // The file is ended when the child closes; its last write lands a moment later.
      await waitFor(() => existsSync(file) && /ConfigurationError[\s\S]*nameServer/.test(readFileSync(file, 'utf8')), {
        timeoutMs: 5_000,
      });
      expect(readdirSync(dir)).toEqual([`mqkit-produce.child.cjs-${child.process.pid}.log`]);
    } finally {
      delete process.env.MQKIT_BENCH_CHILD_LOG;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('MQKIT_BENCH_NODE_FLAGS replaces the client flags, none means no flags, and unpinned clients get none by default', async () => {
    try {
      process.env.MQKIT_BENCH_NODE_FLAGS = 'none';
      expect(clientNodeFlags()).toEqual([]);
      delete process.env.MQKIT_BENCH_NODE_FLAGS;
      // No cluster pinned the clients here (cpu-placement.spec checks the pinned default).
      expect(clientNodeFlags()).toEqual([]);
      process.env.MQKIT_BENCH_NODE_FLAGS = ' --stack-trace-limit=1  ';
      expect(clientNodeFlags()).toEqual(['--stack-trace-limit=1']);
      // They reach the child: its error stack is cut to one frame.
      const child = runNodeChild(
        'mqkit-produce.child.cjs',
        { namesrvAddr: 'no-port', topic: 'T', count: 1, size: 1, mode: 'sync', maxInFlight: 1 },
        { timeoutMs: 20_000 },
      );
      const error = await child.result.then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/ConfigurationError/);
      expect(error!.message.match(/\n\s+at /g)).toHaveLength(1);
    } finally {
      delete process.env.MQKIT_BENCH_NODE_FLAGS;
    }
  });
});
