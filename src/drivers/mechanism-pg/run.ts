/**
 * The mechanism factorial on PostgreSQL (issue 14, item 4), in one boot of the
 * 7.2 kernel: preemption mode (full/lazy, debugfs sched/preempt) × huge pages
 * (huge_pages off/on, huge pages reserved in the guest) × extension
 * (slice_extension off/all), randomised blocks, ≥ 1 run per cell and block.
 *
 * The server is the diagnostic build (`slicelab postgres build --variant
 * diag`: our v2 patch plus kernel-patches/postgresql/18/diag/, compiled with
 * -DSLICELAB_DIAG): every outermost hold of a spin-style lock
 * (buffer_strategy_lock and the other SpinLockAcquire locks, buffer headers,
 * LWLock wait lists) is bracketed by getrusage(), so each process counts its
 * holds, the minor faults inside them and the holds with an involuntary
 * switch, and logs those holds' CLOCK_MONOTONIC bounds in the holder-trace
 * hold-log format. tracefs records sched_switch with a kernel stack on every
 * switch away from a `postgres` process, so the holder-trace classifier
 * (src/parse/holder-trace.ts) says where each preempted holder was: inside
 * the kernel (in the fault) or at the return to user space.
 *
 * Every run starts the server afresh (an empty pool: buffers come from the
 * freelist under buffer_strategy_lock), with huge_pages and slice_extension
 * set on the command line, and runs two pgbench clients at once: persistent
 * select-only sessions (the load) and sessions that connect for every
 * transaction (-C: new backends, forked with no page tables for shared
 * memory, so their first touches fault under load). After start the guest's
 * /proc/meminfo and `SHOW huge_pages_status` record whether huge_pages=on
 * really got huge pages.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseHolderTrace, summariseHolderTrace, HOLD_LOG_HEADER, TRACE_SEPARATOR } from "../../parse/holder-trace.js";
import { parsePgbench } from "../../parse/pgbench.js";
import { diffRseqStats, parseRseqStats } from "../../parse/rseq-stats.js";
import { ParseError, UserError } from "../../util/errors.js";
import { workDir } from "../../util/paths.js";
import { splitLines } from "../../parse/text.js";
import { blockedPlan, factorial, type PlanSlot } from "../../vm/blocked-plan.js";
import { buildPostgres, type BuildRecord } from "../../postgres/build.js";
import { resolveSource } from "../../postgres/source.js";
import { ensurePgUser } from "../../postgres/user.js";
import { shQuote } from "../../vm/guest-init.js";
import { activePreemptMode, firstDeschedClasses, sliceCounters, type ExtLevel, type PreemptMode } from "../mechanism/index.js";
import { type Accel, type VmResult } from "../../vm/qemu.js";
import { bootPerBlock } from "../../vm/block-boots.js";
import { utcStamp } from "../../util/stamp.js";
import type { HugeLevel, PgMechanismRow } from "./row.js";
export * from "./row.js";
import { armedWaitTotals, matchStallsToTrace, parseArmedWaits, parseWakeupStalls, summariseStallMatches, wakeupStallTotals, type StallMatch, type StallTraceSummary } from "../../postgres/armed-waits.js";
import { copyFileSync } from "node:fs";
import { writeFileAtomic } from "../../util/fs.js";


/** What slice_extension is in the runs of extension "on" (default all; spinlock for the LWLockWakeup stall, issue 27 item 6). */
export const ON_SETTINGS = ["all", "spinlock", "lwlock"] as const;
export type OnSetting = (typeof ON_SETTINGS)[number];

export interface PgCell {
  mode: PreemptMode;
  hugePages: HugeLevel;
  extension: ExtLevel;
}

export interface PgPlannedRun extends PgCell, PlanSlot {}

/** Every cell once per block, shuffled per block with a seeded RNG; a seed per run. */
export function planPgRuns(o: { blocks: number; modes: readonly PreemptMode[]; hugePages: readonly HugeLevel[]; extensions: readonly ExtLevel[]; seed: number }): PgPlannedRun[] {
  if (!Number.isInteger(o.blocks) || o.blocks < 1) throw new UserError(`--blocks expects an integer ≥ 1, found ${o.blocks}`);
  const cells = factorial(o.modes, o.hugePages, o.extensions, (mode, hugePages, extension): PgCell => ({ mode, hugePages, extension }), "--modes, --huge-pages or --extensions");
  return blockedPlan(cells, o.blocks, o.seed);
}

