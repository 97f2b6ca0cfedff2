/**
 * Claims of the Lahr 2001 thread ("kernel lock contention and scalability",
 * linux-kernel, Feb–Mar 2001): lockmeter 1.4.5 excerpts of a 2-way (no multiqueue
 * scheduler), 4-way and 8-way (Kravetz's multiqueue patch) PostgreSQL/pgbench server,
 * with Spraul's reply ("around 0.7 seconds were lost due to spinning", "the
 * contention is high, but the actual lost time is quite small"), Blanchard's
 * select(0) diagnosis of runqueue_lock, and Lahr's "largely alleviated by the
 * multiqueue scheduler patch".
 */
import { claimEntry, type ClaimEntry } from "./entry.js";
import { fmt, fmtInt, fmtInterval, roundedInterval } from "./numbers.js";
import { figureVerdict, overlaps, type Interval, type Verdict } from "./verdicts.js";

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
}

/** "Small" lost time: below this share of the run's CPU time (%). */
export const SMALL_LOST_SHARE_PCT = 1;

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

/** A time in µs as lockmeter prints it (one decimal below 10 µs). */
function fmtTime(us: number): string {
  return `${fmt(us, us < 10 ? 1 : 0)} µs`;
}

function findLock(rows: readonly LockRow[], section: string, name: string): LockRow {
  const r = rows.find((x) => x.section === section && x.kind === "lock" && x.name === name);
  if (!r) throw new RangeError(`no lock row "${name}" in section ${section} of the Lahr tables`);
  return r;
}

