/**
 * Every figure kind drawn from real data (the posts' numbers, the kit's records) and laid out by
 * Chromium, which measures the text: no label may be clipped by the figure's edge (text wider than
 * its margin) and no two labels may overlap (tick labels of one axis; titles, badges, legends, mark
 * labels). Issue 28, item 4.
 */
import { hzSweeps, validationPoints } from "../src/analysis/mechanism-model-hz.js";
import { hzValidationPlot } from "../src/plot/mechanism.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as aq from "arquero";
import { chromium } from "playwright-core";
import { ARGS, CHROMIUM, layout } from "./figure-layout.js";
import { bootstrapPlot, ecdfPlot, ecdfTakeaway, eventsTimelinePlot, lockContentionPlot, perfSharesPlot, perfSharesTakeaway, runTimelinePlot, tpsRunsPlot } from "../src/plot/index.js";
import { grantHistogramPlot } from "../src/plot/slice-trace.js";
import { grantDurationRows } from "../src/vm/trace-report.js";
import { readSliceTraceRun } from "../src/study/drivers/slice-trace.js";
import { loadLahr2001, loadLu2023, loadRostedt2023 } from "../src/published/index.js";
import { parsePerfLockContention } from "../src/parse/perf-lock.js";
import { loadMechanismGroups, pickMechanismGroups } from "../src/analysis/mechanism-records.js";
import { summariseCells, type FactorialRow } from "../src/analysis/mechanism.js";
import { mechanismSharePlot, mechanismWherePlot } from "../src/plot/mechanism.js";
import { repoRoot } from "../src/util/paths.js";


/** The first record under data/runs with a slice trace (grants.json + timers.json + histograms.json). */
function sliceTraceDir(): string | null {
  const runs = join(repoRoot(), "data", "runs");
  const walk = (d: string, depth: number): string | null => {
    if (["grants.json", "timers.json", "histograms.json"].every((f) => existsSync(join(d, f)))) return d;
    if (depth === 0) return null;
    for (const e of readdirSync(d, { withFileTypes: true }).filter((x) => x.isDirectory()).map((x) => x.name).sort()) {
      const hit = walk(join(d, e), depth - 1);
      if (hit) return hit;
    }
    return null;
  };
  return walk(runs, 2);
}

function luTable() {
  const lu = loadLu2023();
  const commit = lu.provenance.facts.find((f) => f.id === "commit")?.value;
  return aq.from(lu.profile.map((r) => ({ symbol: r.symbol, phase: `${r.kernel} ${commit}`, children: r.childrenPct ?? NaN })));
}

