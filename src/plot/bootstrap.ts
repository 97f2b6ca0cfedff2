/**
 * Bootstrap distribution of a difference: a histogram of the replicates with the
 * confidence interval's bounds, the observed value and zero marked, so a reader
 * sees at once whether "no difference" is inside the interval.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { INK, MUTED, SIDE_COLORS } from "./style.js";
import { column, type Table } from "./table.js";

export interface BootstrapOptions extends FigureOptions {
  /** The interval to draw, e.g. the percentile CI of the same replicates. */
  ci?: [number, number];
  /** The difference computed from the data itself (not resampled). */
  observed?: number;
  /** Number of histogram bins (approximate: Plot rounds to nice thresholds); default 40. */
  bins?: number;
  xLabel?: string;
  /** Column holding the replicates; default "diff". */
  value?: string;
}

/**
 * Input columns:
 * - `diff` (number, or the column named by `options.value`): one bootstrap replicate
 *   of the difference per row (e.g. difference of means in %). Supply the replicates
 *   of a seeded bootstrap so the figure is reproducible.
 *
 * Marks (class on their <g>): `sl-replicates` (histogram bars), `sl-zero`, `sl-interval-bound` (two
 * dashed rules when `ci` is given), `sl-observed` (when `sl-observed` is given).
 */
export function bootstrapPlot(table: Table, options: BootstrapOptions = {}): string {
  const H = "bootstrapPlot";
  const valueName = options.value ?? "diff";
  const diff = column(H, table, valueName, "number");
  if (diff.length === 0) throw new Error(`${H}: no replicates in column "${valueName}"`);
  const rows = diff.map((d) => ({ d }));
  const lo = Math.min(...diff, 0, ...(options.ci ?? []), options.observed ?? 0);
  const hi = Math.max(...diff, 0, ...(options.ci ?? []), options.observed ?? 0);
  const marks: Plot.Markish[] = [
    Plot.rectY(rows, Plot.binX<Plot.RectYOptions>({ y: "count" }, { x: "d", thresholds: options.bins ?? 40, fill: SIDE_COLORS[0], fillOpacity: 0.7, className: "sl-replicates" })),
    Plot.ruleY([0]),
    Plot.ruleX([0], { stroke: MUTED, className: "sl-zero" }),
  ];
  if (options.ci) {
    const [a, b] = options.ci;
    const bounds = [
      { x: a, label: `${fmt(a)}` },
      { x: b, label: `${fmt(b)}` },
    ];
    marks.push(
      Plot.ruleX(bounds, { x: "x", stroke: INK, strokeDasharray: "4,3", className: "sl-interval-bound" }),
      Plot.text(bounds, { x: "x", text: "label", frameAnchor: "top", dy: -2, lineAnchor: "bottom", className: "sl-interval-label" }),
    );
  }
  if (options.observed !== undefined) {
    marks.push(Plot.ruleX([options.observed], { stroke: SIDE_COLORS[1], strokeWidth: 2, className: "sl-observed" }));
  }
  return renderSvg({
    width: options.width,
    height: options.height,
    ariaLabel: options.ariaLabel ?? "bootstrap distribution",
    title: options.title,
    badge: options.badge,
    takeaway: options.takeaway ?? bootstrapTakeaway(diff.length, options.ci, options.observed),
    marginTop: 30,
    x: { label: options.xLabel ?? valueName, domain: [lo, hi], nice: true },
    y: { label: "replicates", grid: true },
    marks,
  });
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);
}

/** One line for a bootstrap figure: how many replicates, the interval and whether it includes 0, the observed value. */
export function bootstrapTakeaway(replicates: number, ci?: [number, number], observed?: number): string {
  const parts = [`${replicates} replicates`];
  if (ci) parts.push(`interval [${fmt(ci[0])}, ${fmt(ci[1])}] ${ci[0] <= 0 && ci[1] >= 0 ? "includes" : "excludes"} 0`);
  if (observed !== undefined) parts.push(`observed ${fmt(observed)}`);
  return `${parts.join("; ")}.`;
}
