/**
 * What the Linux 7.2 source says about where a lock holder can be preempted
 * and where the time-slice extension can act, each statement turned into a
 * prediction about the mechanism factorial's counts with a rule that decides
 * it from the rows. Read from the tree the kit fetches
 * (linux-source-7.2 7.2.13-1); function and file names, no verbatim code.
 */
import { wilson } from "./mechanism-causes.js";
import { cellRows, extensionEffect, kernelOf, RATES, ratioOfSums, returnOf, tInterval, welchDiff, type FactorialRow, type Interval } from "./mechanism.js";

export type Verdict = "confirmed" | "refuted" | "undecided" | "not tested";

export interface PredictionResult {
  verdict: Verdict;
  /** The numbers the rule used, as text (with intervals). */
  evidence: string;
}

export interface Prediction {
  id: string;
  /** Where in the source: function (file). */
  source: string;
  /** What the source does, in our words. */
  statement: string;
  /** What that predicts for the factorial. */
  prediction: string;
  /** How the verdict is computed. */
  rule: string;
  evaluate(rows: readonly FactorialRow[]): PredictionResult;
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "—");
const iv = (i: Interval, s = 1) => `${f2(i.mean * s)} [${f2(i.lo * s)}, ${f2(i.hi * s)}]`;
const MODES = ["full", "lazy"] as const;

function has(rows: readonly FactorialRow[], mode: string, pages: string, ext: string, min = 2): boolean {
  return cellRows(rows, { mode, pages, extension: ext }).length >= min;
}

/** Interval entirely below 0 → "below", above → "above", else "spans". */
function sign(i: Interval): "below" | "above" | "spans" | "unknown" {
  if (!Number.isFinite(i.lo) || !Number.isFinite(i.hi)) return "unknown";
  if (i.hi < 0) return "below";
  if (i.lo > 0) return "above";
  return "spans";
}

/** Combines per-mode verdicts: all confirmed → confirmed; any refuted → refuted; else undecided / not tested. */
function combine(vs: Verdict[]): Verdict {
  if (vs.length === 0 || vs.every((v) => v === "not tested")) return "not tested";
  if (vs.some((v) => v === "refuted")) return "refuted";
  if (vs.every((v) => v === "confirmed")) return "confirmed";
  return "undecided";
}

