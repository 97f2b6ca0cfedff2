/**
 * The diag build's slicelab-armed-waits.txt (kernel-patches/postgresql/18/diag/,
 * issue 27 item 6): one line per process with a PGPROC at exit, counting its
 * waits for a covered lock (spin-delay loops that spun, LWLock semaphore
 * sleeps) and how many ran while its own request stayed armed by an outer
 * hold — time a waiter may be granted while the holder it waits for is
 * preempted. Also the outermost spin-style holds the diag build did not
 * bracket because they began inside an armed hold, the holds ended by
 * SliceExtEnd() and those with an armed wait, and the grants seen while
 * waiting armed (lines of diag builds before these four fields are still
 * read: the four are then null).
 *
 * And slicelab-wakeup-stalls.txt: per process that woke LWLock waiters, the
 * wakeups, how often the wait-list release yielded a grant before the
 * dequeued waiters were woken (slice_extension = spinlock), the stalls' time
 * and each stall's CLOCK_MONOTONIC bounds.
 */
import { ParseError } from "../util/errors.js";
import type { SwitchEvent } from "../parse/holder-trace.js";
import { median } from "../stats/summary.js";
import { quantileSorted } from "../stats/bootstrap.js";

/** The fields of the first v3 diag build's line. */
export const ARMED_WAIT_BASE_FIELDS = ["unmeasured_holds", "spin_waits", "armed_spin_waits", "spin_sleeps", "armed_spin_sleeps", "lwlock_sleeps", "armed_lwlock_sleeps"] as const;
/** Added after it (issue 27 item 6: holds with an armed wait, grants taken while waiting). */
export const ARMED_WAIT_HOLD_FIELDS = ["ended_holds", "armed_wait_holds", "spin_wait_grants", "lwlock_wait_grants"] as const;
/** Every field the current diag patch writes, in its order. */
export const ARMED_WAIT_FIELDS = [...ARMED_WAIT_BASE_FIELDS, ...ARMED_WAIT_HOLD_FIELDS] as const;
export type ArmedWaitField = (typeof ARMED_WAIT_FIELDS)[number];
type BaseField = (typeof ARMED_WAIT_BASE_FIELDS)[number];
type HoldField = (typeof ARMED_WAIT_HOLD_FIELDS)[number];

export interface ArmedWaitLine {
  pid: number;
  type: string;
  /** The four hold fields are null on a line of the older diag build. */
  counts: Record<BaseField, number> & Record<HoldField, number | null>;
}

const fieldsRe = (fs: readonly string[]) => fs.map((f) => `${f}=(\\d+)`).join(" ");
const RE = new RegExp(`^slicelab-armed-waits pid=(\\d+) type=(.+?) ${fieldsRe(ARMED_WAIT_BASE_FIELDS)}(?: ${fieldsRe(ARMED_WAIT_HOLD_FIELDS)})?$`);

/** Parses the file; a line that is not the diag build's is an error naming the file and line. */
export function parseArmedWaits(text: string, file = "slicelab-armed-waits.txt"): ArmedWaitLine[] {
  const out: ArmedWaitLine[] = [];
  text.split("\n").forEach((l, i) => {
    if (l.trim() === "") return;
    const m = RE.exec(l);
    if (!m) throw new ParseError(file, i + 1, `slicelab-armed-waits pid=N type=T ${ARMED_WAIT_FIELDS.map((f) => `${f}=N`).join(" ")}`, JSON.stringify(l.slice(0, 120)));
    const counts = Object.fromEntries(ARMED_WAIT_FIELDS.map((f, k) => [f, m[k + 3] === undefined ? null : Number(m[k + 3])])) as ArmedWaitLine["counts"];
    for (const [a, b] of [["armed_spin_waits", "spin_waits"], ["armed_spin_sleeps", "spin_sleeps"], ["armed_lwlock_sleeps", "lwlock_sleeps"], ["spin_sleeps", "spin_waits"], ["armed_wait_holds", "ended_holds"]] as const) {
      const x = counts[a];
      const y = counts[b];
      if (x !== null && y !== null && x > y) throw new ParseError(file, i + 1, `${a} ≤ ${b}`, `${x} > ${y}`);
    }
    out.push({ pid: Number(m[1]), type: m[2]!, counts });
  });
  return out;
}

/**
 * Sums over processes, and the armed share of each kind of wait (null when
 * there were none); the hold fields are null unless every line has them.
 */
