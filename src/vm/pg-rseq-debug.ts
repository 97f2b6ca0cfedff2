/**
 * The patched PostgreSQL under rseq debugging (issue 27, item 1's PostgreSQL half, and item 2's
 * cross-check on a v3 run): in the kit's VM, a cluster of one patch version (v3, or v2 as the
 * control that the check can fail) runs pgbench's TPC-B-like script (WAL writes and fsync under
 * WALWriteLock: system calls inside covered LWLock holds) with busy hogs beside it, after debugfs
 * rseq/debug was written; the boot itself has `rseq_debug=1` on the command line.
 *
 * The patch's counters (pg_stat_get_slice_extension()) and the kernel's rseq/stats are read in
 * ONE statement before and after pgbench (pg_read_file of debugfs rseq/stats, readable once the
 * script opens debugfs to the cluster user), so the two deltas cover the same window; the shell
 * also reads rseq/stats around it (the wider window, kept for comparison).
 *
 * What a run says is decided here by tested rules: `pgDebugOutcome` (a run: killed, survived,
 * not exercised, error) and `pgDebugVerdict` (the record). The cross-check of the counters is
 * src/postgres/stats-cross-check.ts `reconcile`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError, UserError } from "../util/errors.js";
import { shQuote } from "./guest-init.js";

/** One run of a boot: which server, and what debugfs rseq/debug is set to before it starts. */
export interface PgDebugArm {
  id: string;
  /** The patch version of the server (v2, v3). */
  patch: string;
  bin: string;
  debug: 0 | 1;
}

export interface PgDebugShape {
  clients: number;
  hogs: number;
  durationS: number;
  scale: number;
}

/** Lines of the server log that say a backend (or any child) was killed by a signal. */
export const KILLED_LINE = /terminated by signal (\d+)/;

