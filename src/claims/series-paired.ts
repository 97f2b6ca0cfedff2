/** The paired (randomised-block) analysis of one series for the claims: d = B − A within each block, its t-test, power and minimum detectable effect. */
import { mean, nctCdf, sd, tQuantile, tTwoSidedP } from "../stats/index.js";
import type { SeriesInput } from "./series-input.js";

/** The paired (randomised-block) analysis: d = B − A within each block, in % of A's measured mean. */
export interface PairedAnalysis {
  blocks: number;
  meanDiffPct: number;
  t: number;
  df: number;
  p: number;
  ciPct: [number, number];
  halfWidthPct: number;
  /** Smallest true difference (% of A's mean) the paired t-test detects with `power` at the observed SD of d. */
  minimumDetectableEffectPct: number;
  /** Blocks whose omission flips the paired test's significance at alpha. */
  leaveOneOutFlips: number[];
  leaveOneOutMinP: number;
  leaveOneOutMaxP: number;
}

export function pairedP(d: readonly number[]): { t: number; p: number; se: number } {
  const se = sd(d) / Math.sqrt(d.length);
  const t = mean(d) / se;
  return { t, p: tTwoSidedP(t, d.length - 1), se };
}

/**
 * Power of the two-sided paired t-test (df = n − 1) to detect a true mean difference
 * `delta` when the within-block differences have SD `sdD`: noncentral t with
 * noncentrality delta / (sdD/√n).
 */
export function pairedPower(sdD: number, n: number, delta: number, alpha = 0.05): number {
  const df = n - 1;
  const ncp = Math.abs(delta) / (sdD / Math.sqrt(n));
  const tc = tQuantile(1 - alpha / 2, df);
  return Math.min(1, Math.max(0, 1 - nctCdf(tc, df, ncp) + nctCdf(-tc, df, ncp)));
}

/** Smallest true difference, in % of meanA, the paired t-test detects with `power` (bisection to 1e-12 relative). */
export function pairedMinimumDetectableEffectPct(sdD: number, n: number, meanA: number, alpha = 0.05, power = 0.8): number {
  if (n < 2) return NaN;
  if (sdD === 0) return 0;
  let lo = 0;
  let hi = sdD / Math.sqrt(n);
  while (pairedPower(sdD, n, hi, alpha) < power) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1e-12 * hi) {
    const mid = (lo + hi) / 2;
    if (pairedPower(sdD, n, mid, alpha) >= power) hi = mid;
    else lo = mid;
  }
  return (100 * (lo + hi)) / 2 / Math.abs(meanA);
}

/** The paired analysis of the blocks of a series (null with fewer than 2 complete blocks). */
export function pairedAnalysis(s: SeriesInput, alpha: number, power = 0.8): PairedAnalysis | null {
  if (s.pairs.length < 2) return null;
  const meanA = mean(s.runsA.map((r) => r.tps));
  const d = s.pairs.map(([x, y]) => y.tps - x.tps);
  const n = d.length;
  const { t, p, se } = pairedP(d);
  const tq = tQuantile(1 - alpha / 2, n - 1);
  const pct = (x: number) => (100 * x) / meanA;
  const md = mean(d);
  const drops = n > 2 ? d.map((_, i) => ({ block: s.pairs[i]![0].block, p: pairedP(d.filter((__, j) => j !== i)).p })) : [];
  return {
    blocks: n,
    meanDiffPct: pct(md),
    t,
    df: n - 1,
    p,
    ciPct: [pct(md - tq * se), pct(md + tq * se)],
    halfWidthPct: pct(tq * se),
    minimumDetectableEffectPct: pairedMinimumDetectableEffectPct(sd(d), n, meanA, alpha, power),
    leaveOneOutFlips: drops.filter((x) => x.p < alpha !== p < alpha).map((x) => x.block),
    leaveOneOutMinP: drops.length ? Math.min(...drops.map((x) => x.p)) : NaN,
    leaveOneOutMaxP: drops.length ? Math.max(...drops.map((x) => x.p)) : NaN,
  };
}
