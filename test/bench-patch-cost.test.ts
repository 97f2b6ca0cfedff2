// The analysis of the patch-cost drivers' pgbench designs (src/bench/overhead-cost.ts), on real runs.
//
// RUNS: the 24 runs of data/runs/patch-cost/20261130T021229Z/results.csv (columns run, block, variant,
// warmup, tps, started, ended), made on this machine on 2026-11-30 by the earlier design (the kit's
// runner, a restart per run, pgbench -S -c 2 -j 2 -T 20, scale 10, randomised blocks, first block
// discarded). Reference values printed by /usr/bin/python3 (scipy 1.10.1, numpy 1.24.2) from that
// file: d = numpy.log(tps arm / tps reference) per measured block; ratio = exp(mean d);
// CI = exp(mean d ± scipy.stats.t.ppf(0.975, n−1) · sd(d, ddof=1)/√n); p =
// scipy.stats.ttest_1samp(d, 0).pvalue; unpaired half-width = t.ppf(0.975, Welch df) · se / mean(ref)
// · 100; blocks needed by counting n up from 2 until (t.ppf(0.975, n−1) + t.ppf(power, n−1)) · sd/√n
// ≤ margin; seconds per block = mean over blocks of (last end − first start).
import { test } from "node:test";
import assert from "node:assert/strict";
import { analyseCost, PATCH_GOAL_PCT, type CostRow } from "../src/bench/overhead-cost.js";

const RUNS: [number, number, string, boolean, number, string, string][] = [
  [1, 1, "baseline", true, 25103.525105, "2026-11-30T02:12:31.940Z", "2026-11-30T02:12:51.971Z"],
  [2, 1, "on", true, 17204.925034, "2026-11-30T02:12:56.923Z", "2026-11-30T02:13:16.959Z"],
  [3, 1, "off", true, 10282.211528, "2026-11-30T02:13:17.791Z", "2026-11-30T02:13:37.833Z"],
  [4, 2, "baseline", false, 15021.964292, "2026-11-30T02:13:38.119Z", "2026-11-30T02:13:58.201Z"],
  [5, 2, "off", false, 12392.635399, "2026-11-30T02:13:58.556Z", "2026-11-30T02:14:18.578Z"],
  [6, 2, "on", false, 11592.329017, "2026-11-30T02:14:19.124Z", "2026-11-30T02:14:39.188Z"],
  [7, 3, "baseline", false, 7823.60071, "2026-11-30T02:14:39.593Z", "2026-11-30T02:14:59.637Z"],
  [8, 3, "on", false, 8710.669748, "2026-11-30T02:15:00.160Z", "2026-11-30T02:15:20.203Z"],
  [9, 3, "off", false, 8478.055122, "2026-11-30T02:15:20.630Z", "2026-11-30T02:15:40.667Z"],
  [10, 4, "on", false, 5259.316437, "2026-11-30T02:15:41.256Z", "2026-11-30T02:16:01.339Z"],
  [11, 4, "baseline", false, 7454.938165, "2026-11-30T02:16:01.861Z", "2026-11-30T02:16:21.950Z"],
  [12, 4, "off", false, 8068.101867, "2026-11-30T02:16:22.393Z", "2026-11-30T02:16:42.448Z"],
  [13, 5, "on", false, 6404.371859, "2026-11-30T02:16:42.870Z", "2026-11-30T02:17:02.988Z"],
  [14, 5, "baseline", false, 4793.489353, "2026-11-30T02:17:03.529Z", "2026-11-30T02:17:23.592Z"],
  [15, 5, "off", false, 8285.120002, "2026-11-30T02:17:24.081Z", "2026-11-30T02:17:44.145Z"],
  [16, 6, "off", false, 12453.594926, "2026-11-30T02:17:44.541Z", "2026-11-30T02:18:04.575Z"],
  [17, 6, "on", false, 8403.13482, "2026-11-30T02:18:04.937Z", "2026-11-30T02:18:24.959Z"],
  [18, 6, "baseline", false, 15033.596143, "2026-11-30T02:18:25.491Z", "2026-11-30T02:18:45.547Z"],
  [19, 7, "off", false, 11599.755159, "2026-11-30T02:18:46.111Z", "2026-11-30T02:19:06.152Z"],
  [20, 7, "on", false, 6862.549587, "2026-11-30T02:19:06.777Z", "2026-11-30T02:19:26.845Z"],
  [21, 7, "baseline", false, 8946.118027, "2026-11-30T02:19:27.541Z", "2026-11-30T02:19:47.621Z"],
  [22, 8, "baseline", false, 12724.774072, "2026-11-30T02:19:48.029Z", "2026-11-30T02:20:08.087Z"],
  [23, 8, "off", false, 8967.62991, "2026-11-30T02:20:08.549Z", "2026-11-30T02:20:28.595Z"],
  [24, 8, "on", false, 13829.915565, "2026-11-30T02:20:28.993Z", "2026-11-30T02:20:49.027Z"],
];

