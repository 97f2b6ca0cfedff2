/**
 * Holder traces: where each descheduling of a lock holder happened.
 *
 * One file, two parts, both written inside the VM by `slicelab mechanism run`:
 *
 *   1. the micro-benchmark's hold log (`lhp --hold-log`): a header
 *      `# slicelab-lhp hold log v1: …`, one `# worker I tid T holds N logged L lost K`
 *      line per worker, then `TID START_NS END_NS FLAGS` per hold of at least
 *      --log-min-ns (CLOCK_MONOTONIC; flags: 1 granted at release, 2 request
 *      dropped, 4 fresh page touched, 8 re-armed);
 *   2. after a line `# slicelab-lhp trace follows`, tracefs text (trace_clock
 *      mono, the clock of CLOCK_MONOTONIC) with sched:sched_switch for every
 *      task and a `stacktrace` trigger on switches away from the workers
 *      (`prev_comm ~ "lhp-w*"`): each such switch is followed (or preceded) on
 *      its CPU by a `<stack trace>` block, ` => function+off/len` lines. Optional
 *      rseq:rseq_slice_grant / rseq_slice_expire lines (the slicelab
 *      tracepoint kernel) are read as well.
 *
 * A descheduling belongs to a hold when the holder's switch back *in* falls in
 * the hold's [start, end] (robust to the µs resolution of tracefs text: an
 * off-CPU interval is many µs long). Its class comes from the kernel stack at
 * the switch out: preempt_schedule_irq / preempt_schedule* / __cond_resched →
 * in the kernel (in a page fault when the stack holds the fault handler), a
 * plain schedule() → at the return to user space (from a fault, an interrupt
 * or a syscall, by the entry frame); a prev_state other than R/R+ is a
 * voluntary sleep.
 */
import { ParseError } from "../util/errors.js";
import { splitLines } from "./text.js";

export const HOLD_LOG_HEADER = "# slicelab-lhp hold log v1:";
export const TRACE_SEPARATOR = "# slicelab-lhp trace follows";

export const HOLD_GRANTED = 1;
export const HOLD_DROPPED = 2;
export const HOLD_TOUCHED = 4;
export const HOLD_REARMED = 8;

export interface HoldRecord {
  tid: number;
  startNs: number;
  endNs: number;
  flags: number;
}

export interface WorkerHoldSummary {
  index: number;
  tid: number;
  holds: number;
  logged: number;
  lost: number;
}

export interface SwitchEvent {
  line: number;
  cpu: number;
  /** Trace timestamp in ns (µs resolution in tracefs text). */
  tsNs: number;
  prevComm: string;
  prevPid: number;
  prevState: string;
  nextComm: string;
  nextPid: number;
  /** Kernel stack at the switch (function names, innermost first), when a trigger recorded one. */
  stack: string[] | null;
}

export interface SliceEvent {
  line: number;
  tsNs: number;
  kind: "grant" | "expire";
  pid: number;
}

/** One call of __resched_curr (function tracer, --attribute): a reschedule request. */
export interface ReschedEvent {
  line: number;
  cpu: number;
  tsNs: number;
  /** The task running when the request was made (rq->curr on a 1-vCPU guest). */
  pid: number;
  /** The caller (function tracer's "<-parent"). */
  parent: string;
  /** Made in hard interrupt context (the trace flags' "h"). */
  hardirq: boolean;
  stack: string[] | null;
}

/** Events around the requests (--attribute), each with its CPU, time and line. */
export interface AroundEvent {
  line: number;
  cpu: number;
  tsNs: number;
  /** The task in whose context the event was recorded. */
  pid: number;
  kind: "waking" | "wakeup" | "timer-irq" | "resched-ipi" | "hrtimer" | "fault-user";
  /** waking/wakeup: the woken task; hrtimer: the callback function; fault-user: the address. */
  target?: string;
  targetPid?: number;
  targetPrio?: number;
  /** sched_waking: the CPU the woken task is to run on. */
  targetCpu?: number;
}

