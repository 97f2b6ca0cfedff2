/**
 * Notebook 01's reading of lockmeter's WAIT MEAN on Spraul's lock (the 8-way `sem_ids` row): which
 * rows rule out a per-spin mean, whether the lock row's lost time is the sum over its callers under
 * each reading, and the paragraph that reports it. Every number of the paragraph is computed here.
 */
import { conDefinitionCheck, conPct, lostTime, printedTimeInterval, sectionLabel, waitMeanEvidence, type LockRow, type LostTime, type WaitMeanEvidence } from "./lahr.js";
import { fmt, fmtInt, fmtInterval } from "./numbers.js";
import { UserError } from "../util/errors.js";

export interface WaitMeanReading<R extends LockRow> {
  sem: R;
  lost: LostTime;
  evidence: WaitMeanEvidence<R>;
  /** The rows contradicting a per-spin mean, clearest first (WAIT MAX far above WAIT MEAN × SPIN). */
  clearest: R[];
  callers: R[];
  callersLostPerSpinS: number;
  callersLostPerAcquisitionS: number;
  /** Printed CON, CON recomputed as (SPIN + REJECT) / TOTAL, and the lost time as a share of the run's CPU time. */
  conPct: number;
  conRecomputedPct: number;
  lostShareOfCpuPct: number;
  conCheck: ReturnType<typeof conDefinitionCheck>;
  /** The paragraph notebook 01 prints (before the verdicts). */
  text: string;
}

/** How far WAIT MAX exceeds the most a per-spin mean allows (> 1: impossible). */
export function perSpinExcess(r: LockRow): number {
  return printedTimeInterval(r.waitMaxUs!).lo / (printedTimeInterval(r.waitMeanUs).hi * r.spin);
}

/**
 * The reading for the 8-way `sem_ids` lock row, given the 8-way run's CPU-seconds and Spraul's
 * "around N seconds" figure.
 */
export function waitMeanReading<R extends LockRow>(rows: readonly R[], cpuSeconds: number, spraulSpinningS: number): WaitMeanReading<R> {
  const sem = rows.find((r) => r.section === "8way" && r.kind === "lock" && r.name.startsWith("sem_ids"));
  if (!sem) throw new UserError("lahr-2001/lockmeter.json: no 8-way sem_ids lock row");
  const lost = lostTime(sem);
  const evidence = waitMeanEvidence(rows);
  const clearest = [...evidence.perSpinImpossible].sort((a, b) => perSpinExcess(b) - perSpinExcess(a));
  // A lock row sums its caller rows, so the right reading must give the lock row's figure back from them.
  const callers = rows.filter((r) => r.section === sem.section && r.kind === "caller" && r.lock === sem.name);
  const callersLostPerSpinS = callers.reduce((s, r) => s + lostTime(r).perSpinS, 0);
  const callersLostPerAcquisitionS = callers.reduce((s, r) => s + lostTime(r).perAcquisitionS, 0);
  const lostShareOfCpuPct = (100 * lost.perAcquisitionS) / cpuSeconds;
  const conCheck = conDefinitionCheck(rows);
  const ev = evidence;
  const single = ev.singleSpinMatchingMaxOverTotal;
  const text =
    `The rows above are the clearest of the ${ev.perSpinImpossible.length} rows whose longest single wait is longer than WAIT MEAN × SPIN could be, even at the rounding limits of the printed times; ` +
    `${ev.perAcquisitionImpossible.length} rows contradict WAIT MEAN × TOTAL, and lock rows' means equal their callers' means weighted by TOTAL for ${ev.lockMeanMatchesTotalWeighted} of ${ev.locksWithCallers} locks (by SPIN for ${ev.lockMeanMatchesSpinWeighted}). ` +
    `Summed over the ${callers.length} caller rows of \`${sem.name}\`, MEAN × SPIN gives ${fmt(callersLostPerSpinS, 3)} s against the lock row's ${fmt(lost.perSpinS, 3)} s, while MEAN × TOTAL gives ${fmt(callersLostPerAcquisitionS, 3)} s against ${fmt(lost.perAcquisitionS, 3)} s. ` +
    `The ${single.length} rows with a single spin, whose one wait is WAIT MAX, print WAIT MAX / TOTAL (${single.map((r) => `${sectionLabel(r.section ?? "")} \`${r.name}\`: ${fmt(r.waitMaxUs!, 1)} / ${r.total} = ${fmt(r.waitMaxUs! / r.total, 2)}, printed ${fmt(r.waitMeanUs, r.waitMeanUs < 10 ? 1 : 0)} µs`).join("; ")}). ` +
    `So this lockmeter 1.4.5 output divides WAIT MEAN by TOTAL, although lockstat's documentation, as issue 17 reports it, gives WAIT MEAN per spin — the reading Spraul made: for \`${sem.name}\` in the 8-way run, SPIN × WAIT MEAN = ${fmtInt(sem.spin)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lost.perSpinS, 3)} s, his "around ${spraulSpinningS} seconds"; ` +
    `TOTAL × WAIT MEAN = ${fmtInt(sem.total)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lost.perAcquisitionS, 2)} s (${fmtInterval(lost.perAcquisitionBounds, 2, " s")} with the rounding of the mean). ` +
    `His conclusion stands: that is ${fmt(lostShareOfCpuPct, 3)}% of the run's ${fmtInt(cpuSeconds)} CPU-seconds, while ${fmt(sem.conPct, 2)}% of its acquisitions waited. ` +
    `(CON is (SPIN + REJECT) / TOTAL: the printed CON matches it in ${conCheck.matchSpinPlusReject} of ${conCheck.rows} rows, SPIN / TOTAL alone in ${conCheck.matchSpinOnly}.)`;
  return {
    sem, lost, evidence, clearest, callers, callersLostPerSpinS, callersLostPerAcquisitionS,
    conPct: sem.conPct, conRecomputedPct: conPct(sem), lostShareOfCpuPct, conCheck, text,
  };
}