function rows(): CostRow[] {
  return RUNS.map(([run, block, arm, warmup, tps, started, ended]) => ({
    block,
    warmup,
    // position inside the block: the runs are in run order
    position: RUNS.filter((r) => r[1] === block && r[0] < run).length,
    arm,
    setting: arm === "baseline" ? null : arm === "on" ? "all" : "off",
    tps,
    started,
    ended,
    seconds: (Date.parse(ended) - Date.parse(started)) / 1000,
    load1Before: 0,
    load1After: 0,
    raw: `runs/${String(run).padStart(3, "0")}-${arm}/pgbench-select-only.out`,
    sliceExtension: null,
  }));
}

const close = (actual: number, expected: number, rel = 1e-9, what = "") =>
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `${what}: ${actual} vs ${expected}`);

test("patch cost on the earlier runs: paired ratios, intervals and verdicts agree with SciPy", () => {
  const a = analyseCost(rows(), ["baseline", "off", "on"]);
  assert.equal(a.blocks, 7, "block 1 is the warm-up");
  assert.deepEqual(a.comparisons.map((c) => `${c.arm}/${c.reference}`), ["off/baseline", "on/baseline", "on/off"]);
  const ref = {
    "off/baseline": { ratio: 1.034248575865557, ci: [0.7783895448947842, 1.3742092551159864], p: 0.7816259519688722, sd: 0.3072980871772054, unpaired: 37.58833178038328, need80: 29502, needEst: 245, armFirst: 2 },
    "on/baseline": { ratio: 0.8700466135674219, ci: [0.6551867420158056, 1.1553669530173083], p: 0.2750125597263892, sd: 0.3066743751588149, unpaired: 40.777196087966594, need80: 29382, needEst: 23, armFirst: 4 },
    "on/off": { ratio: 0.8412354958664405, ci: [0.6185383500081143, 1.1441120174624133], p: 0.21807495947414482, sd: 0.33250133411139987, unpaired: 30.39812748069391, need80: 34539, needEst: 18, armFirst: 3 },
  } as const;
  for (const c of a.comparisons) {
    const r = ref[`${c.arm}/${c.reference}` as keyof typeof ref];
    const k = `${c.arm}/${c.reference}`;
    assert.equal(c.pairs, 7);
    close(c.ratio, r.ratio, 1e-12, `${k} ratio`);
    close(c.ci95[0], r.ci[0], 1e-9, `${k} ci low`);
    close(c.ci95[1], r.ci[1], 1e-9, `${k} ci high`);
    close(c.p, r.p, 1e-7, `${k} p`);
    close(c.sdLogPerPair, r.sd, 1e-12, `${k} sd`);
    close(c.unpairedHalfWidthPct, r.unpaired, 1e-7, `${k} unpaired half-width`);
    close(c.costPct, (1 - r.ratio) * 100, 1e-9, `${k} cost`);
    close(c.costCiPct[0], (1 - r.ci[1]) * 100, 1e-8, `${k} cost ci low`);
    assert.equal(c.pairsNeeded.pairsIfNoEffect80, r.need80, `${k} blocks for 80% power`);
    assert.equal(c.pairsNeeded.pairsAtEstimate, r.needEst, `${k} blocks at the estimate`);
    assert.equal(c.order.bFirst.n, r.armFirst, `${k} blocks with the arm first`);
    close(c.pairsNeeded.secondsPerBlock, 61.16057143892561, 1e-9, "seconds per block");
  }
  // ±38% intervals straddle 0.995 (a cost of 0.5%): the honest verdict is UNRESOLVED, never PASS.
  assert.equal(a.comparisons[0]!.verdict, "UNRESOLVED");
  assert.equal(a.comparisons[1]!.verdict, "UNRESOLVED");
  assert.equal(a.comparisons[2]!.verdict, null, "on vs off has no goal");
  assert.equal(PATCH_GOAL_PCT, 0.5);
});

