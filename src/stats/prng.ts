/**
 * A small seeded pseudo-random number generator for the bootstrap:
 * xoshiro128** 1.1 (D. Blackman and S. Vigna, "Scrambled linear pseudorandom
 * number generators", ACM TOMS 47(4), 2021; https://prng.di.unimi.it/), whose
 * 128-bit state is filled from the seed with two outputs of SplitMix64, as the
 * authors recommend. Same seed → same sequence on every platform.
 */
export interface Rng {
  /** Next 32-bit output as an unsigned integer. */
  nextUint32(): number;
  /** Uniform in [0, 1), 32 bits of resolution. */
  next(): number;
  /** Uniform integer in [0, n): floor(next()·n), bias below n/2^32. */
  index(n: number): number;
  /**
   * Writes `out.length` successive index(n) values into `out`: the same numbers
   * as that many index(n) calls, in one loop over local state (the bootstrap's hot path).
   */
  indices(n: number, out: Int32Array): void;
}

const MASK64 = (1n << 64n) - 1n;

/** One SplitMix64 step: returns [new state, output]. */
export function splitMix64(state: bigint): [bigint, bigint] {
  const s = (state + 0x9e3779b97f4a7c15n) & MASK64;
  let z = s;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return [s, z ^ (z >> 31n)];
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** xoshiro128** seeded from a non-negative safe integer via SplitMix64 (two outputs, low word first). */
export function createRng(seed: number): Rng {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`seed must be a non-negative integer, found ${seed}`);
  }
  const [st, o1] = splitMix64(BigInt(seed));
  const [, o2] = splitMix64(st);
  return createRngFromState([
    Number(o1 & 0xffffffffn),
    Number(o1 >> 32n),
    Number(o2 & 0xffffffffn),
    Number(o2 >> 32n),
  ]);
}

/** xoshiro128** started from an explicit 128-bit state (four 32-bit words, not all zero). */
export function createRngFromState(state: readonly [number, number, number, number]): Rng {
  const s = new Uint32Array(state);
  if (s.every((w) => w === 0)) throw new RangeError("the xoshiro128** state must not be all zero");
  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  };
  const next = (): number => nextUint32() / 4294967296;
  const indices = (n: number, out: Int32Array): void => {
    let s0 = s[0]!;
    let s1 = s[1]!;
    let s2 = s[2]!;
    let s3 = s[3]!;
    for (let i = 0; i < out.length; i++) {
      const x = Math.imul(s1, 5);
      const y = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      out[i] = Math.floor((y / 4294967296) * n);
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
  };
  return { nextUint32, next, index: (n: number) => Math.floor(next() * n), indices };
}

/** Shuffles `a` in place (Fisher–Yates, from the end, one rng.index per step) and returns it. */
export function shuffleInPlace<T>(a: T[], rng: Rng): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.index(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
