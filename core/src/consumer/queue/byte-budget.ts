import { deferred, type Deferred } from '../../util/deferred';

/**
 * The app-wide cap on cached body bytes, across every queue of every consumer. A pull reserves the bytes it
 * asks for before it is sent and settles the reservation with what arrived, so concurrent pulls cannot together
 * overshoot; the broker returns at least one message, so one pull may overshoot by at most one message.
 */
export class ByteBudget {
  private used = 0;
  private peak = 0;
  private waiter: Deferred | undefined;
  private wantedRoom = 1;

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Highest value of inUse seen, reservations included. */
  get peakInUse(): number {
    return this.peak;
  }

  room(): number {
    return this.limit - this.used;
  }

  /** Takes up to `bytes` (at most the room left); returns what was taken. */
  reserve(bytes: number): number {
    const taken = Math.max(0, Math.min(bytes, this.limit - this.used));
    this.used += taken;
    if (this.used > this.peak) this.peak = this.used;
    return taken;
  }

  /** Replaces a reservation by what actually arrived. */
  settle(reserved: number, actual: number): void {
    this.used += actual - reserved;
    if (this.used > this.peak) this.peak = this.used;
    if (actual < reserved) this.wake();
  }

  release(bytes: number): void {
    if (bytes <= 0) return;
    this.used -= bytes;
    this.wake();
  }

  /** Resolves once at least `minRoom` bytes are free (a low watermark, so pulls are not one message each). */
  waitForRoom(minRoom: number): Promise<void> {
    if (this.room() >= minRoom) return Promise.resolve();
    this.wantedRoom = this.waiter ? Math.min(this.wantedRoom, minRoom) : minRoom;
    this.waiter ??= deferred();
    return this.waiter.promise;
  }

  private wake(): void {
    const waiter = this.waiter;
    if (waiter && this.room() >= this.wantedRoom) {
      this.waiter = undefined;
      waiter.resolve();
    }
  }
}
