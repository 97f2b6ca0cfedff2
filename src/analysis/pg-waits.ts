/**
 * Where the v3 patch can hurt (issue 27 item 6), from the PostgreSQL mechanism
 * rows of the v3 diag build (src/vm/mechanism-pg.ts, pgWaitFields):
 *
 * - armed waits: under slice_extension = lwlock/all the outer hold's request
 *   stays armed while the backend spins or sleeps on a nested lock, so the
 *   kernel may grant the *waiter* time that the preempted holder needs. Per
 *   cell: the share of request holds with such a wait, the armed share of
 *   spin waits and LWLock sleeps, and the grants seen while waiting beside the
 *   kernel's grants (rseq/stats).
 * - the LWLockWakeup stall: under slice_extension = spinlock the wait-list
 *   release yields a grant before the dequeued waiters are woken; they stay
 *   asleep until the waker runs again. Per cell: wakeups, yields there, the
 *   stall's mean and maximum; and, per stall, the waker's switch out and back
 *   in from the run's trace (sched_switch, CLOCK_MONOTONIC like the diag's
 *   bounds) so that the stall is seen by the kernel too.
 *
 * Pure functions of the rows (and of a parsed trace). Times are guest times:
 * emulated (QEMU icount or plain TCG), as the rows' accel says.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { summariseStallMatches, type StallMatch, type StallTraceSummary } from "../postgres/armed-waits.js";
export { matchStallsToTrace, summariseStallMatches, type StallMatch, type StallTraceSummary } from "../postgres/armed-waits.js";
import { ratioOfSums, type Interval } from "./mechanism.js";

/** The row fields read here (a subset of PgMechanismRow). */
export interface PgWaitRow {
  run: string;
  mode: string;
  hugePages: string;
  extension: string;
  accel: string;
  sliceSetting?: string | null;
  grants: number | null;
  endedHolds?: number | null;
  armedWaitHolds?: number | null;
  spinWaits?: number | null;
  armedSpinWaits?: number | null;
  lwlockSleeps?: number | null;
  armedLwlockSleeps?: number | null;
  spinWaitGrants?: number | null;
  lwlockWaitGrants?: number | null;
  wakeups?: number | null;
  wakeupYields?: number | null;
  wakeupYieldWaiters?: number | null;
  wakeupStallNs?: number | null;
  wakeupStallMaxNs?: number | null;
  wakeupReleaseNs?: number | null;
}

/** Rows that carry the v3 diag build's wait counters (older records' rows lack them). */
export function hasWaitCounters(r: PgWaitRow): boolean {
  return typeof r.endedHolds === "number" && typeof r.wakeups === "number";
}

export interface PgWaitCell {
  mode: string;
  hugePages: string;
  extension: string;
  /** slice_extension in these runs ("off", "all", "spinlock", …). */
  setting: string;
  runs: number;
  endedHolds: number;
  armedWaitHolds: number;
  /** Σ armed-wait holds / Σ holds ended by SliceExtEnd, bootstrap over runs. */
  armedWaitHoldShare: Interval;
  spinWaits: number;
  armedSpinWaits: number;
  lwlockSleeps: number;
  armedLwlockSleeps: number;
  waitGrants: number;
  /** Σ kernel grants (rseq/stats) of the runs that have them; null when none has. */
  kernelGrants: number | null;
  /** Σ wait grants / Σ kernel grants (runs with both), bootstrap over runs. */
  waitGrantShare: Interval;
  wakeups: number;
  wakeupYields: number;
  wakeupYieldWaiters: number;
  /** Σ stall / Σ yields, ns. */
  meanStallNs: number | null;
  maxStallNs: number | null;
  /** The wait-list release's mean time when it did not yield, ns. */
  meanReleaseNs: number | null;
}

const n0 = (x: number | null | undefined) => (typeof x === "number" ? x : 0);
const settingOf = (r: PgWaitRow) => r.sliceSetting ?? (r.extension === "on" ? "all" : "off");

