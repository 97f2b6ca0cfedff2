/**
 * The traced PostgreSQL runs (`vm trace --workload pg`) side by side, one row per record: which
 * patch version the server had, what the kernel did (tracepoints and rseq/stats) and what the
 * patch counted in the same run, with the counts per transaction (notebook 06, REPRODUCE §4).
 * Counts only: the runs are under TCG, where times are functional evidence.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { pgCounterColumns } from "../collect/tables.js";
import { analyseSliceTrace, parseSliceTrace, type GrantOutcome } from "../parse/slice-trace.js";
import { patchVersionOfField, type RecordPatchVersion } from "../postgres/patch-version.js";
import { UserError } from "../util/errors.js";

export interface TracedPgRow {
  record: string;
  patch: RecordPatchVersion;
  accel: string;
  protocol: string;
  clients: number | null;
  hogs: number | null;
  durationS: number | null;
  sliceExtNsec: number | null;
  transactions: number;
  /** Grants in the trace (rseq_slice_grant + expired/revoked before user space). */
  traceGrants: number;
  outcomes: Record<string, number>;
  timerIntervals: number;
  /** rseq/stats after − before (whole guest). */
  kernel: { sgrant: number; sexpir: number; srevok: number; syield: number; sabort: number };
  /** Grants the patch saw: v1 `grants`, v2 `granted_yielded` + `granted_expired`. */
  patchGrants: number;
  /** Holds the patch requested in: v1 `requests`, v2 `holds_*`. */
  patchHolds: number;
  /** Requests the kernel cleared with no grant, as the patch counts them: v1 `revoked`, v2 `dropped_without_grant`. */
  patchCleared: number;
  /** v2: requests written again inside a hold; null for v1. */
  rearmed: number | null;
  kernelGrantsPerTransaction: number;
  patchGrantsPerTransaction: number;
  holdsPerTransaction: number;
  /** Share of the kernel's grants the patch saw at release or a re-arm. */
  patchSawShare: number;
}

type Json = Record<string, any>;
const read = (f: string): Json => {
  if (!existsSync(f)) throw new UserError(`${f}: missing (expected a recorded vm trace --workload pg run)`);
  return JSON.parse(readFileSync(f, "utf8")) as Json;
};
const num = (v: unknown): number | null => (v === undefined || v === null || v === "" || Number.isNaN(Number(v)) ? null : Number(v));