/** The guest's script for one boot: per arm a fresh cluster, one pgbench run, the two snapshots. */
export function guestPgDebugScript(o: { user: string; arms: readonly PgDebugArm[]; shape: PgDebugShape }): string {
  const s = o.shape;
  if (o.arms.length === 0) throw new UserError("pg-rseq-debug: expected at least one arm, found none");
  for (const a of o.arms) if (!/^[a-z0-9-]+$/.test(a.id)) throw new UserError(`pg-rseq-debug: arm id ${JSON.stringify(a.id)}: expected lower-case letters, digits and '-'`);
  const snapSql = (withStats: boolean) =>
    `SELECT json_build_object('patch', row_to_json(s)${withStats ? ", 'rseqStats', pg_read_file('/sys/kernel/debug/rseq/stats')" : ""})::text FROM pg_stat_get_slice_extension() s`;
  const runs = o.arms.map((a) => `run ${a.id} ${a.debug} ${shQuote(a.bin)}`).join("\n");
  return `set -u
O="$SLICELAB_VM_OUT"; D=/sys/kernel/debug; U=${shQuote(o.user)}; P=/run/slicelab-pgdbg
note() { echo "slicelab-pg-rseq-debug: $*"; echo "$*" >> "$O/notes.txt"; }
as() { runuser -u "$U" -- env GLIBC_TUNABLES=glibc.pthread.rseq=0 LC_ALL=C "$@"; }
uname -r > "$O/uname-r"
cat /proc/cmdline > "$O/cmdline"
cat $D/sched/preempt > "$O/preempt" 2>/dev/null
cat $D/rseq/debug > "$O/rseq-debug-at-boot" 2>&1
[ -r /proc/config.gz ] && zcat /proc/config.gz | sha256sum | cut -d' ' -f1 > "$O/config-sha256"
[ -w $D/rseq/debug ] || { note "no writable debugfs rseq/debug"; exit 3; }
# the cluster user reads rseq/stats through pg_read_file (debugfs is root-only by default)
mount -o remount,mode=0755 $D 2>/dev/null || chmod 0755 $D 2>/dev/null
chmod 0755 $D/rseq 2>/dev/null
mkdir -p "$O/runs"
snap() {
  as $1/psql -h $P -p 54398 -U postgres -XAtc ${shQuote(snapSql(true))} postgres > "$R/snap-$2.json" 2> "$R/snap-$2.err" ||
    as $1/psql -h $P -p 54398 -U postgres -XAtc ${shQuote(snapSql(false))} postgres > "$R/snap-$2.json" 2>> "$R/snap-$2.err"
}
run() {
  id=$1; dbg=$2; B=$3
  R="$O/runs/$id"; mkdir -p "$R"
  cat $D/rseq/stats > "$R/rseq-stats-whole-before.txt" 2>/dev/null
  rm -rf $P; mkdir -p $P && chown "$U" $P || { note "run $id: cannot create $P"; echo error > "$R/status"; return; }
  as $B/initdb -D $P/data -U postgres -A trust --no-sync > "$R/initdb.log" 2>&1 || { note "run $id: initdb failed"; echo error > "$R/status"; return; }
  printf "unix_socket_directories = '%s'\\nlisten_addresses = ''\\nport = 54398\\nmax_connections = 30\\nslice_extension = all\\n" $P >> $P/data/postgresql.conf
  echo $dbg > $D/rseq/debug || { note "run $id: rseq/debug $dbg refused"; echo error > "$R/status"; return; }
  cat $D/rseq/debug > "$R/rseq-debug"
  if ! as $B/pg_ctl -D $P/data -l $P/server.log -w -t 600 start > "$R/pg_ctl-start.txt" 2>&1; then
    cp $P/server.log "$R/server.log" 2>/dev/null; echo start-failed > "$R/status"; return
  fi
  as $B/psql -h $P -p 54398 -U postgres -XAtc "SHOW slice_extension_status" postgres > "$R/slice_extension_status" 2>&1
  as $B/pgbench -h $P -p 54398 -U postgres -i -s ${s.scale} -q postgres > "$R/pgbench-init.log" 2>&1
  hp=""; i=0
  while [ $i -lt ${s.hogs} ]; do sh -c 'while :; do :; done' & hp="$hp $!"; i=$((i + 1)); done
  cat $D/rseq/stats > "$R/rseq-stats-before.txt" 2>/dev/null
  snap $B before
  as $B/pgbench -h $P -p 54398 -U postgres -n -c ${s.clients} -j 1 -T ${s.durationS} postgres > "$R/pgbench.txt" 2>&1
  echo $? > "$R/pgbench-status"
  snap $B after
  cat $D/rseq/stats > "$R/rseq-stats-after.txt" 2>/dev/null
  [ -n "$hp" ] && kill $hp 2>/dev/null; wait 2>/dev/null
  as $B/pg_ctl -D $P/data -w -t 600 -m fast stop > "$R/pg_ctl-stop.txt" 2>&1
  cat $D/rseq/stats > "$R/rseq-stats-whole-after.txt" 2>/dev/null
  cp $P/server.log "$R/server.log"
  echo done > "$R/status"
  echo "slicelab-pg-rseq-debug: run $id done"
}
${runs}
exit 0
`;
}

/** One snapshot: the patch's counters and, when the server could read it, rseq/stats in the same statement. */
export interface PgDebugSnap {
  patch: Record<string, number>;
  rseqStats: Record<string, number> | null;
}

/** Parses debugfs rseq/stats text ("sgrant:   12" lines). */
export function parseStatsText(text: string, file: string): Record<string, number> {
  const out: Record<string, number> = {};
  text.split("\n").forEach((raw, i) => {
    const l = raw.trim();
    if (l === "") return;
    const m = /^([A-Za-z_]+):\s*(\d+)$/.exec(l);
    if (!m) throw new ParseError(file, i + 1, '"name: count"', JSON.stringify(l.slice(0, 60)));
    out[m[1]!] = Number(m[2]);
  });
  if (Object.keys(out).length === 0) throw new ParseError(file, 1, "rseq/stats lines", "none");
  return out;
}

