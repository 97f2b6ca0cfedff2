/**
 * The record paths and readers the figure entries of REPRODUCE §3–§6 compute their values with
 * (src/evidence/figures-host.ts, figures-vm.ts): each takes a record's text (and the repository
 * root when it reads more than one file) and returns the number the sentence shows.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { costModel } from "../analysis/patch-cost.js";
import { patchCostModel } from "../postgres/cost-model.js";
import { captureSummary, snapshots, waitShareRanges } from "../analysis/lockstat-vm.js";
import { collectedVmSeriesDirs, lockStatRunRows, topLockClasses } from "../collect/tables.js";
import { parseProcLockStat } from "../parse/proc-lock-stat.js";
import { seriesCellCounters, type SeriesCellCounters } from "../postgres/v2-report.js";
import { tracedPgRow, tracedPgWindow, type TracedPgRow } from "../vm/traced-pg.js";
import { evictionCell, type EvictionCellRates } from "../postgres/eviction-rates.js";
import type { FigureEntry } from "./figure-types.js";

/** The doc most entries are in. */
export const R = "REPRODUCE.md" as const;

// ---------------------------------------------------------------------------
// Helpers for computed values.

export const json = (text: string): unknown => JSON.parse(text);

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

export function csvRows(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split("\n");
  const cols = head!.split(",");
  return lines.map((l) => {
    const f = l.split(",");
    return Object.fromEntries(cols.map((c, i) => [c, f[i] ?? ""]));
  });
}

export const measuredMean = (root: string, dir: string, variant: string): number => {
  const rows = csvRows(readFileSync(join(root, dir, "results.csv"), "utf8")).filter((r) => r.warmup === "false" && r.variant === variant);
  return rows.reduce((s, r) => s + Number(r.tps), 0) / rows.length;
};

/** Half the log gap between the kit-first and hand-first ratios: what the arm launched first gains, in %. */
export const firstArmGainPct = (text: string): number => (Math.sqrt(1 + jsonField(text, "tpsRatio.order.differencePct") / 100) - 1) * 100;

/** Rostedt's gain: mean with − mean without over his measured runs, % of without. */
export const rostedtGainPct = (text: string): number => {
  const rows = csvRows(text).filter((r) => r.role === "measured");
  const m = (side: string) => {
    const x = rows.filter((r) => r.side === side).map((r) => Number(r.tps));
    return x.reduce((s, v) => s + v, 0) / x.length;
  };
  return (m("with-patch") / m("without-patch") - 1) * 100;
};

