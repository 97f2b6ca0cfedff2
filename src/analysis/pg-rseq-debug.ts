/**
 * What notebook 03 and REPRODUCE §4 show of the pg-rseq-debug records (issue 27, items 1 and 2 on
 * PostgreSQL) and of the v2 traced run's window: one row per run with the cross-check computed
 * again from the run's raw deltas (src/postgres/stats-cross-check.ts reconcile), and the
 * sentences, every number from the rows.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { reconcile, type ReconcileRelation } from "../postgres/stats-cross-check.js";
import { UserError } from "../util/errors.js";
import type { TracedWindow } from "../vm/traced-pg.js";
import type { PgDebugRow } from "../vm/pg-rseq-debug.js";

export interface PgDebugRecordRow extends PgDebugRow {
  kernel: string;
  relations: ReconcileRelation[];
}

export interface PgDebugRecord {
  dir: string;
  verdict: { verdict: string; reason: string };
  accel: string;
  cpus: number;
  kernelVersions: Record<string, string>;
  rows: PgDebugRecordRow[];
}

type Json = Record<string, any>;
const readJson = (f: string): Json => {
  if (!existsSync(f)) throw new UserError(`${f}: missing (expected a pg-rseq-debug record: slicelab study run pg-rseq-debug)`);
  return JSON.parse(readFileSync(f, "utf8")) as Json;
};

/** A pg-rseq-debug record DIR (out/runs.json, out/verdict.json, out/provenance.json). */
export function readPgDebugRecord(dir: string): PgDebugRecord {
  const out = join(dir, "out");
  const runs = readJson(join(out, "runs.json")) as (PgDebugRow & { kernel: string })[];
  const prov = readJson(join(out, "provenance.json"));
  const boots = (prov.boots ?? []) as Json[];
  return {
    dir,
    verdict: readJson(join(out, "verdict.json")) as { verdict: string; reason: string },
    accel: String(boots[0]?.accel ?? "unknown"),
    cpus: Number(boots[0]?.cpus ?? Number.NaN),
    kernelVersions: Object.fromEntries(boots.map((b) => [String(b.kernel), `${String(b.kernelVersion)}${String(b.tree ?? "").includes("rseq-slice-stale-work") ? " + rseq-slice-stale-work" : ""}`])),
    rows: runs.map((r) => ({ ...r, relations: r.patchDelta && (r.kernelDelta ?? r.kernelDeltaShell) ? reconcile(r.patchDelta, (r.kernelDelta ?? r.kernelDeltaShell)!) : [] })),
  };
}

/** The newest pg-rseq-debug record under RUNS (data/runs), or undefined. */
export function latestPgDebugRecord(runs: string): string | undefined {
  const root = join(runs, "pg-rseq-debug");
  if (!existsSync(root)) return undefined;
  const s = readdirSync(root).filter((n) => /^\d{8}T\d{6}Z$/.test(n) && existsSync(join(root, n, "out", "runs.json"))).sort();
  return s.length ? join(root, s[s.length - 1]!) : undefined;
}

const held = (rs: ReconcileRelation[]) => {
  const d = rs.filter((r) => r.holds !== null);
  return `${d.filter((r) => r.holds).length} of ${d.length}`;
};

/** Header and rows for the record's table. */
export function pgDebugTable(rec: PgDebugRecord): { header: string[]; rows: (string | number)[][] } {
  const k = (r: PgDebugRecordRow, n: string) => (r.kernelDelta ?? r.kernelDeltaShell)?.[n] ?? "—";
  const p = (r: PgDebugRecordRow, ...ns: string[]) => ns.map((n) => r.patchDelta?.[n]).find((v) => v !== undefined) ?? "—";
  return {
    header: ["kernel", "run", "patch", "rseq/debug", "outcome", "transactions", "sgrant", "srevok", "syield", "granted_yielded", "seen ended", "cleared, no grant", "clear_yields", "relations holding"],
    rows: rec.rows.map((r) => [
      rec.kernelVersions[r.kernel] ? `${r.kernel} (${rec.kernelVersions[r.kernel]})` : r.kernel,
      r.id, r.patch, r.rseqDebug ?? "?", r.outcome, r.transactions ?? "—",
      k(r, "sgrant"), k(r, "srevok"), k(r, "syield"),
      p(r, "granted_yielded"), p(r, "granted_seen_ended", "granted_expired"), p(r, "cleared_without_grant_seen", "dropped_without_grant"), p(r, "clear_yields"),
      held(r.relations),
    ]),
  };
}

