import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { buildReport } from "../src/report/build.js";
import { listNotebooks } from "../src/report/notebooks.js";
import { ledgerTableHtml, verdictClass } from "../src/report/ledger-html.js";
import { stripActiveContent } from "../src/report/page.js";
import { buildLedger } from "../src/claims/index.js";
import { repoRoot, workDir } from "../src/util/paths.js";

const CHROMIUM = "/usr/bin/chromium";

test("ledger table: one row per claim, escaped text, verdict classes", () => {
  const rows = [
    { id: "a/x", source: "a", claim: "tps <1%", published: "1", recomputed: "2", uncertainty: "±1", verdict: "reproduced", reason: "r" },
    { id: "a/y", source: "a", claim: "c", published: "1", recomputed: "2", uncertainty: null, verdict: "not significant", reason: "r & s" },
  ];
  const html = ledgerTableHtml(rows);
  assert.equal(html.match(/<tr data-claim=/g)?.length, 2);
  assert.ok(html.includes("tps &lt;1%") && html.includes("r &amp; s"));
  assert.ok(html.includes('class="sl-verdict sl-verdict-not-significant"'));
  assert.ok(html.includes("2 claims: 1 reproduced, 1 not significant"));
  assert.equal(verdictClass("consistent"), "sl-verdict-other");
});

test("stripActiveContent removes scripts, links and event handlers", () => {
  const out = stripActiveContent('<p onclick="x()">a</p><script src="https://cdn/x.js"></script><link rel="stylesheet" href="https://cdn/y.css"><b>b</b>');
  assert.equal(out, "<p>a</p><b>b</b>");
});

