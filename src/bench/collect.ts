/**
 * Collectors in a benchmark series (`slicelab bench run … --collect a,b,c`).
 *
 * The series prepares the named collectors once (prepareSeriesCollect: the checks run, the ones that
 * cannot work here are skipped with their reason and recorded in the provenance and in every run's
 * result.json). Around each measured workload, collectAround starts the active collectors, runs the
 * measurement and stops them; their files go to runs/ID/collect/WORKLOAD/ and their parsed outputs
 * into the workload's entry of result.json. result.json is written last, so a run whose collector
 * output is half-written (interrupted, or a collector that failed to stop) is not counted and is run
 * again on resume.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  prepareCollectors,
  startCollectors,
  stopCollectors,
  type CollectContext,
  type Collector,
  type CollectorName,
  type CollectorOutput,
} from "../collect/index.js";
import type { Cluster } from "../postgres/cluster.js";
import { UserError } from "../util/errors.js";

/** The collectors of a series in one invocation: requested, working (active) and skipped with a reason. */
export interface SeriesCollect {
  requested: CollectorName[];
  active: Collector[];
  skipped: { name: CollectorName; reason: string }[];
}

/** What a run records about its collectors (result.json → `collectors`). */
export interface RunCollectRecord {
  requested: CollectorName[];
  /** The collectors that were on during every workload of the run. */
  on: CollectorName[];
  skipped: { name: CollectorName; reason: string }[];
}

/** What a workload records: its collector directory (relative to the run directory) and each collector's output. */
export interface WorkloadCollect {
  dir: string;
  outputs: CollectorOutput[];
}

/** Runs the checks of the requested collectors once for a series. */
export async function prepareSeriesCollect(
  names: CollectorName[],
  factories?: Partial<Record<CollectorName, () => Collector>>,
): Promise<SeriesCollect> {
  const { active, skipped } = await prepareCollectors(names, factories);
  return { requested: [...names], active, skipped };
}

/** The record a run keeps; undefined when no collector was requested (so plain series keep their shape). */
export function runCollectRecord(sc: SeriesCollect): RunCollectRecord | undefined {
  if (sc.requested.length === 0) return undefined;
  return { requested: sc.requested, on: sc.active.map((c) => c.name), skipped: sc.skipped };
}

/** The postmaster's pid from DATADIR/postmaster.pid (its first line). */
export function postmasterPidOf(dataDir: string): number {
  const file = join(dataDir, "postmaster.pid");
  let first: string | undefined;
  try {
    first = readFileSync(file, "utf8").split("\n")[0];
  } catch (err) {
    throw new UserError(`${file}: expected the running cluster's pid file, found none (${err instanceof Error ? err.message : String(err)})`);
  }
  const pid = Number(first);
  if (!Number.isInteger(pid) || pid <= 0) throw new UserError(`${file}:1: expected the postmaster's pid, found ${JSON.stringify(first)}`);
  return pid;
}

/** The collector context of one workload of one run against a running cluster. */
export function collectContext(cluster: Pick<Cluster, "dataDir" | "query">, runDir: string, workload: string): { ctx: CollectContext; dir: string } {
  const dir = join("collect", workload);
  return {
    dir,
    ctx: { runDir: join(runDir, dir), query: (sql: string) => cluster.query(sql), postmasterPid: postmasterPidOf(cluster.dataDir) },
  };
}

/**
 * Starts the active collectors, runs `measure`, stops them and returns both results. When `measure`
 * fails the collectors are still stopped (their recorders must not outlive the run) and the
 * measurement's error is rethrown; when stopping fails, that error is thrown: the run is not counted.
 */
export async function collectAround<T>(
  active: Collector[],
  ctx: CollectContext,
  dir: string,
  measure: () => Promise<T>,
): Promise<{ value: T; collect: WorkloadCollect | undefined }> {
  if (active.length === 0) return { value: await measure(), collect: undefined };
  try {
    await startCollectors(active, ctx); // stops the ones already started when one fails
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`collectors in ${ctx.runDir}: starting failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  let value: T;
  try {
    value = await measure();
  } catch (err) {
    await stopCollectors(active, ctx).catch(() => undefined);
    throw err;
  }
  let outputs: CollectorOutput[];
  try {
    outputs = await stopCollectors(active, ctx);
  } catch (err) {
    throw new UserError(`collectors in ${ctx.runDir}: stopping failed: ${err instanceof Error ? err.message : String(err)} (the run is not counted; run the same command again to resume)`);
  }
  return { value, collect: { dir, outputs } };
}
