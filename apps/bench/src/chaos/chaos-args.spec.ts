import { describe, expect, it } from 'vitest';
import { parseChaosArgs, partialRunName } from './chaos-args';

const fixed = () => 777;

describe('parseChaosArgs', () => {
  it('runs every scenario, CONCURRENTLY and (where queues move) ORDERLY, both clients, one random seed', () => {
    const a = parseChaosArgs([], fixed);
    expect(a.clients).toEqual(['mqkit', 'java']);
    expect(a.variants.map((v) => `${v.scenario.id}:${v.mode[0]}`)).toEqual([
      'i:C',
      'i:O',
      'ii:C',
      'ii:O',
      'iii:C',
      'iii:O',
      'iv:C',
      'iv:O',
      'v:C',
      'vi:C',
      'storm:C',
      'storm:O',
    ]);
    expect(a.seeds).toEqual([777]);
    expect(a.seedGiven).toBe(false);
    expect(partialRunName(a)).toBeUndefined();
  });

  it('takes a scenario by id or name, a client, a mode, a seed and a seed count, in any order', () => {
    const a = parseChaosArgs([
      '--seeds',
      '3',
      'member-kill-join',
      '--mode',
      'orderly',
      '--seed',
      '42',
      '--client',
      'java',
    ]);
    expect(a.scenarios.map((s) => s.id)).toEqual(['i']);
    expect(a.variants.map((v) => v.mode)).toEqual(['ORDERLY']);
    expect(a.clients).toEqual(['java']);
    expect(a.seeds).toHaveLength(3);
    expect(a.seeds[0]).toBe(42);
    expect(a.seedGiven).toBe(true);
    expect(partialRunName(a)).toBe('member-kill-join-java-orderly');
    expect(partialRunName(parseChaosArgs(['storm', '--seeds', '1'], fixed))).toBe('storm');
    expect(partialRunName(parseChaosArgs(['--seed', '1', '--seeds', '5']))).toBeUndefined();
  });

  it('refuses what it does not know', () => {
    expect(() => parseChaosArgs(['vii'], fixed)).toThrow(/unknown chaos scenario vii/);
    expect(() => parseChaosArgs(['v', '--mode', 'orderly'], fixed)).toThrow(/no ORDERLY variant/);
    expect(() => parseChaosArgs(['--seeds', '0'], fixed)).toThrow(/--seeds/);
    expect(() => parseChaosArgs(['--seed', '-1'], fixed)).toThrow(/--seed/);
    expect(() => parseChaosArgs(['--seed'], fixed)).toThrow(/needs a value/);
    expect(() => parseChaosArgs(['--client', 'go'], fixed)).toThrow(/mqkit or java/);
    expect(() => parseChaosArgs(['--fast'], fixed)).toThrow(/unexpected --fast/);
  });
});
