/**
 * What notebook 05 shows of the A/A series, moved out of its cells (issue 28 item 12): the series'
 * views, the tables for the runs and the timelines, the rows of its comparison tables and the
 * sentences it prints. Every sentence's words are chosen here, by rules the tests exercise; the
 * notebook only renders. The analyses themselves are analyzeSeries (src/bench/analysis.ts) and
 * src/analysis/aa-series.ts.
 */
import { readFileSync } from "node:fs";
import * as aq from "arquero";
import { analyzeSeries, type SeriesAnalysis } from "../bench/analysis.js";
import { seriesRows, type SeriesRow } from "../bench/series.js";
import type { Comparison } from "../stats/index.js";
import { finished, pearson, fmtRuns, type Mde, type SeriesView } from "./aa-series.js";

/** B − A in % of mean A, whichever variant the randomised plan ran first. */
export const AB = { a: "A", b: "B" } as const;

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

/** A series directory as notebook 05 reads it: plan, provenance, rows and the A/A analysis. */
export function seriesView(dir: string): SeriesView {
  return { plan: readJson(`${dir}/series.json`) as SeriesView["plan"], prov: readJson(`${dir}/provenance.json`) as SeriesView["prov"], rows: seriesRows(dir), analysis: analyzeSeries(dir, AB) };
}

/** "+1.23%" / "−0.50%" style (ASCII minus as the kit's tables print it). */
export const pct = (x: number, digits = 2): string => `${x >= 0 ? "+" : ""}${x.toFixed(digits)}%`;

/** The measured runs (warm-up dropped) as tpsRunsPlot's table: side, run (block), tps. */
export const measuredTable = (rows: SeriesRow[]) => aq.from(rows.filter((x) => !x.warmup).map((x) => ({ side: x.variant, run: x.block, tps: x.tps })));

/** Every run in series order as runTimelinePlot's table; the warm-up is drawn hollow. */
export const timelineTable = (rows: SeriesRow[]) => aq.from(rows.map((x) => ({ side: x.variant, run: x.run, tps: x.tps, included: !x.warmup })));

/** The load before and after each run, as runTimelinePlot's table (value column "load"). */
export const loadTimelineTable = (rows: SeriesRow[]) =>
  aq.from(rows.flatMap((r) => [
    { side: "before the run", run: r.run, load: r.load1Before, included: !r.warmup },
    { side: "after the run", run: r.run, load: r.load1After, included: !r.warmup },
  ]));

/** tps of the measured runs of one variant. */
export const measuredTps = (rows: SeriesRow[], variant: string): number[] => rows.filter((x) => !x.warmup && x.variant === variant).map((x) => x.tps);

/** A row of "The same tests": runs, CV, Welch difference, CI and p, Mann–Whitney p, bootstrap CI, verdict. */
export function testsRow(name: string, c: Comparison): string[] {
  return [
    name, `${c.a.n} + ${c.b.n}`, `${(c.a.cv * 100).toFixed(2)}% / ${(c.b.cv * 100).toFixed(2)}%`, pct(c.welch.differencePct),
    `[${pct(c.welch.ciPct[0])}, ${pct(c.welch.ciPct[1])}]`, c.welch.p.toFixed(3), c.mannWhitney.p.toFixed(3),
    `[${pct(c.bootstrap.meanDiffPct.lo)}, ${pct(c.bootstrap.meanDiffPct.hi)}]`, c.verdict,
  ];
}

type IntervalLine = { n: number; meanDiffPct: number; ciPct: [number, number]; halfWidthPct: number; p: number };
const line = (name: string, x: IntervalLine) => [name, pct(x.meanDiffPct), `[${pct(x.ciPct[0])}, ${pct(x.ciPct[1])}]`, `±${x.halfWidthPct.toFixed(2)}%`, x.p.toFixed(3)];

