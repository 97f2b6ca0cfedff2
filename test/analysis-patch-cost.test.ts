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
  const a = JSON.parse(readFileSync(join(repoRoot(), "data/runs/patch-cost-pgbench-20261130T065433Z/analysis.json"), "utf8")) as { comparisons: CostComparison[] };
  const off = a.comparisons.find((c) => c.arm === "off" && c.reference === "baseline")!;
  const onOff = a.comparisons.find((c) => c.arm === "on" && c.reference === "off");
  assert.ok(off.costCiPct[1] < 0, "the recorded interval lies below zero");
  assert.match(blocksCostReading(off, onOff), /^The patched server with the switch off ran faster than the unpatched one \(cost -5\.31%/);
});