function lostTimeEntries(d: LahrData): ClaimEntry[] {
  const sem = findLock(d.rows, d.spraulSection, d.spraulLock);
  const ev = waitMeanEvidence(d.rows);
  const lt = lostTime(sem);
  // The same products summed over the lock's caller rows: a lock row sums its callers, so
  // the reading that is right must give the lock row's figure again.
  const callers = lockGroups(d.rows).find((g) => g.lock === sem)?.callers ?? [];
  const callersSpin = callers.reduce((s, r) => s + lostTime(r).perSpinS, 0);
  const callersAcq = callers.reduce((s, r) => s + lostTime(r).perAcquisitionS, 0);
  const published = roundedInterval(d.spraul.lostS, d.spraul.lostDecimals);
  const spinVerdict = figureVerdict(published, lt.perSpinBounds);
  const acqVerdict = figureVerdict(published, lt.perAcquisitionBounds);
  let verdict: Verdict;
  if (ev.denominator === "per acquisition") verdict = acqVerdict;
  else if (ev.denominator === "per spin") verdict = spinVerdict;
  else verdict = spinVerdict === "reproduced" || acqVerdict === "reproduced" ? "consistent" : "not reproduced";
  // The clearest cases: the longest single wait is the most times the cumulative per-spin wait could be.
  const excess = (r: LockRow) => printedTimeInterval(r.waitMaxUs!).lo / (printedTimeInterval(r.waitMeanUs).hi * r.spin);
  const examples = ev.perSpinImpossible
    .slice()
    .sort((a, b) => excess(b) - excess(a))
    .slice(0, 2)
    .map(
      (r) =>
        `${sectionLabel(r.section ?? "?")} ${r.name}: ${fmtInt(r.spin)} spin${r.spin === 1 ? "" : "s"} × ${fmtTime(r.waitMeanUs)} = ${fmtTime(r.waitMeanUs * r.spin)} < longest wait ${fmtTime(r.waitMaxUs!)}`,
    )
    .join("; ");
  const cpuShare = (s: number) => (100 * s) / d.spraul.cpuS;
  const sectionLocks = lockGroups(d.rows)
    .map((g) => g.lock)
    .filter((r) => r.section === d.spraulSection);
  const allSpin = sectionLocks.reduce((s, r) => s + lostTime(r).perSpinS, 0);
  const allAcq = sectionLocks.reduce((s, r) => s + lostTime(r).perAcquisitionS, 0);
  const reading = ev.denominator === "per acquisition" ? lt.perAcquisitionS : lt.perSpinS;
  const readingBounds = ev.denominator === "per acquisition" ? lt.perAcquisitionBounds : lt.perSpinBounds;
  const maxCon = Math.max(...sectionLocks.map((r) => r.conPct));
  const conRecomputed = (100 * sem.spin) / sem.total;
  const highest = sem.conPct === maxCon;
  const lostSmallBoth = cpuShare(lt.perSpinBounds.hi) < SMALL_LOST_SHARE_PCT && cpuShare(lt.perAcquisitionBounds.hi) < SMALL_LOST_SHARE_PCT;
  const smallVerdict: Verdict = highest && lostSmallBoth ? "reproduced" : "not reproduced";
  const secLabel = sectionLabel(d.spraulSection);
  return [
    claimEntry({
      id: "lahr-2001/spraul-lost-time",
      source: "lahr-2001",
      claim: `Spraul: "The 8-way test ran for ~ 129 seconds wall clock time (total cpu time 1030 seconds), and around 0.7 seconds were lost due to spinning" (on ${d.spraulLock})`,
      published: `~${fmt(d.spraul.lostS, d.spraul.lostDecimals)} s lost of ${fmt(d.spraul.cpuS, 0)} s CPU / ${fmt(d.spraul.wallS, 0)} s wall`,
      recomputed:
        `${d.spraulLock} (${secLabel} lock row): SPIN × WAIT MEAN = ${fmtInt(sem.spin)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lt.perSpinS, 3)} s; ` +
        `TOTAL × WAIT MEAN = ${fmtInt(sem.total)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lt.perAcquisitionS, 3)} s ` +
        `(${fmt(cpuShare(lt.perSpinS), 3)}% or ${fmt(cpuShare(lt.perAcquisitionS), 3)}% of ${fmt(d.spraul.cpuS, 0)} s CPU; ${fmt((100 * lt.perAcquisitionS) / d.spraul.wallS, 2)}% of ${fmt(d.spraul.wallS, 0)} s wall). ` +
        `Summed over its ${callers.length} caller rows: per spin ${fmt(callersSpin, 3)} s, per acquisition ${fmt(callersAcq, 3)} s`,
      uncertainty: `rounding of WAIT MEAN (${fmt(sem.waitMeanUs, 1)} µs = ${fmtInterval(printedTimeInterval(sem.waitMeanUs), 2, " µs")}): per spin ${fmtInterval(lt.perSpinBounds, 3, " s")}, per acquisition ${fmtInterval(lt.perAcquisitionBounds, 3, " s")}`,
      verdict,
      reason:
        ev.denominator === "per acquisition"
          ? `${fmt(d.spraul.lostS, d.spraul.lostDecimals)} s is SPIN × WAIT MEAN, i.e. WAIT MEAN read as per spin; the tables rule that out (${ev.perSpinImpossible.length} rows where the longest single wait exceeds MEAN × SPIN, e.g. ${examples}) and fit a mean over all acquisitions, which gives ${fmt(reading, 2)} s ${fmtInterval(readingBounds, 2, " s")}`
          : ev.denominator === "per spin"
            ? `WAIT MEAN is per spin in these tables, and SPIN × WAIT MEAN gives ${fmt(reading, 3)} s ${fmtInterval(readingBounds, 3, " s")}`
            : `the tables do not decide whether WAIT MEAN is per spin (${fmt(lt.perSpinS, 3)} s) or per acquisition (${fmt(lt.perAcquisitionS, 3)} s)`,
      basis:
        `${secLabel} table, lock row ${d.spraulLock} (columns SPIN, TOTAL, WAIT MEAN); lost time = cumulative wait = WAIT MEAN × the count the mean divides by. ` +
        `Which count: the caller rows must add up to the lock row; a single wait (WAIT MAX) cannot exceed the cumulative wait; ${ev.perSpinImpossible.length} rows violate that for SPIN, ${ev.perAcquisitionImpossible.length} for TOTAL; ` +
        `lock-row means equal their callers' means weighted by TOTAL for ${ev.lockMeanMatchesTotalWeighted} of ${ev.locksWithCallers} locks, by SPIN for ${ev.lockMeanMatchesSpinWeighted}`,
      values: {
        spin: sem.spin,
        total: sem.total,
        waitMeanUs: sem.waitMeanUs,
        lostPerSpinS: lt.perSpinS,
        lostPerAcquisitionS: lt.perAcquisitionS,
        lostPerAcquisitionLoS: lt.perAcquisitionBounds.lo,
        lostPerAcquisitionHiS: lt.perAcquisitionBounds.hi,
        callersLostPerSpinS: callersSpin,
        callersLostPerAcquisitionS: callersAcq,
        cpuS: d.spraul.cpuS,
        wallS: d.spraul.wallS,
        cpuOverWall: d.spraul.cpuS / d.spraul.wallS,
        rowsPerSpinImpossible: ev.perSpinImpossible.length,
        rowsPerAcquisitionImpossible: ev.perAcquisitionImpossible.length,
        locksMatchingTotalWeighted: ev.lockMeanMatchesTotalWeighted,
        locksMatchingSpinWeighted: ev.lockMeanMatchesSpinWeighted,
        locksWithCallers: ev.locksWithCallers,
      },
    }),
    claimEntry({
      id: "lahr-2001/contention-high-lost-small",
      source: "lahr-2001",
      claim: `Spraul: "The contention is high, but the actual lost time is quite small." (${d.spraulLock}, ${secLabel})`,
      published: `CON ${fmt(sem.conPct, 2)}% (Lahr's table); lost time "around ${fmt(d.spraul.lostS, d.spraul.lostDecimals)} s"`,
      recomputed:
        `CON = SPIN/TOTAL = ${fmt(conRecomputed, 2)}%, the highest of the ${sectionLocks.length} ${secLabel} locks listed (others: ${sectionLocks.filter((r) => r !== sem).map((r) => `${r.name} ${fmt(r.conPct, 2)}%`).join(", ")}); ` +
        `lost time ${fmt(cpuShare(lt.perSpinS), 3)}% (per spin) to ${fmt(cpuShare(lt.perAcquisitionS), 3)}% (per acquisition) of the ${fmt(d.spraul.cpuS, 0)} s CPU time; ` +
        `all ${sectionLocks.length} listed locks together ${fmt(allSpin, 2)}–${fmt(allAcq, 2)} s = ${fmt(cpuShare(allSpin), 2)}–${fmt(cpuShare(allAcq), 2)}%`,
      uncertainty: `per-acquisition reading with WAIT MEAN rounding: ${fmtInterval({ lo: cpuShare(lt.perAcquisitionBounds.lo), hi: cpuShare(lt.perAcquisitionBounds.hi) }, 3, "%")} of CPU time`,
      verdict: smallVerdict,
      reason:
        smallVerdict === "reproduced"
          ? `${fmt(sem.conPct, 2)}% of acquisitions spin (highest CON in the ${secLabel} excerpt), yet under either reading of WAIT MEAN the spinning costs under ${SMALL_LOST_SHARE_PCT}% of CPU time (at most ${fmt(cpuShare(lt.perAcquisitionBounds.hi), 2)}%)`
          : !highest
            ? `${d.spraulLock} is not the most contended lock listed (${fmt(sem.conPct, 2)}% vs ${fmt(maxCon, 2)}%)`
            : `the lost time reaches ${fmt(cpuShare(lt.perAcquisitionBounds.hi), 2)}% of CPU time, not below ${SMALL_LOST_SHARE_PCT}%`,
      basis: `"high": highest CON among the ${secLabel} lock rows; "small": below ${SMALL_LOST_SHARE_PCT}% of the ${fmt(d.spraul.cpuS, 0)} s CPU time (≈ ${fmt(d.spraul.cpuS / d.spraul.wallS, 2)} CPUs × ${fmt(d.spraul.wallS, 0)} s) under both readings of WAIT MEAN`,
      values: {
        conPct: sem.conPct,
        conRecomputedPct: conRecomputed,
        lostSharePerSpinPct: cpuShare(lt.perSpinS),
        lostSharePerAcquisitionPct: cpuShare(lt.perAcquisitionS),
        allLocksLostPerSpinS: allSpin,
        allLocksLostPerAcquisitionS: allAcq,
      },
    }),
  ];
}