/** The three analyses of the same runs: paired over blocks, unpaired, first half against second half in time. */
export function threeWays(label: string, s: SeriesAnalysis): string[][] {
  return [
    line(`${label} — blocks: paired over ${s.blocks.n} blocks`, s.blocks),
    line(`${label} — unpaired (what a sequential design computes)`, s.unpaired),
    line(`${label} — time split: runs ${s.timeSplit.firstRuns.join("–")} against ${s.timeSplit.secondRuns.join("–")}`, s.timeSplit),
  ];
}

/** A row of the run-length table. */
export function floorRow(name: string, s: SeriesAnalysis, durationS: number): string[] {
  return [name, `${durationS} s`, `${s.a.mean.toFixed(0)} / ${s.b.mean.toFixed(0)}`, `${(s.a.cv * 100).toFixed(2)}% / ${(s.b.cv * 100).toFixed(2)}%`,
    `${s.blocks.sdDiffPct.toFixed(2)}%`, `±${s.blocks.halfWidthPct.toFixed(2)}%`, `±${s.unpaired.halfWidthPct.toFixed(2)}%`, s.blocks.correlation.toFixed(2)];
}

/** "MIN–MAX" of the load before and after the runs of a series. */
export const loadRange = (rows: SeriesRow[]): string => `${Math.min(...rows.map((x) => x.load1Before))}–${Math.max(...rows.map((x) => x.load1After))}`;

/** A row of the design table: the design's own analysis (paired for blocks, unpaired for sequential). */
export function designRow(name: string, design: string, s: SeriesAnalysis, rows: SeriesRow[], which: "blocks" | "unpaired"): string[] {
  const x = s[which];
  return [name, design, s.a.mean.toFixed(0), pct(x.meanDiffPct), `[${pct(x.ciPct[0])}, ${pct(x.ciPct[1])}]`, `±${x.halfWidthPct.toFixed(2)}%`, x.p.toFixed(3), loadRange(rows)];
}

/** Under "The smallest effect": what the block and the unpaired analyses could detect, against Rostedt's gain. */
export function mdeSentence(blocks: Mde, unpaired: Mde, pubEffectPct: number): string {
  return (
    `With the runs it has, the main series' block analysis would detect a true difference of ${blocks.mdePct.toFixed(2)}% (80% power), ` +
    `its unpaired analysis one of ${unpaired.mdePct.toFixed(2)}%; Rostedt's gain is ${pct(pubEffectPct, 3)}, ` +
    (blocks.mdePct <= Math.abs(pubEffectPct)
      ? `within reach of the block design here.`
      : `${(blocks.mdePct / Math.abs(pubEffectPct)).toFixed(1)} times smaller than the block design's detectable effect; detecting it on this machine, loaded as it was, would take about ${fmtRuns(blocks.needed)} blocks.`)
  );
}

/** From the short to the long runs: CV of A, block and unpaired half-widths, and their ratios. */
export function runLengthSentence(short: SeriesAnalysis, shortS: number, long: SeriesAnalysis, longS: number): string {
  const ratio = (x: number, y: number) => (x / y).toFixed(2);
  return (
    `From ${shortS} s to ${longS} s runs, the run-to-run CV of A went from ${(short.a.cv * 100).toFixed(2)}% to ${(long.a.cv * 100).toFixed(2)}% ` +
    `(×${ratio(long.a.cv, short.a.cv)}), the block design's 95% half-width from ±${short.blocks.halfWidthPct.toFixed(2)}% to ±${long.blocks.halfWidthPct.toFixed(2)}% ` +
    `(×${ratio(long.blocks.halfWidthPct, short.blocks.halfWidthPct)}, with ${short.blocks.n} and ${long.blocks.n} blocks), ` +
    `and the unpaired one from ±${short.unpaired.halfWidthPct.toFixed(2)}% to ±${long.unpaired.halfWidthPct.toFixed(2)}% (×${ratio(long.unpaired.halfWidthPct, short.unpaired.halfWidthPct)}).`
  );
}

/** Everything notebook 05's closing paragraph reads. */
export interface AaSummaryInput {
  main: SeriesView;
  mainS: number;
  short: SeriesAnalysis;
  shortS: number;
  seq: SeriesAnalysis;
  pub: Comparison;
  mdeBlocks: Mde;
}