/** Parses one snap-*.json (a JSON line {patch: {...}, rseqStats?: "text"}). */
export function parseSnap(text: string, file: string): PgDebugSnap {
  const line = text.split("\n").find((l) => l.trim() !== "");
  if (line === undefined) throw new ParseError(file, 1, "one JSON line from pg_stat_get_slice_extension()", "nothing");
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch (e) {
    throw new ParseError(file, 1, "one JSON object", `invalid JSON (${(e as Error).message})`);
  }
  const p = o.patch as Record<string, unknown> | undefined;
  if (!p || typeof p !== "object") throw new ParseError(file, 1, 'a "patch" object', JSON.stringify(o.patch ?? null));
  const patch: Record<string, number> = {};
  for (const [k, v] of Object.entries(p)) if (typeof v === "number") patch[k] = v;
  if (Object.keys(patch).length === 0) throw new ParseError(file, 1, "numeric counters in patch", JSON.stringify(p).slice(0, 80));
  return { patch, rseqStats: typeof o.rseqStats === "string" ? parseStatsText(o.rseqStats, `${file} (rseqStats)`) : null };
}

const delta = (a: Record<string, number>, b: Record<string, number>): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const k of Object.keys(b)) if (a[k] !== undefined) out[k] = b[k]! - a[k]!;
  return out;
};

export type PgDebugOutcome = "killed" | "survived" | "not exercised" | "error";

export interface PgDebugRow {
  id: string;
  patch: string;
  /** rseq/debug as read back before the server started (null: unreadable). */
  rseqDebug: number | null;
  status: string;
  sliceExtensionStatus: string | null;
  pgbenchStatus: number | null;
  transactions: number | null;
  /** Server-log lines that say a process was terminated by a signal. */
  killedLines: string[];
  /** pg_stat_get_slice_extension() after − before (same statement as rseqStats). */
  patchDelta: Record<string, number> | null;
  /** rseq/stats after − before, read by the server in the same statement as the counters. */
  kernelDelta: Record<string, number> | null;
  /** rseq/stats after − before, read by the shell around the snapshots (a slightly wider window). */
  kernelDeltaShell: Record<string, number> | null;
  /** rseq/stats over the whole run: before initdb to after the server stopped (the window v2's traced run used). */
  kernelDeltaWhole: Record<string, number> | null;
  outcome: PgDebugOutcome;
  reason: string;
}

/** A run's outcome, from what it left. */
export function pgDebugOutcome(r: Omit<PgDebugRow, "outcome" | "reason">): { outcome: PgDebugOutcome; reason: string } {
  if (r.status !== "done") return { outcome: "error", reason: `the run's status is ${JSON.stringify(r.status)}` };
  if (r.killedLines.length > 0) return { outcome: "killed", reason: `${r.killedLines.length} process(es) terminated by a signal: ${r.killedLines[0]}` };
  const k = r.kernelDelta ?? r.kernelDeltaShell;
  if (!r.patchDelta || !k) return { outcome: "error", reason: "no counters or no rseq/stats from the run" };
  if (!/^enabled\b/.test(r.sliceExtensionStatus ?? "")) return { outcome: "not exercised", reason: `slice_extension_status: ${r.sliceExtensionStatus ?? "unread"}` };
  const revoked = k.srevok ?? 0;
  if ((k.sgrant ?? 0) === 0 || revoked === 0) return { outcome: "not exercised", reason: `the kernel made ${k.sgrant ?? 0} grants and revoked ${revoked} at a return to user space: no stale work bit was left` };
  if (r.pgbenchStatus !== 0) return { outcome: "error", reason: `pgbench exited ${r.pgbenchStatus} with no process killed` };
  return { outcome: "survived", reason: `no process terminated by a signal; ${k.sgrant} grants, ${revoked} revoked at a return to user space (each leaves the work bit set), ${r.transactions ?? "?"} transactions` };
}

const readIf = (f: string): string | null => (existsSync(f) ? readFileSync(f, "utf8") : null);

