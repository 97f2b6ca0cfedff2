/**
 * The statistics under the Rostedt 2023 claims (src/claims/rostedt.ts makes the ledger entries):
 * the posted runs' shape, how a printed figure was rounded, Grubbs' outlier test, the bootstrap
 * checked over several seeds, the spread tests and the Welch comparison of the two sides.
 */
import { bootstrapCis, compareSamples, fTestVariances, leaveOneOut, mean, sd, tQuantile, type BootstrapResult, type Comparison, type VerdictRule } from "../stats/index.js";
import { roundTo, truncateTo } from "./numbers.js";

/** A printed statistic: its value and how many decimals the post printed. */
export interface PrintedFigure {
  value: number;
  decimals: number;
}

/** One side of Rostedt's comparison as posted. */
export interface RostedtSide {
  /** e.g. "without patch". */
  label: string;
  /** The discarded first run (tps). */
  first: number;
  /** The runs he kept (tps), in posted order (15 in the post). */
  runs: number[];
  /** The printed "Average:" and "Std Dev:". */
  reportedAverage: PrintedFigure;
  reportedStdDev: PrintedFigure;
}

/** Rostedt's two sides. */
export interface RostedtData {
  unpatched: RostedtSide;
  patched: RostedtSide;
}

/**
 * A kept run's number in the post's order: the discarded first run is run 1, so the
 * kept run at 0-based index k is run k + 2 (as the run-order timeline numbers them).
 */
export function postedRunNumber(keptIndex: number): number {
  return keptIndex + 2;
}

/**
 * The one-sided p-value in the claimed direction from a two-sided one of a symmetric test
 * (Welch's t; Mann–Whitney U with its continuity correction or the exact distribution):
 * half of it when the estimate points the claimed way, 1 − half otherwise.
 */
export function oneSidedP(twoSidedP: number, inClaimedDirection: boolean): number {
  return inClaimedDirection ? twoSidedP / 2 : 1 - twoSidedP / 2;
}

/** Options of the statistical claims (the same seed gives the same ledger). */
export interface RostedtOptions {
  seed: number;
  resamples: number;
  alpha: number;
}

/** Population SD (divisor n), to tell which definition a printed "Std Dev" used. */
export function populationSd(xs: readonly number[]): number {
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return Math.sqrt(ss / xs.length);
}

/** How a printed figure relates to the exact value: rounded, truncated, either, or neither. */
export function printedAs(exact: number, printed: PrintedFigure): "rounded" | "truncated" | "rounded or truncated" | "neither" {
  const r = roundTo(exact, printed.decimals) === roundTo(printed.value, printed.decimals);
  const t = truncateTo(exact, printed.decimals) === roundTo(printed.value, printed.decimals);
  if (r && t) return "rounded or truncated";
  if (r) return "rounded";
  if (t) return "truncated";
  return "neither";
}

/** Grubbs' test for the single most extreme value of a sample (two-sided). */
export interface GrubbsResult {
  n: number;
  /** Index of the most extreme value. */
  index: number;
  /** G = max |x − mean| / sd. */
  g: number;
  /** Critical G at alpha (two-sided): (n−1)/√n · √(t²/(n−2+t²)), t the 1−α/(2n) quantile of t(n−2). */
  critical: number;
  outlier: boolean;
}

/** Grubbs' test of the most extreme value in `xs` at level `alpha` (two-sided). */
export function grubbs(xs: readonly number[], alpha: number): GrubbsResult {
  const n = xs.length;
  if (n < 3) throw new RangeError("grubbs needs at least three values");
  const m = mean(xs);
  const s = sd(xs);
  let index = 0;
  for (let i = 1; i < n; i++) if (Math.abs(xs[i]! - m) > Math.abs(xs[index]! - m)) index = i;
  const g = Math.abs(xs[index]! - m) / s;
  const t = tQuantile(1 - alpha / (2 * n), n - 2);
  const critical = ((n - 1) / Math.sqrt(n)) * Math.sqrt((t * t) / (n - 2 + t * t));
  return { n, index, g, critical, outlier: g > critical };
}

/** 1-based rank of `x` among `xs` from the lowest (ties share the lowest rank). */
export function rankFromLowest(x: number, xs: readonly number[]): number {
  return 1 + xs.filter((y) => y < x).length;
}

/** How many bootstrap seeds (the ledger's and the next ones) decide whether an interval excludes "no effect". */
export const SEED_CHECKS = 5;

