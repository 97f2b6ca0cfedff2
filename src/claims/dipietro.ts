/**
 * Claims of the April 2026 regression report (Salvatore Dipietro, LKML, 2026-04-03,
 * <20260403191942.21410-1-dipiets@amazon.it>) and the replies it drew. The post is not
 * in the stored archives: the figures are as public write-ups print them
 * (data/published/dipietro-2026/secondary-figures.raw.txt), and every entry says so.
 * The kernel side's suggestion (use the rseq time slice extension) gets its verdict
 * from our mechanism study (data/runs/vm-eviction/20261130T000002Z).
 */
import { printedNumber, secondaryFigure, type Dipietro2026 } from "../published/index.js";
import { claimEntry, type ClaimEntry } from "./entry.js";
import { fmt, fmtInt, fmtSignedPct, printedInterval, decimalsOf } from "./numbers.js";
import { MECHANISM_RECORD, mechanismComparison, mechanismSummary, recordDir, type MechanismSummary } from "./records.js";
import { figureVerdict, type Verdict } from "./verdicts.js";

const SECONDARY = "figures as printed by public write-ups; the LKML post itself is not in the stored archives";

function cite(f: { file: string; line: number }): string {
  return `${f.file}:${f.line}`;
}

function fmtPct(x: number, d = 1): string {
  return `${fmt(x, d)}%`;
}

/** The kit's own VM comparison of the preemption modes with slice_extension off: none (6.1) → lazy (7.2). */
function regressionEntry(d: Dipietro2026, m: MechanismSummary): ClaimEntry {
  const before = secondaryFigure(d, "tps-before");
  const after = secondaryFigure(d, "tps-after");
  const ratioF = secondaryFigure(d, "ratio");
  const b = printedNumber(before, /:\s*([\d,]+)\s+transactions/);
  const a = printedNumber(after, /:\s*([\d,]+)\s+transactions/);
  const r = printedNumber(ratioF, /^([\d.]+)x$/);
  const ratio = a.value / b.value;
  // The tps figures are integers (±0.5); the printed ratio stands for what its decimals allow.
  const bounds = { lo: (a.value - 0.5) / (b.value + 0.5), hi: (a.value + 0.5) / (b.value - 0.5) };
  const verdict = figureVerdict(printedInterval(r.value, decimalsOf(r.text)), bounds);
  const c = mechanismComparison(m, "off-none-vs-lazy");
  const cell = (mode: string) => m.cells.find((x) => x.mode === mode && x.variant === "off");
  const none = cell("none");
  const lazy = cell("lazy");
  return claimEntry({
    id: "dipietro-2026/throughput-halved",
    source: "dipietro-2026",
    claim: `PostgreSQL pgbench throughput on Linux 7.0 "0.51x" that of Linux 6.x on the same machine (${SECONDARY})`,
    cites: [cite(before), cite(after), cite(ratioF)],
    published: `${b.text} → ${a.text} tps; ${r.text}x`,
    recomputed: `${a.text} / ${b.text} = ${fmt(ratio, 4)} (${fmtSignedPct(100 * (ratio - 1), 1)})`,
    uncertainty: `rounding of the printed tps (±0.5): ${fmt(bounds.lo, 5)}–${fmt(bounds.hi, 5)}; one figure per kernel, no spread`,
    verdict,
    reason:
      verdict === "recomputed"
        ? `${fmt(ratio, 3)} prints as ${r.text}x; the figures come from write-ups of the post, and with one figure per kernel the drop cannot be set against run-to-run noise`
        : `${fmt(ratio, 4)} does not print as ${r.text}x`,
    basis: `the two tps figures and the ratio as printed (data/published/dipietro-2026); the post's benchmark: ${secondaryFigure(d, "workload").printed} on a ${secondaryFigure(d, "machine").printed}`,
    reproduction: {
      status: "not yet reproduced",
      records: [recordDir(MECHANISM_RECORD), recordDir("vm-eviction/20261130T031806Z"), recordDir("vm-eviction/20261130T031518Z")],
      note:
        `our runs are a 2-vCPU VM under TCG (functional evidence), not the post's ${secondaryFigure(d, "machine").printed}: with slice_extension off, preempt=lazy${lazy ? ` on ${lazy.kernel}` : ""} against preempt=none${none ? ` on ${none.kernel}` : ""} gives ${fmtSignedPct(c.differencePct, 1)} ` +
        `(${none ? fmt(none.mean, 1) : "?"} → ${lazy ? fmt(lazy.mean, 1) : "?"} tps, Welch p = ${fmt(c.welchP, 3)}, detectable ±${fmt(c.minimumDetectableEffectPct, 0)}%): ` +
        (c.welchP < 0.05 && c.differencePct < 0
          ? `a significant drop`
          : `no drop seen; one of ${fmt(100 * (1 - ratio), 0)}% ${100 * (1 - ratio) > c.minimumDetectableEffectPct ? "would have been detectable" : "could have been missed"} at this noise`),
    },
    values: {
      tpsBefore: b.value,
      tpsAfter: a.value,
      printedRatio: r.value,
      ratio,
      ratioLo: bounds.lo,
      ratioHi: bounds.hi,
      vmLazyVsNonePct: c.differencePct,
      vmLazyVsNoneP: c.welchP,
      vmDetectablePct: c.minimumDetectableEffectPct,
    },
  });
}

