import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { tryReadJson } from "../util/json.js";
import { toCsv } from "../util/csv.js";
import type { Design, PlannedRun } from "./design.js";
import type { ResolvedWorkload } from "./protocol.js";
import type { CollectorName } from "../collect/index.js";
import type { RunCollectRecord, WorkloadCollect } from "./collect.js";

/**
 * The files of a series directory, as the runner (series.ts) writes them and every reader reads
 * them: series.json (the plan), runs/ID/result.json (one finished run), results.csv and
 * results.jsonl (the tidy table, one row per run × workload).
 */

export interface SeriesPlan {
  format: string;
  protocol: { name: string; file: string; hash: string };
  design: Design;
  seed: number;
  runs: number;
  warmup: number;
  cpus: number;
  params: Record<string, string>;
  variants: Record<string, unknown>[];
  clients: { binDir: string };
  /** Collectors requested for every run (absent in series made before collectors existed = none). */
  collect?: CollectorName[];
  workloads: ResolvedWorkload[];
  plan: PlannedRun[];
}

export interface WorkloadResult {
  workload: string;
  tool: string;
  cluster: string;
  clusterLog: string;
  command: string[];
  raw: string;
  hogs: number;
  started: string;
  ended: string;
  seconds: number;
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
  tps: number;
  metrics: Record<string, number>;
  /** Collector outputs of this workload (files under runs/ID/collect/WORKLOAD/); absent without --collect. */
  collect?: WorkloadCollect;
  /** The time-slice-extension patch's settings and counters (change during the run); absent on servers without the patch. */
  sliceExtension?: SliceExtensionRecord;
}

/** What a server with our PostgreSQL patch says about the time slice extension around one workload. */
export interface SliceExtensionRecord {
  /** The `slice_extension` setting during the run (off | spinlock | lwlock | all). */
  setting: string;
  /** `slice_extension_status`: "enabled (…)" or "unavailable: why". */
  status: string;
  /** Counters after the run minus before: patch v1's `slice_extension_stats` (requests, grants, yields, revoked, …) or v2's pg_stat_get_slice_extension() columns (acquires_*, holds_*, rearmed, granted_yielded, granted_expired, dropped_without_grant). */
  countersDelta: Record<string, number>;
}

export interface RunResult {
  index: number;
  id: string;
  block: number;
  variant: string;
  warmup: boolean;
  session: number;
  started: string;
  ended: string;
  /** Which collectors were on (and which were skipped, with why); absent without --collect. */
  collectors?: RunCollectRecord;
  workloads: WorkloadResult[];
}

/** One row of the tidy table: one workload of one run. */
export interface SeriesRow {
  run: number;
  id: string;
  block: number;
  variant: string;
  workload: string;
  warmup: boolean;
  tps: number;
  seconds: number;
  started: string;
  ended: string;
  load1Before: number;
  load1After: number;
  hogs: number;
  raw: string;
}

export interface SeriesSummary {
  dir: string;
  total: number;
  done: number;
  ranNow: number;
  rows: SeriesRow[];
}

const readJson = tryReadJson;

/** The result of a finished run, or undefined when the run has not finished (no or unreadable result.json). */
export function readRunResult(dir: string, id: string): RunResult | undefined {
  const r = readJson<RunResult>(join(dir, "runs", id, "result.json"));
  return r && r.id === id && Array.isArray(r.workloads) ? r : undefined;
}

/** The tidy rows of every finished run of a series directory, in run order. */
export function seriesRows(dir: string): SeriesRow[] {
  const plan = readJson<SeriesPlan>(join(dir, "series.json"));
  if (!plan) throw new UserError(`${dir}: expected a series directory with series.json, found none`);
  const rows: SeriesRow[] = [];
  for (const p of plan.plan) {
    const r = readRunResult(dir, p.id);
    if (!r) continue;
    for (const w of r.workloads) {
      rows.push({
        run: r.index,
        id: r.id,
        block: r.block,
        variant: r.variant,
        workload: w.workload,
        warmup: r.warmup,
        tps: w.tps,
        seconds: w.seconds,
        started: w.started,
        ended: w.ended,
        load1Before: w.loadBefore[0],
        load1After: w.loadAfter[0],
        hogs: w.hogs,
        raw: `runs/${r.id}/${w.raw}`,
      });
    }
  }
  return rows;
}

const CSV_COLUMNS: (keyof SeriesRow)[] = [
  "run", "id", "block", "variant", "workload", "warmup", "tps", "seconds", "started", "ended", "load1Before", "load1After", "hogs", "raw",
];

/** The text of results.csv for these rows (header only when there are none). */
export function tidyCsv(rows: SeriesRow[]): string {
  return toCsv(CSV_COLUMNS, rows);
}

/** Rewrites results.csv and results.jsonl from the finished runs. */
export function writeTidy(dir: string): SeriesRow[] {
  const rows = seriesRows(dir);
  writeFileAtomic(join(dir, "results.csv"), tidyCsv(rows));
  writeFileAtomic(join(dir, "results.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : ""));
  return rows;
}
