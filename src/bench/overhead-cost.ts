import type { SliceExtensionRecord, WorkloadTiming } from "./series.js";
import { goalVerdict, orderEffect, pairedRatio, resolutionPlan, type GoalVerdict, type OrderEffect, type ResolutionPlan } from "./overhead.js";
import { welchTTest } from "../stats/index.js";
import { UserError } from "../util/errors.js";

/**
 * The analysis of the patch-cost benchmark (the patch-cost-sequential and patch-cost studies, src/study/drivers/patch-cost.ts):
 * blocks holding one pgbench -S run of every arm (baseline build; patched build
 * with slice_extension off; patched with all), compared within blocks with the
 * paired log-ratio analysis of overhead.ts against the goal "cost ≤ 0.5%".
 */

/** The goal of issue 4: the patch costs at most this many % of tps. */
export const PATCH_GOAL_PCT = 0.5;

/** One run of the patch-cost benchmark (one line of its runs.jsonl). */
export interface CostRow extends WorkloadTiming {
  block: number;
  warmup: boolean;
  position: number;
  arm: string;
  setting: string | null;
  raw: string;
  sliceExtension: SliceExtensionRecord | null;
}

export interface CostComparison {
  arm: string;
  reference: string;
  pairs: number;
  /** exp(mean ln(tps arm / tps reference)) over the blocks, and its 95% t interval. */
  ratio: number;
  ci95: [number, number];
  /** (1 − ratio) · 100 and its interval: positive = the arm is slower. */
  costPct: number;
  costCiPct: [number, number];
  halfWidthPct: number;
  p: number;
  sdLogPerPair: number;
  /** Against the goal (arms vs baseline only; null for on vs off). */
  verdict: GoalVerdict | null;
  reason: string;
  order: OrderEffect;
  /** The half-width an unpaired (Welch) analysis of the same runs would give, in % of the reference mean. */
  unpairedHalfWidthPct: number;
  pairsNeeded: ResolutionPlan & { secondsPerBlock: number; minutesIfNoEffect80: number };
}

export interface CostAnalysis {
  goal: string;
  blocks: number;
  meanTps: Record<string, number>;
  comparisons: CostComparison[];
}

/**
 * The paired analysis of a patch-cost record: every patched arm against
 * baseline (verdict against PATCH_GOAL_PCT) and, when both are there, on against
 * off. Warm-up blocks and blocks missing an arm are left out.
 */
export function analyseCost(rows: readonly CostRow[], arms: readonly string[]): CostAnalysis {
  const measured = rows.filter((r) => !r.warmup);
  const blocks = new Map<number, Map<string, CostRow>>();
  for (const r of measured) {
    if (!blocks.has(r.block)) blocks.set(r.block, new Map());
    blocks.get(r.block)!.set(r.arm, r);
  }
  const complete = [...blocks.values()].filter((b) => arms.every((a) => b.has(a)));
  if (complete.length < 2) throw new UserError(`patch cost: expected at least 2 complete measured blocks of ${arms.join(",")}, found ${complete.length}`);
  // Wall time of a block: first run's start to last run's end (includes switching and settling).
  const span = (b: Map<string, CostRow>) => {
    const rs = [...b.values()];
    return (Math.max(...rs.map((r) => Date.parse(r.ended))) - Math.min(...rs.map((r) => Date.parse(r.started)))) / 1000;
  };
  const secondsPerBlock = complete.reduce((s, b) => s + span(b), 0) / complete.length;
  const compare = (arm: string, reference: string, goal: boolean): CostComparison => {
    const pairs = complete.map((b) => ({ a: b.get(reference)!.tps, b: b.get(arm)!.tps }));
    const first = complete.map((b) => b.get(arm)!.position < b.get(reference)!.position);
    const r = pairedRatio(pairs, 0.05, `${arm}/${reference} tps`);
    const plan = resolutionPlan(r, 1 - PATCH_GOAL_PCT / 100);
    const w = welchTTest(pairs.map((p) => p.a), pairs.map((p) => p.b));
    return {
      arm,
      reference,
      pairs: r.n,
      ratio: r.ratio,
      ci95: r.ci,
      costPct: (1 - r.ratio) * 100,
      costCiPct: [(1 - r.ci[1]) * 100, (1 - r.ci[0]) * 100],
      halfWidthPct: r.halfWidthPct,
      p: r.p,
      sdLogPerPair: r.sdLog,
      ...(goal ? goalVerdict(r.ci, 1 - PATCH_GOAL_PCT / 100, "higher") : { verdict: null, reason: "no goal: informative comparison" }),
      order: orderEffect(pairs, first),
      unpairedHalfWidthPct: (w.ciPct[1] - w.ciPct[0]) / 2,
      pairsNeeded: { ...plan, secondsPerBlock, minutesIfNoEffect80: (plan.pairsIfNoEffect80 * secondsPerBlock) / 60 },
    };
  };
  const comparisons = arms.filter((a) => a !== "baseline").map((a) => compare(a, "baseline", true));
  if (arms.includes("on") && arms.includes("off")) comparisons.push(compare("on", "off", false));
  return {
    goal: `patched tps ≥ ${1 - PATCH_GOAL_PCT / 100} × baseline tps (cost ≤ ${PATCH_GOAL_PCT}%)`,
    blocks: complete.length,
    meanTps: Object.fromEntries(arms.map((a) => [a, complete.reduce((s, b) => s + b.get(a)!.tps, 0) / complete.length])),
    comparisons,
  };
}