/** The rows of one boot's runs/ directory, in the arms' order. */
export function readPgDebugBoot(dir: string, arms: readonly PgDebugArm[]): PgDebugRow[] {
  return arms.map((a) => {
    const R = join(dir, "runs", a.id);
    const status = (readIf(join(R, "status")) ?? "not reached").trim();
    const sl = (readIf(join(R, "server.log")) ?? "").split("\n").filter((l) => KILLED_LINE.test(l));
    const snap = (w: string): PgDebugSnap | null => {
      const t = readIf(join(R, `snap-${w}.json`));
      return t === null || t.trim() === "" ? null : parseSnap(t, join(R, `snap-${w}.json`));
    };
    const b = status === "done" ? snap("before") : null;
    const e = status === "done" ? snap("after") : null;
    const stats = (a: string, b: string) => {
      const x = readIf(join(R, a));
      const y = readIf(join(R, b));
      return x && y && x.trim() && y.trim() ? delta(parseStatsText(x, join(R, a)), parseStatsText(y, join(R, b))) : null;
    };
    const pgb = readIf(join(R, "pgbench.txt")) ?? "";
    const tx = /number of transactions actually processed:\s*(\d+)/.exec(pgb);
    const ps = readIf(join(R, "pgbench-status"));
    const dbg = readIf(join(R, "rseq-debug"));
    const row: Omit<PgDebugRow, "outcome" | "reason"> = {
      id: a.id,
      patch: a.patch,
      rseqDebug: dbg === null || dbg.trim() === "" ? null : Number(dbg.trim()),
      status,
      sliceExtensionStatus: readIf(join(R, "slice_extension_status"))?.trim() ?? null,
      pgbenchStatus: ps === null ? null : Number(ps.trim()),
      transactions: tx ? Number(tx[1]) : null,
      killedLines: sl.map((l) => l.trim()),
      patchDelta: b && e ? delta(b.patch, e.patch) : null,
      kernelDelta: b?.rseqStats && e?.rseqStats ? delta(b.rseqStats, e.rseqStats) : null,
      kernelDeltaShell: stats("rseq-stats-before.txt", "rseq-stats-after.txt"),
      kernelDeltaWhole: stats("rseq-stats-whole-before.txt", "rseq-stats-whole-after.txt"),
    };
    return { ...row, ...pgDebugOutcome(row) };
  });
}

export interface PgDebugVerdict {
  verdict: "v3 safe under rseq debugging" | "v3 KILLED under rseq debugging" | "not shown";
  reason: string;
}

/**
 * The record: v3 is safe when every v3 run with rseq/debug = 1 that exercised the stale bit
 * (grants revoked at a return to user space) survived, and at least one did; any killed v3 run
 * is the finding. v2 runs with debugging on are the control (they may be killed on the unfixed kernel).
 */
export function pgDebugVerdict(rows: readonly (PgDebugRow & { kernel: string })[]): PgDebugVerdict {
  const v3 = rows.filter((r) => r.patch === "v3" && r.rseqDebug === 1);
  const killed = v3.filter((r) => r.outcome === "killed");
  const line = (r: PgDebugRow & { kernel: string }) => `${r.kernel}/${r.id}: ${r.outcome} (${r.reason})`;
  if (killed.length > 0) return { verdict: "v3 KILLED under rseq debugging", reason: killed.map(line).join("; ") };
  const ok = v3.filter((r) => r.outcome === "survived");
  if (ok.length === 0) return { verdict: "not shown", reason: v3.length === 0 ? "no v3 run with rseq/debug = 1" : v3.map(line).join("; ") };
  const controls = rows.filter((r) => r.patch !== "v3" && r.rseqDebug === 1).map(line);
  return {
    verdict: "v3 safe under rseq debugging",
    reason: `${ok.length} of ${v3.length} v3 runs with rseq/debug = 1 exercised the stale work bit and survived: ${ok.map(line).join("; ")}${controls.length ? `; controls: ${controls.join("; ")}` : ""}`,
  };
}

/** The arms of an existing out/raw/<boot>/runs directory (for re-reading a record). */
export function runIds(dir: string): string[] {
  const r = join(dir, "runs");
  return existsSync(r) ? readdirSync(r).sort() : [];
}
