/**
 * Empirical cumulative distribution of each side's values: the whole distribution,
 * not just a mean, so a reader sees a shift (curves apart) and a spread change
 * (slopes differ).
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { SIDE_COLORS } from "./style.js";
import { column, domainOf, type Table } from "./table.js";

export interface EcdfOptions extends FigureOptions {
  sides?: string[];
  xLabel?: string;
  /** Column holding the values; default "tps". */
  value?: string;
  /** "log" for values spread over decades (e.g. grant durations from 1 µs to 1 s); values must be > 0. Default linear. */
  xType?: "linear" | "log";
  /** What the values are, for the y axis: default "runs" ("proportion of runs ≤ x"). */
  of?: string;
}

/** One step of an ECDF: the proportion of the side's values ≤ `value`. */
export interface EcdfPoint {
  side: string;
  value: number;
  p: number;
}

/** The ECDF steps of each side, sorted by value (ties keep the highest proportion). */
export function ecdfPoints(side: string[], value: number[]): EcdfPoint[] {
  const out: EcdfPoint[] = [];
  for (const s of [...new Set(side)]) {
    const v = value.filter((_, i) => side[i] === s).sort((a, b) => a - b);
    v.forEach((x, k) => {
      if (k + 1 < v.length && v[k + 1] === x) return;
      out.push({ side: s, value: x, p: (k + 1) / v.length });
    });
  }
  return out;
}

/**
 * Input columns: `side` (string), `tps` (number, or the column named by `options.value`).
 *
 * Marks (class on their <g>): `sl-ecdf` (one step line per side), `sl-observation` (one circle per
 * distinct value per side), `sl-side-label`.
 */
export function ecdfPlot(table: Table, options: EcdfOptions = {}): string {
  const H = "ecdfPlot";
  const valueName = options.value ?? "tps";
  const side = column(H, table, "side", "string");
  const value = column(H, table, valueName, "number");
  if (options.xType === "log") {
    const bad = value.findIndex((v) => !(v > 0));
    if (bad >= 0) throw new Error(`${H}: a log axis needs values > 0, row ${bad} has ${valueName} = ${value[bad]}`);
  }
  const sides = domainOf(H, "side", side, options.sides);
  const points = ecdfPoints(side, value).sort((a, b) => sides.indexOf(a.side) - sides.indexOf(b.side) || a.value - b.value);
  // Start each curve at 0 just left of its smallest value, so the first step is visible.
  const starts = sides.map((s) => {
    const first = points.find((p) => p.side === s)!;
    return { side: s, value: first.value, p: 0 };
  });
  const lines = sides.flatMap((s) => [starts.find((p) => p.side === s)!, ...points.filter((p) => p.side === s)]);
  // A legend in the top-left corner, where cumulative curves never are.
  const xMin = Math.min(...points.map((p) => p.value));
  // Below the y axis's own label, which sits at the top left.
  const labels = sides.map((s, i) => ({ side: s, value: xMin, p: 0.9 - i * 0.08 }));

  return renderSvg({
    width: options.width,
    height: options.height,
    ariaLabel: options.ariaLabel ?? "empirical cumulative distribution",
    title: options.title,
    badge: options.badge,
    takeaway: options.takeaway ?? ecdfTakeaway(table, { sides, value: valueName, of: options.of }),
    marginRight: 30,
    marginLeft: 50,
    x: { label: options.xLabel ?? valueName, nice: true, grid: true, type: options.xType ?? "linear" },
    y: { label: `proportion of ${options.of ?? "runs"} ≤ x`, domain: [0, 1], grid: true },
    color: { domain: sides, range: [...SIDE_COLORS] },
    marks: [
      Plot.line(lines, { x: "value", y: "p", z: "side", stroke: "side", curve: "step-after", strokeWidth: 1.5, className: "sl-ecdf" }),
      Plot.dot(points, { x: "value", y: "p", fill: "side", r: 2.5, className: "sl-observation" }),
      Plot.text(labels, { x: "value", y: "p", text: (d: { side: string }) => `— ${d.side}`, fill: "side", textAnchor: "start", className: "sl-side-label" }),
    ],
  });
}

/** One line saying what an ECDF figure shows: each side's median and how many values it has. */
export function ecdfTakeaway(table: Table, options: Pick<EcdfOptions, "sides" | "value" | "of"> & { unit?: string } = {}): string {
  const H = "ecdfTakeaway";
  const valueName = options.value ?? "tps";
  const side = column(H, table, "side", "string");
  const value = column(H, table, valueName, "number");
  const sides = domainOf(H, "side", side, options.sides);
  const unit = options.unit ? ` ${options.unit}` : "";
  const bits = sides.map((s) => {
    const v = value.filter((_, i) => side[i] === s).sort((x, y) => x - y);
    const med = v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
    const d = Math.abs(med) >= 100 ? 0 : Math.abs(med) >= 10 ? 1 : 2;
    return `${s} ${med.toFixed(d)}${unit} (${v.length} ${options.of ?? "runs"})`;
  });
  return `Medians: ${bits.join(", ")}.`;
}
