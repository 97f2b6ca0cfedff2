import { mean, sumSquaredDeviations } from "./summary.js";

/**
 * The sufficient statistics of a sample for the mean and the variance: its size,
 * its mean and the sum of squared deviations from that mean (M2). Leave-one-out
 * drops a run from them in O(1) instead of recomputing from the n − 1 others.
 */
export interface Moments {
  n: number;
  mean: number;
  /** Σ (x − mean)², ≥ 0. */
  m2: number;
}

/** The moments of a sample, with the same two-pass arithmetic as variance() (compensated residual sum). */
export function moments(xs: readonly number[]): Moments {
  const n = xs.length;
  const m = mean(xs);
  return { n, mean: m, m2: n === 0 ? NaN : sumSquaredDeviations(xs, m) };
}

/** Sample variance (divisor n − 1) from moments; NaN when n < 2. */
export function momentsVariance(m: Moments): number {
  return m.n < 2 ? NaN : m.m2 / (m.n - 1);
}

/**
 * The moments of the sample with one of its values `x` removed (Welford's
 * update run backwards): mean' = mean + (mean − x)/(n − 1),
 * M2' = M2 − (x − mean)(x − mean'). Exact in real arithmetic; in floating point
 * the error is a few ulps of M2 (clamped at 0 when every other run is equal).
 */
export function dropOne(m: Moments, x: number): Moments {
  const n = m.n - 1;
  if (n <= 0) return { n: 0, mean: NaN, m2: NaN };
  const mean1 = m.mean + (m.mean - x) / n;
  const m2 = m.m2 - (x - m.mean) * (x - mean1);
  return { n, mean: mean1, m2: m2 > 0 ? m2 : 0 };
}