export function armedWaitTotals(lines: readonly ArmedWaitLine[]): {
  processes: number;
  totals: Record<BaseField, number> & Record<HoldField, number | null>;
  armedShare: { spinWaits: number | null; spinSleeps: number | null; lwlockSleeps: number | null; holds: number | null };
} {
  const sum = (f: ArmedWaitField) => (lines.some((l) => l.counts[f] === null) ? null : lines.reduce((a, l) => a + (l.counts[f] ?? 0), 0));
  const totals = Object.fromEntries(ARMED_WAIT_FIELDS.map((f) => [f, sum(f)])) as ArmedWaitLine["counts"];
  const share = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);
  return {
    processes: lines.length,
    totals,
    armedShare: {
      spinWaits: share(totals.armed_spin_waits, totals.spin_waits),
      spinSleeps: share(totals.armed_spin_sleeps, totals.spin_sleeps),
      lwlockSleeps: share(totals.armed_lwlock_sleeps, totals.lwlock_sleeps),
      holds: share(totals.armed_wait_holds, totals.ended_holds),
    },
  };
}

export const WAKEUP_FIELDS = ["wakeups", "waiters", "yields", "yield_waiters", "stall_ns", "stall_max_ns", "release_ns", "logged", "lost"] as const;
export type WakeupField = (typeof WAKEUP_FIELDS)[number];

export interface WakeupStall {
  pid: number;
  startNs: number;
  endNs: number;
  waiters: number;
}

export interface WakeupStallFile {
  processes: { pid: number; type: string; counts: Record<WakeupField, number> }[];
  stalls: WakeupStall[];
}

const WAKEUP_RE = new RegExp(`^slicelab-wakeup-stalls pid=(\\d+) type=(.+?) ${fieldsRe(WAKEUP_FIELDS)}$`);
const STALL_RE = /^stall (\d+) (\d+) (\d+) (\d+)$/;

/**
 * Parses slicelab-wakeup-stalls.txt: a header line per process, then its
 * logged stalls. Checked: yields ≤ wakeups, waiters ≥ wakeups, the maximum
 * within the sum, as many stall lines as the header says were logged, each
 * after its own header with end ≥ start. A bad line names file and line.
 */
export function parseWakeupStalls(text: string, file = "slicelab-wakeup-stalls.txt"): WakeupStallFile {
  const out: WakeupStallFile = { processes: [], stalls: [] };
  let open: { pid: number; left: number; line: number } | null = null;
  const closeOpen = (line: number) => {
    if (open && open.left !== 0) throw new ParseError(file, line, `${open.left} more stall line(s) of pid ${open.pid} (its header at line ${open.line})`, "the next header or the end");
  };
  const lines = text.split("\n");
  lines.forEach((l, i) => {
    if (l.trim() === "") return;
    const h = WAKEUP_RE.exec(l);
    if (h) {
      closeOpen(i + 1);
      const counts = Object.fromEntries(WAKEUP_FIELDS.map((f, k) => [f, Number(h[k + 3])])) as Record<WakeupField, number>;
      const bad =
        counts.yields > counts.wakeups ? `yields ≤ wakeups (${counts.yields} > ${counts.wakeups})`
        : counts.waiters < counts.wakeups ? `waiters ≥ wakeups (${counts.waiters} < ${counts.wakeups})`
        : counts.yield_waiters > counts.waiters ? `yield_waiters ≤ waiters`
        : counts.stall_max_ns > counts.stall_ns ? `stall_max_ns ≤ stall_ns (${counts.stall_max_ns} > ${counts.stall_ns})`
        : counts.logged + counts.lost !== counts.yields ? `logged + lost = yields (${counts.logged} + ${counts.lost} ≠ ${counts.yields})`
        : null;
      if (bad) throw new ParseError(file, i + 1, bad, l.slice(0, 160));
      out.processes.push({ pid: Number(h[1]), type: h[2]!, counts });
      open = { pid: Number(h[1]), left: counts.logged, line: i + 1 };
      return;
    }
    const s = STALL_RE.exec(l);
    if (s && open && open.left > 0 && Number(s[1]) === open.pid && Number(s[3]) >= Number(s[2]) && Number(s[4]) > 0) {
      open.left--;
      out.stalls.push({ pid: Number(s[1]), startNs: Number(s[2]), endNs: Number(s[3]), waiters: Number(s[4]) });
      return;
    }
    throw new ParseError(file, i + 1, open && open.left > 0 ? `"stall ${open.pid} START END WAITERS" with END ≥ START, WAITERS ≥ 1` : "slicelab-wakeup-stalls pid=N type=T " + WAKEUP_FIELDS.map((f) => `${f}=N`).join(" "), JSON.stringify(l.slice(0, 120)));
  });
  closeOpen(lines.length);
  return out;
}