export const buildSeconds = (variant: string) => (text: string): number => {
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
export type Json = any;
export const readJson = (root: string, path: string): Json => JSON.parse(readFileSync(join(root, path), "utf8"));

/** The first number under `key` anywhere in a JSON text (depth first, in document order). */
export const firstNumber = (key: string) => (text: string): number => {
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
export const PG15 = "data/runs/pg-check/20261201T185707Z/pg15/summary.json";
export const PG18 = "data/runs/pg-check/20261201T190355Z/pg18/summary.json";
export const OPS2 = "data/runs/lock-ops/20261201T192645Z/summary.json";
export const HOOK2 = "data/runs/patch-cost/20261201T184529Z/summary.json";
export const CSC1 = "data/runs/compare-scaling/20261201T190408Z/result.json";
export const CSC2 = "data/runs/compare-scaling/20261202T004722Z/result.json";
export const CSC3 = "data/runs/compare-scaling/20261202T070133Z/result.json";
export const CSC4 = "data/runs/compare-scaling/20261202T070215Z/result.json";
export const CSC5 = "data/runs/compare-scaling/20261202T062154Z/result.json";
export const CSC6 = "data/runs/compare-scaling/20261202T062523Z/result.json";
/** The small (1,000) and large (10,000) sizes' median wall and CPU seconds and the two ratios, as written in `sentences`. */
export const scalingEntries = (record: string, sentences: { small: string; large: string; ratio: string }): FigureEntry[] => {
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
export const HOOK3 = "data/runs/patch-cost/20261202T004844Z/summary.json";
/** Notebook 03's version 2 cost model: most hook executions × upper ns (nested pattern) ÷ CPU ns per transaction. */
export const v2ModelPct = (arm: "off" | "all") => (t: string, root: string): number => {
  const h = json(t) as Json;
  const a = readJson(root, "data/runs/patch-cost/20261130T065433Z/analysis.json");
  const cpus = readJson(root, "data/runs/patch-cost/20261130T065433Z/provenance.json").host.cpus as number;
  return patchCostModel({
    hookExecutionsPerTransaction: readJson(root, OPS2).perTransaction.max.hook_executions,
    nsPerHookExecution: { off: h.addedNs.nested.off, all: h.addedNs.nested.all },
    cpuNsPerTransaction: (cpus * 1e9) / a.meanTps.baseline,
  })[arm].pctUpper;
};
export const pgCheckLoads = (root: string): number[] =>
  [PG15, PG18].flatMap((f) => [readJson(root, f).host.load1Before, readJson(root, f).host.load1After] as number[]);
/** errno in the server's unavailable line, the same in both checks. */
export const errnoOf = (_t: string, root: string): number => {
  const n = [PG15, PG18].map((f) => Number(/EINVAL \(errno (\d+)\)/.exec(readJson(root, f).serverSaid as string)?.[1]));
  if (n[0] !== n[1] || !Number.isFinite(n[0])) throw new Error(`errno differs or is missing: ${n.join(", ")}`);
  return n[0]!;
};
/** "Switch off" intervals (spin and nested) that lie entirely below zero. */
export const offIntervalsBelowZero = (t: string): number =>
  (["spin", "nested"] as const).filter((k) => (json(t) as Json).addedNs[k].off.ci[1] < 0).length;

// §4, the pgbench cost (version 1).
export const PCP = "data/runs/patch-cost/20261130T021229Z/analysis.json";
export const PCC = "data/runs/patch-cost/20261130T072231Z/analysis.json";
export const cmp = (arm: string, reference: string) => (t: string): Json => {
  const c = (json(t) as Json).comparisons.find((x: Json) => x.arm === arm && x.reference === reference);
  if (!c) throw new Error(`no comparison ${arm} / ${reference}`);
  return c;
};
export const cmpField = (arm: string, reference: string, f: (c: Json) => number) => (t: string): number => f(cmp(arm, reference)(t));
export const minutes = (t: string): number => (Date.parse((json(t) as Json).ended) - Date.parse((json(t) as Json).started)) / 60000;
/** |tps of a measured run / tps of the measured run before it − 1| in %, in run order. */
export const consecutiveDiffsPct = (root: string): number[] => {
  const rows = readFileSync(join(root, "data/runs/patch-cost/20261130T065433Z/runs.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Json)
    .filter((r) => !r.warmup).sort((a, b) => a.started.localeCompare(b.started));
  return rows.slice(1).map((r, i) => Math.abs(r.tps / rows[i].tps - 1) * 100).sort((a, b) => a - b);
};
export const medianOf = (xs: number[]): number => (xs.length % 2 ? xs[xs.length >> 1]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2);

// §5, the VM.
export const EVC = "data/runs/vm-eviction/20261130T000002Z/summary.json";
export const EV = "data/runs/vm-eviction/20261130T083130Z";
export const evCell = (mode: string, variant: string) => (t: string): Json => {
  const c = (json(t) as Json).cells.find((x: Json) => x.mode === mode && x.variant === variant);
  if (!c) throw new Error(`no cell ${mode}/${variant}`);
  return c;
};
export const evCmp = (name: string, f: (c: Json) => number) => (t: string): number => {
  const c = (json(t) as Json).comparisons.find((x: Json) => x.name === name);
  if (!c) throw new Error(`no comparison ${name}`);
  return f(c);
};
/** "boot to command N s" of the three cells' console logs. */
export const evBoots = (root: string): number[] =>
  ["none-6.1.176", "full-7.2.13", "lazy-7.2.13"].map((c) => {
    const m = /boot to command ([\d.]+) s/.exec(readFileSync(join(root, EV, c, "console-and-progress.log"), "utf8"));
    if (!m) throw new Error(`${c}: no boot time`);
    return Number(m[1]);
  });
export const ST = (stamp: string) => `data/runs/slice-trace/20261130T${stamp}/analysis.json`;
export const matchPair = (pair: string, f: (m: Json) => number) => (t: string): number => {
  const m = (json(t) as Json).matching.disagreements.find((x: Json) => x.pair === pair);
  if (!m) throw new Error(`no matched pair ${pair}`);
  return f(m);
};

// §6, lock statistics in the VM.
export const LSV = "data/runs/sangappa-2024-locktable/20261130T075623Z";
export const LSCAP = `${LSV}/lockstat-1/lock_stat-micro.txt`;
export const capture = (t: string) => captureSummary(topLockClasses(parseProcLockStat(t, LSCAP), Infinity));
/** Kernel lock wait share per lockstat boot (notebook 06: snapshots of the lockstat collector, × 2 vCPUs). */
export const waitRanges = (root: string) => {
  const dirs = collectedVmSeriesDirs(join(root, "data/runs"));
  const rows = dirs.flatMap((d) => lockStatRunRows(d, Infinity).map((r) => ({ boot: relative(join(root, "data/runs"), dirname(d)), ...r })));
  return waitShareRanges(snapshots(rows), 2);
};
export const waitRange = (boot: string, end: "min" | "max") => (_t: string, root: string): number => {
  const r = waitRanges(root).find((x) => x.boot === `sangappa-2024-locktable/20261130T075623Z/${boot}`);
  if (!r) throw new Error(`no snapshots of ${boot}`);
  return r[end];
};
export const pipeRuns = (root: string, boot: string): number[] =>
  ["pipe-before.txt", "pipe-after.txt"].flatMap((f) => [...readFileSync(join(root, LSV, boot, f), "utf8").matchAll(/^\s*([\d.]+) usecs\/op$/gm)].map((m) => Number(m[1])));
export const PLAIN = ["plain-1", "plain-2", "plain-3"];
export const plainPipe = (root: string) => PLAIN.flatMap((b) => pipeRuns(root, b));


// ---------------------------------------------------------------------------

export const AA = "data/runs/rostedt-2023/20261130T035419Z/analysis.json";
export const T20 = "data/runs/rostedt-2023/20261130T011758Z/analysis.json";
export const SEQ = "data/runs/rostedt-2023/20261130T015450Z/analysis.json";
export const O1 = "data/runs/harness-overhead/20261130T100040Z/analysis.json";
export const O2 = "data/runs/harness-overhead/20261130T101918Z/analysis.json";
export const O2S = "data/runs/harness-overhead/20261130T095746Z/concurrent-2s-cpu1/analysis.json";
export const PUB = "data/published/rostedt-2023/runs.csv";
export const PGB = "data/runs/patch-cost/20261130T065433Z/provenance.json";
export const KB = "data/runs/kernel-build/20261130T024149Z/20261130T024409Z.json";

export const DC = "data/runs/collector-cost/20261130T000000Z/direct-cost.json";
export type CostSummary = { collector: string; machineSharePct: number; sampling: { meanIntervalMs: number | null }[] };
export const summaryOf = (t: string, c: string): CostSummary => {
  const s = (json(t) as { summary: CostSummary[] }).summary.find((x) => x.collector === c);
  if (!s) throw new Error(`no summary for ${c}`);
  return s;
};
export const share = (c: string) => (t: string): number => summaryOf(t, c).machineSharePct;
export const meanInterval = (c: string) => (t: string): number => {
  const xs = summaryOf(t, c).sampling.map((x) => x.meanIntervalMs).filter((x): x is number => x !== null);
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
export const MC = "data/runs/patch-cost/20261130T014521Z/summary.json";
export const OPS = "data/runs/lock-ops-vm/20261130T074829Z/summary.json";
export const PGA = "data/runs/patch-cost/20261130T065433Z/analysis.json";

// §4 patch v2 records.
export const VMCHK = "data/runs/pg-check/20261201T223255Z/vm-pg18/summary.json";
export const LV2 = "data/runs/lock-ops/20261201T192645Z/summary.json";
export const VMCHK10 = "data/runs/pg-check/20261201T223931Z/vm-pg18/summary.json";
export const LVM = "data/runs/lock-ops-vm/20261201T225522Z/summary.json";
export const V1CELLS = "data/runs/vm-eviction/20261130T000002Z/summary.json";
export const VMCHK15 = "data/runs/pg-check/20261202T010223Z/vm-pg15/summary.json";
export const VMCHK15G11 = "data/runs/pg-check/20261202T010437Z/vm-pg15/summary.json";
export const VMCHK15ALL = "data/runs/pg-check/20261202T013736Z/vm-pg15/summary.json";
export const VMCHK18V3 = "data/runs/pg-check/20261204T214313Z/vm-pg18/summary.json";
export const VMCHK15V3 = "data/runs/pg-check/20261204T221253Z/vm-pg15/summary.json";
export const PGDBG = "data/runs/pg-rseq-debug/20261204T215627Z/out/runs.json";
/** A field of one run of the pg-rseq-debug record (kernel/id). */
export const dbgRun = (kernel: string, id: string, f: (r: Record<string, any>) => number) => (t: string) => {
  const r = (JSON.parse(t) as Record<string, any>[]).find((x) => x.kernel === kernel && x.id === id);
  return r === undefined ? NaN : f(r);
};
export const trWin = (f: (w: ReturnType<typeof tracedPgWindow>) => number) => (_t: string, root: string) => f(tracedPgWindow(join(root, TRV2)));
export const trDelta = (k: string) => (t: string) => (JSON.parse(t).workloads[0].sliceExtension.countersDelta as Record<string, number>)[k]!;
export const EVV1 = "data/runs/vm-eviction/20261130T083130Z/full-7.2.13/vm/series";
export const EVST = "data/runs/dipietro-2026/20261201T223016Z/series";
export const EVV2 = "data/runs/vm-eviction/20261202T010551Z/full-7.2.13/vm/series";
export const EVV1L = "data/runs/vm-eviction/20261130T083130Z/lazy-7.2.13/vm/series";
export const EVV2L = "data/runs/vm-eviction/20261202T010551Z/lazy-7.2.13/vm/series";
export const evLoads = (root: string): number[] => ["full-7.2.13", "lazy-7.2.13"].flatMap((c) => hostLoads1(readFileSync(join(root, "data/runs/vm-eviction/20261202T010551Z", c, "host-times.txt"), "utf8")));
/** A number of an eviction cell on one scale (evictionCell over the series DIR, cell NAME). */
export const ev = (dir: string, name: string, f: (c: EvictionCellRates) => number) => (_t: string, root: string): number => f(evictionCell(join(root, dir), name));
export const EVSTC = "mode-full.hugepages-off.extension-all";
/** The 1-minute load averages in a cell's host-times.txt ("host start … load A B C", "host end … load A B C"). */
export const hostLoads1 = (t: string): number[] => [...t.matchAll(/^host (?:start|end) \S+ load ([\d.]+)/gm)].map((m) => Number(m[1]));
export const TRV1 = "data/runs/slice-trace/20261130T051418Z";
export const TRV2 = "data/runs/slice-trace/20261202T005450Z";
/** A number of a traced PostgreSQL run's row (tracedPgRow: the trace, rseq/stats and the patch's counters). */
export const traced = (dir: string, f: (r: TracedPgRow) => number) => (_t: string, root: string): number => f(tracedPgRow(join(root, dir)));
export const V2STUDY = "data/runs/dipietro-2026/20261201T223016Z/record.json";
export type V1Cell = { mode: string; variant: string; n: number; sliceExtension: { grants: number; revoked: number } };
/** A field of version 1's `on` cell under MODE in the compare summary. */
export const v1Cell = (mode: string, k: "grants" | "revoked" | "n") => (t: string): number => {
  const c = (json(t) as { cells: V1Cell[] }).cells.find((x) => x.mode === mode && x.variant === "on");
  if (!c) throw new Error(`no on cell for mode ${mode}`);
  return k === "n" ? c.n : c.sliceExtension[k];
};
/** A number of version 2's `all` cell under MODE in the study record (seriesCellCounters over its series). */
export const v2Cell = (mode: string, f: (c: SeriesCellCounters) => number) => (_t: string, root: string): number => {
  const c = seriesCellCounters(join(root, V2STUDY, "..")).find((x) => x.cell.includes(`mode-${mode}.`) && x.cell.endsWith("extension-all"));
  if (!c) throw new Error(`no ${mode} all cell`);
  return f(c);
};

/** The cost model of REPRODUCE §4 and notebook 03 (costModel) on the committed records. */
export const model = (root: string) =>
  costModel(
    JSON.parse(readFileSync(join(root, OPS), "utf8")).perTransaction,
    JSON.parse(readFileSync(join(root, MC), "utf8")),
    JSON.parse(readFileSync(join(root, PGA), "utf8")),
    JSON.parse(readFileSync(join(root, PGB), "utf8")).host.cpus,
  );

/** The entries of one row of the harness-overhead table (REPRODUCE §3): ratio, CI ends, per-pair sd. */
export function overheadRow(row: string, stamp: string, ratio: string, lo: string, hi: string, sdPct: string): FigureEntry[] {
  const record = `data/runs/harness-overhead/20261130T${stamp}/analysis.json`;
  return [
    { doc: R, sentence: row, figure: `| ${ratio} |`, record, field: "tpsRatio.ratio" },
    { doc: R, sentence: row, figure: `| ${lo}–`, record, field: "tpsRatio.ci95.0" },
    { doc: R, sentence: row, figure: `–${hi} |`, record, field: "tpsRatio.ci95.1" },
    { doc: R, sentence: row, figure: `| ${sdPct} |`, record, field: "tpsRatio.sdLogPerPair × 100", value: (t) => 100 * jsonField(t, "tpsRatio.sdLogPerPair") },
  ];
}
