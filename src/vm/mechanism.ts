/**
 * The mechanism factorial (issue 14) in one boot of the 7.2 kernel, by default
 * under instruction-counted TCG (`--accel tcg-icount`): preemption mode
 * (full/lazy, switched at run time through debugfs sched/preempt) × pages
 * (4k, 4k pre-faulted, hugetlb) × extension (off/on), in randomised blocks
 * (every cell once per block, a seeded shuffle per block), each run with its
 * own seed and jittered section lengths.
 *
 * Each run: the micro-benchmark with --fault-in-cs and a hold log, while
 * tracefs records sched_switch with a stacktrace trigger on switches away from
 * the workers (and rseq_slice_grant/expire when the kernel has the slicelab
 * tracepoints); debugfs rseq/stats before and after. The guest gzips hold log
 * + trace into one holder trace per run (src/parse/holder-trace.ts). The host
 * reduces each run to one row; raw files stay in the work directory.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { buildMicro, microArgs, parseMicroOutput, MICRO_ENV, type MicroOptions } from "../micro/driver.js";
import { attributeDeschedulings, countCauses, timerSummary, parseHolderTrace, summariseHolderTrace, type Attribution, type CauseCounts, type HolderWhere, type HolderTraceSummary } from "../parse/holder-trace.js";
import { diffRseqStats, parseRseqStats } from "../parse/rseq-stats.js";
import { blockedPlan, factorial, type PlanSlot } from "./blocked-plan.js";
import type { HolderDeschedCounts } from "../analysis/mechanism.js";
import { UserError } from "../util/errors.js";
import { workDir } from "../util/paths.js";
import { shQuote } from "./guest-init.js";
import { type Accel, type VmResult } from "./qemu.js";
import { bootPerBlock } from "./block-boots.js";
import { utcStamp } from "../record/format.js";

/** "current": leave the mode as it is (host runs: the mode is read, never changed). */
export type PreemptMode = "full" | "lazy" | "none" | "current";
export type PageLevel = "4k" | "4k-prefault" | "hugetlb" | "thp";
export type ExtLevel = "off" | "on";
export const PAGE_LEVELS: readonly PageLevel[] = ["4k", "4k-prefault", "hugetlb"];

export interface Cell {
  mode: PreemptMode;
  pages: PageLevel;
  extension: ExtLevel;
}

export interface PlannedRun extends Cell, PlanSlot {
  /** The micro-benchmark's shape for this run where it differs from the boot's (the model sweep). */
  shape?: Partial<MicroShape>;
}

export interface MechanismOptions {
  kernel: string;
  kernelRelease?: string;
  accel?: Accel;
  cpus?: number;
  memMiB?: number;
  blocks: number;
  modes?: PreemptMode[];
  pages?: PageLevel[];
  extensions?: ExtLevel[];
  seed?: number;
  threads?: number;
  hogs?: number;
  csNs?: number;
  durationS?: number;
  faultEvery?: number;
  regionMiB?: number;
  jitterPct?: number;
  logMinNs?: number;
  innerLocks?: number;
  timeoutS?: number;
  /** Issue 26: trace what set each reschedule (see attributionSetup). */
  attribute?: boolean;
  /** Issue 26: debugfs sched/features words written once at boot (e.g. NO_HRTICK). */
  schedFeatures?: string[];
  /** Issue 26 known cases: micro-benchmark arguments appended to every run (e.g. --syscall-in-cs 65536). */
  extraMicroArgs?: string[];
  /** Raw run directory (default: workDir()/mechanism/STAMP). */
  rawDir?: string;
  /** A plan made elsewhere (the model sweep: runs of several shapes in one boot) instead of planRuns over the levels. */
  plan?: PlannedRun[];
  onConsole?: (s: string) => void;
}

/** Every cell once per block, shuffled per block with a seeded RNG; seeds differ per run. */
export function planRuns(o: { blocks: number; modes: readonly PreemptMode[]; pages: readonly PageLevel[]; extensions: readonly ExtLevel[]; seed: number }): PlannedRun[] {
  if (!Number.isInteger(o.blocks) || o.blocks < 1) throw new UserError(`--blocks expects an integer ≥ 1, found ${o.blocks}`);
  const cells = factorial(o.modes, o.pages, o.extensions, (mode, pages, extension): Cell => ({ mode, pages, extension }), "--modes, --pages or --extensions");
  return blockedPlan(cells, o.blocks, o.seed);
}

export interface MicroShape {
  threads: number;
  hogs: number;
  csNs: number;
  durationS: number;
  faultEvery: number;
  regionMiB: number;
  jitterPct: number;
  logMinNs: number;
  /** Uncontended nested acquires in each hold (PostgreSQL takes buffer-header locks under buffer_strategy_lock): with the extension on they re-arm a request the kernel cleared (protocol v2). */
  innerLocks: number;
  /** Pin the micro-benchmark to this many CPUs (a bundle on a machine of any size; the VM's vCPU count does it there). */
  pinCpus?: number;
}

