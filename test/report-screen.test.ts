/**
 * The built report as a reviewer opens it, in headless Chromium (issue 28, "Done means"): the answer
 * box within the first 1400×900 screen with numbers, intervals and the evidence badge; every code
 * cell folded; every data/ link resolving in the clone; the commit and date on every page.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { buildReport } from "../src/report/build.js";
import { listNotebooks } from "../src/report/notebooks.js";
import { repoRoot } from "../src/util/paths.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

test("the built report in Chromium: answer box on the first screen, code folded, data/ links resolve, commit and date on every page", { timeout: 900_000 }, async (t) => {
  if (!existsSync(CHROMIUM)) return t.skip(`${CHROMIUM} is not installed (scripts/setup.sh installs it)`);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-report-screen-"));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const result = await buildReport({ outDir: join(dir, "reports"), execute: false, notebooks: listNotebooks() });
    assert.deepEqual(result.missingPaths, {}, "every data/ path the report names exists in the clone");
    const head = execFileSync("git", ["-C", repoRoot(), "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    const pages = [result.index, ...result.notebooks.map((n) => join(result.outDir, n.page))];
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    for (const file of pages) {
      await page.goto(`file://${file}`, { waitUntil: "load" });
      const f = await page.evaluate(() => {
        const inCode = (n: Node) => !!(n.parentElement && n.parentElement.closest("details.sl-code, svg, a"));
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const unlinked: string[] = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const v = n.nodeValue ?? "";
          for (const m of v.matchAll(/data\/runs\/[\w./-]*/g)) {
            if (inCode(n) || /--out[ =]$/.test(v.slice(0, m.index))) continue;
            unlinked.push(m[0]);
          }
        }
        const stamp = document.querySelector(".sl-stamp");
        return {
          stamp: stamp ? { commit: stamp.getAttribute("data-commit"), date: stamp.getAttribute("data-date"), text: stamp.textContent } : null,
          codeCells: document.querySelectorAll("div.code_cell").length,
          unfolded: [...document.querySelectorAll("div.code_cell div.input")].filter((e) => !e.closest("details.sl-code")).length,
          open: document.querySelectorAll("details.sl-code[open]").length,
          visibleCode: [...document.querySelectorAll("div.code_cell div.input_area")].filter((e) => (e as HTMLElement & { checkVisibility(o?: object): boolean }).checkVisibility({ contentVisibilityAuto: true })).length,
          stray: [...document.querySelectorAll(".output_stdout pre")].map((e) => (e.textContent ?? "").trim()).filter((s) => /^(-?\d+(\.\d+)?|true|false|tcg)$/.test(s)),
          links: [...document.querySelectorAll("a.sl-path")].map((a) => (a as HTMLAnchorElement).href),
          permalinks: document.querySelectorAll("h1 .anchor-link, h2 .anchor-link, h3 .anchor-link").length,
          hiddenPermalinks: [...document.querySelectorAll(".anchor-link")].filter((a) => getComputedStyle(a).display === "none").length,
          mailto: document.querySelectorAll('a[href^="mailto:"]').length,
          unlinked,
        };
      });
      const where = file.replace(result.outDir, "reports");
      assert.ok(f.stamp, `${where}: no stamp`);
      assert.equal(f.stamp!.commit, head, `${where}: the stamp names the kit's commit`);
      assert.match(f.stamp!.date!, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/, where);
      assert.match(f.stamp!.text!, /re-executed for this report: .* · showing committed outputs/, where);
      assert.equal(f.unfolded, 0, `${where}: ${f.unfolded} of ${f.codeCells} code cells not folded`);
      assert.equal(f.open, 0, `${where}: code open by default`);
      assert.equal(f.visibleCode, 0, `${where}: code visible before unfolding`);
      assert.deepEqual(f.stray, [], `${where}: stray outputs`);
      assert.deepEqual(f.unlinked, [], `${where}: data/runs mentions without a link`);
      assert.equal(f.mailto, 0, `${where}: a Message-ID as mailto:`);
      assert.equal(f.hiddenPermalinks, 0, `${where}: heading permalinks hidden`);
      assert.ok(f.permalinks > 0, `${where}: no heading permalink`);
      for (const href of f.links) {
        assert.ok(href.startsWith("file://"), `${where}: ${href} is not relative to the clone`);
        assert.ok(existsSync(fileURLToPath(href)), `${where}: link ${href} does not resolve`);
      }
      if (file === result.index) {
        assert.ok(f.links.length > 20, `only ${f.links.length} data/ links on the index`);
        const box = await page.evaluate(() => {
          const b = document.querySelector("section.sl-answer");
          if (!b) return null;
          const r = b.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, text: b.textContent ?? "", badge: b.querySelector(".sl-badge")?.textContent ?? "", ledgerTop: document.querySelector("#claims-ledger")!.getBoundingClientRect().top };
        });
        assert.ok(box, "no answer box on the index");
        assert.ok(box!.top >= 0 && box!.bottom <= 900, `the answer box spans ${box!.top}–${box!.bottom} px, not within the first 900 px`);
        assert.match(box!.text, /\d+ \(\d+–\d+\) % under full/, "the in-kernel share with its interval");
        assert.match(box!.text, /grants covered \d+ \(\d+–\d+\) %/);
        assert.match(box!.text, /±\d+ %/, "the smallest detectable throughput effect");
        assert.match(box!.badge, /^(emulated|real time)$/);
        assert.ok(box!.ledgerTop > box!.bottom, "the ledger follows the box");
        // The box's link to notebook 07's answer lands on a heading of that page.
        const answerHref = await page.evaluate(() => (document.querySelector("section.sl-answer .sl-answer-links a") as HTMLAnchorElement | null)?.href ?? "");
        const [answerFile, anchor] = fileURLToPath(answerHref.replace(/#.*$/, "")) ? [fileURLToPath(answerHref.replace(/#.*$/, "")), answerHref.split("#")[1]] : ["", ""];
        assert.ok(existsSync(answerFile), `the answer link ${answerHref} does not resolve`);
        assert.ok(readFileSync(answerFile, "utf8").includes(`id="${anchor}"`), `no #${anchor} on ${answerFile}`);
        await page.screenshot({ path: join(dir, "first-screen.png") });
      }
    }
    // prev/next between notebook pages
    await page.goto(`file://${join(result.outDir, result.notebooks[1]!.page)}`);
    const nav = await page.evaluate(() => [...document.querySelectorAll("nav.sl-prevnext a[rel]")].map((a) => `${a.getAttribute("rel")} ${a.getAttribute("href")}`));
    assert.ok(nav.includes(`prev ${result.notebooks[0]!.page.replace("notebooks/", "")}`) && nav.includes(`next ${result.notebooks[2]!.page.replace("notebooks/", "")}`), nav.join(", "));
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
