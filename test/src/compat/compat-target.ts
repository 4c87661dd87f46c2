import { rocketMqRelease, type RocketMqReleaseTraits } from '@mqkit/transport-rocketmq/testing';

/** Env var naming the compatibility run's target: a release (`4.9.7`) or a proxy in front of one (`proxy-5.3.3`). */
export const COMPAT_TARGET_ENV = 'MQKIT_COMPAT_TARGET';
/** Env var the global setup sets for the workers when clients go through a proxy: its remoting address. */
export const COMPAT_ENDPOINT_ENV = 'MQKIT_COMPAT_ENDPOINT';

/** What the suite runs against: the brokers' release, and whether clients reach them through rocketmq-proxy. */
export interface CompatTarget {
  readonly name: string;
  readonly release: RocketMqReleaseTraits;
  readonly viaProxy: boolean;
}

/** Parses a target name; an unknown release line fails here, naming it, before any server starts. */
export function compatTarget(name = process.env[COMPAT_TARGET_ENV] || '5.3.3'): CompatTarget {
  const match = /^(proxy-)?(\d+\.\d+\.\d+)$/.exec(name);
  if (!match) throw new Error(`${COMPAT_TARGET_ENV}=${name}: expected a release (5.3.3) or proxy-<release>`);
  return { name, release: rocketMqRelease(match[2]!), viaProxy: match[1] !== undefined };
}

/** Whether the target's brokers are at least `release` (features that arrived in a release). */
export function atLeast(target: CompatTarget, release: string): boolean {
  const parse = (v: string) => v.split('.').map(Number);
  const [a, b] = [parse(target.release.release), parse(release)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

declare module 'vitest' {
  interface TaskMeta {
    /** A detail for the README's release table cell (say, which ACL model the release has). */
    compat?: string;
  }
}
