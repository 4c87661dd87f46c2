import { describe, expect, it } from 'vitest';
import { modesOf, runTimeline, SCENARIOS, STORM_RATE, WAITS, type Scenario, type ScenarioContext } from './scenarios';
import { describeTimeline, seedsFrom, type Step, timelineRandom } from './timeline';

/**
 * A context that acts nothing out: it records what a scenario did, in order, and sleeps no time. The group numbers
 * joins as ChaosGroup does (the next index).
 */
function recordingContext(seed: number, members: number): { ctx: ScenarioContext; actions: string[] } {
  const actions: string[] = [];
  let next = members;
  const ctx: ScenarioContext = {
    random: timelineRandom(seed),
    cluster: {
      stopBroker: async (name, options) => void actions.push(`stopBroker ${name} ${options?.force ? 'force' : ''}`),
      startBroker: async (name) => void actions.push(`startBroker ${name}`),
      masterOf: async (name) => `${name}-n0`,
      waitForMaster: async (name) => {
        actions.push(`waitForMaster ${name}`);
        return `${name}-n1`;
      },
      stopNameServer: async () => void actions.push('stopNameServer'),
      startNameServer: async () => void actions.push('startNameServer'),
    },
    group: {
      add: async () => {
        actions.push(`add ${next}`);
        return next++;
      },
      kill: (i) => void actions.push(`kill ${i}`),
      pause: (i) => void actions.push(`pause ${i}`),
      resume: (i) => void actions.push(`resume ${i}`),
    },
    redis: {
      halt: async () => void actions.push('redis halt'),
      restart: async () => void actions.push('redis restart'),
    },
    fault: (label) => void actions.push(`fault ${label}`),
    sleep: async (ms) => void actions.push(`sleep ${ms}`),
    log: () => undefined,
  };
  return { ctx, actions };
}

/** What the scenario does with the seed, once per client: each client's run builds its own source from the seed. */
async function actedOut(scenario: Scenario, seed: number): Promise<string[]> {
  const { ctx, actions } = recordingContext(seed, scenario.members);
  await scenario.run(ctx);
  return actions;
}

const byId = (id: string): Scenario => SCENARIOS.find((s) => s.id === id)!;
const waits = (steps: readonly Step[]): number[] => steps.flatMap((s) => (s.kind === 'wait' ? [s.ms] : []));