function runqueueEntry(d: LahrData): ClaimEntry {
  const before = findLock(d.rows, d.withoutMq, "runqueue_lock");
  const after = d.withMq.map((sec) => {
    const locks = d.rows.filter((r) => r.section === sec && r.kind === "lock");
    const named = locks.find((r) => r.name === "runqueue_lock") ?? null;
    // Locks lockmeter could not name are listed under their caller; those taken in the scheduler.
    const schedulerSites = locks.filter((r) => /^(schedule|reschedule_idle|wake_up_process|__wake_up)\+/.test(r.name));
    const minCon = Math.min(...locks.map((r) => r.conPct));
    return { sec, locks, named, schedulerSites, minCon };
  });
  const absentEverywhere = after.every((a) => a.named === null);
  const higherAfter = after.some((a) => a.named !== null && a.named.utilPct >= before.utilPct);
  const verdict: Verdict = higherAfter ? "not reproduced" : "consistent";
  const label = sectionLabel;
  const siteText = after
    .map((a) =>
      a.schedulerSites.length === 0
        ? `${label(a.sec)}: none`
        : `${label(a.sec)}: ${a.schedulerSites.map((r) => `${r.name} (UTIL ${fmt(r.utilPct, 2)}%, CON ${fmt(r.conPct, 2)}%)`).join(", ")}`,
    )
    .join("; ");
  return claimEntry({
    id: "lahr-2001/runqueue-lock-after-mq",
    source: "lahr-2001",
    claim: `Lahr: runqueue_lock contention "was largely alleviated by the multiqueue scheduler patch" (${label(d.withoutMq)} without it; ${d.withMq.map(label).join(" and ")} with it)`,
    published: `${label(d.withoutMq)}: runqueue_lock UTIL ${fmt(before.utilPct, 2)}%, CON ${fmt(before.conPct, 2)}%; ${d.withMq.map(label).join(" and ")}: not listed`,
    recomputed:
      `runqueue_lock rows: ${label(d.withoutMq)} ${fmtInt(before.total)} acquisitions, ${fmtInt(before.spin)} spins; ` +
      after.map((a) => `${label(a.sec)} ${a.named ? `UTIL ${fmt(a.named.utilPct, 2)}%` : "absent"}`).join(", ") +
      `. Unnamed locks listed under scheduler call sites (per-CPU runqueue locks are one candidate): ${siteText}. ` +
      `Lowest CON among the locks listed: ${after.map((a) => `${label(a.sec)} ${fmt(a.minCon, 2)}%`).join(", ")}`,
    uncertainty: null,
    verdict,
    reason: absentEverywhere
      ? `runqueue_lock (${fmt(before.utilPct, 2)}% UTIL without the patch) is missing from both excerpts with the patch; but the excerpts list only "the more contentious locks" without a stated cut-off, and the runs differ in CPU count, CPU model and kernel, so absence is weak evidence and no before/after on one machine exists`
      : higherAfter
        ? `runqueue_lock is as busy or busier with the patch`
        : `runqueue_lock is listed with the patch but less busy; the runs differ in CPU count, CPU model and kernel`,
    basis: `lock rows named runqueue_lock per table; configuration: ${Object.entries(d.configuration).map(([k, v]) => `${label(k)} ${v}`).join("; ")}`,
    values: {
      beforeUtilPct: before.utilPct,
      beforeConPct: before.conPct,
      afterTablesListingIt: after.filter((a) => a.named !== null).length,
      ...Object.fromEntries(after.map((a) => [`minConListed_${a.sec}`, a.minCon])),
      ...Object.fromEntries(after.map((a) => [`schedulerSiteUtilPct_${a.sec}`, a.schedulerSites.reduce((s, r) => s + r.utilPct, 0)])),
    },
  });
}