export function defaultShape(o: Partial<MicroShape> = {}): MicroShape {
  return {
    threads: o.threads ?? 2,
    hogs: o.hogs ?? 2,
    csNs: o.csNs ?? 2000,
    durationS: o.durationS ?? 1,
    faultEvery: o.faultEvery ?? 4,
    regionMiB: o.regionMiB ?? 384,
    jitterPct: o.jitterPct ?? 25,
    logMinNs: o.logMinNs ?? 10000,
    innerLocks: o.innerLocks ?? 2,
    ...(o.pinCpus === undefined ? {} : { pinCpus: o.pinCpus }),
  };
}

/** The micro-benchmark's options for one planned run. */
export function runMicroOptions(r: PlannedRun, boot: MicroShape): MicroOptions {
  const s = r.shape ? { ...boot, ...r.shape } : boot;
  return {
    threads: s.threads,
    hogs: s.hogs,
    csNs: s.csNs,
    durationS: s.durationS,
    extension: r.extension,
    faultInCs: { pages: r.pages === "hugetlb" ? "hugetlb" : r.pages === "thp" ? "thp" : "4k", faultEvery: s.faultEvery, regionMiB: s.regionMiB, prefault: r.pages === "4k-prefault" },
    jitterPct: s.jitterPct,
    innerLocks: s.innerLocks,
    seed: r.seed,
    holdLog: "/tmp/slicelab-holds.txt",
    logMinNs: s.logMinNs,
    ...(s.pinCpus === undefined ? {} : { pinCpus: s.pinCpus }),
  };
}

/**
 * The guest script: tracefs set-up once, then every planned run in order.
 * host: run on this machine instead of a VM guest — a private tracing instance
 * (removed at the end), no huge-page reservation, the preemption mode read and
 * never written (unless a run names a mode: the bundle's run.sh writes it when
 * debugfs allows, and restores it).
 * resume (the bundle): a run whose directory has a status is skipped, a partial
 * one is made again; before each block the script stops when the runs so far
 * say the block would not end within $SLICELAB_BUDGET seconds of $SLICELAB_T0
 * (the stopped runs are listed in $O/not-run); a progress line per run with an ETA.
 * The tracing is skipped when $SLICELAB_NO_TRACE is 1 (each run's holder trace then
 * ends at the separator, and $O/traced says no).
 */