export interface HolderTrace {
  file: string;
  minLogNs: number;
  workers: WorkerHoldSummary[];
  holds: HoldRecord[];
  switches: SwitchEvent[];
  slice: SliceEvent[];
  /** Sum of "[LOST n EVENTS]" markers: a trace with losses cannot classify every descheduling. */
  lostEvents: number;
  /** Whether rseq_slice_* tracepoints appeared (slicelab tracepoint kernel). */
  sliceTracepoints: boolean;
  /** __resched_curr calls (empty without --attribute). */
  resched: ReschedEvent[];
  around: AroundEvent[];
}

export type DeschedClass =
  | "kernel-fault"
  | "kernel-other"
  | "return-fault"
  | "return-interrupt"
  | "return-syscall"
  | "voluntary"
  | "unclassified";

export const DESCHED_CLASSES: readonly DeschedClass[] = [
  "kernel-fault",
  "kernel-other",
  "return-fault",
  "return-interrupt",
  "return-syscall",
  "voluntary",
  "unclassified",
];

const EVENT_RE = /^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d{6}):\s+(\S+?):?\s(.*)$/;
const STACK_HEAD_RE = /^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d{6}):\s+<stack trace>\s*$/;
const FUNC_RE = /^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+(\d+)\.(\d{6}):\s+(\S+)\s+<-(\S+)\s*$/;
const SWITCH_RE = /^prev_comm=(.*?) prev_pid=(\d+) prev_prio=-?\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+) next_prio=-?\d+\s*$/;

function tsOf(sec: string, usec: string): number {
  return Number(sec) * 1e9 + Number(usec) * 1e3;
}