/** Notebook 05's "What this notebook showed", every clause computed, its words chosen by the numbers. */
export function aaSummary(x: AaSummaryInput): string {
  const { analysis: main, plan, rows } = x.main;
  const pubEffect = x.pub.welch.differencePct;
  const m = rows.filter((r) => !r.warmup);
  const loadR = pearson(m.map((r) => r.load1Before), m.map((r) => r.tps));
  return (
    `**What this notebook showed.** With nothing different between the arms, our ${main.a.n} + ${main.b.n} runs of the full protocol ` +
    `(\`pgbench -S -T ${x.mainS}\`, ${finished(plan, rows)} runs finished when this was executed) differ by ${pct(main.blocks.meanDiffPct)} (B − A), ` +
    `with a 95% interval of ±${main.blocks.halfWidthPct.toFixed(2)}% from the block design and ±${main.unpaired.halfWidthPct.toFixed(2)}% from the unpaired ` +
    `(sequential) analysis of the same runs: blocking ${main.halfWidthRatio >= 1 ? "narrows" : "widens"} it by a factor ${Math.max(main.halfWidthRatio, 1 / main.halfWidthRatio).toFixed(2)}, ` +
    `because the two runs of a block correlate with r = ${main.blocks.correlation.toFixed(2)}. ` +
    `Run-to-run variation is ${(main.a.cv * 100).toFixed(1)}% (CV of A), against ${(x.pub.a.cv * 100).toFixed(2)}% in Rostedt's unpatched runs; ` +
    `over the measured runs, throughput and the load average before the run correlate at r = ${loadR.toFixed(2)} (the load average also counts pgbench's own clients). ` +
    `The first and second halves of the series, in time, differ by ${pct(main.timeSplit.meanDiffPct)} (p = ${main.timeSplit.p.toFixed(3)}): ` +
    `in a sequential design that drift would be part of the measured difference between the arms; the block design cancels what two neighbouring runs share. ` +
    `The smallest effect the block analysis could detect here (80% power) is ${x.mdeBlocks.mdePct.toFixed(2)}%, against Rostedt's gain of ${pct(pubEffect, 3)}. ` +
    `With ${x.shortS}-second runs the block half-width was ±${x.short.blocks.halfWidthPct.toFixed(2)}% and the unpaired one ±${x.short.unpaired.halfWidthPct.toFixed(2)}%; ` +
    `the ${x.shortS}-second sequential series found ${pct(x.seq.unpaired.meanDiffPct)} between two identical arms (95% CI ±${x.seq.unpaired.halfWidthPct.toFixed(2)}%, p = ${x.seq.unpaired.p.toFixed(3)}), ` +
    `and its mean throughput for A (${x.seq.a.mean.toFixed(0)} tps) differs from the ${x.shortS}-second block series' (${x.short.a.mean.toFixed(0)} tps) by ${pct((x.seq.a.mean / x.short.a.mean - 1) * 100)} for the same command and build` +
    (Math.abs(x.seq.a.mean / x.short.a.mean - 1) * 100 > x.short.blocks.halfWidthPct ? `, more than the block interval's half-width: on this machine only comparisons inside one series mean anything. ` : `. `) +
    (Math.abs(pubEffect) < main.blocks.halfWidthPct
      ? `Rostedt's gain is smaller than our block interval's half-width, so this machine, loaded as it was, could neither confirm nor refute it; a quiet machine is needed.`
      : `Rostedt's gain is larger than our block interval's half-width, so a series like this one could see a difference of that size.`)
  );
}

/** The run length (s) of a series' workload: its `duration` parameter (series.json), checked. */
export function runSeconds(v: SeriesView): number {
  const w = v.plan.workloads[0] as { params?: Record<string, unknown> } | undefined;
  const d = w?.params?.duration;
  if (typeof d !== "number" || !(d > 0)) throw new Error(`series.json: expected workloads[0].params.duration, a number of seconds > 0, found ${JSON.stringify(d)}`);
  return d;
}
