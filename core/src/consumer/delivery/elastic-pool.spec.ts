import { describe, expect, it } from 'vitest';
import { ElasticPool, type PoolTask } from './elastic-pool';

interface Job extends PoolTask {
  release?: () => void;
}

function pool(min: number, max: number) {
  let running = 0;
  let peak = 0;
  const jobs: Job[] = [];
  const p: ElasticPool<Job> = new ElasticPool<Job>(min, max, async (job) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise<void>((resolve) => (job.release = resolve));
    running--;
    p.settle(job);
  });
  const submit = (n: number) => {
    for (let i = 0; i < n; i++) {
      const job: Job = { settled: false };
      jobs.push(job);
      p.submit(job);
    }
  };
  return { p, submit, jobs, running: () => running, peak: () => peak };
}

describe('ElasticPool', () => {
  it('grows to max under backlog and never past it', async () => {
    const t = pool(2, 5);
    t.submit(50);
    await Promise.resolve();
    expect(t.running()).toBe(5);
    expect(t.p.queued).toBe(45);
    for (let round = 0; round < 20; round++) {
      for (const job of t.jobs.filter((j) => j.release && !j.settled)) job.release!();
      await new Promise((r) => setImmediate(r));
    }
    expect(t.peak()).toBe(5);
    expect(t.jobs.every((j) => j.settled)).toBe(true);
  });

  it('runs min at a time when work trickles in, and shrinks back towards min', async () => {
    const t = pool(2, 8);
    t.submit(1);
    t.submit(1);
    expect(t.p.currentLimit).toBe(2);
    t.submit(6);
    expect(t.p.currentLimit).toBe(8);
    for (let round = 0; round < 10; round++) {
      for (const job of t.jobs.filter((j) => j.release && !j.settled)) job.release!();
      await new Promise((r) => setImmediate(r));
    }
    expect(t.p.currentLimit).toBe(2);
  });

  it('settle is idempotent (a timed-out task settles early, then again when it returns)', () => {
    const t = pool(1, 1);
    t.submit(2);
    const first = t.jobs[0]!;
    t.p.settle(first);
    t.p.settle(first);
    expect(t.p.inFlight).toBe(1);
  });

  it('discard drops waiting tasks only', async () => {
    const t = pool(1, 1);
    t.submit(3);
    t.p.discard(() => true);
    expect(t.p.queued).toBe(0);
    expect(t.p.inFlight).toBe(1);
  });

  it('held, it starts nothing: hold resolves once the running tasks settled, release starts the backlog in order', async () => {
    const order: number[] = [];
    const jobs: (PoolTask & { id: number; done?: () => void })[] = [];
    const p: ElasticPool<(typeof jobs)[number]> = new ElasticPool(2, 2, async (job) => {
      order.push(job.id);
      await new Promise<void>((resolve) => (job.done = resolve));
      p.settle(job);
    });
    const submit = (id: number) => {
      const job = { settled: false, id };
      jobs.push(job);
      p.submit(job);
    };
    submit(0);
    submit(1);
    let held = false;
    const holding = p.hold().then(() => (held = true));
    expect(p.isHeld).toBe(true);
    for (let id = 2; id < 5; id++) submit(id);
    jobs[0]!.done!();
    await new Promise((r) => setImmediate(r));
    // One task still runs: the hold has not taken effect yet, and the freed slot stays empty.
    expect(held).toBe(false);
    expect(order).toEqual([0, 1]);
    jobs[1]!.done!();
    await holding;
    expect(p.inFlight).toBe(0);
    expect(p.queued).toBe(3);
    expect(order).toEqual([0, 1]);
    // Held with nothing running: resolves at once.
    await p.hold();
    p.release();
    expect(order).toEqual([0, 1, 2, 3]);
    expect(p.queued).toBe(1);
  });

  it('a hold still waiting resolves at the release', async () => {
    const t = pool(1, 1);
    t.submit(1);
    const holding = t.p.hold();
    t.p.release();
    await holding;
    expect(t.p.isHeld).toBe(false);
    expect(t.p.inFlight).toBe(1);
  });

  it('a held backlog of 50,000 tasks that settle before their worker returns runs in a loop, not a nested chain', () => {
    let ran = 0;
    // Settles synchronously, as a released queue's call (or a synchronous handler) does.
    const p: ElasticPool<PoolTask> = new ElasticPool(4, 4, (task) => {
      ran++;
      p.settle(task);
    });
    void p.hold();
    for (let i = 0; i < 50_000; i++) p.submit({ settled: false });
    expect(ran).toBe(0);
    p.release();
    expect(ran).toBe(50_000);
    expect(p.inFlight).toBe(0);
    expect(p.queued).toBe(0);
  });
});
