/**
 * Sentences for notebook 03's version 3 cells, computed from the harness runs
 * and the records (issue 27): which scenarios v2 fails and v3 passes, and what
 * the yield after an observed clear costs per clear and, at a recorded rate
 * of clears, per transaction.
 */
import type { HarnessRun } from "./harness.js";
import type { ClearCostRecord } from "./clear-cost.js";

/** One sentence on v2 against v3 in the hook harness. */
export function v3HarnessSentence(v2: HarnessRun, v3: HarnessRun): string {
  const fixed = v2.scenarios.filter((s) => s.status === "FAIL" && v3.scenarios.find((x) => x.name === s.name)?.status === "PASS");
  const killed = v2.scenarios.filter((s) => s.status === "FAIL" && /killed by SIGSEGV/.test(s.why)).length;
  const v3fail = v3.scenarios.filter((s) => s.status === "FAIL").length;
  return (
    `Of the harness's ${v3.scenarios.length} scenarios, v2 fails ${v2.failed} (${killed} of them killed by SIGSEGV at a system call on the debug kernel model) and v3 ${v3fail === 0 ? "none" : v3fail}` +
    `${v3.skipped ? ` (${v3.skipped} skipped)` : ""}; ${fixed.length} of v2's failures pass on v3.`
  );
}

/** v2's per-transaction counts of the clears after which v3 yields (at most: a v2 "expired" may be a yield that returned 0). */
export function clearsPerTransactionV2(perTransactionMean: Record<string, number>): number {
  return (perTransactionMean.dropped_without_grant ?? 0) + (perTransactionMean.granted_expired ?? 0);
}

/** One sentence on the clear-cost record, and per transaction at CLEARS per transaction (from RATEFROM) when given. */
export function clearCostSentence(r: ClearCostRecord & { dir?: string }, rate?: { clears: number; from: string }): string {
  const ns = r.nsPerClear;
  const s =
    `v3's rseq_slice_yield after an observed clear costs ${ns.mean.toFixed(1)} ns per clear on this host (95% CI ${ns.ci[0].toFixed(1)} … ${ns.ci[1].toFixed(1)}, ${ns.n} rounds, ` +
    `${r.realCallsPerClear} system calls per clear; host kernel ${r.host.kernel}, load ${r.host.load1Before.toFixed(1)}→${r.host.load1After.toFixed(1)} on ${r.host.cpus} CPUs${r.dir ? `; ${r.dir.replace(/^(\.\.\/)+/, "")}` : ""})`;
  if (!rate) return `${s}.`;
  return `${s}; at ${rate.clears.toFixed(3)} clears per transaction (${rate.from}) that is at most ${(rate.clears * ns.ci[1]).toFixed(0)} ns per transaction.`;
}
