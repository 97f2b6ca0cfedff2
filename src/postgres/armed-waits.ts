/**
 * The diag build's slicelab-armed-waits.txt (kernel-patches/postgresql/18/diag/,
 * issue 27 item 6): one line per process with a PGPROC at exit, counting its
 * waits for a covered lock (spin-delay loops that spun, LWLock semaphore
 * sleeps) and how many ran while its own request stayed armed by an outer
 * hold — time a waiter may be granted while the holder it waits for is
 * preempted. Also the outermost spin-style holds the diag build did not
 * bracket because they began inside an armed hold.
 */
import { ParseError } from "../util/errors.js";

export const ARMED_WAIT_FIELDS = ["unmeasured_holds", "spin_waits", "armed_spin_waits", "spin_sleeps", "armed_spin_sleeps", "lwlock_sleeps", "armed_lwlock_sleeps"] as const;
export type ArmedWaitField = (typeof ARMED_WAIT_FIELDS)[number];

export interface ArmedWaitLine {
  pid: number;
  type: string;
  counts: Record<ArmedWaitField, number>;
}

const RE = new RegExp(`^slicelab-armed-waits pid=(\\d+) type=(.+?) ${ARMED_WAIT_FIELDS.map((f) => `${f}=(\\d+)`).join(" ")}$`);

/** Parses the file; a line that is not the diag build's is an error naming the file and line. */
export function parseArmedWaits(text: string, file = "slicelab-armed-waits.txt"): ArmedWaitLine[] {
  const out: ArmedWaitLine[] = [];
  text.split("\n").forEach((l, i) => {
    if (l.trim() === "") return;
    const m = RE.exec(l);
    if (!m) throw new ParseError(file, i + 1, `slicelab-armed-waits pid=N type=T ${ARMED_WAIT_FIELDS.map((f) => `${f}=N`).join(" ")}`, JSON.stringify(l.slice(0, 120)));
    const counts = Object.fromEntries(ARMED_WAIT_FIELDS.map((f, k) => [f, Number(m[k + 3])])) as Record<ArmedWaitField, number>;
    for (const [a, b] of [["armed_spin_waits", "spin_waits"], ["armed_spin_sleeps", "spin_sleeps"], ["armed_lwlock_sleeps", "lwlock_sleeps"], ["spin_sleeps", "spin_waits"]] as const) {
      if (counts[a] > counts[b]) throw new ParseError(file, i + 1, `${a} ≤ ${b}`, `${counts[a]} > ${counts[b]}`);
    }
    out.push({ pid: Number(m[1]), type: m[2]!, counts });
  });
  return out;
}

/** Sums over processes, and the armed share of each kind of wait (null when there were none). */
export function armedWaitTotals(lines: readonly ArmedWaitLine[]): { processes: number; totals: Record<ArmedWaitField, number>; armedShare: { spinWaits: number | null; spinSleeps: number | null; lwlockSleeps: number | null } } {
  const totals = Object.fromEntries(ARMED_WAIT_FIELDS.map((f) => [f, lines.reduce((a, l) => a + l.counts[f], 0)])) as Record<ArmedWaitField, number>;
  const share = (a: number, b: number) => (b === 0 ? null : a / b);
  return {
    processes: lines.length,
    totals,
    armedShare: {
      spinWaits: share(totals.armed_spin_waits, totals.spin_waits),
      spinSleeps: share(totals.armed_spin_sleeps, totals.spin_sleeps),
      lwlockSleeps: share(totals.armed_lwlock_sleeps, totals.lwlock_sleeps),
    },
  };
}
