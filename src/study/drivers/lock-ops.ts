import { readdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import { readJson } from "../../util/json.js";

/**
 * The reduction of a lock-ops record made by two series in the VM (studies/lock-ops.json,
 * version 1): for every (30 s run, 10 s run) pair, Δcount / Δtransactions — the fixed cost of
 * starting the cluster's connections cancels — then the mean, minimum and maximum over pairs,
 * for requests and their spinlock and LWLock parts, grants, yields and revoked. The same
 * summary.json the record keeps (once written by a script among its data).
 */

export const LOCK_OPS_KEYS = ["requests", "spinlock", "lwlock", "grants", "yields", "revoked"] as const;
type Key = (typeof LOCK_OPS_KEYS)[number];

export interface LockOpsRun {
  id: string;
  transactions: number;
  requests: number;
  spinlock: number;
  lwlock: number;
  grants: number;
  yields: number;
  revoked: number;
  status: string;
}

export interface LockOpsSummary {
  kind: "slicelab-lock-ops-per-transaction";
  method: string;
  runs: { d10: LockOpsRun[]; d30: LockOpsRun[] };
  perTransaction: Record<Key, { mean: number; min: number; max: number; pairs: number }>;
}

interface ResultJson {
  workloads: { metrics: { transactionsProcessed: number }; sliceExtension?: { status: string; countersDelta?: Record<Key, number> } }[];
}

/** The runs of one series (DIR/vm/SERIES/runs/ID/result.json), in id order. */
export function lockOpsRuns(recordDir: string, series: string): LockOpsRun[] {
  const dir = join(recordDir, "vm", series, "runs");
  return readdirSync(dir).sort().map((id) => {
    const w = readJson<ResultJson>(join(dir, id, "result.json")).workloads[0];
    const c = w?.sliceExtension?.countersDelta;
    if (!w || !c) throw new UserError(`${join(dir, id)}: expected slice-extension counters (patched server), found none`);
    return { id, transactions: w.metrics.transactionsProcessed, ...c, status: (w.sliceExtension as { status: string }).status };
  });
}

export function lockOpsSummary(recordDir: string): LockOpsSummary {
  const short = lockOpsRuns(recordDir, "d10");
  const long = lockOpsRuns(recordDir, "d30");
  const perTransaction = {} as LockOpsSummary["perTransaction"];
  for (const k of LOCK_OPS_KEYS) {
    const v: number[] = [];
    for (const l of long) for (const s of short) v.push((l[k] - s[k]) / (l.transactions - s.transactions));
    perTransaction[k] = { mean: v.reduce((a, b) => a + b, 0) / v.length, min: Math.min(...v), max: Math.max(...v), pairs: v.length };
  }
  return {
    kind: "slicelab-lock-ops-per-transaction",
    method: "(requests of a 30 s run − requests of a 10 s run) / (their transactions' difference), over all 30 s × 10 s pairs",
    runs: { d10: short, d30: long },
    perTransaction,
  };
}

/** summary.json's text, as the record keeps it. */
export function lockOpsSummaryText(recordDir: string): string {
  return `${JSON.stringify(lockOpsSummary(recordDir), null, 2)}\n`;
}