test("patch cost: warm-up and incomplete blocks are left out; a clear cost is a FAIL, a clear non-cost a PASS", () => {
  const base = rows();
  // Drop one arm of the last block: that block no longer counts.
  const partial = base.filter((r) => !(r.block === 8 && r.arm === "on"));
  assert.equal(analyseCost(partial, ["baseline", "off", "on"]).blocks, 6);
  // Two arms only: on is ignored, off/baseline is the sole comparison.
  const two = analyseCost(base, ["baseline", "off"]);
  assert.deepEqual(two.comparisons.map((c) => c.arm), ["off"]);
  // Synthetic tight blocks built from the real baseline runs: patched = baseline × (1 − 2%) × tiny
  // alternating noise → the whole interval is below 0.995 → FAIL; × (1 + 1%) → PASS.
  const scaled = (factor: number) =>
    base.map((r, i) => (r.arm === "off" ? { ...r, tps: base.find((b) => b.block === r.block && b.arm === "baseline")!.tps * factor * (1 + (i % 2 ? 1e-4 : -1e-4)) } : r));
  assert.equal(analyseCost(scaled(0.98), ["baseline", "off"]).comparisons[0]!.verdict, "FAIL");
  assert.equal(analyseCost(scaled(1.01), ["baseline", "off"]).comparisons[0]!.verdict, "PASS");
  assert.throws(() => analyseCost(base.filter((r) => r.block <= 2), ["baseline", "off"]), /at least 2 complete measured blocks/);
});

// The concurrent design's record (data/runs/patch-cost/20261130T072231Z, made on this
// machine on 2026-11-30: four clusters, one pgbench each at the same time, 80 rounds + 1 warm-up),
// with its A/A arm "baseline2". Reference values printed by /usr/bin/python3 (scipy 1.10.1, numpy
// 1.24.2) from that runs.jsonl with the formulas at the top of this file.
test("patch cost, concurrent record with an A/A arm: ratios and intervals agree with SciPy; the A/A arm FAILs", async () => {
  const { readFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { repoRoot } = await import("../src/util/paths.js");
  const file = join(repoRoot(), "data/runs/patch-cost/20261130T072231Z/runs.jsonl");
  const recorded = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as CostRow);
  const a = analyseCost(recorded, ["baseline", "baseline2", "off", "on"]);
  assert.equal(a.blocks, 80);
  const want: Record<string, [number, number, number, number]> = {
    "baseline2/baseline": [0.9515764017207909, 0.9201856776231327, 0.984037972261007, 0.0042379452564788945],
    "off/baseline": [0.9779853463689272, 0.9467418556206999, 1.0102599056268429, 0.17622945126810424],
    "on/baseline": [0.9627208973783987, 0.9302747164295764, 0.9962987382977341, 0.030308530758982],
    "on/off": [0.9843919450867005, 0.9510658119685427, 1.01888585348879, 0.36603420511888296],
  };
  assert.deepEqual(a.comparisons.map((c) => `${c.arm}/${c.reference}`), Object.keys(want));
  for (const c of a.comparisons) {
    const [ratio, lo, hi, p] = want[`${c.arm}/${c.reference}`]!;
    close(c.ratio, ratio, 1e-9, `${c.arm} ratio`);
    close(c.ci95[0], lo, 1e-6, `${c.arm} CI low`);
    close(c.ci95[1], hi, 1e-6, `${c.arm} CI high`);
    close(c.p, p, 1e-4, `${c.arm} p`);
  }
  assert.equal(a.comparisons[0]!.verdict, "FAIL");
  assert.equal(a.comparisons[1]!.verdict, "UNRESOLVED");
  assert.equal(a.comparisons[3]!.verdict, null);
});
