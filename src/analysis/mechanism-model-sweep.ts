/**
 * The model against the sweep's runs: per cell (mode × f × L) the observed in-kernel share of
 * holder preemptions (Σ kernel / Σ (kernel + at return), a Wilson interval on the pooled counts) beside the
 * model's prediction from the cell's own measured d (first-touch median) and L (median untouched
 * hold), and whether the observed interval holds the prediction.
 */
import { kernelOf, returnOf, type FactorialRow, type Interval } from "./mechanism.js";
import { predictFromRuns, wilson, type ModelMode } from "./mechanism-model.js";

export interface SweepRow extends FactorialRow {
  faultEvery: number;
  csNs: number;
  touchP50Ns: number | null;
  untouchedHoldP50Ns: number | null;
  touchedHoldP50Ns?: number | null;
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
  /** Full's closed form for the cell's d and L (the fault's share of hold time): lazy's ceiling. */
  sAtFull: number;
}

export function sweepCells(rows: readonly SweepRow[], o: { hz: number; fullShare?: number }): SweepCell[] {
  const keys = [...new Set(rows.map((r) => `${r.mode}|${r.faultEvery}|${r.csNs}`))].sort();
  return keys.map((k) => {
    const [mode, f, l] = k.split("|") as [string, string, string];
    const rs = rows.filter((r) => `${r.mode}|${r.faultEvery}|${r.csNs}` === k);
    // the preemptions are the units (Wilson on the pooled counts): a cell may hold one run
    const k1 = rs.reduce((a, r) => a + kernelOf(r), 0);
    const observed = wilson(k1, rs.reduce((a, r) => a + kernelOf(r) + returnOf(r), 0));
    const pr = predictFromRuns(rs, { holdsPerFault: Number(f), hz: o.hz, mode: mode as ModelMode, fullShare: o.fullShare });
    const agrees = Number.isFinite(observed.lo) && Number.isFinite(pr.inKernelShare.mean) ? pr.inKernelShare.mean >= observed.lo && pr.inKernelShare.mean <= observed.hi : null;
    const sAtFull = predictFromRuns(rs, { holdsPerFault: Number(f), hz: o.hz, mode: "full" }).inKernelShare.mean;
    return { mode, faultEvery: Number(f), csNs: Number(l), runs: rs.length, kernel: rs.reduce((a, r) => a + kernelOf(r), 0), atReturn: rs.reduce((a, r) => a + returnOf(r), 0), observed, predicted: pr.inKernelShare, faultNs: pr.faultNs, sectionNs: pr.sectionNs, agrees, sAtFull };
  });
}

const pc = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : "—");
const ivText = (i: Interval) => (Number.isFinite(i.lo) ? `${pc(i.mean)} (${pc(i.lo)}–${pc(i.hi)})` : `${pc(i.mean)} (n = ${i.n})`);

/** The sweep as a table: per cell the measured d and L, the prediction and the observation. */
export function sweepTable(cells: readonly SweepCell[]): Record<string, string | number>[] {
  return cells.map((c) => ({
    mode: c.mode,
    "fault every": c.faultEvery,
    "section (ns)": c.csNs,
    runs: c.runs,
    "d p50 (µs)": Number.isFinite(c.faultNs.mean) ? Number((c.faultNs.mean / 1000).toFixed(2)) : "—",
    "L p50 (µs)": Number.isFinite(c.sectionNs.mean) ? Number((c.sectionNs.mean / 1000).toFixed(2)) : "—",
    predicted: pc(c.predicted.mean),
    "observed (in kernel / preempted)": `${ivText(c.observed)} (${c.kernel}/${c.kernel + c.atReturn})`,
    agrees: c.agrees === null ? "n too small" : c.agrees ? "yes" : "no",
  }));
}

/** What the sweep says about the model, per mode, labelled emulated. */
export function sweepSentence(cells: readonly SweepCell[], o: { hz: number | null; accel: string }): string {
  const modes = [...new Set(cells.map((c) => c.mode))].sort();
  const bits = modes.map((m) => {
    const cs = cells.filter((c) => c.mode === m);
    const decided = cs.filter((c) => c.agrees !== null);
    const yes = decided.filter((c) => c.agrees).length;
    const obs = cs.reduce((a, c) => a + c.kernel, 0);
    const all = cs.reduce((a, c) => a + c.kernel + c.atReturn, 0);
    return `under ${m} the prediction lies inside the observed 95 % interval in ${yes} of ${decided.length} cells${cs.length > decided.length ? ` (${cs.length - decided.length} without a prediction or a preemption)` : ""}, ${obs} of ${all} holder preemptions in the kernel in all`;
  });
  const phi = fullShareFit(cells);
  const phiText = phi === null ? "" : ` Fitted to lazy's cells, the share of reschedule requests that acted as full ones is ${phi.toFixed(2)} (1 would be: lazy deferred nothing to the return; 0 is the source reading's lazy).`;
  return `Emulated (QEMU ${o.accel === "tcg-icount" ? "TCG with instruction-counted time" : o.accel}, 1 vCPU, HZ ${o.hz ?? "unknown"}; each cell's own d and L measured in its runs): ${bits.join("; ")}.${phiText}`;
}

/**
 * The share φ of lazy's requests that act as full ones, fitted over lazy's cells: observed in-kernel
 * preemptions ÷ what full's closed form expects from the same cells (Σ k ÷ Σ n·s); null without any.
 */
export function fullShareFit(cells: readonly SweepCell[]): number | null {
  const lazy = cells.filter((c) => c.mode === "lazy" && Number.isFinite(c.sAtFull));
  const expected = lazy.reduce((a, c) => a + (c.kernel + c.atReturn) * c.sAtFull, 0);
  return expected > 0 ? lazy.reduce((a, c) => a + c.kernel, 0) / expected : null;
}
