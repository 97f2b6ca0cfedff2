/**
 * tps per run for both sides of a comparison: one dot per run, and beside them the
 * mean with its confidence interval.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { INK, SIDE_COLORS } from "./style.js";
import { column, domainOf, optionalColumn, type Table } from "./table.js";
import { meanInterval, type MeanInterval } from "./interval.js";

export interface TpsRunsOptions extends FigureOptions {
  /** Order of the sides left to right; default order of first appearance. */
  sides?: string[];
  /** Confidence level of the interval drawn beside the runs; default 0.95. */
  level?: number;
  /** y axis label; default "tps". */
  yLabel?: string;
  /** Column holding the value; default "tps" (e.g. "sql_per_s" for other workloads). */
  value?: string;
}

/** One side's summary as drawn (exported so notebooks can print the same numbers). */
export interface SideSummary extends MeanInterval {
  side: string;
}

/**
 * Input columns:
 * - `side` (string): which configuration the run belongs to, e.g. "without patch".
 * - `tps` (number, or the column named by `options.value`): the run's throughput.
 * - `run` (number, optional): run order within the side; dots are spread left to
 *   right in this order (default: row order).
 *
 * Marks (class on their <g>): `sl-run` (one circle per row), `sl-mean` (one circle per side),
 * `sl-interval` (one rule per side).
 */
export function tpsRunsPlot(table: Table, options: TpsRunsOptions = {}): string {
  const H = "tpsRunsPlot";
  const valueName = options.value ?? "tps";
  const side = column(H, table, "side", "string");
  const tps = column(H, table, valueName, "number");
  const run = optionalColumn(H, table, "run", "number") ?? side.map((_, i) => i);
  const sides = domainOf(H, "side", side, options.sides);
  const level = options.level ?? 0.95;

  // Spread each side's runs over [i − 0.35, i + 0.05] in run order; the mean sits at i + 0.22.
  const points = side.map((s, i) => ({ side: s, tps: tps[i]!, run: run[i]!, x: 0 }));
  const summaries: SideSummary[] = [];
  sides.forEach((s, si) => {
    const own = points.filter((p) => p.side === s).sort((a, b) => a.run - b.run);
    own.forEach((p, k) => {
      p.x = si - 0.35 + (own.length > 1 ? (0.4 * k) / (own.length - 1) : 0.2);
    });
    summaries.push({ side: s, ...meanInterval(own.map((p) => p.tps), level) });
  });
  const means = summaries.map((m, si) => ({ ...m, x: si + 0.22, label: `${fmt(m.mean)} ± ${fmt((m.hi - m.lo) / 2)}` }));
  const takeaway = options.takeaway ?? tpsRunsTakeaway(summaries, valueName);

  return renderSvg({
    width: options.width,
    height: options.height,
    ariaLabel: options.ariaLabel ?? "tps per run",
    title: options.title,
    badge: options.badge,
    takeaway,
    marginLeft: 60,
    x: {
      domain: [-0.6, sides.length - 0.4],
      ticks: sides.map((_, i) => i),
      tickFormat: (i: number) => sides[i] ?? "",
      label: null,
    },
    y: { label: options.yLabel ?? valueName, grid: true, nice: true },
    color: { domain: sides, range: [...SIDE_COLORS] },
    marks: [
      Plot.dot(points, { x: "x", y: "tps", fill: "side", r: 3.5, fillOpacity: 0.8, className: "sl-run" }),
      Plot.ruleX(means, { x: "x", y1: "lo", y2: "hi", stroke: INK, strokeWidth: 2, className: "sl-interval" }),
      Plot.dot(means, { x: "x", y: "mean", fill: INK, r: 4.5, className: "sl-mean" }),
      Plot.text(means, { x: "x", y: "mean", text: "label", dx: 8, textAnchor: "start", className: "sl-mean-label" }),
    ],
  });
}

/** Per-side mean and interval exactly as {@link tpsRunsPlot} draws them. */
export function tpsRunsSummary(table: Table, options: Pick<TpsRunsOptions, "sides" | "level" | "value"> = {}): SideSummary[] {
  const H = "tpsRunsSummary";
  const side = column(H, table, "side", "string");
  const tps = column(H, table, options.value ?? "tps", "number");
  return domainOf(H, "side", side, options.sides).map((s) => ({
    side: s,
    ...meanInterval(tps.filter((_, i) => side[i] === s), options.level ?? 0.95),
  }));
}

function fmt(v: number): string {
  const digits = Math.abs(v) >= 1000 ? 0 : Math.abs(v) >= 10 ? 1 : 3;
  return v.toFixed(digits);
}

/** One line for a tps-runs figure: each side's mean and runs, and the last side against the first in %. */
export function tpsRunsTakeaway(summaries: readonly SideSummary[], unit = "tps"): string {
  const bits = summaries.map((m) => `${m.side} ${fmt(m.mean)} ${unit} (${m.n} runs)`);
  const a = summaries[0];
  const b = summaries.at(-1);
  const diff = a && b && a !== b && a.mean !== 0 ? `; ${b.side} − ${a.side}: ${((b.mean / a.mean - 1) * 100 >= 0 ? "+" : "")}${((b.mean / a.mean - 1) * 100).toFixed(2)} %` : "";
  return `Means: ${bits.join(", ")}${diff}.`;
}
