/**
 * The model against the sweep's runs: per cell (mode × f × L) the observed in-kernel share of
 * holder preemptions (Σ kernel / Σ (kernel + at return), bootstrap interval over runs) beside the
 * model's prediction from the cell's own measured d (first-touch median) and L (median untouched
 * hold), and whether the observed interval holds the prediction.
 */
import { kernelOf, ratioOfSums, returnOf, type FactorialRow, type Interval } from "./mechanism.js";
import { predictFromRuns, type ModelMode } from "./mechanism-model.js";

export interface SweepRow extends FactorialRow {
  faultEvery: number;
  csNs: number;
  touchP50Ns: number | null;
  untouchedHoldP50Ns: number | null;
}

export interface SweepCell {
  mode: string;
  faultEvery: number;
  csNs: number;
  runs: number;
  kernel: number;
  atReturn: number;
  observed: Interval;
  predicted: Interval;
  faultNs: Interval;
  sectionNs: Interval;
  /** The prediction's mean inside the observed interval. */
  agrees: boolean | null;
}

export function sweepCells(rows: readonly SweepRow[], o: { hz: number; fullShare?: number }): SweepCell[] {
  const keys = [...new Set(rows.map((r) => `${r.mode}|${r.faultEvery}|${r.csNs}`))].sort();
  return keys.map((k) => {
    const [mode, f, l] = k.split("|") as [string, string, string];
    const rs = rows.filter((r) => `${r.mode}|${r.faultEvery}|${r.csNs}` === k);
    const observed = ratioOfSums(rs.map(kernelOf), rs.map((r) => kernelOf(r) + returnOf(r)));
    const pr = predictFromRuns(rs, { holdsPerFault: Number(f), hz: o.hz, mode: mode as ModelMode, fullShare: o.fullShare });
    const agrees = Number.isFinite(observed.lo) && Number.isFinite(pr.inKernelShare.mean) ? pr.inKernelShare.mean >= observed.lo && pr.inKernelShare.mean <= observed.hi : null;
    return { mode, faultEvery: Number(f), csNs: Number(l), runs: rs.length, kernel: rs.reduce((a, r) => a + kernelOf(r), 0), atReturn: rs.reduce((a, r) => a + returnOf(r), 0), observed, predicted: pr.inKernelShare, faultNs: pr.faultNs, sectionNs: pr.sectionNs, agrees };
  });
}
