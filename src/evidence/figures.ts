/**
 * Measured figures of README.md and REPRODUCE.md, each read back from the record under data/ it
 * comes from. One table (FIGURES) lists (sentence, record, field); one list (MEASURED_REGIONS)
 * names the passages of measured results in which every measured-looking number (a decimal, a
 * percentage, an "N-fold") must have an entry, or be listed in NOT_MEASURED with the reason.
 *
 * To add a passage: add its region, run `node --test dist/test/doc-figures.test.js`, and give every
 * number it reports an entry here (or remove the number from the text).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { costModel } from "../analysis/patch-cost.js";
import { extensionEffect, summariseCells, type CellSummary, type FactorialRow, type Interval } from "../analysis/mechanism.js";
import { loadMechanismGroups, pickMechanismGroups } from "../analysis/mechanism-records.js";
import { pgPooledRate, type PgFactorialRow } from "../analysis/mechanism-pg.js";

export type Doc = "README.md" | "REPRODUCE.md";

export interface FigureEntry {
  doc: Doc;
  /** Words of the sentence around the figure, as written (markdown ** and line breaks ignored); they must contain `figure`. */
  sentence: string;
  /** The figure as written in the sentence ("−2.59%", "±4.28%", "p = 0.215", "755 s"). */
  figure: string;
  /** The record under data/ the figure comes from (repository-relative). */
  record: string;
  /** What of the record: a dotted JSON path, or a description when `value` computes it. */
  field: string;
  /** Computes the value from the record's text when it is not a JSON field as printed. */
  value?: (text: string, root: string) => number;
}

/** A passage of measured results: from the first occurrence of `from` to the next occurrence of `to` (both as normalizeDoc gives them). */
export interface MeasuredRegion {
  doc: Doc;
  from: string;
  to: string;
}

/** Numbers inside measured regions that are not measurements: the words around them and why. */
export interface NotMeasured {
  doc: Doc;
  sentence: string;
  figure: string;
  why: string;
}

// ---------------------------------------------------------------------------
// Helpers for computed values.

const json = (text: string): unknown => JSON.parse(text);

/** The value at a dotted path ("blocks.ciPct.0") of a JSON text. */
export function jsonField(text: string, path: string): number {
  let v: unknown = json(text);
  for (const k of path.split(".")) {
    if (v === null || typeof v !== "object") throw new Error(`no field ${path}`);
    v = (v as Record<string, unknown>)[k];
  }
  if (typeof v !== "number") throw new Error(`field ${path} is not a number (${JSON.stringify(v)})`);
  return v;
}

function csvRows(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split("\n");
  const cols = head!.split(",");
  return lines.map((l) => {
    const f = l.split(",");
    return Object.fromEntries(cols.map((c, i) => [c, f[i] ?? ""]));
  });
}

const measuredMean = (root: string, dir: string, variant: string): number => {
  const rows = csvRows(readFileSync(join(root, dir, "results.csv"), "utf8")).filter((r) => r.warmup === "false" && r.variant === variant);
  return rows.reduce((s, r) => s + Number(r.tps), 0) / rows.length;
};

/** Half the log gap between the kit-first and hand-first ratios: what the arm launched first gains, in %. */
const firstArmGainPct = (text: string): number => (Math.sqrt(1 + jsonField(text, "tpsRatio.order.differencePct") / 100) - 1) * 100;

/** Rostedt's gain: mean with − mean without over his measured runs, % of without. */
const rostedtGainPct = (text: string): number => {
  const rows = csvRows(text).filter((r) => r.role === "measured");
  const m = (side: string) => {
    const x = rows.filter((r) => r.side === side).map((r) => Number(r.tps));
    return x.reduce((s, v) => s + v, 0) / x.length;
  };
  return (m("with-patch") / m("without-patch") - 1) * 100;
};

const buildSeconds = (variant: string) => (text: string): number => {
  const found: number[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.variant === variant && typeof o.buildSeconds === "number") found.push(o.buildSeconds);
      Object.values(o).forEach(walk);
    }
  };
  walk(json(text));
  if (found.length === 0) throw new Error(`no ${variant} buildSeconds`);
  return found[0]!;
};

// ---------------------------------------------------------------------------

const AA = "data/runs/aa-rostedt-2023/analysis.json";
const T20 = "data/runs/aa-rostedt-2023-T20/analysis.json";
const SEQ = "data/runs/aa-rostedt-2023-T20-sequential/analysis.json";
const O1 = "data/runs/overhead-20261130T100040Z/analysis.json";
const O2 = "data/runs/overhead-20261130T101918Z/analysis.json";
const O2S = "data/runs/overhead-explore-20261130/concurrent-2s-cpu1/analysis.json";
const PUB = "data/published/rostedt-2023/runs.csv";
const PGB = "data/runs/patch-cost-pgbench-20261130T065433Z/provenance.json";
const KB = "data/runs/vm-kernel-bench/20261130T024409Z.json";

