/**
 * The PostgreSQL mechanism factorial (issue 14, item 4), from its per-run rows
 * (src/drivers/mechanism-pg/): per cell (mode × huge pages × extension) faults
 * inside spin-style lock holds and holds with an involuntary switch per
 * 1,000,000 holds, where the preempted holders were (from the trace), the
 * huge pages the server really got, and throughput; on/off contrasts; one
 * answer sentence. Pure functions of the rows.
 */
import { countInterval, tInterval, welchDiff, ratioOfSums, fmtInterval, fmtEmulatedThroughput, type Interval, type Widen } from "./mechanism.js";
import type { PgMechanismRow } from "../drivers/mechanism-pg/row.js";

/** The row fields read here: a subset of the driver's PgMechanismRow (its one schema), levels widened to strings. */
export type PgFactorialRow = Widen<Pick<PgMechanismRow, "run" | "mode" | "hugePages" | "extension" | "kernelRelease" | "accel" | "hugePagesStatus" | "hugePagesTaken" | "holds" | "faultedHolds" | "faultsUnderLock" | "preemptedHolds" | "faultedPreemptedHolds" | "grantedHolds" | "faultedGrantedHolds" | "deschedHolds" | "kernelFault" | "kernelOther" | "returnFault" | "returnInterrupt" | "returnSyscall" | "grants" | "tpsLoad" | "tpsConnect">>;

const perMillion = (f: (r: PgFactorialRow) => number) => (r: PgFactorialRow) => (r.holds > 0 ? (1e6 * f(r)) / r.holds : 0);

export const PG_RATES = {
  faults: perMillion((r) => r.faultsUnderLock),
  faultedHolds: perMillion((r) => r.faultedHolds),
  preemptedHolds: perMillion((r) => r.preemptedHolds),
  faultedPreempted: perMillion((r) => r.faultedPreemptedHolds),
  granted: perMillion((r) => r.grantedHolds),
  kernel: perMillion((r) => r.kernelFault + r.kernelOther),
  atReturn: perMillion((r) => r.returnFault + r.returnInterrupt + r.returnSyscall),
} as const;
export type PgRateName = keyof typeof PG_RATES;

export interface PgCellSummary {
  mode: string;
  hugePages: string;
  extension: string;
  runs: number;
  holds: number;
  /** Per 1,000,000 spin-style holds: mean over runs with a 95 % bootstrap interval (countInterval: never below zero). */
  rates: Record<PgRateName, Interval>;
  totals: { faults: number; faultedHolds: number; preemptedHolds: number; faultedPreempted: number; granted: number; faultedGranted: number; kernel: number; kernelFault: number; atReturn: number; returnFault: number };
  /** Σ in-kernel / Σ(in-kernel + at return) of the traced holder preemptions. */
  inKernelShare: Interval;
  /** Runs whose server reported huge_pages_status = on. */
  hugePagesOnRuns: number;
  /** Huge pages the server held after start (min over runs). */
  hugePagesTakenMin: number;
  tpsLoad: Interval;
  tpsConnect: Interval;
}

export function pgCellKey(c: { mode: string; hugePages: string; extension: string }): string {
  return `${c.mode}/${c.hugePages}/${c.extension}`;
}

export function pgCellRows(rows: readonly PgFactorialRow[], c: { mode: string; hugePages: string; extension: string }): PgFactorialRow[] {
  return rows.filter((r) => r.mode === c.mode && r.hugePages === c.hugePages && r.extension === c.extension);
}

const sum = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0);

