import { createRng, mean, pairedMean, sd, tQuantile, welchTTest } from "../stats/index.js";
import { UserError } from "../util/errors.js";
import { shuffledBlocks } from "../stats/prng.js";

/**
 * The analysis of paired A/B measurements whose goal is a ratio: the harness
 * overhead (tps under the kit / tps by hand ≥ 0.99) and the patch's cost
 * (tps patched / tps unpatched ≥ 0.995, i.e. cost ≤ 0.5%).
 *
 * Each pair (or block) holds one run of the reference arm A and one of the
 * tested arm B, run back to back on the same server, so their ratio cancels
 * what the machine did at that moment. The analysis works on the logarithm of
 * the per-pair ratios: d_i = ln(B_i / A_i). Their mean and a Student t interval
 * give the ratio exp(mean d) (the geometric mean of the per-pair ratios) and its
 * confidence interval exp(mean d ± t·sd/√n), which is symmetric for B/A and
 * A/B (a ratio of arithmetic means is not).
 */

export interface RatioPair {
  /** The reference arm's figure (by hand; unpatched). */
  a: number;
  /** The tested arm's figure (under the kit; patched). */
  b: number;
}

export interface PairedRatio {
  n: number;
  /** exp(mean ln(b/a)): the geometric mean of the per-pair ratios. */
  ratio: number;
  /** Two-sided (1 − alpha) confidence interval of the ratio. */
  ci: [number, number];
  confidence: number;
  /** Half the interval's width in % (of ratio 1): (ci[1] − ci[0]) / 2 · 100. */
  halfWidthPct: number;
  meanLog: number;
  /** Sample SD of ln(b/a) over the pairs (≈ the per-pair relative spread). */
  sdLog: number;
  seLog: number;
  df: number;
  /** t statistic and two-sided p of "ratio = 1". */
  t: number;
  p: number;
  /** mean(b) / mean(a), for comparison with earlier reports (no interval). */
  ratioOfMeans: number;
  /** b/a per pair, in input order. */
  perPair: number[];
}

function checkPairs(pairs: readonly RatioPair[], what: string): void {
  if (pairs.length < 2) throw new UserError(`${what}: expected at least 2 pairs, found ${pairs.length}`);
  for (const [i, p] of pairs.entries()) {
    for (const v of [p.a, p.b]) {
      if (!(Number.isFinite(v) && v > 0)) throw new UserError(`${what}: pair ${i + 1}: expected positive finite figures, found a=${p.a}, b=${p.b}`);
    }
  }
}

/** The paired analysis of B/A on the log scale (see the module comment). */
export function pairedRatio(pairs: readonly RatioPair[], alpha = 0.05, what = "paired ratio"): PairedRatio {
  checkPairs(pairs, what);
  const n = pairs.length;
  const d = pairs.map((p) => Math.log(p.b / p.a));
  const pm = pairedMean(d, alpha);
  const m = pm.mean;
  const s = pm.sd;
  const { se, df, t, p } = pm;
  const ci: [number, number] = [Math.exp(pm.ci[0]), Math.exp(pm.ci[1])];
  return {
    n,
    ratio: Math.exp(m),
    ci,
    confidence: 1 - alpha,
    halfWidthPct: ((ci[1] - ci[0]) / 2) * 100,
    meanLog: m,
    sdLog: s,
    seLog: se,
    df,
    t,
    p,
    ratioOfMeans: mean(pairs.map((p) => p.b)) / mean(pairs.map((p) => p.a)),
    perPair: pairs.map((p) => p.b / p.a),
  };
}

export type GoalVerdict = "PASS" | "FAIL" | "UNRESOLVED";

/**
 * A goal checked against a confidence interval, honestly: PASS only when the
 * whole interval meets the goal, FAIL only when none of it does, UNRESOLVED
 * when the interval straddles the goal (more pairs or a quieter machine needed).
 *   better = "higher": the goal is value ≥ goal (a tps ratio);
 *   better = "lower":  the goal is value < goal (a CPU share).
 */