/** Sums of the wakeup counters over processes; the mean stall and the yield share (null without any). */
export function wakeupStallTotals(f: WakeupStallFile): Record<WakeupField, number> & { processes: number; yieldShare: number | null; meanStallNs: number | null; meanReleaseNs: number | null } {
  const t = Object.fromEntries(WAKEUP_FIELDS.map((k) => [k, f.processes.reduce((a, p) => a + p.counts[k], 0)])) as Record<WakeupField, number>;
  t.stall_max_ns = f.processes.reduce((a, p) => Math.max(a, p.counts.stall_max_ns), 0);
  const noYield = t.wakeups - t.yields;
  return {
    ...t,
    processes: f.processes.length,
    yieldShare: t.wakeups === 0 ? null : t.yields / t.wakeups,
    meanStallNs: t.yields === 0 ? null : t.stall_ns / t.yields,
    meanReleaseNs: noYield === 0 ? null : t.release_ns / noYield,
  };
}

/** One stall of the diag log, with what the trace saw of its waker. */
export interface StallMatch extends WakeupStall {
  stallNs: number;
  /** The waker's switch out inside the stall's bounds (±slack); null when the trace has none. */
  outNs: number | null;
  /** Its next switch back in; null when the trace has none. */
  inNs: number | null;
  offCpuNs: number | null;
  /** The switch out's kernel stack names rseq_slice_yield (null without a stack). */
  viaYield: boolean | null;
}

/**
 * Matches each logged stall with the trace: the first sched_switch away from
 * the waker within [start − slack, end + slack] (tracefs text has µs
 * resolution), and the waker's next switch in after it.
 */
export function matchStallsToTrace(stalls: readonly WakeupStall[], switches: readonly Pick<SwitchEvent, "tsNs" | "prevPid" | "nextPid" | "stack">[], slackNs = 1000): StallMatch[] {
  const byOut = new Map<number, typeof switches[number][]>();
  const byIn = new Map<number, number[]>();
  for (const s of switches) {
    if (!byOut.has(s.prevPid)) byOut.set(s.prevPid, []);
    byOut.get(s.prevPid)!.push(s);
    if (!byIn.has(s.nextPid)) byIn.set(s.nextPid, []);
    byIn.get(s.nextPid)!.push(s.tsNs);
  }
  return stalls.map((st) => {
    const out = (byOut.get(st.pid) ?? []).find((s) => s.tsNs >= st.startNs - slackNs && s.tsNs <= st.endNs + slackNs) ?? null;
    const inNs = out === null ? null : ((byIn.get(st.pid) ?? []).find((t) => t >= out.tsNs) ?? null);
    return {
      ...st,
      stallNs: st.endNs - st.startNs,
      outNs: out?.tsNs ?? null,
      inNs,
      offCpuNs: out !== null && inNs !== null ? inNs - out.tsNs : null,
      viaYield: out === null || out.stack === null ? null : out.stack.some((f) => /rseq_slice_yield/.test(f)),
    };
  });
}

export interface StallTraceSummary {
  stalls: number;
  /** Stalls with the waker's switch out in the trace. */
  matched: number;
  viaYield: number;
  medianStallNs: number | null;
  p90StallNs: number | null;
  maxStallNs: number | null;
  medianOffCpuNs: number | null;
  maxOffCpuNs: number | null;
  /** Dequeued waiters left asleep, summed over the stalls. */
  waiters: number;
}

export function summariseStallMatches(ms: readonly StallMatch[]): StallTraceSummary {
  const st = ms.map((m) => m.stallNs).sort((a, b) => a - b);
  const off = ms.flatMap((m) => (m.offCpuNs === null ? [] : [m.offCpuNs])).sort((a, b) => a - b);
  return {
    stalls: ms.length,
    matched: ms.filter((m) => m.outNs !== null).length,
    viaYield: ms.filter((m) => m.viaYield === true).length,
    medianStallNs: st.length ? median(st) : null,
    p90StallNs: st.length ? quantileSorted(st, 0.9) : null,
    maxStallNs: st.length ? st[st.length - 1]! : null,
    medianOffCpuNs: off.length ? median(off) : null,
    maxOffCpuNs: off.length ? off[off.length - 1]! : null,
    waiters: ms.reduce((a, m) => a + m.waiters, 0),
  };
}