describe('seeded chaos timelines', () => {
  it('keeps the six scenarios and adds storm', () => {
    expect(SCENARIOS.map((s) => s.id)).toEqual(['i', 'ii', 'iii', 'iv', 'v', 'vi', 'storm']);
    expect(byId('storm').rate).toBe(STORM_RATE);
    expect(SCENARIOS.filter((s) => s.id !== 'storm').every((s) => s.rate === 300)).toBe(true);
  });

  it('runs ORDERLY as well the scenarios that move queues', () => {
    expect(SCENARIOS.filter((s) => modesOf(s).includes('ORDERLY')).map((s) => s.id)).toEqual([
      'i',
      'ii',
      'iii',
      'iv',
      'storm',
    ]);
    for (const s of SCENARIOS) expect(modesOf(s)[0]).toBe('CONCURRENTLY');
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.id}: the same seed acts out the same timeline for both clients; other seeds differ`, async () => {
      const mqkit = await actedOut(scenario, 42);
      const java = await actedOut(scenario, 42);
      expect(java).toEqual(mqkit);
      expect(mqkit.some((a) => a.startsWith('fault '))).toBe(true);
      const timelines = new Set(
        seedsFrom(1, 20).map((seed) => describeTimeline(scenario.timeline(timelineRandom(seed)))),
      );
      expect(timelines.size).toBeGreaterThan(15);
      // run() acts out exactly timeline(): the waits it slept are the drawn ones.
      const drawn = waits(scenario.timeline(timelineRandom(42)));
      expect(mqkit.flatMap((a) => (a.startsWith('sleep ') ? [Number(a.slice(6))] : []))).toEqual(drawn);
    });
  }

  it('draws every wait within its range, the first fault after the settle wait', () => {
    for (const scenario of SCENARIOS)
      for (const seed of seedsFrom(7, 50)) {
        const steps = scenario.timeline(timelineRandom(seed));
        expect(steps[0]!.kind).toBe('wait');
        const first = (steps[0] as { ms: number }).ms;
        expect(first).toBeGreaterThanOrEqual(WAITS.beforeFault[0]);
        expect(first).toBeLessThanOrEqual(WAITS.beforeFault[1]);
        for (const ms of waits(steps)) expect(ms % 100).toBe(0);
      }
  });

  it('ii: stops one member past the channel expiry and its scan, then resumes the same one', () => {
    const seen = new Set<number>();
    for (const seed of seedsFrom(3, 40)) {
      const steps = byId('ii').timeline(timelineRandom(seed));
      const stop = steps.find((s) => s.kind === 'stop') as { member: number };
      const cont = steps.find((s) => s.kind === 'cont') as { member: number };
      expect(cont.member).toBe(stop.member);
      seen.add(stop.member);
      const stopped = steps[steps.indexOf(stop as Step) + 1] as { kind: string; ms: number };
      expect(stopped.kind).toBe('wait');
      expect(stopped.ms).toBeGreaterThan(20_000);
    }
    expect([...seen].sort()).toEqual([0, 1, 2]);
  });

  it('storm: one broker down and back; two members SIGKILLed and two joined, all during the outage', () => {
    const brokers = new Set<string>();
    const orders = new Set<string>();
    for (const seed of seedsFrom(11, 60)) {
      const steps = byId('storm').timeline(timelineRandom(seed));
      const acts = steps.filter((s) => s.kind !== 'wait');
      expect(acts[0]!.kind).toBe('broker-kill');
      expect(acts.at(-1)).toEqual({ kind: 'broker-start', broker: (acts[0] as { broker: string }).broker });
      brokers.add((acts[0] as { broker: string }).broker);
      const members = acts.slice(1, -1);
      expect(members.map((s) => s.kind).sort()).toEqual(['join', 'join', 'kill', 'kill']);
      orders.add(members.map((s) => s.kind).join());
      // Joins are members 3 and 4; a kill never hits a dead or not yet joined member.
      const alive = new Set([0, 1, 2]);
      for (const s of members) {
        if (s.kind === 'join') {
          expect(alive.has(s.member)).toBe(false);
          alive.add(s.member);
        } else {
          expect(alive.delete((s as { member: number }).member)).toBe(true);
        }
      }
      expect(alive.size).toBe(3);
    }
    expect([...brokers].sort()).toEqual(['broker-a', 'broker-b']);
    expect(orders.size).toBe(6);
  });

  it('iv: kills whichever broker is the master, waits for the promotion, restarts that one', async () => {
    const actions = await actedOut(byId('iv'), 5);
    const acts = actions.filter((a) => !a.startsWith('sleep'));
    expect(acts).toEqual([
      'fault SIGKILL the master of broker-a',
      'stopBroker broker-a-n0 force',
      'waitForMaster broker-a',
      'startBroker broker-a-n0',
    ]);
  });

  it('refuses to act out a join the group numbers differently', async () => {
    const { ctx } = recordingContext(1, 5);
    await expect(runTimeline([{ kind: 'join', member: 3 }], ctx)).rejects.toThrow(/member 3, the group's 5/);
  });
});

describe('seeds', () => {
  it('starts with the given seed and derives the rest from it, the same every time', () => {
    const seeds = seedsFrom(123, 5);
    expect(seeds[0]).toBe(123);
    expect(new Set(seeds).size).toBe(5);
    expect(seedsFrom(123, 5)).toEqual(seeds);
    expect(seedsFrom(124, 5).slice(1)).not.toEqual(seeds.slice(1));
    for (const s of seeds) expect(s >>> 0).toBe(s);
  });
});