/** Parses a holder trace (hold log + tracefs text); throws ParseError naming the line. */
export function parseHolderTrace(text: string, file: string): HolderTrace {
  const lines = splitLines(text);
  if (lines.length === 0 || !lines[0]!.startsWith(HOLD_LOG_HEADER)) {
    throw new ParseError(file, 1, `the hold log header "${HOLD_LOG_HEADER} …"`, JSON.stringify((lines[0] ?? "").slice(0, 80)));
  }
  const minLog = /holds >= (\d+) ns/.exec(lines[0]!);
  if (!minLog) throw new ParseError(file, 1, "holds >= N ns in the header", JSON.stringify(lines[0]!.slice(0, 120)));
  const workers: WorkerHoldSummary[] = [];
  const holds: HoldRecord[] = [];
  let i = 1;
  // Where each worker and hold line was, so that the consistency checks below can name a line.
  const workerLine = new Map<number, number>();
  const holdLine: number[] = [];
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith(TRACE_SEPARATOR)) break;
    if (l.trim() === "") continue;
    const w = /^# worker (\d+) tid (\d+) holds (\d+) logged (\d+) lost (\d+)$/.exec(l);
    if (w) {
      workers.push({ index: Number(w[1]), tid: Number(w[2]), holds: Number(w[3]), logged: Number(w[4]), lost: Number(w[5]) });
      workerLine.set(workers.length - 1, i + 1);
      continue;
    }
    const h = /^(\d+) (\d+) (\d+) (\d+)$/.exec(l);
    if (!h) throw new ParseError(file, i + 1, "a hold line TID START_NS END_NS FLAGS or a # worker line", JSON.stringify(l.slice(0, 80)));
    const rec = { tid: Number(h[1]), startNs: Number(h[2]), endNs: Number(h[3]), flags: Number(h[4]) };
    if (rec.endNs < rec.startNs) throw new ParseError(file, i + 1, "END_NS ≥ START_NS", l);
    holds.push(rec);
    holdLine.push(i + 1);
  }
  if (i >= lines.length) throw new ParseError(file, lines.length, `a line "${TRACE_SEPARATOR}" after the hold log`, "end of file");
  if (workers.length === 0) throw new ParseError(file, i + 1, "at least one # worker line before the trace", "none");
  const tids = new Set(workers.map((w) => w.tid));
  holds.forEach((h, k) => {
    if (!tids.has(h.tid)) throw new ParseError(file, holdLine[k]!, `holds of the listed workers (${[...tids].join(", ")})`, `tid ${h.tid}`);
  });
  const perTid = new Map<number, number>();
  for (const h of holds) perTid.set(h.tid, (perTid.get(h.tid) ?? 0) + 1);
  workers.forEach((w, k) => {
    const n = perTid.get(w.tid) ?? 0;
    if (n !== w.logged) throw new ParseError(file, workerLine.get(k)!, `${w.logged} hold lines for worker ${w.index} (tid ${w.tid})`, String(n));
  });

  const switches: SwitchEvent[] = [];
  const slice: SliceEvent[] = [];
  const resched: ReschedEvent[] = [];
  const around: AroundEvent[] = [];
  // per CPU: the last function-tracer event (its func_stack_trace block follows it)
  const lastFunc = new Map<number, ReschedEvent>();
  let lostEvents = 0;
  let sliceTracepoints = false;
  // per CPU: the last switch (for a stack that follows it) and a stack waiting for its switch
  const lastSwitch = new Map<number, SwitchEvent>();
  const pendingStack = new Map<number, { pid: number; stack: string[] }>();
  let openStack: { cpu: number; pid: number; stack: string[]; attachTo: SwitchEvent | ReschedEvent | null } | null = null;
  const closeStack = () => {
    if (!openStack) return;
    if (openStack.attachTo) openStack.attachTo.stack = openStack.stack;
    else pendingStack.set(openStack.cpu, { pid: openStack.pid, stack: openStack.stack });
    openStack = null;
  };
  for (i = i + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith(" => ")) {
      if (!openStack) throw new ParseError(file, i + 1, "a stack line after a <stack trace> line", JSON.stringify(l.slice(0, 80)));
      openStack.stack.push(l.slice(4).trim().replace(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, ""));
      continue;
    }
    closeStack();
    if (l.trim() === "" || l.startsWith("#")) continue;
    const lost = /^CPU:\s*\d+ \[LOST (\d+) EVENTS\]/.exec(l);
    if (lost) {
      lostEvents += Number(lost[1]);
      continue;
    }
    const sh = STACK_HEAD_RE.exec(l);
    if (sh) {
      const cpu = Number(sh[3]);
      const pid = Number(sh[2]);
      const fn = lastFunc.get(cpu);
      if (fn && fn.pid === pid && fn.stack === null) {
        // a func_stack_trace block: it belongs to the function event just before it
        openStack = { cpu, pid, stack: [], attachTo: fn };
        lastFunc.delete(cpu);
        continue;
      }
      const last = lastSwitch.get(cpu);
      const attachTo = last && last.prevPid === pid && last.stack === null ? last : null;
      openStack = { cpu, pid, stack: [], attachTo };
      continue;
    }
    const fm = FUNC_RE.exec(l);
    if (fm) {
      const ev: ReschedEvent = { line: i + 1, cpu: Number(fm[3]), tsNs: tsOf(fm[5]!, fm[6]!), pid: Number(fm[2]), parent: fm[8]!.replace(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, ""), hardirq: /h/i.test(fm[4]!), stack: null };
      if (fm[7] === "__resched_curr") resched.push(ev);
      lastFunc.set(ev.cpu, ev);
      continue;
    }
    const m = EVENT_RE.exec(l);
    if (!m) throw new ParseError(file, i + 1, "a tracefs event line TASK-PID [CPU] FLAGS SEC.USEC: EVENT: …", JSON.stringify(l.slice(0, 100)));
    const cpu = Number(m[3]);
    const ts = tsOf(m[4]!, m[5]!);
    const event = m[6]!;
    const body = m[7]!;
    lastFunc.delete(cpu);
    if (event === "sched_switch") {
      const s = SWITCH_RE.exec(body);
      if (!s) throw new ParseError(file, i + 1, "sched_switch: prev_comm=… prev_pid=… prev_prio=… prev_state=… ==> next_comm=… next_pid=… next_prio=…", JSON.stringify(body.slice(0, 100)));
      const ev: SwitchEvent = {
        line: i + 1, cpu, tsNs: ts,
        prevComm: s[1]!, prevPid: Number(s[2]), prevState: s[3]!, nextComm: s[4]!, nextPid: Number(s[5]),
        stack: null,
      };
      const p = pendingStack.get(cpu);
      if (p && p.pid === ev.prevPid) {
        ev.stack = p.stack;
        pendingStack.delete(cpu);
      }
      switches.push(ev);
      lastSwitch.set(cpu, ev);
      continue;
    }
    if (event === "rseq_slice_grant" || event === "rseq_slice_expire") {
      sliceTracepoints = true;
      const pid = /pid=(\d+)/.exec(body);
      if (!pid) throw new ParseError(file, i + 1, `${event}: pid=…`, JSON.stringify(body.slice(0, 80)));
      slice.push({ line: i + 1, tsNs: ts, kind: event === "rseq_slice_grant" ? "grant" : "expire", pid: Number(pid[1]) });
      continue;
    }
    if (event.startsWith("rseq_slice_")) sliceTracepoints = true;
    const ctxPid = Number(m[2]);
    if (event === "sched_waking" || event === "sched_wakeup") {
      const w = /comm=(.*?) pid=(\d+) prio=(-?\d+)(?: target_cpu=(\d+))?/.exec(body);
      if (!w) throw new ParseError(file, i + 1, `${event}: comm=… pid=… prio=…`, JSON.stringify(body.slice(0, 100)));
      around.push({ line: i + 1, cpu, tsNs: ts, pid: ctxPid, kind: event === "sched_waking" ? "waking" : "wakeup", target: w[1]!, targetPid: Number(w[2]), targetPrio: Number(w[3]), ...(w[4] !== undefined ? { targetCpu: Number(w[4]) } : {}) });
      continue;
    }
    if (event === "local_timer_entry" || event === "reschedule_entry") {
      around.push({ line: i + 1, cpu, tsNs: ts, pid: ctxPid, kind: event === "local_timer_entry" ? "timer-irq" : "resched-ipi" });
      continue;
    }
    if (event === "hrtimer_expire_entry") {
      const f = /function=(\S+)/.exec(body);
      around.push({ line: i + 1, cpu, tsNs: ts, pid: ctxPid, kind: "hrtimer", target: f ? f[1]!.replace(/\/0x[0-9a-f]+$/, "").replace(/\+0x[0-9a-f]+$/, "") : "?" });
      continue;
    }
    if (event === "page_fault_user") {
      const a = /address=(\S+)/.exec(body);
      around.push({ line: i + 1, cpu, tsNs: ts, pid: ctxPid, kind: "fault-user", target: a ? a[1]! : "?" });
      continue;
    }
    // other events are allowed and ignored
  }
  closeStack();
  return { file, minLogNs: Number(minLog[1]), workers, holds, switches, slice, lostEvents, sliceTracepoints, resched, around };
}