export interface PgShape {
  /** shared_buffers, e.g. "1GB": large against the VM's memory. */
  sharedBuffers: string;
  scale: number;
  /** Persistent select-only sessions (the load). */
  clients: number;
  /** Sessions that connect for every transaction (pgbench -C). */
  connectClients: number;
  durationS: number;
}

export function defaultPgShape(o: Partial<PgShape> = {}): PgShape {
  return {
    sharedBuffers: o.sharedBuffers ?? "1GB",
    scale: o.scale ?? 2,
    clients: o.clients ?? 3,
    connectClients: o.connectClients ?? 2,
    durationS: o.durationS ?? 2,
  };
}

/** The server settings of every run (besides huge_pages, slice_extension and the socket directory). */
export function pgConf(s: PgShape): string[] {
  return ["listen_addresses = ''", `shared_buffers = ${s.sharedBuffers}`, `max_connections = ${s.clients + s.connectClients + 10}`, "fsync = off", "synchronous_commit = off", "autovacuum = off"];
}

/**
 * The cluster every run starts from, made on this machine (natively, not in
 * the emulated guest): initdb and pgbench -i as the cluster user, with a
 * private socket directory and no TCP. The guest copies it into its tmpfs.
 */
export function prepareSeedCluster(o: { bin: string; user: string; dir: string; shape: PgShape }): { seconds: number; log: string } {
  const t0 = Date.now();
  const data = join(o.dir, "data");
  const sock = join(o.dir, "sock");
  mkdirSync(sock, { recursive: true });
  const env = { ...process.env, GLIBC_TUNABLES: "glibc.pthread.rseq=0", LC_ALL: "C" };
  let log = "";
  const as = (args: string[]) => {
    const r = spawnSync("runuser", ["-u", o.user, "--", ...args], { env, encoding: "utf8", timeout: 1_800_000 });
    log += `$ ${args.join(" ")}\n${r.stdout ?? ""}${r.stderr ?? ""}`;
    if (r.status !== 0) throw new UserError(`seed cluster: ${args[0]} failed (exit ${r.status}): ${(r.stderr ?? "").trim().slice(-400)}`);
  };
  spawnSync("chown", ["-R", o.user, o.dir]);
  as([join(o.bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "--no-sync"]);
  appendFileSync(join(data, "postgresql.conf"), `${pgConf(o.shape).join("\n")}\n`);
  as([join(o.bin, "pg_ctl"), "-D", data, "-l", join(o.dir, "setup-server.log"), "-w", "-t", "600", "-o", `-c huge_pages=off -c unix_socket_directories=${sock} -c port=54399`, "start"]);
  try {
    as([join(o.bin, "pgbench"), "-h", sock, "-p", "54399", "-U", "postgres", "-i", "-s", String(o.shape.scale), "-q", "postgres"]);
  } finally {
    as([join(o.bin, "pg_ctl"), "-D", data, "-w", "-t", "600", "-m", "fast", "stop"]);
  }
  return { seconds: Math.round((Date.now() - t0) / 1000), log };
}

/**
 * The guest script: a cluster in the guest's tmpfs (as user slicelab), pgbench
 * -i once, huge pages reserved for the server's shared memory
 * (shared_memory_size_in_huge_pages), tracefs set up, then every planned run.
 */
export function guestPgScript(o: { bin: string; user: string; runs: PgPlannedRun[]; shape: PgShape; bufferKb: number; seed?: string; onSetting?: OnSetting }): string {
  const s = o.shape;
  const runs = o.runs.map((r) => `run ${r.id} ${r.mode} ${r.hugePages} ${r.extension === "on" ? (o.onSetting ?? "all") : "off"} ${r.seed}`).join("\n");
  return `set -u
O="$SLICELAB_VM_OUT"; T=/sys/kernel/tracing; D=/sys/kernel/debug; B=${shQuote(o.bin)}; U=${shQuote(o.user)}
P=/run/slicelab-pg; PGDATA=$P/data
note() { echo "slicelab-mechanism-pg: $*"; echo "$*" >> "$O/notes.txt"; }
as() { runuser -u "$U" -- env GLIBC_TUNABLES=glibc.pthread.rseq=0 "$@"; }
uname -r > "$O/uname-r"
[ -w $D/sched/preempt ] || { note "no writable debugfs sched/preempt (needs PREEMPT_DYNAMIC)"; exit 3; }
cat $D/sched/preempt > "$O/preempt-at-boot"
[ -r /proc/config.gz ] && zcat /proc/config.gz | sha256sum | cut -d' ' -f1 > "$O/config-sha256"
mkdir -p $P && chown "$U" $P || { note "cannot create $P"; exit 3; }
${o.seed ? `cp -a ${shQuote(o.seed)} $PGDATA || { note "cannot copy the seed cluster"; exit 3; }
echo "unix_socket_directories = '$P'" >> $PGDATA/postgresql.conf` : `as $B/initdb -D $PGDATA -U postgres -A trust --no-sync > "$O/initdb.log" 2>&1 || { note "initdb failed"; exit 3; }
cat >> $PGDATA/postgresql.conf <<EOF
${pgConf(s).join("\n")}
unix_socket_directories = '$P'
EOF
as $B/pg_ctl -D $PGDATA -l $P/setup-server.log -w -t 600 -o "-c huge_pages=off" start > /dev/null || { note "setup start failed"; exit 3; }
as $B/pgbench -h $P -U postgres -i -s ${s.scale} -q postgres > "$O/pgbench-init.log" 2>&1 || { note "pgbench -i failed"; exit 3; }
as $B/pg_ctl -D $PGDATA -w -t 600 -m fast stop > /dev/null`}
need=$(as $B/postgres -D $PGDATA -C shared_memory_size_in_huge_pages 2>/dev/null)
echo "$need" > "$O/shared_memory_size_in_huge_pages"
echo $((need + 8)) > /proc/sys/vm/nr_hugepages || note "nr_hugepages refused"
cat /proc/sys/vm/nr_hugepages > "$O/nr_hugepages"
grep -i huge /proc/meminfo > "$O/meminfo-boot.txt"
echo 0 > $T/tracing_on
echo mono > $T/trace_clock || { note "trace_clock mono refused"; exit 3; }
echo ${o.bufferKb} > $T/buffer_size_kb || note "buffer_size_kb ${o.bufferKb} refused"
echo 'prev_comm == "postgres" || next_comm == "postgres"' > $T/events/sched/sched_switch/filter || note "sched_switch filter refused"
echo 1 > $T/events/sched/sched_switch/enable || { note "sched_switch refused"; exit 3; }
echo 'stacktrace if prev_comm == "postgres"' > $T/events/sched/sched_switch/trigger || { note "stacktrace trigger refused"; exit 3; }
for e in rseq_slice_grant rseq_slice_expire; do [ -e $T/events/rseq/$e/enable ] && echo 1 > $T/events/rseq/$e/enable; done
cat $T/trace_clock > "$O/trace_clock"
mkdir -p "$O/runs"
run() {
  id=$1; mode=$2; hp=$3; ext=$4; seed=$5
  R="$O/runs/$id"; mkdir -p "$R"; rm -f $P/server.log
  echo $mode > $D/sched/preempt || { note "run $id: sched/preempt $mode refused"; echo refused > "$R/status"; return; }
  cat $D/sched/preempt > "$R/preempt"
  rm -f $PGDATA/slicelab-diag.txt $PGDATA/slicelab-holds.txt $PGDATA/slicelab-armed-waits.txt $PGDATA/slicelab-wakeup-stalls.txt
  echo $ext > "$R/slice_extension"
  # the server log goes to the guest's tmpfs (the shared directory is not writable by the cluster user)
  if ! as $B/pg_ctl -D $PGDATA -l $P/server.log -w -t 600 -o "-c huge_pages=$hp -c slice_extension=$ext" start > "$R/pg_ctl-start.txt" 2>&1; then
    grep -i huge /proc/meminfo > "$R/meminfo-start.txt"; cp $P/server.log "$R/server.log" 2>/dev/null; echo start-failed > "$R/status"; return
  fi
  grep -i huge /proc/meminfo > "$R/meminfo-start.txt"
  as $B/psql -h $P -U postgres -Atc "SHOW huge_pages_status" postgres > "$R/huge_pages_status" 2>&1
  as $B/psql -h $P -U postgres -Atc "SHOW slice_extension_status" postgres > "$R/slice_extension_status" 2>&1
  echo > $T/trace
  cat $D/rseq/stats > "$R/rseq-stats-before.txt" 2>/dev/null
  echo 1 > $T/tracing_on
  as $B/pgbench -h $P -U postgres -n -S -c ${s.clients} -j 1 -T ${s.durationS} --random-seed=$seed postgres > "$R/pgbench-load.txt" 2>&1 &
  l=$!
  as $B/pgbench -h $P -U postgres -n -S -C -c ${s.connectClients} -j 1 -T ${s.durationS} --random-seed=$((seed + 1)) postgres > "$R/pgbench-connect.txt" 2>&1
  c=$?; wait $l; lr=$?
  echo 0 > $T/tracing_on
  cat $D/rseq/stats > "$R/rseq-stats-after.txt" 2>/dev/null
  grep -i huge /proc/meminfo > "$R/meminfo-end.txt"
  for c2 in $T/per_cpu/cpu*; do echo "== $(basename $c2)"; cat $c2/stats; done > "$R/buffer-stats.txt"
  as $B/pg_ctl -D $PGDATA -w -t 600 -m fast stop > /dev/null
  cp $P/server.log "$R/server.log"
  cp $PGDATA/slicelab-diag.txt "$R/diag.txt" 2>/dev/null
  cp $PGDATA/slicelab-armed-waits.txt "$R/armed-waits.txt" 2>/dev/null
  cp $PGDATA/slicelab-wakeup-stalls.txt "$R/wakeup-stalls.txt" 2>/dev/null
  { echo "${HOLD_LOG_HEADER} postgres diag build, holds >= 0 ns with an involuntary switch"; cat $PGDATA/slicelab-holds.txt 2>/dev/null; echo "${TRACE_SEPARATOR}"; cat $T/trace; } | gzip -1 > "$R/holder-trace.txt.gz"
  echo "$lr $c" > "$R/pgbench-status"
  [ "$lr" = 0 ] && [ "$c" = 0 ] && echo 0 > "$R/status" || echo pgbench-failed > "$R/status"
  echo "slicelab-mechanism-pg: run $id done"
}
${runs}
exit 0
`;
}

/** The diag build's counters, summed over the processes of one run. */
export interface DiagTotals {
  processes: number;
  holds: number;
  faulted: number;
  faults: number;
  preempted: number;
  faultedPreempted: number;
  granted: number;
  faultedGranted: number;
  /** The same sums for client backends only. */
  backends: { processes: number; holds: number; faulted: number; faults: number; preempted: number; faultedPreempted: number; granted: number; faultedGranted: number };
}

const DIAG_RE = /^slicelab-diag pid=(\d+) type=(.+?) holds=(\d+) faulted=(\d+) faults=(\d+) preempted=(\d+) faulted_preempted=(\d+) granted=(\d+) faulted_granted=(\d+)$/;

/** Parses slicelab-diag.txt (one line per process, written at its exit); ParseError names the line. */
export function parseDiagCounters(text: string, file: string): DiagTotals {
  const zero = () => ({ processes: 0, holds: 0, faulted: 0, faults: 0, preempted: 0, faultedPreempted: 0, granted: 0, faultedGranted: 0 });
  const all = zero();
  const be = zero();
  splitLines(text).forEach((l, i) => {
    if (l.trim() === "") return;
    const m = DIAG_RE.exec(l);
    if (!m) throw new ParseError(file, i + 1, "slicelab-diag pid=N type=T holds=N faulted=N faults=N preempted=N faulted_preempted=N granted=N faulted_granted=N", JSON.stringify(l.slice(0, 100)));
    const v = m.slice(3).map(Number);
    if (v[1]! > v[0]! || v[3]! > v[0]! || v[5]! > v[0]! || v[4]! > v[3]! || v[4]! > v[1]! || v[6]! > v[5]!) {
      throw new ParseError(file, i + 1, "sub-counts no larger than their totals (faulted, preempted, granted ≤ holds; faulted_preempted ≤ faulted, preempted)", l.slice(0, 120));
    }
    for (const t of m[2] === "client backend" ? [all, be] : [all]) {
      t.processes++;
      t.holds += v[0]!;
      t.faulted += v[1]!;
      t.faults += v[2]!;
      t.preempted += v[3]!;
      t.faultedPreempted += v[4]!;
      t.granted += v[5]!;
      t.faultedGranted += v[6]!;
    }
  });
  return { ...all, backends: be };
}

export interface HugeMeminfo {
  total: number;
  free: number;
  rsvd: number;
  surp: number;
  pageKiB: number;
}

/** HugePages_* lines of /proc/meminfo (as `grep -i huge` prints them). */
export function parseHugeMeminfo(text: string, file: string): HugeMeminfo {
  const get = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text);
    if (!m) throw new ParseError(file, 1, `a line "${key}: N"`, "none");
    return Number(m[1]);
  };
  return { total: get("HugePages_Total"), free: get("HugePages_Free"), rsvd: get("HugePages_Rsvd"), surp: get("HugePages_Surp"), pageKiB: get("Hugepagesize") };
}