function sLockEntry(d: Dipietro2026): ClaimEntry {
  const ids = ["perf-start-read-buffer", "perf-get-victim-buffer", "perf-strategy-get-buffer", "perf-s-lock"] as const;
  const fs = ids.map((id) => secondaryFigure(d, id));
  const vals = fs.map((f) => printedNumber(f, /^([\d.]+)%/).value);
  const names = fs.map((f) => f.printed.replace(/^[\d.]+%\s*-\s*/, ""));
  // Each frame of a call chain includes its callees: the shares cannot grow down the chain.
  const nested = vals.every((v, i) => i === 0 || v <= vals[i - 1]!);
  const underParent = (100 * vals[3]!) / vals[2]!;
  const verdict: Verdict = nested ? "consistent" : "not recomputed";
  return claimEntry({
    id: "dipietro-2026/s-lock-share",
    source: "dipietro-2026",
    claim: `perf: ${fmtPct(vals[3]!, 2)} of CPU time in s_lock under StrategyGetBuffer (${SECONDARY})`,
    cites: fs.map(cite),
    published: names.map((n, i) => `${n} ${fmtPct(vals[i]!, 2)}`).join(" > "),
    recomputed: `shares ${nested ? "never grow" : "grow"} down the call chain; s_lock is ${fmt(underParent, 1)}% of StrategyGetBuffer's inclusive share`,
    uncertainty: `±0.005 points per printed share; one profile`,
    verdict,
    reason: nested
      ? `the call chain is internally consistent and puts almost all of StrategyGetBuffer's time in the spinlock; one profile of one kernel: that a preempted lock holder causes it is the write-ups' explanation, not shown by the profile`
      : `a callee's inclusive share exceeds its caller's, which a call graph cannot produce`,
    basis: `the four frames of the call graph as printed (data/published/dipietro-2026)`,
    reproduction: {
      status: "not yet reproduced",
      records: [recordDir("sangappa-2024-locktable/20261130T075623Z")],
      note: `our lock statistics come from a 2-vCPU VM under TCG with a different workload (the lock-table protocol), not from the post's ${secondaryFigure(d, "workload").printed}`,
    },
    values: { startReadBufferPct: vals[0]!, getVictimBufferPct: vals[1]!, strategyGetBufferPct: vals[2]!, sLockPct: vals[3]!, sLockShareOfParentPct: underParent },
  });
}

function commitEntry(d: Dipietro2026): ClaimEntry {
  const c = secondaryFigure(d, "commit");
  const t = secondaryFigure(d, "commit-title");
  const hash = /^([0-9a-f]{12})\b/.exec(c.printed)?.[1] ?? null;
  return claimEntry({
    id: "dipietro-2026/bisected-commit",
    source: "dipietro-2026",
    claim: `the regression bisects to commit ${hash ?? "?"} ("${t.printed}") (${SECONDARY})`,
    cites: [cite(c), cite(t)],
    published: `${c.printed}: "${t.printed}"`,
    recomputed: "no bisection log is in the reachable sources",
    uncertainty: null,
    verdict: "not checkable",
    reason: `the write-ups give only the outcome of the bisection; what the commit changes (the preemption modes full and lazy only, on architectures with lazy preemption) is public, but that it alone halves this benchmark is not checkable from them`,
    basis: `the commit as printed (data/published/dipietro-2026)`,
    reproduction: {
      status: "not yet reproduced",
      records: [recordDir(MECHANISM_RECORD)],
      note: `our VM runs compare the preemption modes directly (none on 6.1, full and lazy on 7.2) instead of bisecting; see dipietro-2026/throughput-halved`,
    },
    values: {},
  });
}