/** The record in sentences: what was killed, what survived, and whether the counters reconciled. */
export function pgDebugSentences(rec: PgDebugRecord): string[] {
  const name = rec.dir.split("/").slice(-2).join("/");
  const at = (r: PgDebugRecordRow) => `${r.kernel} kernel, patch ${r.patch}, rseq/debug = ${r.rseqDebug ?? "?"}`;
  const k = (r: PgDebugRecordRow) => r.kernelDelta ?? r.kernelDeltaShell ?? {};
  const out: string[] = [];
  for (const r of rec.rows) {
    if (r.outcome === "killed") out.push(`${at(r)}: killed — ${r.killedLines[0]?.replace(/^.*?LOG:\s+/, "") ?? r.reason} (${k(r).srevok ?? "?"} grants revoked at a return to user space in the window).`);
    else if (r.outcome === "survived") out.push(`${at(r)}: no process killed in ${r.transactions ?? "?"} transactions while the kernel revoked ${k(r).srevok ?? "?"} of ${k(r).sgrant ?? "?"} grants at a return to user space (each leaves the syscall work bit set)${r.patch === "v3" ? `; v3 made ${r.patchDelta?.clear_yields ?? "?"} clear yields` : ""}.`);
    else out.push(`${at(r)}: ${r.outcome} (${r.reason}).`);
  }
  const v3 = rec.rows.filter((r) => r.patch === "v3" && r.relations.length > 0);
  const all = v3.every((r) => r.relations.every((x) => x.holds === true));
  const yields = v3.map((r) => `${r.relations[0]!.lhs} = ${r.relations[0]!.rhs}`).join(", ");
  if (v3.length)
    out.push(
      `The counters against rseq/stats over the same statement's window: ${all ? `all six relations hold in every v3 run (${v3.length} runs)` : `some relations FAIL: ${v3.map((r) => `${r.kernel}/${r.id} ${held(r.relations)}`).join(", ")}`}; granted_yielded = syield: ${yields}.`,
    );
  out.push(`Verdict (${name}): ${rec.verdict.verdict}. Under QEMU ${rec.accel.toUpperCase()} with ${rec.cpus} vCPUs: kills and counts are the evidence, times are not.`);
  return out;
}

/** The v2 traced run's two windows in one sentence (tracedPgWindow and the run's counters' delta). */
export function tracedWindowSentence(record: string, w: TracedWindow, delta: Record<string, number>, whole: { sgrant: number; syield: number }): string {
  const y = w.inside.yield ?? 0;
  const seen = (delta.granted_yielded ?? 0) + (delta.granted_seen_ended ?? delta.granted_expired ?? 0);
  const cleared = delta.cleared_without_grant_seen ?? delta.dropped_without_grant ?? 0;
  return (
    `${record}: rseq/stats were read around the whole bench run (${whole.sgrant} grants, ${whole.syield} yields), the patch's counters around the measured pgbench only; ` +
    `within the counters' window the trace holds ${w.inside.grants} grants and ${y} yields, against granted_yielded ${delta.granted_yielded ?? "?"} (${y === delta.granted_yielded ? "equal" : "NOT equal"}) and ${seen} seen + ${cleared} cleared (${w.inside.grants <= seen + cleared ? "≥ the grants" : "FEWER than the grants"}); ` +
    `the other ${w.outside.yield ?? 0} yields and ${w.outside.grants} grants came before or after it (yields by PIDs ${w.outsideYieldPids.join(", ") || "none"}).`
  );
}