/** The armed-wait and wakeup fields of a row from a run directory's armed-waits.txt and wakeup-stalls.txt (nulls where a file is missing). */
export function pgWaitFields(dir: string): Required<Pick<PgMechanismRow, "sliceSetting" | "endedHolds" | "armedWaitHolds" | "spinWaits" | "armedSpinWaits" | "lwlockSleeps" | "armedLwlockSleeps" | "spinWaitGrants" | "lwlockWaitGrants" | "wakeups" | "wakeupYields" | "wakeupYieldWaiters" | "wakeupStallNs" | "wakeupStallMaxNs" | "wakeupReleaseNs">> {
  const aw = readIf(join(dir, "armed-waits.txt"));
  const a = aw === null ? null : armedWaitTotals(parseArmedWaits(aw, join(dir, "armed-waits.txt"))).totals;
  const ws = readIf(join(dir, "wakeup-stalls.txt"));
  // a run whose processes woke no waiter writes no file: zero wakeups, when the armed-waits file says the build has the counters
  const w = ws !== null ? wakeupStallTotals(parseWakeupStalls(ws, join(dir, "wakeup-stalls.txt"))) : a !== null && a.ended_holds !== null ? wakeupStallTotals({ processes: [], stalls: [] }) : null;
  return {
    sliceSetting: (readIf(join(dir, "slice_extension")) ?? "").trim() || null,
    endedHolds: a?.ended_holds ?? null,
    armedWaitHolds: a?.armed_wait_holds ?? null,
    spinWaits: a?.spin_waits ?? null,
    armedSpinWaits: a?.armed_spin_waits ?? null,
    lwlockSleeps: a?.lwlock_sleeps ?? null,
    armedLwlockSleeps: a?.armed_lwlock_sleeps ?? null,
    spinWaitGrants: a?.spin_wait_grants ?? null,
    lwlockWaitGrants: a?.lwlock_wait_grants ?? null,
    wakeups: w?.wakeups ?? null,
    wakeupYields: w?.yields ?? null,
    wakeupYieldWaiters: w?.yield_waiters ?? null,
    wakeupStallNs: w?.stall_ns ?? null,
    wakeupStallMaxNs: w?.stall_max_ns ?? null,
    wakeupReleaseNs: w?.release_ns ?? null,
  };
}