export function goalVerdict(ci: readonly [number, number], goal: number, better: "higher" | "lower"): { verdict: GoalVerdict; reason: string } {
  const [lo, hi] = ci;
  if (!(Number.isFinite(lo) && Number.isFinite(hi))) return { verdict: "UNRESOLVED", reason: "no finite interval" };
  const f = (x: number) => Number(x.toPrecision(5));
  if (better === "higher") {
    if (lo >= goal) return { verdict: "PASS", reason: `the whole interval [${f(lo)}, ${f(hi)}] is ≥ ${goal}` };
    if (hi < goal) return { verdict: "FAIL", reason: `the whole interval [${f(lo)}, ${f(hi)}] is below ${goal}` };
    return { verdict: "UNRESOLVED", reason: `the interval [${f(lo)}, ${f(hi)}] contains ${goal}` };
  }
  if (hi < goal) return { verdict: "PASS", reason: `the whole interval [${f(lo)}, ${f(hi)}] is below ${goal}` };
  if (lo >= goal) return { verdict: "FAIL", reason: `the whole interval [${f(lo)}, ${f(hi)}] is ≥ ${goal}` };
  return { verdict: "UNRESOLVED", reason: `the interval [${f(lo)}, ${f(hi)}] contains ${goal}` };
}

/** Largest number of pairs pairsNeeded searches (beyond it: Infinity). */
export const MAX_PAIRS = 1_000_000;

/**
 * The concurrent design's interval with the kit's CPU charged to the kit. Concurrent arms share the
 * CPUs, so whatever CPU the kit takes slows the by-hand pgbench as much as its own and the ratio
 * cannot see it: a pgbench run under the kit gets at most (1 − the kit's largest per-run share of
 * one core) of the CPU it would otherwise have, so the lower end is multiplied by that factor (the
 * upper end stays: the true cost may be nil). The verdict is goalVerdict's on that interval.
 */
export function chargeKitCpu(ci: readonly [number, number], maxKitCpuPct: number, goal: number): { verdict: GoalVerdict; reason: string; ci95: [number, number]; factor: number } {
  const factor = 1 - maxKitCpuPct / 100;
  const ci95: [number, number] = [ci[0] * factor, ci[1]];
  return { ...goalVerdict(ci95, goal, "higher"), ci95, factor };
}

/**
 * Pairs needed so that a paired t interval at level alpha, with per-pair SD
 * `sdLog` (of ln ratios), excludes a goal `marginLog` away from the true mean
 * with probability `power`: the smallest n ≥ 2 with
 *   (t(1 − alpha/2, n−1) + t(power, n−1)) · sdLog / √n ≤ marginLog.
 * power = 0.5 (t quantile 0) asks only that the interval's half-width fit in the
 * margin, i.e. that a repeat with the same estimate would resolve the goal.
 */
