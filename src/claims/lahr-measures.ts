/**
 * What the Lahr 2001 claims compute from the lockmeter tables (src/claims/lahr.ts makes the ledger
 * entries): the rows and figures read, CON = (SPIN + REJECT) / TOTAL, each run's length from
 * HOLD MEAN × TOTAL / UTIL (checked against timer_bh / HZ), the printed resolution of a time, the
 * wait-mean evidence per lock and the time lost spinning.
 */
import { overlaps, type Interval } from "./verdicts.js";

/** The lockmeter columns the claims use (a subset of src/parse/lockmeter.ts LockmeterRow). */
export interface LockRow {
  /** Table label, e.g. "2way", "4way", "8way". */
  section: string | null;
  kind: "lock" | "caller";
  /** The lock (for a caller row: the lock above it). */
  lock: string;
  /** The NAME column. */
  name: string;
  utilPct: number;
  conPct: number;
  holdMeanUs: number;
  waitMeanUs: number;
  waitMaxUs: number | null;
  total: number;
  nowait: number;
  spin: number;
  reject: number;
}

/** Spraul's figures for the 8-way run. */
export interface SpraulFigures {
  /** "~ 129 seconds wall clock time". */
  wallS: number;
  /** "total cpu time 1030 seconds". */
  cpuS: number;
  /** "around 0.7 seconds were lost due to spinning". */
  lostS: number;
  /** Digits after the decimal point of lostS as printed (1 for "0.7"). */
  lostDecimals: number;
}

/** What the claims need from the Lahr thread. */
export interface LahrData {
  rows: LockRow[];
  spraul: SpraulFigures;
  /** Section labels: before the multiqueue patch, and with it (e.g. "2way"; ["4way", "8way"]). */
  withoutMq: string;
  withMq: string[];
  /** The section Spraul's figures are about ("8way") and the lock he discusses ("sem_ids+0x24"). */
  spraulSection: string;
  spraulLock: string;
  /** One line per section: CPU, kernel (from the post's configuration). */
  configuration: Record<string, string>;
  /** CPUs per section (2, 4, 8). */
  cpus: Record<string, number>;
  /** Timer ticks per second of the kernels (context.json). */
  hz: number;
  /** PostgreSQL's spinlock back-off select() timeouts in µs (context.json). */
  backoffUs: number[];
  /** lockstat's own definitions of its columns (context.json, from its source). */
  lockstat: LockstatDefinitions;
}

/** How lockstat computes the columns the claims read, as its source defines them (data/published/lahr-2001/context.json). */
export interface LockstatDefinitions {
  version: string;
  url: string;
  /** WAIT MEAN = cumulative wait / the count named here ("spin": acquisitions that spun; "total": all acquisitions). */
  waitMeanDivisor: "spin" | "total";
  /** UTIL = cumulative hold time / this time ("wall": the measurement's wall-clock time). */
  utilDenominator: "wall" | "cpu";
}

/** "Small" lost time: below this share of the run's CPU time (%). */
export const SMALL_LOST_SHARE_PCT = 1;

/** Lockmeter's CON: the share of acquisitions that did not get the lock at once, (SPIN + REJECT) / TOTAL, in %. */
export function conPct(r: Pick<LockRow, "spin" | "reject" | "total">): number {
  return (100 * (r.spin + r.reject)) / r.total;
}

/** Rows whose printed CON is (SPIN + REJECT)/TOTAL and SPIN/TOTAL within its rounding (±0.005 points). */
export function conDefinitionCheck(rows: readonly LockRow[]): { rows: number; matchSpinPlusReject: number; matchSpinOnly: number; withReject: number } {
  const within = (x: number, printed: number) => Math.abs(x - printed) <= 0.005 + 1e-9;
  let a = 0;
  let b = 0;
  for (const r of rows) {
    if (within(conPct(r), r.conPct)) a++;
    if (within((100 * r.spin) / r.total, r.conPct)) b++;
  }
  return { rows: rows.length, matchSpinPlusReject: a, matchSpinOnly: b, withReject: rows.filter((r) => r.reject > 0).length };
}

/** The interval a printed UTIL stands for (two decimals: ±0.005 points), in %. */
export function utilInterval(pct: number): Interval {
  return { lo: Math.max(0, pct - 0.005), hi: pct + 0.005 };
}