function readIf(p: string): string | null {
  return existsSync(p) ? readFileSync(p, "utf8") : null;
}

/** Reduces one run directory (written by the guest script) to its row. */
export function rowFromPgRunDir(dir: string, r: PgPlannedRun, ctx: { kernelRelease: string; accel: Accel; durationS: number }): PgMechanismRow {
  const status = (readIf(join(dir, "status")) ?? "").trim();
  if (status !== "0") {
    const log = (readIf(join(dir, "server.log")) ?? "").trim().split("\n").slice(-3).join(" | ");
    throw new UserError(`${dir}: run ${r.id} ended with status ${status || "none"}${log ? `: ${log.slice(0, 300)}` : ""}`);
  }
  const diagPath = join(dir, "diag.txt");
  if (!existsSync(diagPath)) throw new UserError(`${diagPath}: missing (is the server the diag build? slicelab postgres build --variant diag)`);
  const d = parseDiagCounters(readFileSync(diagPath, "utf8"), diagPath);
  const tracePath = join(dir, "holder-trace.txt.gz");
  const s = summariseHolderTrace(parseHolderTrace(gunzipSync(readFileSync(tracePath)).toString("utf8"), tracePath));
  const mem = parseHugeMeminfo(readFileSync(join(dir, "meminfo-start.txt"), "utf8"), join(dir, "meminfo-start.txt"));
  const before = readIf(join(dir, "rseq-stats-before.txt"));
  const after = readIf(join(dir, "rseq-stats-after.txt"));
  const stats = before && after ? diffRseqStats(parseRseqStats(before, join(dir, "rseq-stats-before.txt")), parseRseqStats(after, join(dir, "rseq-stats-after.txt"))) : null;
  const c = stats?.sliceExtension ? stats.counters : null;
  const pgb = (f: string) => {
    const runs = parsePgbench(readFileSync(join(dir, f), "utf8"), join(dir, f));
    if (runs.length !== 1) throw new UserError(`${join(dir, f)}: expected one pgbench run, found ${runs.length}`);
    return runs[0]!;
  };
  const load = pgb("pgbench-load.txt");
  const conn = pgb("pgbench-connect.txt");
  const preempt = readFileSync(join(dir, "preempt"), "utf8");
  return {
    run: r.id,
    block: r.block,
    order: r.order,
    seed: r.seed,
    mode: r.mode,
    modeActive: activePreemptMode(preempt, join(dir, "preempt")),
    kernelRelease: ctx.kernelRelease,
    accel: ctx.accel,
    hugePages: r.hugePages,
    hugePagesStatus: (readIf(join(dir, "huge_pages_status")) ?? "").trim(),
    hugePagesTaken: mem.total - mem.free + mem.rsvd,
    hugePagesTotal: mem.total,
    extension: r.extension,
    sliceExtensionStatus: (readIf(join(dir, "slice_extension_status")) ?? "").trim().slice(0, 200),
    durationS: ctx.durationS,
    holds: d.holds,
    faultedHolds: d.faulted,
    faultsUnderLock: d.faults,
    preemptedHolds: d.preempted,
    faultedPreemptedHolds: d.faultedPreempted,
    grantedHolds: d.granted,
    faultedGrantedHolds: d.faultedGranted,
    backendProcesses: d.backends.processes,
    deschedHolds: s.deschedHolds,
    ...firstDeschedClasses(s),
    logLost: s.logLost,
    lostEvents: s.lostEvents,
    ...sliceCounters(c),
    tpsLoad: load.tps,
    tpsConnect: conn.tps,
    transactionsLoad: load.transactionsProcessed,
    transactionsConnect: conn.transactionsProcessed,
    ...pgWaitFields(dir),
  };
}

