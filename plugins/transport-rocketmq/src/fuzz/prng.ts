/** One step of splitmix32: spreads a 32-bit value over all bits (seeding and per-input seeds). */
export function mix32(value: number): number {
  let z = (value + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** The seed of input `index` of a run with `seed`: each input can be replayed alone. */
export function inputSeed(seed: number, index: number): number {
  return mix32(mix32(seed >>> 0) ^ mix32(index >>> 0));
}

/**
 * A small seeded PRNG (sfc32: Chris Doty-Humphrey's Small Fast Counting generator), so a fuzz run is the same on
 * every machine and every replay. Never Math.random.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = mix32(seed);
    this.b = mix32(this.a);
    this.c = mix32(this.b);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uniform uint32. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in 0..n-1 (n ≥ 1). */
  int(n: number): number {
    return Math.floor((this.next() / 0x100000000) * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() / 0x100000000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.next() & 0xff;
    return out;
  }
}