const KERNEL_PREEMPT = new Set(["preempt_schedule_irq", "preempt_schedule", "preempt_schedule_common", "preempt_schedule_notrace", "__cond_resched", "_cond_resched", "preempt_schedule_thunk", "__preempt_schedule"]);
const FAULT_FRAMES = new Set(["exc_page_fault", "asm_exc_page_fault", "do_user_addr_fault", "handle_mm_fault", "__handle_mm_fault"]);
const SYSCALL_FRAMES = new Set(["do_syscall_64", "entry_SYSCALL_64_after_hwframe", "entry_SYSCALL_64", "syscall_exit_to_user_mode"]);

/** The class of one switch away from a worker, from its state and kernel stack. */
export function classifySwitch(ev: Pick<SwitchEvent, "prevState" | "stack">): DeschedClass {
  const preempted = ev.prevState === "R" || ev.prevState === "R+";
  if (!preempted) return "voluntary";
  if (!ev.stack || ev.stack.length === 0) return "unclassified";
  const inKernel = ev.stack.some((f) => KERNEL_PREEMPT.has(f));
  const inFault = ev.stack.some((f) => FAULT_FRAMES.has(f));
  if (inKernel) return inFault ? "kernel-fault" : "kernel-other";
  if (!ev.stack.includes("schedule")) return "unclassified";
  if (inFault) return "return-fault";
  if (ev.stack.some((f) => SYSCALL_FRAMES.has(f))) return "return-syscall";
  return "return-interrupt";
}

export interface HoldDesched {
  tid: number;
  startNs: number;
  endNs: number;
  flags: number;
  /** Classes of the deschedulings inside this hold, in order. */
  classes: DeschedClass[];
  /** Whether prev_state was R+ at the first one (the kernel's own "preempted" mark). */
  firstPreemptMark: boolean;
  /** rseq_slice_grant events of this tid during the hold (null without the tracepoints). */
  grantsInHold: number | null;
}