test("the report renders offline in headless Chromium: figures drawn, no broken images, no requests", { timeout: 600_000 }, async () => {
  const out = join(workDir(), "test-report", "reports");
  rmSync(join(workDir(), "test-report"), { recursive: true, force: true });
  const ledger = buildLedger();
  // The committed notebooks carry their outputs; executing them is test/notebooks.test.ts's job.
  const notebooks = listNotebooks();
  const result = await buildReport({ outDir: out, execute: false, notebooks });
  assert.equal(result.index, join(out, "index.html"));
  assert.equal(result.claims, ledger.length);
  assert.equal(result.notebooks.length, notebooks.length);
  for (const n of result.notebooks) assert.ok(existsSync(join(out, n.page)), n.page);

  const html = readFileSync(result.index, "utf8");
  assert.ok(!/<script|<link|@import|url\(\s*["']?https?:/i.test(html), "index.html references scripts, stylesheets or remote URLs");

  const profile = mkdtempSync(join(tmpdir(), "slicelab-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1200, height: 900 },
  });
  try {
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`file://${result.index}`, { waitUntil: "load" });

    const facts = await page.evaluate(() => {
      const box = (e: Element) => e.getBoundingClientRect();
      const svgs = [...document.querySelectorAll("svg")];
      const figures = [...document.querySelectorAll(".sl-figure svg")];
      return {
        svgs: svgs.length,
        emptySvgs: svgs.filter((s) => box(s).width < 1 || box(s).height < 1).length,
        figures: figures.length,
        figureSizes: figures.map((s) => [Math.round(box(s).width), Math.round(box(s).height)]),
        // Marks inside the figures are laid out too (not just empty <svg> boxes).
        figureMarks: figures.map((s) => [...s.querySelectorAll("circle, rect, path")].filter((m) => box(m).width > 0 || box(m).height > 0).length),
        images: document.querySelectorAll("img").length,
        brokenImages: [...document.querySelectorAll("img")].filter((i) => !(i as HTMLImageElement).complete || (i as HTMLImageElement).naturalWidth === 0).length,
        ledgerRows: document.querySelectorAll("table.sl-ledger tbody tr").length,
        sections: document.querySelectorAll("section.sl-notebook").length,
        title: document.title,
      };
    });
    assert.equal(facts.title, "slicelab report");
    assert.equal(facts.ledgerRows, ledger.length);
    assert.equal(facts.sections, notebooks.length);
    assert.ok(facts.figures >= 2, `expected the figures of notebook 00 at least, found ${facts.figures}`);
    assert.equal(facts.emptySvgs, 0, `SVGs with zero size: ${facts.emptySvgs}`);
    for (const [w, h] of facts.figureSizes) assert.ok(w! > 200 && h! > 100, `figure drawn at ${w}×${h}`);
    for (const n of facts.figureMarks) assert.ok(n > 3, `a figure has only ${n} visible marks`);
    assert.equal(facts.brokenImages, 0, `${facts.brokenImages} of ${facts.images} images did not load`);
    assert.deepEqual(errors, []);
    const remote = requests.filter((u) => !u.startsWith("file://") && !u.startsWith("data:"));
    assert.deepEqual(remote, [], "the page asked for network resources");

    // A screenshot for a person to look at (not compared: fonts differ between machines).
    const shot = join(workDir(), "test-report", "index.png");
    mkdirSync(join(workDir(), "test-report"), { recursive: true });
    await page.screenshot({ path: shot, fullPage: false });
    await page.locator(".sl-figure").first().screenshot({ path: join(workDir(), "test-report", "first-figure.png") });
    const png = readFileSync(shot);
    assert.equal(png.subarray(1, 4).toString("latin1"), "PNG");
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test("the report directory is replaced atomically and left intact when a build fails", { timeout: 300_000 }, async () => {
  const base = join(workDir(), "test-report-atomic");
  rmSync(base, { recursive: true, force: true });
  const out = join(base, "reports");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "stale.html"), "old");
  const nb = listNotebooks()[0]!;
  const ledger = [{ id: "x/y", source: "x", claim: "c", published: "p", recomputed: "r", uncertainty: null, verdict: "reproduced", reason: "why" }];
  await buildReport({ outDir: out, execute: false, notebooks: [nb], ledger });
  assert.ok(!existsSync(join(out, "stale.html")), "old content survived the swap");
  assert.ok(existsSync(join(out, "index.html")));
  assert.deepEqual(readdirSync(base), ["reports"], "temporary directories left behind");
  const before = readFileSync(join(out, "index.html"), "utf8");
  await assert.rejects(buildReport({ outDir: out, execute: false, notebooks: [join(base, "missing.ipynb")], ledger }), /missing\.ipynb: no such notebook/);
  assert.equal(readFileSync(join(out, "index.html"), "utf8"), before);
  assert.deepEqual(readdirSync(base), ["reports"]);
  rmSync(base, { recursive: true, force: true });
});

test("slicelab report --no-execute --json writes the report and says where it is", { timeout: 300_000 }, async () => {
  const { execFileSync } = await import("node:child_process");
  const base = join(workDir(), "test-report-cli");
  rmSync(base, { recursive: true, force: true });
  const out = join(base, "reports");
  const bin = join(repoRoot(), "bin", "slicelab.js");
  const stdout = execFileSync(process.execPath, [bin, "report", "--no-execute", "--json", "--out", out], { encoding: "utf8" });
  const json = JSON.parse(stdout) as { index: string; notebooks: { name: string; page: string }[]; claims: number; seconds: number };
  assert.deepEqual(Object.keys(json), ["index", "notebooks", "claims", "seconds"]);
  assert.equal(json.index, join(out, "index.html"));
  assert.ok(existsSync(json.index));
  assert.equal(json.claims, buildLedger().length);
  assert.equal(json.notebooks[0]!.name, "00-introduction.ipynb");
  assert.ok(existsSync(join(out, json.notebooks[0]!.page)));
  rmSync(base, { recursive: true, force: true });
});

test("report --execute LIST: only the named notebooks run; the report says which outputs are committed ones", { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-report-exec-"));
  const nb = (source: string) => ({
    cells: [{ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source: [source] }],
    metadata: { kernelspec: { name: "tslab", display_name: "TypeScript", language: "typescript" } },
    nbformat: 4,
    nbformat_minor: 5,
  });
  writeFileSync(join(dir, "10-run.ipynb"), JSON.stringify(nb("console.log(6 * 7);")));
  writeFileSync(join(dir, "11-kept.ipynb"), JSON.stringify(nb("console.log('never executed');")));
  try {
    const result = await buildReport({
      outDir: join(dir, "reports"),
      execute: ["10"],
      notebooks: [join(dir, "10-run.ipynb"), join(dir, "11-kept.ipynb")],
      ledger: [],
    });
    assert.deepEqual(result.notebooks.map((n) => [n.name, n.ran]), [["10-run.ipynb", true], ["11-kept.ipynb", false]]);
    const html = readFileSync(result.index, "utf8");
    assert.ok(html.includes("42"), "the executed notebook's output is in the report");
    assert.ok(!html.includes("never executed</pre>") && !/never executed\s*\n?<\/pre>/.test(html), "the kept notebook was not run");
    assert.match(html, /10-run\.ipynb · executed for this report/);
    assert.match(html, /11-kept\.ipynb · outputs as committed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
