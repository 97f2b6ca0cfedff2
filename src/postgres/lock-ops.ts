/**
 * How many covered lock operations (hook executions) one pgbench -S
 * transaction makes in the patched server, counted by the patch itself
 * (pg_stat_get_slice_extension()). On a kernel with the feature this runs as
 * is; on one without it (the 6.x host) the LD_PRELOAD shim
 * src/postgres/harness/slice-ext-shim.c makes the probe succeed, so the hooks
 * run their full protocol on an rseq area the kernel never clears: acquires
 * and holds are exact, rearm and grant counts are 0 there. The record says
 * which.
 *
 * Method (as the v1 record data/runs/lock-ops-vm/20261130T074829Z): runs of
 * 10 s and 30 s with the same connections; for each (30 s, 10 s) pair the
 * counter difference over the transaction difference is the count per
 * transaction without the cost of connecting.
 */
import { execFile, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, release, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { mean } from "../stats/summary.js";
import { buildPostgres } from "./build.js";
import { withCluster, type Cluster } from "./cluster.js";
import { patchHash } from "./patch.js";
import type { PgSource } from "./source.js";

const run = promisify(execFile);

export const KINDS = ["spinlock", "buffer_header", "wait_list", "lwlock"] as const;
export const COUNTERS = [
  ...KINDS.map((k) => `acquires_${k}`),
  ...KINDS.map((k) => `holds_${k}`),
  "rearmed",
  "granted_yielded",
  "granted_seen_ended",
  "cleared_without_grant_seen",
  "clear_yields",
  "holds_reset",
] as const;

/** v2's names of the columns v3 renamed (v3 names what is counted: a clear with no grant seen may be a grant that ended unseen). */
export const V2_COLUMN_NAMES: Partial<Record<(typeof COUNTERS)[number], string>> = {
  granted_seen_ended: "granted_expired",
  cleared_without_grant_seen: "dropped_without_grant",
};

/** A pg_stat_get_slice_extension() row as v3's counters; a v2 row's renamed columns are read under their v2 names, columns v2 lacks are absent. */
export function countersOfRow(row: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of COUNTERS) {
    const v = row[k] ?? (V2_COLUMN_NAMES[k] !== undefined ? row[V2_COLUMN_NAMES[k]!] : undefined);
    if (v !== undefined && v !== null) out[k] = Number(v);
  }
  return out;
}

export interface LockOpsRun {
  seconds: number;
  pair: number;
  transactions: number;
  counters: Record<string, number>;
}

/** Per-transaction counts from (30 s − 10 s) pairs: mean and range over every pair. */
export function perTransaction(runs: readonly LockOpsRun[], short: number, long: number): { pairs: number; mean: Record<string, number>; min: Record<string, number>; max: Record<string, number> } {
  const s = runs.filter((r) => r.seconds === short);
  const l = runs.filter((r) => r.seconds === long);
  if (s.length === 0 || l.length === 0) throw new UserError(`lock-ops: need runs of ${short} s and ${long} s, found ${s.length} and ${l.length}`);
  const keys = [...COUNTERS, "hook_executions"];
  const per: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
  for (const a of l)
    for (const b of s) {
      const dt = a.transactions - b.transactions;
      if (dt <= 0) throw new UserError(`lock-ops: a ${long} s run made no more transactions (${a.transactions}) than a ${short} s run (${b.transactions})`);
      for (const k of COUNTERS) per[k]!.push(((a.counters[k] ?? 0) - (b.counters[k] ?? 0)) / dt);
      per.hook_executions!.push((hookExecutions(a.counters) - hookExecutions(b.counters)) / dt);
    }
  const pick = (f: (xs: number[]) => number) => Object.fromEntries(keys.map((k) => [k, f(per[k]!)]));
  return { pairs: s.length * l.length, mean: pick(mean), min: pick((xs) => Math.min(...xs)), max: pick((xs) => Math.max(...xs)) };
}

/** Hook executions: every covered acquire runs its acquire hook and its release hook. */
export function hookExecutions(c: Record<string, number>): number {
  return 2 * KINDS.reduce((n, k) => n + (c[`acquires_${k}`] ?? 0), 0);
}

