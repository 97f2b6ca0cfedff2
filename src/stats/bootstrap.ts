import { createRng, type Rng } from "./prng.js";
import { mean, sd } from "./summary.js";

/** Options of the bootstrap. */
export interface BootstrapOptions {
  /** Seed of the xoshiro128** generator (recorded in the result). Default 1. */
  seed?: number;
  /** Number of resamples. Default 10000. */
  resamples?: number;
  /** 1 − confidence level of the percentile intervals. Default 0.05. */
  alpha?: number;
}

/** The bootstrap replicates themselves (for plotting the distribution). */
export interface BootstrapReplicates {
  seed: number;
  resamples: number;
  /** 100·(mean B* − mean A*)/mean A* for each resample, in resampling order. */
  meanDiffPct: Float64Array;
  /** sd(B*)/sd(A*) for each resample (Infinity or NaN when sd(A*) = 0). */
  sdRatio: Float64Array;
}

/** A point estimate with its percentile bootstrap interval. */
export interface BootstrapInterval {
  estimate: number;
  lo: number;
  hi: number;
}

/** Percentile bootstrap confidence intervals of the comparison. */
export interface BootstrapResult {
  seed: number;
  resamples: number;
  confidence: number;
  /** Mean difference B − A in % of mean A. */
  meanDiffPct: BootstrapInterval;
  /** SD ratio B/A. */
  sdRatio: BootstrapInterval;
  /** Resamples whose SD ratio was undefined (both resampled SDs zero) and were left out of its interval. */
  undefinedSdRatios: number;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_RESAMPLES = 10000;

/** Fills `out` with a resample of `xs` (indices from `rng`, in order) and returns the plain sum of the drawn values. */
function draw(xs: Float64Array, out: Float64Array, idx: Int32Array, rng: Rng): number {
  const n = xs.length;
  rng.indices(n, idx);
  let s = 0;
  for (let i = 0; i < n; i++) {
    const v = xs[idx[i]!]!;
    out[i] = v;
    s += v;
  }
  return s;
}

/**
 * The mean and sample SD of `xs` given its plain sum, with exactly the
 * arithmetic of mean() and sd() in summary.ts (the residual correction of the
 * mean, the compensated two-pass variance), so the replicates are bit-identical
 * to computing mean()/sd() on the resample: two passes instead of their five.
 */
function meanAndSd(xs: Float64Array, sum: number, out: { mean: number; sd: number }): void {
  const n = xs.length;
  const m0 = sum / n;
  let r = 0;
  for (let i = 0; i < n; i++) r += xs[i]! - m0;
  const m = m0 + r / n;
  let ss = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - m;
    ss += d * d;
    c += d;
  }
  out.mean = m;
  out.sd = Math.sqrt((ss - (c * c) / n) / (n - 1));
}

/**
 * Draws `resamples` bootstrap resamples: each resamples A (nA indices) and then
 * B (nB indices) with replacement from one xoshiro128** stream seeded with `seed`.
 */
export function bootstrapReplicates(
  a: readonly number[],
  b: readonly number[],
  opts: BootstrapOptions = {},
): BootstrapReplicates {
  const seed = opts.seed ?? DEFAULT_SEED;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isSafeInteger(resamples) || resamples < 1) {
    throw new RangeError(`resamples must be a positive integer, found ${resamples}`);
  }
  if (a.length < 2 || b.length < 2) throw new RangeError("the bootstrap needs at least two values in each sample");
  const rng = createRng(seed);
  const xa = Float64Array.from(a);
  const xb = Float64Array.from(b);
  const ra = new Float64Array(a.length);
  const rb = new Float64Array(b.length);
  const meanDiffPct = new Float64Array(resamples);
  const sdRatio = new Float64Array(resamples);
  const ia = new Int32Array(a.length);
  const ib = new Int32Array(b.length);
  const stA = { mean: 0, sd: 0 };
  const stB = { mean: 0, sd: 0 };
  for (let r = 0; r < resamples; r++) {
    const sumA = draw(xa, ra, ia, rng);
    const sumB = draw(xb, rb, ib, rng);
    meanAndSd(ra, sumA, stA);
    meanAndSd(rb, sumB, stB);
    meanDiffPct[r] = (100 * (stB.mean - stA.mean)) / stA.mean;
    sdRatio[r] = stB.sd / stA.sd;
  }
  return { seed, resamples, meanDiffPct, sdRatio };
}

/**
 * The p-quantile of sorted values by linear interpolation between order
 * statistics (Hyndman & Fan type 7, numpy.percentile's default).
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  const x0 = sorted[lo]!;
  const x1 = sorted[hi]!;
  if (x0 === x1) return x0;
  return x0 + (h - lo) * (x1 - x0);
}

function interval(estimate: number, values: Float64Array, alpha: number): { iv: BootstrapInterval; dropped: number } {
  const kept = values.filter((v) => !Number.isNaN(v)).sort();
  return {
    iv: { estimate, lo: quantileSorted(kept, alpha / 2), hi: quantileSorted(kept, 1 - alpha / 2) },
    dropped: values.length - kept.length,
  };
}

/**
 * Seeded percentile bootstrap: (1 − alpha) intervals of the mean difference in %
 * of A's mean and of the SD ratio B/A. Same seed and inputs → identical numbers.
 */
export function bootstrapCis(a: readonly number[], b: readonly number[], opts: BootstrapOptions = {}): BootstrapResult {
  const alpha = opts.alpha ?? 0.05;
  const reps = bootstrapReplicates(a, b, opts);
  const mA = mean(a);
  const diff = interval((100 * (mean(b) - mA)) / mA, reps.meanDiffPct, alpha);
  const ratio = interval(sd(b) / sd(a), reps.sdRatio, alpha);
  return {
    seed: reps.seed,
    resamples: reps.resamples,
    confidence: 1 - alpha,
    meanDiffPct: diff.iv,
    sdRatio: ratio.iv,
    undefinedSdRatios: ratio.dropped,
  };
}
