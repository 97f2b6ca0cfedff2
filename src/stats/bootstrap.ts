import { createRng } from "./prng.js";
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
  const ra = new Array<number>(a.length);
  const rb = new Array<number>(b.length);
  const meanDiffPct = new Float64Array(resamples);
  const sdRatio = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < a.length; i++) ra[i] = a[rng.index(a.length)]!;
    for (let i = 0; i < b.length; i++) rb[i] = b[rng.index(b.length)]!;
    const mA = mean(ra);
    meanDiffPct[r] = (100 * (mean(rb) - mA)) / mA;
    sdRatio[r] = sd(rb) / sd(ra);
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