export interface PgMechanismOptions {
  kernel: string;
  kernelRelease?: string;
  bin: string;
  user: string;
  accel?: Accel;
  memMiB?: number;
  blocks: number;
  modes?: PreemptMode[];
  hugePages?: HugeLevel[];
  extensions?: ExtLevel[];
  seed?: number;
  shape?: Partial<PgShape>;
  timeoutS?: number;
  rawDir?: string;
  onConsole?: (s: string) => void;
  /** slice_extension in the "on" runs (default all). */
  onSetting?: OnSetting;
}

export interface PgMechanismRun {
  rawDir: string;
  vm: Pick<VmResult, "accel" | "accelReason" | "cpus" | "memMiB" | "append" | "exitStatus" | "timedOut" | "bootToCommandS" | "totalS">;
  kernelRelease: string;
  /** The planner's levels, in the order it was given them: with blocks and seed they give the plan again. */
  levels: { modes: PreemptMode[]; hugePages: HugeLevel[]; extensions: ExtLevel[] };
  /** slice_extension in the "on" runs. */
  onSetting: OnSetting;
  plan: PgPlannedRun[];
  shape: PgShape;
  rows: PgMechanismRow[];
  failed: { run: string; reason: string }[];
  seedSeconds: number;
  guest: { nrHugepages: string | null; sharedMemoryHugePages: string | null; meminfoBoot: string | null; configSha256: string | null; traceClock: string | null; preemptAtBoot: string | null; notes: string | null };
}