function blanchardEntry(d: LahrData): ClaimEntry {
  const groups = lockGroups(d.rows).filter((g) => g.lock.section === d.withoutMq && g.lock.name === "runqueue_lock");
  const g = groups[0];
  if (!g) throw new RangeError(`no runqueue_lock group in section ${d.withoutMq}`);
  const site = g.callers.find((r) => r.name === "schedule+0xe0");
  if (!site) throw new RangeError("no schedule+0xe0 caller row under runqueue_lock");
  const L = g.lock;
  const sched = g.callers.filter((r) => r.name.startsWith("schedule+"));
  const timeout = g.callers.find((r) => r.name.startsWith("process_timeout+"));
  // Timers armed in the same run: every expiry runs process_timeout, which takes runqueue_lock to wake the sleeper.
  const addTimer = busiestSite(d.rows, d.withoutMq, "add_timer");
  const expired = timeout && addTimer ? (100 * timeout.total) / addTimer.total : null;
  const share = (x: number, of: number) => (100 * x) / of;
  const utilShare = share(site.utilPct, L.utilPct);
  const spinShare = share(site.spin, L.spin);
  const acqShare = share(site.total, L.total);
  const schedUtil = sched.reduce((s, r) => s + r.utilPct, 0);
  const callerUtil = g.callers.reduce((s, r) => s + r.utilPct, 0);
  // Dominance: one call site holds the lock most of the time and causes most of the spinning.
  const dominant = utilShare > 50 && spinShare > 50;
  const verdict: Verdict = dominant ? "consistent" : "not reproduced";
  return claimEntry({
    id: "lahr-2001/blanchard-select-schedule",
    source: "lahr-2001",
    claim: `Blanchard: the runqueue_lock contention "is due to a bug in postgres … the threads do a load of select(0, NULL, NULL, NULL, {0,0}). Basically all threads are pounding on schedule()"`,
    published: `runqueue_lock UTIL ${fmt(L.utilPct, 2)}% CON ${fmt(L.conPct, 2)}%; schedule+0xe0 UTIL ${fmt(site.utilPct, 2)}% CON ${fmt(site.conPct, 2)}%`,
    recomputed:
      `schedule+0xe0 has ${fmt(utilShare, 1)}% of runqueue_lock's hold time (UTIL ${fmt(site.utilPct, 2)} of ${fmt(L.utilPct, 2)}), ` +
      `${fmt(spinShare, 1)}% of its spins (${fmtInt(site.spin)} of ${fmtInt(L.spin)}) and ${fmt(acqShare, 1)}% of its acquisitions (${fmtInt(site.total)} of ${fmtInt(L.total)}); ` +
      `all schedule+ sites: UTIL ${fmt(schedUtil, 2)}%` +
      (timeout ? `; ${timeout.name}, the timer callback that wakes a sleeper: ${fmtInt(timeout.total)} acquisitions (${fmt(share(timeout.total, L.total), 1)}%)` : "") +
      (expired === null ? "" : `, ${fmt(expired, 1)}% of the ${fmtInt(addTimer!.total)} timers armed at ${addTimer!.name}`),
    uncertainty: `UTIL printed to 0.01%: callers sum to ${fmt(callerUtil, 2)}% against the lock's ${fmt(L.utilPct, 2)}%`,
    verdict,
    reason: dominant
      ? `the table agrees that schedule() dominates runqueue_lock (${fmt(utilShare, 0)}% of hold time, ${fmt(spinShare, 0)}% of spins); that the calls come from PostgreSQL's s_lock select() back-off is from Blanchard's strace, which is not in the tables` +
        (expired !== null && expired > 50
          ? `; the timer counts suggest that most sleeps were timed and ran to expiry (${fmt(expired, 0)}% of armed timers fired), which a select() with a {0,0} timeout would not produce (2.4's do_select returns before schedule_timeout when the timeout is 0)`
          : "")
      : `schedule+0xe0 does not dominate runqueue_lock in the table`,
    basis: `${sectionLabel(d.withoutMq)} table, runqueue_lock lock row and its caller rows (UTIL, SPIN, TOTAL)`,
    values: {
      utilSharePct: utilShare,
      spinSharePct: spinShare,
      acquisitionSharePct: acqShare,
      scheduleSitesUtilPct: schedUtil,
      callersUtilSumPct: callerUtil,
      lockUtilPct: L.utilPct,
      expiredTimersPct: expired,
    },
  });
}

