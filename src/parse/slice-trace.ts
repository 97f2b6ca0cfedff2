/**
 * Kernel trace text of the rseq time-slice extension: our tracepoints
 * (kernel-patches/linux/series/slicelab: rseq_slice_grant, rseq_slice_expire,
 * rseq_slice_end, rseq_slice_revoke) together with the hrtimer events of the
 * enforcement timer (hrtimer_start, hrtimer_cancel, hrtimer_expire_entry,
 * hrtimer_start_expired; the timer's callback is rseq_slice_expired() in
 * kernel/rseq.c), as printed by tracefs (`/sys/kernel/tracing/trace`) or by
 * `trace-cmd report` (with `-t`: nanosecond timestamps).
 *
 * An event line, in both printers:
 *
 *   lhp-191   [001] d..2.  25.123456789: rseq_slice_grant: pid=191 granted_ns=4711 slice_ns=5000
 *   COMM-TID  [CPU] FLAGS  SECONDS:       EVENT:            key=value …
 *
 * (FLAGS is absent from trace-cmd's default output; tracefs with the tgid option
 * adds `(TGID)` after COMM-TID.) Header lines (`#`, `cpus=N`, `CPU N is empty`,
 * buffer-start and lost-event notes, and the column legend of the tracefs header
 * with its `#` marks gone, as `git commit` strips them from a commit message) are
 * skipped. Also read, as other events (counted by name): syscall events
 * (`sys_read(fd: 3)`, `sys_read -> 0x5`), function-tracer entries (`FUNC <-PARENT`,
 * counted as `function`, the name of ftrace's own event), and the latency format
 * (`options/latency-format`: `COMM-PID CPU+FLAGS TIMEus : EVENT: …`, µs since the
 * buffer start), with the wakeup tracers' own wakeup (`0:120:R + [002] 5882: 94:R sleep`)
 * and context-switch (`… ==> …`) entries, counted as `wakeup` and `context_switch`. The `=> FUNC` lines of a stack trace are part of the
 * kernel_stack/user_stack event before them. Mail artefacts are undone: quoting
 * (`> `, `>>> `) is removed, and a line that format=flowed mail (RFC 3676) broke
 * after a space is joined to its continuation on the next line. Any other line is
 * an error.
 *
 * The parse gives the events; analyseSliceTrace() turns them into grants and
 * their durations two ways, on the same run:
 *
 *  - tracepoints: a grant (rseq_slice_grant, on the way out to user space with
 *    the grant) ends with rseq_slice_end (a syscall: yield=1 rseq_slice_yield,
 *    yield=0 any other), or rseq_slice_revoke (the kernel cleared it), where an
 *    rseq_slice_expire before the revoke marks the grant as expired. The
 *    duration is the kernel's own held_ns (ns since the grant).
 *  - hrtimer method (what can be done on an unpatched kernel): an interval of
 *    the per-CPU enforcement timer from hrtimer_start to the next
 *    hrtimer_cancel (the syscall entry cancels it), hrtimer_expire_entry (it
 *    fired), a restart of the armed timer, or hrtimer_start_expired, measured
 *    with the trace timestamps.
 *
 * Both are matched grant by grant (the grant tracepoint fires just before the
 * timer is started, on the same CPU, by the same task), so their disagreement
 * can be counted and explained.
 */
import { quantileSorted } from "../stats/bootstrap.js";
import type { ParserFormat } from "./formats.js";
import { ParseError, quoteFound } from "../util/errors.js";
import { splitLines, unquote } from "./text.js";

/** Our tracepoints (kernel-patches/linux/series/slicelab). */
export const SLICE_TRACE_EVENTS = ["rseq_slice_grant", "rseq_slice_expire", "rseq_slice_end", "rseq_slice_revoke"] as const;
/** The hrtimer events of the upstream (indirect) method. */
export const HRTIMER_TRACE_EVENTS = ["hrtimer_start", "hrtimer_cancel", "hrtimer_expire_entry", "hrtimer_start_expired"] as const;
/** The enforcement timer's callback (kernel/rseq.c): how its hrtimer events are recognised. */
export const SLICE_TIMER_FUNCTION = "rseq_slice_expired";

export type SliceTraceEvent =
  | { kind: "grant"; pid: number; grantedNs: number; sliceNs: number }
  | { kind: "expire"; pid: number; overNs: number; late: boolean }
  | { kind: "end"; pid: number; syscall: number; yield: boolean; heldNs: number }
  | { kind: "revoke"; pid: number; heldNs: number; sched: boolean }
  | { kind: "timer-start"; hrtimer: string; fn: string; expiresNs: number | null; wasArmed: boolean | null }
  | { kind: "timer-cancel"; hrtimer: string }
  | { kind: "timer-expire"; hrtimer: string; fn: string; nowNs: number | null }
  | { kind: "timer-start-expired"; hrtimer: string };