export function summarisePgCells(rows: readonly PgFactorialRow[]): PgCellSummary[] {
  const keys: { mode: string; hugePages: string; extension: string }[] = [];
  for (const r of rows) if (!keys.some((k) => pgCellKey(k) === pgCellKey(r))) keys.push({ mode: r.mode, hugePages: r.hugePages, extension: r.extension });
  const rank = (v: string, order: string[]) => (order.indexOf(v) < 0 ? 99 : order.indexOf(v));
  keys.sort((a, b) => rank(a.mode, ["none", "full", "lazy"]) - rank(b.mode, ["none", "full", "lazy"]) || rank(a.hugePages, ["off", "on"]) - rank(b.hugePages, ["off", "on"]) || rank(a.extension, ["off", "on"]) - rank(b.extension, ["off", "on"]));
  return keys.map((k) => {
    const rs = pgCellRows(rows, k);
    const kern = rs.map((r) => r.kernelFault + r.kernelOther);
    const ret = rs.map((r) => r.returnFault + r.returnInterrupt + r.returnSyscall);
    return {
      ...k,
      runs: rs.length,
      holds: sum(rs.map((r) => r.holds)),
      rates: Object.fromEntries(Object.entries(PG_RATES).map(([n, f]) => [n, countInterval(rs.map(f))])) as Record<PgRateName, Interval>,
      totals: {
        faults: sum(rs.map((r) => r.faultsUnderLock)),
        faultedHolds: sum(rs.map((r) => r.faultedHolds)),
        preemptedHolds: sum(rs.map((r) => r.preemptedHolds)),
        faultedPreempted: sum(rs.map((r) => r.faultedPreemptedHolds)),
        granted: sum(rs.map((r) => r.grantedHolds)),
        faultedGranted: sum(rs.map((r) => r.faultedGrantedHolds)),
        kernel: sum(kern),
        kernelFault: sum(rs.map((r) => r.kernelFault)),
        atReturn: sum(ret),
        returnFault: sum(rs.map((r) => r.returnFault)),
      },
      inKernelShare: ratioOfSums(kern, rs.map((_, i) => kern[i]! + ret[i]!)),
      hugePagesOnRuns: rs.filter((r) => r.hugePagesStatus === "on").length,
      hugePagesTakenMin: Math.min(...rs.map((r) => r.hugePagesTaken)),
      tpsLoad: countInterval(rs.map((r) => r.tpsLoad)),
      tpsConnect: countInterval(rs.map((r) => r.tpsConnect)),
    };
  });
}

/** mean(B) − mean(A) of a rate between two levels of one factor, the others fixed. */
export function pgEffect(rows: readonly PgFactorialRow[], a: { mode: string; hugePages: string; extension: string }, b: { mode: string; hugePages: string; extension: string }, rate: PgRateName): Interval {
  return welchDiff(pgCellRows(rows, a).map(PG_RATES[rate]), pgCellRows(rows, b).map(PG_RATES[rate]));
}

