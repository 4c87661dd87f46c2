import { randomInt } from 'node:crypto';
import { SeededRandom } from '@mqkit/allocation';

/**
 * Seeded fault timelines of the chaos scenarios. A scenario draws its timeline (the waits between faults, which
 * member, which broker, how long a member is stopped or a server is down) from a random source made from the run's
 * seed, before it acts: both clients' runs of a seed build the source anew from the seed, so they get the same
 * timeline, and `--seed N` replays it.
 *
 * The source is mulberry32, the allocation simulator's SeededRandom (32-bit state, 32-bit seeds), reused rather
 * than a second generator.
 */
export type ChaosRandom = Pick<SeededRandom, 'next' | 'int'>;

/** The random source of one scenario run with `seed`. */
export function timelineRandom(seed: number): ChaosRandom {
  return new SeededRandom(seed >>> 0);
}

/** A fresh 32-bit seed, for a run without `--seed`. */
export function randomSeed(): number {
  return randomInt(0, 2 ** 32);
}

/**
 * The seeds of a `--seeds K` run: the first one, then K - 1 drawn from it (by a generator seeded apart from the
 * scenarios' own, so seed 2 is not seed 1's first draw).
 */
export function seedsFrom(first: number, count: number): number[] {
  const random = new SeededRandom((first ^ 0x9e3779b9) >>> 0);
  const seeds = [first >>> 0];
  while (seeds.length < count) {
    const seed = Math.floor(random.next() * 2 ** 32);
    if (!seeds.includes(seed)) seeds.push(seed);
  }
  return seeds;
}

/** A duration in [min, max] ms, in steps of `step` ms (so a printed timeline reads 4.3 s, not 4.2871 s). */
export function drawMs(random: ChaosRandom, min: number, max: number, step = 100): number {
  return min + step * random.int(Math.floor((max - min) / step) + 1);
}

export function pick<T>(random: ChaosRandom, items: readonly T[]): T {
  return items[random.int(items.length)]!;
}

/** A shuffled copy (Fisher-Yates). */
export function shuffle<T>(random: ChaosRandom, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** One step of a timeline. Members are named by their index in the group: the first ones 0..n-1, joins n, n+1, ... */
export type Step =
  | { readonly kind: 'wait'; readonly ms: number }
  | { readonly kind: 'kill'; readonly member: number }
  | { readonly kind: 'join'; readonly member: number }
  | { readonly kind: 'stop'; readonly member: number }
  | { readonly kind: 'cont'; readonly member: number }
  | { readonly kind: 'broker-kill'; readonly broker: string }
  | { readonly kind: 'broker-start'; readonly broker: string }
  /** SIGKILL whichever broker is the master of `broker` (controller mode) and wait for its replica's promotion. */
  | { readonly kind: 'master-kill'; readonly broker: string }
  /** Start the master the last master-kill stopped (it rejoins as a replica). */
  | { readonly kind: 'master-start'; readonly broker: string }
  | { readonly kind: 'namesrv-kill' }
  | { readonly kind: 'namesrv-start' }
  | { readonly kind: 'redis-halt' }
  | { readonly kind: 'redis-restart' };

export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'wait':
      return `wait ${(step.ms / 1000).toFixed(1)} s`;
    case 'kill':
      return `SIGKILL member ${step.member}`;
    case 'join':
      return `member ${step.member} joins`;
    case 'stop':
      return `SIGSTOP member ${step.member}`;
    case 'cont':
      return `SIGCONT member ${step.member}`;
    case 'broker-kill':
      return `SIGKILL ${step.broker}`;
    case 'broker-start':
      return `restart ${step.broker}`;
    case 'master-kill':
      return `SIGKILL the master of ${step.broker}`;
    case 'master-start':
      return `restart the old master of ${step.broker}`;
    case 'namesrv-kill':
      return 'SIGKILL the name server';
    case 'namesrv-start':
      return 'restart the name server';
    case 'redis-halt':
      return 'Redis down';
    case 'redis-restart':
      return 'Redis back';
  }
}

export function describeTimeline(steps: readonly Step[]): string {
  return steps.map(describeStep).join(', ');
}

/**
 * Builds a timeline while tracking which members are alive, so a kill picks a member that still runs and a join
 * names the index the group will give it.
 */
export class TimelineBuilder {
  readonly steps: Step[] = [];
  private readonly alive: number[];
  private nextMember: number;

  constructor(
    private readonly random: ChaosRandom,
    members: number,
  ) {
    this.alive = Array.from({ length: members }, (_, i) => i);
    this.nextMember = members;
  }

  wait(min: number, max: number): this {
    this.steps.push({ kind: 'wait', ms: drawMs(this.random, min, max) });
    return this;
  }

  /** SIGKILL one member that is still alive, drawn; never the last one. */
  kill(): this {
    if (this.alive.length < 2) throw new Error('a timeline may not kill the last member');
    const member = this.alive.splice(this.random.int(this.alive.length), 1)[0]!;
    this.steps.push({ kind: 'kill', member });
    return this;
  }

  join(): this {
    const member = this.nextMember++;
    this.alive.push(member);
    this.steps.push({ kind: 'join', member });
    return this;
  }

  /** SIGSTOP a live member, drawn; SIGCONT after a wait of [min, max] ms. */
  stopFor(min: number, max: number): this {
    const member = pick(this.random, this.alive);
    this.steps.push({ kind: 'stop', member });
    this.wait(min, max);
    this.steps.push({ kind: 'cont', member });
    return this;
  }

  step(step: Step): this {
    this.steps.push(step);
    return this;
  }
}