export function guestMechanismScript(o: { lhp: string; runs: PlannedRun[]; shape: MicroShape; bufferKb: number; host?: boolean; resume?: boolean; lhpFromEnv?: boolean; attribution?: AttributionSetup }): string {
  const hugePages = Math.ceil(o.shape.regionMiB / 2) + 8;
  const host = o.host === true;
  const resume = o.resume === true;
  const env = Object.entries(MICRO_ENV).map(([k, v]) => `${k}=${shQuote(v)}`).join(" ");
  const runs = o.runs
    .map((r) => `run ${r.id} ${r.mode} ${r.block} ${[...microArgs(runMicroOptions(r, o.shape)), ...(o.attribution?.extraMicroArgs ?? [])].map(shQuote).join(" ")}`)
    .join("\n");
  const perBlock = new Set(o.runs.map((r) => r.block)).size > 0 ? Math.max(...[...countBy(o.runs.map((r) => r.block)).values()]) : 0;
  const traceSetup = `echo 0 > $T/tracing_on
echo mono > $T/trace_clock || { note "trace_clock mono refused"; exit 3; }
echo ${o.bufferKb} > $T/buffer_size_kb || note "buffer_size_kb ${o.bufferKb} refused"
${host ? `echo 'prev_comm ~ "lhp-*" || next_comm ~ "lhp-*"' > $T/events/sched/sched_switch/filter || note "sched_switch filter refused"
` : ""}echo 1 > $T/events/sched/sched_switch/enable || { note "sched_switch refused"; exit 3; }
echo 'stacktrace if prev_comm ~ "lhp-w*"' > $T/events/sched/sched_switch/trigger || { note "stacktrace trigger refused"; exit 3; }
for e in rseq_slice_grant rseq_slice_expire; do [ -e $T/events/rseq/$e/enable ] && echo 1 > $T/events/rseq/$e/enable; done
${o.attribution && !host ? attributionShell(o.attribution) : ""}cat $T/trace_clock > "$O/trace_clock"`;
  return `set -u
O="$SLICELAB_VM_OUT"; T=/sys/kernel/tracing; D=/sys/kernel/debug; TR=1
[ "\${SLICELAB_NO_TRACE:-0}" = 1 ] && TR=0
note() { echo "slicelab-mechanism: $*"; echo "$*" >> "$O/notes.txt"; }
uname -r > "$O/uname-r"
${host ? `if [ $TR = 1 ]; then
[ -d $T/instances ] || { note "tracefs not mounted at $T"; exit 3; }
T=$T/instances/slicelab-mechanism-$$
mkdir $T || { note "cannot create the tracing instance $T"; exit 3; }
trap 'echo 0 > $T/tracing_on; echo 0 > $T/events/sched/sched_switch/enable; echo "!stacktrace if prev_comm ~ \\"lhp-w*\\"" > $T/events/sched/sched_switch/trigger; rmdir $T' EXIT
fi
# the mode: debugfs sched/preempt when readable, else preempt= on the command line, else the Kconfig default
hostmode() {
  cat $D/sched/preempt 2>/dev/null && return
  m=$(tr ' ' '\\n' < /proc/cmdline | sed -n 's/^preempt=//p' | tail -1)
  if [ -z "$m" ]; then
    cfg=$( (zcat /proc/config.gz || cat /boot/config-$(uname -r)) 2>/dev/null | grep -E '^CONFIG_PREEMPT(_NONE|_VOLUNTARY|_LAZY)?=y')
    case "$cfg" in *CONFIG_PREEMPT_NONE=y*) m=none;; *CONFIG_PREEMPT_VOLUNTARY=y*) m=voluntary;; *CONFIG_PREEMPT_LAZY=y*) m=lazy;; *CONFIG_PREEMPT=y*) m=full;; esac
  fi
  echo "(\${m:-unknown}) [not readable in debugfs: from the kernel command line or config]"
}
hostmode > "$O/preempt-at-boot"` : `[ -w $D/sched/preempt ] || { note "no writable debugfs sched/preempt (needs PREEMPT_DYNAMIC)"; exit 3; }
cat $D/sched/preempt > "$O/preempt-at-boot"
echo ${hugePages} > /proc/sys/vm/nr_hugepages 2>/dev/null || note "nr_hugepages refused"`}
cat /proc/sys/vm/nr_hugepages > "$O/nr_hugepages" 2>/dev/null
[ -r /proc/config.gz ] && zcat /proc/config.gz | sha256sum | cut -d' ' -f1 > "$O/config-sha256"
[ -r /proc/config.gz ] && zcat /proc/config.gz | grep -E '^CONFIG_HZ=' | cut -d= -f2 > "$O/hz"
if [ $TR = 1 ]; then
${traceSetup}
echo yes > "$O/traced"
else
echo "no (SLICELAB_NO_TRACE=1)" > "$O/traced"
fi
mkdir -p "$O/runs"
${resume ? `SL_N=${o.runs.length}; SL_PER_BLOCK=${perBlock}; SL_DONE=0; SL_RAN=0; SL_BLOCK=0; SL_STOP=0; SL_RUN_S=0
SL_T0=\${SLICELAB_T0:-$(date +%s)}
` : ""}run() {
  id=$1; mode=$2; blk=$3; shift 3
  R="$O/runs/$id"
${resume ? `  if [ -f "$R/status" ]; then SL_DONE=$((SL_DONE + 1)); echo "slicelab-mechanism: run $id done before (resumed)"; return; fi
  if [ "$blk" != "$SL_BLOCK" ]; then
    SL_BLOCK=$blk
    if [ -n "\${SLICELAB_BUDGET:-}" ] && [ $SL_STOP = 0 ]; then
      el=$(( $(date +%s) - SL_T0 )); per=\${SLICELAB_EST_RUN_S:-10}
      [ $SL_RAN -gt 0 ] && per=$(( (SL_RUN_S + SL_RAN - 1) / SL_RAN ))
      if [ $(( el + per * SL_PER_BLOCK )) -gt "$SLICELAB_BUDGET" ]; then SL_STOP=1; note "budget: block $blk and later not started (\${el} s used of $SLICELAB_BUDGET, ~\${per} s per run)"; fi
    fi
  fi
  if [ $SL_STOP = 1 ]; then echo "$id" >> "$O/not-run"; return; fi
  rm -rf "$R"; t_run=$(date +%s)