/** A run length recomputed from the tables, in seconds of wall-clock time. */
export interface RunLength {
  section: string;
  /** HOLD MEAN × TOTAL / UTIL of the lock row that pins it down best (narrowest rounding interval). */
  s: number;
  bounds: Interval;
  /** The lock row used. */
  lock: string;
  /** The same estimate from every lock row with UTIL ≥ 0.1%, by lock name. */
  perLock: { lock: string; s: number; bounds: Interval }[];
  /** The once-per-tick timer_bh site's TOTAL / HZ, or null when the table has no timer_bh row. */
  tickS: number | null;
  tickSite: string | null;
}

/**
 * The wall-clock length of each run from its own table: a lock held UTIL of the time,
 * for TOTAL acquisitions of HOLD MEAN each, was held HOLD MEAN × TOTAL in all, which is
 * UTIL × the run's length. Checked against the timer_bh site with the smaller count,
 * which runs once per timer tick (HZ per second).
 */
export function runLengths(rows: readonly LockRow[], sections: readonly string[], hz: number): RunLength[] {
  return sections.map((section) => {
    const locks = rows.filter((r) => r.section === section && r.kind === "lock" && r.utilPct >= 0.1);
    const perLock = locks.map((r) => {
      const u = utilInterval(r.utilPct);
      const h = printedTimeInterval(r.holdMeanUs);
      return {
        lock: r.name,
        s: (r.holdMeanUs * r.total) / (r.utilPct / 100) / 1e6,
        bounds: { lo: (h.lo * r.total) / (u.hi / 100) / 1e6, hi: (h.hi * r.total) / (u.lo / 100) / 1e6 },
      };
    });
    if (perLock.length === 0) throw new RangeError(`no lock row with UTIL ≥ 0.1% in section ${section} of the Lahr tables`);
    const best = perLock.reduce((a, b) => (b.bounds.hi / b.bounds.lo < a.bounds.hi / a.bounds.lo ? b : a));
    const ticks = rows.filter((r) => r.section === section && r.name.startsWith("timer_bh+"));
    const tick = ticks.reduce<LockRow | null>((m, r) => (m === null || r.total < m.total ? r : m), null);
    return { section, s: best.s, bounds: best.bounds, lock: best.lock, perLock, tickS: tick ? tick.total / hz : null, tickSite: tick?.name ?? null };
  });
}

/**
 * Resolution of a time as lockmeter 1.4.5 prints it in these tables: one decimal
 * below 10 µs ("5.2us"), whole microseconds from 10 µs ("17us").
 */
export function printedTimeResolutionUs(us: number): number {
  return us < 10 ? 0.1 : 1;
}

/** The interval a printed wait time stands for (±½ of its resolution, never below 0). */
export function printedTimeInterval(us: number): Interval {
  const h = printedTimeResolutionUs(us) / 2;
  return { lo: Math.max(0, us - h), hi: us + h };
}

/** Evidence about what the WAIT MEAN column averages over. */
export interface WaitMeanEvidence<R extends LockRow = LockRow> {
  /** Rows whose WAIT MAX exceeds WAIT MEAN × SPIN even at the rounding limits: impossible if the mean were per spin. */
  perSpinImpossible: R[];
  /** Rows whose WAIT MAX exceeds WAIT MEAN × TOTAL at the rounding limits: impossible if the mean were per acquisition. */
  perAcquisitionImpossible: R[];
  /** Lock rows with callers whose mean equals (within rounding) the callers' means weighted by TOTAL / by SPIN. */
  lockMeanMatchesTotalWeighted: number;
  lockMeanMatchesSpinWeighted: number;
  locksWithCallers: number;
  /** Rows with exactly one spin and a WAIT MAX: their one wait is WAIT MAX, so a per-spin mean would print WAIT MAX. */
  singleSpinRows: R[];
  /** …of which the printed WAIT MEAN is WAIT MAX / TOTAL (within rounding). */
  singleSpinMatchingMaxOverTotal: R[];
  /** "per acquisition", "per spin", or "undetermined" when the rows do not decide. */
  denominator: "per acquisition" | "per spin" | "undetermined";
}

