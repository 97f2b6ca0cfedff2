/**
 * The A/A series of notebook 05 (data/runs/rostedt-2023/20261130T035419Z*): the overview table, load against
 * throughput, and the minimum detectable effect of the unpaired and the block analyses. The block
 * analysis itself is analyzeSeries (src/bench/analysis.ts); nothing here re-derives it.
 */
import { mean, minimumDetectableEffectPct, pearson as pearsonR, runsNeeded, sd } from "../stats/index.js";
import type { SeriesAnalysis } from "../bench/analysis.js";
import type { SeriesRow } from "../bench/series.js";

/** Pearson's r of two equally long samples (src/stats/correlation.ts), refusing samples of different lengths. */
export function pearson(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length || x.length < 2) throw new Error(`pearson: expected two samples of the same length ≥ 2, found ${x.length} and ${y.length}`);
  return pearsonR(x, y);
}

/** "MIN to MAX" of a sample. */
export const range = (xs: number[]): string => `${Math.min(...xs)} to ${Math.max(...xs)}`;

/** "N of M planned": runs finished against the plan. */
export const finished = (plan: { plan: unknown[] }, rows: SeriesRow[]): string => `${new Set(rows.map((x) => x.id)).size} of ${plan.plan.length} planned`;

/** The deviations a series' provenance records, or "none recorded". */
export function deviationsOf(prov: { series: { deviationsFromProtocol?: unknown[] } }): string {
  const d = (prov.series.deviationsFromProtocol ?? []).map((x) => (typeof x === "string" ? x : JSON.stringify(x)));
  return d.length === 0 ? "none recorded" : d.join("; ");
}

/** One row of the load table: measured runs, load range before/after and its correlation with tps. */
export function loadLine(name: string, rows: SeriesRow[]): (string | number)[] {
  const m = rows.filter((x) => !x.warmup);
  return [
    name,
    m.length,
    range(m.map((x) => x.load1Before)),
    pearson(m.map((x) => x.load1Before), m.map((x) => x.tps)).toFixed(2),
    range(m.map((x) => x.load1After)),
    pearson(m.map((x) => x.load1After), m.map((x) => x.tps)).toFixed(2),
  ];
}

/** Within-block differences B − A of the measured blocks that hold both variants, in block order of first appearance. */
export function blockDiffs(rows: SeriesRow[], a = "A", b = "B"): number[] {
  const m = rows.filter((x) => !x.warmup);
  return [...new Set(m.map((x) => x.block))].flatMap((blk) => {
    const ra = m.find((x) => x.block === blk && x.variant === a);
    const rb = m.find((x) => x.block === blk && x.variant === b);
    return ra && rb ? [rb.tps - ra.tps] : [];
  });
}

/** What an analysis can detect: noise in % of mean A, minimum detectable effect (80% power, 5%), runs needed for `effectPct`. */
export interface Mde {
  name: string;
  runs: string;
  noisePct: number;
  mdePct: number;
  needed: number;
}

/** The unpaired (Welch) analysis of two summaries. */
export function unpairedMde(name: string, s: { a: { n: number; sd: number; mean: number }; b: { n: number; sd: number } }, effectPct: number): Mde {
  return {
    name,
    runs: `${s.a.n} + ${s.b.n}`,
    noisePct: (Math.hypot(s.a.sd, s.b.sd) / Math.SQRT2 / s.a.mean) * 100,
    mdePct: minimumDetectableEffectPct(s.a.sd, s.b.sd, s.a.n, s.b.n, s.a.mean),
    needed: runsNeeded(s.a.sd, s.b.sd, s.a.mean, effectPct),
  };
}

/**
 * The block analysis: a one-sample t on the within-block differences (Welch's model with a second
 * side of zero spread has the same se and df), so the detectable effect is the one analyzeSeries
 * reports as blocks.minimumDetectableEffectPct.
 */
export function blocksMde(name: string, rows: SeriesRow[], s: SeriesAnalysis, effectPct: number): Mde {
  const d = blockDiffs(rows, s.labels.a, s.labels.b);
  return {
    name,
    runs: `${d.length} blocks`,
    noisePct: s.blocks.sdDiffPct,
    mdePct: s.blocks.minimumDetectableEffectPct,
    needed: runsNeeded(sd(d), 0, s.a.mean, effectPct),
  };
}

/** "N" or "more than the kit searches" for a runsNeeded result. */
export const fmtRuns = (n: number): string => (Number.isFinite(n) ? String(n) : "more than the kit searches");

/** What the overview table needs of one of our series. */
export interface SeriesView {
  plan: { plan: unknown[]; seed: number; warmup: number; workloads: { args: string[]; database: string }[] };
  prov: { series: { deviationsFromProtocol?: unknown[] }; sessions: { host: { cpuModel: string; cpus: number }; kernel: { release: string }; postgres: { A: { version: string } } }[] };
  rows: SeriesRow[];
  analysis: SeriesAnalysis;
}

/** The rows of notebook 05's overview: Rostedt 2023 beside our main and shortened A/A series. */
export function overviewRows(pub: { without: number; with: number }, main: SeriesView, short: SeriesView): string[][] {
  const cmd = (v: SeriesView) => `pgbench ${v.plan.workloads[0]!.args.join(" ")} (database ${v.plan.workloads[0]!.database})`;
  const compared = (v: SeriesView) => `${v.analysis.a.n} + ${v.analysis.b.n} (block ${v.plan.warmup} discarded as warm-up)`;
  const machine = (v: SeriesView) => `${v.prov.sessions[0]!.host.cpuModel}, ${v.prov.sessions[0]!.host.cpus} CPUs, kernel ${v.prov.sessions[0]!.kernel.release}`;
  const started = main.rows[0]?.started ?? "?";
  return [
    ["command", "pgbench -c 100 -T 300 -j 8 -S -n", cmd(main), cmd(short)],
    ["runs finished when executed", "—", finished(main.plan, main.rows), finished(short.plan, short.rows)],
    ["runs compared", `${pub.without} + ${pub.with} (first of each side discarded)`, compared(main), compared(short)],
    ["design", "sequential: all without, reboot, all with", `randomised blocks, seed ${main.plan.seed}`, `randomised blocks, seed ${short.plan.seed}`],
    ["deviations from the protocol", "—", deviationsOf(main.prov), deviationsOf(short.prov)],
    ["machine", "not given in the post", machine(main), machine(short)],
    ["PostgreSQL", "git 26f98821 (2023)", main.prov.sessions[0]!.postgres.A.version, short.prov.sessions[0]!.postgres.A.version],
    ["series started", "—", `${started} (${main.prov.sessions.length} session${main.prov.sessions.length === 1 ? "" : "s"})`, short.rows[0]?.started ?? "?"],
    ["load average (1 min) before runs", "not given", range(main.rows.map((r) => r.load1Before)), range(short.rows.map((r) => r.load1Before))],
    ["load average (1 min) after runs", "not given", range(main.rows.map((r) => r.load1After)), range(short.rows.map((r) => r.load1After))],
  ];
}