/** The functions whose counts Spraul calls "extremely high" in the 2-way run. */
const TIMER_FUNCTIONS = ["add_timer", "del_timer_sync", "schedule", "process_timeout"] as const;

/** The busiest call site (largest TOTAL) of `fn` in a section, lock or caller row, or null. */
function busiestSite(rows: readonly LockRow[], section: string, fn: string): LockRow | null {
  const sites = rows.filter((r) => r.section === section && r.name.startsWith(`${fn}+`));
  return sites.reduce<LockRow | null>((best, r) => (best === null || r.total > best.total ? r : best), null);
}

function timerCountsEntry(d: LahrData): ClaimEntry {
  const sections = [d.withoutMq, ...d.withMq];
  const count = (sec: string, fn: string) => busiestSite(d.rows, sec, fn)?.total ?? null;
  // Run lengths: only Spraul's wall-clock time of one run is known.
  const durations: Record<string, number | null> = Object.fromEntries(sections.map((s) => [s, s === d.spraulSection ? d.spraul.wallS : null]));
  const checkable = durations[d.withoutMq] !== null && d.withMq.some((s) => durations[s] !== null);
  const verdict: Verdict = checkable ? "consistent" : "not checkable";
  const addT = count(d.withoutMq, "add_timer");
  const pt = count(d.withoutMq, "process_timeout");
  const expiredShare = addT && pt ? (100 * pt) / addT : null;
  const table = sections
    .map((sec) => `${sectionLabel(sec)}: ${TIMER_FUNCTIONS.map((fn) => `${fn} ${count(sec, fn) === null ? "not listed" : fmtInt(count(sec, fn)!)}`).join(", ")}`)
    .join("; ");
  const values: Record<string, number | null> = {};
  for (const sec of sections) for (const fn of TIMER_FUNCTIONS) values[`${fn}_${sec}`] = count(sec, fn);
  values.processTimeoutPerAddTimerPct = expiredShare;
  return claimEntry({
    id: "lahr-2001/spraul-timer-counts",
    source: "lahr-2001",
    claim: `Spraul: "The dual cpu numbers are really odd. Extremely high count of add_timer(), del_timer_sync(), schedule() and process_timeout()"`,
    published: `lockmeter acquisition counts (TOTAL) at those functions' call sites`,
    recomputed:
      `busiest call site per function (TOTAL): ${table}` +
      (expiredShare === null ? "" : `; in the ${sectionLabel(d.withoutMq)} run process_timeout runs for ${fmt(expiredShare, 1)}% of add_timer's count: nearly every timer armed expires`),
    uncertainty: null,
    verdict,
    reason: checkable
      ? `run lengths are known, so the counts can be compared as rates`
      : `the excerpts give counts, not rates: only the ${sectionLabel(d.spraulSection)} run's length is posted (${fmt(d.spraul.wallS, 0)} s), so "high" cannot be judged` +
        (addT !== null && count(d.withMq[0]!, "add_timer") !== null
          ? `; in absolute terms the ${sectionLabel(d.withoutMq)} run's add_timer count is ${fmt(addT / count(d.withMq[0]!, "add_timer")!, 2)} times the ${sectionLabel(d.withMq[0]!)} run's`
          : ""),
    basis: `rows named <function>+<offset> (lock or caller rows) per table, the one with the largest TOTAL; process_timeout is the timer callback, so its count against add_timer's is the share of armed timers that expired`,
    values,
  });
}

/** All Lahr-thread entries, in ledger order. */
export function lahrClaims(d: LahrData): ClaimEntry[] {
  return [...lostTimeEntries(d), runqueueEntry(d), blanchardEntry(d), timerCountsEntry(d)];
}
