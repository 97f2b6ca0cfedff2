import { tQuantile, tTwoSidedP } from "./distributions.js";
import { moments, momentsVariance, type Moments } from "./moments.js";

/** Welch's unequal-variance t-test of mean(B) − mean(A). */
export interface WelchResult {
  /** t = (mean B − mean A) / se; positive when B is higher. */
  t: number;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number;
  /** Two-sided p-value. */
  p: number;
  /** mean B − mean A. */
  difference: number;
  /** (mean B − mean A) / mean A × 100. */
  differencePct: number;
  /** Standard error of the difference, sqrt(varA/nA + varB/nB). */
  se: number;
  /** Confidence level of the intervals below (e.g. 0.95). */
  confidence: number;
  /** Confidence interval of mean B − mean A (t quantile at the Welch df). */
  ci: [number, number];
  /** The same interval in % of mean A. */
  ciPct: [number, number];
}

/** Welch–Satterthwaite degrees of freedom for variances vA, vB (of the data) and sizes nA, nB. */
export function welchDf(vA: number, nA: number, vB: number, nB: number): number {
  const qa = vA / nA;
  const qb = vB / nB;
  return (qa + qb) ** 2 / ((qa * qa) / (nA - 1) + (qb * qb) / (nB - 1));
}

/** The test statistic, df and two-sided p of Welch's test from the two samples' moments (no interval). */
export function welchCore(a: Moments, b: Moments): { t: number; df: number; p: number; difference: number; se: number } {
  const vA = momentsVariance(a);
  const vB = momentsVariance(b);
  const difference = b.mean - a.mean;
  const se = Math.sqrt(vA / a.n + vB / b.n);
  if (se === 0) {
    // Both samples constant: no noise, the difference is either exactly zero or certain.
    const t = difference === 0 ? 0 : Math.sign(difference) * Infinity;
    return { t, df: a.n + b.n - 2, p: difference === 0 ? 1 : 0, difference, se };
  }
  const t = difference / se;
  const df = welchDf(vA, a.n, vB, b.n);
  return { t, df, p: tTwoSidedP(t, df), difference, se };
}

/** Welch's test with its (1 − alpha) interval from the two samples' moments. */
export function welchFromMoments(a: Moments, b: Moments, alpha = 0.05): WelchResult {
  const { t, df, p, difference, se } = welchCore(a, b);
  const half = se === 0 ? 0 : tQuantile(1 - alpha / 2, df) * se;
  const ci: [number, number] = [difference - half, difference + half];
  const mA = a.mean;
  return {
    t,
    df,
    p,
    difference,
    differencePct: (100 * difference) / mA,
    se,
    confidence: 1 - alpha,
    ci,
    ciPct: [(100 * ci[0]) / mA, (100 * ci[1]) / mA],
  };
}

/**
 * Welch's t-test (two-sided) with the (1 − alpha) confidence interval of the
 * mean difference B − A. Needs at least two values on each side.
 */
export function welchTTest(a: readonly number[], b: readonly number[], alpha = 0.05): WelchResult {
  if (a.length < 2 || b.length < 2) throw new RangeError("welchTTest needs at least two values in each sample");
  return welchFromMoments(moments(a), moments(b), alpha);
}
