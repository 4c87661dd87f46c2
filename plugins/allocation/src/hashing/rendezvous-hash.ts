/**
 * Integer hashing for rendezvous (highest-random-weight) allocation. Only 32-bit integer operations
 * (Math.imul, shifts), so every member computes bit-identical weights on any platform and Node version.
 */

/** MurmurHash3's finalizer on int32 bits (no unsigned conversion, so V8 keeps it in small integers). */
function fmixBits(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** MurmurHash3's finalizer: spreads every input bit over the whole word. Unsigned result. */
export function fmix32(value: number): number {
  return fmixBits(value) >>> 0;
}

/** A 32-bit hash of a string's UTF-16 code units (FNV-1a, then fmix32); the same in every JavaScript engine. */
export function stringHash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/**
 * The weight of the pair (item, member) from their own hashes: one MurmurHash3 block over `itemHash` seeded with
 * `memberHash`. For a fixed member the weights over items behave like a random permutation, and two members'
 * orders are independent.
 */
export function pairWeight(itemHash: number, memberHash: number): number {
  return pairWeightBits(itemHash, memberHash) >>> 0;
}

/**
 * pairWeight's bits as a signed int32 (store it in a Uint32Array to read it unsigned): the hot loop of
 * BALANCED_RENDEZVOUS uses this form, which avoids allocating a heap number per weight.
 */
export function pairWeightBits(itemHash: number, memberHash: number): number {
  let k = Math.imul(itemHash, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let h = memberHash ^ k;
  h = (h << 13) | (h >>> 19);
  h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  return fmixBits(h ^ 4);
}
