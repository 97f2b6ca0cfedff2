/**
 * The mechanism factorial (issue 14), from its per-run rows: per cell (mode ×
 * pages × extension) the rates per 1,000 holds of holder deschedulings by
 * where they happened, with 95 % intervals across runs; the in-kernel share;
 * the fraction of "the kernel wanted the holder off the CPU" events that a
 * grant covered; and on/off differences. Pure functions of the rows.
 */
import { mean, variance } from "../stats/summary.js";
import { tQuantile } from "../stats/distributions.js";
import { createRng } from "../stats/prng.js";
import type { HolderDeschedCounts, MechanismRow } from "../drivers/mechanism/row.js";
import { tInterval, type MeanInterval } from "../stats/interval.js";

/** Where a run's descheduled holds were descheduled, and how many a grant covered (one run's counts): the driver's row schema (src/drivers/mechanism/row.ts). */
export type { HolderDeschedCounts } from "../drivers/mechanism/row.js";

/**
 * The row fields this analysis reads: a subset of the driver's MechanismRow (its one schema), with
 * the levels widened to strings so records of any kit version (and test rows) can be read.
 */
export type FactorialRow = Widen<Pick<MechanismRow, "run" | "mode" | "pages" | "extension" | "kernelRelease" | "accel" | "holds" | "grants" | "faultsUnderLock" | "throughputPerS" | "hogWorkPerS" | "waitP99Ns" | "lostEvents" | keyof HolderDeschedCounts>>;

/** A row subset with its string-literal levels widened to string. */
export type Widen<T> = { [K in keyof T]: T[K] extends string ? string : T[K] };

/** A mean with its 95 % range over n values (src/stats/interval.ts MeanInterval). */
export type Interval = MeanInterval;
export { tInterval };

/** Runs a non-negative quantity needs before it gets an interval: with 2 runs any interval is a guess. */
export const MIN_RUNS_FOR_INTERVAL = 3;

/**
 * Mean over runs of a quantity that cannot be negative (a count, a rate per holds, a throughput),
 * with a 95 % percentile bootstrap interval of the mean over runs (seeded: the same runs give the
 * same interval). A resampled mean lies between the smallest and the largest run, so the interval
 * respects the support: never below zero for a count (a t interval on 2 runs of a rate can reach
 * far below zero). Fewer than {@link MIN_RUNS_FOR_INTERVAL} runs: the mean without an interval
 * (lo = hi = NaN; formatted "n = 2: too few runs for an interval").
 */
export function countInterval(xs: readonly number[], reps = 2000, seed = 14): Interval {
  const n = xs.length;
  if (n === 0) return { mean: NaN, lo: NaN, hi: NaN, n };
  const m = mean(xs);
  if (n < MIN_RUNS_FOR_INTERVAL) return { mean: m, lo: NaN, hi: NaN, n };
  const rng = createRng(seed);
  const means: number[] = [];
  for (let r = 0; r < reps; r++) {
    let a = 0;
    for (let i = 0; i < n; i++) a += xs[rng.index(n)]!;
    means.push(a / n);
  }
  means.sort((x, y) => x - y);
  const q = (p: number) => means[Math.min(means.length - 1, Math.max(0, Math.floor(p * means.length)))]!;
  return { mean: m, lo: q(0.025), hi: q(0.975), n };
}

/** Welch interval for mean(b) − mean(a). */
export function welchDiff(a: readonly number[], b: readonly number[], level = 0.95): Interval {
  const na = a.length;
  const nb = b.length;
  const d = mean(b) - mean(a);
  if (na < 2 || nb < 2) return { mean: d, lo: NaN, hi: NaN, n: Math.min(na, nb) };
  const va = variance(a) / na;
  const vb = variance(b) / nb;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { mean: d, lo: d, hi: d, n: Math.min(na, nb) };
  const df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1));
  const h = tQuantile(1 - (1 - level) / 2, df) * se;
  return { mean: d, lo: d - h, hi: d + h, n: Math.min(na, nb) };
}

/**
 * Ratio of sums Σnum / Σden over runs, with a 95 % percentile bootstrap over
 * runs (seeded: the same rows give the same interval). NaN when Σden = 0.
 */