function hugePagesEntry(d: Dipietro2026): ClaimEntry {
  const h = secondaryFigure(d, "huge-pages");
  return claimEntry({
    id: "dipietro-2026/huge-pages-mitigation",
    source: "dipietro-2026",
    claim: `the thread's mitigation: ${h.paraphrase ? "(paraphrase) " : ""}${h.printed}`,
    cites: [cite(h)],
    published: "no figure with huge pages in the reachable sources",
    recomputed: "nothing to recompute",
    uncertainty: null,
    verdict: "not checkable",
    reason: `the reply that says so is not in the stored archives and the write-ups print no throughput with huge pages`,
    basis: `data/published/dipietro-2026 (paraphrase of an Ubuntu release-notes page citing the reply)`,
    reproduction: { status: "not yet reproduced", records: [], note: `no record of ours runs PostgreSQL with huge pages yet (the guest kernel config now has hugetlbfs, for the mechanism study)` },
    values: {},
  });
}

/** "use the rseq slice extension … should limit the exposure to lock holder preemption": the mechanism study's answer. */
function rseqEntry(d: Dipietro2026, m: MechanismSummary): ClaimEntry {
  const r = secondaryFigure(d, "rseq-reply");
  const g = secondaryFigure(d, "rseq-mitigation");
  const on = m.cells.filter((x) => x.variant === "on" && x.sliceExtension.grants > 0);
  const grants = on.reduce((s, x) => s + x.sliceExtension.grants, 0);
  const requests = on.reduce((s, x) => s + x.sliceExtension.requests, 0);
  const effects = on.map((x) => ({ mode: x.mode, c: mechanismComparison(m, `${x.mode}-off-vs-on`) }));
  const found = effects.filter((e) => e.c.welchP < 0.05 && e.c.differencePct > 0);
  const against = effects.filter((e) => e.c.welchP < 0.05 && e.c.differencePct < 0);
  const verdict: Verdict = "not yet reproduced";
  const effText = effects
    .map((e) => `${e.mode}: ${fmtSignedPct(e.c.differencePct, 1)} (Welch p = ${fmt(e.c.welchP, 3)}, detectable ±${fmt(e.c.minimumDetectableEffectPct, 0)}%)`)
    .join("; ");
  return claimEntry({
    id: "dipietro-2026/rseq-slice-extension-limits-exposure",
    source: "dipietro-2026",
    claim: `the kernel side's answer: use the rseq time slice extension, which should limit the exposure to lock-holder preemption (paraphrased by the write-ups; the reply's words are not reachable)`,
    cites: [cite(r), cite(g)],
    published: "no figure",
    recomputed: `mechanism study (${MECHANISM_RECORD}): with slice_extension = all the kernel granted ${fmtInt(grants)} extensions to ${fmtInt(requests)} requests over ${on.map((x) => x.mode).join(" and ")} runs; throughput on vs off: ${effText}`,
    uncertainty: `VM under QEMU TCG, 2 vCPUs, ${on.map((x) => `${x.n} runs per side (${x.mode})`).join(", ")}: times are functional evidence, not performance`,
    verdict,
    reason:
      `the mechanism works in our guest (extensions requested and granted${grants > 0 ? "" : ": none granted"}), but ` +
      (found.length > 0
        ? `a throughput gain shows in ${found.map((e) => e.mode).join(", ")} only under TCG, which cannot stand for the post's ${secondaryFigure(d, "machine").printed}`
        : against.length > 0
          ? `throughput fell with it in ${against.map((e) => e.mode).join(", ")}`
          : `no throughput effect is distinguishable from the noise of a 2-vCPU TCG guest, whose runs could not show a gain smaller than about ${fmt(Math.min(...effects.map((e) => e.c.minimumDetectableEffectPct)), 0)}%: inconclusive, and PostgreSQL must first mark its critical sections (our patch does, §4)`),
    basis: `data/runs/${MECHANISM_RECORD}/summary.json: cells (grants per run) and the off-vs-on comparisons per preemption mode`,
    reproduction: {
      status: found.length > 0 ? "not yet reproduced" : against.length > 0 ? "not reproduced" : "not yet reproduced",
      records: [recordDir(MECHANISM_RECORD), recordDir("slice-trace/20261130T051418Z")],
      note: `VM under TCG only: grants counted and traced (vm-slice-trace), throughput effect inconclusive`,
    },
    values: {
      grants,
      requests,
      ...Object.fromEntries(effects.flatMap((e) => [[`onVsOffPct_${e.mode}`, e.c.differencePct], [`onVsOffP_${e.mode}`, e.c.welchP]])),
    },
  });
}

/** All Dipietro-2026 entries, in ledger order. */
export function dipietroClaims(d: Dipietro2026): ClaimEntry[] {
  const m = mechanismSummary();
  return [regressionEntry(d, m), sLockEntry(d), commitEntry(d), hugePagesEntry(d), rseqEntry(d, m)];
}