/** Whether the bootstrap interval excludes the no-effect value, re-checked with SEED_CHECKS seeds. */
export interface SeedCheckedExclusion {
  excludes: boolean | "seed-dependent";
  seedsExcluding: number;
  seedsTried: number;
}

/**
 * The seeded bootstrap re-run with seeds seed, seed+1, …, seed+SEED_CHECKS−1 (the
 * first is the comparison's own, passed in to avoid recomputing it).
 */
export function seedCheckBootstraps(a: readonly number[], b: readonly number[], o: RostedtOptions, first: BootstrapResult): BootstrapResult[] {
  const out = [first];
  for (let i = 1; i < SEED_CHECKS; i++) out.push(bootstrapCis(a, b, { seed: o.seed + i, resamples: o.resamples, alpha: o.alpha }));
  return out;
}

/**
 * Whether the bootstrap interval of `which` excludes `noEffect` for every seed (true),
 * none (false), or only some ("seed-dependent": the endpoint is at the no-effect value
 * within the Monte Carlo error of the resampling).
 */
export function bootstrapExclusion(runs: readonly BootstrapResult[], which: "meanDiffPct" | "sdRatio", noEffect: number): SeedCheckedExclusion {
  const k = runs.filter((r) => r[which].lo > noEffect || r[which].hi < noEffect).length;
  return { excludes: k === runs.length ? true : k === 0 ? false : "seed-dependent", seedsExcluding: k, seedsTried: runs.length };
}

/**
 * The analysis behind a "smaller standard deviation" claim (posted runs here, our series in
 * series.ts): the SD ratio B/A, its bootstrap interval, the F-test's leave-one-out, the two tests'
 * p values and how many bootstrap seeds exclude a ratio of 1.
 */
export function spreadAnalysis(a: readonly number[], b: readonly number[], c: Comparison, alpha: number, boots: readonly BootstrapResult[]) {
  const ratio = sd(b) / sd(a);
  const boot = c.bootstrap.sdRatio;
  const loo = leaveOneOut(a, b, fTestRule(alpha));
  const tests = [
    { name: "the F-test", p: c.fTest.p },
    { name: "Brown–Forsythe", p: c.brownForsythe.p },
  ];
  const interval = bootstrapExclusion(boots, "sdRatio", 1);
  return { ratio, boot, loo, tests, interval };
}

/** Names the tests that find the effect and those that do not: "F-test finds it, Brown–Forsythe does not". */
export function disagreementText(tests: { name: string; p: number }[], alpha: number, interval: SeedCheckedExclusion): string {
  const yes = tests.filter((t) => t.p < alpha).map((t) => t.name);
  const no = tests.filter((t) => t.p >= alpha).map((t) => t.name);
  if (interval.excludes === true) yes.push("the bootstrap interval");
  if (interval.excludes === false) no.push("the bootstrap interval");
  const seeds =
    interval.excludes === "seed-dependent"
      ? `the bootstrap interval excludes "no effect" for ${interval.seedsExcluding} of ${interval.seedsTried} seeds (its end sits at it)`
      : "";
  if (yes.length === 0) return `${no.join(" and ")} ${no.length === 1 ? "does" : "do"} not find it, but ${seeds}: the answer depends on the seed`;
  if (no.length === 0) return `${yes.join(" and ")} ${yes.length === 1 ? "finds" : "find"} it${seeds ? `, but ${seeds}` : ""}`;
  return `${yes.join(" and ")} ${yes.length === 1 ? "finds" : "find"} it, ${no.join(" and ")} ${no.length === 1 ? "does" : "do"} not${seeds ? `; ${seeds}` : ""}`;
}

/** The Rostedt comparison (unpatched = A, patched = B) as the ledger and the notebook use it. */
export function rostedtComparison(d: RostedtData, o: RostedtOptions): Comparison {
  return compareSamples(d.unpatched.runs, d.patched.runs, {
    seed: o.seed,
    resamples: o.resamples,
    alpha: o.alpha,
    labels: [d.unpatched.label, d.patched.label],
  });
}

/** The leave-one-out rule for spreads: the F-test at alpha, "B lower" when B's variance is smaller. */
export function fTestRule(alpha: number): VerdictRule {
  return (a, b) => {
    const f = fTestVariances(a, b);
    if (f.p < alpha) return { verdict: f.f < 1 ? "B lower" : "B higher", p: f.p };
    return { verdict: "no significant difference", p: f.p };
  };
}
