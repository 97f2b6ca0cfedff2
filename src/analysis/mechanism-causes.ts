/**
 * Issue 26: the cause of each holder descheduling (what set the reschedule
 * request it acted on), per mode × pages × extension cell, from the
 * `attribution` field of mechanism rows (runs made with `--attribute`), plus
 * the reasons of planned runs that produced no row.
 *
 * Intervals respect the support: a share or a per-hold rate is a binomial
 * proportion of events pooled over the cell's runs, with a Wilson 95 % score
 * interval (never below 0 or above 1, defined for 0 events).
 */
import { RESCHED_CAUSES, type CauseCounts, type ReschedCause } from "../parse/holder-trace.js";
import { normalQuantile } from "../stats/distributions.js";

export interface Proportion {
  k: number;
  n: number;
  p: number;
  lo: number;
  hi: number;
}

/** Wilson score interval for k of n (level 95 % by default); n = 0 gives NaN. */
export function wilson(k: number, n: number, level = 0.95): Proportion {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n) throw new RangeError(`wilson: expected integers 0 ≤ k ≤ n, found k=${k} n=${n}`);
  if (n === 0) return { k, n, p: NaN, lo: NaN, hi: NaN };
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { k, n, p, lo: k === 0 ? 0 : Math.max(0, c - h), hi: k === n ? 1 : Math.min(1, c + h) };
}

export interface AttributedRow {
  run: string;
  mode: string;
  pages: string;
  extension: string;
  holds: number;
  attribution?: { causes: CauseCounts; schedFeatures?: string | null; requests?: number; afterLazy?: Record<string, number> } | null;
}

export interface CauseCell {
  mode: string;
  pages: string;
  extension: string;
  /** HRTICK or NO_HRTICK (from the runs' sched/features), "?" when not recorded. */
  hrtick: string;
  runs: number;
  holds: number;
  where: "inKernel" | "atReturn";
  cause: ReschedCause;
  count: number;
  /** Share of this cause among the cell's deschedulings of this kind (Wilson 95 %). */
  share: Proportion;
  /** Per 1,000 holds (Wilson 95 % on count/holds, × 1,000). */
  per1000: Proportion;
}

/** The sched/features word for HRTICK in a features line ("… HRTICK …" or "… NO_HRTICK …"). */
export function hrtickOf(features: string | null | undefined): string {
  if (!features) return "?";
  const w = features.split(/\s+/);
  if (w.includes("NO_HRTICK")) return "NO_HRTICK";
  if (w.includes("HRTICK")) return "HRTICK";
  return "?";
}

/** One row per cell × kind × cause with at least one run that has an attribution; causes with 0 events are kept (their interval is informative). */
export function causeTable(rows: readonly AttributedRow[]): CauseCell[] {
  const groups = new Map<string, AttributedRow[]>();
  for (const r of rows) {
    if (!r.attribution) continue;
    const key = [r.mode, r.pages, r.extension, hrtickOf(r.attribution.schedFeatures)].join("\u0000");
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(r);
  }
  const out: CauseCell[] = [];
  for (const [key, rs] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const [mode, pages, extension, hrtick] = key.split("\u0000") as [string, string, string, string];
    const holds = rs.reduce((a, r) => a + r.holds, 0);
    for (const where of ["inKernel", "atReturn"] as const) {
      const total = rs.reduce((a, r) => a + RESCHED_CAUSES.reduce((b, c) => b + r.attribution!.causes[where][c], 0), 0);
      for (const cause of RESCHED_CAUSES) {
        const count = rs.reduce((a, r) => a + r.attribution!.causes[where][cause], 0);
        const per = wilson(count, holds);
        out.push({
          mode, pages, extension, hrtick, runs: rs.length, holds, where, cause, count,
          share: wilson(count, total),
          per1000: { ...per, p: per.p * 1000, lo: per.lo * 1000, hi: per.hi * 1000 },
        });
      }
    }
  }
  return out;
}

const pct = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(0) : "—");
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "—");