export interface HolderTraceSummary {
  holds: number;
  holdsLogged: number;
  logLost: number;
  /** Holds with at least one descheduling. */
  deschedHolds: number;
  /** Holds by the class of their first descheduling. */
  firstByClass: Record<DeschedClass, number>;
  /** All deschedulings inside holds, by class. */
  allByClass: Record<DeschedClass, number>;
  /** Holds whose first descheduling was classified from R+ (in-kernel preemption) — a cross-check of the stack rule. */
  preemptMarkAgreement: { agree: number; disagree: number };
  /** Logged holds whose release found granted set (the grant covered the hold's end). */
  coveredLogged: number;
  /** rseq_slice_grant events inside descheduled holds (null without the tracepoints). */
  grantsInDeschedHolds: number | null;
  switchesOutOfWorkers: number;
  switchesWithoutStack: number;
  lostEvents: number;
}

function emptyCounts(): Record<DeschedClass, number> {
  return Object.fromEntries(DESCHED_CLASSES.map((c) => [c, 0])) as Record<DeschedClass, number>;
}

/** Deschedulings per hold: the holder's off-CPU intervals whose switch back in falls in a hold. */
export function holdDeschedulings(t: HolderTrace): HoldDesched[] {
  const out: HoldDesched[] = [];
  for (const w of t.workers) {
    const holds = t.holds.filter((h) => h.tid === w.tid).sort((a, b) => a.startNs - b.startNs);
    const sw = t.switches.filter((s) => s.prevPid === w.tid || s.nextPid === w.tid).sort((a, b) => a.tsNs - b.tsNs || a.line - b.line);
    const grants = t.slice.filter((s) => s.kind === "grant" && s.pid === w.tid).map((s) => s.tsNs).sort((a, b) => a - b);
    let lastOut: SwitchEvent | null = null;
    let hi = 0;
    const byHold = new Map<number, HoldDesched>();
    for (const s of sw) {
      if (s.prevPid === w.tid) {
        lastOut = s;
        continue;
      }
      if (s.nextPid !== w.tid || lastOut === null) continue;
      const back = s.tsNs;
      while (hi < holds.length && holds[hi]!.endNs < back) hi++;
      const h = holds[hi];
      if (h && h.startNs <= back && back <= h.endNs && lastOut.tsNs <= h.endNs) {
        let d = byHold.get(hi);
        if (!d) {
          const gIn = t.sliceTracepoints ? grants.filter((g) => g >= h.startNs - 1000 && g <= h.endNs).length : null;
          d = { tid: w.tid, startNs: h.startNs, endNs: h.endNs, flags: h.flags, classes: [], firstPreemptMark: lastOut.prevState === "R+", grantsInHold: gIn };
          byHold.set(hi, d);
          out.push(d);
        }
        d.classes.push(classifySwitch(lastOut));
      }
      lastOut = null;
    }
  }
  return out;
}

/** Counts of one holder trace (one run). */
export function summariseHolderTrace(t: HolderTrace): HolderTraceSummary {
  const d = holdDeschedulings(t);
  const firstByClass = emptyCounts();
  const allByClass = emptyCounts();
  let agree = 0;
  let disagree = 0;
  for (const h of d) {
    const first = h.classes[0]!;
    firstByClass[first]++;
    for (const c of h.classes) allByClass[c]++;
    if (first.startsWith("kernel") || first.startsWith("return")) {
      if (first.startsWith("kernel") === h.firstPreemptMark) agree++;
      else disagree++;
    }
  }
  const workerTids = new Set(t.workers.map((w) => w.tid));
  const outs = t.switches.filter((s) => workerTids.has(s.prevPid));
  return {
    holds: t.workers.reduce((a, w) => a + w.holds, 0),
    holdsLogged: t.holds.length,
    logLost: t.workers.reduce((a, w) => a + w.lost, 0),
    deschedHolds: d.length,
    firstByClass,
    allByClass,
    preemptMarkAgreement: { agree, disagree },
    coveredLogged: t.holds.filter((h) => (h.flags & HOLD_GRANTED) !== 0).length,
    grantsInDeschedHolds: t.sliceTracepoints ? d.reduce((a, h) => a + (h.grantsInHold ?? 0), 0) : null,
    switchesOutOfWorkers: outs.length,
    switchesWithoutStack: outs.filter((s) => s.stack === null).length,
    lostEvents: t.lostEvents,
  };
}

