/**
 * Every figure a committed notebook shows, read back from its outputs, and what it lacks (issue 28
 * item 4): a title, an evidence badge, a one-line takeaway, and a legend where colour carries meaning
 * (more than one fill colour among the dots or bars without the colours named on an axis). The test
 * test/plot-layout-notebooks.test.ts runs it on notebooks/*.ipynb and lays each figure out in Chromium.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { INK, MUTED } from "../plot/style.js";

/** Colours that carry no category: text and mean marks, muted (excluded) marks, white fills. */
const NEUTRAL = new Set([INK, MUTED, "#ffffff"].map((c) => c.toLowerCase()));

export interface NotebookFigure {
  notebook: string;
  cell: number;
  svg: string;
}

/** The <svg> figures of every notebook under `dir`, in notebook and cell order. */
export function notebookFigures(dir: string): NotebookFigure[] {
  const out: NotebookFigure[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".ipynb")).sort()) {
    const nb = JSON.parse(readFileSync(join(dir, name), "utf8")) as { cells: { outputs?: { data?: Record<string, string | string[]> }[] }[] };
    nb.cells.forEach((c, cell) => {
      for (const o of c.outputs ?? []) {
        const h = o.data?.["text/html"];
        const html = Array.isArray(h) ? h.join("") : (h ?? "");
        for (const m of html.matchAll(/<svg[\s\S]*?<\/svg>/g)) out.push({ notebook: name, cell, svg: m[0] });
      }
    });
  }
  return out;
}

const textOf = (s: string) => s.replace(/<[^>]+>/g, "").trim();

/** What a figure lacks, as "no title", "no evidence badge", "no takeaway", "colours without a legend". */
export function figureProblems(svg: string): string[] {
  const p: string[] = [];
  const title = /<text[^>]*class="sl-title"[^>]*>([\s\S]*?)<\/text>/.exec(svg);
  if (!title || textOf(title[1]!) === "") p.push("no title");
  if (!/<g class="sl-badge"/.test(svg)) p.push("no evidence badge");
  const take = /<g class="sl-takeaway"[\s\S]*?<\/g>/.exec(svg);
  if (!take || textOf(take[0]) === "") p.push("no takeaway");
  // Colour carries meaning when marks are filled in more than one palette colour; it is named by a legend,
  // or by the x axis or the facet labels (one colour per tick, as tpsRunsPlot draws its sides).
  const body = svg.replace(/<g class="sl-badge"[\s\S]*?<\/g>/g, "");
  const fills = new Set([...body.matchAll(/<(?:circle|rect|path)[^>]*fill="(#[0-9a-fA-F]{6})"/g)].map((m) => m[1]!.toLowerCase()).filter((c) => !NEUTRAL.has(c)));
  const ticks = (axis: string) => {
    const at = svg.indexOf(`aria-label="${axis}-axis tick label"`);
    if (at < 0) return 0;
    const end = svg.indexOf('aria-label="', at + 20);
    return (svg.slice(at, end < 0 ? undefined : end).match(/<text[^>]*>[^<]+<\/text>/g) ?? []).length;
  };
  const named = /class="sl-legend"/.test(svg) || /class="sl-side-label"/.test(svg) || ticks("x") === fills.size || ticks("fy") === fills.size;
  if (fills.size > 1 && !named) p.push(`${fills.size} fill colours without a legend`);
  return p;
}