/** One cell per mode × huge pages × extension × setting, over the rows with the wait counters, in the rows' order. */
export function summariseWaitCells(rows: readonly PgWaitRow[]): PgWaitCell[] {
  const with_ = rows.filter(hasWaitCounters);
  const keys: string[] = [];
  const by = new Map<string, PgWaitRow[]>();
  for (const r of with_) {
    const k = [r.mode, r.hugePages, r.extension, settingOf(r)].join("/");
    if (!by.has(k)) {
      by.set(k, []);
      keys.push(k);
    }
    by.get(k)!.push(r);
  }
  return keys.map((k) => {
    const rs = by.get(k)!;
    const s = (f: (r: PgWaitRow) => number) => rs.reduce((a, r) => a + f(r), 0);
    const withGrants = rs.filter((r) => typeof r.grants === "number");
    const waitGrant = (r: PgWaitRow) => n0(r.spinWaitGrants) + n0(r.lwlockWaitGrants);
    const yields = s((r) => n0(r.wakeupYields));
    const wakeups = s((r) => n0(r.wakeups));
    return {
      mode: rs[0]!.mode,
      hugePages: rs[0]!.hugePages,
      extension: rs[0]!.extension,
      setting: settingOf(rs[0]!),
      runs: rs.length,
      endedHolds: s((r) => n0(r.endedHolds)),
      armedWaitHolds: s((r) => n0(r.armedWaitHolds)),
      armedWaitHoldShare: ratioOfSums(rs.map((r) => n0(r.armedWaitHolds)), rs.map((r) => n0(r.endedHolds))),
      spinWaits: s((r) => n0(r.spinWaits)),
      armedSpinWaits: s((r) => n0(r.armedSpinWaits)),
      lwlockSleeps: s((r) => n0(r.lwlockSleeps)),
      armedLwlockSleeps: s((r) => n0(r.armedLwlockSleeps)),
      waitGrants: s(waitGrant),
      kernelGrants: withGrants.length === 0 ? null : withGrants.reduce((a, r) => a + r.grants!, 0),
      waitGrantShare: ratioOfSums(withGrants.map(waitGrant), withGrants.map((r) => r.grants!)),
      wakeups,
      wakeupYields: yields,
      wakeupYieldWaiters: s((r) => n0(r.wakeupYieldWaiters)),
      meanStallNs: yields === 0 ? null : s((r) => n0(r.wakeupStallNs)) / yields,
      maxStallNs: yields === 0 ? null : rs.reduce((a, r) => Math.max(a, n0(r.wakeupStallMaxNs)), 0),
      meanReleaseNs: wakeups - yields === 0 ? null : s((r) => n0(r.wakeupReleaseNs)) / (wakeups - yields),
    };
  });
}

const fmtN = (x: number) => x.toLocaleString("en-US");
/** a / b in per cent: two significant digits below 1 % (a share of 0.0005 % is not "0 %"), else up to two decimals. */
export const pct = (a: number, b: number): string => {
  if (!(b > 0)) return "—";
  const x = (100 * a) / b;
  return `${x > 0 && x < 1 ? Number(x.toPrecision(2)).toString() : x.toLocaleString("en-US", { maximumFractionDigits: 2 })} %`;
};
const fmtUs = (ns: number | null) => (ns === null ? "—" : `${(ns / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} µs`);

/** Notebook table rows of the wait cells; times labelled with the accel (emulated). */
export function waitCellTable(cells: readonly PgWaitCell[]): Record<string, string | number>[] {
  return cells.map((c) => ({
    cell: `${c.mode}/${c.hugePages}`,
    slice_extension: c.setting,
    runs: c.runs,
    "request holds": fmtN(c.endedHolds),
    "with an armed wait": `${fmtN(c.armedWaitHolds)} (${pct(c.armedWaitHolds, c.endedHolds)})`,
    "armed spin waits / spin waits": `${fmtN(c.armedSpinWaits)} / ${fmtN(c.spinWaits)}`,
    "armed LWLock sleeps / sleeps": `${fmtN(c.armedLwlockSleeps)} / ${fmtN(c.lwlockSleeps)}`,
    "grants while waiting / kernel grants": `${fmtN(c.waitGrants)} / ${c.kernelGrants === null ? "—" : fmtN(c.kernelGrants)}`,
    "wakeups (yielded)": `${fmtN(c.wakeups)} (${fmtN(c.wakeupYields)})`,
    "stall mean / max (emulated)": c.wakeupYields === 0 ? "—" : `${fmtUs(c.meanStallNs)} / ${fmtUs(c.maxStallNs)}`,
    "release without yield (emulated)": fmtUs(c.meanReleaseNs),
  }));
}

/**
 * The sentence on armed waits for the cells run with a request protocol
 * (setting all or lwlock): how many request holds had an armed wait, and how
 * many of the kernel's grants a waiter took; null when no such cell has rows.
 */
