/**
 * The eviction cells of patch version 1 and version 2 on one scale: per covered hold, per
 * transaction and per second of run, so that two batches sized differently (clients, scale,
 * shared_buffers, run length, run count) can be compared (REPRODUCE §4, notebook 03).
 *
 * The two versions count different things; the comparable pairs are:
 * - holds: v1 `requests` (one per outermost hold) and v2 `holds_*` summed;
 * - grants seen by the patch: v1 `grants` (granted at release) and v2 `granted_yielded` +
 *   `granted_expired` (granted at release, or a grant seen inside the hold that had ended);
 * - requests the kernel cleared with no grant: v1 `revoked` (request gone at release, at most one
 *   per hold) and v2 `dropped_without_grant` (every clear found at a re-arm or at release, so it
 *   can count a hold more than once).
 * The kernel's own grants (rseq/stats `sgrant`) are in a run only when it ran with the
 * rseq-stats collector.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pgCounterColumns } from "../collect/tables.js";
import { UserError } from "../util/errors.js";

export interface EvictionCellRates {
  /** The series' variant name. */
  cell: string;
  patch: "v1" | "v2" | null;
  /** Workload parameters as the series ran them (series.json). */
  clients: number | null;
  scale: number | null;
  sharedBuffers: string | null;
  durationS: number | null;
  /** Measured runs (warm-ups left out). */
  runs: number;
  /** Sum of the measured runs' pgbench wall time, s. */
  runSeconds: number;
  transactions: number;
  meanTps: number;
  holds: number;
  grants: number;
  cleared: number;
  /** v2 only: requests written again inside a hold. */
  rearmed: number | null;
  /** rseq/stats sgrant summed over the measured runs, or null when not collected. */
  kernelGrants: number | null;
  grantsPerHold: number;
  grantsPerTransaction: number;
  grantsPerRunSecond: number;
  clearedPerHold: number;
  clearedPerTransaction: number;
  clearedPerRunSecond: number;
  holdsPerTransaction: number;
}

interface ResultLine { id: string; variant: string; warmup: boolean; tps: number; seconds: number; workload: string }
interface RunResult {
  workloads: {
    workload: string;
    metrics?: { transactionsProcessed?: number | null };
    sliceExtension?: { countersDelta?: Record<string, number> };
    collect?: { outputs: { collector: string; parsed?: { diff?: Record<string, number> } }[] };
  }[];
}

function readJson<T>(file: string): T {
  if (!existsSync(file)) throw new UserError(`${file}: missing (expected a bench series file)`);
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch (e) {
    throw new UserError(`${file}: not JSON (${(e as Error).message})`);
  }
}

const num = (v: unknown): number | null => (v === undefined || v === null || v === "" || Number.isNaN(Number(v)) ? null : Number(v));

/** Per variant of the bench series in SERIES (results.jsonl, series.json, runs/ID/result.json): the counts and their rates. */
export function evictionRates(series: string): EvictionCellRates[] {
  const resultsFile = join(series, "results.jsonl");
  if (!existsSync(resultsFile)) throw new UserError(`${resultsFile}: missing (expected a bench series directory)`);
  const lines = readFileSync(resultsFile, "utf8").split("\n");
  const plan = readJson<{ workloads: { params?: Record<string, unknown> }[] }>(join(series, "series.json"));
  const params = plan.workloads[0]?.params ?? {};
  const by = new Map<string, Omit<EvictionCellRates, "grantsPerHold" | "grantsPerTransaction" | "grantsPerRunSecond" | "clearedPerHold" | "clearedPerTransaction" | "clearedPerRunSecond" | "holdsPerTransaction" | "meanTps">>();
  lines.forEach((l, i) => {
    if (l.trim() === "") return;
    let r: ResultLine;
    try {
      r = JSON.parse(l) as ResultLine;
    } catch {
      throw new UserError(`${resultsFile}:${i + 1}: expected a JSON object per line, found ${JSON.stringify(l.slice(0, 40))}`);
    }
    if (r.warmup) return;
    const file = join(series, "runs", r.id, "result.json");
    const w = readJson<RunResult>(file).workloads.find((x) => x.workload === r.workload);
    if (!w) throw new UserError(`${file}: no workload ${r.workload}`);
    const tx = w.metrics?.transactionsProcessed;
    if (typeof tx !== "number") throw new UserError(`${file}: expected metrics.transactionsProcessed (a number), found ${JSON.stringify(tx)}`);
    const cols = pgCounterColumns(w.sliceExtension?.countersDelta);
    const c = by.get(r.variant) ?? {
      cell: r.variant, patch: cols.pgPatch, clients: num(params.clients), scale: num(params.scale),
      sharedBuffers: params.shared_buffers === undefined ? null : String(params.shared_buffers), durationS: num(params.duration),
      runs: 0, runSeconds: 0, transactions: 0, holds: 0, grants: 0, cleared: 0, rearmed: null, kernelGrants: null,
    };
    if (c.patch === null) c.patch = cols.pgPatch;
    const sgrant = w.collect?.outputs.find((o) => o.collector === "rseq-stats")?.parsed?.diff?.sgrant;
    if (typeof sgrant === "number") c.kernelGrants = (c.kernelGrants ?? 0) + sgrant;
    c.runs++;
    c.runSeconds += r.seconds;
    c.transactions += tx;
    if (cols.pgPatch === "v1") {
      c.holds += cols.pgRequests!;
      c.grants += cols.pgGrants!;
      c.cleared += cols.pgRevoked!;
    } else if (cols.pgPatch === "v2") {
      c.holds += cols.pgHolds!;
      c.grants += cols.pgGrantedYielded! + cols.pgGrantedExpired!;
      c.cleared += cols.pgDroppedWithoutGrant!;
      c.rearmed = (c.rearmed ?? 0) + cols.pgRearmed!;
    }
    by.set(r.variant, c);
  });
  const per = (a: number, b: number) => (b > 0 ? a / b : 0);
  return [...by.values()]
    .map((c) => ({
      ...c,
      meanTps: per(c.transactions, c.runSeconds),
      grantsPerHold: per(c.grants, c.holds),
      grantsPerTransaction: per(c.grants, c.transactions),
      grantsPerRunSecond: per(c.grants, c.runSeconds),
      clearedPerHold: per(c.cleared, c.holds),
      clearedPerTransaction: per(c.cleared, c.transactions),
      clearedPerRunSecond: per(c.cleared, c.runSeconds),
      holdsPerTransaction: per(c.holds, c.transactions),
    }))
    .sort((a, b) => a.cell.localeCompare(b.cell));
}

