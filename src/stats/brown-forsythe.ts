import { mean, median } from "./summary.js";
import { fSf } from "./distributions.js";

/** Brown–Forsythe test of equal spread (Levene's test centred on the medians). */
export interface BrownForsytheResult {
  /** Levene's W computed on |x − median of its group|. */
  w: number;
  /** Degrees of freedom of the F reference distribution: k − 1 and N − k. */
  dfNum: number;
  dfDen: number;
  /** P(F ≥ W). */
  p: number;
}

/**
 * Brown–Forsythe test for two samples (the statistic of
 * scipy.stats.levene(a, b, center="median")): a one-way ANOVA on the absolute
 * deviations from each sample's median.
 */
export function brownForsythe(a: readonly number[], b: readonly number[]): BrownForsytheResult {
  const groups = [a, b];
  for (const g of groups) if (g.length < 2) throw new RangeError("brownForsythe needs at least two values in each sample");
  const z = groups.map((g) => {
    const m = median(g);
    return g.map((x) => Math.abs(x - m));
  });
  const k = groups.length;
  const total = z.reduce((s, g) => s + g.length, 0);
  const groupMeans = z.map((g) => mean(g));
  const grand = mean(z.flat());
  let between = 0;
  let within = 0;
  z.forEach((g, i) => {
    const gm = groupMeans[i]!;
    between += g.length * (gm - grand) ** 2;
    for (const v of g) within += (v - gm) ** 2;
  });
  const dfNum = k - 1;
  const dfDen = total - k;
  const w = (dfDen / dfNum) * (between / within);
  return { w, dfNum, dfDen, p: Number.isNaN(w) ? NaN : fSf(w, dfNum, dfDen) };
}
