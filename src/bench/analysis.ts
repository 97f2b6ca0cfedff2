import {
  compareSamples,
  formatP,
  mean,
  pairedMean,
  pairedMinimumDetectableEffectPct,
  pearson,
  summary,
  type Comparison,
  type Summary,
  type Verdict,
} from "../stats/index.js";
import { UserError } from "../util/errors.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Design } from "./design.js";
import { seriesRows, type SeriesRow } from "./series.js";

/**
 * The analysis of a two-variant series, three ways on the same runs:
 *  - blocks: the design's own analysis. Each block holds one run of A and one of B
 *    run back to back, so the within-block difference B − A cancels whatever the
 *    machine did at that time; the CI is a paired t interval over blocks.
 *  - unpaired: the analysis of a sequential design (two independent samples,
 *    Welch), applied to the same runs: it ignores the pairing.
 *  - timeSplit: what a sequential design would have seen on this machine if nothing
 *    differed: the first half of the runs (in time) against the second half,
 *    whatever their labels. In an A/A series any difference here is drift.
 * Differences are in % of variant A's mean. In a sequential series the "blocks" pair
 * the i-th run of A with the i-th run of B, which ran far apart in time: there the
 * paired interval is not the design's analysis, the unpaired one is.
 */
export interface IntervalPct {
  n: number;
  meanDiffPct: number;
  ciPct: [number, number];
  halfWidthPct: number;
  df: number;
  p: number;
}

export interface SeriesAnalysis {
  dir: string;
  workload: string;
  /** The series' design (series.json). */
  design: Design;
  labels: { a: string; b: string };
  warmupExcluded: number;
  a: Summary;
  b: Summary;
  /**
   * The paired analysis over blocks; `minimumDetectableEffectPct` is the smallest true difference (% of
   * mean A) the paired t-test detects with 80% power at level alpha with these blocks.
   */
  blocks: IntervalPct & { correlation: number; sdDiffPct: number; minimumDetectableEffectPct: number };
  unpaired: IntervalPct;
  timeSplit: IntervalPct & { firstRuns: [number, number]; secondRuns: [number, number] };
  /** unpaired half-width / blocks half-width: > 1 when blocking narrowed the interval. */
  halfWidthRatio: number;
  comparison: Comparison;
  /** The headline verdict, from the design's own analysis (see designVerdict). */
  verdict: DesignVerdict;
}

export interface DesignVerdict {
  /** "blocks (paired)" for a block design, "unpaired (Welch)" for a sequential one. */
  analysis: "blocks (paired)" | "unpaired (Welch)";
  verdict: Verdict;
  reason: string;
}

const sig = (x: number, digits = 3, signed = false): string => {
  if (!Number.isFinite(x)) return String(x);
  const t = Number(x.toPrecision(digits)).toString();
  return signed && x > 0 ? `+${t}` : t;
};

/**
 * The verdict of a series by the analysis its design calls for: the paired t over blocks for a
 * block design (each block's two runs shared the machine's state), Welch's unpaired test for a
 * sequential one. The reason names the analysis, p, the CI and, when nothing is significant, the
 * smallest difference that analysis detects with 80% power.
 */
export function designVerdict(
  design: Design,
  labels: { a: string; b: string },
  blocks: SeriesAnalysis["blocks"],
  comparison: Comparison,
  alpha: number,
): DesignVerdict {
  if (design !== "blocks") return { analysis: "unpaired (Welch)", verdict: comparison.verdict, reason: comparison.reason };
  const verdict: Verdict = blocks.p < alpha ? (blocks.meanDiffPct > 0 ? "B higher" : "B lower") : "no significant difference";
  const ci = `${sig(100 * (1 - alpha))}% CI ${sig(blocks.ciPct[0], 3, true)}% to ${sig(blocks.ciPct[1], 3, true)}%`;
  const head = `paired t over ${blocks.n} blocks p = ${formatP(blocks.p)} ${blocks.p < alpha ? "<" : "≥"} ${alpha}: ${labels.b} − ${labels.a} = ${sig(blocks.meanDiffPct, 3, true)}% (${ci})`;
  const reason =
    verdict === "no significant difference"
      ? `${head}, below the ${sig(blocks.minimumDetectableEffectPct)}% that ${blocks.n} blocks detect with 80% power`
      : head;
  return { analysis: "blocks (paired)", verdict, reason };
}

