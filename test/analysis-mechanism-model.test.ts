// The holder-preemption model (issue 26 item 6): closed-form values that could be wrong, the
// lazy escalation, the mode ordering, input checks, and the model applied to the committed
// real-time record's own per-run fault and section durations.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { predict, predictFromRuns, predictRange } from "../src/analysis/mechanism-model.js";
import { repoRoot } from "../src/util/paths.js";

test("predict: the fault's share of hold time under full, none, and lazy with and without escalation", () => {
  const full = predict({ sectionNs: 2000, faultNs: 1340, holdsPerFault: 4, hz: 250, mode: "full" });
  assert.ok(Math.abs(full.inKernelShare - 335 / 2335) < 1e-12, String(full.inKernelShare));
  assert.ok(Math.abs(full.coverage - 2000 / 2335) < 1e-12);
  assert.equal(predict({ sectionNs: 2000, faultNs: 1340, holdsPerFault: 4, hz: 250, mode: "none" }).inKernelShare, 0);
  const lazy = predict({ sectionNs: 2000, faultNs: 1340, holdsPerFault: 4, hz: 250, mode: "lazy" });
  assert.equal(lazy.escalation, 0, "a 1.3 µs fault never outlasts a 4 ms tick");
  assert.equal(lazy.inKernelShare, 0);
  assert.ok(Math.abs(predict({ sectionNs: 2000, faultNs: 1340, holdsPerFault: 4, hz: 250, mode: "lazy", fullShare: 0.5 }).inKernelShare - 0.5 * 335 / 2335) < 1e-12);
  const long = predict({ sectionNs: 2000, faultNs: 10e6, holdsPerFault: 1, hz: 250, mode: "lazy" });
  assert.ok(Math.abs(long.escalation - 0.6) < 1e-12, "a 10 ms fault: the next 4 ms tick comes inside it 60 % of the time");
  assert.ok(predict({ sectionNs: 2000, faultNs: 3000, holdsPerFault: 1, hz: 1000, mode: "full" }).inKernelShare > predict({ sectionNs: 2000, faultNs: 3000, holdsPerFault: 32, hz: 1000, mode: "full" }).inKernelShare, "rarer faults, smaller share");
  assert.throws(() => predict({ sectionNs: 0, faultNs: 1, holdsPerFault: 1, hz: 250, mode: "full" }), /sectionNs: expected a finite number > 0, found 0/);
  assert.throws(() => predict({ sectionNs: 1, faultNs: 1, holdsPerFault: 1, hz: 250, mode: "lazy", fullShare: 2 }), /fullShare: expected 0\.\.1, found 2/);
  const r = predictRange({ sectionNs: [500, 5000], faultNs: [1000, 3000], holdsPerFault: [100, 300], hz: [100, 1000], mode: "full" });
  assert.ok(r.lo.inKernelShare < r.hi.inKernelShare);
  assert.ok(Math.abs(r.hi.inKernelShare - 30 / 530) < 1e-12, "the largest share: shortest section, longest fault, most faults");
});

test("predictFromRuns on the committed real-time record: the model's full-mode share from each run's own d and L", (t) => {
  const root = join(repoRoot(), "data", "runs", "mechanism-micro");
  const dir = existsSync(root) ? readdirSync(root).map((d) => join(root, d)).find((d) => existsSync(join(d, "raw", "RESULTS.json"))) : undefined;
  if (!dir) return t.skip("no imported real-time record under data/runs/mechanism-micro/");
  const rows = (JSON.parse(readFileSync(join(dir, "rows.json"), "utf8")) as { pages: string; touchP50Ns: number | null; untouchedHoldP50Ns: number | null }[]).filter((r) => r.pages === "4k");
  const p = predictFromRuns(rows, { holdsPerFault: 4, hz: 250, mode: "full" });
  assert.equal(p.inKernelShare.n, rows.length);
  assert.ok(p.faultNs.mean > 200 && p.faultNs.mean < 50_000, `a first-touch minor fault of ${p.faultNs.mean} ns`);
  assert.ok(p.inKernelShare.lo <= p.inKernelShare.mean && p.inKernelShare.mean <= p.inKernelShare.hi);
  assert.ok(p.inKernelShare.mean > 0 && p.inKernelShare.mean < 0.5);
  assert.equal(predictFromRuns(rows, { holdsPerFault: 4, hz: 250, mode: "none" }).inKernelShare.mean, 0);
});

