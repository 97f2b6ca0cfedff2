// The A/A series helpers of notebook 05 (src/analysis/aa-series.ts), against SciPy/NumPy values
// computed from data/runs/rostedt-2023/20261130T035419Z/results.csv (non-warm-up rows).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { blockDiffs, blocksMde, deviationsOf, fmtRuns, loadLine, pearson, unpairedMde } from "../src/analysis/aa-series.js";
import { analyzeSeries } from "../src/bench/analysis.js";
import { seriesRows } from "../src/bench/series.js";
import { repoRoot } from "../src/util/paths.js";

const MAIN = join(repoRoot(), "data/runs/rostedt-2023/20261130T035419Z");
const close = (a: number, b: number, tol = 1e-9) => assert.ok(Math.abs(a - b) < tol, `${a} vs ${b}`);

test("pearson and loadLine: scipy.stats.pearsonr(load1Before, tps) = -0.4867534415130668", () => {
  const rows = seriesRows(MAIN).filter((r) => !r.warmup);
  close(pearson(rows.map((r) => r.load1Before), rows.map((r) => r.tps)), -0.4867534415130668);
  assert.equal(loadLine("main", seriesRows(MAIN))[3], "-0.49");
  assert.throws(() => pearson([1, 2], [1]), /same length/);
});

test("blockDiffs pairs B − A per block in block order; blocksMde is the paired detectable effect", () => {
  const rows = seriesRows(MAIN);
  const d = blockDiffs(rows);
  assert.equal(d.length, 15);
  close(d[0]!, 856.2218819999998, 1e-6);
  close(d[1]!, -451.79457999999977, 1e-6);
  close(d[2]!, -1417.4311829999988, 1e-6);
  const s = analyzeSeries(MAIN, { a: "A", b: "B" });
  const b = blocksMde("blocks", rows, s, 0.245);
  close(b.mdePct, 6.010894273709038, 1e-6); // SciPy nct, see bench-analysis.test.ts
  assert.equal(b.runs, "15 blocks");
  const u = unpairedMde("unpaired", s, 0.245);
  assert.equal(u.mdePct.toFixed(1), "23.5"); // the Welch figure the old headline verdict quoted
  assert.ok(u.needed > b.needed, "pairing needs fewer runs");
  assert.equal(fmtRuns(Infinity), "more than the kit searches");
  assert.equal(deviationsOf({ series: {} }), "none recorded");
  assert.equal(deviationsOf({ series: { deviationsFromProtocol: ["a", { b: 1 }] } }), 'a; {"b":1}');
});
