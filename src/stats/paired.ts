import { mean, median, sd } from "./summary.js";
import { tQuantile, tTwoSidedP } from "./distributions.js";

/**
 * The paired analysis every experiment uses: the mean of per-pair (per-block) differences with its
 * two-sided Student t interval, mean ± t(1 − alpha/2, n − 1) · sd/√n. Ratios use it on ln(B/A)
 * (src/bench/overhead.ts pairedRatio); the patch-cost micro and CPU designs on differences in ns
 * and in %; the series' randomised blocks (src/bench/analysis.ts analyzeSeries, the claims'
 * src/claims/series-paired.ts) on tps differences. Its power and minimum detectable effect are
 * pairedPower and pairedMinimumDetectableEffectPct in src/stats/power.ts.
 */
export interface PairedMean {
  n: number;
  mean: number;
  median: number;
  /** Sample SD of the differences (divisor n − 1). */
  sd: number;
  ci: [number, number];
  /** Half the interval's width, t(1 − alpha/2, n − 1) · se. */
  halfWidth: number;
  /** Standard error of the mean difference, sd/√n. */
  se: number;
  /** Degrees of freedom, n − 1. */
  df: number;
  /** t statistic of "mean difference = 0" (±Infinity when every difference is the same non-zero value). */
  t: number;
  /** Two-sided p of the paired t-test (1 when every difference is 0, 0 when they are all one other value). */
  p: number;
}

export function pairedMean(d: readonly number[], alpha = 0.05): PairedMean {
  const n = d.length;
  const m = mean(d);
  const s = sd(d);
  const se = s / Math.sqrt(n);
  const h = tQuantile(1 - alpha / 2, n - 1) * se;
  const t = se === 0 ? (m === 0 ? 0 : Math.sign(m) * Infinity) : m / se;
  const p = se === 0 ? (m === 0 ? 1 : 0) : tTwoSidedP(t, n - 1);
  return { n, mean: m, median: median(d), sd: s, ci: [m - h, m + h], halfWidth: h, se, df: n - 1, t, p };
}