/** Lock rows followed by their caller rows, per section, in table order. */
export function lockGroups<R extends LockRow>(rows: readonly R[]): { lock: R; callers: R[] }[] {
  const groups: { lock: R; callers: R[] }[] = [];
  for (const r of rows) {
    if (r.kind === "lock") groups.push({ lock: r, callers: [] });
    else {
      const g = groups[groups.length - 1];
      if (g && g.lock.name === r.lock && g.lock.section === r.section) g.callers.push(r);
    }
  }
  return groups;
}

/**
 * Tests the two readings of lockmeter's WAIT MEAN against the tables themselves:
 * (1) a single wait (WAIT MAX) can never exceed the cumulative wait, MEAN × COUNT,
 * whatever COUNT the mean divides by; (2) a lock row sums its callers, so its mean is
 * their mean weighted by the same COUNT.
 */
export function waitMeanEvidence<R extends LockRow>(rows: readonly R[]): WaitMeanEvidence<R> {
  const perSpinImpossible: R[] = [];
  const perAcquisitionImpossible: R[] = [];
  for (const r of rows) {
    if (r.spin === 0 || r.waitMaxUs === null) continue;
    const meanHi = printedTimeInterval(r.waitMeanUs).hi;
    const maxLo = printedTimeInterval(r.waitMaxUs).lo;
    if (meanHi * r.spin < maxLo) perSpinImpossible.push(r);
    if (meanHi * r.total < maxLo) perAcquisitionImpossible.push(r);
  }
  let byTotal = 0;
  let bySpin = 0;
  let n = 0;
  for (const g of lockGroups(rows)) {
    if (g.callers.length === 0 || g.lock.spin === 0) continue;
    n++;
    const iv = printedTimeInterval(g.lock.waitMeanUs);
    const weighted = (w: (r: LockRow) => number): Interval => {
      const sw = g.callers.reduce((s, r) => s + w(r), 0);
      const lo = g.callers.reduce((s, r) => s + w(r) * (r.waitMaxUs === null ? 0 : printedTimeInterval(r.waitMeanUs).lo), 0) / sw;
      const hi = g.callers.reduce((s, r) => s + w(r) * (r.waitMaxUs === null ? 0 : printedTimeInterval(r.waitMeanUs).hi), 0) / sw;
      return { lo, hi };
    };
    if (overlaps(iv, weighted((r) => r.total))) byTotal++;
    if (overlaps(iv, weighted((r) => r.spin))) bySpin++;
  }
  const singleSpinRows = rows.filter((r) => r.spin === 1 && r.waitMaxUs !== null);
  const singleSpinMatchingMaxOverTotal = singleSpinRows.filter((r) => {
    const iv = printedTimeInterval(r.waitMeanUs);
    const m = printedTimeInterval(r.waitMaxUs!);
    return overlaps(iv, { lo: m.lo / r.total, hi: m.hi / r.total });
  });
  const denominator =
    perSpinImpossible.length > 0 && perAcquisitionImpossible.length === 0
      ? "per acquisition"
      : perAcquisitionImpossible.length > 0 && perSpinImpossible.length === 0
        ? "per spin"
        : "undetermined";
  return {
    perSpinImpossible,
    perAcquisitionImpossible,
    lockMeanMatchesTotalWeighted: byTotal,
    lockMeanMatchesSpinWeighted: bySpin,
    locksWithCallers: n,
    singleSpinRows,
    singleSpinMatchingMaxOverTotal,
    denominator,
  };
}

/** Seconds lost spinning on one lock row under each reading of WAIT MEAN, with rounding bounds. */
export interface LostTime {
  perSpinS: number;
  perSpinBounds: Interval;
  perAcquisitionS: number;
  perAcquisitionBounds: Interval;
}

/** WAIT MEAN × SPIN and WAIT MEAN × TOTAL, in seconds. */
export function lostTime(r: LockRow): LostTime {
  const iv = printedTimeInterval(r.waitMeanUs);
  return {
    perSpinS: (r.waitMeanUs * r.spin) / 1e6,
    perSpinBounds: { lo: (iv.lo * r.spin) / 1e6, hi: (iv.hi * r.spin) / 1e6 },
    perAcquisitionS: (r.waitMeanUs * r.total) / 1e6,
    perAcquisitionBounds: { lo: (iv.lo * r.total) / 1e6, hi: (iv.hi * r.total) / 1e6 },
  };
}

/** "8way" → "8-way". */
export function sectionLabel(section: string): string {
  return section.replace(/way$/, "-way");
}