export function pairsNeeded(sdLog: number, marginLog: number, alpha = 0.05, power = 0.5): number {
  if (!(marginLog > 0)) return Infinity;
  if (sdLog === 0) return 2;
  if (!(sdLog > 0)) return Infinity;
  const fits = (n: number) => (tQuantile(1 - alpha / 2, n - 1) + tQuantile(power, n - 1)) * (sdLog / Math.sqrt(n)) <= marginLog;
  if (fits(2)) return 2;
  let lo = 2; // does not fit
  let hi = 4;
  while (!fits(hi)) {
    lo = hi;
    if (hi >= MAX_PAIRS) return Infinity;
    hi = Math.min(hi * 2, MAX_PAIRS);
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

export interface ResolutionPlan {
  /** Pairs whose interval half-width fits between the estimate and the goal (Infinity when the estimate is at the goal). */
  pairsAtEstimate: number;
  /** Pairs for 80% power to show the goal is met if the true ratio were exactly 1. */
  pairsIfNoEffect80: number;
}

/** How many pairs the observed spread needs to resolve a ratio goal ("ratio ≥ goal"). */
export function resolutionPlan(r: PairedRatio, goalRatio: number, alpha = 0.05): ResolutionPlan {
  return {
    pairsAtEstimate: pairsNeeded(r.sdLog, Math.abs(r.meanLog - Math.log(goalRatio)), alpha, 0.5),
    pairsIfNoEffect80: pairsNeeded(r.sdLog, -Math.log(goalRatio), alpha, 0.8),
  };
}

/**
 * Williams' design for k arms: sequences in which every arm runs in every
 * position equally often and follows every other arm equally often (k
 * sequences for even k, 2k for odd k). For two arms: AB, BA (ABBA …).
 */
export function williamsSequences(k: number): number[][] {
  if (!(Number.isInteger(k) && k >= 1)) throw new UserError(`arms: expected a positive whole number, found ${k}`);
  const first: number[] = [0];
  for (let j = 1, lo = 1, hi = k - 1; first.length < k; j++) first.push(j % 2 === 1 ? lo++ : hi--);
  const rows = Array.from({ length: k }, (_, i) => first.map((x) => (x + i) % k));
  return k % 2 === 0 ? rows : [...rows, ...rows.map((r) => [...r].reverse())];
}

export type OrderDesign = "balanced" | "random";

/**
 * The order of the arms in every block: "balanced" cycles through Williams'
 * sequences (two arms: AB, BA, AB, BA … = ABBA); "random" shuffles every block
 * with a seeded generator (xoshiro128**).
 */
export function blockOrders(arms: readonly string[], blocks: number, design: OrderDesign, seed = 1): string[][] {
  if (arms.length < 2) throw new UserError(`arms: expected at least 2, found ${arms.length}`);
  if (new Set(arms).size !== arms.length) throw new UserError(`arms: expected distinct names, found ${arms.join(",")}`);
  if (design === "balanced") {
    const seqs = williamsSequences(arms.length);
    return Array.from({ length: blocks }, (_, b) => seqs[b % seqs.length]!.map((i) => arms[i]!));
  }
  return [...shuffledBlocks(arms, blocks, createRng(seed))];
}

/** Pairs needed to complete the balanced design's cycle (2 arms: 2; 3 arms: 6). */
export function balancedCycle(arms: number): number {
  return williamsSequences(arms).length;
}

export interface OrderEffect {
  /** Pairs where B ran before A: n and ratio exp(mean ln(b/a)). */
  bFirst: { n: number; ratio: number };
  aFirst: { n: number; ratio: number };
  /** ratio(B first) / ratio(A first) − 1, in %; twice the advantage of running first (or second). */
  differencePct: number;
  /** Welch's two-sided p for "no order effect" (NaN with fewer than 2 pairs on a side). */
  p: number;
}

/**
 * Whether running first in a pair matters: the ln ratios of the pairs where B
 * ran first against those where A ran first. A balanced order cancels such an
 * effect in the overall ratio; a large one still widens the interval.
 */
export function orderEffect(pairs: readonly RatioPair[], bFirst: readonly boolean[]): OrderEffect {
  if (pairs.length !== bFirst.length) throw new UserError(`order: expected one flag per pair (${pairs.length}), found ${bFirst.length}`);
  checkPairs(pairs, "order effect");
  const d = pairs.map((p) => Math.log(p.b / p.a));
  const bf = d.filter((_, i) => bFirst[i]);
  const af = d.filter((_, i) => !bFirst[i]);
  const side = (xs: number[]) => ({ n: xs.length, ratio: xs.length ? Math.exp(mean(xs)) : NaN });
  const p = bf.length >= 2 && af.length >= 2 ? welchTTest(af, bf).p : NaN;
  return { bFirst: side(bf), aFirst: side(af), differencePct: (Math.exp(mean(bf) - mean(af)) - 1) * 100, p };
}

export interface CpuShare {
  n: number;
  /** Mean, max and two-sided 95% t interval of the mean of the per-run shares (% of one core). */
  meanPct: number;
  maxPct: number;
  ci: [number, number];
}

/** Per-run CPU shares (% of one core) summarised for the goal "< 1% of one core". */
export function cpuShare(pcts: readonly number[], alpha = 0.05): CpuShare {
  if (pcts.length === 0) throw new UserError("CPU share: expected at least one run, found none");
  const m = mean(pcts);
  const h = pcts.length > 1 ? tQuantile(1 - alpha / 2, pcts.length - 1) * (sd(pcts) / Math.sqrt(pcts.length)) : Infinity;
  return { n: pcts.length, meanPct: m, maxPct: Math.max(...pcts), ci: [m - h, m + h] };
}

/**
 * The CPU goal is stated per pgbench run: PASS when every run stayed below it,
 * FAIL when the interval of the mean lies at or above it, UNRESOLVED otherwise.
 */
export function cpuVerdict(c: CpuShare, goalPct: number): { verdict: GoalVerdict; reason: string } {
  if (c.maxPct < goalPct) return { verdict: "PASS", reason: `every one of ${c.n} runs below ${goalPct}% (max ${c.maxPct.toPrecision(3)}%)` };
  if (c.ci[0] >= goalPct) return { verdict: "FAIL", reason: `the interval of the mean [${c.ci[0].toPrecision(3)}, ${c.ci[1].toPrecision(3)}]% is ≥ ${goalPct}%` };
  return { verdict: "UNRESOLVED", reason: `the max ${c.maxPct.toPrecision(3)}% is ≥ ${goalPct}% but the mean's interval [${c.ci[0].toPrecision(3)}, ${c.ci[1].toPrecision(3)}]% is not` };
}

/** A UTC timestamp for directory names: 20261130T040512Z (the kit's one stamp, src/record/format.ts). */