/** The table for notebook 07: one line per cell × kind, a column per cause ("count (share % [lo, hi])"). */
export function causeTableRows(cells: readonly CauseCell[]): Record<string, string | number>[] {
  const byKey = new Map<string, CauseCell[]>();
  for (const c of cells) {
    const k = [c.mode, c.pages, c.extension, c.hrtick, c.where].join("/");
    (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(c);
  }
  return [...byKey.values()].map((cs) => {
    const c0 = cs[0]!;
    const row: Record<string, string | number> = { mode: c0.mode, pages: c0.pages, extension: c0.extension, feature: c0.hrtick, runs: c0.runs, holds: c0.holds, preemption: c0.where === "inKernel" ? "in kernel" : "at return", total: cs.reduce((a, c) => a + c.count, 0) };
    for (const c of cs) if (c.count > 0 || c.cause !== "unattributed") row[c.cause] = c.count === 0 ? `0 [0, ${pct(c.share.hi)}] %` : `${c.count} (${pct(c.share.p)} [${pct(c.share.lo)}, ${pct(c.share.hi)}] %; ${f2(c.per1000.p)} /1k holds)`;
    return row;
  });
}

/** The dominant cause of in-kernel preemptions in a cell: the cause with the most events and its share (null without any). */
export function dominantCause(cells: readonly CauseCell[], c: { mode: string; pages: string; extension: string; hrtick?: string }, where: "inKernel" | "atReturn" = "inKernel"): CauseCell | null {
  const xs = cells.filter((x) => x.mode === c.mode && x.pages === c.pages && x.extension === c.extension && x.where === where && (c.hrtick === undefined || x.hrtick === c.hrtick));
  const best = xs.reduce<CauseCell | null>((a, x) => (x.count > (a?.count ?? 0) ? x : a), null);
  return best;
}

// ---- planned runs without a row ----

export interface FailedRun {
  run: string;
  reason: string;
}

/** Groups of the same reason (run ids collapsed), for notebook 07: "not reached (the guest timed out)" × 15: 022–036. */
export function failureReasons(plan: readonly { id: string }[], failed: readonly FailedRun[]): { reason: string; runs: string[]; count: number; ofPlanned: number }[] {
  const planned = new Set(plan.map((p) => p.id));
  for (const f of failed) if (!planned.has(f.run)) throw new RangeError(`failed run ${f.run} is not in the plan`);
  const norm = (r: string) => r.replace(/\/[^\s:]*\/runs\/\d+/g, "…/runs/N").replace(/run \d{3}/g, "run N");
  const by = new Map<string, string[]>();
  for (const f of failed) (by.get(norm(f.reason)) ?? by.set(norm(f.reason), []).get(norm(f.reason))!).push(f.run);
  return [...by].map(([reason, runs]) => ({ reason, runs: runs.sort(), count: runs.length, ofPlanned: planned.size })).sort((a, b) => b.count - a.count);
}

// ---- which hypothesis, and why lazy behaves as it does ----

/** The deciding functions (Linux 7.2.13), quoted by file:line for the answer sentence. */
export const DECIDING_FUNCTIONS: Record<ReschedCause, string> = {
  hrtick:
    "the scheduler's high-resolution tick: with CONFIG_HRTIMER_REARM_DEFERRED=y, SCHED_FEAT(HRTICK, true) (kernel/sched/features.h:68-69); hrtick_start_fair arms it at the end of the slice (kernel/sched/fair.c:7873); hrtick (kernel/sched/core.c:918) calls task_tick(…, queued=1), and entity_tick then calls resched_curr (kernel/sched/fair.c:6656) — TIF_NEED_RESCHED in every mode, which raw_irqentry_exit_cond_resched's need_resched() → preempt_schedule_irq acts on inside the fault (kernel/entry/common.c:144-145)",
  tick: "sched_tick → task_tick_fair → update_curr → resched_curr_lazy (kernel/sched/fair.c:2227; kernel/sched/core.c:1268)",
  "tick-escalation": "sched_tick's upgrade of a pending lazy request: resched_curr when dynamic_preempt_lazy() and TIF_NEED_RESCHED_LAZY (kernel/sched/core.c:5811-5812), then need_resched() → preempt_schedule_irq at the interrupt's exit (kernel/entry/common.c:144-145)",
  "wakeup-rt-or-kthread": "wakeup_preempt (kernel/sched/core.c:2294-2303): resched_curr for a task of a higher class; wakeup_preempt_fair → resched_curr_lazy for a fair kernel thread (kernel/sched/fair.c:10137)",
  "wakeup-preemption": "wakeup_preempt_fair → resched_curr_lazy (kernel/sched/fair.c:10137)",
  hrtimer: "an hrtimer callback other than the ticks (kernel/time/hrtimer.c __hrtimer_run_queues)",
  other: "another caller of __resched_curr (kernel/sched/core.c:1196)",
  unattributed: "no request recorded between the holder's switch in and out",
};

export interface HypothesisVerdict {
  /** H1: in-kernel preemption the extension cannot reach; H2: moved to the return, where it can. */
  supported: "H1" | "H2" | "neither" | "not tested";
  sentence: string;
}

/**
 * Which of H1/H2 the attributed runs support, for one pages × extension
 * slice (default 4k, off) and one hrtick setting: H2 needs lazy's in-kernel
 * share clearly below full's (Wilson intervals of pooled counts, disjoint);
 * H1 holds when lazy's in-kernel share's lower bound is above 0 and its
 * interval overlaps or exceeds full's. The sentence names lazy's dominant
 * in-kernel cause, its share, and the function that decides it.
 */
export function hypothesisVerdict(cells: readonly CauseCell[], o: { pages?: string; extension?: string; hrtick?: string; label: string } ): HypothesisVerdict {
  const pages = o.pages ?? "4k";
  const extension = o.extension ?? "off";
  const pick = (mode: string, where: "inKernel" | "atReturn") => cells.filter((c) => c.mode === mode && c.pages === pages && c.extension === extension && c.where === where && (o.hrtick === undefined || c.hrtick === o.hrtick));
  const sum = (xs: CauseCell[]) => xs.reduce((a, c) => a + c.count, 0);
  const kL = sum(pick("lazy", "inKernel"));
  const rL = sum(pick("lazy", "atReturn"));
  const kF = sum(pick("full", "inKernel"));
  const rF = sum(pick("full", "atReturn"));
  if (kL + rL === 0 || kF + rF === 0) return { supported: "not tested", sentence: `${o.label}: no attributed holder preemption in lazy or full (${pages}, extension ${extension}).` };
  const sl = wilson(kL, kL + rL);
  const sf = wilson(kF, kF + rF);
  const pc = (p: Proportion) => `${pct(p.p)} % [${pct(p.lo)}, ${pct(p.hi)}] (${p.k} of ${p.n})`;
  const dom = dominantCause(cells, { mode: "lazy", pages, extension, hrtick: o.hrtick });
  const domTxt = dom && dom.count > 0 ? ` ${pct(dom.share.p)} % [${pct(dom.share.lo)}, ${pct(dom.share.hi)}] of lazy's in-kernel preemptions (${dom.count} of ${kL}) were set by ${dom.cause}: ${DECIDING_FUNCTIONS[dom.cause]}.` : "";
  const domRet = dominantCause(cells, { mode: "lazy", pages, extension, hrtick: o.hrtick }, "atReturn");
  const retTxt = domRet && domRet.count > 0 ? ` At the return, lazy's most frequent cause was ${domRet.cause} (${domRet.count} of ${rL}).` : "";
  let supported: HypothesisVerdict["supported"];
  if (sl.hi < sf.lo) supported = "H2";
  else if (sl.lo > 0) supported = "H1";
  else supported = "neither";
  const what = supported === "H2" ? "support H2: lazy moved holder preemptions out of the kernel" : supported === "H1" ? "support H1: under lazy holders are still preempted inside the kernel, where the extension cannot act" : "decide neither";
  return {
    supported,
    sentence: `${o.label} (${pages} pages, extension ${extension}${o.hrtick ? `, ${o.hrtick}` : ""}): the in-kernel share of holder preemptions was ${pc(sl)} under lazy and ${pc(sf)} under full, so the data ${what}.${domTxt}${retTxt}`,
  };
}

// ---- issue 26 item 2: the classifier against runs whose answer is known ----

export interface KnownCaseRow extends AttributedRow {
  kernelFault: number;
  kernelOther: number;
  returnFault: number;
  returnInterrupt: number;
  returnSyscall: number;
  attribution?: (AttributedRow["attribution"] & { where?: Record<"inKernel" | "atReturn", Record<string, number>> }) | null;
}

export interface KnownCaseCheck {
  case: string;
  expected: string;
  observed: string;
  /** null: no run of this case. */
  pass: boolean | null;
}

const sumOf = <T>(xs: readonly T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);

/**
 * syscall: runs with --syscall-in-cs and pre-faulted pages (full): in-kernel
 * preemptions are kernel-other, never kernel-fault, with the deciding request
 * made while the holder was in the syscall. quiet: pre-faulted, no syscall in
 * the section (full and lazy): no in-kernel preemption, at-return ones from an
 * interrupt. longFault: 2 MB first touches (thp) under lazy with NO_HRTICK: at
 * least one in-fault preemption set by sched_tick's escalation, none by the hrtick.
 */
export function knownCaseChecks(c: { syscall: readonly KnownCaseRow[]; quiet: readonly KnownCaseRow[]; longFault: readonly KnownCaseRow[] }): KnownCaseCheck[] {
  const out: KnownCaseCheck[] = [];
  const sys = c.syscall.filter((r) => r.mode === "full");
  if (sys.length === 0) out.push({ case: "long syscall (full)", expected: "in-kernel preemptions are kernel-other, requests made in the syscall", observed: "no run", pass: null });
  else {
    const ko = sumOf(sys, (r) => r.kernelOther), kf = sumOf(sys, (r) => r.kernelFault), inSys = sumOf(sys, (r) => r.attribution?.where?.inKernel?.syscall ?? 0);
    out.push({ case: "long syscall (full)", expected: "kernel-other > 0, kernel-fault = 0, deciding requests made in the syscall > 0", observed: `kernel-other ${ko}, kernel-fault ${kf}, requests in the syscall ${inSys} (${sys.length} runs)`, pass: ko > 0 && kf === 0 && inSys > 0 });
  }
  if (c.quiet.length === 0) out.push({ case: "no fault, no syscall", expected: "no in-kernel preemption", observed: "no run", pass: null });
  else {
    const k = sumOf(c.quiet, (r) => r.kernelFault + r.kernelOther), ri = sumOf(c.quiet, (r) => r.returnInterrupt), rf = sumOf(c.quiet, (r) => r.returnFault + r.returnSyscall);
    out.push({ case: "no fault, no syscall", expected: "in-kernel 0, return-from-interrupt > 0, return from a fault or syscall 0", observed: `in-kernel ${k}, return-interrupt ${ri}, return-fault/syscall ${rf} (${c.quiet.length} runs: ${[...new Set(c.quiet.map((r) => r.mode))].join(", ")})`, pass: k === 0 && ri > 0 && rf === 0 });
  }
  const lf = c.longFault.filter((r) => r.mode === "lazy" && hrtickOf(r.attribution?.schedFeatures) === "NO_HRTICK");
  if (lf.length === 0) out.push({ case: "long fault (lazy, NO_HRTICK)", expected: "an in-fault preemption set by sched_tick's escalation", observed: "no run", pass: null });
  else {
    const esc = sumOf(lf, (r) => r.attribution?.causes.inKernel["tick-escalation"] ?? 0), hr = sumOf(lf, (r) => r.attribution?.causes.inKernel.hrtick ?? 0), kf = sumOf(lf, (r) => r.kernelFault);
    out.push({ case: "long fault (lazy, NO_HRTICK)", expected: "in-kernel preemptions by tick-escalation > 0, by the hrtick 0", observed: `in-fault ${kf}, in-kernel by tick-escalation ${esc}, by the hrtick ${hr} (${lf.length} runs)`, pass: esc > 0 && hr === 0 });
  }
  return out;
}
