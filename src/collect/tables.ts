/**
 * Tidy tables from the collector outputs of a series directory (`bench run … --collect`):
 * wait events, context switches and kernel lock contention, one row per run × workload (× item),
 * read from the runs' result.json files (the parsed outputs the harness stored there).
 * Notebook 06 shows them; the raw files beside each result.json are what they were parsed from.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { tryReadJson } from "../util/json.js";
import type { CollectorOutput } from "./index.js";
import type { CtxswResult } from "./ctxsw.js";
import type { PgWaitsSummary } from "./pg-waits.js";
import type { PerfLockContention } from "../parse/perf-lock.js";
import type { LockStat } from "../parse/proc-lock-stat.js";

/** Record directories under a runs root: `root/NAME` (made before the one layout) and `root/STUDY/STAMP`, each holding record.json. */
function recordDirs(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const top of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
    if (existsSync(join(root, top, "record.json"))) out.push(join(root, top));
    else for (const sub of readdirSync(join(root, top), { withFileTypes: true }).filter((e) => e.isDirectory())) if (existsSync(join(root, top, sub.name, "record.json"))) out.push(join(root, top, sub.name));
  }
  return out;
}

/** A series directory whose runs had collectors on (series.json lists them). */
function isCollected(dir: string): boolean {
  const s = tryReadJson<{ collect?: unknown[] }>(join(dir, "series.json"));
  return Array.isArray(s?.collect) && s.collect.length > 0;
}

/** When a record started (its envelope), for the order of records; its path when unknown. */
function startOf(dir: string): string {
  const r = tryReadJson<{ started?: unknown }>(join(dir, "record.json"));
  return typeof r?.started === "string" ? r.started : dir;
}

const byStart = (a: string, b: string) => startOf(a).localeCompare(startOf(b)) || a.localeCompare(b);

/** The records under `root` that are a collected series themselves (series.json with collectors at the top), oldest first. */
export function collectedSeriesDirs(root: string): string[] {
  return recordDirs(root).filter(isCollected).sort(byStart);
}

/**
 * The series of collected VM boots: `RECORD/BOOT/series` (one directory per
 * `slicelab vm run` of src/collect/vm-lockstat-guest.sh, e.g. the boot plain-1 of
 * data/runs/sangappa-2024-locktable/20261130T075623Z), records oldest first, boots sorted;
 * boots whose series holds no series.json (failed before the first run) are left out.
 */