/** `slicelab parse holder-trace FILE`: one record per hold that was descheduled. */
export const holderTraceFormat = {
  name: "holder-trace",
  description: "lock-holder trace (slicelab mechanism): micro hold log + tracefs sched_switch with stack traces; one row per descheduled hold",
  detect: (text: string) => text.startsWith(HOLD_LOG_HEADER),
  parse: (text: string, file: string) =>
    holdDeschedulings(parseHolderTrace(text, file)).map((h) => ({
      file, tid: h.tid, startNs: h.startNs, holdNs: h.endNs - h.startNs, first: h.classes[0], deschedulings: h.classes.length,
      classes: h.classes.join(","), granted: (h.flags & HOLD_GRANTED) !== 0, touched: (h.flags & HOLD_TOUCHED) !== 0, grantsInHold: h.grantsInHold,
    })),
};

// ---- issue 26: what set each reschedule ----
//
// Every request reaches __resched_curr (kernel/sched/core.c:1196), which sets
// TIF_NEED_RESCHED or TIF_NEED_RESCHED_LAZY on rq->curr and returns early when
// that bit (or NEED_RESCHED) is already set. Its callers: resched_curr
// (core.c:1242, always NEED_RESCHED), resched_curr_lazy (core.c:1268, the lazy
// bit when the dynamic mode is lazy, else NEED_RESCHED) and, inlined,
// sched_tick's escalation of a pending lazy request (core.c:5811-5812) and
// wakeup_preempt's class-above case (core.c:2301-2303). In-kernel preemption
// (irqentry_exit → preempt_schedule_irq) acts on NEED_RESCHED only; the exit
// to user space acts on either bit.

export type ReschedCause =
  | "hrtick"
  | "tick"
  | "tick-escalation"
  | "wakeup-rt-or-kthread"
  | "wakeup-preemption"
  | "hrtimer"
  | "other"
  | "unattributed";

export const RESCHED_CAUSES: readonly ReschedCause[] = ["hrtick", "tick", "tick-escalation", "wakeup-rt-or-kthread", "wakeup-preemption", "hrtimer", "other", "unattributed"];

/** Where the holder was when the deciding request was made. */
export type HolderWhere = "user" | "fault" | "syscall" | "kernel" | "unknown";

export interface Attribution {
  tid: number;
  holdStartNs: number;
  cls: DeschedClass;
  cause: ReschedCause;
  /** The bit the deciding request set. */
  bit: "full" | "lazy" | null;
  /** For a tick escalation or another full request after a lazy one: the cause of the lazy request it followed. */
  lazyOrigin: ReschedCause | null;
  where: HolderWhere;
  /** Time from the deciding request to the switch (µs resolution). */
  requestToSwitchNs: number | null;
  /** Whether a user page fault of the holder began between its switch in and the deciding request. */
  faultBeforeRequest: boolean;
  /** Line of the deciding __resched_curr event. */
  requestLine: number | null;
}

const KTHREAD_COMM = /^(kworker|ksoftirqd|rcu_|rcuc|rcuog|rcuop|migration|kcompactd|khugepaged|kswapd|watchdog|cpuhp|kthreadd|oom_reaper|kauditd|khungtaskd|kblockd|writeback|jbd2|irq\/|idle_inject|kintegrityd|ksmd|kdevtmpfs|9p|scsi_|ext4|pool_workqueue)/;
/** The assembly entry of a hardware interrupt: frames after it are the interrupted context (none when it came from user space). */
const IRQ_ENTRY = /^(asm_sysvec_|asm_common_interrupt)/;

/** The request's bit: resched_curr_lazy sets the lazy bit only when the mode is lazy. */
export function requestBit(ev: Pick<ReschedEvent, "parent">, mode: string): "full" | "lazy" {
  return ev.parent === "resched_curr_lazy" && mode === "lazy" ? "lazy" : "full";
}

