/**
 * Measured figures of README.md and REPRODUCE.md, each read back from the record under data/ it
 * comes from. One table (FIGURES) lists (sentence, record, field); one list (MEASURED_REGIONS)
 * names the passages of measured results in which every measured-looking number (a decimal, a
 * percentage, an "N-fold") must have an entry, or be listed in NOT_MEASURED with the reason.
 *
 * To add a passage: add its region, run `node --test dist/test/doc-figures.test.js`, and give every
 * number it reports an entry here (or remove the number from the text).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { costModel } from "../analysis/patch-cost.js";
import { patchCostModel } from "../postgres/cost-model.js";
import { accelContrastCells, extensionEffect, summariseCells, type CellSummary, type ContrastCell, type ContrastRow, type FactorialRow, type Interval } from "../analysis/mechanism.js";
import { loadMechanismGroups, pickMechanismGroups } from "../analysis/mechanism-records.js";
import { fullShareFit, sweepCells, type SweepRow } from "../analysis/mechanism-model-sweep.js";
import { cellCompleteness, readCompletenessRecords, type CellCompleteness } from "../analysis/mechanism-completeness.js";
import { loadAtStartOf, vcpuRows, type VcpuRow } from "../analysis/mechanism-vcpus.js";
import { pgPooledRate, pgTraced, summarisePgCells, type PgFactorialRow } from "../analysis/mechanism-pg.js";
import { captureSummary, snapshots, waitShareRanges } from "../analysis/lockstat-vm.js";
import { collectedVmSeriesDirs, lockStatRunRows, topLockClasses } from "../collect/tables.js";
import { parseProcLockStat } from "../parse/proc-lock-stat.js";
import { seriesCellCounters, type SeriesCellCounters } from "../postgres/v2-report.js";
import { tracedPgRow, tracedPgWindow, type TracedPgRow } from "../vm/traced-pg.js";
import { evictionCell, type EvictionCellRates } from "../postgres/eviction-rates.js";
import { INTEGER_FIGURES, INTEGER_NOT_MEASURED, INTEGER_REGIONS } from "./figures-integers.js";

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
  /** Every record the value reads when it pools several (each must exist; `record` is one of them). */
  alsoReads?: string[];
}

/** A passage of measured results: from the first occurrence of `from` to the next occurrence of `to` (both as normalizeDoc gives them). */
export interface MeasuredRegion {
  doc: Doc;
  from: string;
  to: string;
  /** Integers count as measured-looking here too (dates, times, versions and code spans excepted). */
  integers?: boolean;
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
// Helpers of the §4 (v2 text, pgbench cost), §5 (VM), §6 (lock statistics in the VM) and §8 (mechanism) blocks.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const readJson = (root: string, path: string): Json => JSON.parse(readFileSync(join(root, path), "utf8"));

/** The first number under `key` anywhere in a JSON text (depth first, in document order). */
const firstNumber = (key: string) => (text: string): number => {
  let found: number | undefined;
  const walk = (v: unknown): void => {
    if (found !== undefined) return;
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (typeof o[key] === "number") found = o[key] as number;
      else Object.values(o).forEach(walk);
    }
  };
  walk(json(text));
  if (found === undefined) throw new Error(`no number under "${key}"`);
  return found;
};

// §4, version 2.
const PG15 = "data/runs/pg-check/20261201T185707Z/pg15/summary.json";
const PG18 = "data/runs/pg-check/20261201T190355Z/pg18/summary.json";
const OPS2 = "data/runs/lock-ops/20261201T192645Z/summary.json";
const HOOK2 = "data/runs/patch-cost/20261201T184529Z/summary.json";
const CSC1 = "data/runs/compare-scaling/20261201T190408Z/result.json";
const CSC2 = "data/runs/compare-scaling/20261202T004722Z/result.json";
const CSC3 = "data/runs/compare-scaling/20261202T070133Z/result.json";
const CSC4 = "data/runs/compare-scaling/20261202T070215Z/result.json";
const CSC5 = "data/runs/compare-scaling/20261202T062154Z/result.json";
const CSC6 = "data/runs/compare-scaling/20261202T062523Z/result.json";
/** The small (1,000) and large (10,000) sizes' median wall and CPU seconds and the two ratios, as written in `sentences`. */
const scalingEntries = (record: string, sentences: { small: string; large: string; ratio: string }): FigureEntry[] => {
  const row = (n: number, k: "medianWallS" | "medianCpuS") => (t: string): number => {
    const r = (json(t) as Json).rows.find((x: Json) => x.runsPerSide === n);
    if (!r) throw new Error(`no row with ${n} runs per side`);
    return r[k] as number;
  };
  const fig = (sentence: string, figure: string, field: string, value?: (t: string) => number): FigureEntry => ({ doc: "REPRODUCE.md", sentence, figure, record, field, ...(value ? { value } : {}) });
  const [sw, sc] = /([\d.]+) s wall \(([\d.]+) s CPU\)/.exec(sentences.small)!.slice(1) as [string, string];
  const [lw, lc] = /([\d.]+) s wall \(([\d.]+) s CPU\)/.exec(sentences.large)!.slice(1) as [string, string];
  const [rw, rc] = /([\d.]+) wall, ([\d.]+) CPU/.exec(sentences.ratio)!.slice(1) as [string, string];
  return [
    fig(sentences.small, `${sw} s`, "rows[runsPerSide=1000].medianWallS", row(1000, "medianWallS")),
    fig(sentences.small, `${sc} s`, "rows[runsPerSide=1000].medianCpuS", row(1000, "medianCpuS")),
    fig(sentences.large, `${lw} s`, "rows[runsPerSide=10000].medianWallS", row(10000, "medianWallS")),
    fig(sentences.large, `${lc} s`, "rows[runsPerSide=10000].medianCpuS", row(10000, "medianCpuS")),
    fig(sentences.ratio, rw, "ratio10kOver1kWall"),
    fig(sentences.ratio, rc, "ratio10kOver1kCpu"),
  ];
};
const HOOK3 = "data/runs/patch-cost/20261202T004844Z/summary.json";
/** Notebook 03's version 2 cost model: most hook executions × upper ns (nested pattern) ÷ CPU ns per transaction. */
const v2ModelPct = (arm: "off" | "all") => (t: string, root: string): number => {
  const h = json(t) as Json;
  const a = readJson(root, "data/runs/patch-cost/20261130T065433Z/analysis.json");
  const cpus = readJson(root, "data/runs/patch-cost/20261130T065433Z/provenance.json").host.cpus as number;
  return patchCostModel({
    hookExecutionsPerTransaction: readJson(root, OPS2).perTransaction.max.hook_executions,
    nsPerHookExecution: { off: h.addedNs.nested.off, all: h.addedNs.nested.all },
    cpuNsPerTransaction: (cpus * 1e9) / a.meanTps.baseline,
  })[arm].pctUpper;
};
const pgCheckLoads = (root: string): number[] =>
  [PG15, PG18].flatMap((f) => [readJson(root, f).host.load1Before, readJson(root, f).host.load1After] as number[]);
/** errno in the server's unavailable line, the same in both checks. */
const errnoOf = (_t: string, root: string): number => {
  const n = [PG15, PG18].map((f) => Number(/EINVAL \(errno (\d+)\)/.exec(readJson(root, f).serverSaid as string)?.[1]));
  if (n[0] !== n[1] || !Number.isFinite(n[0])) throw new Error(`errno differs or is missing: ${n.join(", ")}`);
  return n[0]!;
};
/** "Switch off" intervals (spin and nested) that lie entirely below zero. */
const offIntervalsBelowZero = (t: string): number =>
  (["spin", "nested"] as const).filter((k) => (json(t) as Json).addedNs[k].off.ci[1] < 0).length;

