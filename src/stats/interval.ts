import { mean, variance } from "./summary.js";
import { tQuantile } from "./distributions.js";

/**
 * The kit's interval types: a closed range [lo, hi] (a claim's printed figure, a published range)
 * and a mean with its range over n values (a cell's rate, an effect). src/claims/verdicts.ts and
 * src/analysis/mechanism.ts use these; a t interval of a mean is tInterval.
 */
export interface Interval {
  lo: number;
  hi: number;
}

export interface MeanInterval extends Interval {
  mean: number;
  n: number;
}

/** Mean with a two-sided t interval at `level` (n ≥ 2; n = 1 gives the value with lo = hi = NaN, n = 0 all NaN). */
export function tInterval(xs: readonly number[], level = 0.95): MeanInterval {
  const n = xs.length;
  if (n === 0) return { mean: NaN, lo: NaN, hi: NaN, n };
  const m = mean(xs);
  if (n < 2) return { mean: m, lo: NaN, hi: NaN, n };
  const h = tQuantile(1 - (1 - level) / 2, n - 1) * Math.sqrt(variance(xs) / n);
  return { mean: m, lo: m - h, hi: m + h, n };
}
