/**
 * The mechanism experiment's row, once: one row per run (the factorial's unit of evidence), as a
 * schema from which the type (`MechanismRow`), the CSV (`rowsCsv`) and the subsets the analysis
 * reads (`HolderDeschedCounts`, `FactorialRow` in src/analysis/mechanism.ts) are derived.
 */
import type { CauseCounts, HolderWhere, timerSummary } from "../../parse/holder-trace.js";
import type { Accel } from "../../vm/qemu.js";
import { col, csvColumns, optional, schemaCsv, type RowOf } from "../row-schema.js";

/** "current": leave the mode as it is (host runs: the mode is read, never changed). */
export type PreemptMode = "full" | "lazy" | "none" | "current";
export type PageLevel = "4k" | "4k-prefault" | "hugetlb" | "thp";
export type ExtLevel = "off" | "on";
export const PAGE_LEVELS: readonly PageLevel[] = ["4k", "4k-prefault", "hugetlb"];

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

/** Holds during which the holder left the CPU, by where the first descheduling happened (the micro and PostgreSQL rows share them). */
export const DESCHED_COLUMNS = {
  deschedHolds: col<number>(),
  kernelFault: col<number>(),
  kernelOther: col<number>(),
  returnFault: col<number>(),
  returnInterrupt: col<number>(),
  returnSyscall: col<number>(),
  voluntary: col<number>(),
  unclassified: col<number>(),
};

/** The row's columns, in rows.csv's order; the last three are in rows.json only. */
export const MECHANISM_ROW = {
  run: col<string>(),
  block: col<number>(),
  order: col<number>(),
  seed: col<number>(),
  mode: col<PreemptMode>(),
  /** The mode debugfs sched/preempt reported after the switch (its bracketed word). */
  modeActive: col<string>(),
  kernelRelease: col<string>(),
  /** kvm, tcg, tcg-icount, or "host" (this machine's kernel, no VM). */
  accel: col<Accel | "host">(),
  pages: col<PageLevel>(),
  hugeKiBMapped: col<number>(),
  extension: col<ExtLevel>(),
  durationS: col<number>(),
  holds: col<number>(),
  holdsLogged: col<number>(),
  logLost: col<number>(),
  ...DESCHED_COLUMNS,
  /** Holds whose end a grant covered (granted still set at release). */
  covered: col<number>(),
  /** Kernel counters (rseq/stats deltas): grants, expiries, revocations, yields. */
  grants: col<number | null>(),
  expired: col<number | null>(),
  revoked: col<number | null>(),
  yields: col<number | null>(),
  /** rseq_slice_grant events inside descheduled holds (tracepoint kernel only). */
  grantsInDeschedHolds: col<number | null>(),
  /** Worker minor faults during the loop (new memory is touched only inside sections). */
  faultsUnderLock: col<number>(),
  freshPagesTouched: col<number>(),
  regionExhausted: col<boolean>(),
  throughputPerS: col<number>(),
  hogWorkPerS: col<number>(),
  holdP99Ns: col<number | null>(),
  /** First touches inside sections, timed in the section (lhp version 3; null before, or without --fault-in-cs). */
  touchCount: col<number | null>(),
  touchP50Ns: col<number | null>(),
  touchP99Ns: col<number | null>(),
  touchMaxNs: col<number | null>(),
  touchMeanNs: col<number | null>(),
  /** The hold-time split: mean hold with a touch, its section work (hold − touch), and the mean hold without one. */
  touchedHoldMeanNs: col<number | null>(),
  touchedWorkMeanNs: col<number | null>(),
  untouchedHoldMeanNs: col<number | null>(),
  /** Median holds with and without a first touch (the means above include preempted holds' long tails). */
  touchedHoldP50Ns: col<number | null>(),
  untouchedHoldP50Ns: col<number | null>(),
  waitP99Ns: col<number | null>(),
  waitP999Ns: col<number | null>(),
  dropped: col<number>(),
  /** Nested acquires that re-armed a request the kernel had cleared. */
  rearmed: col<number>(),
  lostEvents: col<number>(),
  switchesWithoutStack: col<number>(),
  preemptMarkDisagree: col<number>(),
  /** Steal time as a share of CPU time over the run (/proc/stat before and after; null when not recorded). In a guest of an emulator it is time the emulator ran another vCPU or itself. */
  stealPct: optional<number | null>(),
  /** Idle time as a share of CPU time over the run (a vCPU descheduled by its guest kernel). */
  idlePct: optional<number | null>(),
  /** Issue 26 (--attribute runs only; absent otherwise): the cause of every descheduling in a hold. */
  attribution: optional<RunAttribution | null>(),
};

/** One row per run: the factorial's unit of evidence. */
export type MechanismRow = RowOf<typeof MECHANISM_ROW>;

/** The first-descheduling classes and the covered holds: what the analysis counts per hold. */
export type HolderDeschedCounts = Pick<MechanismRow, keyof typeof DESCHED_COLUMNS | "covered">;

/** rows.csv's columns (the schema's CSV columns). */
export const CSV_FIELDS = csvColumns(MECHANISM_ROW) as (keyof MechanismRow)[];

export function rowsCsv(rows: readonly MechanismRow[]): string {
  return schemaCsv(MECHANISM_ROW, rows);
}