// §4, the pgbench cost (version 1).
const PCP = "data/runs/patch-cost/20261130T021229Z/analysis.json";
const PCC = "data/runs/patch-cost/20261130T072231Z/analysis.json";
const cmp = (arm: string, reference: string) => (t: string): Json => {
  const c = (json(t) as Json).comparisons.find((x: Json) => x.arm === arm && x.reference === reference);
  if (!c) throw new Error(`no comparison ${arm} / ${reference}`);
  return c;
};
const cmpField = (arm: string, reference: string, f: (c: Json) => number) => (t: string): number => f(cmp(arm, reference)(t));
const minutes = (t: string): number => (Date.parse((json(t) as Json).ended) - Date.parse((json(t) as Json).started)) / 60000;
/** |tps of a measured run / tps of the measured run before it − 1| in %, in run order. */
const consecutiveDiffsPct = (root: string): number[] => {
  const rows = readFileSync(join(root, "data/runs/patch-cost/20261130T065433Z/runs.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Json)
    .filter((r) => !r.warmup).sort((a, b) => a.started.localeCompare(b.started));
  return rows.slice(1).map((r, i) => Math.abs(r.tps / rows[i].tps - 1) * 100).sort((a, b) => a - b);
};
const medianOf = (xs: number[]): number => (xs.length % 2 ? xs[xs.length >> 1]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2);

// §5, the VM.
const EVC = "data/runs/vm-eviction/20261130T000002Z/summary.json";
const EV = "data/runs/vm-eviction/20261130T083130Z";
const evCell = (mode: string, variant: string) => (t: string): Json => {
  const c = (json(t) as Json).cells.find((x: Json) => x.mode === mode && x.variant === variant);
  if (!c) throw new Error(`no cell ${mode}/${variant}`);
  return c;
};
const evCmp = (name: string, f: (c: Json) => number) => (t: string): number => {
  const c = (json(t) as Json).comparisons.find((x: Json) => x.name === name);
  if (!c) throw new Error(`no comparison ${name}`);
  return f(c);
};
/** "boot to command N s" of the three cells' console logs. */
const evBoots = (root: string): number[] =>
  ["none-6.1.176", "full-7.2.13", "lazy-7.2.13"].map((c) => {
    const m = /boot to command ([\d.]+) s/.exec(readFileSync(join(root, EV, c, "console-and-progress.log"), "utf8"));
    if (!m) throw new Error(`${c}: no boot time`);
    return Number(m[1]);
  });
const ST = (stamp: string) => `data/runs/slice-trace/20261130T${stamp}/analysis.json`;
const matchPair = (pair: string, f: (m: Json) => number) => (t: string): number => {
  const m = (json(t) as Json).matching.disagreements.find((x: Json) => x.pair === pair);
  if (!m) throw new Error(`no matched pair ${pair}`);
  return f(m);
};

// §6, lock statistics in the VM.
const LSV = "data/runs/sangappa-2024-locktable/20261130T075623Z";
const LSCAP = `${LSV}/lockstat-1/lock_stat-micro.txt`;
const capture = (t: string) => captureSummary(topLockClasses(parseProcLockStat(t, LSCAP), Infinity));
/** Kernel lock wait share per lockstat boot (notebook 06: snapshots of the lockstat collector, × 2 vCPUs). */
const waitRanges = (root: string) => {
  const dirs = collectedVmSeriesDirs(join(root, "data/runs"));
  const rows = dirs.flatMap((d) => lockStatRunRows(d, Infinity).map((r) => ({ boot: relative(join(root, "data/runs"), dirname(d)), ...r })));
  return waitShareRanges(snapshots(rows), 2);
};
const waitRange = (boot: string, end: "min" | "max") => (_t: string, root: string): number => {
  const r = waitRanges(root).find((x) => x.boot === `sangappa-2024-locktable/20261130T075623Z/${boot}`);
  if (!r) throw new Error(`no snapshots of ${boot}`);
  return r[end];
};
const pipeRuns = (root: string, boot: string): number[] =>
  ["pipe-before.txt", "pipe-after.txt"].flatMap((f) => [...readFileSync(join(root, LSV, boot, f), "utf8").matchAll(/^\s*([\d.]+) usecs\/op$/gm)].map((m) => Number(m[1])));
const PLAIN = ["plain-1", "plain-2", "plain-3"];
const plainPipe = (root: string) => PLAIN.flatMap((b) => pipeRuns(root, b));


// ---------------------------------------------------------------------------

const AA = "data/runs/rostedt-2023/20261130T035419Z/analysis.json";
const T20 = "data/runs/rostedt-2023/20261130T011758Z/analysis.json";
const SEQ = "data/runs/rostedt-2023/20261130T015450Z/analysis.json";
const O1 = "data/runs/harness-overhead/20261130T100040Z/analysis.json";
const O2 = "data/runs/harness-overhead/20261130T101918Z/analysis.json";
const O2S = "data/runs/harness-overhead/20261130T095746Z/concurrent-2s-cpu1/analysis.json";
const PUB = "data/published/rostedt-2023/runs.csv";
const PGB = "data/runs/patch-cost/20261130T065433Z/provenance.json";
const KB = "data/runs/kernel-build/20261130T024149Z/20261130T024409Z.json";

const R = "REPRODUCE.md" as const;
const DC = "data/runs/collector-cost/20261130T000000Z/direct-cost.json";
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
const MC = "data/runs/patch-cost/20261130T014521Z/summary.json";
const OPS = "data/runs/lock-ops-vm/20261130T074829Z/summary.json";
const PGA = "data/runs/patch-cost/20261130T065433Z/analysis.json";

// §4 patch v2 records.
const VMCHK = "data/runs/pg-check/20261201T223255Z/vm-pg18/summary.json";
const LV2 = "data/runs/lock-ops/20261201T192645Z/summary.json";
const VMCHK10 = "data/runs/pg-check/20261201T223931Z/vm-pg18/summary.json";
const LVM = "data/runs/lock-ops-vm/20261201T225522Z/summary.json";
const V1CELLS = "data/runs/vm-eviction/20261130T000002Z/summary.json";
const VMCHK15 = "data/runs/pg-check/20261202T010223Z/vm-pg15/summary.json";
const VMCHK15G11 = "data/runs/pg-check/20261202T010437Z/vm-pg15/summary.json";
const VMCHK15ALL = "data/runs/pg-check/20261202T013736Z/vm-pg15/summary.json";
const VMCHK18V3 = "data/runs/pg-check/20261204T214313Z/vm-pg18/summary.json";
const VMCHK15V3 = "data/runs/pg-check/20261204T221253Z/vm-pg15/summary.json";
const PGDBG = "data/runs/pg-rseq-debug/20261204T215627Z/out/runs.json";
/** A field of one run of the pg-rseq-debug record (kernel/id). */
const dbgRun = (kernel: string, id: string, f: (r: Record<string, any>) => number) => (t: string) => {
  const r = (JSON.parse(t) as Record<string, any>[]).find((x) => x.kernel === kernel && x.id === id);
  return r === undefined ? NaN : f(r);
};
const trWin = (f: (w: ReturnType<typeof tracedPgWindow>) => number) => (_t: string, root: string) => f(tracedPgWindow(join(root, TRV2)));
const trDelta = (k: string) => (t: string) => (JSON.parse(t).workloads[0].sliceExtension.countersDelta as Record<string, number>)[k]!;
const EVV1 = "data/runs/vm-eviction/20261130T083130Z/full-7.2.13/vm/series";
const EVST = "data/runs/dipietro-2026/20261201T223016Z/series";
const EVV2 = "data/runs/vm-eviction/20261202T010551Z/full-7.2.13/vm/series";
const EVV1L = "data/runs/vm-eviction/20261130T083130Z/lazy-7.2.13/vm/series";
const EVV2L = "data/runs/vm-eviction/20261202T010551Z/lazy-7.2.13/vm/series";
const evLoads = (root: string): number[] => ["full-7.2.13", "lazy-7.2.13"].flatMap((c) => hostLoads1(readFileSync(join(root, "data/runs/vm-eviction/20261202T010551Z", c, "host-times.txt"), "utf8")));
/** A number of an eviction cell on one scale (evictionCell over the series DIR, cell NAME). */
const ev = (dir: string, name: string, f: (c: EvictionCellRates) => number) => (_t: string, root: string): number => f(evictionCell(join(root, dir), name));
const EVSTC = "mode-full.hugepages-off.extension-all";
/** The 1-minute load averages in a cell's host-times.txt ("host start … load A B C", "host end … load A B C"). */
const hostLoads1 = (t: string): number[] => [...t.matchAll(/^host (?:start|end) \S+ load ([\d.]+)/gm)].map((m) => Number(m[1]));
const TRV1 = "data/runs/slice-trace/20261130T051418Z";
const TRV2 = "data/runs/slice-trace/20261202T005450Z";
/** A number of a traced PostgreSQL run's row (tracedPgRow: the trace, rseq/stats and the patch's counters). */
const traced = (dir: string, f: (r: TracedPgRow) => number) => (_t: string, root: string): number => f(tracedPgRow(join(root, dir)));
const V2STUDY = "data/runs/dipietro-2026/20261201T223016Z/record.json";
type V1Cell = { mode: string; variant: string; n: number; sliceExtension: { grants: number; revoked: number } };
/** A field of version 1's `on` cell under MODE in the compare summary. */
const v1Cell = (mode: string, k: "grants" | "revoked" | "n") => (t: string): number => {
  const c = (json(t) as { cells: V1Cell[] }).cells.find((x) => x.mode === mode && x.variant === "on");
  if (!c) throw new Error(`no on cell for mode ${mode}`);
  return k === "n" ? c.n : c.sliceExtension[k];
};
/** A number of version 2's `all` cell under MODE in the study record (seriesCellCounters over its series). */
const v2Cell = (mode: string, f: (c: SeriesCellCounters) => number) => (_t: string, root: string): number => {
  const c = seriesCellCounters(join(root, V2STUDY, "..")).find((x) => x.cell.includes(`mode-${mode}.`) && x.cell.endsWith("extension-all"));
  if (!c) throw new Error(`no ${mode} all cell`);
  return f(c);
};

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
  const record = `data/runs/harness-overhead/20261130T${stamp}/analysis.json`;
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
const PGR = `data/runs/mechanism-pg/20261201T224018Z/rows.json`;
/** The PostgreSQL records notebook 07 pools (same kernel, accel and server shape): every pooled entry reads both. */
const PG_BOTH = [PGR, `data/runs/mechanism-pg/20261201T231710Z/rows.json`];
const MH = `${MECH}/20261201T184719Z/cells.json`;
// §8, the plain-TCG contrast: the one plain-TCG micro record against the pooled icount factorial (accelContrastCells, as notebook 07).
const MT = `${MECH}/20261202T010208Z/rows.json`;
const MN = `${MECH}/20261202T020227Z/rows.json`;
const MNT = `${MECH}/20261202T015907Z/rows.json`;
/** A number of the none/4k/off cell of one record's rows.json text. */
const noneCell = (f: (c: CellSummary) => number) => (t: string): number => {
  const c = summariseCells(json(t) as FactorialRow[]).find((x) => x.mode === "none" && x.pages === "4k" && x.extension === "off");
  if (!c) throw new Error("no cell none/4k/off");
  return f(c);
};
const contrast = (accel: "icount" | "tcg", cell: string, f: (c: ContrastCell) => number) => (_t: string, root: string): number => {
  const p = mechPick(root);
  const tcg = p.tcg.find((g) => g.name === "20261202T010208Z");
  if (!p.vm || !tcg) throw new Error(`no icount group or no plain-TCG record 20261202T010208Z under ${MECH}`);
  const c = accelContrastCells([{ label: "icount", rows: p.vm.rows as ContrastRow[] }, { label: "tcg", rows: tcg.rows as ContrastRow[] }]).find((x) => x.label === accel && x.cell === cell);
  if (!c) throw new Error(`no ${accel} cell ${cell} in the contrast`);
  return f(c);
};
const tcgCell = (cell: string, f: (c: CellSummary) => number) => (_t: string, root: string): number => {
  const tcg = mechPick(root).tcg.find((g) => g.name === "20261202T010208Z");
  if (!tcg) throw new Error(`no plain-TCG record 20261202T010208Z under ${MECH}`);
  const [mode, pages, extension] = cell.split("/");
  const c = summariseCells(tcg.rows as FactorialRow[]).find((x) => x.mode === mode && x.pages === pages && x.extension === extension);
  if (!c) throw new Error(`no cell ${cell} in 20261202T010208Z`);
  return f(c);
};
const pgCellRuns = (pick: "min" | "max") => (_t: string, root: string): number => {
  const grp = mechPick(root).pg;
  if (!grp) throw new Error(`no PostgreSQL group under ${MECH}`);
  return Math[pick](...summarisePgCells(grp.rows as PgFactorialRow[]).map((c) => c.runs));
};

// §8, the host record (rows.json of the 6.18 host, preempt=none): cells by summariseCells.
const HOST_ROWS = "data/runs/mechanism-2026/20261201T184719Z/rows.json";
const hostCell = (pages: string, f: (c: CellSummary) => number) => (t: string): number => {
  const c = summariseCells(json(t) as FactorialRow[]).find((x) => x.mode === "none" && x.pages === pages && x.extension === "off");
  if (!c) throw new Error(`no cell none/${pages}/off in ${HOST_ROWS}`);
  return f(c);
};

// §8, the model against the emulator (issue 26): the HZ 1000 sweep's cells (sweepCells, as notebook 07
// recomputes them), the pooled factorials' completeness, and the 4-vCPU plain-TCG record.
const MSW = "data/runs/mechanism-model-sweep/20261204T192707Z/out/rows.json";
const sweepAt1000 = (t: string) => sweepCells(json(t) as SweepRow[], { hz: 1000 });
const sweepCount = (mode: string, what: "agree" | "decided" | "kernel" | "preempted") => (t: string): number => {
  const cs = sweepAt1000(t).filter((c) => c.mode === mode);
  const d = cs.filter((c) => c.agrees !== null);
  return what === "agree" ? d.filter((c) => c.agrees).length : what === "decided" ? d.length : what === "kernel" ? cs.reduce((a, c) => a + c.kernel, 0) : cs.reduce((a, c) => a + c.kernel + c.atReturn, 0);
};
const MECH_VM_PROV = ["20261201T193546Z", "20261201T194000Z", "20261201T215612Z", "20261204T193646Z", "20261204T194849Z"].map((n) => `${MECH}/${n}/provenance.json`);
const MECH_PG_PROV = ["20261201T224018Z", "20261201T231710Z"].map((n) => `data/runs/mechanism-pg/${n}/provenance.json`);
const completeness = (g: "vm" | "pg", f: (cs: CellCompleteness[]) => number) => (_t: string, root: string): number => {
  const grp = mechPick(root)[g];
  if (!grp) throw new Error(`no ${g} group under ${MECH}`);
  return f(cellCompleteness(readCompletenessRecords(root, grp.paths)));
};
const MV4 = "data/runs/mechanism-micro/20261204T215207Z";
const tcg4 = (mode: string | null, f: (r: VcpuRow[]) => number) => (t: string): number => {
  const rows = vcpuRows(MV4, 4, "tcg", json(t) as FactorialRow[]);
  return f(mode === null ? rows : rows.filter((r) => r.mode === mode));
};
/** §5: the figures of the PostgreSQL bundle's record (data/runs/dipietro-2026-metal/20261204T221945Z). */
function pgBundleFigures(): FigureEntry[] {
  const d = "data/runs/dipietro-2026-metal/20261204T221945Z";
  const loads = (t: string) => csvRows(t).flatMap((r) => [Number(r.load1Before), Number(r.load1After)]);
  const tps = (build: string, f: (xs: number[]) => number) => (t: string) => f(csvRows(t).filter((r) => r.variant!.startsWith(`build-${build}.`)).map((r) => Number(r.tps)));
  const minOf = (xs: number[]) => Math.min(...xs);
  const maxOf = (xs: number[]) => Math.max(...xs);
  const s1 = "10 of 10 runs in 21.5 min";
  const s2 = "the 1-minute load average was 19.6–34.0 around the runs (steal 0.16 %)";
  const s3 = "tps ranged from 995 to 1655 unpatched and from 1001 to 1768 patched";
  const s4 = "patched − unpatched +26.1 % (95% CI −19.5 to +71.7, 4 blocks): UNRESOLVED, with a half-width (±45.6 %)";
  return [
    { doc: R, sentence: s1, figure: "21.5", record: `${d}/record.json`, field: "(ended − started) in minutes", value: (t) => { const r = json(t) as { started: string; ended: string }; return (Date.parse(r.ended) - Date.parse(r.started)) / 60000; } },
    { doc: R, sentence: s2, figure: "19.6", record: `${d}/series/results.csv`, field: "min of load1Before, load1After", value: (t) => minOf(loads(t)) },
    { doc: R, sentence: s2, figure: "34.0", record: `${d}/series/results.csv`, field: "max of load1Before, load1After", value: (t) => maxOf(loads(t)) },
    { doc: R, sentence: s2, figure: "0.16", record: `${d}/provenance.json`, field: "machine.stealPct" },
    { doc: R, sentence: s3, figure: "995", record: `${d}/series/results.csv`, field: "min tps, baseline", value: tps("baseline", minOf) },
    { doc: R, sentence: s3, figure: "1655", record: `${d}/series/results.csv`, field: "max tps, baseline", value: tps("baseline", maxOf) },
    { doc: R, sentence: s3, figure: "1001", record: `${d}/series/results.csv`, field: "min tps, patched", value: tps("patched", minOf) },
    { doc: R, sentence: s3, figure: "1768", record: `${d}/series/results.csv`, field: "max tps, patched", value: tps("patched", maxOf) },
    { doc: R, sentence: s4, figure: "+26.1", record: `${d}/analysis.json`, field: "contrasts.0.meanDiffPct" },
    { doc: R, sentence: s4, figure: "−19.5", record: `${d}/analysis.json`, field: "contrasts.0.ciPct.0" },
    { doc: R, sentence: s4, figure: "+71.7", record: `${d}/analysis.json`, field: "contrasts.0.ciPct.1" },
    { doc: R, sentence: s4, figure: "4 blocks", record: `${d}/analysis.json`, field: "contrasts.0.n" },
    { doc: R, sentence: s4, figure: "±45.6", record: `${d}/analysis.json`, field: "contrasts.0.halfWidthPct" },
  ];
}

export const FIGURES: FigureEntry[] = [
  // §3, harness overhead: the table of records.
  ...overheadRow("| `data/runs/harness-overhead/20261130T064107Z` | one arm after the other (ABBA) | 16 | 0.979 | 0.934–1.026 | 8.8% | UNRESOLVED |", "064107Z", "0.979", "0.934", "1.026", "8.8%"),
  ...overheadRow("| `data/runs/harness-overhead/20261130T073633Z` | both arms at the same time (`--concurrent`) | 60 | 0.9913 | 0.9753–1.0075 | 6.3% | UNRESOLVED |", "073633Z", "0.9913", "0.9753", "1.0075", "6.3%"),
  ...overheadRow("| `data/runs/harness-overhead/20261130T090350Z` | both arms at the same time (`--concurrent`), quiet machine | 170 | 0.9944 | 0.9819–1.0069 | 8.3% | UNRESOLVED |", "090350Z", "0.9944", "0.9819", "1.0069", "8.3%"),
  ...overheadRow("| `data/runs/harness-overhead/20261130T100040Z` | `--concurrent --cpu 1` | 100 | 1.0005 | 0.9991–1.0018 | 0.70% | PASS |", "100040Z", "1.0005", "0.9991", "1.0018", "0.70%"),
  ...overheadRow("| `data/runs/harness-overhead/20261130T101918Z` | `--concurrent --cpu 1`, replication | 100 | 1.0008 | 0.9995–1.0021 | 0.68% | PASS |", "101918Z", "1.0008", "0.9995", "1.0021", "0.68%"),
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
    doc: R, sentence: "its mean tps was 69% higher than the block series'", figure: "69%", record: "data/runs/rostedt-2023/20261130T015450Z/results.csv",
    field: "mean tps of A (sequential) / mean tps of A (blocks, data/runs/rostedt-2023/20261130T011758Z/results.csv) − 1",
    value: (_t, root) => (measuredMean(root, "data/runs/rostedt-2023/20261130T015450Z", "A") / measuredMean(root, "data/runs/rostedt-2023/20261130T011758Z", "A") - 1) * 100,
  },
  {
    doc: R, sentence: "which had ended 25 minutes earlier", figure: "25 minutes", record: "data/runs/rostedt-2023/20261130T015450Z/results.csv",
    field: "first started of the sequential series − last ended of data/runs/rostedt-2023/20261130T011758Z/results.csv, minutes",
    value: (t, root) => {
      const start = Math.min(...csvRows(t).map((r) => Date.parse(r.started!)));
      const end = Math.max(...csvRows(readFileSync(join(root, "data/runs/rostedt-2023/20261130T011758Z/results.csv"), "utf8")).map((r) => Date.parse(r.ended!)));
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
  { doc: R, sentence: "≤ 0.0016% with the switch off", figure: "0.0016%", record: PGA, field: "costModel offPct (with lock-ops-per-txn and patch-cost/20261130T014521Z)", value: (_t, root) => model(root).offPct },
  { doc: R, sentence: "≤ 0.063% for the user-space request protocol", figure: "0.063%", record: PGA, field: "costModel protocolPct (with lock-ops-per-txn and patch-cost/20261130T014521Z)", value: (_t, root) => model(root).protocolPct },
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
  { doc: R, sentence: "36 s with a warm ccache", figure: "36 s", record: "data/runs/kernel-build/20261130T024149Z/20261130T024149Z.json", field: "builds.0.seconds" },
  { doc: R, sentence: "a boot to the command in 3.1 s (median of 3)", figure: "3.1 s", record: KB, field: "boots.medianBootToCommandS" },
  // Build times (README and REPRODUCE §5).
  { doc: "README.md", sentence: "a cold kernel build 755 s", figure: "755 s", record: KB, field: "builds.0.seconds" },
  { doc: "README.md", sentence: "the PostgreSQL 18 builds 2044 s (baseline)", figure: "2044 s", record: PGB, field: "buildSeconds of the baseline build", value: buildSeconds("baseline") },
  { doc: "README.md", sentence: "and 557 s (patched", figure: "557 s", record: PGB, field: "buildSeconds of the patched build", value: buildSeconds("patched") },
  { doc: R, sentence: "A cold kernel build took 755 s here", figure: "755 s", record: KB, field: "builds.0.seconds" },
  { doc: R, sentence: "builds of our records took 2044 s and 557 s", figure: "2044 s", record: PGB, field: "buildSeconds of the baseline build", value: buildSeconds("baseline") },
  { doc: R, sentence: "builds of our records took 2044 s and 557 s", figure: "557 s", record: PGB, field: "buildSeconds of the patched build", value: buildSeconds("patched") },
  // ===== §4, version 3 in the VM: the whole make check, rseq debugging, the counters' cross-check. =====
  { doc: R, sentence: "PostgreSQL 18.6 with version 3, All 231 tests passed in 1796 s of guest time", figure: "231", record: VMCHK18V3, field: "regress.passed (schedule.groups = groupsInSchedule = 28)", value: (t) => (jsonField(t, "schedule.groups") === jsonField(t, "schedule.groupsInSchedule") && jsonField(t, "regress.failed") === 0 ? jsonField(t, "regress.passed") : NaN) },
  { doc: R, sentence: "PostgreSQL 18.6 with version 3, All 231 tests passed in 1796 s of guest time", figure: "1796 s", record: VMCHK18V3, field: "checkSeconds" },
  { doc: R, sentence: "and the kernel made 42326 grants meanwhile", figure: "42326", record: VMCHK18V3, field: "rseqStatsDelta.sgrant" },
  { doc: R, sentence: "PostgreSQL 15.18 with version 3: All 217 tests passed in 1884.3 s of guest time", figure: "217", record: VMCHK15V3, field: "regress.passed (schedule.groups = groupsInSchedule = 27)", value: (t) => (jsonField(t, "schedule.groups") === jsonField(t, "schedule.groupsInSchedule") && jsonField(t, "regress.failed") === 0 ? jsonField(t, "regress.passed") : NaN) },
  { doc: R, sentence: "PostgreSQL 15.18 with version 3: All 217 tests passed in 1884.3 s of guest time", figure: "1884.3 s", record: VMCHK15V3, field: "checkSeconds" },
  { doc: R, sentence: "with 33797 kernel grants (`pg-check/20261204T221253Z/vm-pg15`", figure: "33797", record: VMCHK15V3, field: "rseqStatsDelta.sgrant" },
  { doc: R, sentence: "while version 3 survived 389 grants revoked on the way back to user space", figure: "389", record: PGDBG, field: "unfixed/v3-debug1 kernelDelta.srevok (outcome survived)", value: dbgRun("unfixed", "v3-debug1", (r) => (r.outcome === "survived" ? r.kernelDelta.srevok : NaN)) },
  { doc: R, sentence: "each of which leaves the syscall work bit set, with 410 clear yields", figure: "410", record: PGDBG, field: "unfixed/v3-debug1 patchDelta.clear_yields", value: dbgRun("unfixed", "v3-debug1", (r) => r.patchDelta.clear_yields) },
  { doc: R, sentence: "where 19 yields stood against the kernel's 23", figure: "19", record: `${TRV2}/raw/series/runs/001-on/result.json`, field: "countersDelta.granted_yielded", value: trDelta("granted_yielded") },
  { doc: R, sentence: "where 19 yields stood against the kernel's 23", figure: "23", record: `${TRV2}/analysis.json`, field: "statsDelta.syield" },
  { doc: R, sentence: "inside the counters' window its trace holds 19 yields and 175 grants", figure: "19 yields", record: `${TRV2}/raw/trace.txt.gz`, field: "tracedPgWindow inside.yield", value: trWin((w) => w.inside.yield ?? 0) },
  { doc: R, sentence: "inside the counters' window its trace holds 19 yields and 175 grants", figure: "175", record: `${TRV2}/raw/trace.txt.gz`, field: "tracedPgWindow inside.grants", value: trWin((w) => w.inside.grants) },
  { doc: R, sentence: "which 20 grants seen and 156 cleared words cover", figure: "20", record: `${TRV2}/raw/series/runs/001-on/result.json`, field: "countersDelta.granted_yielded + granted_expired", value: (t) => trDelta("granted_yielded")(t) + trDelta("granted_expired")(t) },
  { doc: R, sentence: "which 20 grants seen and 156 cleared words cover", figure: "156", record: `${TRV2}/raw/series/runs/001-on/result.json`, field: "countersDelta.dropped_without_grant", value: trDelta("dropped_without_grant") },
  { doc: R, sentence: "and the other 4 yields came from backends of the protocol's setup", figure: "4", record: `${TRV2}/raw/trace.txt.gz`, field: "tracedPgWindow outside.yield", value: trWin((w) => w.outside.yield ?? 0) },
  // ===== §4, our PostgreSQL patch: the version-2 records (pg-check, lock-ops, patch-cost). =====
  // Helpers adding §4 entries for new results: append below this block, do not reorder it.
  { doc: R, sentence: "the machine was shared, 1-minute load 10–12)", figure: "10", record: PG15, field: "min of host.load1Before/After of both pg-check summaries", value: (_t, root) => Math.min(...pgCheckLoads(root)) },
  { doc: R, sentence: "the machine was shared, 1-minute load 10–12)", figure: "12", record: PG15, field: "max of host.load1Before/After of both pg-check summaries", value: (_t, root) => Math.max(...pgCheckLoads(root)) },
  { doc: R, sentence: "PostgreSQL 15.18 All 217 tests passed in 85.9 s", figure: "217", record: PG15, field: "regress.passed" },
  { doc: R, sentence: "All 217 tests passed in 85.9 s", figure: "85.9 s", record: PG15, field: "checkSeconds" },
  { doc: R, sentence: "18.6 All 231 tests passed in 120 s", figure: "231", record: PG18, field: "regress.passed" },
  { doc: R, sentence: "All 231 tests passed in 120 s", figure: "120 s", record: PG18, field: "checkSeconds" },
  { doc: R, sentence: "logged the unavailable line with `EINVAL (errno 22)`", figure: "22", record: PG15, field: "the errno in serverSaid (the same in the pg18 summary)", value: errnoOf },
  { doc: R, sentence: "on 6.18): 41.06 (40.61–41.49)", figure: "41.06", record: OPS2, field: "perTransaction.mean.hook_executions" },
  { doc: R, sentence: "41.06 (40.61–41.49)", figure: "40.61", record: OPS2, field: "perTransaction.min.hook_executions" },
  { doc: R, sentence: "41.06 (40.61–41.49)", figure: "41.49", record: OPS2, field: "perTransaction.max.hook_executions" },
  { doc: R, sentence: "Of these, 15.32 are LWLock acquires", figure: "15.32", record: OPS2, field: "perTransaction.mean.acquires_lwlock" },
  { doc: R, sentence: "4.72 buffer header locks", figure: "4.72", record: OPS2, field: "perTransaction.mean.acquires_buffer_header" },
  { doc: R, sentence: "and 0.49 spinlocks, each with its release", figure: "0.49", record: OPS2, field: "perTransaction.mean.acquires_spinlock" },
  { doc: R, sentence: "Version 1's model counted 17.4 outermost requests", figure: "17.4", record: OPS, field: "perTransaction.requests.mean" },
  { doc: R, sentence: "200 rounds at a 1-minute load of 1.6→2.3 on 2 CPUs", figure: "200 rounds", record: HOOK3, field: "rounds" },
  { doc: R, sentence: "200 rounds at a 1-minute load of 1.6→2.3 on 2 CPUs", figure: "1.6", record: HOOK3, field: "host.load1Before" },
  { doc: R, sentence: "200 rounds at a 1-minute load of 1.6→2.3 on 2 CPUs", figure: "2.3", record: HOOK3, field: "host.load1After" },
  { doc: R, sentence: "the unhooked spinlock iteration took 12.1 ns", figure: "12.1 ns", record: HOOK3, field: "noneNs.spin.mean" },
  { doc: R, sentence: "off 0.13 ns (−0.07 … 0.32) in the spinlock pattern", figure: "0.13 ns", record: HOOK3, field: "addedNs.spin.off.mean" },
  { doc: R, sentence: "off 0.13 ns (−0.07 … 0.32) in the spinlock pattern", figure: "−0.07", record: HOOK3, field: "addedNs.spin.off.ci.0" },
  { doc: R, sentence: "off 0.13 ns (−0.07 … 0.32) in the spinlock pattern", figure: "0.32", record: HOOK3, field: "addedNs.spin.off.ci.1" },
  { doc: R, sentence: "and 0.09 ns (0.01 … 0.17) in the nested one", figure: "0.09 ns", record: HOOK3, field: "addedNs.nested.off.mean" },
  { doc: R, sentence: "and 0.09 ns (0.01 … 0.17) in the nested one", figure: "0.01", record: HOOK3, field: "addedNs.nested.off.ci.0" },
  { doc: R, sentence: "and 0.09 ns (0.01 … 0.17) in the nested one", figure: "0.17", record: HOOK3, field: "addedNs.nested.off.ci.1" },
  { doc: R, sentence: "with its counters 1.45 ns (1.31 … 1.59)", figure: "1.45 ns", record: HOOK3, field: "addedNs.spin.all.mean" },
  { doc: R, sentence: "with its counters 1.45 ns (1.31 … 1.59)", figure: "1.31", record: HOOK3, field: "addedNs.spin.all.ci.0" },
  { doc: R, sentence: "with its counters 1.45 ns (1.31 … 1.59)", figure: "1.59", record: HOOK3, field: "addedNs.spin.all.ci.1" },
  { doc: R, sentence: "and 0.63 ns (0.55 … 0.72)", figure: "0.63 ns", record: HOOK3, field: "addedNs.nested.all.mean" },
  { doc: R, sentence: "and 0.63 ns (0.55 … 0.72)", figure: "0.55", record: HOOK3, field: "addedNs.nested.all.ci.0" },
  { doc: R, sentence: "and 0.63 ns (0.55 … 0.72)", figure: "0.72", record: HOOK3, field: "addedNs.nested.all.ci.1" },
  { doc: R, sentence: "the most hook executions per transaction (41.49)", figure: "41.49", record: OPS2, field: "perTransaction.max.hook_executions" },
  { doc: R, sentence: "at most 0.016% of a pgbench -S transaction's CPU with the switch off", figure: "0.016%", record: HOOK3, field: "notebook 03's v2 cost model, switch off (upper)", value: v2ModelPct("off") },
  { doc: R, sentence: "and at most 0.066% with the request protocol", figure: "0.066%", record: HOOK3, field: "notebook 03's v2 cost model, request protocol (upper)", value: v2ModelPct("all") },
  { doc: R, sentence: "at a load of 22) could not resolve this", figure: "22", record: HOOK2, field: "host.load1Before (22.38 after)", value: (t) => jsonField(t, "host.load1Before") },
  { doc: R, sentence: "its unhooked loop took 77 ns per iteration", figure: "77 ns", record: HOOK2, field: "noneNs.spin.mean" },
  { doc: R, sentence: "and one \"switch off\" interval lay entirely below zero", figure: "one", record: HOOK2, field: "count of addedNs.{spin,nested}.off.ci with an upper end < 0", value: offIntervalsBelowZero },

  // ===== §3, how `slicelab compare` scales (compare-scaling). =====
  { doc: R, sentence: "At a 1-minute load of 16.5 before and 16.8 after", figure: "16.5", record: CSC1, field: "loadAverageBefore.0" },
  { doc: R, sentence: "At a 1-minute load of 16.5 before and 16.8 after", figure: "16.8", record: CSC1, field: "loadAverageAfter.0" },
  ...scalingEntries(CSC1, { small: "2 × 1,000 runs 2.50 s wall (1.00 s CPU)", large: "2 × 10,000 runs 7.50 s wall (3.48 s CPU), ratio 10,000/1,000 = 3.00 wall, 3.48 CPU", ratio: "ratio 10,000/1,000 = 3.00 wall, 3.48 CPU" }),
  { doc: R, sentence: "At a 1-minute load of 1.34 before and 2.04 after", figure: "1.34", record: CSC2, field: "loadAverageBefore.0" },
  { doc: R, sentence: "At a 1-minute load of 1.34 before and 2.04 after", figure: "2.04", record: CSC2, field: "loadAverageAfter.0" },
  ...scalingEntries(CSC2, { small: "2 × 1,000 runs 0.963 s wall (0.96 s CPU)", large: "2 × 10,000 runs 4.317 s wall (3.46 s CPU), ratio 4.483 wall, 3.604 CPU", ratio: "ratio 4.483 wall, 3.604 CPU" }),
  { doc: R, sentence: "4.317 s at the lower load, of which the bootstrap took 2.708 s in process", figure: "4.317 s", record: CSC2, field: "time10kS" },
  { doc: R, sentence: "4.317 s at the lower load, of which the bootstrap took 2.708 s in process", figure: "2.708 s", record: CSC2, field: "parts.seconds.bootstrap" },
  { doc: R, sentence: "leave-one-out 0.189 s", figure: "0.189 s", record: CSC2, field: "parts.seconds.leaveOneOut" },
  { doc: R, sentence: "a 1-minute load of 0.27 before and 0.32 after", figure: "0.27", record: CSC3, field: "loadAverageBefore.0" },
  { doc: R, sentence: "a 1-minute load of 0.27 before and 0.32 after", figure: "0.32", record: CSC3, field: "loadAverageAfter.0" },
  { doc: R, sentence: "with the bootstrap in 2 threads", figure: "2 threads", record: CSC3, field: "rows[runsPerSide=10000].bootstrapThreads", value: (t) => (json(t) as Json).rows.find((x: Json) => x.runsPerSide === 10000).bootstrapThreads as number },
  ...scalingEntries(CSC3, { small: "2 × 1,000 runs 0.367 s wall (0.53 s CPU)", large: "2 × 10,000 runs 0.801 s wall (1.35 s CPU), ratio 2.183 wall, 2.547 CPU", ratio: "ratio 2.183 wall, 2.547 CPU" }),
  { doc: R, sentence: "the bootstrap took 0.463 s in", figure: "0.463 s", record: CSC3, field: "parts.seconds.bootstrap" },
  { doc: R, sentence: "at a load of 0.69 before and 1.03 after", figure: "0.69", record: CSC4, field: "loadAverageBefore.0" },
  { doc: R, sentence: "at a load of 0.69 before and 1.03 after", figure: "1.03", record: CSC4, field: "loadAverageAfter.0" },
  { doc: R, sentence: "2 × 10,000 runs 1.11 s wall (1.27 s CPU), ratio 3.049 wall, 2.702 CPU; the bootstrap 0.786 s", figure: "1.11 s", record: CSC4, field: "time10kS" },
  { doc: R, sentence: "2 × 10,000 runs 1.11 s wall (1.27 s CPU), ratio 3.049 wall, 2.702 CPU; the bootstrap 0.786 s", figure: "1.27 s", record: CSC4, field: "rows[runsPerSide=10000].medianCpuS", value: (t) => (json(t) as Json).rows.find((x: Json) => x.runsPerSide === 10000).medianCpuS as number },
  { doc: R, sentence: "2 × 10,000 runs 1.11 s wall (1.27 s CPU), ratio 3.049 wall, 2.702 CPU; the bootstrap 0.786 s", figure: "3.049", record: CSC4, field: "ratio10kOver1kWall" },
  { doc: R, sentence: "2 × 10,000 runs 1.11 s wall (1.27 s CPU), ratio 3.049 wall, 2.702 CPU; the bootstrap 0.786 s", figure: "2.702", record: CSC4, field: "ratio10kOver1kCpu" },
  { doc: R, sentence: "2 × 10,000 runs 1.11 s wall (1.27 s CPU), ratio 3.049 wall, 2.702 CPU; the bootstrap 0.786 s", figure: "0.786 s", record: CSC4, field: "parts.seconds.bootstrap" },
  { doc: R, sentence: "one thread at a load of 3.1", figure: "3.1", record: CSC5, field: "loadAverageBefore.0" },
  { doc: R, sentence: "took 1.957 s, two threads", figure: "1.957 s", record: CSC5, field: "time10kS" },
  { doc: R, sentence: "two threads at a load of 3.21–3.71", figure: "3.21", record: CSC6, field: "loadAverageBefore.0" },
  { doc: R, sentence: "two threads at a load of 3.21–3.71", figure: "3.71", record: CSC6, field: "loadAverageAfter.0" },
  { doc: R, sentence: "(`data/runs/compare-scaling/20261202T062523Z/`) 2.148 s", figure: "2.148 s", record: CSC6, field: "time10kS" },

  // ===== §4, the pgbench -S cost of version 1 (patch-cost/20261130T021229Z, -20261130T065433Z, -concurrent). =====
  {
    doc: R, sentence: "(`data/runs/patch-cost/20261130T021229Z/`, `data/runs/patch-cost/20261130T022242Z/`): ±38%", figure: "±38%", record: PCP,
    field: "half the width of offVsBaseline.ciPct", value: (t) => (jsonField(t, "offVsBaseline.ciPct.1") - jsonField(t, "offVsBaseline.ciPct.0")) / 2,
  },
  { doc: R, sentence: "`data/runs/patch-cost/20261130T065433Z/`, 26 min)", figure: "26 min", record: PGA, field: "ended − started, minutes", value: minutes },
  { doc: R, sentence: "10 s per run, 48 blocks holding every arm", figure: "48 blocks", record: PGA, field: "blocks" },
  { doc: R, sentence: "off / baseline 1.053 (95% CI 1.015–1.092)", figure: "1.053", record: PGA, field: "comparisons[off/baseline].ratio", value: cmpField("off", "baseline", (c) => c.ratio) },
  { doc: R, sentence: "off / baseline 1.053 (95% CI 1.015–1.092)", figure: "1.015", record: PGA, field: "comparisons[off/baseline].ci95.0", value: cmpField("off", "baseline", (c) => c.ci95[0]) },
  { doc: R, sentence: "off / baseline 1.053 (95% CI 1.015–1.092)", figure: "1.092", record: PGA, field: "comparisons[off/baseline].ci95.1", value: cmpField("off", "baseline", (c) => c.ci95[1]) },
  { doc: R, sentence: "all / baseline 1.051 (1.002–1.104)", figure: "1.051", record: PGA, field: "comparisons[on/baseline].ratio", value: cmpField("on", "baseline", (c) => c.ratio) },
  { doc: R, sentence: "all / baseline 1.051 (1.002–1.104)", figure: "1.002", record: PGA, field: "comparisons[on/baseline].ci95.0", value: cmpField("on", "baseline", (c) => c.ci95[0]) },
  { doc: R, sentence: "all / baseline 1.051 (1.002–1.104)", figure: "1.104", record: PGA, field: "comparisons[on/baseline].ci95.1", value: cmpField("on", "baseline", (c) => c.ci95[1]) },
  { doc: R, sentence: "all / off 0.998 (0.962–1.036)", figure: "0.998", record: PGA, field: "comparisons[on/off].ratio", value: cmpField("on", "off", (c) => c.ratio) },
  { doc: R, sentence: "all / off 0.998 (0.962–1.036)", figure: "0.962", record: PGA, field: "comparisons[on/off].ci95.0", value: cmpField("on", "off", (c) => c.ci95[0]) },
  { doc: R, sentence: "all / off 0.998 (0.962–1.036)", figure: "1.036", record: PGA, field: "comparisons[on/off].ci95.1", value: cmpField("on", "off", (c) => c.ci95[1]) },
  { doc: R, sentence: "the patched server was 5% *faster*", figure: "5%", record: PGA, field: "−comparisons[on/baseline].costPct", value: cmpField("on", "baseline", (c) => -c.costPct) },
  { doc: R, sentence: "The per-block sd is 12.6%", figure: "12.6%", record: PGA, field: "comparisons[off/baseline].sdLogPerPair × 100", value: cmpField("off", "baseline", (c) => 100 * c.sdLogPerPair) },
  {
    doc: R, sentence: "differ by a median of 5.3% and by up to 43.2%", figure: "5.3%", record: "data/runs/patch-cost/20261130T065433Z/runs.jsonl",
    field: "median over consecutive measured runs of |tps / previous tps − 1|, %", value: (_t, root) => medianOf(consecutiveDiffsPct(root)),
  },
  {
    doc: R, sentence: "differ by a median of 5.3% and by up to 43.2%", figure: "43.2%", record: "data/runs/patch-cost/20261130T065433Z/runs.jsonl",
    field: "max over consecutive measured runs of |tps / previous tps − 1|, %", value: (_t, root) => Math.max(...consecutiveDiffsPct(root)),
  },
  {
    doc: R, sentence: "Resolving 0.5% would take about 5000 blocks", figure: "5000", record: PGA,
    field: "comparisons[off/baseline].pairsNeeded.pairsIfNoEffect80, rounded to thousands", value: cmpField("off", "baseline", (c) => Math.round(c.pairsNeeded.pairsIfNoEffect80 / 1000) * 1000),
  },
  { doc: R, sentence: "`data/runs/patch-cost/20261130T072231Z/`, 14 min)", figure: "14 min", record: PCC, field: "ended − started, minutes", value: minutes },
  { doc: R, sentence: "all at once, in 80 rounds of 10 s", figure: "80 rounds", record: PCC, field: "blocks" },
  { doc: R, sentence: "The A/A control gave 0.952 (0.920–0.984)", figure: "0.952", record: PCC, field: "comparisons[baseline2/baseline].ratio", value: cmpField("baseline2", "baseline", (c) => c.ratio) },
  { doc: R, sentence: "The A/A control gave 0.952 (0.920–0.984)", figure: "0.920", record: PCC, field: "comparisons[baseline2/baseline].ci95.0", value: cmpField("baseline2", "baseline", (c) => c.ci95[0]) },
  { doc: R, sentence: "The A/A control gave 0.952 (0.920–0.984)", figure: "0.984)", record: PCC, field: "comparisons[baseline2/baseline].ci95.1", value: cmpField("baseline2", "baseline", (c) => c.ci95[1]) },
  { doc: R, sentence: "two identical clusters differ by 4.8%", figure: "4.8%", record: PCC, field: "comparisons[baseline2/baseline].costPct", value: cmpField("baseline2", "baseline", (c) => c.costPct) },
  { doc: R, sentence: "off / baseline 0.978 (0.947–1.010)", figure: "0.978", record: PCC, field: "comparisons[off/baseline].ratio", value: cmpField("off", "baseline", (c) => c.ratio) },
  { doc: R, sentence: "off / baseline 0.978 (0.947–1.010)", figure: "0.947", record: PCC, field: "comparisons[off/baseline].ci95.0", value: cmpField("off", "baseline", (c) => c.ci95[0]) },
  { doc: R, sentence: "off / baseline 0.978 (0.947–1.010)", figure: "1.010", record: PCC, field: "comparisons[off/baseline].ci95.1", value: cmpField("off", "baseline", (c) => c.ci95[1]) },
  { doc: R, sentence: "all / off 0.984 (0.951–1.019)", figure: "0.984", record: PCC, field: "comparisons[on/off].ratio", value: cmpField("on", "off", (c) => c.ratio) },
  { doc: R, sentence: "all / off 0.984 (0.951–1.019)", figure: "0.951", record: PCC, field: "comparisons[on/off].ci95.0", value: cmpField("on", "off", (c) => c.ci95[0]) },
  { doc: R, sentence: "all / off 0.984 (0.951–1.019)", figure: "1.019", record: PCC, field: "comparisons[on/off].ci95.1", value: cmpField("on", "off", (c) => c.ci95[1]) },

  // ===== §5, the kernel path in the VM (vm-eviction-*, vm-slice-trace-*). =====
  // Helpers adding §5 entries for new results: append below this block, do not reorder it.
  { doc: R, sentence: "with three runs per arm", figure: "three", record: "data/runs/vm-eviction/20261130T031518Z/comparison.json", field: "welch runs per arm (a.n, the same in the lazy record)", value: firstNumber("n") },
  { doc: R, sentence: "Each has 7 measured runs per arm", figure: "7", record: EVC, field: "cells[full/off].n (every cell: 7)", value: (t) => Math.min(...(json(t) as Json).cells.map((c: Json) => c.n)) },
  { doc: R, sentence: "the boot to the command took 3.6–4.2 s", figure: "3.6", record: `${EV}/full-7.2.13/console-and-progress.log`, field: "min of \"boot to command\" over the three cells' console logs", value: (_t, root) => Math.min(...evBoots(root)) },
  { doc: R, sentence: "the boot to the command took 3.6–4.2 s", figure: "4.2 s", record: `${EV}/none-6.1.176/console-and-progress.log`, field: "max of \"boot to command\" over the three cells' console logs", value: (_t, root) => Math.max(...evBoots(root)) },
  { doc: R, sentence: "145 grants under `full` and 82 under `lazy`", figure: "145", record: EVC, field: "cells[full/on].sliceExtension.grants", value: (t) => evCell("full", "on")(t).sliceExtension.grants },
  { doc: R, sentence: "145 grants under `full` and 82 under `lazy`", figure: "82", record: EVC, field: "cells[lazy/on].sliceExtension.grants", value: (t) => evCell("lazy", "on")(t).sliceExtension.grants },
  { doc: R, sentence: "out of 1.2 and 1.5 million requests", figure: "1.2", record: EVC, field: "cells[full/on].sliceExtension.requests / 1e6", value: (t) => evCell("full", "on")(t).sliceExtension.requests / 1e6 },
  { doc: R, sentence: "out of 1.2 and 1.5 million requests", figure: "1.5", record: EVC, field: "cells[lazy/on].sliceExtension.requests / 1e6", value: (t) => evCell("lazy", "on")(t).sliceExtension.requests / 1e6 },
  { doc: R, sentence: "with 6.4–6.5 thousand revocations each", figure: "6.4", record: EVC, field: "cells[lazy/on].sliceExtension.revoked / 1000", value: (t) => evCell("lazy", "on")(t).sliceExtension.revoked / 1000 },
  { doc: R, sentence: "with 6.4–6.5 thousand revocations each", figure: "6.5", record: EVC, field: "cells[full/on].sliceExtension.revoked / 1000", value: (t) => evCell("full", "on")(t).sliceExtension.revoked / 1000 },
  ...([
    ["`none` −10.9% (95% CI −40.6 to +18.8%)", "none-off-vs-on", "−10.9%", "−40.6", "+18.8%"],
    ["`full` +0.4% (−31.0 to +31.8%)", "full-off-vs-on", "+0.4%", "−31.0", "+31.8%"],
    ["`lazy` −5.4% (−26.0 to +15.3%)", "lazy-off-vs-on", "−5.4%", "−26.0", "+15.3%"],
  ] as const).flatMap(([sentence, name, d, lo, hi]): FigureEntry[] => [
    { doc: R, sentence, figure: d, record: EVC, field: `comparisons[${name}].differencePct`, value: evCmp(name, (c) => c.differencePct) },
    { doc: R, sentence, figure: lo, record: EVC, field: `comparisons[${name}].ci95Pct.0`, value: evCmp(name, (c) => c.ci95Pct[0]) },
    { doc: R, sentence, figure: hi, record: EVC, field: `comparisons[${name}].ci95Pct.1`, value: evCmp(name, (c) => c.ci95Pct[1]) },
  ]),
  { doc: R, sentence: "`lazy` ran 31–39% faster than `full`", figure: "31", record: EVC, field: "comparisons[on-full-vs-lazy].differencePct", value: evCmp("on-full-vs-lazy", (c) => c.differencePct) },
  { doc: R, sentence: "`lazy` ran 31–39% faster than `full`", figure: "39%", record: EVC, field: "comparisons[off-full-vs-lazy].differencePct", value: evCmp("off-full-vs-lazy", (c) => c.differencePct) },
  { doc: R, sentence: "(p = 0.03 and 0.02; 2 of 9", figure: "p = 0.03", record: EVC, field: "comparisons[off-full-vs-lazy].welchP", value: evCmp("off-full-vs-lazy", (c) => c.welchP) },
  { doc: R, sentence: "(p = 0.03 and 0.02; 2 of 9", figure: "0.02", record: EVC, field: "comparisons[on-full-vs-lazy].welchP", value: evCmp("on-full-vs-lazy", (c) => c.welchP) },
  { doc: R, sentence: "0.02; 2 of 9 uncorrected comparisons", figure: "2 of", record: EVC, field: "comparisons with welchP < 0.05", value: (t) => (json(t) as Json).comparisons.filter((c: Json) => c.welchP < 0.05).length },
  { doc: R, sentence: "0.02; 2 of 9 uncorrected comparisons", figure: "9 uncorrected", record: EVC, field: "comparisons.length", value: (t) => (json(t) as Json).comparisons.length },
  { doc: R, sentence: "The kernel granted 338 extensions", figure: "338", record: ST("043540Z"), field: "tracepoints.grants" },
  { doc: R, sentence: "the timer method saw 277 of them", figure: "277", record: ST("043540Z"), field: "hrtimer.intervals" },
  { doc: R, sentence: "27 grants expired before reaching user space", figure: "27", record: ST("043540Z"), field: "tracepoints.outcomes.expired-before-user", value: (t) => (json(t) as Json).tracepoints.outcomes["expired-before-user"] },
  { doc: R, sentence: "and 34 were revoked before the timer was armed", figure: "34", record: ST("043540Z"), field: "tracepoints.outcomes.revoked-before-user", value: (t) => (json(t) as Json).tracepoints.outcomes["revoked-before-user"] },
  { doc: R, sentence: "(expired/expired 234,", figure: "234", record: ST("043540Z"), field: "matching.disagreements[expired/expired].n", value: matchPair("expired/expired", (m) => m.n) },
  { doc: R, sentence: "yield/cancelled 35,", figure: "35", record: ST("043540Z"), field: "matching.disagreements[yield/cancelled].n", value: matchPair("yield/cancelled", (m) => m.n) },
  { doc: R, sentence: "expired-in-syscall/expired 8)", figure: "8", record: ST("043540Z"), field: "matching.disagreements[expired-in-syscall/expired].n", value: matchPair("expired-in-syscall/expired", (m) => m.n) },
  { doc: R, sentence: "a median 45.8 µs late for expiries", figure: "45.8 µs", record: ST("043540Z"), field: "−matching.disagreements[expired/expired].medianDiffNs / 1000", value: matchPair("expired/expired", (m) => -m.medianDiffNs / 1000) },
  { doc: R, sentence: "1.8 µs when measured from the timer's deadline", figure: "1.8 µs", record: ST("043540Z"), field: "−matching.disagreements[expired/expired].medianDeadlineDiffNs / 1000", value: matchPair("expired/expired", (m) => -m.medianDeadlineDiffNs / 1000) },
  { doc: R, sentence: "208 of 237 grants expired before user space", figure: "208", record: ST("042623Z"), field: "tracepoints.outcomes.expired-before-user", value: (t) => (json(t) as Json).tracepoints.outcomes["expired-before-user"] },
  { doc: R, sentence: "208 of 237 grants expired before user space", figure: "237", record: ST("042623Z"), field: "tracepoints.grants" },
  { doc: R, sentence: "pgbench completed 1527 transactions", figure: "1527", record: "data/runs/slice-trace/20261130T051418Z/raw/series/runs/001-on/result.json", field: "workloads[0] transactionsProcessed", value: firstNumber("transactionsProcessed") },
  { doc: R, sentence: "backends received 119 grants", figure: "119", record: ST("051418Z"), field: "tracepoints.grants" },
  ...(["sgrant 119", "sexpir 70", "srevok 106", "syield 12", "sabort 1)"] as const).map((figure): FigureEntry => ({
    doc: R, sentence: "(sgrant 119, sexpir 70, srevok 106, syield 12, sabort 1)", figure, record: ST("051418Z"), field: `statsDelta.${figure.split(" ")[0]} (= crossCheck trace count)`,
    value: (t) => {
      const k = figure.split(" ")[0]!;
      const c = (json(t) as Json).crossCheck.find((x: Json) => x.counter === k);
      if (!c || c.stats !== c.trace) throw new Error(`${k}: rseq/stats and the trace disagree`);
      return c.stats;
    },
  })),
  { doc: R, sentence: "The timer method saw 82 of the 119 grants", figure: "82", record: ST("051418Z"), field: "hrtimer.intervals" },
  { doc: R, sentence: "missing the 37 that expired or were revoked", figure: "37", record: ST("051418Z"), field: "matching.grantsWithoutTimer" },
  { doc: R, sentence: "the medians were 121.6 µs from our tracepoints", figure: "121.6 µs", record: ST("051418Z"), field: "tracepoints.durationNs.median / 1000", value: (t) => jsonField(t, "tracepoints.durationNs.median") / 1000 },
  { doc: R, sentence: "and 64.2 µs from the hrtimer events", figure: "64.2 µs", record: ST("051418Z"), field: "hrtimer.durationNs.median / 1000", value: (t) => jsonField(t, "hrtimer.durationNs.median") / 1000 },
  { doc: R, sentence: "the timer's interval is a median 41.7 µs shorter for expiries", figure: "41.7 µs", record: ST("051418Z"), field: "−matching.disagreements[expired/expired].medianDiffNs / 1000", value: matchPair("expired/expired", (m) => -m.medianDiffNs / 1000) },

  // ===== §6, lock statistics in the VM (sangappa-2024-locktable/20261130T075623Z). =====
  { doc: R, sentence: "held 182 lock classes, 13 of them contended", figure: "182", record: LSCAP, field: "classes of the capture (captureSummary of parseProcLockStat)", value: (t) => capture(t).classes },
  { doc: R, sentence: "held 182 lock classes, 13 of them contended", figure: "13", record: LSCAP, field: "contended classes of the capture", value: (t) => capture(t).contended },
  { doc: R, sentence: "6–15% in one lockstat boot", figure: "6", record: `${LSV}/lockstat-1/series/results.jsonl`, field: "min kernel lock wait share of the lockstat-1 snapshots (waitShareRanges, 2 vCPUs)", value: waitRange("lockstat-1", "min") },
  { doc: R, sentence: "6–15% in one lockstat boot", figure: "15%", record: `${LSV}/lockstat-1/series/results.jsonl`, field: "max kernel lock wait share of the lockstat-1 snapshots", value: waitRange("lockstat-1", "max") },
  { doc: R, sentence: "and 0.2–2.6% in the other", figure: "0.2", record: `${LSV}/lockstat-2/series/results.jsonl`, field: "min kernel lock wait share of the lockstat-2 snapshots", value: waitRange("lockstat-2", "min") },
  { doc: R, sentence: "and 0.2–2.6% in the other", figure: "2.6%", record: `${LSV}/lockstat-2/series/results.jsonl`, field: "max kernel lock wait share of the lockstat-2 snapshots", value: waitRange("lockstat-2", "max") },
  { doc: R, sentence: "ranged over 129–2937 µs/op", figure: "129", record: `${LSV}/plain-3/pipe-after.txt`, field: "min of the plain boots' pipe-before/after usecs/op", value: (_t, root) => Math.min(...plainPipe(root)) },
  { doc: R, sentence: "ranged over 129–2937 µs/op", figure: "2937", record: `${LSV}/plain-1/pipe-before.txt`, field: "max of the plain boots' pipe-before/after usecs/op", value: (_t, root) => Math.max(...plainPipe(root)) },
  {
    doc: R, sentence: "the lockstat/plain ratio of medians (1.78)", figure: "1.78", record: `${LSV}/lockstat-1/pipe-before.txt`,
    field: "median usecs/op of the lockstat boots / median of the plain boots (pipe-before/after)",
    value: (_t, root) => medianOf(["lockstat-1", "lockstat-2"].flatMap((b) => pipeRuns(root, b)).sort((a, b) => a - b)) / medianOf(plainPipe(root).sort((a, b) => a - b)),
  },

  // §4 patch v2: version 1 and version 2 side by side (the table after the version 2 records).
  { doc: R, sentence: "all 21 passed in 184.9 s of guest time", figure: "21", record: VMCHK, field: "regress.passed" },
  { doc: R, sentence: "all 21 passed in 184.9 s of guest time", figure: "184.9", record: VMCHK, field: "checkSeconds" },
  { doc: R, sentence: "the kernel made 1698 grants meanwhile", figure: "1698", record: VMCHK, field: "rseqStatsDelta.sgrant" },
  { doc: R, sentence: "all 112 passed in 1393.6 s of guest time, with 43690 kernel grants", figure: "112", record: VMCHK10, field: "regress.passed" },
  { doc: R, sentence: "all 112 passed in 1393.6 s of guest time, with 43690 kernel grants", figure: "1393.6", record: VMCHK10, field: "checkSeconds" },
  { doc: R, sentence: "all 112 passed in 1393.6 s of guest time, with 43690 kernel grants", figure: "43690", record: VMCHK10, field: "rseqStatsDelta.sgrant" },
  { doc: R, sentence: "The first 10 groups (112 tests", figure: "112", record: VMCHK10, field: "schedule.tests" },
  { doc: R, sentence: "17.4 outermost requests (the 7.2 VM", figure: "17.4", record: OPS, field: "perTransaction.requests.mean" },
  { doc: R, sentence: "41.06 hook executions (the 6.18 host", figure: "41.06", record: LV2, field: "perTransaction.mean.hook_executions" },
  { doc: R, sentence: "47.09 in the VM without the shim", figure: "47.09", record: LVM, field: "perTransaction.mean.hook_executions" },
  { doc: R, sentence: "0.024 re-arms and 0.064 requests dropped without a grant per transaction", figure: "0.024", record: LVM, field: "perTransaction.mean.rearmed" },
  { doc: R, sentence: "0.024 re-arms and 0.064 requests dropped without a grant per transaction", figure: "0.064", record: LVM, field: "perTransaction.mean.dropped_without_grant" },
  { doc: R, sentence: "145 grants and 6503 revocations in 7 runs", figure: "145", record: V1CELLS, field: "cells[mode=full, variant=on].sliceExtension.grants", value: v1Cell("full", "grants") },
  { doc: R, sentence: "145 grants and 6503 revocations in 7 runs", figure: "6503", record: V1CELLS, field: "cells[mode=full, variant=on].sliceExtension.revoked", value: v1Cell("full", "revoked") },
  { doc: R, sentence: "145 grants and 6503 revocations in 7 runs", figure: "7 runs", record: V1CELLS, field: "cells[mode=full, variant=on].n", value: v1Cell("full", "n") },
  { doc: R, sentence: "82 grants and 6442 revocations in 7 runs", figure: "82", record: V1CELLS, field: "cells[mode=lazy, variant=on].sliceExtension.grants", value: v1Cell("lazy", "grants") },
  { doc: R, sentence: "82 grants and 6442 revocations in 7 runs", figure: "6442", record: V1CELLS, field: "cells[mode=lazy, variant=on].sliceExtension.revoked", value: v1Cell("lazy", "revoked") },
  { doc: R, sentence: "2 grants, 644 re-arms and 1067 requests dropped without a grant in 2 runs", figure: "2 grants", record: V2STUDY, field: "full, all: granted_yielded + granted_expired summed (seriesCellCounters)", value: v2Cell("full", (c) => c.counters.pgGrantedYielded! + c.counters.pgGrantedExpired!) },
  { doc: R, sentence: "2 grants, 644 re-arms and 1067 requests dropped without a grant in 2 runs", figure: "644", record: V2STUDY, field: "full, all: rearmed summed (seriesCellCounters)", value: v2Cell("full", (c) => c.counters.pgRearmed!) },
  { doc: R, sentence: "2 grants, 644 re-arms and 1067 requests dropped without a grant in 2 runs", figure: "1067", record: V2STUDY, field: "full, all: dropped_without_grant summed (seriesCellCounters)", value: v2Cell("full", (c) => c.counters.pgDroppedWithoutGrant!) },
  { doc: R, sentence: "2 grants, 644 re-arms and 1067 requests dropped without a grant in 2 runs", figure: "2 runs", record: V2STUDY, field: "full, all: measured runs (seriesCellCounters)", value: v2Cell("full", (c) => c.runs) },
  { doc: R, sentence: "0 grants, 618 re-arms and 997 requests dropped", figure: "0 grants", record: V2STUDY, field: "lazy, all: granted_yielded + granted_expired summed (seriesCellCounters)", value: v2Cell("lazy", (c) => c.counters.pgGrantedYielded! + c.counters.pgGrantedExpired!) },
  { doc: R, sentence: "0 grants, 618 re-arms and 997 requests dropped", figure: "618", record: V2STUDY, field: "lazy, all: rearmed summed (seriesCellCounters)", value: v2Cell("lazy", (c) => c.counters.pgRearmed!) },
  { doc: R, sentence: "0 grants, 618 re-arms and 997 requests dropped", figure: "997", record: V2STUDY, field: "lazy, all: dropped_without_grant summed (seriesCellCounters)", value: v2Cell("lazy", (c) => c.counters.pgDroppedWithoutGrant!) },
  { doc: R, sentence: "the first 2 of 27 groups passed (2 of 2 tests) in 57 s of guest time", figure: "2 of 27", record: VMCHK15, field: "schedule.groups", value: (t) => jsonField(t, "schedule.groups") },
  { doc: R, sentence: "the first 2 of 27 groups passed (2 of 2 tests) in 57 s of guest time", figure: "27", record: VMCHK15, field: "schedule.groupsInSchedule" },
  { doc: R, sentence: "the first 2 of 27 groups passed (2 of 2 tests) in 57 s of guest time", figure: "(2 of 2", record: VMCHK15, field: "regress.passed" },
  { doc: R, sentence: "the first 2 of 27 groups passed (2 of 2 tests) in 57 s of guest time", figure: "2 tests)", record: VMCHK15, field: "schedule.tests" },
  { doc: R, sentence: "the first 2 of 27 groups passed (2 of 2 tests) in 57 s of guest time", figure: "57 s", record: VMCHK15, field: "checkSeconds" },
  { doc: R, sentence: "and the kernel made 79 grants (`pg-check/20261202T010223Z/vm-pg15`)", figure: "79", record: VMCHK15, field: "rseqStatsDelta.sgrant" },
  { doc: R, sentence: "Its first 11 groups (110 tests, with `create_index`", figure: "11 groups", record: VMCHK15G11, field: "schedule.groups" },
  { doc: R, sentence: "Its first 11 groups (110 tests, with `create_index`", figure: "110 tests", record: VMCHK15G11, field: "schedule.tests" },
  { doc: R, sentence: "all 110 passed in 630.5 s of guest time, with 36161 kernel grants", figure: "110", record: VMCHK15G11, field: "regress.passed" },
  { doc: R, sentence: "all 110 passed in 630.5 s of guest time, with 36161 kernel grants", figure: "630.5", record: VMCHK15G11, field: "checkSeconds" },
  { doc: R, sentence: "all 110 passed in 630.5 s of guest time, with 36161 kernel grants", figure: "36161", record: VMCHK15G11, field: "rseqStatsDelta.sgrant" },
  { doc: R, sentence: "version 1's processed 16421 transactions (21 clients, about 224 tps)", figure: "16421", record: `${EVV1}/results.jsonl`, field: "full/on: transactionsProcessed summed over measured runs (evictionCell)", value: ev(EVV1, "on", (c) => c.transactions) },
  { doc: R, sentence: "version 1's processed 16421 transactions (21 clients, about 224 tps)", figure: "21 clients", record: `${EVV1}/results.jsonl`, field: "series.json workloads[0].params.clients", value: ev(EVV1, "on", (c) => c.clients!) },
  { doc: R, sentence: "version 1's processed 16421 transactions (21 clients, about 224 tps)", figure: "224 tps", record: `${EVV1}/results.jsonl`, field: "transactions / run-seconds (evictionCell.meanTps)", value: ev(EVV1, "on", (c) => c.meanTps) },
  { doc: R, sentence: "version 2's study 1049 (4 clients, about 24 tps)", figure: "1049", record: `${EVST}/results.jsonl`, field: "full/all: transactions (evictionCell)", value: ev(EVST, EVSTC, (c) => c.transactions) },
  { doc: R, sentence: "version 2's study 1049 (4 clients, about 24 tps)", figure: "4 clients", record: `${EVST}/results.jsonl`, field: "series.json params.clients", value: ev(EVST, EVSTC, (c) => c.clients!) },
  { doc: R, sentence: "version 2's study 1049 (4 clients, about 24 tps)", figure: "24 tps", record: `${EVST}/results.jsonl`, field: "evictionCell.meanTps", value: ev(EVST, EVSTC, (c) => c.meanTps) },
  { doc: R, sentence: "the patch saw 0.0088 grants with version 1 and 0.0019 in the study", figure: "0.0088", record: `${EVV1}/results.jsonl`, field: "grantsPerTransaction", value: ev(EVV1, "on", (c) => c.grantsPerTransaction) },
  { doc: R, sentence: "the patch saw 0.0088 grants with version 1 and 0.0019 in the study", figure: "0.0019", record: `${EVST}/results.jsonl`, field: "grantsPerTransaction", value: ev(EVST, EVSTC, (c) => c.grantsPerTransaction) },
  { doc: R, sentence: "(`vm-eviction/20261202T010551Z`: 21 clients, scale 4, 2 MB of shared buffers, 7 measured runs of 10 s, seed 7", figure: "21 clients", record: `${EVV2}/results.jsonl`, field: "params.clients", value: ev(EVV2, "on", (c) => c.clients!) },
  { doc: R, sentence: "(`vm-eviction/20261202T010551Z`: 21 clients, scale 4, 2 MB of shared buffers, 7 measured runs of 10 s, seed 7", figure: "scale 4", record: `${EVV2}/results.jsonl`, field: "params.scale", value: ev(EVV2, "on", (c) => c.scale!) },
  { doc: R, sentence: "(`vm-eviction/20261202T010551Z`: 21 clients, scale 4, 2 MB of shared buffers, 7 measured runs of 10 s, seed 7", figure: "2 MB", record: `${EVV2}/results.jsonl`, field: "params.shared_buffers (MB)", value: ev(EVV2, "on", (c) => parseFloat(c.sharedBuffers!)) },
  { doc: R, sentence: "(`vm-eviction/20261202T010551Z`: 21 clients, scale 4, 2 MB of shared buffers, 7 measured runs of 10 s, seed 7", figure: "7 measured runs", record: `${EVV2}/results.jsonl`, field: "measured runs of the on arm", value: ev(EVV2, "on", (c) => c.runs) },
  { doc: R, sentence: "(`vm-eviction/20261202T010551Z`: 21 clients, scale 4, 2 MB of shared buffers, 7 measured runs of 10 s, seed 7", figure: "10 s", record: `${EVV2}/results.jsonl`, field: "params.duration", value: ev(EVV2, "on", (c) => c.durationS!) },
  { doc: R, sentence: "(`vm-eviction/20261202T010551Z`: 21 clients, scale 4, 2 MB of shared buffers, 7 measured runs of 10 s, seed 7", figure: "seed 7", record: "data/runs/vm-eviction/20261202T010551Z/full-7.2.13/vm/series/series.json", field: "seed" },
  { doc: R, sentence: "on a host at 1-minute load 6–12)", figure: "6", record: "data/runs/vm-eviction/20261202T010551Z/full-7.2.13/host-times.txt", field: "min 1-minute load at host start/end of both cells", value: (_t, root) => Math.min(...evLoads(root)) },
  { doc: R, sentence: "on a host at 1-minute load 6–12)", figure: "12", record: "data/runs/vm-eviction/20261202T010551Z/full-7.2.13/host-times.txt", field: "max 1-minute load at host start/end of both cells", value: (_t, root) => Math.max(...evLoads(root)) },
  { doc: R, sentence: "2079 transactions and 14 grants seen, 0.0067 per transaction", figure: "2079", record: `${EVV2}/results.jsonl`, field: "transactions", value: ev(EVV2, "on", (c) => c.transactions) },
  { doc: R, sentence: "2079 transactions and 14 grants seen, 0.0067 per transaction", figure: "14 grants", record: `${EVV2}/results.jsonl`, field: "grants (v2 granted_yielded + granted_expired)", value: ev(EVV2, "on", (c) => c.grants) },
  { doc: R, sentence: "2079 transactions and 14 grants seen, 0.0067 per transaction", figure: "0.0067", record: `${EVV2}/results.jsonl`, field: "grantsPerTransaction", value: ev(EVV2, "on", (c) => c.grantsPerTransaction) },
  { doc: R, sentence: "In those runs the kernel counted 1800 grants (rseq/stats `sgrant`)", figure: "1800", record: `${EVV2}/results.jsonl`, field: "rseq-stats sgrant summed over the on arm's measured runs (kernelGrants)", value: ev(EVV2, "on", (c) => c.kernelGrants!) },
  { doc: R, sentence: "in the `off` arm of the same boot the kernel counted 0", figure: "0", record: `${EVV2}/results.jsonl`, field: "off arm: rseq-stats sgrant summed (kernelGrants)", value: ev(EVV2, "off", (c) => c.kernelGrants!) },
  { doc: R, sentence: "Under `lazy` the patch saw 0.0038 grants per transaction with version 1 (82 in 21581 transactions)", figure: "0.0038", record: `${EVV1L}/results.jsonl`, field: "grantsPerTransaction", value: ev(EVV1L, "on", (c) => c.grantsPerTransaction) },
  { doc: R, sentence: "with version 1 (82 in 21581 transactions)", figure: "82", record: `${EVV1L}/results.jsonl`, field: "grants", value: ev(EVV1L, "on", (c) => c.grants) },
  { doc: R, sentence: "with version 1 (82 in 21581 transactions)", figure: "21581", record: `${EVV1L}/results.jsonl`, field: "transactions", value: ev(EVV1L, "on", (c) => c.transactions) },
  { doc: R, sentence: "and 0.0039 with version 2 at version 1's sizes (10 in 2546, while the kernel counted 2463)", figure: "0.0039", record: `${EVV2L}/results.jsonl`, field: "grantsPerTransaction", value: ev(EVV2L, "on", (c) => c.grantsPerTransaction) },
  { doc: R, sentence: "and 0.0039 with version 2 at version 1's sizes (10 in 2546, while the kernel counted 2463)", figure: "(10 in", record: `${EVV2L}/results.jsonl`, field: "grants", value: ev(EVV2L, "on", (c) => c.grants) },
  { doc: R, sentence: "and 0.0039 with version 2 at version 1's sizes (10 in 2546, while the kernel counted 2463)", figure: "2546", record: `${EVV2L}/results.jsonl`, field: "transactions", value: ev(EVV2L, "on", (c) => c.transactions) },
  { doc: R, sentence: "and 0.0039 with version 2 at version 1's sizes (10 in 2546, while the kernel counted 2463)", figure: "2463", record: `${EVV2L}/results.jsonl`, field: "kernelGrants", value: ev(EVV2L, "on", (c) => c.kernelGrants!) },
  { doc: R, sentence: "Requests cleared without a grant were 0.40 per transaction with version 1", figure: "0.40", record: `${EVV1}/results.jsonl`, field: "clearedPerTransaction (v1 revoked)", value: ev(EVV1, "on", (c) => c.clearedPerTransaction) },
  { doc: R, sentence: "and 1.03 with version 2 at version 1's sizes", figure: "1.03", record: `${EVV2}/results.jsonl`, field: "clearedPerTransaction (v2 dropped_without_grant)", value: ev(EVV2, "on", (c) => c.clearedPerTransaction) },
  { doc: R, sentence: "version 2 began 244 holds per transaction against version 1's 74.4 requests", figure: "244", record: `${EVV2}/results.jsonl`, field: "holdsPerTransaction", value: ev(EVV2, "on", (c) => c.holdsPerTransaction) },
  { doc: R, sentence: "version 2 began 244 holds per transaction against version 1's 74.4 requests", figure: "74.4", record: `${EVV1}/results.jsonl`, field: "holdsPerTransaction (v1 requests)", value: ev(EVV1, "on", (c) => c.holdsPerTransaction) },
  { doc: R, sentence: "The whole PostgreSQL 15 schedule: all 217 tests passed in 1337 s of guest time", figure: "217", record: VMCHK15ALL, field: "regress.passed (schedule.groups = groupsInSchedule = 27)", value: (t) => (jsonField(t, "schedule.groups") === jsonField(t, "schedule.groupsInSchedule") ? jsonField(t, "regress.passed") : NaN) },
  { doc: R, sentence: "all 217 tests passed in 1337 s of guest time (22 minutes, inside the issue's 45)", figure: "1337 s", record: VMCHK15ALL, field: "checkSeconds" },
  { doc: R, sentence: "all 217 tests passed in 1337 s of guest time (22 minutes, inside the issue's 45)", figure: "22 minutes", record: VMCHK15ALL, field: "checkSeconds / 60", value: (t) => jsonField(t, "checkSeconds") / 60 },
  { doc: R, sentence: "with 80541 kernel grants (`pg-check/20261202T013736Z/vm-pg15`)", figure: "80541", record: VMCHK15ALL, field: "rseqStatsDelta.sgrant" },
  { doc: R, sentence: "the kernel made 119 grants in 1527 transactions and the patch saw 1 of them", figure: "119", record: `${TRV1}/analysis.json`, field: "tracepoints.grants (tracedPgRow.traceGrants)", value: traced(TRV1, (r) => r.traceGrants) },
  { doc: R, sentence: "the kernel made 119 grants in 1527 transactions and the patch saw 1 of them", figure: "1527", record: `${TRV1}/raw/series/runs/001-on/result.json`, field: "metrics.transactionsProcessed (tracedPgRow.transactions)", value: traced(TRV1, (r) => r.transactions) },
  { doc: R, sentence: "the kernel made 119 grants in 1527 transactions and the patch saw 1 of them", figure: "1 of", record: `${TRV1}/raw/series/runs/001-on/result.json`, field: "v1 countersDelta.grants (tracedPgRow.patchGrants)", value: traced(TRV1, (r) => r.patchGrants) },
  { doc: R, sentence: "66 requests cleared without a grant (`slice-trace/20261130T051418Z`)", figure: "66", record: `${TRV1}/raw/series/runs/001-on/result.json`, field: "v1 countersDelta.revoked (tracedPgRow.patchCleared)", value: traced(TRV1, (r) => r.patchCleared) },
  { doc: R, sentence: "the kernel made 230 grants in 3854 transactions and the patch saw 20 of them", figure: "230", record: `${TRV2}/analysis.json`, field: "tracepoints.grants (tracedPgRow.traceGrants)", value: traced(TRV2, (r) => r.traceGrants) },
  { doc: R, sentence: "the kernel made 230 grants in 3854 transactions and the patch saw 20 of them", figure: "3854", record: `${TRV2}/raw/series/runs/001-on/result.json`, field: "metrics.transactionsProcessed (tracedPgRow.transactions)", value: traced(TRV2, (r) => r.transactions) },
  { doc: R, sentence: "the kernel made 230 grants in 3854 transactions and the patch saw 20 of them", figure: "20 of", record: `${TRV2}/raw/series/runs/001-on/result.json`, field: "v2 granted_yielded + granted_expired (tracedPgRow.patchGrants)", value: traced(TRV2, (r) => r.patchGrants) },
  { doc: R, sentence: "156 requests cleared without a grant, 92 re-armed", figure: "156", record: `${TRV2}/raw/series/runs/001-on/result.json`, field: "v2 dropped_without_grant (tracedPgRow.patchCleared)", value: traced(TRV2, (r) => r.patchCleared) },
  { doc: R, sentence: "156 requests cleared without a grant, 92 re-armed", figure: "92", record: `${TRV2}/raw/series/runs/001-on/result.json`, field: "v2 rearmed (tracedPgRow.rearmed)", value: traced(TRV2, (r) => r.rearmed ?? NaN) },
  // §8, the model against the emulator (issue 26).
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "11 of", record: MSW, field: "full cells whose prediction lies in the observed interval (sweepCells, HZ 1000)", value: sweepCount("full", "agree") },
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "of 12", record: MSW, field: "full cells with a prediction and a preemption", value: sweepCount("full", "decided") },
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "581", record: MSW, field: "full: Σ in-kernel holder preemptions", value: sweepCount("full", "kernel") },
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "1584", record: MSW, field: "full: Σ holder preemptions (in kernel + at return)", value: sweepCount("full", "preempted") },
  { doc: R, sentence: "(the source reading), in 0 of 12 cells", figure: "0 of", record: MSW, field: "lazy cells whose prediction (φ = 0) lies in the observed interval", value: sweepCount("lazy", "agree") },
  { doc: R, sentence: "(the source reading), in 0 of 12 cells", figure: "of 12", record: MSW, field: "lazy cells with a prediction and a preemption", value: sweepCount("lazy", "decided") },
  { doc: R, sentence: "fitted over its cells, is 0.94", figure: "0.94", record: MSW, field: "fullShareFit over lazy's cells", value: (t) => fullShareFit(sweepAt1000(t))! },
  { doc: R, sentence: "factorial has 69 of 84 planned runs with a row; the 15 without one", figure: "69 of", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "Σ rows over the pooled icount group's cells (cellCompleteness)", value: completeness("vm", (cs) => cs.reduce((a, c) => a + c.rows, 0)) },
  { doc: R, sentence: "factorial has 69 of 84 planned runs with a row; the 15 without one", figure: "84", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "Σ planned runs of the pooled icount group", value: completeness("vm", (cs) => cs.reduce((a, c) => a + c.planned, 0)) },
  { doc: R, sentence: "factorial has 69 of 84 planned runs with a row; the 15 without one", figure: "15", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "lost runs (planned, no row) of the pooled icount group", value: completeness("vm", (cs) => cs.reduce((a, c) => a + c.lost.length, 0)) },
  { doc: R, sentence: "every one of its 12 cells has at least its design's 3 runs (fewest 4)", figure: "12 cells", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "complete cells of the pooled icount group", value: completeness("vm", (cs) => cs.filter((c) => c.complete).length) },
  { doc: R, sentence: "every one of its 12 cells has at least its design's 3 runs (fewest 4)", figure: "3 runs", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "largest design count per cell", value: completeness("vm", (cs) => Math.max(...cs.map((c) => c.design))) },
  { doc: R, sentence: "every one of its 12 cells has at least its design's 3 runs (fewest 4)", figure: "fewest 4", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "fewest rows in a cell", value: completeness("vm", (cs) => Math.min(...cs.map((c) => c.rows))) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "26 of", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "Σ rows of the pooled PostgreSQL group", value: completeness("pg", (cs) => cs.reduce((a, c) => a + c.rows, 0)) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "40", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "Σ planned runs of the pooled PostgreSQL group", value: completeness("pg", (cs) => cs.reduce((a, c) => a + c.planned, 0)) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "8 cells", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "complete cells of the pooled PostgreSQL group", value: completeness("pg", (cs) => cs.filter((c) => c.complete).length) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "least 3", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "fewest rows in a PostgreSQL cell", value: completeness("pg", (cs) => Math.min(...cs.map((c) => c.rows))) },
  { doc: R, sentence: "the host's load was 22.53 at the start", figure: "22.53", record: `${MV4}/record.json`, field: "concurrent: the first load average at the start", value: (t) => loadAtStartOf((json(t) as { concurrent: unknown }).concurrent)! },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "28", record: `${MV4}/out/rows.json`, field: "Σ holder preemptions, 4k/off", value: tcg4(null, (r) => r.reduce((a, x) => a + x.preemptions, 0)) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "4 runs", record: `${MV4}/out/rows.json`, field: "runs, 4k/off", value: tcg4(null, (r) => r.reduce((a, x) => a + x.runs, 0)) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "3 of", record: `${MV4}/out/rows.json`, field: "full: in-kernel holder preemptions", value: tcg4("full", (r) => r[0]!.inKernel) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "of 6", record: `${MV4}/out/rows.json`, field: "full: holder preemptions", value: tcg4("full", (r) => r[0]!.preemptions) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "10 of", record: `${MV4}/out/rows.json`, field: "lazy: in-kernel holder preemptions", value: tcg4("lazy", (r) => r[0]!.inKernel) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "of 22", record: `${MV4}/out/rows.json`, field: "lazy: holder preemptions", value: tcg4("lazy", (r) => r[0]!.preemptions) },
  { doc: R, sentence: "with the guest idle 75–94 % of vCPU time", figure: "75", record: `${MV4}/out/rows.json`, field: "least idlePct of the 4k/off runs", value: tcg4(null, (r) => Math.min(...r.map((x) => x.idleMin!))) },
  { doc: R, sentence: "with the guest idle 75–94 % of vCPU time", figure: "94", record: `${MV4}/out/rows.json`, field: "largest idlePct of the 4k/off runs", value: tcg4(null, (r) => Math.max(...r.map((x) => x.idleMax!))) },
  // §8, the host record's counts (integers: not caught by the measured-number scan, so listed here).
  { doc: R, sentence: "0 of 165 holder preemptions inside the kernel", figure: "0 of", record: HOST_ROWS, field: "totals.kernel of none/4k/off", value: hostCell("4k", (c) => c.totals.kernel) },
  { doc: R, sentence: "0 of 165 holder preemptions inside the kernel", figure: "165", record: HOST_ROWS, field: "totals.desched of none/4k/off", value: hostCell("4k", (c) => c.totals.desched) },
  { doc: R, sentence: "19 of them at the return from a page fault", figure: "19", record: HOST_ROWS, field: "totals.returnFault of none/4k/off", value: hostCell("4k", (c) => c.totals.returnFault) },
  // §8 — the mechanism (issue 14): REPRODUCE's "What is recorded so far", recomputed from the pooled
  // records the way notebook 07 groups them (src/analysis/mechanism-records.ts).
  { doc: R, sentence: "faults under lock 250.0 per 1,000 holds with 4 KB pages", figure: "250.0", record: MH, field: "none/4k/off rates.faultsUnderLock.mean", value: microCell("host", "none/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "0.00 with the region pre-faulted (P7)", figure: "0.00", record: MH, field: "none/4k-prefault/off rates.faultsUnderLock.mean", value: microCell("host", "none/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "was 28 % (25–31) under full", figure: "28 %", record: M1, field: "full/4k/off inKernelShare.mean × 100", value: microCell("vm", "full/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "was 28 % (25–31) under full", figure: "(25", record: M1, field: "full/4k/off inKernelShare.lo × 100", value: microCell("vm", "full/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "was 28 % (25–31) under full", figure: "–31)", record: M1, field: "full/4k/off inKernelShare.hi × 100", value: microCell("vm", "full/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–29) under lazy", figure: "28 %", record: M1, field: "lazy/4k/off inKernelShare.mean × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–29) under lazy", figure: "(26", record: M1, field: "lazy/4k/off inKernelShare.lo × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–29) under lazy", figure: "–29)", record: M1, field: "lazy/4k/off inKernelShare.hi × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "75 %", record: M1, field: "full/4k/on coveredFraction.mean × 100", value: microCell("vm", "full/4k/on", (c) => pct("mean")(c.coveredFraction)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "(73", record: M1, field: "full/4k/on coveredFraction.lo × 100", value: microCell("vm", "full/4k/on", (c) => pct("lo")(c.coveredFraction)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "–77)", record: M1, field: "full/4k/on coveredFraction.hi × 100", value: microCell("vm", "full/4k/on", (c) => pct("hi")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (72–77) (lazy)", figure: "74 %", record: M1, field: "lazy/4k/on coveredFraction.mean × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("mean")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (72–77) (lazy)", figure: "(72", record: M1, field: "lazy/4k/on coveredFraction.lo × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("lo")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (72–77) (lazy)", figure: "–77)", record: M1, field: "lazy/4k/on coveredFraction.hi × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("hi")(c.coveredFraction)) },
  { doc: R, sentence: "changed by −3.06 (−3.43 … −2.70)", figure: "−3.06", record: M1, field: "full/4k on − off atReturn per 1,000 (Welch mean)", value: microEffect("full", "atReturn", "mean") },
  { doc: R, sentence: "changed by −3.06 (−3.43 … −2.70)", figure: "(−3.43", record: M1, field: "full/4k on − off atReturn lo", value: microEffect("full", "atReturn", "lo") },
  { doc: R, sentence: "changed by −3.06 (−3.43 … −2.70)", figure: "−2.70)", record: M1, field: "full/4k on − off atReturn hi", value: microEffect("full", "atReturn", "hi") },
  { doc: R, sentence: "and −3.00 (−3.20 … −2.80) per 1,000 holds", figure: "−3.00", record: M1, field: "lazy/4k on − off atReturn per 1,000 (Welch mean)", value: microEffect("lazy", "atReturn", "mean") },
  { doc: R, sentence: "and −3.00 (−3.20 … −2.80) per 1,000 holds", figure: "(−3.20", record: M1, field: "lazy/4k on − off atReturn lo", value: microEffect("lazy", "atReturn", "lo") },
  { doc: R, sentence: "and −3.00 (−3.20 … −2.80) per 1,000 holds", figure: "−2.80)", record: M1, field: "lazy/4k on − off atReturn hi", value: microEffect("lazy", "atReturn", "hi") },
  { doc: R, sentence: "in-kernel ones by −0.13 (−0.29 … 0.04)", figure: "−0.13", record: M1, field: "full/4k on − off kernel per 1,000 (Welch mean)", value: microEffect("full", "kernel", "mean") },
  { doc: R, sentence: "in-kernel ones by −0.13 (−0.29 … 0.04)", figure: "(−0.29", record: M1, field: "full/4k on − off kernel lo", value: microEffect("full", "kernel", "lo") },
  { doc: R, sentence: "in-kernel ones by −0.13 (−0.29 … 0.04)", figure: "0.04)", record: M1, field: "full/4k on − off kernel hi", value: microEffect("full", "kernel", "hi") },
  { doc: R, sentence: "and −0.07 (−0.21 … 0.07) (on − off)", figure: "−0.07", record: M1, field: "lazy/4k on − off kernel per 1,000 (Welch mean)", value: microEffect("lazy", "kernel", "mean") },
  { doc: R, sentence: "and −0.07 (−0.21 … 0.07) (on − off)", figure: "(−0.21", record: M1, field: "lazy/4k on − off kernel lo", value: microEffect("lazy", "kernel", "lo") },
  { doc: R, sentence: "and −0.07 (−0.21 … 0.07) (on − off)", figure: "0.07)", record: M1, field: "lazy/4k on − off kernel hi", value: microEffect("lazy", "kernel", "hi") },
  { doc: R, sentence: "faults under lock fell from 125.0 to 0.26 per 1,000 holds (full)", figure: "125.0", record: M1, field: "full/4k/off rates.faultsUnderLock.mean", value: microCell("vm", "full/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "faults under lock fell from 125.0 to 0.26 per 1,000 holds (full)", figure: "0.26", record: M1, field: "full/hugetlb/off rates.faultsUnderLock.mean", value: microCell("vm", "full/hugetlb/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "in-kernel preemptions to 0.00 under both modes", figure: "0.00", record: M1, field: "max over modes of hugetlb/off rates.kernel.mean", value: (t, root) => Math.max(microCell("vm", "full/hugetlb/off", (c) => c.rates.kernel.mean)(t, root), microCell("vm", "lazy/hugetlb/off", (c) => c.rates.kernel.mean)(t, root)) },
  { doc: R, sentence: "faults fell to 0.00 and in-kernel preemptions to 0.00", figure: "faults fell to 0.00", record: M1, field: "max over modes of 4k-prefault/off rates.faultsUnderLock.mean", value: (t, root) => Math.max(microCell("vm", "full/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean)(t, root), microCell("vm", "lazy/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean)(t, root)) },
  { doc: R, sentence: "faults fell to 0.00 and in-kernel preemptions to 0.00", figure: "preemptions to 0.00", record: M1, field: "max over modes of 4k-prefault/off rates.kernel.mean", value: (t, root) => Math.max(microCell("vm", "full/4k-prefault/off", (c) => c.rates.kernel.mean)(t, root), microCell("vm", "lazy/4k-prefault/off", (c) => c.rates.kernel.mean)(t, root)) },
  { doc: R, sentence: "4626.8 (4227.9–5025.7) minor faults per million spin-style holds under full", figure: "4626.8", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("full", "off", "mean") },
  { doc: R, sentence: "4626.8 (4227.9–5025.7) minor faults per million spin-style holds under full", figure: "(4227.9", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("full", "off", "lo") },
  { doc: R, sentence: "4626.8 (4227.9–5025.7) minor faults per million spin-style holds under full", figure: "–5025.7)", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("full", "off", "hi") },
  { doc: R, sentence: "4594.7 (4118.7–5070.7) minor faults per million spin-style holds under lazy", figure: "4594.7", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("lazy", "off", "mean") },
  { doc: R, sentence: "4594.7 (4118.7–5070.7) minor faults per million spin-style holds under lazy", figure: "(4118.7", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("lazy", "off", "lo") },
  { doc: R, sentence: "4594.7 (4118.7–5070.7) minor faults per million spin-style holds under lazy", figure: "–5070.7)", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("lazy", "off", "hi") },
  { doc: R, sentence: "49.6 (25.4–73.9) minor faults per million spin-style holds under full", figure: "49.6", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("full", "on", "mean") },
  { doc: R, sentence: "49.6 (25.4–73.9) minor faults per million spin-style holds under full", figure: "(25.4", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("full", "on", "lo") },
  { doc: R, sentence: "49.6 (25.4–73.9) minor faults per million spin-style holds under full", figure: "–73.9)", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("full", "on", "hi") },
  { doc: R, sentence: "66.1 (44.3–87.9) minor faults per million spin-style holds under lazy", figure: "66.1", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("lazy", "on", "mean") },
  { doc: R, sentence: "66.1 (44.3–87.9) minor faults per million spin-style holds under lazy", figure: "(44.3", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("lazy", "on", "lo") },
  { doc: R, sentence: "66.1 (44.3–87.9) minor faults per million spin-style holds under lazy", figure: "–87.9)", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("lazy", "on", "hi") },
  // The traced holder preemptions of the pooled PostgreSQL records, per mode (pgTraced over both records).
  ...([
    ["under full 19 were preempted inside the kernel (all 19 in a page fault) and 16 at the", "full"],
    ["under lazy 9 inside the kernel (all 9 in a page fault) and 19 at the return", "lazy"],
  ] as const).flatMap(([sentence, mode]): FigureEntry[] => {
    const [k, kf, r] = sentence.match(/\d+/g)!;
    const traced = (f: (t: ReturnType<typeof pgTraced>) => number) => (_t: string, root: string): number => {
      const grp = mechPick(root).pg;
      if (!grp) throw new Error(`no PostgreSQL group under ${MECH}`);
      return f(pgTraced(grp.rows as PgFactorialRow[], { mode }));
    };
    return [
      { doc: R, sentence, figure: `${mode === "full" ? "full " : "lazy "}${k}`, record: PGR, alsoReads: PG_BOTH, field: `${mode}: pooled pgTraced().kernel`, value: traced((t) => t.kernel) },
      { doc: R, sentence, figure: `all ${kf}`, record: PGR, alsoReads: PG_BOTH, field: `${mode}: pooled pgTraced().kernelFault`, value: traced((t) => t.kernelFault) },
      { doc: R, sentence, figure: `and ${r}`, record: PGR, alsoReads: PG_BOTH, field: `${mode}: pooled pgTraced().atReturn`, value: traced((t) => t.atReturn) },
    ];
  }),
  { doc: R, sentence: "on, 540 of the 548 reserved pages held after start", figure: "540", record: PGR, alsoReads: PG_BOTH, field: "min hugePagesTaken over huge_pages=on runs (both records pooled)", value: (_t, root) => Math.min(...(mechPick(root).pg!.rows as { hugePages: string; hugePagesTaken: number }[]).filter((r) => r.hugePages === "on").map((r) => r.hugePagesTaken)) },
  // §8, none on 6.1 in the VM: the icount record is the noneVm group (20261202T020227Z); the plain-TCG one is read from its own rows.
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T020227Z` (3 blocks, 9 runs;", figure: "3 blocks", record: MN, field: "max block", value: (t) => Math.max(...(json(t) as { block: number }[]).map((r) => r.block)) },
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T020227Z` (3 blocks, 9 runs;", figure: "9 runs", record: MN, field: "rows of the noneVm group", value: (_t, root) => microRows(root, "noneVm").length },
  { doc: R, sentence: "with 4 KB pages 0 of 136 holder preemptions were inside the kernel", figure: "0 of", record: MN, field: "none/4k/off totals.kernel", value: microCell("noneVm", "none/4k/off", (c) => c.totals.kernel) },
  { doc: R, sentence: "with 4 KB pages 0 of 136 holder preemptions were inside the kernel", figure: "136", record: MN, field: "none/4k/off totals.kernel + totals.atReturn", value: microCell("noneVm", "none/4k/off", (c) => c.totals.kernel + c.totals.atReturn) },
  { doc: R, sentence: "33 of them at the return from a page fault", figure: "33", record: MN, field: "none/4k/off totals.returnFault", value: microCell("noneVm", "none/4k/off", (c) => c.totals.returnFault) },
  { doc: R, sentence: "faults under lock 125.0 per 1,000 holds with 4 KB pages, 0.26 with hugetlb and 0.00 with the region pre-faulted", figure: "125.0", record: MN, field: "none/4k/off rates.faultsUnderLock.mean", value: microCell("noneVm", "none/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "faults under lock 125.0 per 1,000 holds with 4 KB pages, 0.26 with hugetlb and 0.00 with the region pre-faulted", figure: "0.26", record: MN, field: "none/hugetlb/off rates.faultsUnderLock.mean", value: microCell("noneVm", "none/hugetlb/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "faults under lock 125.0 per 1,000 holds with 4 KB pages, 0.26 with hugetlb and 0.00 with the region pre-faulted", figure: "0.00", record: MN, field: "none/4k-prefault/off rates.faultsUnderLock.mean", value: microCell("noneVm", "none/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T015907Z` (2 blocks, 6 runs;", figure: "2 blocks", record: MNT, field: "max block", value: (t) => Math.max(...(json(t) as { block: number }[]).map((r) => r.block)) },
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T015907Z` (2 blocks, 6 runs;", figure: "6 runs", record: MNT, field: "rows", value: (t) => (json(t) as unknown[]).length },
  { doc: R, sentence: "0 of 62 inside the kernel with 4 KB pages, 26 at the return from a page fault", figure: "0 of", record: MNT, field: "none/4k/off totals.kernel", value: noneCell((c) => c.totals.kernel) },
  { doc: R, sentence: "0 of 62 inside the kernel with 4 KB pages, 26 at the return from a page fault", figure: "62", record: MNT, field: "none/4k/off totals.kernel + totals.atReturn", value: noneCell((c) => c.totals.kernel + c.totals.atReturn) },
  { doc: R, sentence: "0 of 62 inside the kernel with 4 KB pages, 26 at the return from a page fault", figure: "26", record: MNT, field: "none/4k/off totals.returnFault", value: noneCell((c) => c.totals.returnFault) },
  { doc: R, sentence: "in 4 of its 6 runs the trace", figure: "4 of", record: MNT, field: "rows with switchesWithoutStack > 0", value: (t) => (json(t) as { switchesWithoutStack: number }[]).filter((r) => r.switchesWithoutStack > 0).length },
  { doc: R, sentence: "in 4 of its 6 runs the trace", figure: "6 runs", record: MNT, field: "rows", value: (t) => (json(t) as unknown[]).length },
  // §8, the pooled PostgreSQL records: runs and runs per cell.
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "26 runs", record: PGR, alsoReads: PG_BOTH, field: "rows of the pooled PostgreSQL group", value: (_t, root) => mechPick(root).pg!.rows.length },
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "3 or", record: PGR, alsoReads: PG_BOTH, field: "min runs over summarisePgCells of the pooled group", value: pgCellRuns("min") },
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "or 4", record: PGR, alsoReads: PG_BOTH, field: "max runs over summarisePgCells of the pooled group", value: pgCellRuns("max") },
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "the 8 cells", record: PGR, alsoReads: PG_BOTH, field: "cells of summarisePgCells of the pooled group", value: (_t, root) => summarisePgCells(mechPick(root).pg!.rows as PgFactorialRow[]).length },
  // §8, the plain-TCG contrast (accelContrastCells: sums over a cell's runs).
  { doc: R, sentence: "under `--accel tcg` (no instruction counting: guest time is host time), 2 blocks, 16 runs", figure: "16 runs", record: MT, field: "rows", value: (t) => (json(t) as unknown[]).length },
  { doc: R, sentence: "under `--accel tcg` (no instruction counting: guest time is host time), 2 blocks, 16 runs", figure: "2 blocks", record: MT, field: "max block", value: (t) => Math.max(...(json(t) as { block: number }[]).map((r) => r.block)) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "82 → 72", record: MT, field: "tcg full/4k/off atReturn", value: contrast("tcg", "full/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "→ 72", record: MT, field: "tcg full/4k/on atReturn", value: contrast("tcg", "full/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "82 → 100", record: MT, field: "tcg lazy/4k/off atReturn", value: contrast("tcg", "lazy/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "→ 100", record: MT, field: "tcg lazy/4k/on atReturn", value: contrast("tcg", "lazy/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "645", record: M1, field: "icount full/4k/off atReturn", value: contrast("icount", "full/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "→ 5", record: M1, field: "icount full/4k/on atReturn", value: contrast("icount", "full/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "642", record: M1, field: "icount lazy/4k/off atReturn", value: contrast("icount", "lazy/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "→ 7", record: M1, field: "icount lazy/4k/on atReturn", value: contrast("icount", "lazy/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "made 84", record: MT, field: "tcg full/4k/on grants", value: contrast("tcg", "full/4k/on", (c) => c.grants) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "108 (lazy)", record: MT, field: "tcg lazy/4k/on grants", value: contrast("tcg", "lazy/4k/on", (c) => c.grants) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "grants, 84", record: MT, field: "tcg full/4k/on revoked", value: contrast("tcg", "full/4k/on", (c) => c.revoked) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "108 of them", record: MT, field: "tcg lazy/4k/on revoked", value: contrast("tcg", "lazy/4k/on", (c) => c.revoked) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "0 holds", record: MT, field: "tcg covered, full/4k/on + lazy/4k/on", value: (t, root) => contrast("tcg", "full/4k/on", (c) => c.covered)(t, root) + contrast("tcg", "lazy/4k/on", (c) => c.covered)(t, root) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "937", record: M1, field: "icount full/4k/on grants", value: contrast("icount", "full/4k/on", (c) => c.grants) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "919", record: M1, field: "icount lazy/4k/on grants", value: contrast("icount", "lazy/4k/on", (c) => c.grants) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "covered 926", record: M1, field: "icount full/4k/on covered", value: contrast("icount", "full/4k/on", (c) => c.covered) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "910 holds", record: M1, field: "icount lazy/4k/on covered", value: contrast("icount", "lazy/4k/on", (c) => c.covered) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "(926", record: M1, field: "icount full/4k/on yields", value: contrast("icount", "full/4k/on", (c) => c.yields) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "910 ended", record: M1, field: "icount lazy/4k/on yields", value: contrast("icount", "lazy/4k/on", (c) => c.yields) },
  ...([
    ["135.00", "tcg", "full/4k/off"], ["134.91", "tcg", "full/4k/on"], ["133.70", "tcg", "lazy/4k/off"], ["133.20", "tcg", "lazy/4k/on"],
  ] as const).map(([figure, accel, cell]): FigureEntry => ({
    doc: R, sentence: "long holds (≥ 10 µs) per 1,000 holds went 135.00 → 134.91 (full) and 133.70 → 133.20 (lazy) under plain TCG", figure, record: MT,
    field: `${accel} ${cell} longHoldsPer1k.mean`, value: contrast(accel, cell, (c) => c.longHoldsPer1k.mean),
  })),
  ...([
    ["5.73", "full/4k/off"], ["2.62", "full/4k/on"], ["5.49", "lazy/4k/off"], ["2.81", "lazy/4k/on"],
  ] as const).map(([figure, cell]): FigureEntry => ({
    doc: R, sentence: "5.73 → 2.62 and 5.49 → 2.81 under icount", figure, record: M1, field: `icount ${cell} longHoldsPer1k.mean`, value: contrast("icount", cell, (c) => c.longHoldsPer1k.mean),
  })),
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "49 %", record: MT, field: "full/4k/off inKernelShare.mean × 100", value: tcgCell("full/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "(46", record: MT, field: "full/4k/off inKernelShare.lo × 100", value: tcgCell("full/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "–53)", record: MT, field: "full/4k/off inKernelShare.hi × 100", value: tcgCell("full/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "45 %", record: MT, field: "lazy/4k/off inKernelShare.mean × 100", value: tcgCell("lazy/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "(45", record: MT, field: "lazy/4k/off inKernelShare.lo × 100", value: tcgCell("lazy/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "–46)", record: MT, field: "lazy/4k/off inKernelShare.hi × 100", value: tcgCell("lazy/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "(79", record: MT, field: "full/4k/off totals.kernel", value: tcgCell("full/4k/off", (c) => c.totals.kernel) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "68 preemptions", record: MT, field: "lazy/4k/off totals.kernel", value: tcgCell("lazy/4k/off", (c) => c.totals.kernel) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "preemptions, 79", record: MT, field: "full/4k/off totals.kernelFault", value: tcgCell("full/4k/off", (c) => c.totals.kernelFault) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "68 of them", record: MT, field: "lazy/4k/off totals.kernelFault", value: tcgCell("lazy/4k/off", (c) => c.totals.kernelFault) },
  // §5: the PostgreSQL bundle's real-time record on this machine (slicelab import of its results).
  ...pgBundleFigures(),
  // Passages whose integers are checked too (src/evidence/figures-integers.ts).
  ...INTEGER_FIGURES,
];

export const MEASURED_REGIONS: MeasuredRegion[] = [
  { doc: R, from: "On the machine of 2026-12-01 and the early hours", to: "### What cannot be reproduced, and why" },
  // §8 (issue 14): the mechanism's results.
  { doc: R, from: "What is recorded so far (all TCG functional evidence", to: "What icount cannot model:" },
  { doc: R, from: "The model of where a holder is preempted (issue 26 item 6;", to: "Notebook 07's vCPU table puts it beside" },
  { doc: R, from: "### Our A/A series (the noise floor of this machine)", to: "To measure the noise floor of a quiet machine" },
  { doc: R, from: "- Launch order.", to: "- The earlier doubt is settled." },
  { doc: R, from: "`npm run test:e2e` runs this whole path", to: "The preemption-mode × extension design" },
  { doc: R, from: "- The kit's CPU, charged to the kit.", to: "- The kit's CPU: PASS." },
  { doc: R, from: "| record | design | pairs | kit / by hand |", to: "- Why one CPU." },
  { doc: R, from: "Costs measured on this machine's", to: "The pgbench -S cost was first measured" },
  { doc: R, from: "The cost from measured parts", to: "The micro-benchmark (`src/micro/lhp.c`)" },
  // §4 patch v3 in the VM
  { doc: R, from: "Version 3 in the VM (the kit's 7.2.13 kernel", to: "Version 2 against version 1." },
  // §4 patch v2
  { doc: R, from: "Version 1 and version 2 side by side.", to: "The records below the next paragraph" },
  // The table of times after it is generated from data/test-runs/ and checked by test/test-runs.test.ts.
  { doc: "README.md", from: "`npm run test:e2e` runs the kernel path end to end", to: "Times as recorded" },
  { doc: R, from: "Collector costs (", to: "Collectors in the VM:" },
  { doc: R, from: "Recorded here (`data/runs/kernel-build/20261130T024149Z/`", to: "The patched PostgreSQL under the harness inside the VM" },  // §4, the version-2 records; the pgbench cost of version 1 (the micro-benchmark's passage is above).
  { doc: R, from: "The records are under `data/runs/pg-check/`", to: "The records below the next paragraph" },
  { doc: R, from: "The pgbench -S cost was first measured", to: "The cost from measured parts" },
  // §5, the VM results.
  { doc: R, from: "The patched PostgreSQL under the harness inside the VM", to: "`npm run test:e2e` runs this whole path" },
  { doc: R, from: "The preemption-mode × extension design ran once", to: "Pre-7.0 reference (preemption modes)." },
  { doc: R, from: "`data/runs/vm-eviction/20261130T083130Z/` holds the three cells", to: "### Bare metal" },
  // §6, lock statistics in the VM.
  { doc: R, from: "Collectors in the VM:", to: "Under TCG all of this is functional evidence only." },
  ...INTEGER_REGIONS,
];

export const NOT_MEASURED: NotMeasured[] = [
  // §4 patch v2
  { doc: R, sentence: "ran in the kit's 7.2.13 VM under QEMU TCG", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "PostgreSQL 18.6, the first 2 of 28 groups", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "Version 3 in the VM (the kit's 7.2.13 kernel", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "the whole schedule: PostgreSQL 18.6 with version 3", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "PostgreSQL 15.18 with version 3: All 217", figure: "15.18", why: "the PostgreSQL version" },
  { doc: R, sentence: "PostgreSQL 15.18 (patch `d4dc3f02e27e`), whose schedule", figure: "15.18", why: "the PostgreSQL version" },
  { doc: R, sentence: "(22 minutes, inside the issue's 45)", figure: "45", why: "the issue's time limit for the whole suite under TCG, not a measurement" },
  { doc: R, sentence: "(the 7.2 VM, `lock-ops-vm/20261130T074829Z`)", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "(the 6.18 host through the shim", figure: "6.18", why: "the host kernel's version" },
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
  { doc: R, sentence: "| kit / by hand | 95% CI |", figure: "95%", why: "the confidence level (table header)" },  // §4, §5, §6, §8 (the passages added with their figures above).
  { doc: R, sentence: "PostgreSQL 15.18 All 217", figure: "15.18", why: "the PostgreSQL version (summary.json version)" },
  { doc: R, sentence: "PostgreSQL 18.6 All 231", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "the feature active on 7.2) was not run: the 7.2 kernel", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "the 7.2 kernel was still being built", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "lets the hooks run on 6.18)", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "patch version 2, on the 6.18 host", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "nothing about the 0.5% goal", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "Resolving 0.5% would take", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "(95% CI 1.015–1.092)", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "(95% CI −40.6", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "They are 6.1.176 with", figure: "6.1", why: "the reference kernel's version" },
  { doc: R, sentence: "and 7.2.13 with `preempt=full`", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "On 7.2.13 the extension was requested", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "PostgreSQL 18.6 on the 7.2 kernel", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "PostgreSQL 18.6 on the 7.2 kernel", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "vm-7.2.13-micro.txt", figure: "7.2", why: "part of a file name" },
  { doc: R, sentence: "this machine's 6.18 kernel (preempt=none", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "extension off (6.18 has none)", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "The 7.2 factorial in the VM", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "Linux 7.2.13 (`slice-ext + vm`", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "off/on, 0.5 s runs", figure: "0.5", why: "the run length the factorial was given (a setting)" },
  { doc: R, sentence: "1 vCPU as the 7.2 factorial above", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "the micro shape and 1 vCPU of the 7.2 factorial", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "on Linux 6.1 in the VM", figure: "6.1", why: "the kernel version" },
  { doc: R, sentence: "the 6.1.176 tree built", figure: "6.1", why: "the kernel version" },
  { doc: R, sentence: "linux-6.1.176-1", figure: "6.1", why: "part of a path" },
  { doc: R, sentence: "(6.1 has none)", figure: "6.1", why: "the kernel version" },
  { doc: R, sentence: "in real time on the reference path (Linux 6.18, preemption", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "+26.1 % (95% CI", figure: "95%", why: "the confidence level" },
  ...INTEGER_NOT_MEASURED,
];

/** Markdown as the figure check reads it: ** and ` dropped, runs of whitespace as one space. */
export function normalizeDoc(text: string): string {
  return text.replace(/\*\*/g, "").replace(/\s+/g, " ");
}

/** Small counts written as words ("one interval", "three runs per arm"), by value. */
const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** The number in a figure as written ("−2.59%" → -2.59, "±4.28%" → 4.28) and its decimals. */
export function parseFigure(figure: string): { value: number; decimals: number } {
  const m = /([−+-]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)/.exec(figure);
  const word = m ? -1 : NUMBER_WORDS.findIndex((w) => new RegExp(`\\b${w}\\b`, "i").test(figure));
  if (word >= 0) return { value: word, decimals: 0 };
  if (!m) throw new Error(`no number in ${JSON.stringify(figure)}`);
  const sign = m[1] === "−" || m[1] === "-" ? -1 : 1;
  const digits = m[2]!.replace(/,/g, "");
  return { value: sign * Number(digits), decimals: (digits.split(".")[1] ?? "").length };
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
  for (const r of e.alsoReads ?? []) if (!existsSync(join(root, r))) return [`${e.doc}: "${e.figure}": the record ${r} it pools is not in the repository`];
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
/** In a region with `integers`: every number, with thousands separators ("2,106"). */
const MEASURED_INT_RE = /[−+±-]?\d[\d,]*(?:\.\d+)*(?:%|-fold)?/g;
/** Dates and times are not measurements: masked before the integer scan. */
const DATE_TIME_RE = /\d{4}-\d{2}-\d{2}|\d{2}:\d{2}(?::\d{2})?/g;

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
    const text = reg.integers ? doc.slice(from, to).replace(DATE_TIME_RE, (d) => " ".repeat(d.length)) : doc.slice(from, to);
    for (const m of text.matchAll(reg.integers ? MEASURED_INT_RE : MEASURED_RE)) {
      const s = from + m.index!;
      // Versions (7.2.13) and trailing separators ("16," of a list) are not figures of their own.
      if (reg.integers && /\d\.\d+\.\d/.test(m[0])) continue;
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