const R = "REPRODUCE.md" as const;
const DC = "data/runs/collector-overhead-2026-11-30/direct-cost.json";
type CostSummary = { collector: string; machineSharePct: number; sampling: { meanIntervalMs: number | null }[] };
const summaryOf = (t: string, c: string): CostSummary => {
  const s = (json(t) as { summary: CostSummary[] }).summary.find((x) => x.collector === c);
  if (!s) throw new Error(`no summary for ${c}`);
  return s;
};
const share = (c: string) => (t: string): number => summaryOf(t, c).machineSharePct;
const meanInterval = (c: string) => (t: string): number => {
  const xs = summaryOf(t, c).sampling.map((x) => x.meanIntervalMs).filter((x): x is number => x !== null);
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
const MC = "data/runs/micro-cost/summary.json";
const OPS = "data/runs/lock-ops-per-txn-20261130/summary.json";
const PGA = "data/runs/patch-cost-pgbench-20261130T065433Z/analysis.json";

/** The cost model of REPRODUCE §4 and notebook 03 (costModel) on the committed records. */
const model = (root: string) =>
  costModel(
    JSON.parse(readFileSync(join(root, OPS), "utf8")).perTransaction,
    JSON.parse(readFileSync(join(root, MC), "utf8")),
    JSON.parse(readFileSync(join(root, PGA), "utf8")),
    JSON.parse(readFileSync(join(root, PGB), "utf8")).host.cpus,
  );

/** The entries of one row of the harness-overhead table (REPRODUCE §3): ratio, CI ends, per-pair sd. */
function overheadRow(row: string, stamp: string, ratio: string, lo: string, hi: string, sdPct: string): FigureEntry[] {
  const record = `data/runs/overhead-20261130T${stamp}/analysis.json`;
  return [
    { doc: R, sentence: row, figure: `| ${ratio} |`, record, field: "tpsRatio.ratio" },
    { doc: R, sentence: row, figure: `| ${lo}–`, record, field: "tpsRatio.ci95.0" },
    { doc: R, sentence: row, figure: `–${hi} |`, record, field: "tpsRatio.ci95.1" },
    { doc: R, sentence: row, figure: `| ${sdPct} |`, record, field: "tpsRatio.sdLogPerPair × 100", value: (t) => 100 * jsonField(t, "tpsRatio.sdLogPerPair") },
  ];
}


// ---------------------------------------------------------------------------
// §8 (issue 14, the mechanism): values computed from data/runs/mechanism-2026/ the way notebook 07
// groups and pools the records (src/analysis/mechanism-records.ts).

const MECH = "data/runs/mechanism-2026";
type MechGroupName = "vm" | "noneVm" | "host";
const mechPick = (root: string) => pickMechanismGroups(loadMechanismGroups(join(root, MECH)));
const microRows = (root: string, g: MechGroupName): FactorialRow[] => {
  const grp = mechPick(root)[g];
  if (!grp) throw new Error(`no ${g} group under ${MECH}`);
  return grp.rows as FactorialRow[];
};
/** A number of one micro cell (mode/pages/extension) of a group. */
const microCell = (g: MechGroupName, cell: string, f: (c: CellSummary) => number) => (_t: string, root: string): number => {
  const [mode, pages, extension] = cell.split("/");
  const c = summariseCells(microRows(root, g)).find((x) => x.mode === mode && x.pages === pages && x.extension === extension);
  if (!c) throw new Error(`no cell ${cell} in the ${g} group`);
  return f(c);
};
type Part = "mean" | "lo" | "hi";
const pct = (part: Part) => (i: Interval) => 100 * i[part];
/** on − off of a per-1,000-holds rate in one mode, 4 KB pages. */
const microEffect = (mode: string, rate: "kernel" | "atReturn", part: Part) => (_t: string, root: string): number => extensionEffect(microRows(root, "vm"), mode, "4k", rate)[part];
/** Faults inside spin-style holds per 1e6 holds over the PostgreSQL runs of one mode and huge-pages level (both arms), 95 % t. */
const pgRate = (mode: string, hugePages: string, part: Part) => (_t: string, root: string): number => {
  const grp = mechPick(root).pg;
  if (!grp) throw new Error(`no PostgreSQL group under ${MECH}`);
  return pgPooledRate(grp.rows as PgFactorialRow[], { mode, hugePages }, "faults")[part];
};
const M1 = `${MECH}/20261201T215612Z/rows.json`;
const PGR = `${MECH}/pg-20261201T224018Z/rows.json`;
const MH = `${MECH}/host-20261201T184719Z/cells.json`;

export const FIGURES: FigureEntry[] = [
  // §3, harness overhead: the table of records.
  ...overheadRow("| `data/runs/overhead-20261130T064107Z` | one arm after the other (ABBA) | 16 | 0.979 | 0.934–1.026 | 8.8% | UNRESOLVED |", "064107Z", "0.979", "0.934", "1.026", "8.8%"),
  ...overheadRow("| `data/runs/overhead-20261130T073633Z` | both arms at the same time (`--concurrent`) | 60 | 0.9913 | 0.9753–1.0075 | 6.3% | UNRESOLVED |", "073633Z", "0.9913", "0.9753", "1.0075", "6.3%"),
  ...overheadRow("| `data/runs/overhead-20261130T090350Z` | both arms at the same time (`--concurrent`), quiet machine | 170 | 0.9944 | 0.9819–1.0069 | 8.3% | UNRESOLVED |", "090350Z", "0.9944", "0.9819", "1.0069", "8.3%"),
  ...overheadRow("| `data/runs/overhead-20261130T100040Z` | `--concurrent --cpu 1` | 100 | 1.0005 | 0.9991–1.0018 | 0.70% | PASS |", "100040Z", "1.0005", "0.9991", "1.0018", "0.70%"),
  ...overheadRow("| `data/runs/overhead-20261130T101918Z` | `--concurrent --cpu 1`, replication | 100 | 1.0008 | 0.9995–1.0021 | 0.68% | PASS |", "101918Z", "1.0008", "0.9995", "1.0021", "0.68%"),
  // §3, our A/A series: the full protocol.
  { doc: R, sentence: "difference B − A −2.59% (p = 0.215)", figure: "−2.59%", record: AA, field: "blocks.meanDiffPct" },
  { doc: R, sentence: "difference B − A −2.59% (p = 0.215)", figure: "p = 0.215", record: AA, field: "blocks.p" },
  { doc: R, sentence: "95% CI half-width ±4.28% analysed as randomised blocks", figure: "±4.28%", record: AA, field: "blocks.halfWidthPct" },
  { doc: R, sentence: "(paired by block), ±16.61% analysed unpaired", figure: "±16.61%", record: AA, field: "unpaired.halfWidthPct" },
  { doc: R, sentence: "the interval 3.88-fold", figure: "3.88-fold", record: AA, field: "halfWidthRatio" },
  { doc: R, sentence: "(within-block correlation 0.94)", figure: "0.94", record: AA, field: "blocks.correlation" },
  { doc: R, sentence: "the second half of the series ran 45.3% faster", figure: "45.3%", record: AA, field: "timeSplit.meanDiffPct" },
  { doc: R, sentence: "(95% CI +34.4% to +56.3%) as the kernel builds", figure: "+34.4%", record: AA, field: "timeSplit.ciPct.0" },
  { doc: R, sentence: "(95% CI +34.4% to +56.3%) as the kernel builds", figure: "+56.3%", record: AA, field: "timeSplit.ciPct.1" },
  { doc: R, sentence: "run-to-run CV 22.9% (A)", figure: "22.9%", record: AA, field: "a.cv × 100", value: (t) => 100 * jsonField(t, "a.cv") },
  { doc: R, sentence: "and 22.1% (B)", figure: "22.1%", record: AA, field: "b.cv × 100", value: (t) => 100 * jsonField(t, "b.cv") },
  { doc: R, sentence: "(B); Rostedt's +0.245% is far below", figure: "+0.245%", record: PUB, field: "mean with / mean without − 1 (measured runs)", value: rostedtGainPct },
  // §3, the -T 20 block series.
  { doc: R, sentence: "difference B − A +1.54%; 95% CI half-width ±6.43%", figure: "+1.54%", record: T20, field: "blocks.meanDiffPct" },
  { doc: R, sentence: "difference B − A +1.54%; 95% CI half-width ±6.43%", figure: "±6.43%", record: T20, field: "blocks.halfWidthPct" },
  { doc: R, sentence: "block), ±8.07% analysed unpaired", figure: "±8.07%", record: T20, field: "unpaired.halfWidthPct" },
  { doc: R, sentence: "interval by a factor of 1.25", figure: "1.25", record: T20, field: "halfWidthRatio" },
  { doc: R, sentence: "correlate, r = 0.42)", figure: "r = 0.42", record: T20, field: "blocks.correlation" },
  { doc: R, sentence: "differ by +7.18% (p = 0.071)", figure: "+7.18%", record: T20, field: "timeSplit.meanDiffPct" },
  { doc: R, sentence: "differ by +7.18% (p = 0.071)", figure: "p = 0.071", record: T20, field: "timeSplit.p" },
  // §3, the -T 20 sequential series.
  { doc: R, sentence: "(+0.53%, half-width ±7.94%)", figure: "+0.53%", record: SEQ, field: "unpaired.meanDiffPct" },
  { doc: R, sentence: "(+0.53%, half-width ±7.94%)", figure: "±7.94%", record: SEQ, field: "unpaired.halfWidthPct" },
  {
    doc: R, sentence: "its mean tps was 69% higher than the block series'", figure: "69%", record: "data/runs/aa-rostedt-2023-T20-sequential/results.csv",
    field: "mean tps of A (sequential) / mean tps of A (blocks, data/runs/aa-rostedt-2023-T20/results.csv) − 1",
    value: (_t, root) => (measuredMean(root, "data/runs/aa-rostedt-2023-T20-sequential", "A") / measuredMean(root, "data/runs/aa-rostedt-2023-T20", "A") - 1) * 100,
  },
  {
    doc: R, sentence: "which had ended 25 minutes earlier", figure: "25 minutes", record: "data/runs/aa-rostedt-2023-T20-sequential/results.csv",
    field: "first started of the sequential series − last ended of data/runs/aa-rostedt-2023-T20/results.csv, minutes",
    value: (t, root) => {
      const start = Math.min(...csvRows(t).map((r) => Date.parse(r.started!)));
      const end = Math.max(...csvRows(readFileSync(join(root, "data/runs/aa-rostedt-2023-T20/results.csv"), "utf8")).map((r) => Date.parse(r.ended!)));
      return (start - end) / 60000;
    },
  },
  { doc: R, sentence: "anything on this machine. Rostedt's +0.245% is far below", figure: "+0.245%", record: PUB, field: "mean with / mean without − 1 (measured runs)", value: rostedtGainPct },
  // §3, harness overhead: launch order.
  { doc: R, sentence: "reads a little more: about 0.22% and 0.08%", figure: "0.22%", record: O1, field: "√(1 + tpsRatio.order.differencePct/100) − 1", value: firstArmGainPct },
  { doc: R, sentence: "reads a little more: about 0.22% and 0.08%", figure: "0.08%", record: O2, field: "√(1 + tpsRatio.order.differencePct/100) − 1", value: firstArmGainPct },
  { doc: R, sentence: "100-pair records, 0.60% with 2 s runs", figure: "0.60%", record: O2S, field: "√(1 + tpsRatio.order.differencePct/100) − 1", value: firstArmGainPct },
  { doc: R, sentence: "which differ by 0.43% and 0.17%", figure: "0.43%", record: O1, field: "tpsRatio.order.differencePct" },
  { doc: R, sentence: "which differ by 0.43% and 0.17%", figure: "0.17%", record: O2, field: "tpsRatio.order.differencePct" },
  { doc: R, sentence: "p = 0.0015 and 0.21, and by 1.2%", figure: "p = 0.0015", record: O1, field: "tpsRatio.order.p" },
  { doc: R, sentence: "p = 0.0015 and 0.21, and by 1.2%", figure: "0.21,", record: O2, field: "tpsRatio.order.p" },
  { doc: R, sentence: "and by 1.2% with 2 s runs", figure: "1.2%", record: O2S, field: "tpsRatio.order.differencePct" },
  // §3, the kit's CPU charged to the kit.
  { doc: R, sentence: "The interval's lower end times that: 0.9991 × (1 − 0.00243) = 0.9967", figure: "0.9991", record: O1, field: "tpsRatio.ci95.0" },
  { doc: R, sentence: "0.9991 × (1 − 0.00243) = 0.9967", figure: "0.00243", record: O1, field: "kitCpu.maxPct / 100", value: (t) => jsonField(t, "kitCpu.maxPct") / 100 },
  { doc: R, sentence: "0.9991 × (1 − 0.00243) = 0.9967", figure: "0.9967", record: O1, field: "tpsRatio.ci95.0 × (1 − kitCpu.maxPct/100)", value: (t) => jsonField(t, "tpsRatio.ci95.0") * (1 - jsonField(t, "kitCpu.maxPct") / 100) },
  { doc: R, sentence: "0.9995 × (1 − 0.00333) = 0.9961 in the replication", figure: "0.9995", record: O2, field: "tpsRatio.ci95.0" },
  { doc: R, sentence: "0.9995 × (1 − 0.00333) = 0.9961 in the replication", figure: "0.00333", record: O2, field: "kitCpu.maxPct / 100", value: (t) => jsonField(t, "kitCpu.maxPct") / 100 },
  { doc: R, sentence: "0.9995 × (1 − 0.00333) = 0.9961 in the replication", figure: "0.9961", record: O2, field: "tpsRatio.withKitCpu.ci95.0" },
  // §4, the micro-benchmark cost and the cost from measured parts.
  { doc: R, sentence: "+0.02 ns with the switch off", figure: "+0.02", record: MC, field: "addedNs.off.mean" },
  { doc: R, sentence: "+1.47 ns for the request protocol", figure: "+1.47", record: MC, field: "addedNs.simulate.mean" },
  { doc: R, sentence: "makes 17.4 hook calls (range 17.1–17.8; 1.6 spinlock, 15.8 LWLock)", figure: "17.4", record: OPS, field: "perTransaction.requests.mean" },
  { doc: R, sentence: "(range 17.1–17.8;", figure: "17.1", record: OPS, field: "perTransaction.requests.min" },
  { doc: R, sentence: "(range 17.1–17.8;", figure: "17.8", record: OPS, field: "perTransaction.requests.max" },
  { doc: R, sentence: "1.6 spinlock, 15.8 LWLock", figure: "1.6", record: OPS, field: "perTransaction.spinlock.mean" },
  { doc: R, sentence: "1.6 spinlock, 15.8 LWLock", figure: "15.8", record: OPS, field: "perTransaction.lwlock.mean" },
  { doc: R, sentence: "at most 0.042 ns with the switch off", figure: "0.042", record: MC, field: "addedNs.off.ci.1" },
  { doc: R, sentence: "1.594 ns for the request protocol", figure: "1.594", record: MC, field: "addedNs.simulate.ci.1" },
  { doc: R, sentence: "44.9 µs of CPU on this host", figure: "44.9", record: PGA, field: "CPUs / meanTps.baseline, µs (costModel)", value: (_t, root) => model(root).nsPerTxn / 1000 },
  { doc: R, sentence: "≤ 0.0016% with the switch off", figure: "0.0016%", record: PGA, field: "costModel offPct (with lock-ops-per-txn and micro-cost)", value: (_t, root) => model(root).offPct },
  { doc: R, sentence: "≤ 0.063% for the user-space request protocol", figure: "0.063%", record: PGA, field: "costModel protocolPct (with lock-ops-per-txn and micro-cost)", value: (_t, root) => model(root).protocolPct },
  // §6, the collectors' direct cost.
  { doc: R, sentence: "perf-lock and perf-profile each took 0.8% of the machine", figure: "0.8%", record: DC, field: "summary[perf-lock].machineSharePct", value: share("perf-lock") },
  { doc: R, sentence: "perf-profile each took 0.8% of the machine, ctxsw", figure: "0.8%", record: DC, field: "summary[perf-profile].machineSharePct", value: share("perf-profile") },
  { doc: R, sentence: "ctxsw 1.0% and pg-waits 2.2%", figure: "1.0%", record: DC, field: "summary[ctxsw].machineSharePct", value: share("ctxsw") },
  { doc: R, sentence: "ctxsw 1.0% and pg-waits 2.2%", figure: "2.2%", record: DC, field: "summary[pg-waits].machineSharePct", value: share("pg-waits") },
  {
    doc: R, sentence: "three windows lie within ±9.4% of its mean", figure: "±9.4%", record: DC, field: "max over collectors of (cpuPerSecond.max − min) / 2 / mean × 100",
    value: (t) => Math.max(...(json(t) as { summary: { cpuPerSecond: { mean: number; min: number; max: number } }[] }).summary.map((s) => (100 * (s.cpuPerSecond.max - s.cpuPerSecond.min)) / 2 / s.cpuPerSecond.mean)),
  },
  { doc: R, sentence: "pg-waits sampled every 379 ms on average", figure: "379 ms", record: DC, field: "mean of summary[pg-waits].sampling[].meanIntervalMs", value: meanInterval("pg-waits") },
  { doc: R, sentence: "ctxsw every 392 ms instead of 200 ms", figure: "392 ms", record: DC, field: "mean of summary[ctxsw].sampling[].meanIntervalMs", value: meanInterval("ctxsw") },
  // §5, the kernel bench.
  { doc: R, sentence: "the small config in 755 s on 2 cores", figure: "755 s", record: KB, field: "builds.0.seconds" },
  { doc: R, sentence: "36 s with a warm ccache", figure: "36 s", record: "data/runs/vm-kernel-bench/20261130T024149Z.json", field: "builds.0.seconds" },
  { doc: R, sentence: "a boot to the command in 3.1 s (median of 3)", figure: "3.1 s", record: KB, field: "boots.medianBootToCommandS" },
  // Build times (README and REPRODUCE §5).
  { doc: "README.md", sentence: "a cold kernel build 755 s", figure: "755 s", record: KB, field: "builds.0.seconds" },
  { doc: "README.md", sentence: "the PostgreSQL 18 builds 2044 s (baseline)", figure: "2044 s", record: PGB, field: "buildSeconds of the baseline build", value: buildSeconds("baseline") },
  { doc: "README.md", sentence: "and 557 s (patched", figure: "557 s", record: PGB, field: "buildSeconds of the patched build", value: buildSeconds("patched") },
  { doc: R, sentence: "A cold kernel build took 755 s here", figure: "755 s", record: KB, field: "builds.0.seconds" },
  { doc: R, sentence: "builds of our records took 2044 s and 557 s", figure: "2044 s", record: PGB, field: "buildSeconds of the baseline build", value: buildSeconds("baseline") },
  { doc: R, sentence: "builds of our records took 2044 s and 557 s", figure: "557 s", record: PGB, field: "buildSeconds of the patched build", value: buildSeconds("patched") },
  // §8 — the mechanism (issue 14): REPRODUCE's "What is recorded so far", recomputed from the pooled
  // records the way notebook 07 groups them (src/analysis/mechanism-records.ts).
  { doc: R, sentence: "faults under lock 250.0 per 1,000 holds with 4 KB pages", figure: "250.0", record: MH, field: "none/4k/off rates.faultsUnderLock.mean", value: microCell("host", "none/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "0.00 with the region pre-faulted (P7)", figure: "0.00", record: MH, field: "none/4k-prefault/off rates.faultsUnderLock.mean", value: microCell("host", "none/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "was 28 % (24–32) under full", figure: "28 %", record: M1, field: "full/4k/off inKernelShare.mean × 100", value: microCell("vm", "full/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "was 28 % (24–32) under full", figure: "(24", record: M1, field: "full/4k/off inKernelShare.lo × 100", value: microCell("vm", "full/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "was 28 % (24–32) under full", figure: "–32)", record: M1, field: "full/4k/off inKernelShare.hi × 100", value: microCell("vm", "full/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–30) under lazy", figure: "28 %", record: M1, field: "lazy/4k/off inKernelShare.mean × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–30) under lazy", figure: "(26", record: M1, field: "lazy/4k/off inKernelShare.lo × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–30) under lazy", figure: "–30)", record: M1, field: "lazy/4k/off inKernelShare.hi × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "75 %", record: M1, field: "full/4k/on coveredFraction.mean × 100", value: microCell("vm", "full/4k/on", (c) => pct("mean")(c.coveredFraction)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "(73", record: M1, field: "full/4k/on coveredFraction.lo × 100", value: microCell("vm", "full/4k/on", (c) => pct("lo")(c.coveredFraction)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "–77)", record: M1, field: "full/4k/on coveredFraction.hi × 100", value: microCell("vm", "full/4k/on", (c) => pct("hi")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (71–78) (lazy)", figure: "74 %", record: M1, field: "lazy/4k/on coveredFraction.mean × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("mean")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (71–78) (lazy)", figure: "(71", record: M1, field: "lazy/4k/on coveredFraction.lo × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("lo")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (71–78) (lazy)", figure: "–78)", record: M1, field: "lazy/4k/on coveredFraction.hi × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("hi")(c.coveredFraction)) },
  { doc: R, sentence: "changed by −3.05 (−3.57 … −2.53)", figure: "−3.05", record: M1, field: "full/4k on − off atReturn per 1,000 (Welch mean)", value: microEffect("full", "atReturn", "mean") },
  { doc: R, sentence: "changed by −3.05 (−3.57 … −2.53)", figure: "(−3.57", record: M1, field: "full/4k on − off atReturn lo", value: microEffect("full", "atReturn", "lo") },
  { doc: R, sentence: "changed by −3.05 (−3.57 … −2.53)", figure: "−2.53)", record: M1, field: "full/4k on − off atReturn hi", value: microEffect("full", "atReturn", "hi") },
  { doc: R, sentence: "and −2.94 (−3.23 … −2.65) per 1,000 holds", figure: "−2.94", record: M1, field: "lazy/4k on − off atReturn per 1,000 (Welch mean)", value: microEffect("lazy", "atReturn", "mean") },
  { doc: R, sentence: "and −2.94 (−3.23 … −2.65) per 1,000 holds", figure: "(−3.23", record: M1, field: "lazy/4k on − off atReturn lo", value: microEffect("lazy", "atReturn", "lo") },
  { doc: R, sentence: "and −2.94 (−3.23 … −2.65) per 1,000 holds", figure: "−2.65)", record: M1, field: "lazy/4k on − off atReturn hi", value: microEffect("lazy", "atReturn", "hi") },
  { doc: R, sentence: "in-kernel ones by −0.08 (−0.31 … 0.14)", figure: "−0.08", record: M1, field: "full/4k on − off kernel per 1,000 (Welch mean)", value: microEffect("full", "kernel", "mean") },
  { doc: R, sentence: "in-kernel ones by −0.08 (−0.31 … 0.14)", figure: "(−0.31", record: M1, field: "full/4k on − off kernel lo", value: microEffect("full", "kernel", "lo") },
  { doc: R, sentence: "in-kernel ones by −0.08 (−0.31 … 0.14)", figure: "0.14)", record: M1, field: "full/4k on − off kernel hi", value: microEffect("full", "kernel", "hi") },
  { doc: R, sentence: "and −0.06 (−0.26 … 0.14) (on − off)", figure: "−0.06", record: M1, field: "lazy/4k on − off kernel per 1,000 (Welch mean)", value: microEffect("lazy", "kernel", "mean") },
  { doc: R, sentence: "and −0.06 (−0.26 … 0.14) (on − off)", figure: "(−0.26", record: M1, field: "lazy/4k on − off kernel lo", value: microEffect("lazy", "kernel", "lo") },
  { doc: R, sentence: "and −0.06 (−0.26 … 0.14) (on − off)", figure: "0.14)", record: M1, field: "lazy/4k on − off kernel hi", value: microEffect("lazy", "kernel", "hi") },
  { doc: R, sentence: "faults under lock fell from 125.0 to 0.26 per 1,000 holds (full)", figure: "125.0", record: M1, field: "full/4k/off rates.faultsUnderLock.mean", value: microCell("vm", "full/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "faults under lock fell from 125.0 to 0.26 per 1,000 holds (full)", figure: "0.26", record: M1, field: "full/hugetlb/off rates.faultsUnderLock.mean", value: microCell("vm", "full/hugetlb/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "in-kernel preemptions to 0.00 under both modes", figure: "0.00", record: M1, field: "max over modes of hugetlb/off rates.kernel.mean", value: (t, root) => Math.max(microCell("vm", "full/hugetlb/off", (c) => c.rates.kernel.mean)(t, root), microCell("vm", "lazy/hugetlb/off", (c) => c.rates.kernel.mean)(t, root)) },
  { doc: R, sentence: "faults fell to 0.00 and in-kernel preemptions to 0.00", figure: "faults fell to 0.00", record: M1, field: "max over modes of 4k-prefault/off rates.faultsUnderLock.mean", value: (t, root) => Math.max(microCell("vm", "full/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean)(t, root), microCell("vm", "lazy/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean)(t, root)) },
  { doc: R, sentence: "faults fell to 0.00 and in-kernel preemptions to 0.00", figure: "preemptions to 0.00", record: M1, field: "max over modes of 4k-prefault/off rates.kernel.mean", value: (t, root) => Math.max(microCell("vm", "full/4k-prefault/off", (c) => c.rates.kernel.mean)(t, root), microCell("vm", "lazy/4k-prefault/off", (c) => c.rates.kernel.mean)(t, root)) },
  { doc: R, sentence: "4940.5 (4298.4–5582.7) minor faults per million spin-style holds under full", figure: "4940.5", record: PGR, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("full", "off", "mean") },
  { doc: R, sentence: "4940.5 (4298.4–5582.7) minor faults per million spin-style holds under full", figure: "(4298.4", record: PGR, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("full", "off", "lo") },
  { doc: R, sentence: "4940.5 (4298.4–5582.7) minor faults per million spin-style holds under full", figure: "–5582.7)", record: PGR, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("full", "off", "hi") },
  { doc: R, sentence: "4123.0 (459.1–7786.9) minor faults per million spin-style holds under lazy", figure: "4123.0", record: PGR, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("lazy", "off", "mean") },
  { doc: R, sentence: "4123.0 (459.1–7786.9) minor faults per million spin-style holds under lazy", figure: "(459.1", record: PGR, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("lazy", "off", "lo") },
  { doc: R, sentence: "4123.0 (459.1–7786.9) minor faults per million spin-style holds under lazy", figure: "–7786.9)", record: PGR, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("lazy", "off", "hi") },
  { doc: R, sentence: "64.1 (57.6–70.7) minor faults per million spin-style holds under full", figure: "64.1", record: PGR, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("full", "on", "mean") },
  { doc: R, sentence: "64.1 (57.6–70.7) minor faults per million spin-style holds under full", figure: "(57.6", record: PGR, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("full", "on", "lo") },
  { doc: R, sentence: "64.1 (57.6–70.7) minor faults per million spin-style holds under full", figure: "–70.7)", record: PGR, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("full", "on", "hi") },
  { doc: R, sentence: "65.3 (−34.3–164.8) minor faults per million spin-style holds under lazy", figure: "65.3", record: PGR, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("lazy", "on", "mean") },
  { doc: R, sentence: "65.3 (−34.3–164.8) minor faults per million spin-style holds under lazy", figure: "(−34.3", record: PGR, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("lazy", "on", "lo") },
  { doc: R, sentence: "65.3 (−34.3–164.8) minor faults per million spin-style holds under lazy", figure: "–164.8)", record: PGR, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("lazy", "on", "hi") },
  { doc: R, sentence: "on, 540 of the 548 reserved pages held after start", figure: "540", record: PGR, field: "min hugePagesTaken over huge_pages=on runs", value: (t) => Math.min(...(JSON.parse(t) as { hugePages: string; hugePagesTaken: number }[]).filter((r) => r.hugePages === "on").map((r) => r.hugePagesTaken)) },
];

export const MEASURED_REGIONS: MeasuredRegion[] = [
  // §8 (issue 14): the mechanism's results.
  { doc: R, from: "What is recorded so far (all TCG functional evidence", to: "What icount cannot model:" },
  { doc: R, from: "### Our A/A series (the noise floor of this machine)", to: "To measure the noise floor of a quiet machine" },
  { doc: R, from: "- Launch order.", to: "- The earlier doubt is settled." },
  { doc: R, from: "`npm run test:e2e` runs this whole path", to: "The preemption-mode × extension design" },
  { doc: R, from: "- The kit's CPU, charged to the kit.", to: "- The kit's CPU: PASS." },
  { doc: R, from: "| record | design | pairs | kit / by hand |", to: "- Why one CPU." },
  { doc: R, from: "Costs measured on this machine's", to: "The pgbench -S cost was first measured" },
  { doc: R, from: "The cost from measured parts", to: "The micro-benchmark (`src/micro/lhp.c`)" },
  // The table of times after it is generated from data/test-runs/ and checked by test/test-runs.test.ts.
  { doc: "README.md", from: "`npm run test:e2e` runs the kernel path end to end", to: "Times as recorded" },
  { doc: R, from: "Collector costs (", to: "Collectors in the VM:" },
  { doc: R, from: "Recorded here (`data/runs/vm-kernel-bench/`", to: "The patched PostgreSQL under the harness inside the VM" },
];

export const NOT_MEASURED: NotMeasured[] = [
  // §8 (issue 14): versions and design parameters in the mechanism's results.
  { doc: R, sentence: "this machine's 6.18 kernel (preempt=none", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "extension off (6.18 has none)", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "in the VM on Linux 6.1 was not run", figure: "6.1", why: "a kernel version" },
  { doc: R, sentence: "the 6.1.176 tree is configured", figure: "6.1", why: "a kernel version" },
  { doc: R, sentence: "The 7.2 factorial in the VM", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "pooled: Linux 7.2.13", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "0.5 s runs; 5 runs", figure: "0.5", why: "the run length (a design parameter)" },
  { doc: R, sentence: "in any 7.2 cell", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "the diag build on Linux 7.2.13", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "95% CI half-width", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "(95% CI +34.4%", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "(AMD EPYC, kernel 6.18;", figure: "6.18", why: "the host kernel's version (recorded in the series' provenance.json), not a measurement" },
  { doc: R, sentence: "on this machine's 6.18 kernel", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "the 7.2 VM as the difference", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "the host's glibc 2.36 registers", figure: "2.36", why: "the glibc version" },
  { doc: R, sentence: "(upper 95% limits", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "far inside 0.5%.", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "can resolve 0.5% at all", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "Both are ≥ 0.99.", figure: "0.99", why: "the goal" },
  { doc: R, sentence: "| kit / by hand | 95% CI |", figure: "95%", why: "the confidence level (table header)" },
];

/** Markdown as the figure check reads it: ** and ` dropped, runs of whitespace as one space. */
export function normalizeDoc(text: string): string {
  return text.replace(/\*\*/g, "").replace(/\s+/g, " ");
}

/** The number in a figure as written ("−2.59%" → -2.59, "±4.28%" → 4.28) and its decimals. */
export function parseFigure(figure: string): { value: number; decimals: number } {
  const m = /([−+-]?)(\d+(?:\.\d+)?)/.exec(figure);
  if (!m) throw new Error(`no number in ${JSON.stringify(figure)}`);
  const sign = m[1] === "−" || m[1] === "-" ? -1 : 1;
  return { value: sign * Number(m[2]), decimals: (m[2]!.split(".")[1] ?? "").length };
}

/** The value an entry's record gives. */
export function entryValue(e: FigureEntry, root: string): number {
  const text = readFileSync(join(root, e.record), "utf8");
  return e.value ? e.value(text, root) : jsonField(text, e.field);
}

/** Problems of one entry: its sentence or figure not in the doc, or the record's value rounding to another figure. */
export function checkEntry(e: FigureEntry, docs: Record<Doc, string>, root: string): string[] {
  const doc = normalizeDoc(docs[e.doc]);
  if (!e.sentence.includes(e.figure)) return [`${e.doc}: entry "${e.sentence}": its figure ${e.figure} is not in its sentence`];
  if (!doc.includes(e.sentence)) return [`${e.doc}: expected the sentence "${e.sentence}", found no such words`];
  let v: number;
  try {
    v = entryValue(e, root);
  } catch (err) {
    return [`${e.doc}: "${e.figure}": cannot read ${e.field} of ${e.record}: ${err instanceof Error ? err.message : String(err)}`];
  }
  const f = parseFigure(e.figure);
  const shown = e.figure.startsWith("±") ? Math.abs(v) : v;
  const tol = 0.5 * 10 ** -f.decimals + 1e-9;
  if (Math.abs(shown - f.value) > tol) {
    return [`${e.doc}: "${e.sentence}": expected ${e.figure} from ${e.record} ${e.field} = ${v}, which rounds to ${shown.toFixed(f.decimals)}`];
  }
  return [];
}

/** Measured-looking numbers: decimals, percentages, "N-fold". */
const MEASURED_RE = /[−+±-]?\d+(?:\.\d+)?(?:%|-fold)|[−+±-]?\d+\.\d+/g;

/** Measured-looking numbers in the measured regions that no entry (or NOT_MEASURED) covers. */
export function uncovered(docs: Record<Doc, string>): string[] {
  const out: string[] = [];
  for (const reg of MEASURED_REGIONS) {
    const doc = normalizeDoc(docs[reg.doc]);
    const from = doc.indexOf(reg.from);
    const to = from < 0 ? -1 : doc.indexOf(reg.to, from + reg.from.length);
    if (from < 0 || to < 0) {
      out.push(`${reg.doc}: measured region "${reg.from}" … "${reg.to}" not found`);
      continue;
    }
    const covered: [number, number][] = [];
    const cover = (sentence: string, figure: string) => {
      for (let at = doc.indexOf(sentence, from); at >= 0 && at < to; at = doc.indexOf(sentence, at + 1)) {
        const f = at + sentence.indexOf(figure);
        covered.push([f, f + figure.length]);
      }
    };
    for (const e of FIGURES) if (e.doc === reg.doc) cover(e.sentence, e.figure);
    for (const e of NOT_MEASURED) if (e.doc === reg.doc) cover(e.sentence, e.figure);
    const text = doc.slice(from, to);
    for (const m of text.matchAll(MEASURED_RE)) {
      const s = from + m.index!;
      // Inside a code span or a record path (data/runs/…-20261130T…): not a figure.
      const before = text.slice(0, m.index!);
      if ((before.match(/`/g) ?? []).length % 2 === 1) continue;
      if (!covered.some(([a, b]) => s >= a - 1 && s + m[0].length <= b + 1)) {
        out.push(`${reg.doc}: "${doc.slice(Math.max(from, s - 40), Math.min(to, s + m[0].length + 20))}": ${m[0]} looks measured but has no entry in src/evidence/figures.ts`);
      }
    }
  }
  return out;
}
