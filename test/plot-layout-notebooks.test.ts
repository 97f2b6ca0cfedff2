/**
 * Every figure the committed notebooks show (their executed outputs), not a hand-made list: each has a
 * title, an evidence badge, a takeaway and, where colour carries meaning, a legend
 * (src/report/figure-audit.ts), and none has a clipped or overlapping label in Chromium. Issue 28 item 4.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as aq from "arquero";
import * as Plot from "@observablehq/plot";
import { chromium } from "playwright-core";
import { figureProblems, notebookFigures } from "../src/report/figure-audit.js";
import { renderSvg, tpsRunsPlot, style } from "../src/plot/index.js";
import { loadRostedt2023 } from "../src/published/index.js";
import { repoRoot } from "../src/util/paths.js";
import { ARGS, CHROMIUM, layout } from "./figure-layout.js";

const figs = notebookFigures(join(repoRoot(), "notebooks"));

test("every notebook figure has a title, an evidence badge, a takeaway and a legend where colour carries meaning", () => {
  // 26 when this was written: 00 1, 01 4, 02 …, 05 11, 06 4, 07 …; every notebook with a figure counts.
  assert.ok(figs.length >= 26, `only ${figs.length} figures in the notebooks' outputs`);
  for (const nb of ["00-introduction.ipynb", "01-published-claims.ipynb", "05-our-results.ipynb", "06-lock-statistics.ipynb", "07-mechanism.ipynb"]) {
    assert.ok(figs.some((f) => f.notebook === nb), `${nb} shows no figure`);
  }
  assert.deepEqual(figs.flatMap((f) => figureProblems(f.svg).map((p) => `${f.notebook} cell ${f.cell}: ${p}`)), []);
});

test("the audit flags what issue 28 saw: a figure with no title or badge, and colours without a legend", () => {
  const pub = loadRostedt2023();
  const runs = aq.from(pub.runs.filter((r) => r.role === "measured").map((r) => ({ side: r.side, run: r.run, tps: r.tps })));
  assert.deepEqual(figureProblems(tpsRunsPlot(runs)), ["no title", "no evidence badge"]);
  // Notebook 05's old scatter: A and B by colour, no legend, no badge, no takeaway.
  const old = renderSvg({
    marks: [Plot.dot([{ x: 1, y: 2, v: "A" }, { x: 2, y: 3, v: "B" }], { x: "x", y: "y", fill: "v", r: 3.5 })],
    color: { domain: ["A", "B"], range: [...style.SIDE_COLORS] },
  }, { title: "old scatter" });
  assert.deepEqual(figureProblems(old), ["no evidence badge", "no takeaway", "2 fill colours without a legend"]);
});

test("every notebook figure laid out by Chromium: no label clipped, no two labels overlapping", { timeout: 300_000 }, async (t) => {
  if (!existsSync(CHROMIUM)) return t.skip(`${CHROMIUM} is not installed (scripts/setup.sh installs it)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    for (const f of figs) {
      const l = await layout(page, f.svg);
      for (const c of l.clipped) problems.push(`${f.notebook} cell ${f.cell}: clipped ${c}`);
      for (const o of l.overlaps) problems.push(`${f.notebook} cell ${f.cell}: overlap ${o}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
