import type { ConsumerRegistration, GroupMembership } from '../spi/transport.roles';
import { every } from '../util/periodic';

/**
 * The app's heartbeats: every heartbeatIntervalMs and on request (after an assignment change), one at a time (a
 * request while one is in flight joins it), until the signal aborts. Failures are reported, never thrown.
 */
export class Heartbeats {
  private inFlight: Promise<void> | undefined;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly membership: GroupMembership,
    private readonly registrations: () => ConsumerRegistration[],
    private readonly report: (error: unknown) => void,
    private readonly signal: AbortSignal,
    /** Producer groups of the client that heartbeat: transactional ones, and those that sent requests. */
    private readonly producerGroups: () => readonly string[] = () => [],
  ) {}

  start(intervalMs: number): void {
    this.loop = every(intervalMs, () => this.beat(), this.signal, this.report);
  }

  /** A heartbeat soon (joins one in flight). */
  now(): void {
    if (!this.signal.aborted) void this.beat();
  }

  /**
   * A heartbeat that starts after this call (one in flight may predate what it must carry), resolved once it was
   * answered or reported.
   */
  async beatNow(): Promise<void> {
    await this.inFlight;
    if (!this.signal.aborted) await this.beat();
  }

  /** Resolves once stopped and no heartbeat is in flight. */
  async stopped(): Promise<void> {
    await this.loop;
    await this.inFlight;
  }

  private beat(): Promise<void> {
    this.inFlight ??= this.membership
      .heartbeat(this.registrations(), this.producerGroups())
      .catch(this.report)
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }
}
