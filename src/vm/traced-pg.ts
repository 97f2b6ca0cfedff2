/**
 * The traced PostgreSQL runs (`vm trace --workload pg`) side by side, one row per record: which
 * patch version the server had, what the kernel did (tracepoints and rseq/stats) and what the
 * patch counted in the same run, with the counts per transaction (notebook 06, REPRODUCE §4).
 * Counts only: the runs are under TCG, where times are functional evidence.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pgCounterColumns } from "../collect/tables.js";
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