/** The factorial table: one row per cell, rates per 1,000,000 holds with intervals. */
export function pgFactorialTable(cells: readonly PgCellSummary[], options: { emulated?: boolean } = {}): Record<string, string | number>[] {
  const emulated = options.emulated ?? true;
  return cells.map((c) => ({
    mode: c.mode,
    "huge pages": c.hugePages,
    extension: c.extension,
    runs: c.runs,
    "holds (M)": Number((c.holds / 1e6).toFixed(2)),
    "faults under lock /M": fmtInterval(c.rates.faults, 1),
    "faulted holds /M": fmtInterval(c.rates.faultedHolds, 1),
    "holds with an involuntary switch /M (getrusage, upper bound)": fmtInterval(c.rates.preemptedHolds, 1),
    "faulted & preempted": c.totals.faultedPreempted,
    "traced: in kernel": c.totals.kernel,
    "of which in fault": c.totals.kernelFault,
    "traced: at return": c.totals.atReturn,
    "holds ended granted": c.totals.granted,
    "huge pages held (min)": c.hugePagesTakenMin,
    "tps load": emulated ? fmtEmulatedThroughput(c.tpsLoad) : fmtInterval(c.tpsLoad, 1),
    "tps connect": emulated ? fmtEmulatedThroughput(c.tpsConnect) : fmtInterval(c.tpsConnect, 2),
  }));
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

/**
 * One sentence per preemption mode from the rows: faults under lock with huge
 * pages off vs on (extension off), whether huge_pages=on got huge pages, and
 * where the traced holder preemptions were.
 */
export function pgAnswerSentence(rows: readonly PgFactorialRow[], cells: readonly PgCellSummary[] = summarisePgCells(rows)): string {
  if (rows.length === 0) return "No PostgreSQL runs recorded.";
  const kr = [...new Set(rows.map((r) => r.kernelRelease))].join(", ");
  const parts: string[] = [];
  for (const mode of [...new Set(cells.map((c) => c.mode))]) {
    const get = (hp: string, ext: string) => cells.find((c) => c.mode === mode && c.hugePages === hp && c.extension === ext);
    const off = get("off", "off");
    const on = get("on", "off");
    const seg: string[] = [];
    if (off) seg.push(`${fmtInterval(off.rates.faults, 1)} minor faults per million spin-style holds with 4 KB pages`);
    if (on) seg.push(`${fmtInterval(on.rates.faults, 1)} with huge_pages=on (huge_pages_status on in ${on.hugePagesOnRuns} of ${on.runs} runs, ≥ ${on.hugePagesTakenMin} huge pages held)`);
    const all = cells.filter((c) => c.mode === mode);
    const kern = sum(all.map((c) => c.totals.kernel));
    const ret = sum(all.map((c) => c.totals.atReturn));
    const kf = sum(all.map((c) => c.totals.kernelFault));
    seg.push(kern + ret > 0 ? `of ${kern + ret} traced holder preemptions ${kern} (${pct(kern / (kern + ret))}) were inside the kernel (${kf} in a page fault) and ${ret} at the return to user space` : "no traced holder preemption");
    parts.push(`${mode}: ${seg.join("; ")}`);
  }
  return `PostgreSQL 18 diag build, Linux ${kr}, ${[...new Set(rows.map((r) => r.accel))].join("/")} (TCG functional evidence), ${rows.length} runs — ${parts.join(". ")}.`;
}

/**
 * A rate over the runs matching a partial cell (e.g. one mode and huge-pages level, both extension arms), 95 % t
 * interval (REPRODUCE §8 quotes these through src/evidence/figures.ts; pooled over both arms every cell has ≥ 6
 * runs and the intervals stay above zero).
 */
export function pgPooledRate(rows: readonly PgFactorialRow[], where: Partial<{ mode: string; hugePages: string; extension: string }>, rate: PgRateName): Interval {
  const rs = rows.filter((r) => (where.mode === undefined || r.mode === where.mode) && (where.hugePages === undefined || r.hugePages === where.hugePages) && (where.extension === undefined || r.extension === where.extension));
  return tInterval(rs.map(PG_RATES[rate]));
}

/** Traced holder preemptions over the runs matching a partial cell: in the kernel (of which in a fault) and at the return. */
export function pgTraced(rows: readonly PgFactorialRow[], where: Partial<{ mode: string; hugePages: string; extension: string }>): { runs: number; kernel: number; kernelFault: number; atReturn: number; returnFault: number } {
  const rs = rows.filter((r) => (where.mode === undefined || r.mode === where.mode) && (where.hugePages === undefined || r.hugePages === where.hugePages) && (where.extension === undefined || r.extension === where.extension));
  return {
    runs: rs.length,
    kernel: sum(rs.map((r) => r.kernelFault + r.kernelOther)),
    kernelFault: sum(rs.map((r) => r.kernelFault)),
    atReturn: sum(rs.map((r) => r.returnFault + r.returnInterrupt + r.returnSyscall)),
    returnFault: sum(rs.map((r) => r.returnFault)),
  };
}

/** How a record's times were made, in words: every PostgreSQL mechanism record is emulated. */
export function accelLabel(accel: string): string {
  if (accel === "tcg-icount") return "emulated (QEMU TCG, icount: guest time counted in instructions)";
  if (accel === "tcg") return "emulated (plain QEMU TCG)";
  if (accel === "kvm") return "KVM guest (real CPU, virtualised)";
  return `unknown accel ${JSON.stringify(accel)}`;
}

/**
 * The same cells side by side for records of different patch versions (issue
 * 27: v3 re-runs v2's design): per cell and version, runs, faults under lock
 * and holds with an involuntary switch per 1,000,000 holds (bootstrap
 * intervals), the traced holder preemptions in the kernel / at return, and the
 * kernel's grants (rseq/stats). Cells missing from a version show "—".
 */
export function pgVersionTable(groups: readonly { version: string; accel: string; rows: readonly PgFactorialRow[] }[]): Record<string, string | number>[] {
  const per = groups.map((g) => ({ g, cells: summarisePgCells(g.rows) }));
  const keys: string[] = [];
  for (const p of per) for (const c of p.cells) if (!keys.includes(pgCellKey(c))) keys.push(pgCellKey(c));
  return keys.map((k) => {
    const out: Record<string, string | number> = { cell: k };
    for (const p of per) {
      const v = p.g.version;
      const c = p.cells.find((x) => pgCellKey(x) === k);
      const grants = pgCellRows(p.g.rows, { mode: k.split("/")[0]!, hugePages: k.split("/")[1]!, extension: k.split("/")[2]! }).map((r) => r.grants);
      out[`${v} runs`] = c?.runs ?? 0;
      out[`${v} faults /M`] = c ? fmtInterval(c.rates.faults, 1) : "—";
      out[`${v} involuntary-switch holds /M`] = c ? fmtInterval(c.rates.preemptedHolds, 1) : "—";
      out[`${v} traced in kernel / at return`] = c ? `${c.totals.kernel} / ${c.totals.atReturn}` : "—";
      out[`${v} kernel grants`] = c ? (grants.every((x) => typeof x === "number") ? sum(grants as number[]) : "not recorded") : "—";
    }
    return out;
  });
}
