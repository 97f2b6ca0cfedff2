/**
 * perf profile shares before/after a change: for each symbol, one bar per phase,
 * labelled with its value.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { SIDE_COLORS, SIZE } from "./style.js";
import { column, domainOf, type Table } from "./table.js";

export interface PerfSharesOptions extends FigureOptions {
  /** Order of the phases top to bottom within a symbol; default order of first appearance. */
  phases?: string[];
  /** Order of the symbols; default order of first appearance. */
  symbols?: string[];
  /** Column holding the share; default "children" (perf's inclusive "Children" %). */
  value?: string;
  xLabel?: string;
}

/**
 * Input columns:
 * - `symbol` (string): e.g. "__schedule", "native_queued_spin_lock_slowpath".
 * - `phase` (string): e.g. "before af7f588d8f73", "after af7f588d8f73".
 * - `children` (number, or the column named by `options.value`): the share in %
 *   (perf report's Children column; pass `value: "self"` for the Self column).
 *
 * Marks (class on their <g>): `sl-share` (one bar per row), `sl-share-label`, `sl-symbol-label` (one per symbol).
 */
export function perfSharesPlot(table: Table, options: PerfSharesOptions = {}): string {
  const H = "perfSharesPlot";
  const valueName = options.value ?? "children";
  const symbol = column(H, table, "symbol", "string");
  const phase = column(H, table, "phase", "string");
  const share = column(H, table, valueName, "number");
  const symbols = domainOf(H, "symbol", symbol, options.symbols);
  const phases = domainOf(H, "phase", phase, options.phases);
  const rows = symbol.map((s, i) => ({ symbol: s, phase: phase[i]!, share: share[i]!, label: `${share[i]!.toFixed(2)}%` }));
  const bandHeight = 22;
  const height = options.height ?? Math.max(160, 50 + symbols.length * (phases.length * bandHeight + 32));

  return renderSvg({
    width: options.width ?? SIZE.width,
    height,
    ariaLabel: options.ariaLabel ?? "perf shares before/after",
    title: options.title,
    marginLeft: 70,
    marginRight: 60,
    fy: { domain: symbols, label: null, padding: 0.1, axis: null },
    y: { domain: phases, label: null, padding: 0.1, insetTop: 18 },
    x: { label: options.xLabel ?? `${valueName} (% of samples)`, grid: true, nice: true },
    color: { domain: phases, range: [...SIDE_COLORS] },
    facet: { label: null },
    marks: [
      Plot.barX(rows, { fy: "symbol", y: "phase", x: "share", fill: "phase", className: "sl-share" }),
      Plot.text(rows, { fy: "symbol", y: "phase", x: "share", text: "label", dx: 4, textAnchor: "start", className: "sl-share-label" }),
      Plot.ruleX([0]),
      Plot.text(symbols, { fy: (d: string) => d, text: (d: string) => d, frameAnchor: "top-left", dy: 2, fontWeight: "bold", className: "sl-symbol-label" }),
    ],
  });
}
