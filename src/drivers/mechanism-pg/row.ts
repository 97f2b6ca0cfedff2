/**
 * The PostgreSQL mechanism experiment's row, once: one row per run of the factorial on the diag
 * build, as a schema from which the type (`PgMechanismRow`), the CSV (`pgRowsCsv`) and the subset the
 * analysis reads (`PgFactorialRow` in src/analysis/mechanism-pg.ts) are derived.
 */
import type { Accel } from "../../vm/qemu.js";
import { col, optional, schemaCsv, type RowOf } from "../row-schema.js";
import { DESCHED_COLUMNS, type ExtLevel, type PreemptMode } from "../mechanism/row.js";

export type HugeLevel = "off" | "on";

export const PG_MECHANISM_ROW = {
  run: col<string>(),
  block: col<number>(),
  order: col<number>(),
  seed: col<number>(),
  mode: col<PreemptMode>(),
  modeActive: col<string>(),
  kernelRelease: col<string>(),
  accel: col<Accel>(),
  hugePages: col<HugeLevel>(),
  /** SHOW huge_pages_status after start (on/off). */
  hugePagesStatus: col<string>(),
  /** Huge pages in use or reserved by the server after start: Total − Free + Rsvd. */
  hugePagesTaken: col<number>(),
  hugePagesTotal: col<number>(),
  extension: col<ExtLevel>(),
  sliceExtensionStatus: col<string>(),
  durationS: col<number>(),
  /** Outermost spin-style holds of all server processes (diag counters). */
  holds: col<number>(),
  faultedHolds: col<number>(),
  faultsUnderLock: col<number>(),
  /** Holds with an involuntary switch (getrusage ru_nivcsw): an upper bound on holder preemptions. */
  preemptedHolds: col<number>(),
  faultedPreemptedHolds: col<number>(),
  grantedHolds: col<number>(),
  faultedGrantedHolds: col<number>(),
  backendProcesses: col<number>(),
  /** From the trace: logged holds whose holder was switched out, by where. */
  ...DESCHED_COLUMNS,
  logLost: col<number>(),
  lostEvents: col<number>(),
  /** Kernel counters (rseq/stats deltas). */
  grants: col<number | null>(),
  expired: col<number | null>(),
  revoked: col<number | null>(),
  yields: col<number | null>(),
  tpsLoad: col<number>(),
  tpsConnect: col<number>(),
  transactionsLoad: col<number | null>(),
  transactionsConnect: col<number | null>(),
  /**
   * The v3 diag build's armed-wait and wakeup counters (issue 27 item 6), summed over the run's
   * processes; absent on records made before them, null when the run's files lack them.
   */
  sliceSetting: optional<string | null>(),
  endedHolds: optional<number | null>(),
  armedWaitHolds: optional<number | null>(),
  spinWaits: optional<number | null>(),
  armedSpinWaits: optional<number | null>(),
  lwlockSleeps: optional<number | null>(),
  armedLwlockSleeps: optional<number | null>(),
  spinWaitGrants: optional<number | null>(),
  lwlockWaitGrants: optional<number | null>(),
  wakeups: optional<number | null>(),
  wakeupYields: optional<number | null>(),
  wakeupYieldWaiters: optional<number | null>(),
  wakeupStallNs: optional<number | null>(),
  wakeupStallMaxNs: optional<number | null>(),
  wakeupReleaseNs: optional<number | null>(),
};

/** One row per run of the PostgreSQL factorial. */
export type PgMechanismRow = RowOf<typeof PG_MECHANISM_ROW>;

export function pgRowsCsv(rows: readonly PgMechanismRow[]): string {
  return schemaCsv(PG_MECHANISM_ROW, rows);
}