async function counters(c: Cluster): Promise<Record<string, number>> {
  const row = JSON.parse(await c.query("SELECT row_to_json(s)::text FROM pg_stat_get_slice_extension() s")) as Record<string, unknown>;
  return countersOfRow(row);
}

function pgbench(c: Cluster, args: string[]): string {
  const r = spawnSync(join(c.binDir, "pgbench"), ["-h", c.socketDir, "-p", String(c.port), "-U", "slicelab", ...args, "postgres"], { encoding: "utf8", timeout: 600_000 });
  if (r.status !== 0) throw new UserError(`pgbench ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

export interface LockOpsRecord {
  kind: "slicelab-lock-ops-v2";
  version: string;
  binDir: string;
  patch: { hash: string };
  shim: boolean;
  status: string;
  workload: string;
  method: string;
  host: { kernel: string; cpus: number; load1Before: number; load1After: number };
  started: string;
  ended: string;
  runs: LockOpsRun[];
  perTransaction: ReturnType<typeof perTransaction>;
}

export async function countLockOps(src: PgSource, opts: { pairs: number; short?: number; long?: number; shim: boolean; binDir?: string; log?: (l: string) => void }): Promise<LockOpsRecord> {
  const say = opts.log ?? (() => {});
  const short = opts.short ?? 10;
  const long = opts.long ?? 30;
  const binDir = opts.binDir ?? (await buildPostgres(src, "patched", { log: say })).binDir;
  const dir = mkdtempSync(join(tmpdir(), "slicelab-lockops-"));
  chmodSync(dir, 0o755);
  const started = new Date().toISOString();
  const load1Before = loadavg()[0]!;
  try {
    const env: Record<string, string> = { GLIBC_TUNABLES: "glibc.pthread.rseq=0" };
    if (opts.shim) {
      const so = join(dir, "slice-ext-shim.so");
      await run("gcc", ["-shared", "-fPIC", "-O2", "-o", so, join(repoRoot(), "src", "postgres", "harness", "slice-ext-shim.c"), "-ldl"]);
      chmodSync(so, 0o755);
      env.LD_PRELOAD = so;
    }
    return await withCluster({ binDir, name: `lockops${src.major}`, settings: { slice_extension: "all" }, env }, async (c) => {
      const status = await c.query("SHOW slice_extension_status");
      if (!status.startsWith("enabled")) throw new UserError(`lock-ops: the patched server says "${status}"; on a kernel without the feature use --shim`);
      say("pgbench -i -s 10");
      pgbench(c, ["-i", "-s", "10", "-q"]);
      const runs: LockOpsRun[] = [];
      for (let p = 1; p <= opts.pairs; p++) {
        for (const d of [short, long]) {
          await c.query("SELECT pg_stat_reset_slice_extension()");
          const out = pgbench(c, ["-S", "-c", "2", "-j", "1", "-T", String(d)]);
          const m = /number of transactions actually processed: (\d+)/.exec(out);
          if (!m) throw new UserError(`lock-ops: pgbench printed no transaction count:\n${out}`);
          runs.push({ seconds: d, pair: p, transactions: Number(m[1]), counters: await counters(c) });
          say(`pair ${p}, ${d} s: ${m[1]} transactions`);
        }
      }
      return {
        kind: "slicelab-lock-ops-v2" as const,
        version: src.version,
        binDir,
        patch: { hash: patchHash(src.major) },
        shim: opts.shim,
        status,
        workload: "pgbench -S -c 2 -j 1, scale 10, slice_extension = all, GLIBC_TUNABLES=glibc.pthread.rseq=0",
        method: `counters reset before each run; per transaction = (counters of a ${long} s run − those of a ${short} s run) / (transactions difference), over all pairs; hook executions = 2 × covered acquires (acquire hook + release hook)${opts.shim ? "; LD_PRELOAD shim: probe forced to succeed on a kernel without the feature, which never clears, grants or denies (rearm and grant counts are 0 by construction)" : ""}`,
        host: { kernel: release(), cpus: cpus().length, load1Before, load1After: loadavg()[0]! },
        started,
        ended: new Date().toISOString(),
        runs,
        perTransaction: perTransaction(runs, short, long),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
