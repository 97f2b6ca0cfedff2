/** The small summaries figures draw beside the raw data (mean and its t interval). */
import tQuantile from "@stdlib/stats-base-dists-t-quantile";

/** Mean of a sample with its two-sided Student-t confidence interval. */
export interface MeanInterval {
  n: number;
  mean: number;
  /** Sample standard deviation (n − 1 denominator); NaN when n < 2. */
  sd: number;
  /** Interval bounds; equal to the mean when n < 2 (no spread to estimate). */
  lo: number;
  hi: number;
  level: number;
}

/**
 * Mean ± t(1−α/2, n−1)·s/√n. Used to draw the mean and its interval next to the
 * runs; the statistics module (src/stats/) owns the tests and verdicts.
 */
export function meanInterval(values: number[], level = 0.95): MeanInterval {
  if (values.length === 0) throw new Error("meanInterval: no values");
  if (!(level > 0 && level < 1)) throw new Error(`meanInterval: level must be in (0, 1), got ${level}`);
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, sd: Number.NaN, lo: mean, hi: mean, level };
  const ss = values.reduce((a, v) => a + (v - mean) ** 2, 0);
  const sd = Math.sqrt(ss / (n - 1));
  const half = tQuantile(1 - (1 - level) / 2, n - 1) * (sd / Math.sqrt(n));
  return { n, mean, sd, lo: mean - half, hi: mean + half, level };
}