export const PREDICTIONS: Prediction[] = [
  {
    id: "P0-none-never-in-kernel",
    source: "the PREEMPT_DYNAMIC table above sched_dynamic_update (kernel/sched/core.c): under none and voluntary irqentry_exit_cond_resched is a NOP",
    statement:
      "Under none the interrupt exit to kernel mode never calls preempt_schedule_irq (its static call is patched to a NOP), so a task in the fault handler is not preempted there; it can still be switched at the return to user space.",
    prediction: "Under none (the pre-7.0 default; a 6.x kernel here), no holder preemption happens inside the kernel, with 4 KB pages.",
    rule: "none/4k/off: zero in-kernel preemptions over all runs → confirmed; any → refuted; no at-return preemption either → not tested (nothing was preempted).",
    evaluate(rows) {
      if (!has(rows, "none", "4k", "off", 1)) return { verdict: "not tested", evidence: "cell none/4k/off missing" };
      const rs = cellRows(rows, { mode: "none", pages: "4k", extension: "off" });
      const k = rs.reduce((a, r) => a + kernelOf(r), 0);
      const ret = rs.reduce((a, r) => a + returnOf(r), 0);
      const ev = `${rs.length} runs on ${[...new Set(rs.map((r) => r.kernelRelease))].join(", ")}: ${k} in-kernel and ${ret} at-return holder preemptions`;
      if (k > 0) return { verdict: "refuted", evidence: ev };
      return { verdict: ret > 0 ? "confirmed" : "not tested", evidence: ev };
    },
  },
  {
    id: "P1-fault-return-grantable",
    source: "exc_page_fault (arch/x86/mm/fault.c) → irqentry_enter → irqentry_enter_from_user_mode → rseq_note_user_irq_entry (kernel/entry/common.c, include/linux/irq-entry-common.h, include/linux/rseq_entry.h); __rseq_grant_slice_extension (include/linux/rseq_entry.h)",
    statement:
      "A page fault taken in user mode enters through irqentry_enter, which for a user-mode entry runs irqentry_enter_from_user_mode and so sets rseq.event.user_irq; __rseq_grant_slice_extension masks the task's enabled state with that flag, so the return from a user page fault is as eligible for a grant as the return from a timer interrupt.",
    prediction: "With 4 KB pages, turning the extension on lowers holder preemptions at the return from a page fault, in full and in lazy.",
    rule: "per mode: Welch 95 % interval of (on − off) return-from-fault preemptions per 1,000 holds entirely below 0 → confirmed; entirely above 0 → refuted; otherwise undecided; off cell without any → not tested.",
    evaluate(rows) {
      const parts: string[] = [];
      const vs = MODES.map((m): Verdict => {
        if (!has(rows, m, "4k", "off") || !has(rows, m, "4k", "on")) return "not tested";
        const off = cellRows(rows, { mode: m, pages: "4k", extension: "off" });
        if (off.every((r) => r.returnFault === 0)) {
          parts.push(`${m}: no return-from-fault preemption with the extension off`);
          return "not tested";
        }
        const d = extensionEffect(rows, m, "4k", "returnFault");
        parts.push(`${m}: on − off ${iv(d)} per 1,000 holds`);
        const s = sign(d);
        return s === "below" ? "confirmed" : s === "above" ? "refuted" : "undecided";
      });
      return { verdict: combine(vs), evidence: parts.join("; ") || "cells missing" };
    },
  },
  {
    id: "P2-grant-only-at-return",
    source: "__exit_to_user_mode_loop → rseq_grant_slice_extension (kernel/entry/common.c); irqentry_exit_to_kernel_mode → irqentry_exit_cond_resched → preempt_schedule_irq (kernel/entry/common.c)",
    statement:
      "The only call that can grant an extension is in __exit_to_user_mode_loop, before schedule(); an interrupt that arrives while the task is in the kernel (in the fault handler) returns through irqentry_exit_to_kernel_mode, which calls preempt_schedule_irq when need_resched() is set, with no slice check.",
    prediction: "Turning the extension on does not lower holder preemptions inside the kernel (4 KB pages, both modes).",
    rule: "per mode: Welch 95 % interval of (on − off) in-kernel preemptions per 1,000 holds entirely below 0 → refuted; otherwise confirmed (no reduction detected; the interval is reported); no in-kernel preemption in either cell → not tested.",
    evaluate(rows) {
      const parts: string[] = [];
      const vs = MODES.map((m): Verdict => {
        if (!has(rows, m, "4k", "off") || !has(rows, m, "4k", "on")) return "not tested";
        const both = [...cellRows(rows, { mode: m, pages: "4k", extension: "off" }), ...cellRows(rows, { mode: m, pages: "4k", extension: "on" })];
        if (both.every((r) => kernelOf(r) === 0)) {
          parts.push(`${m}: no in-kernel preemption in either cell`);
          return "not tested";
        }
        const d = extensionEffect(rows, m, "4k", "kernel");
        parts.push(`${m}: on − off ${iv(d)} per 1,000 holds`);
        return sign(d) === "below" ? "refuted" : sign(d) === "unknown" ? "undecided" : "confirmed";
      });
      return { verdict: combine(vs), evidence: parts.join("; ") || "cells missing" };
    },
  },
  {
    id: "P3-full-preempts-in-fault",
    source: "irqentry_exit_cond_resched / preempt_schedule_irq (kernel/entry/common.c, kernel/sched/core.c); __resched_curr sets TIF_NEED_RESCHED and the preempt-count bit (kernel/sched/core.c)",
    statement:
      "Under full every reschedule request is TIF_NEED_RESCHED, which also sets the need-resched bit in the preempt count: the next interrupt that ends while the holder is in the fault handler preempts it there.",
    prediction: "Under full with 4 KB pages and the extension off, some holder preemptions happen inside the page fault.",
    rule: "full/4k/off: 95 % t interval of in-fault preemptions per 1,000 holds with a lower bound above 0 → confirmed; none at all → refuted; otherwise undecided.",
    evaluate(rows) {
      if (!has(rows, "full", "4k", "off")) return { verdict: "not tested", evidence: "cell full/4k/off missing" };
      const rs = cellRows(rows, { mode: "full", pages: "4k", extension: "off" });
      const i = tInterval(rs.map(RATES.kernelFault));
      const total = rs.reduce((a, r) => a + r.kernelFault, 0);
      const ev = `${total} in-fault preemptions in ${rs.length} runs; ${iv(i)} per 1,000 holds`;
      if (total === 0) return { verdict: "refuted", evidence: ev };
      return { verdict: i.lo > 0 ? "confirmed" : "undecided", evidence: ev };
    },
  },
  {
    id: "P4-lazy-escalates-in-fault",
    source: "sched_tick: resched_curr when dynamic_preempt_lazy() and TIF_NEED_RESCHED_LAZY (kernel/sched/core.c:5811-5812); resched_curr_lazy (kernel/sched/core.c:1268, fair.c update_curr:2227, wakeup_preempt_fair:10137)",
    statement:
      "Under lazy a fair-class reschedule sets only TIF_NEED_RESCHED_LAZY, which no in-kernel preemption point tests; but the next sched_tick upgrades a pending lazy request to TIF_NEED_RESCHED, so a holder still in the fault handler a tick later is preempted inside the kernel (H1).",
    prediction: "Under lazy with 4 KB pages and the extension off, in-fault holder preemptions also occur, at a lower rate than under full.",
    rule:
      "(issue 26) lazy/4k/off and full/4k/off, ≥ 2 runs each; d = Welch 95 % interval of (lazy − full) in-fault preemptions per 1,000 holds. No in-fault preemption under lazy → refuted (they do not occur). d entirely below 0 and lazy's own 95 % lower bound above 0 → confirmed. d's lower bound above −½ × full's mean → refuted (the data exclude lazy's rate being below half of full's: the escalation needs a lazy request still pending at a second tick inside the same fault, so the source predicts a large reduction, not a small one). Otherwise undecided.",
    evaluate(rows) {
      if (!has(rows, "lazy", "4k", "off") || !has(rows, "full", "4k", "off")) return { verdict: "not tested", evidence: "cell lazy/4k/off or full/4k/off has fewer than 2 runs" };
      const lz = cellRows(rows, { mode: "lazy", pages: "4k", extension: "off" });
      const fu = cellRows(rows, { mode: "full", pages: "4k", extension: "off" });
      const il = tInterval(lz.map(RATES.kernelFault));
      const ifu = tInterval(fu.map(RATES.kernelFault));
      const total = lz.reduce((a, r) => a + r.kernelFault, 0);
      const d = welchDiff(fu.map(RATES.kernelFault), lz.map(RATES.kernelFault));
      const ev = `lazy: ${total} in-fault preemptions in ${lz.length} runs, ${iv(il)} per 1,000 holds; full: ${iv(ifu)}; lazy − full ${iv(d)} (refuted above ${f2(-0.5 * ifu.mean)})`;
      if (total === 0) return { verdict: "refuted", evidence: ev };
      if (sign(d) === "unknown") return { verdict: "undecided", evidence: ev };
      if (d.hi < 0 && il.lo > 0) return { verdict: "confirmed", evidence: ev };
      if (d.lo > -0.5 * ifu.mean) return { verdict: "refuted", evidence: ev };
      return { verdict: "undecided", evidence: ev };
    },
  },
  {
    id: "P5-lazy-concentrates-at-fault-return",
    source: "__resched_curr: a lazy request sets TIF_NEED_RESCHED_LAZY without an IPI (kernel/sched/core.c:1196-1230); exit_to_user_mode_loop tests it on every return (kernel/entry/common.c)",
    statement:
      "A lazy request made while the holder runs in user mode waits for the next kernel entry; a minor fault taken under the lock is such an entry, so under lazy more of the preemptions at the return are returns from a fault than under full (H2).",
    prediction: "With 4 KB pages and the extension off, the share of return-from-fault among at-return preemptions is higher under lazy than under full.",
    rule:
      "(issue 26) pooled counts over runs, Wilson 95 % intervals of the share in lazy and in full (≥ 2 runs each): lazy's lower bound above full's upper bound → confirmed; lazy's upper bound below full's lower bound → refuted; no return-from-fault preemption under lazy with lazy's upper bound below 5 % → refuted (the preemptions did not concentrate there: H2 needs a sizeable share); no at-return preemption under lazy → not tested; otherwise undecided.",
    evaluate(rows) {
      if (!has(rows, "lazy", "4k", "off") || !has(rows, "full", "4k", "off")) return { verdict: "not tested", evidence: "cells missing" };
      const share = (m: string) => {
        const rs = cellRows(rows, { mode: m, pages: "4k", extension: "off" });
        return wilson(rs.reduce((a, r) => a + r.returnFault, 0), rs.reduce((a, r) => a + returnOf(r), 0));
      };
      const l = share("lazy");
      const fu = share("full");
      const p = (x: { k: number; n: number; p: number; lo: number; hi: number }) => `${x.k} of ${x.n} (${f2(100 * x.p)} % [${f2(100 * x.lo)}, ${f2(100 * x.hi)}])`;
      const ev = `return-from-fault among at-return preemptions: lazy ${p(l)}, full ${p(fu)}`;
      if (l.n === 0) return { verdict: "not tested", evidence: ev };
      if (fu.n > 0 && l.lo > fu.hi) return { verdict: "confirmed", evidence: ev };
      if (fu.n > 0 && l.hi < fu.lo) return { verdict: "refuted", evidence: ev };
      if (l.k === 0 && l.hi < 0.05) return { verdict: "refuted", evidence: ev };
      return { verdict: "undecided", evidence: ev };
    },
  },
  {
    id: "P6-huge-pages-remove-faults",
    source: "hugetlb_fault (mm/hugetlb.c) maps 2 MB per fault; do_user_addr_fault → handle_mm_fault (arch/x86/mm/fault.c, mm/memory.c)",
    statement: "A hugetlb mapping is populated 2 MB per fault instead of 4 KB: for the same pages touched, 512× fewer faults, so fewer chances to be preempted in a fault.",
    prediction: "With hugetlb, faults under lock and in-kernel holder preemptions fall to (almost) none, extension off, in every mode measured.",
    rule: "per mode: hugetlb's upper 95 % bound of faults per 1,000 holds below 5 % of the 4 KB mean and of in-kernel preemptions below 25 % of the 4 KB mean → confirmed; hugetlb mean ≥ 4 KB mean for either → refuted; otherwise undecided.",
    evaluate: (rows) => remedy(rows, "hugetlb"),
  },
  {
    id: "P7-prefault-removes-faults",
    source: "a page already mapped in the page tables takes no fault (handle_mm_fault is never entered: arch/x86/mm/fault.c)",
    statement: "Touching the whole shared region before the measured loop (as a backend could at start) leaves no first touch for the critical sections.",
    prediction: "With the region pre-faulted, faults under lock and in-kernel holder preemptions fall to (almost) none, extension off, in every mode measured.",
    rule: "as P6, with the 4k-prefault cells.",
    evaluate: (rows) => remedy(rows, "4k-prefault"),
  },
];