export async function runPgMechanismInVm(o: PgMechanismOptions): Promise<PgMechanismRun> {
  const shape = defaultPgShape(o.shape);
  const levels = { modes: [...(o.modes ?? (["full", "lazy"] as PreemptMode[]))], hugePages: [...(o.hugePages ?? (["off", "on"] as HugeLevel[]))], extensions: [...(o.extensions ?? (["off", "on"] as ExtLevel[]))] };
  const plan = planPgRuns({ blocks: o.blocks, ...levels, seed: o.seed ?? 1 });
  for (const p of ["postgres", "pg_ctl", "initdb", "pgbench", "psql"]) if (!existsSync(join(o.bin, p))) throw new UserError(`${o.bin}/${p}: missing (build the server with \`slicelab postgres build --variant diag\`)`);
  const stamp = utcStamp();
  const rawDir = o.rawDir ?? join(workDir(), "mechanism", `pg-${stamp}`);
  mkdirSync(rawDir, { recursive: true });
  if (readdirSync(rawDir).length > 0) throw new UserError(`${rawDir}: not empty; choose a new raw directory`);
  o.onConsole?.(`slicelab mechanism --pg: preparing the seed cluster on this machine (${join(rawDir, "seed")})\n`);
  const seed = prepareSeedCluster({ bin: o.bin, user: o.user, dir: join(rawDir, "seed"), shape });
  // Issue 26 item 4: one boot per block, each with its own limit (--timeout is
  // per boot). 20261201T224018Z ran 10 of 24 runs in its single boot's
  // 1,700 s (--timeout 1700): about 160 s a run of 2 s under icount, where the
  // default budget assumed durationS * 3 + 90 = 96 s.
  const perRun = Math.round(180 + shape.durationS * 10);
  const { vm, notReached } = await bootPerBlock(plan, {
    rawDir,
    timeoutS: (runs) => o.timeoutS ?? Math.round(300 + runs.length * perRun),
    script: (runs) => guestPgScript({ bin: o.bin, user: o.user, runs, shape, bufferKb: 32768, seed: join(rawDir, "seed", "data"), onSetting: o.onSetting }),
    vm: { kernel: o.kernel, accel: o.accel ?? "tcg-icount", cpus: 1, memMiB: o.memMiB ?? 3072, append: "no_timer_check", onConsole: o.onConsole },
  });
  const kernelRelease = (readIf(join(rawDir, "uname-r")) ?? "").trim() || (o.kernelRelease ?? "unknown");
  const rows: PgMechanismRow[] = [];
  const failed: { run: string; reason: string }[] = [];
  for (const r of plan) {
    const d = join(rawDir, "runs", r.id);
    if (!existsSync(join(d, "status"))) {
      failed.push({ run: r.id, reason: notReached(r.id) });
      continue;
    }
    try {
      rows.push(rowFromPgRunDir(d, r, { kernelRelease, accel: vm.accel, durationS: shape.durationS }));
    } catch (err) {
      failed.push({ run: r.id, reason: (err as Error).message });
    }
  }
  const t = (f: string) => readIf(join(rawDir, f))?.trim() ?? null;
  return {
    rawDir,
    vm: { accel: vm.accel, accelReason: vm.accelReason, cpus: vm.cpus, memMiB: vm.memMiB, append: vm.append, exitStatus: vm.exitStatus, timedOut: vm.timedOut, bootToCommandS: vm.bootToCommandS, totalS: vm.totalS },
    kernelRelease,
    levels,
    onSetting: o.onSetting ?? "all",
    plan,
    shape,
    rows,
    failed,
    seedSeconds: seed.seconds,
    guest: {
      nrHugepages: t("nr_hugepages"),
      sharedMemoryHugePages: t("shared_memory_size_in_huge_pages"),
      meminfoBoot: t("meminfo-boot.txt"),
      configSha256: t("config-sha256"),
      traceClock: t("trace_clock"),
      preemptAtBoot: t("preempt-at-boot"),
      notes: t("notes.txt"),
    },
  };
}