/** The figures as the notebooks draw them (after issue 28's fixes). */
function figures(): Record<string, string> {
  const out: Record<string, string> = {};
  const lu = luTable();
  out["01 Lu 2023 perf shares"] = perfSharesPlot(lu, { legend: true, title: "Lu 2023: perf profile shares", badge: "published", takeaway: perfSharesTakeaway(lu) });
  const p61 = join(repoRoot(), "test", "fixtures", "perf-lock", "p61-contention.txt");
  const by = parsePerfLockContention(readFileSync(p61, "utf8"), "p61-contention.txt");
  const total = by.entries.reduce((s, e) => s + e.waitTotalNs!, 0);
  const pl = aq.from(by.entries.slice(0, 10).map((e) => ({ symbol: `${e.caller} (${e.type})`, phase: "sysbench oltp_read_only, 8 threads", share: (100 * e.waitTotalNs!) / total })));
  out["06 perf lock contention"] = perfSharesPlot(pl, { value: "share", legend: true, xLabel: "share of all kernel lock wait (%)", title: "perf lock contention: top callers", badge: "real time", takeaway: perfSharesTakeaway(pl, { value: "share" }) });
  const r = loadRostedt2023();
  const side = (s: string) => (s === "without-patch" ? "without patch" : "with patch");
  const runs = aq.from(r.runs.filter((x) => x.role === "measured").map((x) => ({ side: side(x.side), run: x.run, tps: x.tps })));
  out["tps per run"] = tpsRunsPlot(runs, { title: "Rostedt 2023: pgbench -S", badge: "published" });
  out["run timeline"] = runTimelinePlot(aq.from(r.runs.map((x) => ({ side: side(x.side), run: x.run, tps: x.tps, included: x.role === "measured" }))), { title: "Rostedt 2023 in run order" });
  out["ecdf tps"] = ecdfPlot(runs, { title: "Rostedt 2023: ECDF of tps", badge: "published", takeaway: ecdfTakeaway(runs) });
  out["bootstrap"] = bootstrapPlot(aq.table({ diff: [0.1, 0.2, 0.25, 0.3, 0.4, 0.22, 0.18] }), { ci: [0.1, 0.4], observed: 0.24 });
  const lahr = loadLahr2001();
  const cpusOf = new Map([["2way", 2], ["4way", 4], ["8way", 8]]);
  out["lock contention (Lahr)"] = lockContentionPlot(aq.from(lahr.rows.filter((x) => x.kind === "lock").map((x) => ({ cpus: cpusOf.get(x.section ?? "") ?? 0, lock: x.lock, util: x.utilPct, con: x.conPct }))), { legend: true, title: "Lahr 2001: lockmeter UTIL vs CON", badge: "published" });
  // Notebook 05's load per run: two lines ending close together.
  const load = aq.from([1, 2, 3, 4, 5, 6].flatMap((run) => [{ side: "before the run", run, tps: 2 + run / 10, included: run > 1 }, { side: "after the run", run, tps: 2.05 + run / 10, included: run > 1 }]));
  out["05 load per run"] = runTimelinePlot(load, { legend: true, yLabel: "load average (1 min)", title: "Main series: load average around each run", badge: "real time" });
  out["events"] = eventsTimelinePlot(aq.from([{ date: "2001-02", label: "Lahr", approximate: true }, { date: "2023-03-27", label: "Lu", approximate: false }, { date: "2026-04-03", label: "Dipietro", approximate: false }]));
  const trace = sliceTraceDir();
  if (trace) {
    const g = JSON.parse(readFileSync(join(trace, "grants.json"), "utf8"));
    const t = JSON.parse(readFileSync(join(trace, "timers.json"), "utf8"));
    const rows = aq.from(grantDurationRows(g, t));
    out["02 grant-duration ECDF"] = ecdfPlot(rows, { value: "us", sides: ["tracepoints", "hrtimer"], xType: "log", of: "grants", xLabel: "grant duration (µs, log scale)", title: "Grant durations, one traced run", badge: "emulated", takeaway: ecdfTakeaway(rows, { value: "us", sides: ["tracepoints", "hrtimer"], of: "grants", unit: "µs" }) });
    out["02 grant-duration histogram"] = grantHistogramPlot(readSliceTraceRun(trace).histograms, { title: "Grant durations, one traced run", badge: "emulated" });
  }
  const vm = pickMechanismGroups(loadMechanismGroups(join(repoRoot(), "data", "runs", "mechanism-2026"))).vm;
  if (vm) {
    const cells = summariseCells(vm.rows as FactorialRow[]);
    out["07 where"] = mechanismWherePlot(cells);
    out["07 shares with intervals"] = mechanismSharePlot(cells);
  }
  const hzs = hzSweeps(join(repoRoot(), "data", "runs"));
  if (hzs.length) out["07 model against the emulator, per HZ"] = hzValidationPlot(validationPoints(hzs));
  return out;
}

test("figures laid out by Chromium: no label clipped by the figure's edge, no two labels overlapping", { timeout: 300_000 }, async (t) => {
  if (!existsSync(CHROMIUM)) return t.skip(`${CHROMIUM} is not installed (scripts/setup.sh installs it)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const figs = figures();
    assert.ok(Object.keys(figs).length >= 12, `only ${Object.keys(figs).length} figures drawn`);
    const problems: string[] = [];
    for (const [name, svg] of Object.entries(figs)) {
      const l = await layout(page, svg);
      assert.ok(l.texts > 3, `${name}: only ${l.texts} text elements laid out`);
      for (const c of l.clipped) problems.push(`${name}: clipped ${c}`);
      for (const o of l.overlaps) problems.push(`${name}: overlap ${o}`);
    }
    assert.deepEqual(problems, []);

    // The check finds what issue 28 saw: Lu's bars with the phases as y tick labels in a 70 px margin.
    const old = await layout(page, perfSharesPlot(luTable()));
    assert.ok(old.clipped.some((c) => /7f588d8f73/.test(c)), `the old Lu figure is not flagged as clipped: ${JSON.stringify(old)}`);
  } finally {
    await browser.close();
  }
});

test("figures carry a title, an evidence badge, a legend where colour carries meaning, and a takeaway from the data", () => {
  const lu = luTable();
  const svg = perfSharesPlot(lu, { legend: true, title: "Lu 2023", badge: "published", takeaway: perfSharesTakeaway(lu) });
  assert.match(svg, /class="sl-title"[^>]*>Lu 2023</);
  assert.match(svg, /<g class="sl-badge"[^>]*>.*PUBLISHED/);
  assert.equal((svg.match(/class="sl-legend-item"/g) ?? []).length, 2, "one legend item per phase");
  assert.match(perfSharesTakeaway(lu), /^Largest change: native_queued_spin_lock_slowpath, 0\.03% \(before af7f588d8f73\) → 43\.20% \(after af7f588d8f73\)\.$/);
  assert.match(svg, /class="sl-takeaway"/);
  const vm = pickMechanismGroups(loadMechanismGroups(join(repoRoot(), "data", "runs", "mechanism-2026"))).vm;
  if (vm) {
    const s = mechanismSharePlot(summariseCells(vm.rows as FactorialRow[]));
    assert.match(s, /EMULATED/);
    assert.ok((s.match(/<line/g) ?? []).length > 4, "intervals drawn");
    assert.match(s, /4 KB pages, extension off: \d+% \(\d+–\d+\) full/);
  }
});