export function collectedVmSeriesDirs(root: string): string[] {
  const out: string[] = [];
  for (const rec of recordDirs(root).sort(byStart)) {
    for (const boot of readdirSync(rec, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
      const series = join(rec, boot, "series");
      if (existsSync(join(series, "series.json")) && isCollected(series)) out.push(series);
    }
  }
  return out;
}

/** The finished runs of a series directory in plan order (series.json, runs/ID/result.json). */
function finishedRuns(dir: string): CollectedRun[] {
  const plan = tryReadJson<{ plan?: { id: string }[] }>(join(dir, "series.json"));
  if (!plan || !Array.isArray(plan.plan)) throw new UserError(`${dir}: expected a series directory with series.json, found none`);
  const out: CollectedRun[] = [];
  for (const p of plan.plan) {
    const r = tryReadJson<CollectedRun>(join(dir, "runs", p.id, "result.json"));
    if (r && r.id === p.id && Array.isArray(r.workloads)) out.push(r);
  }
  return out;
}

/** What the tables read of a run's result.json (the series runner's RunResult, src/bench/series.ts). */
interface CollectedWorkload {
  workload: string;
  tps: number;
  seconds: number;
  collect?: { outputs: CollectorOutput[] };
  sliceExtension?: { countersDelta?: Record<string, number> };
}
interface CollectedRun {
  index: number;
  id: string;
  variant: string;
  warmup: boolean;
  workloads: CollectedWorkload[];
}

interface RunWorkload {
  run: CollectedRun;
  workload: CollectedWorkload;
  output: CollectorOutput;
}

/** The finished runs of a series (in run order) and, per workload, the output of one collector. */
function outputsOf(dir: string, collector: string): RunWorkload[] {
  const out: RunWorkload[] = [];
  for (const run of finishedRuns(dir)) {
    for (const w of run.workloads) {
      const o = w.collect?.outputs.find((x) => x.collector === collector);
      if (o) out.push({ run, workload: w, output: o });
    }
  }
  return out;
}

const base = (r: RunWorkload) => ({ id: r.run.id, run: r.run.index, variant: r.run.variant, warmup: r.run.warmup, workload: r.workload.workload });

export interface WaitEventRow {
  id: string;
  run: number;
  variant: string;
  warmup: boolean;
  workload: string;
  /** pg_stat_activity samples taken during the workload. */
  samples: number;
  /** Active client backends seen over all samples. */
  active: number;
  /** wait_event_type, or "CPU" for active without a wait event. */
  waitEventType: string;
  event: string;
  count: number;
}

/** One row per run × workload × wait event (pg-waits). */
export function waitEventRows(dir: string): WaitEventRow[] {
  const rows: WaitEventRow[] = [];
  for (const r of outputsOf(dir, "pg-waits")) {
    const s = r.output.parsed as PgWaitsSummary;
    const active = s.byEvent.reduce((a, e) => a + e.count, 0);
    for (const e of s.byEvent) {
      rows.push({ ...base(r), samples: s.samples, active, waitEventType: e.waitEventType ?? "CPU", event: e.event, count: e.count });
    }
  }
  return rows;
}

export interface WaitTypeRow {
  variant: string;
  workload: string;
  runs: number;
  samples: number;
  active: number;
  waitEventType: string;
  count: number;
  /** count / active, in %. */
  sharePct: number;
}

/**
 * Wait events by type per variant and workload, summed over the measured runs (warm-up runs left
 * out); a variant × workload whose samples saw no active backend has no rows.
 */
export function waitTypeTable(dir: string): WaitTypeRow[] {
  const measured = outputsOf(dir, "pg-waits").filter((r) => !r.run.warmup);
  const groups = new Map<string, { variant: string; workload: string; runs: number; samples: number; active: number; types: Map<string, number> }>();
  for (const r of measured) {
    const key = `${r.run.variant}\0${r.workload.workload}`;
    const g = groups.get(key) ?? { variant: r.run.variant, workload: r.workload.workload, runs: 0, samples: 0, active: 0, types: new Map<string, number>() };
    const s = r.output.parsed as PgWaitsSummary;
    g.runs++;
    g.samples += s.samples;
    for (const e of s.byEvent) {
      const t = e.waitEventType ?? "CPU";
      g.active += e.count;
      g.types.set(t, (g.types.get(t) ?? 0) + e.count);
    }
    groups.set(key, g);
  }
  const rows: WaitTypeRow[] = [];
  for (const g of groups.values()) {
    for (const [t, count] of [...g.types.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
      rows.push({ variant: g.variant, workload: g.workload, runs: g.runs, samples: g.samples, active: g.active, waitEventType: t, count, sharePct: (100 * count) / g.active });
    }
  }
  return rows;
}

/** The columns that place a row: which run, variant and workload, and that workload's throughput. */
export interface RunWorkloadColumns {
  id: string;
  run: number;
  variant: string;
  warmup: boolean;
  workload: string;
  tps: number;
  seconds: number;
}

export interface CtxswRow extends RunWorkloadColumns {
  /** Client backends seen (pgbench/sysbench connections, plus pg-waits' own short-lived ones when it ran too). */
  backends: number;
  voluntary: number;
  nonvoluntary: number;
  /** nonvoluntary / (voluntary + nonvoluntary), in %. */
  involuntaryPct: number;
  /** Context switches of the client backends per transaction. */
  perTransaction: number;
}

/** One row per run × workload: context switches of the client backends (ctxsw). */
export function ctxswRows(dir: string): CtxswRow[] {
  return outputsOf(dir, "ctxsw").map((r) => {
    const s = r.output.parsed as CtxswResult;
    const k = s.byKind.find((x) => x.kind === "client backend") ?? { processes: 0, voluntary: 0, nonvoluntary: 0 };
    const all = k.voluntary + k.nonvoluntary;
    const transactions = r.workload.tps * r.workload.seconds;
    return {
      ...base(r),
      tps: r.workload.tps,
      seconds: r.workload.seconds,
      backends: k.processes,
      voluntary: k.voluntary,
      nonvoluntary: k.nonvoluntary,
      involuntaryPct: all > 0 ? (100 * k.nonvoluntary) / all : 0,
      perTransaction: transactions > 0 ? all / transactions : 0,
    };
  });
}

export interface LockContentionRow {
  id: string;
  run: number;
  variant: string;
  warmup: boolean;
  workload: string;
  seconds: number;
  caller: string;
  type: string;
  contended: number;
  waitTotalNs: number;
}

/** One row per run × workload × caller of `perf lock contention` (perf-lock, by caller). */
export function lockContentionRows(dir: string): LockContentionRow[] {
  const rows: LockContentionRow[] = [];
  for (const r of outputsOf(dir, "perf-lock")) {
    const p = r.output.parsed as { byCaller: PerfLockContention };
    for (const e of p.byCaller.entries) {
      rows.push({
        ...base(r),
        seconds: r.workload.seconds,
        caller: e.caller ?? e.symbol ?? "?",
        type: e.type ?? "?",
        contended: e.contended ?? 0,
        waitTotalNs: e.waitTotalNs ?? 0,
      });
    }
  }
  return rows;
}

export interface TopLockRow {
  /** caller without its offset (+0x…), as several offsets of one function are one lock site for a reader. */
  caller: string;
  type: string;
  runs: number;
  contended: number;
  waitTotalNs: number;
  /** Share of the wait in the measured runs' reports (each report lists its top callers only: perf-lock -E 50), in %. */
  sharePct: number;
}

/**
 * The kernel lock sites with the most total wait over the measured runs (warm-ups left out) of one
 * series, optionally one variant or workload: callers summed over their offsets.
 */
export function topLocks(dir: string, opts: { variant?: string; workload?: string; limit?: number } = {}): TopLockRow[] {
  const rows = lockContentionRows(dir).filter((r) => !r.warmup && (opts.variant === undefined || r.variant === opts.variant) && (opts.workload === undefined || r.workload === opts.workload));
  const total = rows.reduce((a, r) => a + r.waitTotalNs, 0);
  const by = new Map<string, { caller: string; type: string; runs: Set<string>; contended: number; waitTotalNs: number }>();
  for (const r of rows) {
    const caller = r.caller.replace(/\+0x[0-9a-f]+$/i, "");
    const key = `${caller}\0${r.type}`;
    const g = by.get(key) ?? { caller, type: r.type, runs: new Set<string>(), contended: 0, waitTotalNs: 0 };
    g.runs.add(r.id);
    g.contended += r.contended;
    g.waitTotalNs += r.waitTotalNs;
    by.set(key, g);
  }
  return [...by.values()]
    .sort((a, b) => b.waitTotalNs - a.waitTotalNs || a.caller.localeCompare(b.caller))
    .slice(0, opts.limit ?? 10)
    .map((g) => ({ caller: g.caller, type: g.type, runs: g.runs.size, contended: g.contended, waitTotalNs: g.waitTotalNs, sharePct: total > 0 ? (100 * g.waitTotalNs) / total : 0 }));
}

export interface RseqSliceRow extends RunWorkloadColumns {
  /** Kernel counters over the workload (rseq/stats after − before; system-wide in the guest). */
  sgrant: number;
  sexpir: number;
  srevok: number;
  syield: number;
  sabort: number;
  /**
   * Which version of our PostgreSQL patch reported the counters below: "v1" (the
   * `slice_extension_stats` setting: requests, grants, yields, revoked), "v2"
   * (pg_stat_get_slice_extension(): per-backend slots summed by the function), or
   * null when the server reported none. Each version's columns are null for the other.
   */
  pgPatch: "v1" | "v2" | null;
  /** v1: outermost holds that wrote a request. */
  pgRequests: number | null;
  /** v1: grants seen at release. */
  pgGrants: number | null;
  /** v1: yields after a grant. */
  pgYields: number | null;
  /** v1: releases that found the request gone (mostly the kernel's clear after a switch). */
  pgRevoked: number | null;
  /** v2: covered acquires (spinlock + buffer header + wait list + LWLock). */
  pgAcquires: number | null;
  /** v2: outermost holds (each wrote a request). */
  pgHolds: number | null;
  /** v2: the request written again inside a hold after the kernel cleared it. */
  pgRearmed: number | null;
  /** v2: granted, the CPU given back at release. */
  pgGrantedYielded: number | null;
  /** v2: granted, the grant had expired by release. */
  pgGrantedExpired: number | null;
  /** v2: the request was gone at release without a grant. */
  pgDroppedWithoutGrant: number | null;
}

const V2_ACQUIRES = ["acquires_spinlock", "acquires_buffer_header", "acquires_wait_list", "acquires_lwlock"];
const V2_HOLDS = ["holds_spinlock", "holds_buffer_header", "holds_wait_list", "holds_lwlock"];

type PgCounterColumns = Pick<
  RseqSliceRow,
  "pgPatch" | "pgRequests" | "pgGrants" | "pgYields" | "pgRevoked" | "pgAcquires" | "pgHolds" | "pgRearmed" | "pgGrantedYielded" | "pgGrantedExpired" | "pgDroppedWithoutGrant"
>;

/**
 * The patch's counters (a workload's `sliceExtension.countersDelta`) as columns named by patch
 * version: v2 when the delta has v2's columns (granted_yielded, holds_*), v1 when it has
 * `requests`; all null otherwise.
 */
export function pgCounterColumns(delta: Record<string, number> | null | undefined): PgCounterColumns {
  const none: PgCounterColumns = {
    pgPatch: null, pgRequests: null, pgGrants: null, pgYields: null, pgRevoked: null,
    pgAcquires: null, pgHolds: null, pgRearmed: null, pgGrantedYielded: null, pgGrantedExpired: null, pgDroppedWithoutGrant: null,
  };
  if (!delta) return none;
  const sum = (keys: string[]) => keys.reduce((a, k) => a + (delta[k] ?? 0), 0);
  if (delta.granted_yielded !== undefined || V2_HOLDS.some((k) => delta[k] !== undefined)) {
    return {
      ...none,
      // v3 has v2's layout ("v2" here) and renamed two columns (granted_seen_ended, cleared_without_grant_seen): the same quantities, read under either name
      pgPatch: "v2",
      pgAcquires: sum(V2_ACQUIRES),
      pgHolds: sum(V2_HOLDS),
      pgRearmed: delta.rearmed ?? 0,
      pgGrantedYielded: delta.granted_yielded ?? 0,
      pgGrantedExpired: delta.granted_expired ?? delta.granted_seen_ended ?? 0,
      pgDroppedWithoutGrant: delta.dropped_without_grant ?? delta.cleared_without_grant_seen ?? 0,
    };
  }
  if (delta.requests !== undefined) {
    return { ...none, pgPatch: "v1", pgRequests: delta.requests, pgGrants: delta.grants ?? 0, pgYields: delta.yields ?? 0, pgRevoked: delta.revoked ?? 0 };
  }
  return none;
}

/** One row per run × workload: slice-extension grants, expiries, revocations, yields and aborts (rseq-stats). */
export function rseqSliceRows(dir: string): RseqSliceRow[] {
  return outputsOf(dir, "rseq-stats").map((r) => {
    const p = r.output.parsed as { diff: Record<string, number>; sliceExtension: boolean };
    const pg = r.workload.sliceExtension?.countersDelta ?? null;
    const k = (name: string) => p.diff[name] ?? 0;
    return {
      ...base(r),
      tps: r.workload.tps,
      seconds: r.workload.seconds,
      sgrant: k("sgrant"),
      sexpir: k("sexpir"),
      srevok: k("srevok"),
      syield: k("syield"),
      sabort: k("sabort"),
      ...pgCounterColumns(pg),
    };
  });
}

export interface LockClassRow {
  name: string;
  contentions: number;
  waittimeTotalUs: number;
  acquisitions: number;
  holdtimeTotalUs: number;
  /** The row's most frequent contention point (where waiters waited), when the class was contended. */
  topPoint: string | null;
}

/** The classes of one /proc/lock_stat snapshot with the most contentions (read and write rows summed). */
export function topLockClasses(ls: LockStat, limit = 10): LockClassRow[] {
  return ls.classes
    .map((c) => {
      const sum = (f: (r: (typeof c.rows)[number]) => number) => c.rows.reduce((a, r) => a + f(r), 0);
      const points = c.points.filter((p) => p.role === "contention").sort((a, b) => b.count - a.count);
      return {
        name: c.name,
        contentions: sum((r) => r.contentions),
        waittimeTotalUs: sum((r) => r.waittimeTotalUs),
        acquisitions: sum((r) => r.acquisitions),
        holdtimeTotalUs: sum((r) => r.holdtimeTotalUs),
        topPoint: points[0]?.symbol ?? null,
      };
    })
    .sort((a, b) => b.contentions - a.contentions || b.waittimeTotalUs - a.waittimeTotalUs || a.name.localeCompare(b.name))
    .slice(0, limit);
}

export interface LockStatRunRow extends LockClassRow {
  id: string;
  run: number;
  variant: string;
  warmup: boolean;
  workload: string;
  seconds: number;
}

/** One row per run × workload × lock class among the `limit` most contended of that snapshot (lockstat). */
export function lockStatRunRows(dir: string, limit = 10): LockStatRunRow[] {
  return outputsOf(dir, "lockstat").flatMap((r) => topLockClasses(r.output.parsed as LockStat, limit).map((c) => ({ ...base(r), seconds: r.workload.seconds, ...c })));
}

/** Requests the patch wrote in a row: v1's requests, v2's holds + re-arms; null without counters. */
export function pgRequestsWritten(r: Pick<RseqSliceRow, "pgPatch" | "pgRequests" | "pgHolds" | "pgRearmed">): number | null {
  if (r.pgPatch === "v2") return r.pgHolds! + r.pgRearmed!;
  return r.pgRequests;
}

/** Notebook 06's five patch-counter cells of a row: version, requests, grants, yields, lost requests ("-" when absent). */
export function pgCounterCells(r: RseqSliceRow): (string | number)[] {
  if (r.pgPatch === "v2") return ["v2", pgRequestsWritten(r)!, r.pgGrantedYielded! + r.pgGrantedExpired!, r.pgGrantedYielded!, r.pgDroppedWithoutGrant!];
  if (r.pgPatch === "v1") return ["v1", r.pgRequests!, r.pgGrants!, r.pgYields!, r.pgRevoked!];
  return ["-", "-", "-", "-", "-"];
}
