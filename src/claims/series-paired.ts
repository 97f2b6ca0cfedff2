/** The paired (randomised-block) analysis of one series for the claims: d = B − A within each block, its t-test, power and minimum detectable effect. */
import { mean, pairedMean, pairedMinimumDetectableEffectPct, sd } from "../stats/index.js";
export { pairedPower, pairedMinimumDetectableEffectPct } from "../stats/index.js";
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

/** t, two-sided p and standard error of the paired t-test on the differences `d` (src/stats/paired.ts pairedMean). */
export function pairedP(d: readonly number[]): { t: number; p: number; se: number } {
  const { t, p, se } = pairedMean(d);
  return { t, p, se };
}

/** The paired analysis of the blocks of a series (null with fewer than 2 complete blocks). */
export function pairedAnalysis(s: SeriesInput, alpha: number, power = 0.8): PairedAnalysis | null {
  if (s.pairs.length < 2) return null;
  const meanA = mean(s.runsA.map((r) => r.tps));
  const d = s.pairs.map(([x, y]) => y.tps - x.tps);
  const n = d.length;
  const pm = pairedMean(d, alpha);
  const { t, p } = pm;
  const pct = (x: number) => (100 * x) / meanA;
  const drops = n > 2 ? d.map((_, i) => ({ block: s.pairs[i]![0].block, p: pairedP(d.filter((__, j) => j !== i)).p })) : [];
  return {
    blocks: n,
    meanDiffPct: pct(pm.mean),
    t,
    df: n - 1,
    p,
    ciPct: [pct(pm.ci[0]), pct(pm.ci[1])],
    halfWidthPct: pct(pm.halfWidth),
    minimumDetectableEffectPct: pairedMinimumDetectableEffectPct(sd(d), n, meanA, alpha, power),
    leaveOneOutFlips: drops.filter((x) => x.p < alpha !== p < alpha).map((x) => x.block),
    leaveOneOutMinP: drops.length ? Math.min(...drops.map((x) => x.p)) : NaN,
    leaveOneOutMaxP: drops.length ? Math.max(...drops.map((x) => x.p)) : NaN,
  };
}