` : ""}  mkdir -p "$R"
  if [ "$mode" != current ]; then echo $mode > $D/sched/preempt || { note "run $id: sched/preempt $mode refused"; echo refused > "$R/status"; return; }; fi
  ${host ? `hostmode > "$R/preempt"` : `cat $D/sched/preempt > "$R/preempt"`}
  cat $D/sched/features > "$R/sched-features" 2>/dev/null
  [ $TR = 1 ] && echo > $T/trace
  cat $D/rseq/stats > "$R/rseq-stats-before.txt" 2>/dev/null
  grep -E '^cpu[0-9 ]' /proc/stat > "$R/stat-before" 2>/dev/null
  [ $TR = 1 ] && echo 1 > $T/tracing_on
  env ${env} ${o.lhpFromEnv ? '"$SLICELAB_LHP"' : shQuote(o.lhp)} "$@" > "$R/micro.json" 2> "$R/micro.err"
  echo $? > "$R/status.tmp"
  [ $TR = 1 ] && echo 0 > $T/tracing_on
  cat $D/rseq/stats > "$R/rseq-stats-after.txt" 2>/dev/null
  grep -E '^cpu[0-9 ]' /proc/stat > "$R/stat-after" 2>/dev/null
  if [ $TR = 1 ]; then for c in $T/per_cpu/cpu*; do echo "== $(basename $c)"; cat $c/stats; done > "$R/buffer-stats.txt"; fi
  [ -e /proc/pressure/cpu ] && cat /proc/loadavg > "$R/loadavg"
  { cat /tmp/slicelab-holds.txt; echo "# slicelab-lhp trace follows"; [ $TR = 1 ] && cat $T/trace; } | gzip -1 > "$R/holder-trace.txt.gz"
  rm -f /tmp/slicelab-holds.txt
  mv "$R/status.tmp" "$R/status"
${resume ? `  SL_RAN=$((SL_RAN + 1)); SL_DONE=$((SL_DONE + 1)); SL_RUN_S=$(( SL_RUN_S + $(date +%s) - t_run ))
  per=$(( (SL_RUN_S + SL_RAN - 1) / SL_RAN )); el=$(( $(date +%s) - SL_T0 ))
  left=$(( SL_N - SL_DONE )); eta=$(( left * per ))
  [ -n "\${SLICELAB_BUDGET:-}" ] && [ $(( el + eta )) -gt "$SLICELAB_BUDGET" ] && eta="$(( SLICELAB_BUDGET - el )) (budget)"
  echo "slicelab-mechanism: run $id done ($SL_DONE/$SL_N, block $blk, mode $mode, \${el} s, ETA \${eta} s)"
` : `  echo "slicelab-mechanism: run $id done"
`}}
${runs}
exit 0
`;
}

