/**
 * Where a lock holder is preempted, as a model (issue 26 item 6): a closed form in the section's
 * length L, the first-touch fault's duration d, one fault per f holds, the tick rate HZ and the
 * preemption mode, to turn the emulated counts into a prediction for real machines.
 *
 * The model's assumptions (what it can and cannot capture is in MODEL_LIMITS):
 *  1. Reschedule requests that end up descheduling a holder arrive at times uncorrelated with the
 *     holder's position in its hold (the tick, and wakeups of other tasks, do not know about the lock).
 *     So a request that falls inside a hold falls inside the fault with probability equal to the
 *     fault's share of hold time: s = (d/f) / (L + d/f).
 *  2. full: a request inside the fault is acted on at the interrupt's return to the kernel
 *     (preempt_schedule_irq): an in-kernel preemption. One in user mode, at the return to user: the
 *     place the slice extension can grant. So in-kernel share = s.
 *  3. lazy: a fair-class request sets only TIF_NEED_RESCHED_LAZY, which no in-kernel preemption
 *     point tests; it waits for the return to user (the fault's return), unless the next tick
 *     escalates it to a full request first, i.e. unless the fault outlasts the rest of the tick
 *     period. A request of another class (an RT or kernel-thread wakeup: resched_curr) is full at
 *     once. With a share φ of full requests: in-kernel share = s · (φ + (1 − φ) · P_esc), where
 *     P_esc = P(fault remaining after the request > 1/HZ) = max(0, 1 − 1/(HZ · d)) for a fault of
 *     duration d ≥ 1/HZ and a request uniformly placed in it.
 *  4. none: no in-kernel preemption point acts on a request: in-kernel share 0.
 * The extension's coverage is then 1 − in-kernel share (of holder preemptions that are not
 * voluntary: the requests that reach the return to user inside a hold).
 */
import { mean } from "../stats/summary.js";
import type { Interval } from "./mechanism.js";

export type ModelMode = "full" | "lazy" | "none";

export interface ModelInputs {
  /** Section work per hold, ns (the median hold without a touch). */
  sectionNs: number;
  /** The first touch's duration, ns (its median: a fault not interrupted by a preemption). */
  faultNs: number;
  /** Holds per fault (the micro-benchmark's --fault-every; PostgreSQL: holds per faulted hold). */
  holdsPerFault: number;
  hz: number;
  mode: ModelMode;
  /** Share of reschedule requests that are full ones (RT/kernel-thread wakeups) under lazy; default 0. */
  fullShare?: number;
}

export interface ModelPrediction {
  /** The fault's share of hold time, s. */
  faultShareOfHold: number;
  /** Of a lazy request inside the fault, the chance that the next tick escalates it before the fault ends. */
  escalation: number;
  inKernelShare: number;
  /** 1 − in-kernel share: holder preemptions at the return to user, where a grant can cover them. */
  coverage: number;
}

function check(i: ModelInputs): void {
  for (const [k, v] of Object.entries({ sectionNs: i.sectionNs, faultNs: i.faultNs, holdsPerFault: i.holdsPerFault, hz: i.hz })) {
    if (!Number.isFinite(v) || v < 0 || (k !== "faultNs" && v === 0)) throw new RangeError(`model input ${k}: expected a finite number > 0, found ${v}`);
  }
  const phi = i.fullShare ?? 0;
  if (!(phi >= 0 && phi <= 1)) throw new RangeError(`model input fullShare: expected 0..1, found ${phi}`);
}

export function predict(i: ModelInputs): ModelPrediction {
  check(i);
  const perHold = i.faultNs / i.holdsPerFault;
  const s = perHold / (i.sectionNs + perHold);
  const tickNs = 1e9 / i.hz;
  const escalation = i.faultNs <= tickNs ? 0 : 1 - tickNs / i.faultNs;
  const phi = i.fullShare ?? 0;
  const inKernel = i.mode === "full" ? s : i.mode === "lazy" ? s * (phi + (1 - phi) * escalation) : 0;
  return { faultShareOfHold: s, escalation, inKernelShare: inKernel, coverage: 1 - inKernel };
}

/** The per-run measurements the model takes (lhp version 3 rows). */
export interface MeasuredRun {
  touchP50Ns: number | null;
  untouchedHoldP50Ns: number | null;
  /** The median hold with a touch: with a touch in every section (f = 1) L is this minus the touch. */
  touchedHoldP50Ns?: number | null;
}

