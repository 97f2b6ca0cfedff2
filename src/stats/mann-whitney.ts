import { normalSf } from "./distributions.js";

/** Mann–Whitney U test, two-sided, as scipy.stats.mannwhitneyu(a, b) does by default. */
export interface MannWhitneyResult {
  /** U of sample A: pairs (a, b) with a > b, ties counting ½ (scipy's `statistic` for x = A). */
  u: number;
  /** U of sample B = nA·nB − u. */
  uB: number;
  /** Two-sided p-value. */
  p: number;
  /**
   * "exact": the exact null distribution of U (used when one sample has at most 8
   * values and there are no ties); "asymptotic": normal approximation with tie
   * and continuity correction.
   */
  method: "exact" | "asymptotic";
  /** Standardised statistic of the asymptotic method; null for the exact method. */
  z: number | null;
}

/** Average ranks (1-based) of the values, ties sharing the mean of their ranks, plus Σ(t³ − t) over tie groups. */
export function rankWithTies(xs: readonly number[]): { ranks: number[]; tieTerm: number } {
  const order = xs.map((x, i) => i).sort((i, j) => xs[i]! - xs[j]!);
  const ranks = new Array<number>(xs.length);
  let tieTerm = 0;
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && xs[order[j + 1]!] === xs[order[i]!]) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]!] = r;
    const t = j - i + 1;
    tieTerm += t * t * t - t;
    i = j + 1;
  }
  return { ranks, tieTerm };
}

/**
 * Number of arrangements of m values of one sample and n of the other whose U
 * equals u, for u = 0 … m·n (no ties). These are the coefficients of the Gaussian
 * binomial [m+n choose m]_q = ∏_{k=1..m} (1 − q^(n+k)) / (1 − q^k); exact in BigInt.
 */
export function uCounts(m: number, n: number): bigint[] {
  if (m > n) return uCounts(n, m);
  const size = m * n + 1;
  const c = new Array<bigint>(size).fill(0n);
  c[0] = 1n;
  let deg = 0;
  for (let k = 1; k <= m; k++) {
    const up = n + k;
    // multiply by (1 − q^up)
    for (let i = Math.min(deg + up, size - 1); i >= up; i--) c[i] = c[i]! - c[i - up]!;
    deg += up;
    // divide by (1 − q^k): c[i] += c[i − k] in increasing i
    for (let i = k; i < size; i++) c[i] = c[i]! + c[i - k]!;
    deg -= k;
  }
  return c;
}

/** P(U ≥ u) under the null hypothesis, exact (no ties), sizes m and n. */
export function uExactSf(u: number, m: number, n: number): number {
  const c = uCounts(m, n);
  let total = 0n;
  let upper = 0n;
  const from = Math.ceil(u);
  for (let i = 0; i < c.length; i++) {
    total += c[i]!;
    if (i >= from) upper += c[i]!;
  }
  return Number(upper) / Number(total);
}

/**
 * Two-sided Mann–Whitney U test following scipy.stats.mannwhitneyu's defaults
 * (scipy 1.10: method "auto", use_continuity=True): exact when either sample has
 * at most 8 values and there are no ties, otherwise the normal approximation
 * with tie correction and continuity correction. The p-value uses
 * U = max(U_A, U_B), doubled and clipped at 1.
 */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): MannWhitneyResult {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) throw new RangeError("mannWhitneyU needs at least one value in each sample");
  const { ranks, tieTerm } = rankWithTies([...a, ...b]);
  let r1 = 0;
  for (let i = 0; i < n1; i++) r1 += ranks[i]!;
  const u1 = r1 - (n1 * (n1 + 1)) / 2;
  const u2 = n1 * n2 - u1;
  const u = Math.max(u1, u2);
  const method: "exact" | "asymptotic" = (n1 > 8 && n2 > 8) || tieTerm > 0 ? "asymptotic" : "exact";
  let p: number;
  let z: number | null = null;
  if (method === "exact") {
    p = 2 * uExactSf(u, n1, n2);
  } else {
    const n = n1 + n2;
    const s = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
    z = (u - (n1 * n2) / 2 - 0.5) / s;
    p = 2 * normalSf(z);
  }
  return { u: u1, uB: u2, p: Math.min(1, Math.max(0, p)), method, z };
}