export function ratioOfSums(num: readonly number[], den: readonly number[], reps = 2000, seed = 14): Interval {
  const n = num.length;
  const sn = num.reduce((a, x) => a + x, 0);
  const sd = den.reduce((a, x) => a + x, 0);
  const point = sd > 0 ? sn / sd : NaN;
  if (n < 2 || !(sd > 0)) return { mean: point, lo: NaN, hi: NaN, n };
  const rng = createRng(seed);
  const reps_: number[] = [];
  for (let r = 0; r < reps; r++) {
    let a = 0;
    let b = 0;
    for (let i = 0; i < n; i++) {
      const j = rng.index(n);
      a += num[j]!;
      b += den[j]!;
    }
    if (b > 0) reps_.push(a / b);
  }
  reps_.sort((x, y) => x - y);
  const q = (p: number) => reps_[Math.min(reps_.length - 1, Math.max(0, Math.floor(p * reps_.length)))]!;
  return { mean: point, lo: q(0.025), hi: q(0.975), n };
}

export const kernelOf = (r: FactorialRow) => r.kernelFault + r.kernelOther;
export const returnOf = (r: FactorialRow) => r.returnFault + r.returnInterrupt + r.returnSyscall;
/** Holds in which the kernel wanted the holder off the CPU: preempted (kernel or return) or deferred by a grant to the hold's end. */
export const wantedOf = (r: FactorialRow) => kernelOf(r) + returnOf(r) + r.covered;

const per1000 = (f: (r: FactorialRow) => number) => (r: FactorialRow) => (r.holds > 0 ? (1000 * f(r)) / r.holds : 0);

export const RATES = {
  desched: per1000((r) => r.deschedHolds),
  kernel: per1000(kernelOf),
  kernelFault: per1000((r) => r.kernelFault),
  atReturn: per1000(returnOf),
  returnFault: per1000((r) => r.returnFault),
  returnInterrupt: per1000((r) => r.returnInterrupt),
  covered: per1000((r) => r.covered),
  faultsUnderLock: per1000((r) => r.faultsUnderLock),
} as const;
export type RateName = keyof typeof RATES;

export interface CellSummary {
  mode: string;
  pages: string;
  extension: string;
  runs: number;
  holds: number;
  /** Per 1,000 holds, mean over runs with a 95 % bootstrap interval ({@link countInterval}: never below zero; none under 3 runs). */
  rates: Record<RateName, Interval>;
  /** Sums over the cell's runs. */
  totals: { desched: number; kernel: number; kernelFault: number; atReturn: number; returnFault: number; covered: number; faultsUnderLock: number; voluntary: number; unclassified: number; lostEvents: number };
  /** In-kernel share of holder preemptions: Σkernel / Σ(kernel + at return). */
  inKernelShare: Interval;
  /** In-fault share of in-kernel preemptions. */
  faultShareOfKernel: Interval;
  /** Share of return-from-fault among at-return preemptions. */
  faultShareOfReturn: Interval;
  /** Σcovered / Σ(kernel + at return + covered): the extension's reach. */
  coveredFraction: Interval;
  /** Critical sections per second ({@link countInterval}); under TCG a count of emulated work, not a speed. */
  throughputPerS: Interval;
  hogWorkPerS: Interval;
}

export function cellKey(c: { mode: string; pages: string; extension: string }): string {
  return `${c.mode}/${c.pages}/${c.extension}`;
}