/** The row of one recorded traced PostgreSQL run DIR (provenance.json, analysis.json, raw/series). */
export function tracedPgRow(dir: string, name = dir.split("/").filter(Boolean).pop()!): TracedPgRow {
  const prov = read(join(dir, "provenance.json"));
  const an = read(join(dir, "analysis.json"));
  const p = prov.protocol as Json | undefined;
  if (!p || typeof p.pgBin !== "string") throw new UserError(`${join(dir, "provenance.json")}: expected protocol.pgBin (a PostgreSQL run), found ${JSON.stringify(p?.pgBin ?? null)}`);
  const series = join(dir, p.series ?? "raw/series");
  const lines = readFileSync(join(series, "results.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Json).filter((r) => !r.warmup);
  let transactions = 0;
  const sums = { grants: 0, holds: 0, cleared: 0, rearmed: null as number | null };
  for (const r of lines) {
    const f = join(series, "runs", r.id, "result.json");
    const w = (read(f).workloads as Json[]).find((x) => x.workload === r.workload);
    const tx = w?.metrics?.transactionsProcessed;
    if (typeof tx !== "number") throw new UserError(`${f}: expected metrics.transactionsProcessed (a number), found ${JSON.stringify(tx ?? null)}`);
    transactions += tx;
    const c = pgCounterColumns(w?.sliceExtension?.countersDelta);
    if (c.pgPatch === "v1") {
      sums.grants += c.pgGrants!;
      sums.holds += c.pgRequests!;
      sums.cleared += c.pgRevoked!;
    } else if (c.pgPatch === "v2") {
      sums.grants += c.pgGrantedYielded! + c.pgGrantedExpired!;
      sums.holds += c.pgHolds!;
      sums.cleared += c.pgDroppedWithoutGrant!;
      sums.rearmed = (sums.rearmed ?? 0) + c.pgRearmed!;
    }
  }
  // the patch hash is in the build's directory name (…-patched-HASH-…) and in the record's envelope
  const env = existsSync(join(dir, "record.json")) ? (read(join(dir, "record.json")).postgres?.patch as unknown) : undefined;
  const fromBin = /-patched-([0-9a-f]{12})-/.exec(p.pgBin)?.[1];
  const patch = patchVersionOfField(typeof env === "string" ? env : fromBin ?? env);
  const sd = (an.statsDelta ?? {}) as Record<string, number>;
  const k = (n: string) => sd[n] ?? 0;
  const traceGrants = an.tracepoints?.grants;
  if (typeof traceGrants !== "number") throw new UserError(`${join(dir, "analysis.json")}: expected tracepoints.grants (a number)`);
  const per = (a: number) => (transactions > 0 ? a / transactions : 0);
  return {
    record: name,
    patch,
    accel: prov.environment?.accel ?? "unknown",
    protocol: p.protocol ?? "unknown",
    clients: num(p.params?.clients),
    hogs: num(p.params?.hogs),
    durationS: num(p.params?.duration),
    sliceExtNsec: num(prov.kernel?.sliceExtNsec),
    transactions,
    traceGrants,
    outcomes: an.tracepoints.outcomes ?? {},
    timerIntervals: an.hrtimer?.intervals ?? 0,
    kernel: { sgrant: k("sgrant"), sexpir: k("sexpir"), srevok: k("srevok"), syield: k("syield"), sabort: k("sabort") },
    patchGrants: sums.grants,
    patchHolds: sums.holds,
    patchCleared: sums.cleared,
    rearmed: sums.rearmed,
    kernelGrantsPerTransaction: per(traceGrants),
    patchGrantsPerTransaction: per(sums.grants),
    holdsPerTransaction: per(sums.holds),
    patchSawShare: traceGrants > 0 ? sums.grants / traceGrants : 0,
  };
}

/** Header and rows for an HTML table of traced runs. */
export function tracedPgTable(rows: TracedPgRow[]): { header: string[]; rows: (string | number)[][] } {
  const f = (x: number, d = 3) => Number(x.toFixed(d));
  return {
    header: ["record", "patch", "accel", "protocol", "transactions", "kernel grants (trace)", "rseq/stats sgrant", "expired", "yield", "revoked", "grants / txn", "patch saw grants", "share seen", "holds / txn", "cleared, no grant", "re-armed"],
    rows: rows.map((r) => [
      r.record, r.patch.version, r.accel.toUpperCase(), `${r.protocol} (${r.clients ?? "?"} clients, ${r.hogs ?? "?"} hogs, ${r.durationS ?? "?"} s)`, r.transactions,
      r.traceGrants, r.kernel.sgrant, r.kernel.sexpir, r.kernel.syield, r.kernel.srevok, f(r.kernelGrantsPerTransaction, 4), r.patchGrants, f(r.patchSawShare), f(r.holdsPerTransaction, 1), r.patchCleared, r.rearmed ?? "—",
    ]),
  };
}

/** One sentence on two traced runs (an older and a newer patch version), every number from the rows. */
export function tracedPgSentence(a: TracedPgRow, b: TracedPgRow): string {
  const one = (r: TracedPgRow) =>
    `with patch ${r.patch.version} (${r.record}) the kernel made ${r.traceGrants} grants in ${r.transactions} transactions (${(1000 * r.kernelGrantsPerTransaction).toFixed(1)} per 1000) and the patch saw ${r.patchGrants} of them at release or a re-arm; it counted ${r.patchCleared} requests cleared without a grant${r.rearmed === null ? "" : ` and re-armed ${r.rearmed}`}`;
  const tcg = a.accel !== "kvm" || b.accel !== "kvm" ? " Under TCG these are counts of what happened, not a measure of speed." : "";
  return `Traced ${a.protocol} runs: ${one(a)}; ${one(b)}.${tcg}`;
}

/** A traced run's grants split by the window the patch's counters covered. */
export interface TracedWindow {
  /** The measured pgbench task (the longest-lived pgbench in the trace). */
  measured: { comm: string; tid: number; firstNs: number; lastNs: number };
  /** The window: the end of the last psql before the measured pgbench to the start of the first psql after it (the runner's counter reads). */
  startNs: number;
  endNs: number;
  inside: Partial<Record<GrantOutcome, number>> & { grants: number };
  outside: Partial<Record<GrantOutcome, number>> & { grants: number };
  /** PIDs whose yields fell outside the window. */
  outsideYieldPids: number[];
}

/**
 * The grants of a traced PostgreSQL run (raw/trace.txt[.gz], else raw/trace-tracefs.txt[.gz])
 * inside and outside the window of the patch's counters. The traced runs read rseq/stats around the
 * whole `slicelab bench run` (src/vm/trace.ts: cluster start, the protocol's setup, the measured
 * run, stop), while the counters' delta covers the measured tool run only (src/bench/series.ts
 * measureWorkload reads them through psql just before and just after it): a grant is inside when
 * it began (timer armed, else ended) between the last psql task before the measured pgbench and
 * the first psql task after it. Reads only; writes nothing.
 */
export function tracedPgWindow(dir: string): TracedWindow {
  const raw = join(dir, "raw");
  const at = ["trace.txt", "trace.txt.gz", "trace-tracefs.txt", "trace-tracefs.txt.gz"].map((n) => join(raw, n)).find((f) => existsSync(f));
  if (at === undefined) throw new UserError(`${raw}: expected trace.txt[.gz] or trace-tracefs.txt[.gz] (a traced run)`);
  const text = at.endsWith(".gz") ? gunzipSync(readFileSync(at)).toString("utf8") : readFileSync(at, "utf8");
  const trace = parseSliceTrace(text, at);
  const tasks = new Map<string, { comm: string; tid: number; firstNs: number; lastNs: number }>();
  for (const r of trace.records) {
    if (r.comm !== "psql" && r.comm !== "pgbench") continue;
    const k = `${r.comm}-${r.tid}`;
    const t = tasks.get(k);
    if (t) t.lastNs = r.tsNs;
    else tasks.set(k, { comm: r.comm, tid: r.tid, firstNs: r.tsNs, lastNs: r.tsNs });
  }
  const pgbench = [...tasks.values()].filter((t) => t.comm === "pgbench").sort((a, b) => b.lastNs - b.firstNs - (a.lastNs - a.firstNs));
  const measured = pgbench[0];
  if (measured === undefined) throw new UserError(`${at}: no pgbench task in the trace (expected the measured run)`);
  const psql = [...tasks.values()].filter((t) => t.comm === "psql");
  const before = psql.filter((t) => t.lastNs < measured.firstNs).map((t) => t.lastNs);
  const after = psql.filter((t) => t.firstNs > measured.lastNs).map((t) => t.firstNs);
  const startNs = before.length ? Math.max(...before) : measured.firstNs;
  const endNs = after.length ? Math.min(...after) : measured.lastNs;
  const inside: TracedWindow["inside"] = { grants: 0 };
  const outside: TracedWindow["outside"] = { grants: 0 };
  const pids = new Set<number>();
  for (const g of analyseSliceTrace(trace).grants) {
    const t = g.armTsNs ?? g.endTsNs;
    const side = t !== null && t >= startNs && t <= endNs ? inside : outside;
    side.grants++;
    side[g.outcome] = (side[g.outcome] ?? 0) + 1;
    if (side === outside && g.outcome === "yield") pids.add(g.pid);
  }
  return { measured, startNs, endNs, inside, outside, outsideYieldPids: [...pids].sort((a, b) => a - b) };
}