/** Where the task was when the request was made: the frames outside the interrupt (or the task's own frames). */
export function holderWhere(ev: Pick<ReschedEvent, "stack" | "hardirq">): HolderWhere {
  if (!ev.stack || ev.stack.length === 0) return "unknown";
  let outer = ev.stack;
  if (ev.hardirq) {
    const k = ev.stack.findIndex((f) => IRQ_ENTRY.test(f));
    if (k < 0) return "unknown";
    outer = ev.stack.slice(k + 1);
    if (outer.length === 0) return "user";
  }
  if (outer.some((f) => FAULT_FRAMES.has(f))) return "fault";
  if (outer.some((f) => SYSCALL_FRAMES.has(f))) return "syscall";
  return "kernel";
}

/**
 * The cause of one request, from its caller and stack, and from the last
 * wakeup recorded before it on its CPU (for a wakeup: the woken task's prio
 * and comm say RT or kernel thread).
 */
export function requestCause(ev: Pick<ReschedEvent, "parent" | "stack">, woken: Pick<AroundEvent, "target" | "targetPrio"> | null): ReschedCause {
  const st = ev.stack ?? [];
  const has = (f: string) => ev.parent === f || st.includes(f);
  if (has("hrtick")) return "hrtick";
  if (ev.parent === "sched_tick") return "tick-escalation";
  if (has("sched_tick")) return "tick";
  if (isWakeupRequest(ev)) {
    if (woken && ((woken.targetPrio ?? 120) < 100 || KTHREAD_COMM.test(woken.target ?? ""))) return "wakeup-rt-or-kthread";
    return "wakeup-preemption";
  }
  if (has("__hrtimer_run_queues") || has("hrtimer_interrupt")) return "hrtimer";
  return "other";
}

function isWakeupRequest(ev: Pick<ReschedEvent, "parent" | "stack">): boolean {
  const st = ev.stack ?? [];
  return ["try_to_wake_up", "wakeup_preempt", "ttwu_do_activate", "wake_up_new_task", "wakeup_preempt_fair", "sched_ttwu_pending"].some((f) => ev.parent === f || st.includes(f));
}

/** Every descheduling inside a hold, with the cause of the request it acted on (needs --attribute). */
export function attributeDeschedulings(t: HolderTrace, mode: string): Attribution[] {
  const out: Attribution[] = [];
  const byCpuResched = new Map<number, ReschedEvent[]>();
  for (const r of t.resched) (byCpuResched.get(r.cpu) ?? byCpuResched.set(r.cpu, []).get(r.cpu)!).push(r);
  const wakes = new Map<number, AroundEvent[]>();
  for (const a of t.around) if (a.kind === "waking") (wakes.get(a.cpu) ?? wakes.set(a.cpu, []).get(a.cpu)!).push(a);
  const faults = t.around.filter((a) => a.kind === "fault-user");
  const lastWakeBefore = (cpu: number, line: number): AroundEvent | null => {
    const xs = wakes.get(cpu) ?? [];
    let best: AroundEvent | null = null;
    for (const x of xs) if (x.line < line) best = x; else break;
    return best;
  };
  for (const w of t.workers) {
    const holds = t.holds.filter((h) => h.tid === w.tid).sort((a, b) => a.startNs - b.startNs);
    const sw = t.switches.filter((s) => s.prevPid === w.tid || s.nextPid === w.tid).sort((a, b) => a.line - b.line);
    let lastIn: SwitchEvent | null = null;
    let lastOut: SwitchEvent | null = null;
    let inBeforeOut: SwitchEvent | null = null;
    let hi = 0;
    for (const s of sw) {
      if (s.prevPid === w.tid) {
        lastOut = s;
        inBeforeOut = lastIn;
        continue;
      }
      if (s.nextPid !== w.tid) continue;
      const back = s.tsNs;
      if (lastOut !== null) {
        while (hi < holds.length && holds[hi]!.endNs < back) hi++;
        const h = holds[hi];
        if (h && h.startNs <= back && back <= h.endNs && lastOut.tsNs <= h.endNs) {
          const cls = classifySwitch(lastOut);
          const from = inBeforeOut && inBeforeOut.cpu === lastOut.cpu ? inBeforeOut.line : -1;
          const fromTs = inBeforeOut && inBeforeOut.cpu === lastOut.cpu ? inBeforeOut.tsNs : -Infinity;
          const cpu = lastOut.cpu;
          const wakeTarget = (r: ReschedEvent) => {
            const wk = lastWakeBefore(r.cpu, r.line);
            return isWakeupRequest(r) && wk && wk.targetCpu !== undefined ? wk.targetCpu : r.cpu;
          };
          const local = (byCpuResched.get(cpu) ?? []).filter((r) => r.line > from && r.line < lastOut!.line && wakeTarget(r) === cpu);
          const remote = [...byCpuResched].filter(([c]) => c !== cpu).flatMap(([, xs]) => xs.filter((r) => r.tsNs >= fromTs && r.tsNs <= lastOut!.tsNs && isWakeupRequest(r) && wakeTarget(r) === cpu));
          const reqs = [...local, ...remote].sort((a, b) => a.tsNs - b.tsNs || a.line - b.line);
          let full: ReschedEvent | null = null;
          let lazy: ReschedEvent | null = null;
          for (const r of reqs) {
            if (full) break;
            const bit = requestBit(r, mode);
            if (bit === "full") full = r;
            else if (!lazy) lazy = r;
          }
          let decide: ReschedEvent | null = null;
          if (cls === "kernel-fault" || cls === "kernel-other") decide = full;
          else if (cls.startsWith("return")) decide = lazy && (!full || lazy.line < full.line) ? lazy : full;
          const causeOf = (r: ReschedEvent) => requestCause(r, lastWakeBefore(r.cpu, r.line));
          const cause: ReschedCause = cls === "voluntary" || cls === "unclassified" ? "unattributed" : decide ? causeOf(decide) : from < 0 ? "unattributed" : "unattributed";
          const lazyOrigin = decide && decide === full && lazy && lazy.line < full.line ? causeOf(lazy) : null;
          out.push({
            tid: w.tid,
            holdStartNs: h.startNs,
            cls,
            cause,
            bit: decide ? requestBit(decide, mode) : null,
            lazyOrigin,
            where: decide ? holderWhere(decide) : "unknown",
            requestToSwitchNs: decide ? lastOut.tsNs - decide.tsNs : null,
            faultBeforeRequest: decide ? faults.some((f) => f.pid === w.tid && f.line > from && f.line < decide!.line) : false,
            requestLine: decide ? decide.line : null,
          });
        }
      }
      lastIn = s;
      lastOut = null;
    }
  }
  return out;
}

