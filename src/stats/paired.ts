import { mean, median, sd } from "./summary.js";
import { tQuantile } from "./distributions.js";

/**
 * The paired analysis every experiment uses: the mean of per-pair (per-block) differences with its
 * two-sided Student t interval, mean ± t(1 − alpha/2, n − 1) · sd/√n. Ratios use it on ln(B/A)
 * (src/bench/overhead.ts pairedRatio); the patch-cost micro and CPU designs on differences in ns
 * and in %.
 */
export interface PairedMean {
  n: number;
  mean: number;
  median: number;
  /** Sample SD of the differences (divisor n − 1). */
  sd: number;
  ci: [number, number];
}

export function pairedMean(d: readonly number[], alpha = 0.05): PairedMean {
  const n = d.length;
  const m = mean(d);
  const s = sd(d);
  const h = tQuantile(1 - alpha / 2, n - 1) * (s / Math.sqrt(n));
  return { n, mean: m, median: median(d), sd: s, ci: [m - h, m + h] };
}