export interface TraceRecord {
  /** 1-based line number in the file. */
  line: number;
  comm: string;
  /** The task that was running (the trace line's COMM-TID). */
  tid: number;
  cpu: number;
  /** Trace timestamp in ns (resolution: see SliceTrace.resolutionNs). */
  tsNs: number;
  event: SliceTraceEvent;
}

export interface SliceTrace {
  file: string;
  records: TraceRecord[];
  /** Event lines of other events (counted, not used). */
  otherEvents: number;
  /** Those lines by event name (`sched_switch`, `rseq_update`, `sys_epoll_wait`, …), in order of first appearance. */
  otherEventNames: Record<string, number>;
  /** Events the ring buffer dropped, from `LOST n EVENTS` notes. */
  lostEvents: number;
  /** Timestamp resolution of the text: 1000 for tracefs (µs), 1 for `trace-cmd report -t`. */
  resolutionNs: number;
  /**
   * Lines (1-based) that continued the event line before them after a format=flowed
   * soft break (the line before ended in a space): joined to it, read as one event
   * at the first line's number.
   */
  joinedLines: number[];
}

/**
 * COMM-TID [CPU] FLAGS SECONDS: then the event (see eventTail); trace-cmd report
 * prints no FLAGS by default, tracefs with the tgid option adds `(TGID)`.
 */
const EVENT_LINE = /^\s*(.*)-(\d+)\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[(\d+)\]\s+(?:([.A-Za-z0-9]{4,6})\s+)?(\d+)\.(\d+):\s+(.*)$/;
/**
 * The latency format (tracefs `options/latency-format`, and the latency tracers):
 * COMM-PID, the CPU number run into the flags (`1dn.h111`: CPU 1, irqs off, …),
 * µs since the buffer started, a delay mark (` `, `+`, `!`, `#`, `*`, `@`, `$`), `:`.
 */
const LATENCY_LINE = /^\s*(.*)-(\d+)\s+(\d+)([dDX.][.A-Za-z0-9]{2,7})\s+(\d+)us[ !#$*@+]?:\s+(.*)$/;

/**
 * What follows the timestamp: `name: fields` for trace events; the syscalls events
 * print without the colon, `sys_read(fd: 3, …)` on entry and `sys_read -> 0x5` on
 * exit; a function-tracer entry is `FUNC <-PARENT` (ftrace's event `function`).
 */
function eventTail(tail: string): { name: string; rest: string } | null {
  let m = /^([A-Za-z_][A-Za-z0-9_]*):\s*(.*)$/.exec(tail);
  if (m) return { name: m[1]!, rest: m[2]! };
  m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\s+->\s+(?:0x[0-9a-fA-F]+|-?\d+)|\(.*\))$/.exec(tail);
  if (m) return { name: m[1]!, rest: "" };
  if (/^[A-Za-z_.$][A-Za-z0-9_.$]*(?:\+0x[0-9a-fA-F]+\/0x[0-9a-fA-F]+)?\s+<-\S+$/.test(tail)) return { name: "function", rest: tail };
  // The wakeup/sched_switch tracers' own entries, `PID:PRIO:STATE + [CPU] PID:PRIO:STATE COMM`
  // (a wakeup) and `… ==> …` (a context switch): ftrace's events `wakeup` and `context_switch`.
  const ctx = /^(\d+):\s*(\d+):([A-Za-z+]+)\s+(\+|==>)\s+\[(\d+)\]\s+(\d+):\s*(\d+):([A-Za-z+]+)\s+\S.*$/.exec(tail);
  if (ctx) return { name: ctx[4] === "+" ? "wakeup" : "context_switch", rest: tail };
  return null;
}

/** One line as an event line: the common fields and the event, or null. */
function eventLine(t: string): { comm: string; tid: string; cpu: string; sec: string; frac: string; latency: boolean; name: string; rest: string } | null {
  const m = EVENT_LINE.exec(t);
  if (m) {
    const e = eventTail(m[7]!);
    if (e) return { comm: m[1]!, tid: m[2]!, cpu: m[3]!, sec: m[5]!, frac: m[6]!, latency: false, ...e };
  }
  const l = LATENCY_LINE.exec(t);
  if (l) {
    const e = eventTail(l[6]!);
    if (e) return { comm: l[1]!, tid: l[2]!, cpu: l[3]!, sec: l[5]!, frac: "", latency: true, ...e };
  }
  return null;
}

const SKIP: RegExp[] = [
  /^\s*$/,
  /^\s*#/,
  /^cpus=\d+\s*$/,
  /^\s*CPU \d+ is empty\s*$/,
  /^\s*version = \d+\s*$/,
  /^\s*trace-cmd: /,
];
/**
 * The column legend of the tracefs header without its `#` marks (a commit message
 * loses them: `git commit` drops lines starting with `#`):
 *   `_-----=> irqs-off`, `/ _----=> need-resched`, `||| /     delay`,
 *   `TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION`, `| |       |   ||||       |         |`.
 */