/**
 * The diag server's bin directory: --bin DIR as given, else the kit's diag
 * build of PostgreSQL 18 (built on first use, reused after), and the cluster user.
 */
export async function ensureDiagBin(bin?: string): Promise<{ bin: string; user: string; build: Pick<BuildRecord, "version" | "variant" | "patch" | "configure" | "prefix"> | null }> {
  const { user } = await ensurePgUser();
  if (bin !== undefined) {
    if (!existsSync(join(bin, "postgres"))) throw new UserError(`--bin ${bin}: no postgres there`);
    return { bin, user, build: null };
  }
  const src = await resolveSource({ major: "18" });
  const b = await buildPostgres(src, "diag", {});
  const r = b.record;
  return { bin: b.binDir, user, build: { version: r.version, variant: r.variant, patch: r.patch, configure: r.configure, prefix: r.prefix } };
}

export interface StallTraceRun {
  run: string;
  setting: string | null;
  summary: StallTraceSummary;
  stalls: StallMatch[];
}

/**
 * Issue 27 item 6's evidence of a PostgreSQL mechanism record: copies each
 * run's armed-waits.txt and wakeup-stalls.txt from the raw directory named in
 * DIR/provenance.json into DIR (as armed-waits-RUN.txt, wakeup-stalls-RUN.txt),
 * and, for the runs with logged stalls, matches each stall with the run's
 * trace (the waker's switch out and back in, holder-trace.txt.gz) into
 * DIR/stall-trace.json. Returns the matched runs; a missing raw directory is
 * a UserError naming it.
 */
