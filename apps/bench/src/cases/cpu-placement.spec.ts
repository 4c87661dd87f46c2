import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { clientNodeFlags } from './bench-process';
import { activeClientCpus, clearPlacement, pinServers, placeCommand, plannedPlacement } from './cpu-placement';

const allowedCpus = (pid: number): string =>
  /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';

describe('cpu placement of the RocketMQ benches', () => {
  afterEach(() => {
    clearPlacement();
    delete process.env.MQKIT_BENCH_PIN;
  });

  it('MQKIT_BENCH_PIN=off leaves every process to the scheduler', () => {
    process.env.MQKIT_BENCH_PIN = 'off';
    expect(plannedPlacement()).toBeUndefined();
    expect(pinServers([])).toMatch(/^cpu placement: none/);
    expect(placeCommand('node', ['x.cjs'])).toEqual({ command: 'node', args: ['x.cjs'] });
  });

  it('pins the servers and this process to CPU 0, starts clients on the others, and gives this process every CPU back', async () => {
    const planned = plannedPlacement();
    if (!planned) {
      // One CPU or no taskset: the placement says so and changes nothing.
      expect(pinServers([])).toMatch(/^cpu placement: none/);
      return;
    }
    const server = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      expect(pinServers([server.pid!])).toMatch(/on CPU 0; every client process .* on CPU 1/);
      expect(allowedCpus(server.pid!)).toBe('0');
      expect(allowedCpus(process.pid)).toBe('0');
      expect(placeCommand('java', ['-cp', 'x'])).toEqual({
        command: 'taskset',
        args: ['-c', planned.client, 'java', '-cp', 'x'],
      });
      expect(placeCommand('node', ['p.cjs'], 'server')).toEqual({
        command: 'taskset',
        args: ['-c', '0', 'node', 'p.cjs'],
      });
      expect(activeClientCpus()).toBe(cpus().length - 1);
      // Clients on one CPU run V8 without GC helper threads, as the JVM picks for itself there.
      expect(clientNodeFlags()).toEqual(cpus().length === 2 ? ['--single-threaded-gc'] : []);
      clearPlacement();
      expect(activeClientCpus()).toBe(0);
      expect(clientNodeFlags()).toEqual([]);
      expect(allowedCpus(process.pid)).toBe(`0-${cpus().length - 1}`);
      expect(placeCommand('node', ['x.cjs'])).toEqual({ command: 'node', args: ['x.cjs'] });
    } finally {
      server.kill('SIGKILL');
    }
  });
});
