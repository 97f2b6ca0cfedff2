/**
 * Helpers for the cells of slicelab's tslab notebooks:
 *
 *   import { show, markdown, recordValue } from "../dist/src/report/notebook.js";
 *   show(tpsRunsPlot(table));                       // a figure (SVG) as cell output
 *   const m = recordValue("rostedt-2023.without.mean", mean);   // for the tests
 *   markdown(`The mean is ${m.toFixed(1)} tps.`);    // prose with computed numbers
 *
 * They write display data through tslab's `display`, which exists only inside a
 * running tslab kernel; outside one (a plain `node` process) they throw.
 */
import { createRequire } from "node:module";
import { VALUE_MIME, valuePayload, type RecordedValue } from "./values.js";
import { MACHINE_FACTS_CLASS } from "./freshness.js";

interface TslabDisplay {
  html(s: string): void;
  markdown(s: string): void;
  svg(s: string): void;
  text(s: string): void;
  raw(contentType: string, b: string): void;
}

let cached: TslabDisplay | undefined;

/** tslab's display, loaded lazily so that importing this module outside a kernel is harmless. */
function display(): TslabDisplay {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const tslab = require("tslab") as { display: TslabDisplay };
  cached = tslab.display;
  return cached;
}

/**
 * Shows a figure (SVG text from one of the src/plot helpers) as the cell's output.
 * It goes out as text/html (an inline <svg> in a div), not image/svg+xml: nbconvert's
 * HTML export sanitises image/svg+xml outputs down to their text, but keeps HTML.
 */
export function show(svg: string): void {
  display().html(`<div class="sl-figure">${svg}</div>`);
}

/** Shows Markdown (numbers in it should be computed in the cell, never typed). */
export function markdown(text: string): void {
  display().markdown(text);
}

/** Shows an HTML fragment (e.g. a table). */
export function html(fragment: string): void {
  display().html(fragment);
}

/**
 * Records a key computed value under a stable name (e.g. "lahr-2001.spin-share")
 * and returns it, so the notebook can use it in its prose. Tests read the recorded
 * values back from the executed notebook (src/report/values.ts) and compare them
 * with the claims ledger.
 */
export function recordValue<T extends RecordedValue["value"]>(name: string, value: T): T {
  display().raw(VALUE_MIME, valuePayload(name, value));
  return value;
}

/**
 * Shows facts of the machine that runs the notebook (a path, a build hash, a build time, cache
 * hits), as opposed to what the notebook claims: they are marked so that the freshness check
 * (src/report/freshness.ts, isMachineFact) compares only that they are there, not their values.
 */
export function machineFacts(caption: string, rows: (string | number)[][]): void {
  display().html(machineFactsHtml(caption, rows));
}

export function machineFactsHtml(caption: string, rows: (string | number)[][]): string {
  return `<div class="${MACHINE_FACTS_CLASS}"><p class="sl-machine-caption">${escapeHtml(caption)}</p>${htmlTable(["this machine", "value"], rows)}</div>`;
}

/** Escapes text for inclusion in HTML or Markdown tables. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

/** A simple HTML table from rows of cells (already formatted as text). */
export function htmlTable(header: string[], rows: (string | number)[][]): string {
  const th = header.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const trs = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(String(c))}</td>`).join("")}</tr>`).join("");
  return `<table class="sl-table"><thead><tr>${th}</tr></thead><tbody>${trs}</tbody></table>`;
}
