import { nctCdf, normalQuantile, tQuantile } from "./distributions.js";
import { welchDf } from "./welch.js";

/**
 * Power of the two-sided Welch t-test at level alpha to detect a true mean
 * difference `delta`, for populations with standard deviations sdA, sdB and
 * samples of nA, nB runs.
 *
 * Model: the statistic follows a noncentral t with the Welch–Satterthwaite
 * degrees of freedom (computed from sdA, sdB, nA, nB) and noncentrality
 * delta / sqrt(sdA²/nA + sdB²/nB); power = P(T > t_crit) + P(T < −t_crit),
 * t_crit the (1 − alpha/2) quantile of the central t with the same df.
 * Exact for the noncentral t (jStat), the usual model for Welch's test
 * (as in G*Power); not a simulation of Welch's test itself.
 */
export function welchPower(sdA: number, sdB: number, nA: number, nB: number, delta: number, alpha = 0.05): number {
  const se = Math.sqrt((sdA * sdA) / nA + (sdB * sdB) / nB);
  const df = welchDf(sdA * sdA, nA, sdB * sdB, nB);
  const ncp = Math.abs(delta) / se;
  const tc = tQuantile(1 - alpha / 2, df);
  const upper = 1 - nctCdf(tc, df, ncp);
  const lower = nctCdf(-tc, df, ncp);
  return Math.min(1, Math.max(0, upper + lower));
}

/** Largest sample size runsNeeded searches before giving up (returns Infinity). */
export const MAX_RUNS = 1_000_000;

/**
 * Runs needed on each side (equal n) for the two-sided Welch test at level
 * alpha to detect a true difference of `effectPct` % of meanA with the given
 * power, when the run-to-run SDs are sdA and sdB. Smallest n ≥ 2 whose power
 * (welchPower) reaches `power`; Infinity when even MAX_RUNS is not enough.
 */
export function runsNeeded(
  sdA: number,
  sdB: number,
  meanA: number,
  effectPct: number,
  alpha = 0.05,
  power = 0.8,
): number {
  const delta = Math.abs((meanA * effectPct) / 100);
  if (!(delta > 0)) return Infinity;
  if (sdA === 0 && sdB === 0) return 2;
  const pw = (n: number): number => welchPower(sdA, sdB, n, n, delta, alpha);
  if (pw(2) >= power) return 2;
  // Start near the normal-approximation answer, then bracket and bisect on integers.
  const za = normalQuantile(1 - alpha / 2);
  const zb = normalQuantile(power);
  const guess = Math.max(3, Math.ceil(((za + zb) ** 2 * (sdA * sdA + sdB * sdB)) / (delta * delta)));
  let lo = 2; // power(lo) < target
  let hi = Math.min(guess, MAX_RUNS);
  while (pw(hi) < power) {
    lo = hi;
    if (hi >= MAX_RUNS) return Infinity;
    hi = Math.min(hi * 2, MAX_RUNS);
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (pw(mid) >= power) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Smallest true difference, in % of meanA, that the two-sided Welch test at
 * level alpha detects with the given power with nA and nB runs at noise sdA,
 * sdB (solves welchPower = power by bisection to 1e-12 relative).
 */
export function minimumDetectableEffectPct(
  sdA: number,
  sdB: number,
  nA: number,
  nB: number,
  meanA: number,
  alpha = 0.05,
  power = 0.8,
): number {
  if (nA < 2 || nB < 2) return NaN;
  const se = Math.sqrt((sdA * sdA) / nA + (sdB * sdB) / nB);
  if (se === 0) return 0;
  const pw = (delta: number): number => welchPower(sdA, sdB, nA, nB, delta, alpha);
  let lo = 0;
  let hi = se;
  while (pw(hi) < power) {
    lo = hi;
    hi *= 2;
    if (!Number.isFinite(hi)) return Infinity;
  }
  while (hi - lo > 1e-12 * hi) {
    const mid = (lo + hi) / 2;
    if (pw(mid) >= power) hi = mid;
    else lo = mid;
  }
  return (100 * (lo + hi)) / 2 / Math.abs(meanA);
}

/**
 * Power of the two-sided paired t-test (df = n − 1) to detect a true mean difference `delta` when
 * the within-pair differences have SD `sdD`: welchPower with a second side of zero spread, which
 * has the same standard error (sdD/√n) and degrees of freedom (n − 1).
 */
export function pairedPower(sdD: number, n: number, delta: number, alpha = 0.05): number {
  return welchPower(sdD, 0, n, n, delta, alpha);
}

/** Smallest true difference, in % of meanA, the paired t-test over n pairs detects with `power` (the same bisection). */
export function pairedMinimumDetectableEffectPct(sdD: number, n: number, meanA: number, alpha = 0.05, power = 0.8): number {
  return minimumDetectableEffectPct(sdD, 0, n, n, meanA, alpha, power);
}
