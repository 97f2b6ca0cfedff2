/**
 * The mechanism experiment's reduce: one run directory written by the guest script (micro.json,
 * the gzipped holder trace, rseq/stats before and after, /proc/stat) → one row.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseMicroOutput } from "../../micro/driver.js";
import { attributeDeschedulings, countCauses, timerSummary, parseHolderTrace, summariseHolderTrace, type Attribution, type HolderTraceSummary } from "../../parse/holder-trace.js";
import { diffRseqStats, parseRseqStats } from "../../parse/rseq-stats.js";
import { UserError } from "../../util/errors.js";
import type { Accel } from "../../vm/qemu.js";
import type { PlannedRun } from "./plan.js";
import type { HolderDeschedCounts, MechanismRow, PreemptMode, RunAttribution } from "./row.js";

/** A holder trace's first-descheduling classes, as a row's fields (the VM micro and PostgreSQL runners share them). */
export function firstDeschedClasses(s: HolderTraceSummary): Omit<HolderDeschedCounts, "deschedHolds" | "covered"> {
  const f = s.firstByClass;
  return { kernelFault: f["kernel-fault"], kernelOther: f["kernel-other"], returnFault: f["return-fault"], returnInterrupt: f["return-interrupt"], returnSyscall: f["return-syscall"], voluntary: f.voluntary, unclassified: f.unclassified };
}

/** The kernel's rseq slice counters over a run (null without the feature), as a row's fields. */
export function sliceCounters(c: Partial<Record<"sgrant" | "sexpir" | "srevok" | "syield", number>> | null): { grants: number | null; expired: number | null; revoked: number | null; yields: number | null } {
  return { grants: c ? (c.sgrant ?? 0) : null, expired: c ? (c.sexpir ?? 0) : null, revoked: c ? (c.srevok ?? 0) : null, yields: c ? (c.syield ?? 0) : null };
}

/** Reduces a run's attributions to counts. */
export function runAttribution(a: Attribution[], requests: { stack: unknown }[], schedFeatures: string | null): RunAttribution {
  const wz = () => ({ user: 0, fault: 0, syscall: 0, kernel: 0, unknown: 0 });
  const where = { inKernel: wz(), atReturn: wz() };
  const afterLazy: Record<string, number> = {};
  for (const x of a) {
    if (x.cls === "kernel-fault" || x.cls === "kernel-other") where.inKernel[x.where]++;
    else if (x.cls.startsWith("return")) where.atReturn[x.where]++;
    if (x.lazyOrigin) afterLazy[`${x.cause}<-${x.lazyOrigin}`] = (afterLazy[`${x.cause}<-${x.lazyOrigin}`] ?? 0) + 1;
  }
  return { requests: requests.length, requestsWithoutStack: requests.filter((r) => r.stack === null).length, causes: countCauses(a), where, afterLazy, schedFeatures };
}

/** The active word of debugfs sched/preempt ("none voluntary (full) lazy" → "full"). */
export function activePreemptMode(text: string, file: string): string {
  const m = /\((\w+)\)/.exec(text);
  if (!m) throw new UserError(`${file}: expected the active mode in parentheses, found ${JSON.stringify(text.trim())}`);
  return m[1]!;
}

/** Steal and idle shares of the "cpu " line between two /proc/stat excerpts. */
export function statShares(before: string | null, after: string | null): { stealPct: number | null; idlePct: number | null } {
  const parse = (t: string | null) => {
    const l = t?.split("\n").find((x) => x.startsWith("cpu "));
    const xs = l?.trim().split(/\s+/).slice(1, 9).map(Number);
    return xs && xs.length === 8 && xs.every(Number.isFinite) ? xs : null;
  };
  const a = parse(before);
  const b = parse(after);
  if (!a || !b) return { stealPct: null, idlePct: null };
  const d = b.map((x, i) => x - a[i]!);
  const total = d.reduce((x, y) => x + y, 0);
  return total > 0 ? { stealPct: (100 * d[7]!) / total, idlePct: (100 * d[3]!) / total } : { stealPct: null, idlePct: null };
}

export function readIf(p: string): string | null {
  return existsSync(p) ? readFileSync(p, "utf8") : null;
}

