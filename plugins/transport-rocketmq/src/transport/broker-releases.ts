import type { RemotingCommand } from '../protocol/remoting-command';

/**
 * MQVersion ordinals of the releases whose features the transport checks for (RocketMQ's MQVersion.Version enum:
 * the ordinal of `V<major>_<minor>_<patch>`), read off the 4.9.7 to 5.5.0 sources.
 */
export const RELEASES: readonly { readonly name: ReleaseName; readonly ordinal: number }[] = [
  { name: '4.9.4', ordinal: 401 },
  { name: '4.9.7', ordinal: 407 },
  { name: '5.0.0', ordinal: 413 },
  { name: '5.3.3', ordinal: 479 },
  { name: '5.4.0', ordinal: 493 },
  { name: '5.5.0', ordinal: 513 },
];

/** A release the transport checks features against. */
export type ReleaseName = '4.9.4' | '4.9.7' | '5.0.0' | '5.3.3' | '5.4.0' | '5.5.0';

const ordinalOf = (name: ReleaseName) => RELEASES.find((r) => r.name === name)!.ordinal;

/** A release's name for an ordinal: the newest listed release at or below it, with `+` when it is newer still. */
export function releaseName(ordinal: number): string {
  const known = [...RELEASES].reverse().find((r) => r.ordinal <= ordinal);
  if (!known) return `an older release (MQVersion ${ordinal})`;
  return known.ordinal === ordinal ? known.name : `${known.name}+ (MQVersion ${ordinal})`;
}

/**
 * Which release each broker runs, by address. A broker puts its own MQVersion in every reply it sends
 * (BrokerStartup sets it as the remoting version), so it is learnt from whatever reply came first; `ask` is for a
 * broker nothing has been asked of yet. A broker restarted into another release on the same address is learnt
 * again from its next reply.
 */
export class BrokerReleases {
  readonly #versions = new Map<string, number>();

  /** Notes the version of a reply from a broker (a version of 0 says nothing: not a broker's reply). */
  record(address: string, reply: RemotingCommand): void {
    if (reply.version > 0) this.#versions.set(address, reply.version);
  }

  /** The broker's MQVersion ordinal, asking with `ask` when no reply from it was seen yet. */
  async versionOf(address: string, ask: () => Promise<RemotingCommand>): Promise<number> {
    const known = this.#versions.get(address);
    if (known !== undefined) return known;
    const reply = await ask();
    this.record(address, reply);
    return reply.version;
  }

  /** Whether `version` is at least the release `name`. */
  static atLeast(version: number, name: ReleaseName): boolean {
    return version >= ordinalOf(name);
  }
}
