/**
 * Collectors: optional measurements taken around each benchmark run
 * (`--collect lockstat,perf-lock,perf-profile,pg-waits,rseq-stats,ctxsw`).
 *
 * Life of a collector in a series (the harness drives it):
 *
 *   const { active, skipped } = await prepareCollectors(parseCollectList("perf-lock,ctxsw"));
 *   // skipped: [{ name, reason }] — record them in the series' provenance
 *   for each run:
 *     await startCollectors(active, ctx);      // resets counters / starts recorders
 *     … run the benchmark …
 *     const outputs = await stopCollectors(active, ctx);  // snapshots, parses
 *
 * A collector is:
 *   name         one of COLLECTOR_NAMES
 *   check()      can it work on this machine? { ok: false, reason } names what is missing
 *                (kernel option, mount, package, permission) and how to get it
 *   start(ctx)   resets the counters it reads (or takes a "before" snapshot when the kernel
 *                offers no reset) and starts any recorder/sampler; must return quickly
 *   stop(ctx)    stops recorders, takes the "after" snapshot, writes its raw files into
 *                ctx.runDir (atomically) and returns { collector, files, parsed, notes }
 * One collector object measures one run at a time; start → stop → start → … is allowed.
 * The factories in COLLECTORS return fresh objects (they hold per-run state).
 */
import { mkdirSync } from "node:fs";
import { UserError } from "../util/errors.js";
import { createCtxswCollector } from "./ctxsw.js";
import { createLockstatCollector } from "./lockstat.js";
import { createPerfLockCollector } from "./perf-lock.js";
import { createPerfProfileCollector } from "./perf-profile.js";
import { createPgWaitsCollector } from "./pg-waits.js";
import { createRseqStatsCollector } from "./rseq-stats.js";

export const COLLECTOR_NAMES = ["lockstat", "perf-lock", "perf-profile", "pg-waits", "rseq-stats", "ctxsw"] as const;
export type CollectorName = (typeof COLLECTOR_NAMES)[number];

/** What a run gives its collectors. */
export interface CollectContext {
  /** Directory for this run's collector files (created when missing). */
  runDir: string;
  /** pg-waits: runs one SQL statement on the cluster under test and returns its text output (psql -At style). */
  query?: (sql: string) => Promise<string>;
  /** ctxsw: the postmaster's pid; its children (the backends) are watched. */
  postmasterPid?: number;
  /** ctxsw, instead of postmasterPid: returns the pids to watch (called at every sample). */
  pids?: () => Promise<number[]>;
}

export interface CheckResult {
  ok: boolean;
  /** Why the collector cannot work here, and what would fix it. */
  reason?: string;
}

export interface CollectorOutput {
  collector: CollectorName;
  /** Files written, relative to ctx.runDir. */
  files: string[];
  /** The parsed measurement (shape per collector, documented in its file). */
  parsed: unknown;
  /** Facts worth keeping with the data (e.g. samples lost, processes seen). */
  notes: string[];
}

export interface Collector {
  readonly name: CollectorName;
  readonly description: string;
  check(): Promise<CheckResult>;
  start(ctx: CollectContext): Promise<void>;
  stop(ctx: CollectContext): Promise<CollectorOutput>;
}

export const COLLECTORS: Record<CollectorName, () => Collector> = {
  lockstat: () => createLockstatCollector(),
  "perf-lock": () => createPerfLockCollector(),
  "perf-profile": () => createPerfProfileCollector(),
  "pg-waits": () => createPgWaitsCollector(),
  "rseq-stats": () => createRseqStatsCollector(),
  ctxsw: () => createCtxswCollector(),
};

/** Parses a `--collect a,b,c` value: known names, no duplicates; "" means none. */
export function parseCollectList(value: string | undefined, option = "--collect"): CollectorName[] {
  if (value === undefined || value.trim() === "") return [];
  const out: CollectorName[] = [];
  for (const raw of value.split(",")) {
    const name = raw.trim();
    if (!(COLLECTOR_NAMES as readonly string[]).includes(name)) {
      throw new UserError(`${option}: unknown collector ${JSON.stringify(name)} (known: ${COLLECTOR_NAMES.join(", ")})`);
    }
    if (out.includes(name as CollectorName)) throw new UserError(`${option}: collector "${name}" named twice`);
    out.push(name as CollectorName);
  }
  return out;
}

export interface Prepared {
  active: Collector[];
  skipped: { name: CollectorName; reason: string }[];
}

/** Creates the named collectors and runs their checks; the ones that cannot work are skipped with their reason. */
export async function prepareCollectors(names: CollectorName[], factories: Partial<Record<CollectorName, () => Collector>> = {}): Promise<Prepared> {
  const prepared: Prepared = { active: [], skipped: [] };
  for (const name of names) {
    const c = (factories[name] ?? COLLECTORS[name])();
    let res: CheckResult;
    try {
      res = await c.check();
    } catch (err) {
      res = { ok: false, reason: `check failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (res.ok) prepared.active.push(c);
    else prepared.skipped.push({ name, reason: res.reason ?? "check failed without a reason" });
  }
  return prepared;
}

/** Starts the collectors in order; if one fails, the ones already started are stopped and the error is rethrown. */
export async function startCollectors(active: Collector[], ctx: CollectContext): Promise<void> {
  mkdirSync(ctx.runDir, { recursive: true });
  const started: Collector[] = [];
  for (const c of active) {
    try {
      await c.start(ctx);
      started.push(c);
    } catch (err) {
      for (const s of started.reverse()) await s.stop(ctx).catch(() => undefined);
      throw err;
    }
  }
}

/** Stops the collectors in reverse order and returns their outputs (in the original order). */
export async function stopCollectors(active: Collector[], ctx: CollectContext): Promise<CollectorOutput[]> {
  const outputs: CollectorOutput[] = [];
  let firstError: unknown = null;
  for (const c of [...active].reverse()) {
    try {
      outputs.unshift(await c.stop(ctx));
    } catch (err) {
      firstError ??= err;
    }
  }
  if (firstError) throw firstError;
  return outputs;
}
