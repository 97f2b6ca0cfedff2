import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { inflateSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { JSDOM } from "jsdom";
import * as aq from "arquero";
import {
  bootstrapPlot,
  ecdfPlot,
  ecdfPoints,
  eventsTimelinePlot,
  lockContentionPlot,
  LOCK_CON_LABEL,
  meanInterval,
  normaliseIds,
  parseEventDate,
  perfSharesPlot,
  renderSvg,
  runTimelinePlot,
  svgToPixels,
  svgToPng,
  tpsRunsPlot,
  tpsRunsSummary,
} from "../src/plot/index.js";
import * as Plot from "@observablehq/plot";
import { loadLahr2001 } from "../src/published/index.js";
import { conDefinitionCheck } from "../src/claims/index.js";

// Steven Rostedt, "Re: [POC][RFC][PATCH v2] sched: Extended Scheduler Time Slice",
// LKML, October 2023 (the seed post 000): pgbench -c 100 -T 300 -j 8 -S -n, tps of
// the first (cold, discarded) run and the 15 runs used, without and with the patch.
const ROSTEDT = {
  without: { first: 72573.188203, runs: [74315.731978, 74448.130108, 74662.2461, 73124.961311, 74653.611878, 74765.296134, 74497.066104, 74541.664031, 74595.032066, 74545.876793, 74762.560651, 74528.657018, 74814.700753, 74687.980967, 74973.185122] },
  with: { first: 73562.00597, runs: [74560.101322, 74711.177071, 74551.093281, 74559.452628, 74737.604361, 74521.606019, 74870.859166, 74545.423471, 74805.939815, 74665.24073, 74701.47955, 74897.154079, 74879.687067, 74792.563116, 74852.101317] },
};

function rostedtRows(includeFirst: boolean) {
  const rows: { side: string; run: number; tps: number; included: boolean }[] = [];
  for (const [side, d] of [["without patch", ROSTEDT.without], ["with patch", ROSTEDT.with]] as const) {
    if (includeFirst) rows.push({ side, run: 1, tps: d.first, included: false });
    d.runs.forEach((tps, i) => rows.push({ side, run: i + 2, tps, included: true }));
  }
  return aq.from(rows);
}

// Aaron Lu, "rq lock contention due to commit af7f588d8f73", LKML 2023-03-27 (seed 004):
// perf profile lines (Children %, Self %) before and after the commit.
const LU = aq.from([
  { symbol: "__schedule", phase: "before", children: 7.3, self: 0.71 },
  { symbol: "native_queued_spin_lock_slowpath", phase: "before", children: 0.03, self: 0.03 },
  { symbol: "__schedule", phase: "after", children: 49.01, self: 0.87 },
  { symbol: "native_queued_spin_lock_slowpath", phase: "after", children: 43.2, self: 43.18 },
]);

// Jonathan Lahr, "kernel lock contention and scalability", LKML February 2001 (seed 002):
// the lock rows (not caller rows) of the 2-way lockmeter excerpt, UTIL and CON in %.
const LAHR_2WAY = aq.from([
  { cpus: 2, lock: "kernel_flag", util: 4.04, con: 1.22 },
  { cpus: 2, lock: "runqueue_lock", util: 24.38, con: 23.93 },
  { cpus: 2, lock: "sem_ids+0x24", util: 0.11, con: 4.97 },
  { cpus: 2, lock: "timerlist_lock", util: 2.31, con: 6.86 },
]);

function parse(svg: string): Document {
  return new JSDOM(`<!DOCTYPE html><body>${svg}</body>`).window.document;
}
function count(svg: string, selector: string): number {
  return parse(svg).querySelectorAll(selector).length;
}
const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");

/** Every figure kind, drawn from the tables above. */
function allFigures(): Record<string, string> {
  return {
    tpsRuns: tpsRunsPlot(rostedtRows(false)),
    runTimeline: runTimelinePlot(rostedtRows(true)),
    ecdf: ecdfPlot(rostedtRows(false)),
    bootstrap: bootstrapPlot(aq.table({ diff: ROSTEDT.with.runs.map((w, i) => (w / ROSTEDT.without.runs[i]! - 1) * 100) }), { ci: [-0.2, 1.9], observed: 0.24 }),
    lockContention: lockContentionPlot(LAHR_2WAY),
    perfShares: perfSharesPlot(LU),
    events: eventsTimelinePlot(aq.from([
      { date: "2001-02", label: "Lahr", approximate: true },
      { date: "2023-03-27", label: "Lu", approximate: false },
    ])),
    // Plot numbers clip paths and markers from module-wide counters: exercise both.
    clipAndMarkers: renderSvg({ marks: [Plot.line([{ x: 1, y: 1 }, { x: 2, y: 3 }], { x: "x", y: "y", marker: "circle", clip: true })] }),
  };
}

test("every figure renders to byte-identical SVG and PNG twice, with other figures drawn in between", () => {
  const first = allFigures();
  // Draw something with a clip path in between, to advance Plot's module-wide id counters.
  renderSvg({ marks: [Plot.dot([{ x: 1, y: 1 }], { x: "x", y: "y", clip: true })] });
  const second = allFigures();
  assert.match(first.clipAndMarkers!, /clip-path="url\(#sl[0-9a-f]{8}-clip-1\)"/);
  assert.match(first.clipAndMarkers!, /marker-start="url\(#sl[0-9a-f]{8}-marker-1\)"/);
  for (const name of Object.keys(first)) {
    assert.equal(second[name], first[name], `${name}: SVG differs between two renderings`);
    assert.ok(!/plot-clip-\d|plot-marker-\d/.test(first[name]!), `${name}: Plot's counter ids left in the SVG`);
    for (const [, ref] of first[name]!.matchAll(/url\(#([^)]+)\)/g)) assert.ok(first[name]!.includes(`id="${ref}"`), `${name}: url(#${ref}) has no target`);
    assert.equal(sha(svgToPng(second[name]!, 640)), sha(svgToPng(first[name]!, 640)), `${name}: PNG differs`);
  }
});

test("a figure rendered in a fresh process is byte-identical to one rendered here", () => {
  const here = tpsRunsPlot(rostedtRows(false));
  const module = fileURLToPath(new URL("../src/plot/index.js", import.meta.url));
  const script = `
    import * as aq from "arquero";
    import { tpsRunsPlot, runTimelinePlot } from ${JSON.stringify(module)};
    runTimelinePlot(aq.from([{ side: "a", run: 1, tps: 1 }, { side: "a", run: 2, tps: 2 }]));
    process.stdout.write(tpsRunsPlot(aq.from(JSON.parse(process.argv[1]))));`;
  const there = execFileSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(rostedtRows(false).objects())], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    encoding: "utf8",
  });
  assert.equal(sha(there), sha(here));
});

test("figures are standalone SVG with a generic font and no embedded fonts, scripts or external references", () => {
  for (const [name, svg] of Object.entries(allFigures())) {
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, name);
    assert.match(svg, /^<svg [^>]*font-family="sans-serif"/, name);
    assert.ok(!/@font-face|<script|href="http|<image/i.test(svg), `${name}: has embedded fonts, scripts or external links`);
  }
});

test("tpsRunsPlot: one circle per run, one mean per side, and the means match Rostedt's published averages", () => {
  const table = rostedtRows(false);
  const svg = tpsRunsPlot(table);
  assert.equal(count(svg, "g.sl-run circle"), 30);
  assert.equal(count(svg, "g.sl-mean circle"), 2);
  assert.equal(count(svg, "g.sl-interval line"), 2);
  const [without, withPatch] = tpsRunsSummary(table);
  // Published: "Average: 74527.7800 Std Dev: 420.6304" and "Average: 74710.0988 Std Dev: 136.7250".
  assert.equal(without!.mean.toFixed(4), "74527.7801");
  assert.equal(without!.sd.toFixed(4), "420.6305");
  assert.equal(withPatch!.mean.toFixed(4), "74710.0989");
  assert.equal(withPatch!.sd.toFixed(4), "136.7250");
  // The labels drawn beside the means carry the same numbers.
  const labels = [...parse(svg).querySelectorAll("g.sl-mean-label text")].map((t) => t.textContent);
  assert.deepEqual(labels, [`${without!.mean.toFixed(0)} ± ${((without!.hi - without!.lo) / 2).toFixed(1)}`, `${withPatch!.mean.toFixed(0)} ± ${((withPatch!.hi - withPatch!.lo) / 2).toFixed(1)}`]);
});

test("meanInterval agrees with scipy's t interval", () => {
  // Reference: Debian python3-scipy 1.10.1,
  //   stats.t.interval(0.95, 14, loc=mean, scale=stats.sem(x)) on Rostedt's 15 runs
  //   without the patch → (74294.84266259735, 74760.71747260266), sd 420.6304969004874.
  const m = meanInterval(ROSTEDT.without.runs);
  assert.ok(Math.abs(m.lo - 74294.84266259735) < 1e-6, `lo ${m.lo}`);
  assert.ok(Math.abs(m.hi - 74760.71747260266) < 1e-6, `hi ${m.hi}`);
  assert.ok(Math.abs(m.sd - 420.6304969004874) < 1e-9, `sd ${m.sd}`);
  // with the patch → (74634.38305756201, 74785.81467483802)
  const w = meanInterval(ROSTEDT.with.runs);
  assert.ok(Math.abs(w.lo - 74634.38305756201) < 1e-6 && Math.abs(w.hi - 74785.81467483802) < 1e-6, `${w.lo} ${w.hi}`);
  assert.equal(meanInterval([5]).lo, 5);
  assert.throws(() => meanInterval([]), /no values/);
});

test("runTimelinePlot: excluded (cold) runs are drawn apart from the included ones", () => {
  const svg = runTimelinePlot(rostedtRows(true));
  assert.equal(count(svg, "g.sl-included-run circle"), 30);
  assert.equal(count(svg, "g.sl-excluded-run circle"), 2);
  assert.equal(count(svg, "g.sl-run-order path"), 2);
  assert.deepEqual([...parse(svg).querySelectorAll("g.sl-side-label text")].map((t) => t.textContent), ["without patch", "with patch"]);
});

test("ecdfPoints: proportions and ties", () => {
  assert.deepEqual(ecdfPoints(["a", "a", "a", "a", "b"], [3, 1, 2, 2, 7]), [
    { side: "a", value: 1, p: 0.25 },
    { side: "a", value: 2, p: 0.75 },
    { side: "a", value: 3, p: 1 },
    { side: "b", value: 7, p: 1 },
  ]);
  const svg = ecdfPlot(rostedtRows(false));
  assert.equal(count(svg, "g.sl-observation circle"), 30); // no ties among the 30 posted values
  assert.equal(count(svg, "g.sl-ecdf path"), 2);
});

test("bootstrapPlot: histogram bars, interval bounds and observed value", () => {
  const svg = bootstrapPlot(aq.table({ diff: [0.1, 0.2, 0.2, 0.3, 0.5] }), { ci: [0.12, 0.45], observed: 0.25, bins: 5 });
  assert.ok(count(svg, "g.sl-replicates rect") >= 3);
  assert.equal(count(svg, "g.sl-interval-bound line"), 2);
  assert.equal(count(svg, "g.sl-observed line"), 1);
  const withoutCi = bootstrapPlot(aq.table({ diff: [0.1, 0.2] }));
  assert.equal(count(withoutCi, "g.sl-interval-bound line"), 0);
});

test("lockContentionPlot: one dot per lock row, labels above the threshold", () => {
  const svg = lockContentionPlot(LAHR_2WAY);
  assert.equal(count(svg, "g.sl-lock circle"), 4);
  // Default bars UTIL ≥ 1% or CON ≥ 20%: sem_ids (UTIL 0.11%, CON 4.97%) is the one left unlabelled.
  assert.deepEqual([...parse(svg).querySelectorAll("g.sl-lock-label text")].map((t) => t.textContent).sort(), ["kernel_flag", "runqueue_lock", "timerlist_lock"]);
  const few = lockContentionPlot(LAHR_2WAY, { labelUtilAbove: 20, labelConAbove: 100 });
  assert.deepEqual([...parse(few).querySelectorAll("g.sl-lock-label text")].map((t) => t.textContent), ["runqueue_lock"]);
});

test("lockContentionPlot: the CON axis says (SPIN + REJECT) / TOTAL, which is what the published lockmeter rows print", () => {
  const svg = lockContentionPlot(LAHR_2WAY);
  const texts = [...parse(svg).querySelectorAll("text")].map((t) => t.textContent ?? "");
  assert.ok(texts.some((t) => t.includes(LOCK_CON_LABEL)), `no axis label "${LOCK_CON_LABEL}" in ${JSON.stringify(texts.slice(0, 40))}`);
  assert.ok(!texts.some((t) => /spun/.test(t)), "the old label (acquisitions that spun) is back");
  assert.match(LOCK_CON_LABEL, /\(SPIN \+ REJECT\) \/ TOTAL/);
  // The label's definition against the data: every lock and caller row of Lahr's tables prints
  // CON = (SPIN + REJECT) / TOTAL, and the rows with rejects do not print SPIN / TOTAL.
  const check = conDefinitionCheck(loadLahr2001().rows);
  assert.ok(check.withReject > 0, "no row with rejects: the data cannot tell the two definitions apart");
  assert.equal(check.matchSpinPlusReject, check.rows);
  assert.ok(check.matchSpinOnly < check.rows, `SPIN / TOTAL alone matches all ${check.rows} rows`);
});

test("perfSharesPlot: one bar per (symbol, phase) with its value", () => {
  const svg = perfSharesPlot(LU);
  assert.equal(count(svg, "g.sl-share rect"), 4);
  const labels = [...parse(svg).querySelectorAll("g.sl-share-label text")].map((t) => t.textContent).sort();
  assert.deepEqual(labels, ["0.03%", "43.20%", "49.01%", "7.30%"]);
  const self = perfSharesPlot(LU, { value: "self" });
  const selfLabels = [...parse(self).querySelectorAll("g.sl-share-label text")].map((t) => t.textContent).sort();
  assert.deepEqual(selfLabels, ["0.03%", "0.71%", "0.87%", "43.18%"]);
});

test("eventsTimelinePlot and parseEventDate", () => {
  assert.equal(parseEventDate("2024-11-13").toISOString(), "2024-11-13T00:00:00.000Z");
  assert.equal(parseEventDate("2001-02").toISOString(), "2001-02-01T00:00:00.000Z");
  assert.equal(parseEventDate("2026").toISOString(), "2026-01-01T00:00:00.000Z");
  assert.throws(() => parseEventDate("Feb 2001"), /expected YYYY, YYYY-MM or YYYY-MM-DD, found "Feb 2001"/);
  const svg = eventsTimelinePlot(aq.from([
    { date: "2024-11-13", label: "late", approximate: false },
    { date: "2001-02", label: "early", approximate: true },
  ]));
  assert.equal(count(svg, "g.sl-event circle"), 1);
  assert.equal(count(svg, "g.sl-approximate-event circle"), 1);
  assert.deepEqual([...parse(svg).querySelectorAll("g.sl-event-label text")].map((t) => t.textContent), ["early", "late"]);
});

test("helpers name the missing or mistyped column", () => {
  assert.throws(() => tpsRunsPlot(aq.from([{ side: "a", tp: 1 }])), /tpsRunsPlot: expected a column "tps" \(number\), found columns \["side","tp"\]/);
  assert.throws(() => tpsRunsPlot(aq.from([{ side: "a", tps: "1" }])), /tpsRunsPlot: column "tps" row 0: expected a finite number, found "1"/);
  assert.throws(() => tpsRunsPlot(rostedtRows(false), { sides: ["with patch"] }), /side \["without patch"\] not in the given order/);
});

test("normaliseIds: consistent references, distinct prefixes for distinct figures", () => {
  const a = normaliseIds('<svg><clipPath id="plot-clip-7"/><g clip-path="url(#plot-clip-7)"/><clipPath id="plot-clip-9"/></svg>');
  const m = /id="(sl[0-9a-f]{8})-clip-1"/.exec(a);
  assert.ok(m, a);
  assert.ok(a.includes(`url(#${m[1]}-clip-1)`) && a.includes(`id="${m[1]}-clip-2"`), a);
  const b = normaliseIds('<svg><clipPath id="plot-clip-3"/><g clip-path="url(#plot-clip-3)"/></svg>');
  assert.notEqual(/id="(sl[0-9a-f]{8})/.exec(b)![1], m[1]);
  assert.equal(normaliseIds("<svg></svg>"), "<svg></svg>");
});

/** Decodes a non-interlaced 8-bit RGBA PNG (what resvg writes) into its size and pixel rows. */
function decodePng(png: Buffer): { width: number; height: number; rows: Buffer } {
  assert.deepEqual([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "PNG signature");
  let pos = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  for (;;) {
    const len = png.readUInt32BE(pos);
    const type = png.toString("latin1", pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, "bit depth");
      assert.equal(data[9], 6, "colour type RGBA");
      assert.equal(data[12], 0, "not interlaced");
    }
    if (type === "IDAT") idat.push(data);
    pos += 12 + len;
    if (type === "IEND") break;
  }
  const rows = inflateSync(Buffer.concat(idat));
  assert.equal(rows.length, height * (1 + 4 * width), "decompressed size = height × (filter byte + 4 × width)");
  return { width, height, rows };
}

test("svgToPng writes a PNG that decodes at the requested width with the figure's aspect ratio", () => {
  const svg = tpsRunsPlot(rostedtRows(false), { takeaway: false });
  const png = decodePng(svgToPng(svg, 800));
  assert.equal(png.width, 800);
  assert.equal(png.height, Math.round((800 * 360) / 640));
  assert.throws(() => svgToPng(svg, 0), /positive integer/);
});

test("PNG text renders with the system's sans-serif font", () => {
  const withText = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40" font-family="sans-serif" font-size="20"><text x="10" y="28">tps 74527</text></svg>';
  const empty = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40" font-family="sans-serif" font-size="20"><text x="10" y="28"></text></svg>';
  const dark = (svg: string) => {
    const { pixels } = svgToPixels(svg, 200);
    let n = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! < 128) n++;
    return n;
  };
  assert.equal(dark(empty), 0);
  assert.ok(dark(withText) > 150, `only ${dark(withText)} dark pixels: no font found for sans-serif (Debian: fonts-dejavu-core)`);
});

test("a title is drawn inside the SVG above the plot, not as an HTML figure", () => {
  const plain = tpsRunsPlot(rostedtRows(false), { takeaway: false });
  const titled = tpsRunsPlot(rostedtRows(false), { title: "Rostedt 2023: pgbench -S", takeaway: false });
  assert.match(titled, /^<svg /);
  const doc = parse(titled);
  assert.equal(doc.querySelector("text.sl-title")!.textContent, "Rostedt 2023: pgbench -S");
  assert.equal(doc.querySelector("svg")!.getAttribute("height"), "384");
  assert.equal(doc.querySelectorAll("g.sl-run circle").length, 30);
  assert.equal(parse(plain).querySelector("text.sl-title"), null);
  assert.equal(svgToPixels(titled, 640).height, 384);
  // By default the figure says what it shows under the plot, computed from the runs.
  const withTakeaway = parse(tpsRunsPlot(rostedtRows(false)));
  assert.equal([...withTakeaway.querySelectorAll("g.sl-takeaway text")].map((t) => t.textContent).join(" "), "Means: without patch 74528 tps (15 runs), with patch 74710 tps (15 runs); with patch − without patch: +0.24 %.");
});