export function armedWaitSentence(cells: readonly PgWaitCell[], label: string): string | null {
  const on = cells.filter((c) => c.setting === "all" || c.setting === "lwlock");
  if (on.length === 0) return null;
  const ended = on.reduce((a, c) => a + c.endedHolds, 0);
  const armed = on.reduce((a, c) => a + c.armedWaitHolds, 0);
  const wg = on.reduce((a, c) => a + c.waitGrants, 0);
  const kgCells = on.filter((c) => c.kernelGrants !== null);
  const kg = kgCells.reduce((a, c) => a + c.kernelGrants!, 0);
  const runs = on.reduce((a, c) => a + c.runs, 0);
  return `${label}: over ${runs} run${runs === 1 ? "" : "s"} with slice_extension = ${[...new Set(on.map((c) => c.setting))].join("/")}, ` +
    `${fmtN(armed)} of ${fmtN(ended)} request holds (${pct(armed, ended)}) had a wait for a nested lock with their own request armed; ` +
    (kgCells.length === 0
      ? `the kernel's grants were not recorded, and ${fmtN(wg)} grants were seen by waiters.`
      : `${fmtN(wg)} of the kernel's ${fmtN(kg)} grants (${pct(wg, kg)}) were seen by a process while it waited with its request armed` +
        (wg === 0 ? " — none went to a waiter in these runs." : ": time granted to a waiter, not to a holder."));
}

/** The sentence on the LWLockWakeup stall, for the cells run with setting spinlock; null when none. */
export function wakeupStallSentence(cells: readonly PgWaitCell[], trace: StallTraceSummary | null, label: string): string | null {
  const sp = cells.filter((c) => c.setting === "spinlock");
  if (sp.length === 0) return null;
  const w = sp.reduce((a, c) => a + c.wakeups, 0);
  const y = sp.reduce((a, c) => a + c.wakeupYields, 0);
  const yw = sp.reduce((a, c) => a + c.wakeupYieldWaiters, 0);
  const stall = sp.reduce((a, c) => a + (c.meanStallNs ?? 0) * c.wakeupYields, 0);
  const max = sp.reduce((a, c) => Math.max(a, c.maxStallNs ?? 0), 0);
  const runs = sp.reduce((a, c) => a + c.runs, 0);
  const head = `${label}: over ${runs} run${runs === 1 ? "" : "s"} with slice_extension = spinlock, LWLockWakeup's wait-list release yielded a grant in ${fmtN(y)} of ${fmtN(w)} wakeups with dequeued waiters`;
  if (y === 0) return `${head}: no stall in these runs.`;
  const tr = trace === null ? "" :
    ` The trace saw the waker switched out inside ${fmtN(trace.matched)} of the ${fmtN(trace.stalls)} logged stalls (${fmtN(trace.viaYield)} through rseq_slice_yield), off the CPU for a median ${fmtUs(trace.medianOffCpuNs)} (maximum ${fmtUs(trace.maxOffCpuNs)}).`;
  return `${head} (${pct(y, w)}); ${fmtN(yw)} dequeued waiters stayed asleep meanwhile, for a mean ${fmtUs(stall / y)} (maximum ${fmtUs(max)}) of emulated guest time.${tr}`;
}

/**
 * The stalls of the records in DIRS matched with their traces
 * (stall-trace.json, written by `slicelab mechanism wait-evidence`), pooled;
 * null when no record has the file. A file without a runs array is an error
 * naming it.
 */
export function readStallTraces(dirs: readonly string[]): { summary: StallTraceSummary; stalls: StallMatch[]; files: string[] } | null {
  const files = dirs.map((d) => join(d, "stall-trace.json")).filter((f) => existsSync(f));
  if (files.length === 0) return null;
  const stalls: StallMatch[] = [];
  for (const f of files) {
    let j: unknown;
    try {
      j = JSON.parse(readFileSync(f, "utf8"));
    } catch (e) {
      throw new UserError(`${f}: not readable JSON (${(e as Error).message})`);
    }
    const runs = (j as { runs?: unknown }).runs;
    if (!Array.isArray(runs)) throw new UserError(`${f}: expected {"runs": [...]} as written by \`slicelab mechanism wait-evidence\``);
    for (const r of runs) stalls.push(...((r as { stalls?: StallMatch[] }).stalls ?? []));
  }
  return { summary: summariseStallMatches(stalls), stalls, files };
}