/** One summary per cell present in the rows, in the order mode, pages, extension of first appearance sorted. */
export function summariseCells(rows: readonly FactorialRow[]): CellSummary[] {
  const groups = new Map<string, FactorialRow[]>();
  for (const r of rows) {
    const k = cellKey(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  const order = (a: string, b: string) => a.localeCompare(b);
  return [...groups.keys()].sort(order).map((k) => {
    const rs = groups.get(k)!;
    const sum = (f: (r: FactorialRow) => number) => rs.reduce((a, r) => a + f(r), 0);
    const rates = Object.fromEntries(Object.entries(RATES).map(([name, f]) => [name, countInterval(rs.map(f))])) as Record<RateName, Interval>;
    return {
      mode: rs[0]!.mode,
      pages: rs[0]!.pages,
      extension: rs[0]!.extension,
      runs: rs.length,
      holds: sum((r) => r.holds),
      rates,
      totals: {
        desched: sum((r) => r.deschedHolds),
        kernel: sum(kernelOf),
        kernelFault: sum((r) => r.kernelFault),
        atReturn: sum(returnOf),
        returnFault: sum((r) => r.returnFault),
        covered: sum((r) => r.covered),
        faultsUnderLock: sum((r) => r.faultsUnderLock),
        voluntary: sum((r) => r.voluntary),
        unclassified: sum((r) => r.unclassified),
        lostEvents: sum((r) => r.lostEvents),
      },
      inKernelShare: ratioOfSums(rs.map(kernelOf), rs.map((r) => kernelOf(r) + returnOf(r))),
      faultShareOfKernel: ratioOfSums(rs.map((r) => r.kernelFault), rs.map(kernelOf)),
      faultShareOfReturn: ratioOfSums(rs.map((r) => r.returnFault), rs.map(returnOf)),
      coveredFraction: ratioOfSums(rs.map((r) => r.covered), rs.map(wantedOf)),
      throughputPerS: countInterval(rs.map((r) => r.throughputPerS)),
      hogWorkPerS: countInterval(rs.map((r) => r.hogWorkPerS)),
    };
  });
}

/** Rows of one cell. */
export function cellRows(rows: readonly FactorialRow[], c: { mode: string; pages: string; extension: string }): FactorialRow[] {
  return rows.filter((r) => r.mode === c.mode && r.pages === c.pages && r.extension === c.extension);
}

/** on − off of a per-1,000-holds rate in one mode × pages, Welch 95 % interval. */
export function extensionEffect(rows: readonly FactorialRow[], mode: string, pages: string, rate: RateName): Interval {
  const off = cellRows(rows, { mode, pages, extension: "off" }).map(RATES[rate]);
  const on = cellRows(rows, { mode, pages, extension: "on" }).map(RATES[rate]);
  return welchDiff(off, on);
}

function fmt(x: number, digits = 1): string {
  return Number.isFinite(x) ? x.toFixed(digits) : "—";
}

/** "12.3 (10.1–14.5)" */
export function fmtInterval(i: Interval, digits = 1, scale = 1): string {
  if (!Number.isFinite(i.mean)) return "—";
  if (!Number.isFinite(i.lo)) return `${fmt(i.mean * scale, digits)} (n = ${i.n}${i.n > 0 && i.n < MIN_RUNS_FOR_INTERVAL ? ": too few runs for an interval" : ""})`;
  return `${fmt(i.mean * scale, digits)} (${fmt(i.lo * scale, digits)}–${fmt(i.hi * scale, digits)})`;
}

/**
 * Throughput of emulated runs (QEMU TCG, with or without icount) is not a speed: the mean of the
 * runs' counts per second and how many runs, no interval and no test.
 */
export function fmtEmulatedThroughput(i: Interval): string {
  return Number.isFinite(i.mean) ? `${fmt(i.mean, 0)} (${i.n} runs; emulated, not a speed)` : "—";
}

/**
 * The notebook's factorial table: one row per cell, strings with intervals. `emulated` (runs in a
 * TCG guest, the default): throughput as counts without interval ({@link fmtEmulatedThroughput}).
 */
export function factorialTable(cells: readonly CellSummary[], options: { emulated?: boolean } = {}): Record<string, string | number>[] {
  const emulated = options.emulated ?? true;
  return cells.map((c) => ({
    mode: c.mode,
    pages: c.pages,
    extension: c.extension,
    runs: c.runs,
    holds: c.holds,
    "desched /1k holds": fmtInterval(c.rates.desched, 2),
    "in kernel /1k": fmtInterval(c.rates.kernel, 2),
    "in fault /1k": fmtInterval(c.rates.kernelFault, 2),
    "at return /1k": fmtInterval(c.rates.atReturn, 2),
    "return from fault /1k": fmtInterval(c.rates.returnFault, 2),
    "covered /1k": fmtInterval(c.rates.covered, 2),
    "faults under lock /1k": fmtInterval(c.rates.faultsUnderLock, 1),
    "in-kernel share %": fmtInterval(c.inKernelShare, 0, 100),
    "covered fraction %": fmtInterval(c.coveredFraction, 0, 100),
    "throughput /s": emulated ? fmtEmulatedThroughput(c.throughputPerS) : fmtInterval(c.throughputPerS, 0),
  }));
}

function cell(cells: readonly CellSummary[], mode: string, pages: string, extension: string): CellSummary | undefined {
  return cells.find((c) => c.mode === mode && c.pages === pages && c.extension === extension);
}

/**
 * The answer, as one paragraph computed from the cells: the in-kernel share
 * with 4 KB pages and the extension off, the covered fraction with it on, the
 * on−off change of in-kernel deschedulings, and what huge pages / pre-faulting
 * did. Every number comes with its interval; missing cells are said missing.
 */
export function answerSentence(rows: readonly FactorialRow[], cells: readonly CellSummary[] = summariseCells(rows), o: { where?: string } = {}): string {
  const parts: string[] = [];
  const accel = [...new Set(rows.map((r) => r.accel))].join("/");
  const release = [...new Set(rows.map((r) => r.kernelRelease))].join(", ");
  const where = o.where !== undefined
    ? `${o.where} (Linux ${release}; ${rows.length} runs),`
    : accel === "host"
      ? `On this machine's own kernel (Linux ${release}, no VM, a shared 2-vCPU host; ${rows.length} runs),`
      : `In the VM (Linux ${release}, QEMU ${accel === "tcg-icount" ? "TCG with instruction-counted time" : accel}${accel === "kvm" ? "" : ": functional evidence"}; ${rows.length} runs),`;
  parts.push(where);
  const modes = [...new Set(cells.map((c) => c.mode))].sort().filter((m) => cell(cells, m, "4k", "off"));
  if (modes.length === 0) return `${parts.join(" ")} the 4 KB / extension-off cells are missing: no answer.`;
  const shareBits = modes.map((m) => {
    const c = cell(cells, m, "4k", "off")!;
    return `${fmtInterval(c.inKernelShare, 0, 100)} % under ${m} (${c.totals.kernel} of ${c.totals.kernel + c.totals.atReturn}; ${fmtInterval(c.faultShareOfKernel, 0, 100)} % of those inside the page fault)`;
  });
  parts.push(`with 4 KB pages and the extension off, the share of lock-holder preemptions that happened inside the kernel was ${shareBits.join(" and ")}.`);
  const onBits = modes
    .filter((m) => cell(cells, m, "4k", "on"))
    .map((m) => {
      const on = cell(cells, m, "4k", "on")!;
      const dk = extensionEffect(rows, m, "4k", "kernel");
      const dr = extensionEffect(rows, m, "4k", "atReturn");
      return `under ${m} the extension covered ${fmtInterval(on.coveredFraction, 0, 100)} % of the holds the kernel wanted to preempt, changed preemptions at the return by ${fmtInterval(dr, 2)} and inside the kernel by ${fmtInterval(dk, 2)} per 1,000 holds (on − off)`;
    });
  if (onBits.length > 0) parts.push(`With the extension on, ${onBits.join("; ")}.`);
  else parts.push("The extension-on cells are missing.");
  for (const remedy of ["hugetlb", "4k-prefault"]) {
    const bits = modes
      .filter((m) => cell(cells, m, remedy, "off"))
      .map((m) => {
        const r = cell(cells, m, remedy, "off")!;
        const b = cell(cells, m, "4k", "off")!;
        return `${m}: faults under lock ${fmtInterval(b.rates.faultsUnderLock, 1)} → ${fmtInterval(r.rates.faultsUnderLock, 2)}, in-kernel preemptions ${fmtInterval(b.rates.kernel, 2)} → ${fmtInterval(r.rates.kernel, 2)} per 1,000 holds`;
      });
    if (bits.length > 0) parts.push(`${remedy === "hugetlb" ? "Huge pages (hugetlb)" : "Pre-faulting the region"}, extension off — ${bits.join("; ")}.`);
  }
  parts.push(`Intervals: 95 % bootstrap over runs (rates and shares; none for a cell of fewer than ${MIN_RUNS_FOR_INTERVAL} runs), Welch 95 % for on − off differences.`);
  return parts.join(" ");
}

/**
 * What the accel changes, cell by cell present in both sets of rows (e.g.
 * instruction-counted vs plain TCG): holder deschedulings per 1,000 holds, the
 * in-kernel share and (extension on) the covered fraction, with intervals.
 */
export function accelContrast(a: readonly FactorialRow[], b: readonly FactorialRow[], labelA: string, labelB: string): string {
  const ca = summariseCells(a);
  const cb = summariseCells(b);
  const bits: string[] = [];
  for (const y of cb) {
    const x = ca.find((c) => cellKey(c) === cellKey(y));
    if (!x) continue;
    const cov = y.extension === "on" ? `; covered fraction ${fmtInterval(x.coveredFraction, 0, 100)} % vs ${fmtInterval(y.coveredFraction, 0, 100)} %` : "";
    bits.push(
      `${cellKey(y)} (${x.runs} vs ${y.runs} runs): ${fmtInterval(x.rates.desched, 2)} vs ${fmtInterval(y.rates.desched, 2)} descheduled holds per 1,000, ` +
        `in-kernel share ${fmtInterval(x.inKernelShare, 0, 100)} % vs ${fmtInterval(y.inKernelShare, 0, 100)} %${cov}`,
    );
  }
  if (bits.length === 0) return `No cell is in both ${labelA} and ${labelB}.`;
  return `${labelA} vs ${labelB} — ${bits.join("; ")}.`;
}

/** A micro row with its hold-log counts: holds at least as long as the log threshold (10 µs by default) were logged or lost. */
export interface ContrastRow extends FactorialRow {
  holdsLogged: number;
  logLost: number;
  /** How the kernel's grants ended (rseq/stats deltas; null without the counters). */
  expired: number | null;
  revoked: number | null;
  yields: number | null;
}

/** Holds of at least the hold log's threshold (--log-min-ns, 10 µs): logged plus lost. */
export const longHoldsOf = (r: ContrastRow) => r.holdsLogged + r.logLost;

/** Counts of one cell under one accel: sums over its runs, and per-1,000-holds rates (95 % t over runs). */
export interface ContrastCell {
  label: string;
  cell: string;
  runs: number;
  holds: number;
  kernel: number;
  atReturn: number;
  covered: number;
  grants: number;
  /** Grants ended by the holder's yield, by the grant timer, revoked. */
  yields: number;
  expired: number;
  revoked: number;
  longHolds: number;
  atReturnPer1k: Interval;
  longHoldsPer1k: Interval;
}

/**
 * Cell by cell, the cells every group has (e.g. instruction-counted vs plain
 * TCG, same micro shape): holder preemptions in the kernel and at the return,
 * holds a grant covered, kernel grants, and long holds, summed over runs.
 */
export function accelContrastCells(groups: readonly { label: string; rows: readonly ContrastRow[] }[]): ContrastCell[] {
  const keys = groups.map((g) => new Set(g.rows.map(cellKey)));
  const shared = [...(keys[0] ?? [])].filter((k) => keys.every((s) => s.has(k))).sort((a, b) => a.localeCompare(b));
  const out: ContrastCell[] = [];
  for (const k of shared) {
    for (const g of groups) {
      const rs = g.rows.filter((r) => cellKey(r) === k);
      const sum = (f: (r: ContrastRow) => number) => rs.reduce((a, r) => a + f(r), 0);
      out.push({
        label: g.label,
        cell: k,
        runs: rs.length,
        holds: sum((r) => r.holds),
        kernel: sum(kernelOf),
        atReturn: sum(returnOf),
        covered: sum((r) => r.covered),
        grants: sum((r) => r.grants ?? 0),
        yields: sum((r) => r.yields ?? 0),
        expired: sum((r) => r.expired ?? 0),
        revoked: sum((r) => r.revoked ?? 0),
        longHolds: sum(longHoldsOf),
        atReturnPer1k: countInterval(rs.map(RATES.atReturn)),
        longHoldsPer1k: countInterval(rs.map((r) => (r.holds > 0 ? (1000 * longHoldsOf(r)) / r.holds : 0))),
      });
    }
  }
  return out;
}

/** The notebook's contrast table: one row per cell and accel. */
export function accelContrastTable(cells: readonly ContrastCell[]): Record<string, string | number>[] {
  return cells.map((c) => ({
    cell: c.cell,
    accel: c.label,
    runs: c.runs,
    holds: c.holds,
    "preempted in kernel": c.kernel,
    "preempted at return": c.atReturn,
    "kernel grants": c.grants,
    "grants ended: yield / timer / revoked": `${c.yields} / ${c.expired} / ${c.revoked}`,
    "holds covered by a grant": c.covered,
    "long holds (≥ 10 µs)": c.longHolds,
    "at return /1k holds": fmtInterval(c.atReturnPer1k, 2),
    "long holds /1k holds": fmtInterval(c.longHoldsPer1k, 2),
  }));
}

/**
 * What the contrast shows with 4 KB pages, per mode present in both groups
 * with both extension arms: preemptions at the return off → on, grants and the
 * holds they covered (and how the grants ended), long holds per 1,000 holds
 * off → on.
 */
export function accelContrastAnswer(cells: readonly ContrastCell[], labels: readonly string[]): string {
  const find = (label: string, cell: string) => cells.find((c) => c.label === label && c.cell === cell);
  const modes = [...new Set(cells.map((c) => c.cell.split("/")[0]!))].sort();
  const bits: string[] = [];
  for (const m of modes) {
    const per = labels.map((l) => ({ l, off: find(l, `${m}/4k/off`), on: find(l, `${m}/4k/on`) }));
    if (per.some((p) => !p.off || !p.on)) continue;
    bits.push(
      `${m}: ` +
        per
          .map(
            (p) =>
              `${p.l} — preemptions at the return ${p.off!.atReturn} → ${p.on!.atReturn} (${p.off!.runs} and ${p.on!.runs} runs), ${p.on!.grants} grants (${p.on!.yields} ended by the yield, ${p.on!.expired} by the timer, ${p.on!.revoked} revoked) covering ${p.on!.covered} holds, ` +
              `long holds ${fmtInterval(p.off!.longHoldsPer1k, 2)} → ${fmtInterval(p.on!.longHoldsPer1k, 2)} per 1,000 holds`,
          )
          .join("; "),
    );
  }
  if (bits.length === 0) return `No mode has both 4 KB extension arms in ${labels.join(" and ")}.`;
  return `Extension off → on with 4 KB pages (sums over runs; long holds ≥ 10 µs, 95 % bootstrap over runs): ${bits.join(". ")}.`;
}

/**
 * The answer as a table (notebook 07, issue 28): one row per preemption mode with 4 KB extension-off
 * cells, the numbers {@link answerSentence} writes in prose — in-kernel share (and its in-fault
 * part), what the extension covered and changed (on − off), and faults under the lock and in-kernel
 * preemptions with 4 KB pages, huge pages and pre-faulting. "—" where a cell is missing.
 */
export function answerTable(rows: readonly FactorialRow[], cells: readonly CellSummary[] = summariseCells(rows)): Record<string, string | number>[] {
  const modes = [...new Set(cells.map((c) => c.mode))].sort().filter((m) => cell(cells, m, "4k", "off"));
  const dash = (c: CellSummary | undefined, f: (c: CellSummary) => string) => (c ? f(c) : "—");
  return modes.map((m) => {
    const off = cell(cells, m, "4k", "off")!;
    const on = cell(cells, m, "4k", "on");
    const hp = cell(cells, m, "hugetlb", "off");
    const pf = cell(cells, m, "4k-prefault", "off");
    return {
      mode: m,
      runs: cells.filter((c) => c.mode === m).reduce((a, c) => a + c.runs, 0),
      "in-kernel share % (4k, off)": `${fmtInterval(off.inKernelShare, 0, 100)} (${off.totals.kernel} of ${off.totals.kernel + off.totals.atReturn})`,
      "of those in the fault %": fmtInterval(off.faultShareOfKernel, 0, 100),
      "covered by a grant % (4k, on)": dash(on, (c) => fmtInterval(c.coveredFraction, 0, 100)),
      "at return /1k, on − off": on ? fmtInterval(extensionEffect(rows, m, "4k", "atReturn"), 2) : "—",
      "in kernel /1k, on − off": on ? fmtInterval(extensionEffect(rows, m, "4k", "kernel"), 2) : "—",
      "faults under lock /1k: 4k · hugetlb · prefault": [off, hp, pf].map((c) => dash(c, (x) => fmtInterval(x.rates.faultsUnderLock, 2))).join(" · "),
      "in kernel /1k: 4k · hugetlb · prefault": [off, hp, pf].map((c) => dash(c, (x) => fmtInterval(x.rates.kernel, 2))).join(" · "),
    };
  });
}
