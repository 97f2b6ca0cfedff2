/**
 * The mechanism experiment's guest script: tracefs set-up once, then every planned run (the
 * micro-benchmark with --fault-in-cs and a hold log, sched_switch with its kernel stack, rseq/stats
 * before and after), each run's hold log and trace gzipped into one holder trace. The VM runner,
 * the host runner and the bundle's run.sh all run this script.
 */
import { microArgs, MICRO_ENV } from "../../micro/driver.js";
import { UserError } from "../../util/errors.js";
import { shQuote } from "../../vm/guest-init.js";
import { runMicroOptions, type MicroShape, type PlannedRun } from "./plan.js";

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