const LEGEND: RegExp[] = [/^\s*[|/ ]*_-*=> [a-z][a-z/ #-]*$/, /^\s*\|*\s*\/\s+delay\s*$/, /^\s*TASK-PID\s+(?:TGID\s+)?CPU#\s+\|*\s+TIMESTAMP\s+FUNCTION\s*$/, /^[ |]*\|[ |]*$/];
/** A frame of a kernel_stack / user_stack event, on the lines after it. */
const STACK_FRAME = /^\s*=>\s+\S/;
const STACK_EVENTS = new Set(["kernel_stack", "user_stack"]);
const LOST = [/^\s*CPU:\s*\d+\s+\[LOST (\d+) EVENTS\]\s*$/, /^\s*CPU \d+ \[LOST (\d+) EVENTS\]\s*$/];
const BUFFER_STARTED = /^#+ CPU \d+ buffer started #+\s*$/;

function fieldsOf(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const tok of text.trim().split(/\s+/)) {
    const i = tok.indexOf("=");
    if (i > 0) m.set(tok.slice(0, i), tok.slice(i + 1));
  }
  return m;
}

/** Parses one event's fields; throws ParseError naming the first missing or malformed one. */
function eventOf(name: string, rest: string, file: string, line: number, raw: string): SliceTraceEvent | null {
  const f = fieldsOf(rest);
  const int = (key: string): number => {
    const v = f.get(key);
    if (v === undefined || !/^-?\d+$/.test(v)) {
      throw new ParseError(file, line, `${name} with an integer field ${key}=`, v === undefined ? `no ${key} in ${quoteFound(raw)}` : `${key}=${JSON.stringify(v)}`);
    }
    return Number(v);
  };
  const flag = (key: string): boolean => {
    const v = int(key);
    if (v !== 0 && v !== 1) throw new ParseError(file, line, `${name} with ${key}=0 or ${key}=1`, `${key}=${v}`);
    return v === 1;
  };
  const str = (key: string): string => {
    const v = f.get(key);
    if (v === undefined || v === "") throw new ParseError(file, line, `${name} with a field ${key}=`, `no ${key} in ${quoteFound(raw)}`);
    return v;
  };
  const optInt = (key: string): number | null => (f.has(key) ? int(key) : null);
  switch (name) {
    case "rseq_slice_grant":
      return { kind: "grant", pid: int("pid"), grantedNs: int("granted_ns"), sliceNs: int("slice_ns") };
    case "rseq_slice_expire":
      return { kind: "expire", pid: int("pid"), overNs: int("over_ns"), late: flag("late") };
    case "rseq_slice_end":
      return { kind: "end", pid: int("pid"), syscall: int("syscall"), yield: flag("yield"), heldNs: int("held_ns") };
    case "rseq_slice_revoke":
      return { kind: "revoke", pid: int("pid"), heldNs: int("held_ns"), sched: flag("sched") };
    case "hrtimer_start": {
      const wa = f.has("was_armed") ? flag("was_armed") : null;
      return { kind: "timer-start", hrtimer: str("hrtimer"), fn: str("function"), expiresNs: optInt("expires"), wasArmed: wa };
    }
    case "hrtimer_cancel":
      return { kind: "timer-cancel", hrtimer: str("hrtimer") };
    case "hrtimer_expire_entry":
      return { kind: "timer-expire", hrtimer: str("hrtimer"), fn: str("function"), nowNs: optInt("now") };
    case "hrtimer_start_expired":
      return { kind: "timer-start-expired", hrtimer: str("hrtimer") };
    default:
      return null;
  }
}

/** Quick check for `slicelab parse auto`: an rseq_slice_* event line. */
export function detectSliceTrace(text: string): boolean {
  return /^\s*\S.*-\d+\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[\d+\].*\d+\.\d+:\s+rseq_slice_(?:grant|expire|end|revoke):/m.test(text);
}

/** How many `>` quote marks a mail line carries. */
function quoteDepth(raw: string): number {
  const m = /^(?:[ \t]*>)+/.exec(raw);
  return m ? m[0].replace(/[^>]/g, "").length : 0;
}

/** A line the parser reads on its own (event, header, legend, note or stack frame). */
function readableLine(t: string): boolean {
  return eventLine(t) !== null || BUFFER_STARTED.test(t) || SKIP.some((re) => re.test(t)) || LEGEND.some((re) => re.test(t)) || LOST.some((re) => re.test(t)) || STACK_FRAME.test(t);
}

/** Parses tracefs / trace-cmd report text; throws ParseError (FILE:LINE) on a line it cannot read. */
export function parseSliceTrace(text: string, file: string): SliceTrace {
  const records: TraceRecord[] = [];
  let otherEvents = 0;
  const otherEventNames: Record<string, number> = {};
  let lostEvents = 0;
  let fracDigits = 0;
  let prevTs = -Infinity;
  const raws = splitLines(text);
  const lines = raws.map(unquote);
  // format=flowed (RFC 3676): a line ending in a space was broken by the mailer and
  // goes on at the next line of the same quote depth. Joined only where the first
  // part is an event line, the next line cannot be read on its own, and the two
  // together make an event line.
  const joinedLines: number[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const t = lines[i]!;
    const next = lines[i + 1]!;
    if (!t.endsWith(" ") || next.trim() === "" || quoteDepth(raws[i]!) !== quoteDepth(raws[i + 1]!)) continue;
    if (eventLine(t) === null || readableLine(next) || eventLine(t + next) === null) continue;
    lines[i] = t + next;
    lines[i + 1] = "";
    joinedLines.push(i + 2);
    i++;
  }
  let inStack = false;
  lines.forEach((t, i) => {
    const line = i + 1;
    const raw = raws[i]!;
    const lost = LOST.map((re) => re.exec(t)).find((m) => m !== null);
    if (lost) {
      lostEvents += Number(lost[1]);
      return;
    }
    if (BUFFER_STARTED.test(t) || SKIP.some((re) => re.test(t)) || LEGEND.some((re) => re.test(t))) return;
    if (inStack && STACK_FRAME.test(t)) return;
    const m = eventLine(t);
    if (!m) throw new ParseError(file, line, "a trace event line (COMM-TID [CPU] SECONDS: EVENT: fields) or a header", quoteFound(raw));
    const { comm, tid, cpu, sec, frac, latency, name, rest } = m;
    inStack = STACK_EVENTS.has(name);
    let tsNs: number;
    if (latency) {
      // µs since the buffer started
      fracDigits = Math.max(fracDigits, 6);
      tsNs = Number(sec) * 1000;
    } else {
      if (frac.length > 9) throw new ParseError(file, line, "a timestamp with at most 9 decimals", JSON.stringify(`${sec}.${frac}`));
      fracDigits = Math.max(fracDigits, frac.length);
      tsNs = Number(sec) * 1e9 + Number(frac.padEnd(9, "0"));
    }
    if (!Number.isSafeInteger(tsNs)) throw new ParseError(file, line, "a timestamp below 2^53 ns", JSON.stringify(latency ? `${sec}us` : `${sec}.${frac}`));
    const event = eventOf(name, rest, file, line, raw);
    if (event === null) {
      otherEvents++;
      otherEventNames[name] = (otherEventNames[name] ?? 0) + 1;
      return;
    }
    if (tsNs < prevTs) {
      throw new ParseError(file, line, `events in time order (the printers merge the per-CPU buffers by time)`, `${latency ? `${sec}us` : `${sec}.${frac}`} after an event at ${(prevTs / 1e9).toFixed(9)}`);
    }
    prevTs = tsNs;
    records.push({ line, comm: comm.trim(), tid: Number(tid), cpu: Number(cpu), tsNs, event });
  });
  return { file, records, otherEvents, otherEventNames, lostEvents, resolutionNs: fracDigits === 0 ? 1e9 : 10 ** (9 - fracDigits), joinedLines };
}

/** How a grant ended, seen by our tracepoints. */
export type GrantOutcome =
  | "yield" // rseq_slice_yield(2): rseq_slice_end yield=1
  | "abort" // another syscall: rseq_slice_end yield=0
  | "expired" // the enforcement timer fired (rseq_slice_expire), then the kernel revoked the grant
  | "expired-in-syscall" // the timer fired after the task had entered a syscall, before that syscall ended the grant
  | "revoked" // the kernel revoked it on the way out to user space (rescheduling due), no expiry
  | "revoked-after-switch" // revoked when the task came back after being scheduled out
  | "expired-before-user" // expired before the task got back to user space (no timer armed)
  | "revoked-before-user" // revoked before the timer was armed (no rseq_slice_grant event)
  | "open"; // the trace ended before the grant did

export interface Grant {
  pid: number;
  cpu: number;
  /** Line of the event that opened the grant. */
  line: number;
  /** Timestamp of rseq_slice_grant (timer armed, back to user space); null for grants that never got there. */
  armTsNs: number | null;
  /** What was left of the grant at armTs, and the configured length (from rseq_slice_grant). */
  grantedNs: number | null;
  sliceNs: number | null;
  outcome: GrantOutcome;
  /**
   * Kernel-measured ns from the grant to the first event that ended it: held_ns of
   * rseq_slice_end or rseq_slice_revoke, or slice + over_ns of rseq_slice_expire.
   * For "revoked-after-switch" it includes the time the task was off the CPU.
   */
  durationNs: number | null;
  /** For expired grants: held_ns when the kernel then cleared the grant (rseq_slice_revoke). */
  clearedAfterNs: number | null;
  endTsNs: number | null;
  endLine: number | null;
  /** Index of the matching enforcement-timer interval, if any. */
  timer: number | null;
}

export type TimerOutcome = "cancelled" | "expired" | "restarted" | "start-expired" | "open";

export interface TimerInterval {
  /** The task that started the timer, the CPU and the timer (pointer as printed). */
  pid: number;
  cpu: number;
  hrtimer: string;
  line: number;
  startTsNs: number;
  expiresNs: number | null;
  outcome: TimerOutcome;
  /** Trace-timestamp ns from hrtimer_start to the event that ended the interval. */
  durationNs: number | null;
  /**
   * The same end measured from the grant the timer's deadline implies,
   * expires − slice (needs the mono trace clock and the slice length).
   */
  sinceDeadlineGrantNs: number | null;
  endTsNs: number | null;
  /** Index of the matching grant, if any. */
  grant: number | null;
}

export interface DurationSummary {
  n: number;
  mean: number | null;
  min: number | null;
  p10: number | null;
  p25: number | null;
  median: number | null;
  p75: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

export interface HistogramBin {
  /** [loNs, hiNs); hiNs null for the last, open bin. */
  loNs: number;
  hiNs: number | null;
  count: number;
}

export interface Disagreement {
  /** ours/hrtimer outcome pair, e.g. "revoked/expired". */
  pair: string;
  /** What the pair means. */
  why: string;
  n: number;
  /** hrtimer − tracepoint duration over the pairs: median and extremes (ns). */
  medianDiffNs: number | null;
  minDiffNs: number | null;
  maxDiffNs: number | null;
  /** The same with the timer measured from expires − slice (TimerInterval.sinceDeadlineGrantNs). */
  medianDeadlineDiffNs: number | null;
}

export interface PidSummary {
  pid: number;
  comm: string;
  grants: number;
  outcomes: Partial<Record<GrantOutcome, number>>;
  medianNs: number | null;
  timerIntervals: number;
  timerMedianNs: number | null;
}

export interface SliceTraceAnalysis {
  file: string;
  resolutionNs: number;
  lostEvents: number;
  events: Record<string, number>;
  /** Configured slice length(s) seen in rseq_slice_grant. */
  sliceNs: number[];
  tracepoints: { grants: number; outcomes: Partial<Record<GrantOutcome, number>>; durationNs: DurationSummary; orphanEnds: number };
  hrtimer: { intervals: number; outcomes: Partial<Record<TimerOutcome, number>>; durationNs: DurationSummary; cancelsWithoutStart: number };
  matching: {
    /** Grants with a timer interval, and both durations known. */
    matched: number;
    /** Grants the hrtimer method cannot see (no timer was armed for them). */
    grantsWithoutTimer: number;
    /** Timer intervals with no grant event before them. */
    timersWithoutGrant: number;
    disagreements: Disagreement[];
  };
  histograms: { method: "tracepoints" | "hrtimer"; outcome: string; bins: HistogramBin[] }[];
  perPid: PidSummary[];
  grants: Grant[];
  timers: TimerInterval[];
}

/** Summary of a sample of durations (quantiles by linear interpolation; nulls when empty). */
export function durationSummary(values: readonly number[]): DurationSummary {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number): number | null => (s.length === 0 ? null : quantileSorted(s, p));
  return {
    n: s.length,
    mean: s.length === 0 ? null : s.reduce((a, b) => a + b, 0) / s.length,
    min: s.length === 0 ? null : s[0]!,
    p10: q(0.1),
    p25: q(0.25),
    median: q(0.5),
    p75: q(0.75),
    p90: q(0.9),
    p99: q(0.99),
    max: s.length === 0 ? null : s[s.length - 1]!,
  };
}

/** Octave bin edges in ns: [0, 2^lo), [2^lo, 2^(lo+1)), …, [2^hi, ∞). */
export function octaveEdges(loExp = 8, hiExp = 26): number[] {
  const e: number[] = [];
  for (let k = loExp; k <= hiExp; k++) e.push(2 ** k);
  return e;
}

/** Counts values into bins [0, e0), [e0, e1), …, [e_last, ∞). */
export function histogram(values: readonly number[], edges: readonly number[] = octaveEdges()): HistogramBin[] {
  const bins: HistogramBin[] = [{ loNs: 0, hiNs: edges[0]!, count: 0 }];
  for (let i = 0; i < edges.length; i++) bins.push({ loNs: edges[i]!, hiNs: i + 1 < edges.length ? edges[i + 1]! : null, count: 0 });
  for (const v of values) {
    let k = 0;
    while (k < edges.length && v >= edges[k]!) k++;
    bins[k]!.count++;
  }
  return bins;
}

const WHY: Record<string, string> = {
  "yield/cancelled": "agree on the end (rseq_slice_yield(2) cancelled the timer); the timer method misses the way out to user space after the grant",
  "abort/cancelled": "agree on the end (another syscall cancelled the timer); the timer method misses the way out to user space after the grant",
  "expired/expired":
    "agree on the end (the timer fired while the task held the grant); the timer method starts at hrtimer_start, after the grant, so it misses the way out to user space",
  "revoked/expired":
    "the kernel revoked the grant (rescheduling was due) but left the timer armed: the timer method counts the full slice",
  "revoked-after-switch/expired": "the task was scheduled out holding the grant; the timer fired later on that CPU regardless",
  "revoked/restarted": "the grant was revoked, the timer stayed armed until the next grant on that CPU restarted it",
  "revoked-after-switch/restarted": "the task was scheduled out holding the grant; the next grant on that CPU restarted the still-armed timer",
  "expired-in-syscall/expired": "agree: the timer fired just after the task entered its syscall, before the syscall could cancel it",
  "expired/cancelled": "the timer fired but a syscall reached the timer first (cancel raced with expiry)",
};

function count<T extends string>(xs: readonly T[]): Partial<Record<T, number>> {
  const out: Partial<Record<T, number>> = {};
  for (const x of [...xs].sort()) out[x] = (out[x] ?? 0) + 1;
  return out;
}

export interface AnalyseOptions {
  /**
   * The configured slice length (debugfs rseq/slice_ext_nsec), for grants that
   * expired before an rseq_slice_grant event told it; default: slice_ns of the
   * trace's first rseq_slice_grant.
   */
  sliceNs?: number;
}

/** Grants and enforcement-timer intervals from a parsed trace, matched on the same run. */
export function analyseSliceTrace(trace: SliceTrace, options: AnalyseOptions = {}): SliceTraceAnalysis {
  const grants: Grant[] = [];
  const timers: TimerInterval[] = [];
  const openGrant = new Map<number, number>(); // pid → grant index
  const expired = new Set<number>(); // grant indices with an expiry seen
  const openTimer = new Map<string, number>(); // hrtimer → interval index
  const sliceTimers = new Set<string>();
  const lastGrantOnCpu = new Map<number, number>();
  const events: Record<string, number> = {};
  const comms = new Map<number, string>();
  let orphanEnds = 0;
  let cancelsWithoutStart = 0;
  const firstGrant = trace.records.find((r) => r.event.kind === "grant")?.event;
  let lastSlice: number | null = options.sliceNs ?? (firstGrant?.kind === "grant" ? firstGrant.sliceNs : null);

  const close = (gi: number, outcome: GrantOutcome, heldNs: number, r: TraceRecord): void => {
    const g = grants[gi]!;
    g.outcome = outcome;
    if (expired.has(gi)) g.clearedAfterNs = heldNs; // the expiry already ended it
    else {
      g.durationNs = heldNs;
      g.endTsNs = r.tsNs;
      g.endLine = r.line;
    }
    openGrant.delete(g.pid);
    expired.delete(gi);
  };
  const closeTimer = (ti: number, outcome: TimerOutcome, r: TraceRecord): void => {
    const t = timers[ti]!;
    t.outcome = outcome;
    t.durationNs = r.tsNs - t.startTsNs;
    t.sinceDeadlineGrantNs = t.expiresNs === null || lastSlice === null ? null : r.tsNs - (t.expiresNs - lastSlice);
    t.endTsNs = r.tsNs;
    openTimer.delete(t.hrtimer);
  };
  const newGrant = (r: TraceRecord, pid: number, armed: boolean, grantedNs: number | null, sliceNs: number | null): number => {
    grants.push({ pid, cpu: r.cpu, line: r.line, armTsNs: armed ? r.tsNs : null, grantedNs, sliceNs, outcome: "open", durationNs: null, clearedAfterNs: null, endTsNs: null, endLine: null, timer: null });
    return grants.length - 1;
  };

  for (const r of trace.records) {
    const e = r.event;
    const name =
      e.kind === "expire" ? (e.late ? "slice-expire-late" : "slice-expire") : e.kind === "end" ? (e.yield ? "slice-end-yield" : "slice-end-abort") : e.kind.startsWith("timer") ? e.kind : `slice-${e.kind}`;
    if ("pid" in e) comms.set(e.pid, e.pid === r.tid ? r.comm : (comms.get(e.pid) ?? ""));
    switch (e.kind) {
      case "grant": {
        events[name] = (events[name] ?? 0) + 1;
        lastSlice = e.sliceNs;
        const prev = openGrant.get(e.pid);
        if (prev !== undefined) openGrant.delete(e.pid); // its end was not traced: stays "open"
        const gi = newGrant(r, e.pid, true, e.grantedNs, e.sliceNs);
        openGrant.set(e.pid, gi);
        lastGrantOnCpu.set(r.cpu, gi);
        break;
      }
      case "expire": {
        events[name] = (events[name] ?? 0) + 1;
        let gi = openGrant.get(e.pid);
        if (e.late) {
          // Expired on the way out, before the timer was armed: a grant without rseq_slice_grant.
          gi = newGrant(r, e.pid, false, null, lastSlice);
          grants[gi]!.outcome = "expired-before-user";
          openGrant.set(e.pid, gi);
        }
        if (gi === undefined) {
          orphanEnds++;
          break;
        }
        expired.add(gi);
        const g = grants[gi]!;
        // The grant ended when its deadline (slice after the grant) passed by over_ns.
        g.durationNs = g.sliceNs === null ? null : g.sliceNs + e.overNs;
        g.endTsNs = r.tsNs;
        g.endLine = r.line;
        break;
      }
      case "end": {
        events[name] = (events[name] ?? 0) + 1;
        const gi = openGrant.get(e.pid);
        if (gi === undefined) {
          orphanEnds++;
          break;
        }
        close(gi, expired.has(gi) ? "expired-in-syscall" : e.yield ? "yield" : "abort", e.heldNs, r);
        break;
      }
      case "revoke": {
        events[name] = (events[name] ?? 0) + 1;
        const gi = openGrant.get(e.pid);
        if (gi === undefined) {
          // Granted and revoked in the same exit to user space: the timer was never armed.
          const ng = newGrant(r, e.pid, false, null, lastSlice);
          grants[ng]!.outcome = "revoked-before-user";
          close(ng, "revoked-before-user", e.heldNs, r);
          break;
        }
        const g = grants[gi]!;
        const outcome: GrantOutcome = g.outcome === "expired-before-user" ? "expired-before-user" : expired.has(gi) ? "expired" : e.sched ? "revoked-after-switch" : "revoked";
        close(gi, outcome, e.heldNs, r);
        break;
      }
      case "timer-start": {
        if (!e.fn.startsWith(SLICE_TIMER_FUNCTION)) break;
        events[name] = (events[name] ?? 0) + 1;
        sliceTimers.add(e.hrtimer);
        const prev = openTimer.get(e.hrtimer);
        if (prev !== undefined) closeTimer(prev, "restarted", r);
        timers.push({ pid: r.tid, cpu: r.cpu, hrtimer: e.hrtimer, line: r.line, startTsNs: r.tsNs, expiresNs: e.expiresNs, outcome: "open", durationNs: null, sinceDeadlineGrantNs: null, endTsNs: null, grant: null });
        const ti = timers.length - 1;
        openTimer.set(e.hrtimer, ti);
        const gi = lastGrantOnCpu.get(r.cpu);
        if (gi !== undefined && grants[gi]!.pid === r.tid && grants[gi]!.timer === null) {
          grants[gi]!.timer = ti;
          timers[ti]!.grant = gi;
        }
        lastGrantOnCpu.delete(r.cpu);
        break;
      }
      case "timer-cancel": {
        if (!sliceTimers.has(e.hrtimer)) {
          break;
        }
        events[name] = (events[name] ?? 0) + 1;
        const ti = openTimer.get(e.hrtimer);
        if (ti === undefined) cancelsWithoutStart++;
        else closeTimer(ti, "cancelled", r);
        break;
      }
      case "timer-expire": {
        if (!e.fn.startsWith(SLICE_TIMER_FUNCTION)) break;
        events[name] = (events[name] ?? 0) + 1;
        const ti = openTimer.get(e.hrtimer);
        if (ti !== undefined) closeTimer(ti, "expired", r);
        break;
      }
      case "timer-start-expired": {
        if (!sliceTimers.has(e.hrtimer)) break;
        events[name] = (events[name] ?? 0) + 1;
        const ti = openTimer.get(e.hrtimer);
        if (ti !== undefined) closeTimer(ti, "start-expired", r);
        break;
      }
    }
  }
  // An expiry with no revoke before the trace ended still ended the grant.
  for (const gi of expired) if (grants[gi]!.outcome === "open") grants[gi]!.outcome = "expired";

  const ourDur = grants.filter((g) => g.durationNs !== null).map((g) => g.durationNs!);
  const timerDur = timers.filter((t) => t.durationNs !== null).map((t) => t.durationNs!);
  const pairs = new Map<string, { diffs: number[]; deadline: number[] }>();
  let matched = 0;
  for (const g of grants) {
    if (g.timer === null || g.durationNs === null) continue;
    const t = timers[g.timer]!;
    if (t.durationNs === null) continue;
    matched++;
    const key = `${g.outcome}/${t.outcome}`;
    const p = pairs.get(key) ?? { diffs: [], deadline: [] };
    p.diffs.push(t.durationNs - g.durationNs);
    if (t.sinceDeadlineGrantNs !== null) p.deadline.push(t.sinceDeadlineGrantNs - g.durationNs);
    pairs.set(key, p);
  }
  const disagreements: Disagreement[] = [...pairs.entries()]
    .sort((a, b) => b[1].diffs.length - a[1].diffs.length || (a[0] < b[0] ? -1 : 1))
    .map(([pair, p]) => {
      const s = durationSummary(p.diffs);
      return {
        pair,
        why: WHY[pair] ?? "unusual pairing (see the grants and timers lists)",
        n: p.diffs.length,
        medianDiffNs: s.median,
        minDiffNs: s.min,
        maxDiffNs: s.max,
        medianDeadlineDiffNs: durationSummary(p.deadline).median,
      };
    });

  const histograms: SliceTraceAnalysis["histograms"] = [{ method: "tracepoints", outcome: "all", bins: histogram(ourDur) }];
  for (const o of Object.keys(count(grants.map((g) => g.outcome)))) {
    const v = grants.filter((g) => g.outcome === o && g.durationNs !== null).map((g) => g.durationNs!);
    if (v.length > 0) histograms.push({ method: "tracepoints", outcome: o, bins: histogram(v) });
  }
  histograms.push({ method: "hrtimer", outcome: "all", bins: histogram(timerDur) });
  for (const o of Object.keys(count(timers.map((t) => t.outcome)))) {
    const v = timers.filter((t) => t.outcome === o && t.durationNs !== null).map((t) => t.durationNs!);
    if (v.length > 0) histograms.push({ method: "hrtimer", outcome: o, bins: histogram(v) });
  }

  const pids = [...new Set([...grants.map((g) => g.pid), ...timers.map((t) => t.pid)])].sort((a, b) => a - b);
  const perPid: PidSummary[] = pids.map((pid) => {
    const gs = grants.filter((g) => g.pid === pid);
    const ts = timers.filter((t) => t.pid === pid);
    return {
      pid,
      comm: comms.get(pid) ?? "",
      grants: gs.length,
      outcomes: count(gs.map((g) => g.outcome)),
      medianNs: durationSummary(gs.filter((g) => g.durationNs !== null).map((g) => g.durationNs!)).median,
      timerIntervals: ts.length,
      timerMedianNs: durationSummary(ts.filter((t) => t.durationNs !== null).map((t) => t.durationNs!)).median,
    };
  });

  return {
    file: trace.file,
    resolutionNs: trace.resolutionNs,
    lostEvents: trace.lostEvents,
    events,
    sliceNs: [...new Set(grants.map((g) => g.sliceNs).filter((s): s is number => s !== null))].sort((a, b) => a - b),
    tracepoints: { grants: grants.length, outcomes: count(grants.map((g) => g.outcome)), durationNs: durationSummary(ourDur), orphanEnds },
    hrtimer: { intervals: timers.length, outcomes: count(timers.map((t) => t.outcome)), durationNs: durationSummary(timerDur), cancelsWithoutStart },
    matching: {
      matched,
      grantsWithoutTimer: grants.filter((g) => g.timer === null).length,
      timersWithoutGrant: timers.filter((t) => t.grant === null).length,
      disagreements,
    },
    histograms,
    perPid,
    grants,
    timers,
  };
}

/**
 * For the `slicelab parse` registry (src/parse/formats.ts): one flat record per
 * grant seen by the tracepoints, with its matched timer interval. The whole
 * analysis (both methods, histograms, disagreements) is `slicelab vm trace --from FILE`.
 */
export const sliceTraceFormat: ParserFormat = {
  name: "slice-trace",
  description: "kernel trace (tracefs or trace-cmd report) of the rseq slice-extension tracepoints and the enforcement hrtimer: one record per grant",
  signature: 'a trace line "task-PID [CPU] … TIME: rseq_slice_grant:" (or _expire/_end/_revoke)',
  detect: detectSliceTrace,
  parse: (text, file) => {
    const a = analyseSliceTrace(parseSliceTrace(text, file));
    return a.grants.map((g) => {
      const t = g.timer === null ? null : a.timers[g.timer]!;
      return {
        file,
        line: g.line,
        pid: g.pid,
        cpu: g.cpu,
        outcome: g.outcome,
        durationNs: g.durationNs,
        clearedAfterNs: g.clearedAfterNs,
        timerOutcome: t?.outcome ?? null,
        timerDurationNs: t?.durationNs ?? null,
      };
    });
  },
};