function welchPct(c: Comparison): IntervalPct {
  const w = c.welch;
  return { n: c.a.n + c.b.n, meanDiffPct: w.differencePct, ciPct: w.ciPct, halfWidthPct: (w.ciPct[1] - w.ciPct[0]) / 2, df: w.df, p: w.p };
}

/** Analyses the tps of one workload of a two-variant series directory. */
export function analyzeSeries(
  dir: string,
  opts: { a?: string; b?: string; workload?: string; includeWarmup?: boolean; alpha?: number } = {},
): SeriesAnalysis {
  const all = seriesRows(dir);
  const workloads = [...new Set(all.map((r) => r.workload))];
  const workload = opts.workload ?? workloads[0];
  if (workload === undefined || !workloads.includes(workload)) {
    throw new UserError(`${dir}: expected a workload among ${workloads.join(", ") || "(no finished runs)"}, found ${String(opts.workload)}`);
  }
  const rowsAll = all.filter((r) => r.workload === workload);
  const rows = rowsAll.filter((r) => opts.includeWarmup || !r.warmup);
  const variants = [...new Set(rowsAll.map((r) => r.variant))];
  const a = opts.a ?? variants[0];
  const b = opts.b ?? variants[1];
  if (a === undefined || b === undefined || !variants.includes(a) || !variants.includes(b) || a === b) {
    throw new UserError(`${dir}: expected two variants among ${variants.join(", ")}, found ${String(a)} and ${String(b)}`);
  }
  const alpha = opts.alpha ?? 0.05;
  const byBlock = new Map<number, { a?: SeriesRow; b?: SeriesRow }>();
  for (const r of rows) {
    const e = byBlock.get(r.block) ?? {};
    if (r.variant === a) e.a = r;
    if (r.variant === b) e.b = r;
    byBlock.set(r.block, e);
  }
  const pairs = [...byBlock.values()].filter((e) => e.a && e.b) as { a: SeriesRow; b: SeriesRow }[];
  const A = rows.filter((r) => r.variant === a).map((r) => r.tps);
  const B = rows.filter((r) => r.variant === b).map((r) => r.tps);
  if (pairs.length < 2 || A.length < 2 || B.length < 2) throw new UserError(`${dir}: expected at least 2 complete blocks of ${a} and ${b}, found ${pairs.length}`);
  const meanA = mean(A);
  const d = pairs.map((p) => p.b.tps - p.a.tps);
  const n = d.length;
  const pm = pairedMean(d, alpha);
  const pct = (x: number) => (x / meanA) * 100;
  const blocks = {
    n,
    meanDiffPct: pct(pm.mean),
    ciPct: [pct(pm.ci[0]), pct(pm.ci[1])] as [number, number],
    halfWidthPct: pct(pm.halfWidth),
    df: pm.df,
    p: pm.p,
    correlation: pearson(pairs.map((p) => p.a.tps), pairs.map((p) => p.b.tps)),
    sdDiffPct: pct(pm.sd),
    minimumDetectableEffectPct: pairedMinimumDetectableEffectPct(pm.sd, n, meanA, alpha),
  };
  const comparison = compareSamples(A, B, { labels: [a, b], alpha });
  const unpaired = welchPct(comparison);
  const ordered = rows.filter((r) => r.variant === a || r.variant === b).sort((x, y) => x.run - y.run);
  const half = Math.floor(ordered.length / 2);
  const first = ordered.slice(0, half);
  const second = ordered.slice(ordered.length - half);
  const ts = compareSamples(first.map((r) => r.tps), second.map((r) => r.tps), { labels: ["first half", "second half"], alpha, resamples: 1000 });
  const design = (JSON.parse(readFileSync(join(dir, "series.json"), "utf8")) as { design: Design }).design;
  return {
    dir,
    workload,
    design,
    labels: { a, b },
    warmupExcluded: rowsAll.length - rows.length,
    a: summary(A),
    b: summary(B),
    blocks,
    unpaired,
    timeSplit: {
      ...welchPct(ts),
      firstRuns: [first[0]?.run ?? 0, first[first.length - 1]?.run ?? 0],
      secondRuns: [second[0]?.run ?? 0, second[second.length - 1]?.run ?? 0],
    },
    halfWidthRatio: unpaired.halfWidthPct / blocks.halfWidthPct,
    comparison,
    verdict: designVerdict(design, { a, b }, blocks, comparison, alpha),
  };
}