/** Reduces one run directory (written by the guest script) to its row. */
export function rowFromRunDir(dir: string, r: PlannedRun, ctx: { kernelRelease: string; accel: Accel | "host"; durationS: number }): { row: MechanismRow; summary: HolderTraceSummary } {
  const status = (readIf(join(dir, "status")) ?? "").trim();
  if (status !== "0") throw new UserError(`${dir}: run ${r.id} ended with status ${status || "none"}: ${(readIf(join(dir, "micro.err")) ?? "").trim().slice(0, 300)}`);
  const micro = parseMicroOutput(readFileSync(join(dir, "micro.json"), "utf8"), join(dir, "micro.json"));
  if (!micro.results) throw new UserError(`${dir}/micro.json: no results (${micro.feature.reason ?? "unknown reason"})`);
  const x = micro.results;
  const tracePath = join(dir, "holder-trace.txt.gz");
  const trace = parseHolderTrace(gunzipSync(readFileSync(tracePath)).toString("utf8"), tracePath);
  const s = summariseHolderTrace(trace);
  const before = readIf(join(dir, "rseq-stats-before.txt"));
  const after = readIf(join(dir, "rseq-stats-after.txt"));
  const stats = before && after ? diffRseqStats(parseRseqStats(before, join(dir, "rseq-stats-before.txt")), parseRseqStats(after, join(dir, "rseq-stats-after.txt"))) : null;
  const c = stats?.sliceExtension ? stats.counters : null;
  const row: MechanismRow = {
    run: r.id,
    block: r.block,
    order: r.order,
    seed: r.seed,
    mode: r.mode === "current" ? (activePreemptMode(readFileSync(join(dir, "preempt"), "utf8"), join(dir, "preempt")) as PreemptMode) : r.mode,
    modeActive: activePreemptMode(readFileSync(join(dir, "preempt"), "utf8"), join(dir, "preempt")),
    kernelRelease: ctx.kernelRelease,
    accel: ctx.accel,
    pages: r.pages,
    hugeKiBMapped: x.faults.hugeKiBMapped,
    extension: r.extension,
    durationS: ctx.durationS,
    holds: x.criticalSections,
    holdsLogged: s.holdsLogged,
    logLost: s.logLost,
    deschedHolds: s.deschedHolds,
    ...firstDeschedClasses(s),
    covered: x.grants,
    ...sliceCounters(c),
    grantsInDeschedHolds: s.grantsInDeschedHolds,
    faultsUnderLock: x.faults.workerMinor,
    freshPagesTouched: x.faults.freshPagesTouched,
    regionExhausted: x.faults.regionExhausted,
    throughputPerS: x.throughputPerS,
    hogWorkPerS: x.hogs.workPerS,
    holdP99Ns: x.holdNs?.p99 ?? null,
    touchCount: x.touchNs?.count ?? null,
    touchP50Ns: x.touchNs?.p50 ?? null,
    touchP99Ns: x.touchNs?.p99 ?? null,
    touchMaxNs: x.touchNs?.max ?? null,
    touchMeanNs: x.touchNs?.mean ?? null,
    touchedHoldMeanNs: x.holdSplit?.touchedHoldMeanNs ?? null,
    touchedWorkMeanNs: x.holdSplit?.workMeanNs ?? null,
    untouchedHoldMeanNs: x.holdSplit?.untouchedHoldMeanNs ?? null,
    touchedHoldP50Ns: x.holdSplit?.touchedHoldP50Ns ?? null,
    untouchedHoldP50Ns: x.holdSplit?.untouchedHoldP50Ns ?? null,
    waitP99Ns: x.waitNs?.p99 ?? null,
    waitP999Ns: x.waitNs?.p999 ?? null,
    dropped: x.dropped,
    rearmed: x.rearmed,
    lostEvents: s.lostEvents,
    switchesWithoutStack: s.switchesWithoutStack,
    preemptMarkDisagree: s.preemptMarkAgreement.disagree,
    ...statShares(readIf(join(dir, "stat-before")), readIf(join(dir, "stat-after"))),
  };
  if (existsSync(join(dir, "..", "..", "attribution")) || trace.resched.length > 0) {
    row.attribution = { ...runAttribution(attributeDeschedulings(trace, row.modeActive), trace.resched, readIf(join(dir, "sched-features"))?.trim() ?? null), timers: timerSummary(trace) };
  }
  return { row, summary: s };
}
