/**
 * A small seeded pseudo-random number generator for the bootstrap:
 * xoshiro128** 1.1 (D. Blackman and S. Vigna, "Scrambled linear pseudorandom
 * number generators", ACM TOMS 47(4), 2021; https://prng.di.unimi.it/), whose
 * 128-bit state is filled from the seed with two outputs of SplitMix64, as the
 * authors recommend. Same seed → same sequence on every platform.
 *
 * The kit's one PRNG module: xoshiro128** (createRng) draws every bootstrap and every study,
 * patch-cost and mechanism plan; mulberry32 (below) is the generator the benchmark series'
 * block orders were drawn with (src/bench/design.ts planSeries), kept so that the plans of the
 * series already recorded under data/runs/ re-derive from their seeds unchanged.
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
  return createRngFromState(seedState(seed));
}

/** The xoshiro128** state createRng(seed) starts from. */
export function seedState(seed: number): [number, number, number, number] {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`seed must be a non-negative integer, found ${seed}`);
  }
  const [st, o1] = splitMix64(BigInt(seed));
  const [, o2] = splitMix64(st);
  return [Number(o1 & 0xffffffffn), Number(o1 >> 32n), Number(o2 & 0xffffffffn), Number(o2 >> 32n)];
}

/** One xoshiro128** state transition, in place (the output is not computed). */
function stepState(s: Uint32Array): void {
  const t = (s[1]! << 9) >>> 0;
  s[2] ^= s[0]!;
  s[3] ^= s[1]!;
  s[1] ^= s[2]!;
  s[0] ^= s[3]!;
  s[2] ^= t;
  s[3] = rotl(s[3]!, 11);
}

/** A 128 × 128 matrix over GF(2): column j (4 words) is the image of the state with only bit j set. */
type BitMatrix = Uint32Array[];

function applyMatrix(m: BitMatrix, v: Uint32Array): Uint32Array {
  const out = new Uint32Array(4);
  for (let j = 0; j < 128; j++) {
    if ((v[j >>> 5]! >>> (j & 31)) & 1) {
      const c = m[j]!;
      out[0] ^= c[0]!;
      out[1] ^= c[1]!;
      out[2] ^= c[2]!;
      out[3] ^= c[3]!;
    }
  }
  return out;
}

let squares: BitMatrix[] | null = null;

/** M^(2^i) for i = 0…52, M the transition: built once (53 squarings of a 128 × 128 bit matrix). */
function transitionSquares(): BitMatrix[] {
  if (squares) return squares;
  const m: BitMatrix = [];
  for (let j = 0; j < 128; j++) {
    const v = new Uint32Array(4);
    v[j >>> 5] = (1 << (j & 31)) >>> 0;
    stepState(v);
    m.push(v);
  }
  const out: BitMatrix[] = [m];
  for (let i = 1; i < 53; i++) {
    const prev = out[i - 1]!;
    out.push(prev.map((col) => applyMatrix(prev, col)));
  }
  squares = out;
  return out;
}

/**
 * The state after `k` steps from `state` (k outputs drawn), without drawing them: the transition of
 * xoshiro128** is linear over GF(2), so k steps are the product of the matrices M^(2^i) for the bits
 * of k. Lets the bootstrap start a second thread exactly where the first one's stream ends.
 */
export function jumpState(state: readonly [number, number, number, number], k: number): [number, number, number, number] {
  if (!Number.isSafeInteger(k) || k < 0) throw new RangeError(`the jump must be a non-negative safe integer, found ${k}`);
  const sq = transitionSquares();
  let v: Uint32Array = new Uint32Array(state);
  for (let i = 0; k > 0; i++, k = Math.floor(k / 2)) if (k % 2 === 1) v = applyMatrix(sq[i]!, v);
  return [v[0]!, v[1]!, v[2]!, v[3]!];
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
export function shuffleInPlace<T>(a: T[], rng: Pick<Rng, "index">): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.index(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/**
 * mulberry32 (a 32-bit-state generator): uniform in [0, 1) from `seed`. Only for the benchmark
 * series' block orders (see the module comment); anything new uses createRng.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** mulberry32 as an index source for shuffleInPlace: index(n) = floor(next() · n), as createRng's. */
export function mulberry32Indices(seed: number): Pick<Rng, "index"> {
  const next = mulberry32(seed);
  return { index: (n: number) => Math.floor(next() * n) };
}

/**
 * The one block planner: `blocks` blocks, each every item once in an order shuffled afresh from
 * `rng` (Fisher–Yates, shuffleInPlace). Lazy: block b is shuffled when it is asked for, so a caller
 * that draws more from the same stream between blocks (a seed per run) keeps its sequence.
 */
export function* shuffledBlocks<T>(items: readonly T[], blocks: number, rng: Pick<Rng, "index">): Generator<T[]> {
  for (let b = 0; b < blocks; b++) yield shuffleInPlace([...items], rng);
}
