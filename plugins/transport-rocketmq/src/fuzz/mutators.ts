import type { Prng } from './prng';

/** One way to damage an input; returns a new buffer, never changes its argument. */
export type Mutator = (input: Buffer, rng: Prng, donors: readonly Buffer[]) => Buffer;

/** Values that sit on the edges of length and offset checks. */
const INTERESTING_32 = [
  0, 1, -1, 2, 3, 4, 7, 8, 16, 20, 21, 90, 91, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 0x7fffffff, -0x80000000,
  0xffffff, 0x1000000, 16777212,
];
const INTERESTING_16 = [0, 1, -1, 127, 128, 255, 256, 32767, -32768];
const INTERESTING_8 = [0, 1, 0x7f, 0x80, 0xff, 0x01, 0x02, 0x7b, 0x7d, 0x22, 0x3a];

const copy = (b: Buffer): Buffer => Buffer.from(b);

export const flipBit: Mutator = (input, rng) => {
  if (input.length === 0) return input;
  const out = copy(input);
  const at = rng.int(out.length);
  out[at] = out[at]! ^ (1 << rng.int(8));
  return out;
};

export const setByte: Mutator = (input, rng) => {
  if (input.length === 0) return input;
  const out = copy(input);
  out[rng.int(out.length)] = rng.chance(0.5) ? rng.pick(INTERESTING_8) : rng.int(256);
  return out;
};

export const truncate: Mutator = (input, rng) => input.subarray(0, rng.int(input.length + 1));

export const extend: Mutator = (input, rng) => Buffer.concat([input, rng.bytes(1 + rng.int(16))]);

/** Overwrites 4 (or 2) bytes with an edge value: hits length prefixes, size fields and offsets. */
export const corruptLength: Mutator = (input, rng) => {
  if (input.length < 4) return extend(input, rng, []);
  const out = copy(input);
  // Most length fields sit on 4-byte boundaries or right after one; try both.
  const at = rng.chance(0.5) ? rng.int(Math.floor(out.length / 4)) * 4 : rng.int(out.length - 3);
  if (rng.chance(0.75)) {
    const value = rng.chance(0.8) ? rng.pick(INTERESTING_32) : out.readInt32BE(at) + rng.int(9) - 4;
    out.writeInt32BE(value | 0, at);
  } else {
    out.writeInt16BE(rng.pick(INTERESTING_16), at);
  }
  return out;
};

/** Replaces a slice with a slice of another valid input (mixes headers, bodies and records). */
export const splice: Mutator = (input, rng, donors) => {
  const donor = rng.pick(donors);
  if (donor.length === 0) return input;
  const from = rng.int(donor.length);
  const piece = donor.subarray(from, from + 1 + rng.int(Math.min(64, donor.length - from)));
  const at = rng.int(input.length + 1);
  const cut = rng.int(Math.min(64, input.length - at) + 1);
  return Buffer.concat([input.subarray(0, at), piece, input.subarray(at + cut)]);
};

/** Deletes or duplicates a slice. */
export const shift: Mutator = (input, rng) => {
  if (input.length < 2) return input;
  const at = rng.int(input.length);
  const length = 1 + rng.int(Math.min(32, input.length - at));
  return rng.chance(0.5)
    ? Buffer.concat([input.subarray(0, at), input.subarray(at + length)])
    : Buffer.concat([input.subarray(0, at + length), input.subarray(at)]);
};

export const MUTATORS: readonly Mutator[] = [
  flipBit,
  setByte,
  truncate,
  extend,
  corruptLength,
  corruptLength,
  splice,
  shift,
];

/** Applies one to four mutations (fewer more often, so inputs stay close to valid and reach deep checks). */
export function mutate(input: Buffer, rng: Prng, donors: readonly Buffer[]): Buffer {
  let out = input;
  const rounds = 1 + (rng.chance(0.5) ? 0 : rng.int(4));
  for (let i = 0; i < rounds; i++) out = rng.pick(MUTATORS)(out, rng, donors);
  return out;
}