function remedy(rows: readonly FactorialRow[], pages: string): PredictionResult {
  const parts: string[] = [];
  const vs = (["full", "lazy", "none"] as const).filter((m) => has(rows, m, pages, "off")).map((m): Verdict => {
    if (!has(rows, m, pages, "off") || !has(rows, m, "4k", "off")) return "not tested";
    const base = cellRows(rows, { mode: m, pages: "4k", extension: "off" });
    const rem = cellRows(rows, { mode: m, pages, extension: "off" });
    const bf = tInterval(base.map(RATES.faultsUnderLock));
    const rf = tInterval(rem.map(RATES.faultsUnderLock));
    const bk = tInterval(base.map(RATES.kernel));
    const rk = tInterval(rem.map(RATES.kernel));
    parts.push(`${m}: faults ${f2(bf.mean)} → ${iv(rf)}, in-kernel ${f2(bk.mean)} → ${iv(rk)} per 1,000 holds`);
    if (rf.mean >= bf.mean || (bk.mean > 0 && rk.mean >= bk.mean)) return "refuted";
    const rkHi = Number.isFinite(rk.hi) ? rk.hi : rk.mean;
    const rfHi = Number.isFinite(rf.hi) ? rf.hi : rf.mean;
    if (rfHi < 0.05 * bf.mean && (bk.mean === 0 ? rkHi === 0 : rkHi < 0.25 * bk.mean)) return "confirmed";
    return "undecided";
  });
  return { verdict: combine(vs), evidence: parts.join("; ") || "cells missing" };
}

/** Every prediction with its verdict on these rows. */
export function evaluatePredictions(rows: readonly FactorialRow[]): { id: string; source: string; statement: string; prediction: string; rule: string; verdict: Verdict; evidence: string }[] {
  return PREDICTIONS.map((p) => {
    const r = p.evaluate(rows);
    return { id: p.id, source: p.source, statement: p.statement, prediction: p.prediction, rule: p.rule, verdict: r.verdict, evidence: r.evidence };
  });
}