function countBy<T>(xs: readonly T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

// ---- issue 26: reschedule attribution (a separate section; guestMechanismScript calls it) ----

export interface AttributionSetup {
  /** sched/features words written once at boot (e.g. NO_HRTICK: the control for the 7.2 hrtick). */
  schedFeatures?: string[];
  /** Micro-benchmark arguments appended to every run (the known cases). */
  extraMicroArgs?: string[];
  /** Set shmem THP to advise (the thp page level: a 2 MB first touch). */
  thp?: boolean;
}

/** Events recorded beside sched_switch to attribute each reschedule (each enabled when the kernel has it). */
export const ATTRIBUTION_EVENTS: readonly string[] = [
  "sched/sched_waking", "sched/sched_wakeup", "irq_vectors/local_timer_entry", "irq_vectors/reschedule_entry",
  "timer/hrtimer_expire_entry", "exceptions/page_fault_user",
];

/**
 * Shell lines (guest only) that add, to the sched_switch trace, every call of
 * __resched_curr (kernel/sched/core.c: the one function resched_curr,
 * resched_curr_lazy and sched_tick's lazy escalation all reach) through the
 * function tracer with its kernel stack (options/func_stack_trace), plus the
 * events of ATTRIBUTION_EVENTS. The switch's own stacktrace trigger stays.
 */
export function attributionShell(a: AttributionSetup): string {
  const feats = (a.schedFeatures ?? []).map((f) => {
    if (!/^(NO_)?[A-Z_]+$/.test(f)) throw new UserError(`--sched-features: expected words such as NO_HRTICK, found ${JSON.stringify(f)}`);
    return `echo ${f} > $D/sched/features || { note "sched/features ${f} refused"; exit 3; }
`;
  }).join("");
  const thp = a.thp ? `echo advise > /sys/kernel/mm/transparent_hugepage/shmem_enabled || note "shmem_enabled advise refused"
` : "";
  return `${feats}${thp}cat $D/sched/features > "$O/sched-features" 2>/dev/null
for e in ${ATTRIBUTION_EVENTS.join(" ")}; do if [ -e $T/events/$e/enable ]; then echo 1 > $T/events/$e/enable || note "event $e refused"; else note "event $e absent"; fi; done
echo __resched_curr > $T/set_ftrace_filter || { note "set_ftrace_filter __resched_curr refused"; exit 3; }
echo function > $T/current_tracer || { note "function tracer refused"; exit 3; }
echo 1 > $T/options/func_stack_trace || { note "func_stack_trace refused"; exit 3; }
echo 1 > "$O/attribution"
`;
}

/** A holder trace's first-descheduling classes, as a row's fields (the VM micro and PostgreSQL runners share them). */
export function firstDeschedClasses(s: HolderTraceSummary): Omit<HolderDeschedCounts, "deschedHolds" | "covered"> {
  const f = s.firstByClass;
  return { kernelFault: f["kernel-fault"], kernelOther: f["kernel-other"], returnFault: f["return-fault"], returnInterrupt: f["return-interrupt"], returnSyscall: f["return-syscall"], voluntary: f.voluntary, unclassified: f.unclassified };
}

/** The kernel's rseq slice counters over a run (null without the feature), as a row's fields. */
export function sliceCounters(c: Partial<Record<"sgrant" | "sexpir" | "srevok" | "syield", number>> | null): { grants: number | null; expired: number | null; revoked: number | null; yields: number | null } {
  return { grants: c ? (c.sgrant ?? 0) : null, expired: c ? (c.sexpir ?? 0) : null, revoked: c ? (c.srevok ?? 0) : null, yields: c ? (c.syield ?? 0) : null };
}

/** One row per run: the factorial's unit of evidence. */
export interface MechanismRow extends HolderDeschedCounts {
  run: string;
  block: number;
  order: number;
  seed: number;
  mode: PreemptMode;
  /** The mode debugfs sched/preempt reported after the switch (its bracketed word). */
  modeActive: string;
  kernelRelease: string;
  /** kvm, tcg, tcg-icount, or "host" (this machine's kernel, no VM). */
  accel: Accel | "host";
  pages: PageLevel;
  hugeKiBMapped: number;
  extension: ExtLevel;
  durationS: number;
  holds: number;
  holdsLogged: number;
  logLost: number;
  /** Kernel counters (rseq/stats deltas): grants, expiries, revocations, yields. */
  grants: number | null;
  expired: number | null;
  revoked: number | null;
  yields: number | null;
  /** rseq_slice_grant events inside descheduled holds (tracepoint kernel only). */
  grantsInDeschedHolds: number | null;
  /** Worker minor faults during the loop (new memory is touched only inside sections). */
  faultsUnderLock: number;
  freshPagesTouched: number;
  regionExhausted: boolean;
  throughputPerS: number;
  hogWorkPerS: number;
  holdP99Ns: number | null;
  /** First touches inside sections, timed in the section (lhp version 3; null before, or without --fault-in-cs). */
  touchCount: number | null;
  touchP50Ns: number | null;
  touchP99Ns: number | null;
  touchMaxNs: number | null;
  touchMeanNs: number | null;
  /** The hold-time split: mean hold with a touch, its section work (hold − touch), and the mean hold without one. */
  touchedHoldMeanNs: number | null;
  touchedWorkMeanNs: number | null;
  untouchedHoldMeanNs: number | null;
  /** Median holds with and without a first touch (the means above include preempted holds' long tails). */
  touchedHoldP50Ns: number | null;
  untouchedHoldP50Ns: number | null;
  waitP99Ns: number | null;
  waitP999Ns: number | null;
  dropped: number;
  /** Nested acquires that re-armed a request the kernel had cleared. */
  rearmed: number;
  lostEvents: number;
  switchesWithoutStack: number;
  preemptMarkDisagree: number;
  /** Steal time as a share of CPU time over the run (/proc/stat before and after; null when not recorded). In a guest of an emulator it is time the emulator ran another vCPU or itself. */
  stealPct?: number | null;
  /** Idle time as a share of CPU time over the run (a vCPU descheduled by its guest kernel). */
  idlePct?: number | null;
  /** Issue 26 (--attribute runs only; absent otherwise): the cause of every descheduling in a hold. */
  attribution?: RunAttribution | null;
}

/** One run's reschedule attribution (issue 26). */
export interface RunAttribution {
  requests: number;
  requestsWithoutStack: number;
  causes: CauseCounts;
  /** Where the holder was at the deciding request, for in-kernel and at-return deschedulings. */
  where: Record<"inKernel" | "atReturn", Record<HolderWhere, number>>;
  /** Deschedulings whose deciding full request followed a lazy one (the lazy origin's cause). */
  afterLazy: Record<string, number>;
  /** sched/features at the run (HRTICK or NO_HRTICK …). */
  schedFeatures: string | null;
  /** How the (emulated) machine delivered timers during the run. */
  timers?: ReturnType<typeof timerSummary>;
}

/** Reduces a run's attributions to counts. */
export function runAttribution(a: Attribution[], requests: { stack: unknown }[], schedFeatures: string | null): RunAttribution {
  const wz = () => ({ user: 0, fault: 0, syscall: 0, kernel: 0, unknown: 0 });
  const where = { inKernel: wz(), atReturn: wz() };
  const afterLazy: Record<string, number> = {};
  for (const x of a) {
    if (x.cls === "kernel-fault" || x.cls === "kernel-other") where.inKernel[x.where]++;
    else if (x.cls.startsWith("return")) where.atReturn[x.where]++;
    if (x.lazyOrigin) afterLazy[`${x.cause}<-${x.lazyOrigin}`] = (afterLazy[`${x.cause}<-${x.lazyOrigin}`] ?? 0) + 1;
  }
  return { requests: requests.length, requestsWithoutStack: requests.filter((r) => r.stack === null).length, causes: countCauses(a), where, afterLazy, schedFeatures };
}

/** The active word of debugfs sched/preempt ("none voluntary (full) lazy" → "full"). */
export function activePreemptMode(text: string, file: string): string {
  const m = /\((\w+)\)/.exec(text);
  if (!m) throw new UserError(`${file}: expected the active mode in parentheses, found ${JSON.stringify(text.trim())}`);
  return m[1]!;
}

/** Steal and idle shares of the "cpu " line between two /proc/stat excerpts. */
export function statShares(before: string | null, after: string | null): { stealPct: number | null; idlePct: number | null } {
  const parse = (t: string | null) => {
    const l = t?.split("\n").find((x) => x.startsWith("cpu "));
    const xs = l?.trim().split(/\s+/).slice(1, 9).map(Number);
    return xs && xs.length === 8 && xs.every(Number.isFinite) ? xs : null;
  };
  const a = parse(before);
  const b = parse(after);
  if (!a || !b) return { stealPct: null, idlePct: null };
  const d = b.map((x, i) => x - a[i]!);
  const total = d.reduce((x, y) => x + y, 0);
  return total > 0 ? { stealPct: (100 * d[7]!) / total, idlePct: (100 * d[3]!) / total } : { stealPct: null, idlePct: null };
}

function readIf(p: string): string | null {
  return existsSync(p) ? readFileSync(p, "utf8") : null;
}

/** Reduces one run directory (written by the guest script) to its row. */
export function rowFromRunDir(dir: string, r: PlannedRun, ctx: { kernelRelease: string; accel: Accel | "host"; durationS: number }): { row: MechanismRow; summary: HolderTraceSummary } {
  const status = (readIf(join(dir, "status")) ?? "").trim();
  if (status !== "0") throw new UserError(`${dir}: run ${r.id} ended with status ${status || "none"}: ${(readIf(join(dir, "micro.err")) ?? "").trim().slice(0, 300)}`);
  const micro = parseMicroOutput(readFileSync(join(dir, "micro.json"), "utf8"), join(dir, "micro.json"));
  if (!micro.results) throw new UserError(`${dir}/micro.json: no results (${micro.feature.reason ?? "unknown reason"})`);
  const x = micro.results;
  const tracePath = join(dir, "holder-trace.txt.gz");
  const trace = parseHolderTrace(gunzipSync(readFileSync(tracePath)).toString("utf8"), tracePath);
  const s = summariseHolderTrace(trace);
  const before = readIf(join(dir, "rseq-stats-before.txt"));
  const after = readIf(join(dir, "rseq-stats-after.txt"));
  const stats = before && after ? diffRseqStats(parseRseqStats(before, join(dir, "rseq-stats-before.txt")), parseRseqStats(after, join(dir, "rseq-stats-after.txt"))) : null;
  const c = stats?.sliceExtension ? stats.counters : null;
  const row: MechanismRow = {
    run: r.id,
    block: r.block,
    order: r.order,
    seed: r.seed,
    mode: r.mode === "current" ? (activePreemptMode(readFileSync(join(dir, "preempt"), "utf8"), join(dir, "preempt")) as PreemptMode) : r.mode,
    modeActive: activePreemptMode(readFileSync(join(dir, "preempt"), "utf8"), join(dir, "preempt")),
    kernelRelease: ctx.kernelRelease,
    accel: ctx.accel,
    pages: r.pages,
    hugeKiBMapped: x.faults.hugeKiBMapped,
    extension: r.extension,
    durationS: ctx.durationS,
    holds: x.criticalSections,
    holdsLogged: s.holdsLogged,
    logLost: s.logLost,
    deschedHolds: s.deschedHolds,
    ...firstDeschedClasses(s),
    covered: x.grants,
    ...sliceCounters(c),
    grantsInDeschedHolds: s.grantsInDeschedHolds,
    faultsUnderLock: x.faults.workerMinor,
    freshPagesTouched: x.faults.freshPagesTouched,
    regionExhausted: x.faults.regionExhausted,
    throughputPerS: x.throughputPerS,
    hogWorkPerS: x.hogs.workPerS,
    holdP99Ns: x.holdNs?.p99 ?? null,
    touchCount: x.touchNs?.count ?? null,
    touchP50Ns: x.touchNs?.p50 ?? null,
    touchP99Ns: x.touchNs?.p99 ?? null,
    touchMaxNs: x.touchNs?.max ?? null,
    touchMeanNs: x.touchNs?.mean ?? null,
    touchedHoldMeanNs: x.holdSplit?.touchedHoldMeanNs ?? null,
    touchedWorkMeanNs: x.holdSplit?.workMeanNs ?? null,
    untouchedHoldMeanNs: x.holdSplit?.untouchedHoldMeanNs ?? null,
    touchedHoldP50Ns: x.holdSplit?.touchedHoldP50Ns ?? null,
    untouchedHoldP50Ns: x.holdSplit?.untouchedHoldP50Ns ?? null,
    waitP99Ns: x.waitNs?.p99 ?? null,
    waitP999Ns: x.waitNs?.p999 ?? null,
    dropped: x.dropped,
    rearmed: x.rearmed,
    lostEvents: s.lostEvents,
    switchesWithoutStack: s.switchesWithoutStack,
    preemptMarkDisagree: s.preemptMarkAgreement.disagree,
    ...statShares(readIf(join(dir, "stat-before")), readIf(join(dir, "stat-after"))),
  };
  if (existsSync(join(dir, "..", "..", "attribution")) || trace.resched.length > 0) {
    row.attribution = { ...runAttribution(attributeDeschedulings(trace, row.modeActive), trace.resched, readIf(join(dir, "sched-features"))?.trim() ?? null), timers: timerSummary(trace) };
  }
  return { row, summary: s };
}

export interface MechanismRun {
  rawDir: string;
  vm: Pick<VmResult, "accel" | "accelReason" | "cpus" | "memMiB" | "append" | "exitStatus" | "timedOut" | "bootToCommandS" | "totalS">;
  kernelRelease: string;
  /** The planner's levels, in the order it was given them: with blocks and seed they give the plan again. */
  levels: { modes: PreemptMode[]; pages: PageLevel[]; extensions: ExtLevel[] };
  plan: PlannedRun[];
  shape: MicroShape;
  rows: MechanismRow[];
  /** Planned runs that produced no row, with the reason. */
  failed: { run: string; reason: string }[];
  guest: { nrHugepages: string | null; configSha256: string | null; traceClock: string | null; preemptAtBoot: string | null; notes: string | null; hz?: number | null; schedFeatures?: string | null; attribution?: AttributionSetup | null };
  micro: { sourceSha256: string; static: boolean };
}

export async function runMechanismInVm(o: MechanismOptions): Promise<MechanismRun> {
  const shape = defaultShape(o);
  const cpus = o.cpus ?? 1;
  if (shape.threads + shape.hogs <= cpus) throw new UserError(`--threads ${shape.threads} + --hogs ${shape.hogs} must exceed --cpus ${cpus}: the run must be oversubscribed`);
  const levels = { modes: [...(o.modes ?? ["full", "lazy"])], pages: [...(o.pages ?? PAGE_LEVELS)], extensions: [...(o.extensions ?? ["off", "on"])] };
  const plan = o.plan ?? planRuns({ blocks: o.blocks, ...levels, seed: o.seed ?? 1 });
  const micro = await buildMicro();
  const stamp = utcStamp();
  const rawDir = o.rawDir ?? join(workDir(), "mechanism", stamp);
  mkdirSync(rawDir, { recursive: true });
  if (readdirSync(rawDir).length > 0) throw new UserError(`${rawDir}: not empty; choose a new raw directory`);
  const attribution: AttributionSetup | undefined = o.attribute || o.schedFeatures?.length || o.extraMicroArgs?.length
    ? { schedFeatures: o.schedFeatures, extraMicroArgs: o.extraMicroArgs, thp: plan.some((r) => r.pages === "thp") }
    : undefined;
  // Issue 26 item 4: one boot per block, each with its own time limit, so a
  // slow host costs at most the rest of one block, and each run not reached
  // says which boot timed out. The per-run budget is from the factorial of
  // 20261201T215612Z: 21 runs of 0.5 s took 1,850 s of wall time under icount
  // (88 s each) against the old budget of 50 s a run (durationS * 40 + 30).
  const perRun = Math.round(90 + Math.max(...plan.map((r) => r.shape?.durationS ?? shape.durationS)) * 150 + (attribution ? 60 : 0));
  const { vm, notReached } = await bootPerBlock(plan, {
    rawDir,
    timeoutS: (runs) => o.timeoutS ?? Math.round(180 + runs.length * perRun),
    script: (runs) => guestMechanismScript({ lhp: micro.path, runs, shape, bufferKb: 16384, attribution }),
    vm: { kernel: o.kernel, accel: o.accel ?? "tcg-icount", cpus, memMiB: o.memMiB ?? 2048, append: "no_timer_check", onConsole: o.onConsole },
  });
  const kernelRelease = (readIf(join(rawDir, "uname-r")) ?? "").trim() || (o.kernelRelease ?? "unknown");
  const rows: MechanismRow[] = [];
  const failed: { run: string; reason: string }[] = [];
  for (const r of plan) {
    const d = join(rawDir, "runs", r.id);
    if (!existsSync(join(d, "status"))) {
      failed.push({ run: r.id, reason: notReached(r.id) });
      continue;
    }
    try {
      rows.push(rowFromRunDir(d, r, { kernelRelease, accel: vm.accel, durationS: shape.durationS }).row);
    } catch (err) {
      failed.push({ run: r.id, reason: (err as Error).message });
    }
  }
  return {
    rawDir,
    vm: { accel: vm.accel, accelReason: vm.accelReason, cpus: vm.cpus, memMiB: vm.memMiB, append: vm.append, exitStatus: vm.exitStatus, timedOut: vm.timedOut, bootToCommandS: vm.bootToCommandS, totalS: vm.totalS },
    kernelRelease,
    levels,
    plan,
    shape,
    rows,
    failed,
    guest: {
      nrHugepages: readIf(join(rawDir, "nr_hugepages"))?.trim() ?? null,
      configSha256: readIf(join(rawDir, "config-sha256"))?.trim() ?? null,
      hz: Number(readIf(join(rawDir, "hz"))?.trim()) || null,
      traceClock: readIf(join(rawDir, "trace_clock"))?.trim() ?? null,
      preemptAtBoot: readIf(join(rawDir, "preempt-at-boot"))?.trim() ?? null,
      notes: readIf(join(rawDir, "notes.txt"))?.trim() ?? null,
      schedFeatures: readIf(join(rawDir, "sched-features"))?.trim() ?? null,
      attribution: attribution ?? null,
    },
    micro: { sourceSha256: micro.sourceSha256, static: micro.static },
  };
}

/**
 * The same runs on this machine's kernel (no VM): for a kernel without the
 * extension and a mode that must not be changed (a shared host), so modes are
 * ["current"] and extensions ["off"]. Needs root and tracefs/debugfs mounted.
 */
export async function runMechanismOnHost(o: Omit<MechanismOptions, "kernel" | "accel" | "cpus" | "memMiB">): Promise<MechanismRun> {
  const shape = defaultShape(o);
  const levels = { modes: ["current"] as PreemptMode[], pages: [...(o.pages ?? (["4k", "4k-prefault"] as PageLevel[]))], extensions: [...(o.extensions ?? (["off"] as ExtLevel[]))] };
  const plan = planRuns({ blocks: o.blocks, ...levels, seed: o.seed ?? 1 });
  const micro = await buildMicro();
  const stamp = utcStamp();
  const rawDir = o.rawDir ?? join(workDir(), "mechanism", `host-${stamp}`);
  mkdirSync(rawDir, { recursive: true });
  if (readdirSync(rawDir).length > 0) throw new UserError(`${rawDir}: not empty; choose a new raw directory`);
  const script = guestMechanismScript({ lhp: micro.path, runs: plan, shape, bufferKb: 8192, host: true });
  const t0 = Date.now();
  const res = spawnSync("sh", ["-c", script], { env: { ...process.env, SLICELAB_VM_OUT: rawDir }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: (o.timeoutS ?? plan.length * (shape.durationS * 10 + 30)) * 1000 });
  const kernelRelease = (readIf(join(rawDir, "uname-r")) ?? "").trim() || "unknown";
  const rows: MechanismRow[] = [];
  const failed: { run: string; reason: string }[] = [];
  for (const r of plan) {
    const d = join(rawDir, "runs", r.id);
    if (!existsSync(join(d, "status"))) {
      failed.push({ run: r.id, reason: "not reached" });
      continue;
    }
    try {
      rows.push(rowFromRunDir(d, r, { kernelRelease, accel: "host", durationS: shape.durationS }).row);
    } catch (err) {
      failed.push({ run: r.id, reason: (err as Error).message });
    }
  }
  return {
    rawDir,
    vm: { accel: "host" as unknown as Accel, accelReason: "no VM: this machine's kernel", cpus: 0, memMiB: 0, append: "", exitStatus: res.status, timedOut: res.error !== undefined, bootToCommandS: 0, totalS: (Date.now() - t0) / 1000 },
    kernelRelease,
    levels,
    plan,
    shape,
    rows,
    failed,
    guest: {
      nrHugepages: null,
      configSha256: null,
      traceClock: readIf(join(rawDir, "trace_clock"))?.trim() ?? null,
      preemptAtBoot: readIf(join(rawDir, "preempt-at-boot"))?.trim() ?? null,
      notes: [readIf(join(rawDir, "notes.txt"))?.trim(), res.stderr?.trim()].filter((x) => x).join("\n") || null,
    },
    micro: { sourceSha256: micro.sourceSha256, static: micro.static },
  };
}
