import { randomBytes } from 'node:crypto';
import { localAddress } from '../util/client-id';

/**
 * RocketMQ's MessageClientIDSetter layout for UNIQ_KEY, so ids look and sort like a Java producer's:
 * 32 uppercase hex chars = ip (4) + pid (2) + a per-process random int (4, Java's class-loader hash) +
 * ms since the start of the month in local time (4) + a counter (2).
 */
export class UniqKeyGenerator {
  private readonly prefix: string;
  private counter = 0;
  private monthStart = 0;
  private nextMonthStart = 0;

  constructor(ip = localAddress()) {
    const head = Buffer.alloc(10);
    const parts = ip.split('.').map(Number);
    if (parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p < 256)) head.set(parts, 0);
    else randomBytes(4).copy(head, 0);
    head.writeUInt16BE(process.pid & 0xffff, 4);
    randomBytes(4).copy(head, 6);
    this.prefix = head.toString('hex').toUpperCase();
  }

  next(now = Date.now()): string {
    if (now >= this.nextMonthStart) this.resetMonth(now);
    let elapsed = now - this.monthStart;
    if (elapsed < 0) elapsed = 0; // the clock stepped back: Java writes 0 too
    const tail = Buffer.alloc(6);
    tail.writeInt32BE(elapsed | 0, 0);
    tail.writeUInt16BE(this.counter, 4);
    this.counter = (this.counter + 1) & 0xffff;
    return this.prefix + tail.toString('hex').toUpperCase();
  }

  private resetMonth(now: number): void {
    const d = new Date(now);
    this.monthStart = new Date(d.getFullYear(), d.getMonth(), 1).getTime();
    this.nextMonthStart = new Date(d.getFullYear(), d.getMonth() + 1, 1).getTime();
  }
}