/** L of a run: the median untouched hold, or (every section touching) the median touched hold minus the touch. */
export function sectionOf(r: MeasuredRun): number | null {
  if (typeof r.untouchedHoldP50Ns === "number" && r.untouchedHoldP50Ns > 0) return r.untouchedHoldP50Ns;
  if (typeof r.touchedHoldP50Ns === "number" && typeof r.touchP50Ns === "number" && r.touchedHoldP50Ns > r.touchP50Ns) return r.touchedHoldP50Ns - r.touchP50Ns;
  return null;
}

/** Percentile interval (2.5 %, 97.5 %) of xs, with the mean; n < 2 gives NaN bounds. */
function spread(xs: number[]): Interval {
  const n = xs.length;
  if (n === 0) return { mean: NaN, lo: NaN, hi: NaN, n };
  const m = mean(xs);
  if (n < 2) return { mean: m, lo: NaN, hi: NaN, n };
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(n - 1, Math.max(0, Math.round(p * (n - 1))))]!;
  return { mean: m, lo: q(0.025), hi: q(0.975), n };
}

/**
 * The model applied to each run's own d and L (the runs of one record or cell), for a mode and HZ:
 * the prediction's spread over runs (2.5–97.5 % of the per-run predictions), not a sampling interval
 * of the truth.
 */
export function predictFromRuns(runs: readonly MeasuredRun[], o: { holdsPerFault: number; hz: number; mode: ModelMode; fullShare?: number }): { inKernelShare: Interval; coverage: Interval; faultNs: Interval; sectionNs: Interval } {
  const ok = runs.flatMap((r) => {
    const L = sectionOf(r);
    return typeof r.touchP50Ns === "number" && L !== null ? [{ d: r.touchP50Ns, L }] : [];
  });
  const preds = ok.map((r) => predict({ sectionNs: r.L, faultNs: r.d, holdsPerFault: o.holdsPerFault, hz: o.hz, mode: o.mode, fullShare: o.fullShare }));
  return {
    inKernelShare: spread(preds.map((p) => p.inKernelShare)),
    coverage: spread(preds.map((p) => p.coverage)),
    faultNs: spread(ok.map((r) => r.d)),
    sectionNs: spread(ok.map((r) => r.L)),
  };
}

/** Wilson score interval (95 %) of k of n: the observed share when the preemptions are the units. */
export function wilson(k: number, n: number, z = 1.959964): Interval {
  if (n === 0) return { mean: NaN, lo: NaN, hi: NaN, n };
  const p = k / n;
  const den = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / den;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
  return { mean: p, lo: Math.max(0, c - h), hi: Math.min(1, c + h), n };
}

/** A range prediction over unknown inputs (each a [low, high] range): the extremes of the closed form. */
export function predictRange(r: { sectionNs: [number, number]; faultNs: [number, number]; holdsPerFault: [number, number]; hz: [number, number]; mode: ModelMode; fullShare?: [number, number] }): { lo: ModelPrediction; hi: ModelPrediction } {
  const corners: ModelPrediction[] = [];
  for (const L of r.sectionNs) for (const d of r.faultNs) for (const f of r.holdsPerFault) for (const hz of r.hz) for (const phi of r.fullShare ?? [0, 0]) corners.push(predict({ sectionNs: L, faultNs: d, holdsPerFault: f, hz, mode: r.mode, fullShare: phi }));
  const by = (k: "inKernelShare") => [...corners].sort((a, b) => a[k] - b[k]);
  return { lo: by("inKernelShare")[0]!, hi: by("inKernelShare")[corners.length - 1]! };
}

/** What the model leaves out, said wherever its numbers are shown. */
export const MODEL_LIMITS = [
  "requests are taken as uncorrelated with the hold; a request caused by the holder's own fault (e.g. a wakeup of a kernel thread from the fault path) is not",
  "one fault per f holds of one duration d (its median); faults that sleep (major faults, reclaim) and long-tail faults are not in d",
  "the lazy escalation is tick-driven only; the hrtick and the slice-extension timer are not modelled",
  "spinning waiters and hogs are alike to the scheduler; several CPUs (wakeups across CPUs, IPIs) are not modelled",
];
