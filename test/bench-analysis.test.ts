// The analysis of a two-variant series, checked on our committed A/A series against SciPy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeSeries, designVerdict } from "../src/bench/analysis.js";
import { compareSamples } from "../src/stats/index.js";
import { seriesRows } from "../src/bench/series.js";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";

const DIR = join(repoRoot(), "data", "runs", "rostedt-2023/20261130T011758Z");
const close = (actual: number, expected: number, tol = 1e-6) => assert.ok(Math.abs(actual - expected) < tol, `${actual} vs ${expected}`);

// Expected values: SciPy 1.10.1 (Debian python3-scipy) on data/runs/rostedt-2023/20261130T011758Z/results.csv,
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
  const r = analyzeSeries(join(repoRoot(), "data", "runs", "rostedt-2023/20261130T015450Z"));
  assert.equal(r.design, "sequential");
  assert.deepEqual(r.timeSplit.firstRuns, [2, 16]);
  assert.deepEqual(r.timeSplit.secondRuns, [18, 32]);
  close(r.timeSplit.meanDiffPct, r.unpaired.meanDiffPct, 1e-9);
  close(r.timeSplit.halfWidthPct, r.unpaired.halfWidthPct, 1e-9);
});

// SciPy 1.10.1 on data/runs/rostedt-2023/20261130T035419Z/results.csv (non-warm-up rows, paired by block):
// ttest_rel(B, A).pvalue, and the δ (in % of mean A) where the paired t-test's power
// 1 − nct.cdf(tc, 14, δ/se) + nct.cdf(−tc, 14, δ/se) reaches 0.8 (brentq), se = sd(B − A)/√15.
test("the headline verdict of a block series is the paired one, with the paired detectable difference", () => {
  const r = analyzeSeries(join(repoRoot(), "data", "runs", "rostedt-2023/20261130T035419Z"), { a: "A", b: "B" });
  assert.equal(r.design, "blocks");
  close(r.blocks.p, 0.21454550054013383, 1e-9);
  close(r.blocks.minimumDetectableEffectPct, 6.010894273709038, 1e-6);
  assert.equal(r.verdict.analysis, "blocks (paired)");
  assert.equal(r.verdict.verdict, "no significant difference");
  assert.equal(
    r.verdict.reason,
    "paired t over 15 blocks p = 0.2145 ≥ 0.05: B − A = -2.59% (95% CI -6.87% to +1.68%), below the 6.01% that 15 blocks detect with 80% power",
  );
  // Welch's (p = 0.75, 23.5%) stays the comparison's own verdict, not the headline.
  assert.match(r.comparison.reason, /^Welch p = 0\.75\d+ ≥ 0\.05: .* below the 23\.5% that 15 \+ 15 runs detect/);
  const seq = analyzeSeries(join(repoRoot(), "data", "runs", "rostedt-2023/20261130T015450Z"), { a: "A", b: "B" });
  assert.equal(seq.verdict.analysis, "unpaired (Welch)");
  assert.equal(seq.verdict.reason, seq.comparison.reason);
});

test("designVerdict: blocks that shift together are significant paired even where Welch sees nothing", () => {
  // B is A + 1% in every block, while the blocks themselves spread by ±40%.
  const A = [100, 140, 60, 120, 80, 130, 70, 110];
  const B = A.map((x, i) => x * 1.01 + (i % 2 === 0 ? 0.05 : -0.05));
  const c = compareSamples(A, B, { resamples: 200 });
  assert.equal(c.verdict, "no significant difference");
  const d = B.map((b, i) => b - A[i]!);
  const m = A.reduce((s, x) => s + x, 0) / A.length;
  const md = d.reduce((s, x) => s + x, 0) / d.length;
  const blocks = { n: 8, meanDiffPct: (100 * md) / m, ciPct: [0.9, 1.1] as [number, number], halfWidthPct: 0.1, df: 7, p: 1e-6, correlation: 1, sdDiffPct: 0.05, minimumDetectableEffectPct: 0.2 };
  const v = designVerdict("blocks", { a: "A", b: "B" }, blocks, c, 0.05);
  assert.equal(v.verdict, "B higher");
  assert.match(v.reason, /^paired t over 8 blocks p = 1\.00e-6 < 0\.05: B − A = \+1% \(95% CI \+0\.9% to \+1\.1%\)$/);
  assert.equal(designVerdict("sequential", { a: "A", b: "B" }, blocks, c, 0.05).verdict, "no significant difference");
  assert.equal(designVerdict("blocks", { a: "A", b: "B" }, { ...blocks, meanDiffPct: -1, ciPct: [-1.1, -0.9] }, c, 0.05).verdict, "B lower");
});

test("the committed analysis.json of each A/A series states the design's verdict (slicelab bench analyze --write)", async () => {
  const { readFileSync } = await import("node:fs");
  for (const name of ["rostedt-2023/20261130T035419Z", "rostedt-2023/20261130T011758Z", "rostedt-2023/20261130T015450Z"]) {
    const dir = join(repoRoot(), "data", "runs", name);
    const rec = JSON.parse(readFileSync(join(dir, "analysis.json"), "utf8"));
    const r = analyzeSeries(dir, { a: "A", b: "B" });
    assert.deepEqual([rec.verdict, rec.reason, rec.verdictAnalysis], [r.verdict.verdict, r.verdict.reason, r.verdict.analysis], name);
    assert.equal(rec.verdictAnalysis, rec.design === "blocks" ? "blocks (paired)" : "unpaired (Welch)", name);
  }
});