export function writePgWaitEvidence(dir: string): StallTraceRun[] {
  const provPath = join(dir, "provenance.json");
  if (!existsSync(provPath)) throw new UserError(`${provPath}: no such file (expected a record of \`slicelab mechanism run --pg\`)`);
  const prov = JSON.parse(readFileSync(provPath, "utf8")) as { rawDir?: unknown };
  const raw = typeof prov.rawDir === "string" ? prov.rawDir : null;
  if (raw === null || !existsSync(join(raw, "runs"))) throw new UserError(`${provPath}: rawDir ${JSON.stringify(prov.rawDir)} has no runs/ directory (the raw files stay on the machine that ran the record)`);
  const out: StallTraceRun[] = [];
  for (const id of readdirSync(join(raw, "runs")).sort()) {
    const rd = join(raw, "runs", id);
    for (const f of ["armed-waits.txt", "wakeup-stalls.txt"]) if (existsSync(join(rd, f))) copyFileSync(join(rd, f), join(dir, f.replace(/\.txt$/, `-${id}.txt`)));
    const ws = readIf(join(rd, "wakeup-stalls.txt"));
    if (ws === null) continue;
    const stalls = parseWakeupStalls(ws, join(rd, "wakeup-stalls.txt")).stalls;
    if (stalls.length === 0) continue;
    const tracePath = join(rd, "holder-trace.txt.gz");
    const t = parseHolderTrace(gunzipSync(readFileSync(tracePath)).toString("utf8"), tracePath);
    const m = matchStallsToTrace(stalls, t.switches);
    out.push({ run: id, setting: (readIf(join(rd, "slice_extension")) ?? "").trim() || null, summary: summariseStallMatches(m), stalls: m });
  }
  writeFileAtomic(join(dir, "stall-trace.json"), `${JSON.stringify({ what: "each LWLockWakeup stall of the diag build's log matched with the run's sched_switch trace (tracefs, trace_clock mono; src/postgres/armed-waits.ts matchStallsToTrace)", runs: out }, null, 2)}\n`);
  return out;
}