/** The cell of SERIES whose variant name is NAME, or ends with it (a study's long cell names). */
export function evictionCell(series: string, name: string): EvictionCellRates {
  const cells = evictionRates(series);
  const c = cells.find((x) => x.cell === name) ?? cells.find((x) => x.cell.endsWith(name) || x.cell.includes(name));
  if (!c) throw new UserError(`${series}: no cell ${name} (cells: ${cells.map((x) => x.cell).join(", ")})`);
  return c;
}

/** How many times more of X per unit A has than B (A / B), or null when B is 0. */
export function ratio(a: number, b: number): number | null {
  return b === 0 ? null : a / b;
}

/** One sentence comparing a v1 and a v2 cell on the normalised scale. */
export function evictionRatesSentence(label: string, v1: EvictionCellRates, v2: EvictionCellRates): string {
  const f = (x: number) => (x === 0 ? "0" : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2));
  const size = (c: EvictionCellRates) => `${c.clients ?? "?"} clients, scale ${c.scale ?? "?"}, shared_buffers ${c.sharedBuffers ?? "?"}, ${c.runs} runs of ${c.durationS ?? "?"} s, ${c.transactions} transactions`;
  return (
    `${label}: ${v1.patch ?? "?"} (${size(v1)}) saw ${f(v1.grantsPerHold * 1e4)} grants and ${f(v1.clearedPerHold * 1e4)} clears per 10,000 holds, ` +
    `${f(v1.grantsPerTransaction)} grants per transaction and ${f(v1.grantsPerRunSecond)} per run-second; ` +
    `${v2.patch ?? "?"} (${size(v2)}) saw ${f(v2.grantsPerHold * 1e4)} and ${f(v2.clearedPerHold * 1e4)} per 10,000 holds, ` +
    `${f(v2.grantsPerTransaction)} grants per transaction and ${f(v2.grantsPerRunSecond)} per run-second` +
    `${v2.kernelGrants !== null ? ` (the kernel counted ${v2.kernelGrants} grants in those runs)` : ""}.`
  );
}

/** Header and rows of the normalised table (one row per labelled cell). */
export function evictionRatesTable(cells: { label: string; c: EvictionCellRates }[]): { header: string[]; rows: (string | number)[][] } {
  const g = (x: number) => (x === 0 ? 0 : Number(x.toPrecision(3)));
  return {
    header: ["cell (record)", "patch", "clients", "scale", "shared_buffers", "runs × s", "transactions", "holds / txn", "grants seen", "grants / txn", "grants / run-s", "grants / 10k holds", "cleared, no grant", "cleared / txn", "kernel grants (rseq/stats)", "kernel grants / txn"],
    rows: cells.map(({ label, c }) => [
      label, c.patch ?? "none", c.clients ?? "?", c.scale ?? "?", c.sharedBuffers ?? "?", `${c.runs} × ${c.durationS ?? "?"}`, c.transactions, g(c.holdsPerTransaction),
      c.grants, g(c.grantsPerTransaction), g(c.grantsPerRunSecond), g(c.grantsPerHold * 1e4), c.cleared, g(c.clearedPerTransaction),
      c.kernelGrants ?? "not collected", c.kernelGrants === null || c.transactions === 0 ? "—" : g(c.kernelGrants / c.transactions),
    ]),
  };
}
