/**
 * The distribution functions the tests use, all from maintained libraries
 * (@stdlib for t, F and normal; jStat for the noncentral t), wrapped with the
 * tail identities that keep small p-values accurate (no `1 - cdf` cancellation).
 */
import tCdfLib from "@stdlib/stats-base-dists-t-cdf";
import tQuantileLib from "@stdlib/stats-base-dists-t-quantile";
import fCdfLib from "@stdlib/stats-base-dists-f-cdf";
import normalCdfLib from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantileLib from "@stdlib/stats-base-dists-normal-quantile";
import jStat from "jstat";

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function tCdf(t: number, df: number): number {
  return tCdfLib(t, df);
}

/** Two-sided p-value of a t statistic: 2·P(T ≥ |t|), computed as 2·P(T ≤ −|t|). */
export function tTwoSidedP(t: number, df: number): number {
  return Math.min(1, 2 * tCdfLib(-Math.abs(t), df));
}

/** The p-quantile of Student's t with `df` degrees of freedom. */
export function tQuantile(p: number, df: number): number {
  return tQuantileLib(p, df);
}

/** P(F ≤ f) for the F distribution with (d1, d2) degrees of freedom. */
export function fCdf(f: number, d1: number, d2: number): number {
  return fCdfLib(f, d1, d2);
}

/** P(F ≥ f) for F(d1, d2), computed as P(F(d2, d1) ≤ 1/f) so that tiny tails stay accurate. */
export function fSf(f: number, d1: number, d2: number): number {
  if (f <= 0) return 1;
  return fCdfLib(1 / f, d2, d1);
}

/** P(Z ≥ z) for the standard normal, computed as Φ(−z). */
export function normalSf(z: number): number {
  return normalCdfLib(-z, 0, 1);
}

/** The p-quantile of the standard normal. */
export function normalQuantile(p: number): number {
  return normalQuantileLib(p, 0, 1);
}

/**
 * P(T ≤ x) for the noncentral t with `df` degrees of freedom and noncentrality
 * `ncp` (jStat's series for the noncentral t, Lenth's algorithm AS 243 style).
 */
export function nctCdf(x: number, df: number, ncp: number): number {
  return jStat.noncentralt.cdf(x, df, ncp);
}
