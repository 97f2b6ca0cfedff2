// The sentence notebook 03 prints on a run-after-run patch-cost series follows the sign and the
// interval of the recorded comparison (src/analysis/patch-cost.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { blocksCostReading, sayCost, type CostComparison } from "../src/analysis/patch-cost.js";
import { repoRoot } from "../src/util/paths.js";

const cmp = (costPct: number, lo: number, hi: number, arm = "off", reference = "baseline"): CostComparison => ({ arm, reference, costPct, costCiPct: [lo, hi], verdict: null, sdLogPerPair: 0.1 });

test("blocksCostReading: faster, slower and unresolved read differently", () => {
  const onOff = cmp(0.16, -3.64, 3.82, "on", "off");
  assert.match(blocksCostReading(cmp(-5.31, -9.22, -1.54), onOff), /^The patched server with the switch off ran faster .* a gain comes from the two servers .* all against off on the same server reads \+0\.16% \(95% CI -3\.64% … \+3\.82%\)\. This design has no A\/A arm/);
  assert.match(blocksCostReading(cmp(4, 1, 7), onOff), /^The patched server with the switch off ran slower .*cannot tell the patch's cost from the two servers' own difference/);
  assert.match(blocksCostReading(cmp(-1, -4, 2), onOff), /^The switch-off interval contains zero \(cost -1\.00%\): this design does not resolve the cost here/);
  assert.doesNotMatch(blocksCostReading(cmp(-1, -4, 2), onOff), /comes from the two servers/);
  assert.equal(sayCost(undefined), "not measured");
});

test("on the committed run-after-run record the patched server was faster: the servers, not the patch", () => {
  const a = JSON.parse(readFileSync(join(repoRoot(), "data/runs/patch-cost/20261130T065433Z/analysis.json"), "utf8")) as { comparisons: CostComparison[] };
  const off = a.comparisons.find((c) => c.arm === "off" && c.reference === "baseline")!;
  const onOff = a.comparisons.find((c) => c.arm === "on" && c.reference === "off");
  assert.ok(off.costCiPct[1] < 0, "the recorded interval lies below zero");
  assert.match(blocksCostReading(off, onOff), /^The patched server with the switch off ran faster than the unpatched one \(cost -5\.31%/);
});

test("costModel: most calls × upper ns over CPU ns per transaction, by hand and on the committed records", async () => {
  const { costModel, readCostRecord, costSummaryLine, readMicroCost } = await import("../src/analysis/patch-cost.js");
  // 2 CPUs / 1000 tps = 2e6 ns per transaction; 10 calls × 1 ns = 0.0005 %, × 2 ns = 0.001 %.
  const m = costModel({ requests: { max: 10 } }, { addedNs: { off: { ci: [0, 1] }, simulate: { ci: [0, 2] } } }, { meanTps: { baseline: 1000 } }, 2);
  assert.equal(m.nsPerTxn, 2e6);
  assert.ok(Math.abs(m.offPct - 0.0005) < 1e-12 && Math.abs(m.protocolPct - 0.001) < 1e-12, JSON.stringify(m));
  const root = repoRoot();
  const ops = JSON.parse(readFileSync(join(root, "data/runs/lock-ops-vm/20261130T074829Z/summary.json"), "utf8")).perTransaction;
  const micro = readMicroCost(join(root, "data/runs/patch-cost/20261130T014521Z/summary.json"));
  const ref = { dir: join(root, "data/runs/patch-cost/20261130T065433Z"), design: "one arm after another", unit: "blocks" as const };
  const { analysis, provenance } = readCostRecord(ref);
  const r = costModel(ops, micro, analysis, provenance.host.cpus);
  // REPRODUCE §4: "≤ 0.0016% with the switch off" and "≤ 0.063% for the user-space request protocol".
  assert.equal(r.offPct.toFixed(4), "0.0016");
  assert.equal(r.protocolPct.toFixed(3), "0.063");
  assert.match(costSummaryLine(ref, analysis), /per-block sd 12\.6%\. The patched server with the switch off ran faster/);
  const conc = { dir: join(root, "data/runs/patch-cost/20261130T072231Z"), design: "all arms at the same time", unit: "rounds" as const };
  assert.match(costSummaryLine(conc, readCostRecord(conc).analysis), /the A\/A control \(a second unpatched cluster\) reads -?\+?\d+\.\d\d% .*which is the floor of this design\.$/);
});
