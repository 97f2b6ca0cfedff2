// Notebook 05's tables and sentences, moved into src/analysis/aa-notebook.ts (issue 28 item 12), and its
// load scatter (src/plot/load-scatter.ts, item 4), on the committed series under data/runs/rostedt-2023/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as aq from "arquero";
import { aaSummary, designRow, floorRow, mdeSentence, runLengthSentence, runSeconds, seriesView, testsRow, threeWays } from "../src/analysis/aa-notebook.js";
import { blocksMde, unpairedMde } from "../src/analysis/aa-series.js";
import { analyzeSeries } from "../src/bench/analysis.js";
import { seriesRows } from "../src/bench/series.js";
import { loadRostedt2023 } from "../src/published/index.js";
import { compareSamples } from "../src/stats/index.js";
import { loadScatterPlot, loadScatterTakeaway } from "../src/plot/index.js";
import { repoRoot } from "../src/util/paths.js";

const dir = (s: string) => join(repoRoot(), "data/runs/rostedt-2023", s);
const main = seriesView(dir("20261130T035419Z"));
const short = seriesView(dir("20261130T011758Z"));
const seq = analyzeSeries(dir("20261130T015450Z"), { a: "A", b: "B" });
const pub = loadRostedt2023();
const side = (s: string) => pub.runs.filter((r) => r.side === s && r.role === "measured").map((r) => r.tps);
const pubCmp = compareSamples(side("without-patch"), side("with-patch"), { labels: ["without patch", "with patch"] });

test("the run lengths come from series.json: 300 s and 20 s; a plan without one is refused", () => {
  assert.equal(runSeconds(main), 300);
  assert.equal(runSeconds(short), 20);
  assert.throws(() => runSeconds({ ...main, plan: { ...main.plan, workloads: [{ args: [], database: "x" }] } }), /expected workloads\[0\]\.params\.duration, a number of seconds > 0, found undefined/);
});

test("the comparison rows: main A/A −2.59 % (blocks, p 0.215) and the three analyses of the same runs", () => {
  const r = testsRow("main", main.analysis.comparison);
  assert.deepEqual(r.slice(0, 4), ["main", "15 + 15", "22.85% / 22.12%", "-2.59%"]);
  const three = threeWays("main", main.analysis);
  assert.equal(three[0]![0], "main — blocks: paired over 15 blocks");
  assert.deepEqual(three[0]!.slice(1), ["-2.59%", "[-6.87%, +1.68%]", "±4.28%", "0.215"]);
  assert.equal(three[1]![3], "±16.61%");
  assert.deepEqual(floorRow("main", main.analysis, 300).slice(0, 3), ["main", "300 s", "16873 / 16436"]);
  assert.deepEqual(designRow("seq", "all A then all B, unpaired", seq, seriesRows(dir("20261130T015450Z")), "unpaired").slice(2, 6), ["15143", "+0.53%", "[-7.41%, +8.48%]", "±7.94%"]);
});

test("the sentences: the detectable effects, the run lengths and the closing paragraph, words chosen by the numbers", () => {
  const eff = pubCmp.welch.differencePct;
  const mb = blocksMde("b", main.rows, main.analysis, eff);
  const mu = unpairedMde("u", main.analysis, eff);
  assert.equal(mdeSentence(mb, mu, eff), "With the runs it has, the main series' block analysis would detect a true difference of 6.01% (80% power), its unpaired analysis one of 23.54%; Rostedt's gain is +0.245%, 24.6 times smaller than the block design's detectable effect; detecting it on this machine, loaded as it was, would take about 7831 blocks.");
  // The other branch: a gain the block design could reach.
  assert.match(mdeSentence(mb, mu, 7), /Rostedt's gain is \+7\.000%, within reach of the block design here\.$/);
  assert.equal(runLengthSentence(short.analysis, 20, main.analysis, 300), "From 20 s to 300 s runs, the run-to-run CV of A went from 10.24% to 22.85% (×2.23), the block design's 95% half-width from ±6.43% to ±4.28% (×0.67, with 15 and 15 blocks), and the unpaired one from ±8.07% to ±16.61% (×2.06).");
  const s = aaSummary({ main, mainS: 300, short: short.analysis, shortS: 20, seq, pub: pubCmp, mdeBlocks: mb });
  assert.match(s, /32 of 32 planned runs finished when this was executed\) differ by -2\.59% \(B − A\), with a 95% interval of ±4\.28% from the block design and ±16\.61% from the unpaired/);
  assert.match(s, /blocking narrows it by a factor 3\.88, because the two runs of a block correlate with r = 0\.94/);
  assert.match(s, /correlate at r = -0\.49/);
  assert.match(s, /differs from the 20-second block series' \(8964 tps\) by \+68\.94% for the same command and build, more than the block interval's half-width: on this machine only comparisons inside one series mean anything\./);
  assert.match(s, /Rostedt's gain is smaller than our block interval's half-width, so this machine, loaded as it was, could neither confirm nor refute it; a quiet machine is needed\.$/);
  // No fixed sentence about what else ran on the machine: that is not in the records.
  assert.doesNotMatch(s, /kernel builds and TCG/);
});

test("the load scatter: legend for A, B and the warm-up, a badge, and the correlation as its takeaway (r = −0.49 before the run)", () => {
  const rows = main.rows;
  const svg = loadScatterPlot(aq.from(rows.map((r) => ({ side: r.variant, load: r.load1Before, tps: r.tps, included: !r.warmup }))), { sides: ["A", "B"], xLabel: "load average (1 min) before the run", badge: "real time", title: "t" });
  assert.equal((svg.match(/class="sl-legend-item"/g) ?? []).length, 3);
  assert.match(svg, /REAL TIME/);
  assert.match(svg, /Over the 30 measured runs, tps and load average \(1 min\) before the run correlate at r = −0\.49\./);
  assert.equal(loadScatterTakeaway([1, 2], [3, 4]), "2 measured runs: too few for a correlation.");
});
