/**
 * Claims of the Lahr 2001 thread ("kernel lock contention and scalability",
 * linux-kernel, Feb–Mar 2001): lockmeter 1.4.5 excerpts of a 2-way (no multiqueue
 * scheduler), 4-way and 8-way (Kravetz's multiqueue patch) PostgreSQL/pgbench server,
 * with Spraul's reply ("around 0.7 seconds were lost due to spinning", "the
 * contention is high, but the actual lost time is quite small"), Blanchard's
 * select(0) diagnosis of runqueue_lock, and Lahr's "largely alleviated by the
 * multiqueue scheduler patch".
 *
 * Run lengths are not taken from Spraul: they are recomputed from the tables
 * (UTIL is the share of the run's wall-clock time a lock was held, so a lock's
 * HOLD MEAN × TOTAL / UTIL is the run's length; the once-per-tick timer_bh count / HZ
 * checks it). CON is (SPIN + REJECT) / TOTAL: a REJECT is a failed trylock.
 */
import { claimEntry, type ClaimEntry } from "./entry.js";
import { fmt, fmtInt, fmtInterval, roundedInterval } from "./numbers.js";
import { figureVerdict, type Verdict } from "./verdicts.js";
import { SMALL_LOST_SHARE_PCT, conPct, conDefinitionCheck, runLengths, printedTimeInterval, lockGroups, waitMeanEvidence, lostTime, sectionLabel, type LockRow, type LahrData, type RunLength } from "./lahr-measures.js";
export { SMALL_LOST_SHARE_PCT, conPct, conDefinitionCheck, runLengths, printedTimeResolutionUs, printedTimeInterval, lockGroups, waitMeanEvidence, lostTime, sectionLabel, type LockRow, type SpraulFigures, type LahrData, type LockstatDefinitions, type RunLength, type WaitMeanEvidence, type LostTime } from "./lahr-measures.js";

/** A time in µs as lockmeter prints it (one decimal below 10 µs). */
function fmtTime(us: number): string {
  return `${fmt(us, us < 10 ? 1 : 0)} µs`;
}

function findLock(rows: readonly LockRow[], section: string, name: string): LockRow {
  const r = rows.find((x) => x.section === section && x.kind === "lock" && x.name === name);
  if (!r) throw new RangeError(`no lock row "${name}" in section ${section} of the Lahr tables`);
  return r;
}

function findRun(runs: readonly RunLength[], section: string): RunLength {
  const r = runs.find((x) => x.section === section);
  if (!r) throw new RangeError(`no run length for section ${section}`);
  return r;
}

