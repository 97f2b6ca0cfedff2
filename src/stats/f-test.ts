import { fCdf, fSf } from "./distributions.js";
import { moments, momentsVariance, type Moments } from "./moments.js";

/** F-test of equal variances (assumes normal data). */
export interface FTestResult {
  /** F = var(B) / var(A): below 1 when B is less variable. */
  f: number;
  /** Numerator degrees of freedom, nB − 1. */
  dfNum: number;
  /** Denominator degrees of freedom, nA − 1. */
  dfDen: number;
  /** Two-sided p-value, 2·min(P(F ≤ f), P(F ≥ f)), clipped at 1. */
  p: number;
}

/** Two-sided F-test of var(B) = var(A) from the two samples' moments. */
export function fTestFromMoments(a: Moments, b: Moments): FTestResult {
  const f = momentsVariance(b) / momentsVariance(a);
  const dfNum = b.n - 1;
  const dfDen = a.n - 1;
  let p: number;
  if (Number.isNaN(f)) p = NaN;
  else p = Math.min(1, 2 * Math.min(fCdf(f, dfNum, dfDen), fSf(f, dfNum, dfDen)));
  return { f, dfNum, dfDen, p };
}

/** Two-sided F-test of var(B) = var(A). */
export function fTestVariances(a: readonly number[], b: readonly number[]): FTestResult {
  if (a.length < 2 || b.length < 2) throw new RangeError("fTestVariances needs at least two values in each sample");
  return fTestFromMoments(moments(a), moments(b));
}
