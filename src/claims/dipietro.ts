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
import { MECHANISM_DIR, mechanismEvidence, type MechanismEvidence } from "./mechanism-evidence.js";
import type { Interval as MechInterval } from "../analysis/mechanism.js";

/** "27 % (23–31)" of a share (0–1); "n=1" when there is no interval. */
function sharePct(i: MechInterval): string {
  return Number.isFinite(i.lo) ? `${fmt(100 * i.mean, 0)} % (${fmt(100 * i.lo, 0)}–${fmt(100 * i.hi, 0)})` : `${fmt(100 * i.mean, 0)} % (n=${i.n})`;
}
/** "−3.05 (−3.57 … −2.53)" of a rate or difference. */
function rate(i: MechInterval, d = 2): string {
  return Number.isFinite(i.lo) ? `${fmt(i.mean, d)} (${fmt(i.lo, d)} … ${fmt(i.hi, d)})` : `${fmt(i.mean, d)} (n=${i.n})`;
}
/** "none on 6.1.176: 7 runs, mean 304.8 tps": what the runs did, with no significance test (issue 28 item 5: TCG tps is not speed). */
export function tpsCounts(c: { n: number; mean: number; mode: string; kernel: string } | undefined): string {
  return c ? `${c.mode} on ${c.kernel}: ${c.n} runs, mean ${fmt(c.mean, 1)} tps` : "?";
}
const holdsZero = (i: MechInterval) => Number.isFinite(i.lo) && i.lo <= 0 && i.hi >= 0;

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
        `(${tpsCounts(none)} → ${tpsCounts(lazy)}; no significance test: under plain TCG tps measures the emulator, not the kernel's speed). ` +
        `A drop of ${fmt(100 * (1 - ratio), 0)}% ${100 * (1 - ratio) > c.minimumDetectableEffectPct ? "would have exceeded" : "would have been within"} the ±${fmt(c.minimumDetectableEffectPct, 0)}% these runs' spread could resolve, and ${c.differencePct <= -100 * (1 - ratio) ? "a drop that large shows" : "none that large shows"} (${fmtSignedPct(c.differencePct, 1)})` +
        `. A 2-vCPU emulated guest comparing two kernels says nothing about a regression measured on a ${secondaryFigure(d, "machine").printed} with ${secondaryFigure(d, "workload").printed.match(/[\d,]+ clients/)?.[0] ?? "the post's clients"}: it neither reproduces nor contradicts the post`,
    },
    values: {
      tpsBefore: b.value,
      tpsAfter: a.value,
      printedRatio: r.value,
      ratio,
      ratioLo: bounds.lo,
      ratioHi: bounds.hi,
      vmLazyVsNonePct: c.differencePct,
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

function hugePagesEntry(d: Dipietro2026, mech: MechanismEvidence): ClaimEntry {
  const h = secondaryFigure(d, "huge-pages");
  const pg = mech.pg.modes;
  const micro = mech.icount.modes;
  const pgText = pg
    .map((m) => `${m.mode}: ${fmt(m.faultsOff.mean, 1)} → ${fmt(m.faultsOn.mean, 1)} minor faults per million spin-style holds (95 % t: ${rate(m.faultsOff, 1)} → ${rate(m.faultsOn, 1)}; huge_pages_status on in ${m.hugePagesOnRuns} of ${m.hugePagesRuns} runs)`)
    .join("; ");
  const microText = micro
    .filter((m) => m.faultsHugetlb && m.kernelHugetlb)
    .map((m) => `${m.mode}: faults under lock ${fmt(m.faults4k.mean, 1)} → ${fmt(m.faultsHugetlb!.mean, 2)}, in-kernel preemptions ${fmt(m.kernelHugetlb!.mean, 2)} per 1,000 holds with hugetlb`)
    .join("; ");
  const fewer = pg.every((m) => m.faultsOn.hi < m.faultsOff.lo);
  return claimEntry({
    id: "dipietro-2026/huge-pages-mitigation",
    source: "dipietro-2026",
    claim: `the thread's mitigation: ${h.paraphrase ? "(paraphrase) " : ""}${h.printed}`,
    cites: [cite(h)],
    published: "no figure with huge pages in the reachable sources",
    recomputed: `nothing to recompute from the posts; our mechanism records: PostgreSQL 18 (diag build, Linux ${mech.pg.kernelRelease}, ${mech.pg.runs} runs, both extension arms pooled) ${pgText}; micro-benchmark (Linux ${mech.icount.kernelRelease}, tcg-icount, extension off) ${microText}`,
    uncertainty: `95 % t intervals over runs; instruction-counted TCG, 1 vCPU: counts of faults and preemptions, not throughput`,
    verdict: "not checkable",
    reason: `the reply that says so is not in the stored archives and the write-ups print no throughput with huge pages`,
    basis: `data/published/dipietro-2026 (paraphrase of an Ubuntu release-notes page citing the reply); our records ${mech.pgRecords.join(" + ")} and ${mech.icountRecords.join(" + ")}, pooled as notebook 07 pools them`,
    reproduction: {
      status: "not yet reproduced",
      records: [...mech.pgRecords, ...mech.icountRecords],
      note:
        `our PostgreSQL runs with huge_pages=on ${fewer ? "remove almost all of the faults inside spin-style holds, the mechanism's cause" : "do not clearly lower the faults inside spin-style holds"} (${pg.map((m) => `${m.mode} ${fmt(m.faultsOff.mean, 1)} → ${fmt(m.faultsOn.mean, 1)} per million holds`).join(", ")}); ` +
        `they ran in an emulated 1-vCPU guest with a diagnostic build whose tps is not a benchmark figure, so no throughput repair is shown`,
    },
    values: Object.fromEntries(pg.flatMap((m) => [[`pgFaultsOffPerMillion_${m.mode}`, m.faultsOff.mean], [`pgFaultsOnPerMillion_${m.mode}`, m.faultsOn.mean]])),
  });
}

/** "use the rseq slice extension … should limit the exposure to lock holder preemption": the mechanism records' answer. */
function rseqEntry(d: Dipietro2026, m: MechanismSummary, mech: MechanismEvidence): ClaimEntry {
  const r = secondaryFigure(d, "rseq-reply");
  const g = secondaryFigure(d, "rseq-mitigation");
  const on = m.cells.filter((x) => x.variant === "on" && x.sliceExtension.grants > 0);
  const grants = on.reduce((s, x) => s + x.sliceExtension.grants, 0);
  const requests = on.reduce((s, x) => s + x.sliceExtension.requests, 0);
  const effects = on.map((x) => ({ mode: x.mode, c: mechanismComparison(m, `${x.mode}-off-vs-on`) }));
  const verdict: Verdict = "not yet reproduced";
  const effText = effects
    .map((e) => {
      const cell = (v: string) => m.cells.find((x) => x.mode === e.mode && x.variant === v);
      return `${e.mode}: ${cell("off")?.n ?? "?"} runs off, mean ${cell("off") ? fmt(cell("off")!.mean, 1) : "?"} tps → ${cell("on")?.n ?? "?"} runs on, ${cell("on") ? fmt(cell("on")!.mean, 1) : "?"} tps (${fmtSignedPct(e.c.differencePct, 1)}; the runs' spread resolves ±${fmt(e.c.minimumDetectableEffectPct, 0)}%)`;
    })
    .join("; ");
  const ic = mech.icount.modes;
  // Where the extension reaches: the return to user space; inside the kernel (a page fault) it does not.
  const reachesReturn = ic.every((x) => x.atReturnChange.hi < 0);
  const notKernel = ic.every((x) => holdsZero(x.kernelChange));
  const mechText =
    `mechanism records (${mech.icountRecords.join(" + ")}: Linux ${mech.icount.kernelRelease}, tcg-icount, ${mech.icount.cpus} vCPU, ${mech.icount.runs} runs), 4 KB pages: ` +
    ic
      .map(
        (x) =>
          `${x.mode}: with the extension off ${sharePct(x.inKernelShare)} of holder preemptions were inside the kernel (${x.kernel} of ${x.kernel + x.atReturn}); with it on it covered ${sharePct(x.coveredFraction)} of the holds the kernel wanted to preempt, ` +
          `preemptions at the return changed by ${rate(x.atReturnChange)} and inside the kernel by ${rate(x.kernelChange)} per 1,000 holds (on − off)`,
      )
      .join("; ");
  const remedies = ic
    .filter((x) => x.faultsHugetlb || x.faultsPrefault)
    .map((x) => {
      const to = (h: MechInterval | null, p: MechInterval | null, d: number) =>
        [h ? `${fmt(h.mean, d)} with hugetlb` : null, p ? `${fmt(p.mean, d)} pre-faulted` : null].filter(Boolean).join(", ");
      return `${x.mode}: faults under lock ${fmt(x.faults4k.mean, 1)} → ${to(x.faultsHugetlb, x.faultsPrefault, 2)}, in-kernel preemptions → ${to(x.kernelHugetlb, x.kernelPrefault, 2)} per 1,000 holds`;
    })
    .join("; ");
  const tc = mech.tcg.contrasts;
  const tcgText =
    tc.length === 0
      ? ""
      : `Under plain TCG (${mech.tcgRecords.join(" + ")}, guest time = host time) the extension covered ${tc.map((x) => `${sharePct(x.tcgCoveredFraction)} (${x.mode})`).join(" and ")}: ` +
        `its kernel made ${tc.map((x) => `${x.tcg.grants} grants (${x.mode}), ${x.tcg.revoked} revoked and ${x.tcg.yields} ended by the holder's yield`).join("; ")}, covering ${tc.map((x) => x.tcg.covered).join(" and ")} holds, ` +
        `while under icount ${tc.map((x) => `${x.icount.yields} of ${x.icount.grants} grants (${x.mode}) ended by the yield and covered ${x.icount.covered} holds`).join("; ")}. ` +
        (tc.every((x) => x.tcg.covered === 0 && x.tcg.revoked === x.tcg.grants) && tc.every((x) => x.icount.covered > 0)
          ? `The two do not contradict each other: whether a grant outlasts the hold depends on guest timing, which plain TCG does not model (its grants all ended revoked), so its 0 % says nothing about the extension; the icount records are the evidence. `
          : `The two accels disagree beyond grant timing: read both records. `);
  return claimEntry({
    id: "dipietro-2026/rseq-slice-extension-limits-exposure",
    source: "dipietro-2026",
    claim: `the kernel side's answer: use the rseq time slice extension, which should limit the exposure to lock-holder preemption (paraphrased by the write-ups; the reply's words are not reachable)`,
    cites: [cite(r), cite(g)],
    published: "no figure",
    recomputed: `${mechText}. Throughput (${MECHANISM_RECORD}, PostgreSQL, plain TCG, 2 vCPUs): the kernel granted ${fmtInt(grants)} extensions to ${fmtInt(requests)} requests over ${on.map((x) => x.mode).join(" and ")} runs; on vs off: ${effText}`,
    uncertainty: `95 % intervals over runs (bootstrap for shares, t for the changes per 1,000 holds); emulated guests only: counts of where preemptions land, not performance; throughput ${on.map((x) => `${x.n} runs per side (${x.mode})`).join(", ")} under plain TCG, shown as counts and means without a significance test`,
    verdict,
    reason:
      `in the emulated guest the extension limits the exposure where it can reach: ` +
      (reachesReturn ? `preemptions at the return to user space fall with it on (${ic.map((x) => `${x.mode} ${rate(x.atReturnChange)}`).join(", ")} per 1,000 holds), ` : `preemptions at the return do not fall clearly with it on (${ic.map((x) => `${x.mode} ${rate(x.atReturnChange)}`).join(", ")} per 1,000 holds), `) +
      (notKernel
        ? `but not inside the kernel, where ${ic.map((x) => `${sharePct(x.inKernelShare)} (${x.mode})`).join(" and ")} of holder preemptions happen (${ic.map((x) => `${x.kernelFault} of ${x.kernel}`).join(" and ")} of them in a page fault; change ${ic.map((x) => rate(x.kernelChange)).join(" and ")} per 1,000 holds, intervals holding 0); `
        : `and inside the kernel too (${ic.map((x) => rate(x.kernelChange)).join(", ")} per 1,000 holds); `) +
      (remedies
        ? `${ic.every((x) => [x.kernelHugetlb, x.kernelPrefault].every((k) => k === null || k.mean < x.kernel4k.lo)) ? "huge pages and pre-faulting remove those" : "huge pages and pre-faulting do not clearly remove those"} (${remedies}). `
        : "") +
      tcgText +
      `Throughput under plain TCG is not a measure of speed, so it gets no test: ${effText}; PostgreSQL must first mark its critical sections (our patch does, §4). Emulated evidence only: not yet reproduced on hardware`,
    basis: `data/runs/${MECHANISM_DIR}/* (notebook 07's pooling: src/claims/mechanism-evidence.ts) for where preemptions land and what the extension covers; data/runs/${MECHANISM_RECORD}/summary.json for throughput and grants per run`,
    reproduction: {
      status: "not yet reproduced",
      records: [...mech.icountRecords, ...mech.tcgRecords, recordDir(MECHANISM_RECORD), recordDir("slice-trace/20261130T051418Z")],
      note:
        `emulated guests only: under tcg-icount the extension covered ${ic.map((x) => `${fmt(100 * x.coveredFraction.mean, 0)} % (${x.mode})`).join(" and ")} of the holds the kernel wanted to preempt, ` +
        `${notKernel ? "with no distinguishable change inside the kernel" : "with a change inside the kernel too"}; under plain TCG ${tc.map((x) => `${fmt(100 * x.tcgCoveredFraction.mean, 0)} %`).join(" and ")}; throughput under TCG shown as counts, not tested`,
    },
    values: {
      grants,
      requests,
      ...Object.fromEntries(effects.map((e) => [`onVsOffPct_${e.mode}`, e.c.differencePct])),
      ...Object.fromEntries(
        ic.flatMap((x) => [
          [`inKernelSharePct_${x.mode}`, 100 * x.inKernelShare.mean],
          [`coveredPct_${x.mode}`, 100 * x.coveredFraction.mean],
          [`atReturnChangePer1k_${x.mode}`, x.atReturnChange.mean],
          [`kernelChangePer1k_${x.mode}`, x.kernelChange.mean],
        ]),
      ),
      ...Object.fromEntries(tc.flatMap((x) => [[`tcgCoveredPct_${x.mode}`, 100 * x.tcgCoveredFraction.mean], [`tcgGrants_${x.mode}`, x.tcg.grants], [`tcgRevoked_${x.mode}`, x.tcg.revoked]])),
    },
  });
}

/** All Dipietro-2026 entries, in ledger order. */
export function dipietroClaims(d: Dipietro2026): ClaimEntry[] {
  const m = mechanismSummary();
  const mech = mechanismEvidence();
  return [regressionEntry(d, m), sLockEntry(d), commitEntry(d), hugePagesEntry(d, mech), rseqEntry(d, m, mech)];
}