function runLengthEntry(d: LahrData, runs: readonly RunLength[]): ClaimEntry {
  const sec = d.spraulSection;
  const r = findRun(runs, sec);
  const cpus = d.cpus[sec]!;
  // Spraul's two figures against the table: which of them is the run's wall-clock time?
  const cpuIsWall = r.bounds.lo <= d.spraul.cpuS && d.spraul.cpuS <= r.bounds.hi;
  const wallIsWall = r.bounds.lo <= d.spraul.wallS && d.spraul.wallS <= r.bounds.hi;
  const verdict: Verdict = wallIsWall ? "recomputed" : "not recomputed";
  const label = sectionLabel;
  const runText = runs
    .map((x) => `${label(x.section)} ${fmt(x.s, 0)} s ${fmtInterval(x.bounds, 0, " s")} (${x.lock}${x.tickS === null ? "" : `; ${x.tickSite} ${fmtInt(x.tickS * d.hz)} ticks / ${d.hz} Hz = ${fmt(x.tickS, 0)} s`})`)
    .join("; ");
  const others = r.perLock.filter((x) => x.lock !== r.lock).map((x) => `${x.lock} ${fmt(x.s, 0)} s`).join(", ");
  const values: Record<string, number | null> = {};
  for (const x of runs) {
    values[`runLengthS_${x.section}`] = x.s;
    values[`runLengthLoS_${x.section}`] = x.bounds.lo;
    values[`runLengthHiS_${x.section}`] = x.bounds.hi;
    values[`tickRunLengthS_${x.section}`] = x.tickS;
  }
  for (const x of r.perLock) values[`runLengthS_${sec}_${x.lock.replace(/\+0x[0-9a-f]+$/, "")}`] = x.s;
  values.cpuTimeS = cpus * r.s;
  values.spraulWallS = d.spraul.wallS;
  values.spraulCpuS = d.spraul.cpuS;
  values.spraulCpuOverCpus = d.spraul.cpuS / cpus;
  return claimEntry({
    id: "lahr-2001/run-lengths",
    source: "lahr-2001",
    claim: `Spraul: "The ${label(sec)} test ran for ~ ${fmt(d.spraul.wallS, 0)} seconds wall clock time (total cpu time ${fmt(d.spraul.cpuS, 0)} seconds)" — the denominators of every share of time in the thread`,
    published: `${label(sec)}: ~${fmt(d.spraul.wallS, 0)} s wall clock, ${fmt(d.spraul.cpuS, 0)} s CPU; the other runs' lengths were not posted`,
    recomputed: `wall-clock run lengths from HOLD MEAN × TOTAL / UTIL: ${runText}; ${label(sec)} from the other locks: ${others}. CPU time of the ${label(sec)} run: ${cpus} × ${fmt(r.s, 0)} s = ${fmtInt(cpus * r.s)} s`,
    uncertainty: `rounding of UTIL (±0.005 points) and HOLD MEAN (±½ printed unit): ${label(sec)} ${fmtInterval(r.bounds, 0, " s")}`,
    verdict,
    reason: cpuIsWall && !wallIsWall
      ? `the tables make the ${label(sec)} run ${fmt(r.s, 0)} s ${fmtInterval(r.bounds, 0, " s")} of wall-clock time (the timer_bh tick count gives ${fmt(r.tickS ?? NaN, 0)} s), so ${fmt(d.spraul.cpuS, 0)} s is the run's wall time, its CPU time on ${cpus} CPUs is ≈ ${fmtInt(cpus * r.s)} s, and Spraul's ~${fmt(d.spraul.wallS, 0)} s looks like ${fmt(d.spraul.cpuS, 0)} / ${cpus} = ${fmt(d.spraul.cpuS / cpus, 2)}`
      : wallIsWall
        ? `the tables give ${fmt(r.s, 0)} s of wall-clock time, which Spraul's ~${fmt(d.spraul.wallS, 0)} s matches`
        : `neither of Spraul's figures is the ${fmt(r.s, 0)} s the tables give`,
    basis: `UTIL is the share of the run's wall-clock time the lock was held (${d.lockstat.utilDenominator === "wall" ? `lockstat.c ${d.lockstat.version}: the cumulative hold time over the measurement's wall-clock time, "% of time that the lock was busy during the measurement"` : `lockstat.c ${d.lockstat.version} divides by CPU time, which this entry does not handle`}), HOLD MEAN × TOTAL its total hold time; per table the lock row whose rounding allows the narrowest range; check: the timer_bh call site with the smaller count runs once per tick, HZ = ${d.hz} (data/published/lahr-2001/context.json)`,
    values,
  });
}

