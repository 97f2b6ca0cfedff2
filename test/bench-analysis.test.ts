// The analysis of a two-variant series, checked on our committed A/A series against SciPy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeSeries } from "../src/bench/analysis.js";
import { seriesRows } from "../src/bench/series.js";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";

const DIR = join(repoRoot(), "data", "runs", "aa-rostedt-2023-T20");
const close = (actual: number, expected: number, tol = 1e-6) => assert.ok(Math.abs(actual - expected) < tol, `${actual} vs ${expected}`);

// Expected values: SciPy 1.10.1 (Debian python3-scipy) on data/runs/aa-rostedt-2023-T20/results.csv,
// non-warm-up rows: paired = scipy.stats.ttest_rel(B, A) and t.ppf(0.975, n-1)·sd(B−A)/√n / mean(A);
// unpaired = ttest_ind(B, A, equal_var=False) with the Welch–Satterthwaite df; time split = the
// first 15 rows in run order against the last 15 with ttest_ind(equal_var=False); r = pearsonr.
test("block, unpaired and time-split analyses of the A/A series agree with SciPy", () => {
  const r = analyzeSeries(DIR);
  assert.equal(r.workload, "pgbench-select-only");
  assert.equal(r.design, "blocks");
  assert.deepEqual(r.labels, { a: "A", b: "B" });
  assert.equal(r.warmupExcluded, 2);
  assert.equal(r.blocks.n, 15);
  close(r.blocks.meanDiffPct, 1.5417457080034092);
  close(r.blocks.halfWidthPct, 6.432445316609371);
  close(r.blocks.p, 0.6152223002235571);
  close(r.blocks.correlation, 0.4214281838387606);
  close(r.unpaired.meanDiffPct, 1.5417457080034092);
  close(r.unpaired.halfWidthPct, 8.065921651070967);
  close(r.unpaired.p, 0.6982667408894271);
  close(r.timeSplit.meanDiffPct, 7.178713745780785);
  close(r.timeSplit.p, 0.07117660195981153);
  close(r.halfWidthRatio, 8.065921651070967 / 6.432445316609371);
});

test("the committed series is complete: 32 runs, one row each, every block holds A and B", () => {
  const rows = seriesRows(DIR);
  assert.equal(rows.length, 32);
  assert.equal(new Set(rows.map((x) => x.run)).size, 32);
  for (let b = 1; b <= 16; b++) assert.deepEqual(rows.filter((x) => x.block === b).map((x) => x.variant).sort(), ["A", "B"]);
});

test("a series without a second variant or without finished runs is refused by name", () => {
  assert.throws(() => analyzeSeries(DIR, { b: "C" }), (e: unknown) => e instanceof UserError && /expected two variants among A, B, found A and C/.test(e.message));
  const tmp = mkdtempSync(join(tmpdir(), "slicelab-analysis-"));
  try {
    cpSync(join(DIR, "series.json"), join(tmp, "series.json"));
    assert.throws(() => analyzeSeries(tmp), /expected a workload among \(no finished runs\)/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("in the sequential A/A series the time split is the A/B comparison itself", () => {
  const r = analyzeSeries(join(repoRoot(), "data", "runs", "aa-rostedt-2023-T20-sequential"));
  assert.equal(r.design, "sequential");
  assert.deepEqual(r.timeSplit.firstRuns, [2, 16]);
  assert.deepEqual(r.timeSplit.secondRuns, [18, 32]);
  close(r.timeSplit.meanDiffPct, r.unpaired.meanDiffPct, 1e-9);
  close(r.timeSplit.halfWidthPct, r.unpaired.halfWidthPct, 1e-9);
});
