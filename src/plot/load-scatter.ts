/**
 * Throughput against a load figure, one dot per run, coloured by side with a legend; the warm-up
 * runs hollow. The takeaway is the correlation over the measured runs (issue 28 item 4: notebook
 * 05's load scatters had no legend, badge or takeaway).
 */
import * as Plot from "@observablehq/plot";
import { pearson } from "../stats/index.js";
import { renderSvg, type FigureOptions } from "./render.js";
import { MUTED, SIDE_COLORS } from "./style.js";
import { column, domainOf, optionalColumn, type Table } from "./table.js";

export interface LoadScatterOptions extends FigureOptions {
  /** Order of the sides (colours follow it); default order of first appearance. */
  sides?: string[];
  /** x axis label; default "load". */
  xLabel?: string;
  /** y axis label; default "tps". */
  yLabel?: string;
}

/** "Over the 30 measured runs, tps and load correlate at r = −0.42." (n < 3: no r). */
export function loadScatterTakeaway(load: readonly number[], tps: readonly number[], what = "the load"): string {
  if (load.length < 3) return `${load.length} measured runs: too few for a correlation.`;
  return `Over the ${load.length} measured runs, tps and ${what} correlate at r = ${pearson([...load], [...tps]).toFixed(2).replace("-", "−")}.`;
}

/**
 * Input columns: `side` (string), `load` (number), `tps` (number), `included` (boolean, optional:
 * false for warm-up runs, drawn hollow and left out of the correlation).
 */
export function loadScatterPlot(table: Table, options: LoadScatterOptions = {}): string {
  const H = "loadScatterPlot";
  const side = column(H, table, "side", "string");
  const load = column(H, table, "load", "number");
  const tps = column(H, table, "tps", "number");
  const included = optionalColumn(H, table, "included", "boolean") ?? side.map(() => true);
  const sides = domainOf(H, "side", side, options.sides);
  const rows = side.map((s, i) => ({ side: s, load: load[i]!, tps: tps[i]!, included: included[i]! }));
  const measured = rows.filter((r) => r.included);
  const legend = [...sides.map((s, i) => ({ label: s, color: SIDE_COLORS[i % SIDE_COLORS.length]! })), ...(rows.some((r) => !r.included) ? [{ label: "warm-up (hollow)", color: MUTED }] : [])];
  return renderSvg({
    width: options.width,
    height: options.height,
    ariaLabel: options.ariaLabel ?? "tps against load",
    title: options.title,
    badge: options.badge,
    takeaway: options.takeaway ?? loadScatterTakeaway(measured.map((r) => r.load), measured.map((r) => r.tps), options.xLabel ?? "the load"),
    marginLeft: 60,
    x: { label: options.xLabel ?? "load", grid: true, nice: true },
    y: { label: options.yLabel ?? "tps", grid: true, nice: true },
    color: { domain: sides, range: [...SIDE_COLORS] },
    marks: [
      Plot.dot(measured, { x: "load", y: "tps", fill: "side", r: 3.5 }),
      Plot.dot(rows.filter((r) => !r.included), { x: "load", y: "tps", stroke: MUTED, fill: "white", r: 3.5, strokeWidth: 1.5 }),
    ],
  }, { legend });
}