export type CauseCounts = Record<"inKernel" | "atReturn", Record<ReschedCause, number>>;

/** Counts of causes for in-kernel and at-return deschedulings (every descheduling in a hold, not only the first). */
export function countCauses(a: Attribution[]): CauseCounts {
  const z = () => Object.fromEntries(RESCHED_CAUSES.map((c) => [c, 0])) as Record<ReschedCause, number>;
  const out: CauseCounts = { inKernel: z(), atReturn: z() };
  for (const x of a) {
    if (x.cls === "kernel-fault" || x.cls === "kernel-other") out.inKernel[x.cause]++;
    else if (x.cls.startsWith("return")) out.atReturn[x.cause]++;
  }
  return out;
}

/** How the (emulated) machine delivered timers in a trace: hrtimer expiries by callback, and the spacing of the periodic tick. */
export function timerSummary(t: HolderTrace): { hrtimerByFunction: Record<string, number>; timerIrqs: number; reschedIpis: number; tickIntervalMedianNs: number | null; tickIntervalP90Ns: number | null } {
  const by: Record<string, number> = {};
  const ticks: number[] = [];
  let timerIrqs = 0;
  let ipis = 0;
  for (const a of t.around) {
    if (a.kind === "hrtimer") {
      const f = a.target ?? "?";
      by[f] = (by[f] ?? 0) + 1;
      if (f === "tick_nohz_handler" || f === "tick_sched_timer") ticks.push(a.tsNs);
    } else if (a.kind === "timer-irq") timerIrqs++;
    else if (a.kind === "resched-ipi") ipis++;
  }
  ticks.sort((a, b) => a - b);
  const gaps = ticks.slice(1).map((x, i) => x - ticks[i]!).sort((a, b) => a - b);
  const q = (p: number) => (gaps.length ? gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))]! : null);
  return { hrtimerByFunction: by, timerIrqs, reschedIpis: ipis, tickIntervalMedianNs: q(0.5), tickIntervalP90Ns: q(0.9) };
}