test("sweepCells: the observed share per cell beside the model's prediction from the cell's own d and L", async () => {
  const { sweepCells } = await import("../src/analysis/mechanism-model-sweep.js");
  const base = { pages: "4k", extension: "off", kernelRelease: "7.2.13", accel: "tcg-icount", grants: null, faultsUnderLock: 0, throughputPerS: 0, hogWorkPerS: 0, waitP99Ns: null, lostEvents: 0, deschedHolds: 0, kernelOther: 0, returnFault: 0, returnSyscall: 0, voluntary: 0, unclassified: 0, covered: 0, holds: 1000 };
  // full, a touch every 4th of 2 µs sections, d = 2 µs: s = 500 / 2500 = 0.2; runs observing 2 of 10 and 3 of 12 in the kernel
  const rows = [
    { ...base, run: "001", mode: "full", faultEvery: 4, csNs: 2000, touchP50Ns: 2000, untouchedHoldP50Ns: 2000, kernelFault: 2, returnInterrupt: 8 },
    { ...base, run: "002", mode: "full", faultEvery: 4, csNs: 2000, touchP50Ns: 2000, untouchedHoldP50Ns: 2000, kernelFault: 3, returnInterrupt: 9 },
    { ...base, run: "003", mode: "lazy", faultEvery: 4, csNs: 2000, touchP50Ns: 2000, untouchedHoldP50Ns: 2000, kernelFault: 0, returnInterrupt: 10 },
    { ...base, run: "004", mode: "lazy", faultEvery: 4, csNs: 2000, touchP50Ns: 2000, untouchedHoldP50Ns: 2000, kernelFault: 4, returnInterrupt: 6 },
  ];
  const cells = sweepCells(rows, { hz: 1000 });
  assert.equal(cells.length, 2);
  const full = cells.find((c) => c.mode === "full")!;
  assert.ok(Math.abs(full.predicted.mean - 0.2) < 1e-12);
  assert.equal(full.kernel, 5);
  assert.equal(full.atReturn, 17);
  assert.ok(Math.abs(full.observed.mean - 5 / 22) < 1e-12);
  assert.ok(full.observed.lo < 0.2 && 0.2 < full.observed.hi, "0.2 inside the Wilson interval of 5 of 22");
  assert.equal(full.agrees, true);
  const { wilson, sectionOf } = await import("../src/analysis/mechanism-model.js");
  const w = wilson(5, 22);
  assert.ok(Math.abs(w.lo - 0.1012) < 5e-4 && Math.abs(w.hi - 0.4342) < 5e-4, `Wilson 5/22: ${w.lo}–${w.hi}`);
  assert.equal(sectionOf({ touchP50Ns: 6000, untouchedHoldP50Ns: 0, touchedHoldP50Ns: 7200 }), 1200, "every section touching: L = touched hold − touch");
  const lazy = cells.find((c) => c.mode === "lazy")!;
  assert.equal(lazy.predicted.mean, 0, "lazy: a 2 µs fault is never escalated by a 1 ms tick");
  assert.ok(lazy.observed.mean > 0);
  const { sweepTable, sweepSentence } = await import("../src/analysis/mechanism-model-sweep.js");
  const t = sweepTable(cells);
  assert.equal(t.find((r) => r.mode === "full")!["observed (in kernel / preempted)"], `${(100 * full.observed.mean).toFixed(1)} % (${(100 * full.observed.lo).toFixed(1)} %–${(100 * full.observed.hi).toFixed(1)} %) (5/22)`);
  const s = sweepSentence(cells, { hz: 1000, accel: "tcg-icount" });
  assert.match(s, /^Emulated \(QEMU TCG with instruction-counted time, 1 vCPU, HZ 1000/);
  assert.match(s, /under full the prediction lies inside the observed 95 % interval in 1 of 1 cells/);
  assert.match(s, /under lazy the prediction lies inside the observed 95 % interval in 0 of 1 cells/);
  assert.match(s, /5 of 22 holder preemptions in the kernel/);
  const { fullShareFit } = await import("../src/analysis/mechanism-model-sweep.js");
  // lazy: 4 of 20 preempted holds in the kernel where full's form expects 20 × 0.2 = 4: φ = 1
  assert.ok(Math.abs(fullShareFit(cells)! - 1) < 1e-12);
  assert.match(s, /the share of reschedule requests that acted as full ones is 1\.00/);
});