function lostTimeEntries(d: LahrData, runs: readonly RunLength[]): ClaimEntry[] {
  const sem = findLock(d.rows, d.spraulSection, d.spraulLock);
  const ev = waitMeanEvidence(d.rows);
  const lt = lostTime(sem);
  const run = findRun(runs, d.spraulSection);
  const cpus = d.cpus[d.spraulSection]!;
  const wallS = run.s;
  const cpuS = cpus * run.s;
  // The same products summed over the lock's caller rows: a lock row sums its callers, so
  // the reading that is right must give the lock row's figure again.
  const callers = lockGroups(d.rows).find((g) => g.lock === sem)?.callers ?? [];
  const callersSpin = callers.reduce((s, r) => s + lostTime(r).perSpinS, 0);
  const callersAcq = callers.reduce((s, r) => s + lostTime(r).perAcquisitionS, 0);
  const published = roundedInterval(d.spraul.lostS, d.spraul.lostDecimals);
  const spinVerdict = figureVerdict(published, lt.perSpinBounds);
  const acqVerdict = figureVerdict(published, lt.perAcquisitionBounds);
  // The tool's own definition settles the reading (lockstat.c: the cumulative wait over the spin
  // count); the rows say whether this output followed it.
  const tool = d.lockstat;
  const toolPerSpin = tool.waitMeanDivisor === "spin";
  const toolS = toolPerSpin ? lt.perSpinS : lt.perAcquisitionS;
  const toolBounds = toolPerSpin ? lt.perSpinBounds : lt.perAcquisitionBounds;
  const verdict: Verdict = toolPerSpin ? spinVerdict : acqVerdict;
  const rowsFollowTool = ev.denominator === "undetermined" || ev.denominator === (toolPerSpin ? "per spin" : "per acquisition");
  const toolName = `lockstat.c ${tool.version} (John Hawkes, SGI; ${tool.url})`;
  const toolDef = toolPerSpin ? `the cumulative spin-wait time divided by the number of acquisitions that spun` : `the cumulative wait divided by all acquisitions`;
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
  const single = ev.singleSpinMatchingMaxOverTotal[0];
  const singleText = single
    ? `${ev.singleSpinMatchingMaxOverTotal.length} of the ${ev.singleSpinRows.length} rows with a single spin print WAIT MAX / TOTAL (e.g. ${sectionLabel(single.section ?? "?")} ${single.name}: ${fmtInt(single.waitMaxUs!)} / ${fmtInt(single.total)} = ${fmt(single.waitMaxUs! / single.total, 1)}, printed ${fmtTime(single.waitMeanUs)}; per spin it would print the whole ${fmtTime(single.waitMaxUs!)})`
    : `no row has a single spin`;
  const cpuShare = (s: number) => (100 * s) / cpuS;
  const wallShare = (s: number) => (100 * s) / wallS;
  const reading = ev.denominator === "per acquisition" ? lt.perAcquisitionS : lt.perSpinS;
  const readingBounds = ev.denominator === "per acquisition" ? lt.perAcquisitionBounds : lt.perSpinBounds;
  const sectionLocks = lockGroups(d.rows)
    .map((g) => g.lock)
    .filter((r) => r.section === d.spraulSection);
  const lostOf = (r: LockRow) => (ev.denominator === "per spin" ? lostTime(r).perSpinS : lostTime(r).perAcquisitionS);
  const lostHiOf = (r: LockRow) => (ev.denominator === "per spin" ? lostTime(r).perSpinBounds.hi : lostTime(r).perAcquisitionBounds.hi);
  const allLost = sectionLocks.reduce((s, r) => s + lostOf(r), 0);
  const allLostHi = sectionLocks.reduce((s, r) => s + lostHiOf(r), 0);
  const maxCon = Math.max(...sectionLocks.map((r) => r.conPct));
  const conRecomputed = conPct(sem);
  const highest = sem.conPct === maxCon;
  const lostSmall = cpuShare(readingBounds.hi) < SMALL_LOST_SHARE_PCT && cpuShare(allLostHi) < SMALL_LOST_SHARE_PCT;
  const smallVerdict: Verdict = highest && lostSmall ? "recomputed" : "not recomputed";
  const secLabel = sectionLabel(d.spraulSection);
  const conCheck = conDefinitionCheck(d.rows);
  const readingName = ev.denominator === "per spin" ? "per spin" : "per acquisition (TOTAL)";
  return [
    claimEntry({
      id: "lahr-2001/spraul-lost-time",
      source: "lahr-2001",
      claim: `Spraul: "around ${fmt(d.spraul.lostS, d.spraul.lostDecimals)} seconds were lost due to spinning" (on ${d.spraulLock}, ${secLabel})`,
      published: `~${fmt(d.spraul.lostS, d.spraul.lostDecimals)} s lost`,
      recomputed:
        `${d.spraulLock} (${secLabel} lock row): SPIN × WAIT MEAN = ${fmtInt(sem.spin)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lt.perSpinS, 3)} s; ` +
        `TOTAL × WAIT MEAN = ${fmtInt(sem.total)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lt.perAcquisitionS, 3)} s ` +
        `(${fmt(wallShare(reading), 3)}% of the ${fmt(wallS, 0)} s run, ${fmt(cpuShare(reading), 4)}% of its ${fmtInt(cpuS)} CPU-seconds). ` +
        `Summed over its ${callers.length} caller rows: per spin ${fmt(callersSpin, 3)} s, per acquisition ${fmt(callersAcq, 3)} s`,
      uncertainty: `rounding of WAIT MEAN (${fmt(sem.waitMeanUs, 1)} µs = ${fmtInterval(printedTimeInterval(sem.waitMeanUs), 2, " µs")}): per spin ${fmtInterval(lt.perSpinBounds, 3, " s")}, per acquisition ${fmtInterval(lt.perAcquisitionBounds, 3, " s")}`,
      verdict,
      reason:
        verdict === "recomputed"
          ? `${fmt(d.spraul.lostS, d.spraul.lostDecimals)} s is ${toolPerSpin ? "SPIN" : "TOTAL"} × WAIT MEAN = ${fmt(toolS, 3)} s ${fmtInterval(toolBounds, 3, " s")}, the tool's own definition of the column (${toolName}: "Mean spin-wait wait time", ${toolDef}), so his arithmetic holds. ` +
            (rowsFollowTool
              ? ev.denominator === "undetermined"
                ? `No row contradicts that definition (the tables alone do not decide between per spin and per acquisition)`
                : `The rows agree with that definition`
              : `This output (kernels with the lockmeter 1.4.5 patch; which lockstat printed it is not stated) does not follow it in every row: under it ${ev.perSpinImpossible.length} rows are impossible (one wait longer than all waits together, e.g. ${examples}); ` +
                `${singleText}; lock-row means are their callers' means weighted by TOTAL for ${ev.lockMeanMatchesTotalWeighted} of ${ev.locksWithCallers} locks, by SPIN for ${ev.lockMeanMatchesSpinWeighted}. ` +
                `So the means of this output were evidently divided by TOTAL, which makes the lost time ${fmt(reading, 2)} s ${fmtInterval(readingBounds, 2, " s")}; ` +
                `either way his conclusion stands: ${fmt(cpuShare(toolS), 4)}% or ${fmt(cpuShare(reading), 3)}% of the run's CPU time (lahr-2001/contention-high-lost-small)`)
          : `the tool's own definition (${toolName}: ${toolDef}) gives ${fmt(toolS, 3)} s ${fmtInterval(toolBounds, 3, " s")}, not ${fmt(d.spraul.lostS, d.spraul.lostDecimals)} s` +
            (ev.denominator === "undetermined" ? `; the tables do not decide whether WAIT MEAN is per spin (${fmt(lt.perSpinS, 3)} s) or per acquisition (${fmt(lt.perAcquisitionS, 3)} s)` : ""),
      basis:
        `${secLabel} table, lock row ${d.spraulLock} (columns SPIN, TOTAL, WAIT MEAN); lost time = cumulative wait = WAIT MEAN × the count the mean divides by: by the tool's definition (lockstat.c ${tool.version}, data/published/lahr-2001/context.json) the ${toolPerSpin ? "spin count" : "acquisitions"}. Whether this output followed it: ` +
        `Which count: a single wait (WAIT MAX) cannot exceed the cumulative wait (${ev.perSpinImpossible.length} rows violate that for SPIN, ${ev.perAcquisitionImpossible.length} for TOTAL); a row with one spin has one wait; a lock row sums its callers. ` +
        `Run length ${fmt(wallS, 0)} s from lahr-2001/run-lengths, CPU time = ${cpus} CPUs × that`,
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
        runLengthS: wallS,
        cpuTimeS: cpuS,
        lostShareOfWallPct: wallShare(reading),
        lostShareOfCpuPct: cpuShare(reading),
        toolLostS: toolS,
        toolLostShareOfCpuPct: cpuShare(toolS),
        rowsPerSpinImpossible: ev.perSpinImpossible.length,
        rowsPerAcquisitionImpossible: ev.perAcquisitionImpossible.length,
        singleSpinRows: ev.singleSpinRows.length,
        singleSpinRowsMaxOverTotal: ev.singleSpinMatchingMaxOverTotal.length,
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
        `CON = (SPIN + REJECT)/TOTAL = ${fmt(conRecomputed, 2)}%, the highest of the ${sectionLocks.length} ${secLabel} locks listed (others: ${sectionLocks.filter((r) => r !== sem).map((r) => `${r.name} ${fmt(r.conPct, 2)}%`).join(", ")}); ` +
        `lost time (${readingName}) ${fmt(reading, 2)} s = ${fmt(cpuShare(reading), 3)}% of the run's ${fmtInt(cpuS)} CPU-seconds (${fmt(wallShare(reading), 2)}% of its ${fmt(wallS, 0)} s wall time); ` +
        `all ${sectionLocks.length} listed locks together ${fmt(allLost, 2)} s = ${fmt(cpuShare(allLost), 3)}% of CPU time, ${fmt(wallShare(allLost), 2)}% of wall time`,
      uncertainty: `WAIT MEAN rounding: ${d.spraulLock} ${fmtInterval({ lo: cpuShare(readingBounds.lo), hi: cpuShare(readingBounds.hi) }, 4, "%")} of CPU time; all listed locks at most ${fmt(cpuShare(allLostHi), 3)}% of CPU time, ${fmt(wallShare(allLostHi), 2)}% of wall time`,
      verdict: smallVerdict,
      reason:
        smallVerdict === "recomputed"
          ? `${fmt(sem.conPct, 2)}% of acquisitions wait (highest CON in the ${secLabel} excerpt), yet the waiting costs ${fmt(cpuShare(reading), 3)}% of CPU time, and all listed locks together ${fmt(cpuShare(allLost), 2)}%, under the ${SMALL_LOST_SHARE_PCT}% threshold. ` +
            `Measured against one CPU's time (the wall time) instead, all listed locks reach ${fmt(wallShare(allLost), 2)}%, ` +
            (wallShare(allLostHi) >= SMALL_LOST_SHARE_PCT ? `which touches the threshold at the rounding limit` : `near the ${SMALL_LOST_SHARE_PCT}% threshold`)
          : !highest
            ? `${d.spraulLock} is not the most contended lock listed (${fmt(sem.conPct, 2)}% vs ${fmt(maxCon, 2)}%)`
            : `the lost time reaches ${fmt(cpuShare(allLostHi), 2)}% of CPU time, not below ${SMALL_LOST_SHARE_PCT}%`,
      basis:
        `"high": highest CON among the ${secLabel} lock rows; CON = (SPIN + REJECT)/TOTAL, which the printed CON matches in ${conCheck.matchSpinPlusReject} of ${conCheck.rows} rows (SPIN/TOTAL alone in ${conCheck.matchSpinOnly}: the ${conCheck.withReject} rows with REJECTs differ); ` +
        `"small": below ${SMALL_LOST_SHARE_PCT}% of the run's CPU time (${cpus} CPUs × the ${fmt(wallS, 0)} s of lahr-2001/run-lengths), WAIT MEAN read ${readingName} (lahr-2001/spraul-lost-time)`,
      values: {
        conPct: sem.conPct,
        conRecomputedPct: conRecomputed,
        conRowsMatching: conCheck.matchSpinPlusReject,
        conRowsMatchingSpinOnly: conCheck.matchSpinOnly,
        conRows: conCheck.rows,
        lostS: reading,
        lostShareOfCpuPct: cpuShare(reading),
        allLocksLostS: allLost,
        allLocksLostHiS: allLostHi,
        allLocksShareOfCpuPct: cpuShare(allLost),
        allLocksShareOfWallPct: wallShare(allLost),
        allLocksShareOfWallHiPct: wallShare(allLostHi),
      },
    }),
    claimEntry({
      id: "lahr-2001/not-major-problem",
      source: "lahr-2001",
      claim: `Lahr, answering Spraul: "I agree it isn't a major performance problem under that workload."`,
      published: "no figure",
      recomputed: `the same figures: ${d.spraulLock} ${fmt(reading, 2)} s lost (${fmt(cpuShare(reading), 3)}% of CPU time); all listed ${secLabel} locks ${fmt(cpuShare(allLost), 2)}%`,
      uncertainty: null,
      verdict: smallVerdict === "recomputed" ? "consistent" : "not recomputed",
      reason:
        smallVerdict === "recomputed"
          ? `the tables agree: the spinning costs well under ${SMALL_LOST_SHARE_PCT}% of CPU time; his point that other workloads might suffer more is not checkable from these runs`
          : `the tables put the lost time at ${fmt(cpuShare(allLostHi), 2)}% of CPU time`,
      basis: `as lahr-2001/contention-high-lost-small`,
      values: { lostShareOfCpuPct: cpuShare(reading), allLocksShareOfCpuPct: cpuShare(allLost) },
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
  const verdict: Verdict = higherAfter ? "not recomputed" : "consistent";
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
  const verdict: Verdict = dominant ? "consistent" : "not recomputed";
  // PostgreSQL's spinlock back-off: select() delays of 0 (returns at once) and of 10 ms (arms a timer that expires).
  const timedDelays = d.backoffUs.filter((us) => us > 0).length;
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
          ? `; most sleeps were timed and ran to expiry (${fmt(expired, 0)}% of armed timers fired), which a select() with a {0,0} timeout would not produce (2.4's do_select returns before schedule_timeout when the timeout is 0) — but PostgreSQL's back-off table mixes the two: ${timedDelays} of its ${d.backoffUs.length} select() delays are ${fmtInt(Math.max(...d.backoffUs) / 1000)} ms and ${d.backoffUs.length - timedDelays} are 0, so timed sleeps that run to expiry refine his diagnosis rather than cut against it`
          : "")
      : `schedule+0xe0 does not dominate runqueue_lock in the table`,
    basis: `${sectionLabel(d.withoutMq)} table, runqueue_lock lock row and its caller rows (UTIL, SPIN, TOTAL); PostgreSQL's back-off delays from data/published/lahr-2001/context.json`,
    values: {
      utilSharePct: utilShare,
      spinSharePct: spinShare,
      acquisitionSharePct: acqShare,
      scheduleSitesUtilPct: schedUtil,
      callersUtilSumPct: callerUtil,
      lockUtilPct: L.utilPct,
      expiredTimersPct: expired,
      backoffTimedDelays: timedDelays,
      backoffDelays: d.backoffUs.length,
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

function timerCountsEntry(d: LahrData, runs: readonly RunLength[]): ClaimEntry {
  const sections = [d.withoutMq, ...d.withMq];
  const count = (sec: string, fn: string) => busiestSite(d.rows, sec, fn)?.total ?? null;
  const len = (sec: string) => findRun(runs, sec).s;
  const rate = (sec: string, fn: string) => {
    const c = count(sec, fn);
    return c === null ? null : c / len(sec);
  };
  const perCpu = (sec: string, fn: string) => {
    const r = rate(sec, fn);
    return r === null ? null : r / d.cpus[sec]!;
  };
  const base = d.withoutMq;
  // "Extremely high": the 2-way run's rates above every other run's, per second and per CPU.
  const higher = TIMER_FUNCTIONS.filter((fn) => {
    const r = perCpu(base, fn);
    return r !== null && d.withMq.every((s) => perCpu(s, fn) === null || perCpu(s, fn)! < r);
  });
  const verdict: Verdict = higher.length === TIMER_FUNCTIONS.length ? "consistent" : "not recomputed";
  const addT = count(base, "add_timer");
  const pt = count(base, "process_timeout");
  const expiredShare = addT && pt ? (100 * pt) / addT : null;
  const first = d.withMq[0]!;
  const addRatio = (rate(base, "add_timer") ?? NaN) / (rate(first, "add_timer") ?? NaN);
  const countRatio = (count(base, "add_timer") ?? NaN) / (count(first, "add_timer") ?? NaN);
  const table = sections
    .map(
      (sec) =>
        `${sectionLabel(sec)} (${fmt(len(sec), 0)} s, ${d.cpus[sec]} CPUs): ` +
        TIMER_FUNCTIONS.map((fn) => (count(sec, fn) === null ? `${fn} not listed` : `${fn} ${fmtInt(count(sec, fn)!)} = ${fmtInt(rate(sec, fn)!)}/s (${fmtInt(perCpu(sec, fn)!)}/s per CPU)`)).join(", "),
    )
    .join("; ");
  const values: Record<string, number | null> = {};
  for (const sec of sections) for (const fn of TIMER_FUNCTIONS) values[`${fn}_${sec}`] = count(sec, fn);
  for (const sec of sections) for (const fn of TIMER_FUNCTIONS) values[`${fn}PerS_${sec}`] = rate(sec, fn);
  values.addTimerRateRatio = addRatio;
  values.addTimerCountRatio = countRatio;
  values.processTimeoutPerAddTimerPct = expiredShare;
  return claimEntry({
    id: "lahr-2001/spraul-timer-counts",
    source: "lahr-2001",
    claim: `Spraul: "The dual cpu numbers are really odd. Extremely high count of add_timer(), del_timer_sync(), schedule() and process_timeout()"`,
    published: `lockmeter acquisition counts (TOTAL) at those functions' call sites`,
    recomputed:
      `busiest call site per function, count and rate over the run lengths of lahr-2001/run-lengths: ${table}` +
      (expiredShare === null ? "" : `; in the ${sectionLabel(base)} run process_timeout runs for ${fmt(expiredShare, 1)}% of add_timer's count: nearly every timer armed expires`),
    uncertainty: `the run lengths' rounding (lahr-2001/run-lengths), a few per cent`,
    verdict,
    reason:
      verdict === "consistent"
        ? `with the run lengths from the tables the counts are rates: the ${sectionLabel(base)} run arms add_timer ${fmt(addRatio, 1)}× as often per second as the ${sectionLabel(first)} run, on half the CPUs (the raw counts differ only ${fmt(countRatio, 2)}×, because the ${sectionLabel(first)} run lasted ${fmt(len(first) / len(base), 1)}× longer), and all four functions run more often per CPU than in any other run: consistent with "extremely high"; the cause he suggests (a loop without signal_pending()) is not checkable from the tables`
        : `the ${sectionLabel(base)} run's rates are not the highest per CPU for ${TIMER_FUNCTIONS.filter((f) => !higher.includes(f as (typeof TIMER_FUNCTIONS)[number])).join(", ")}`,
    basis: `rows named <function>+<offset> (lock or caller rows) per table, the one with the largest TOTAL, divided by the run's wall-clock length; process_timeout is the timer callback, so its count against add_timer's is the share of armed timers that expired`,
    values,
  });
}

/** All Lahr-thread entries, in ledger order. */
export function lahrClaims(d: LahrData): ClaimEntry[] {
  const runs = runLengths(d.rows, [d.withoutMq, ...d.withMq], d.hz);
  return [runLengthEntry(d, runs), ...lostTimeEntries(d, runs), runqueueEntry(d), blanchardEntry(d), timerCountsEntry(d, runs)];
}
