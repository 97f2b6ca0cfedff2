/**
 * Run-order timeline: each side's tps in the order the runs were made, to show
 * warm-up (a cold first run), drift and outliers that a mean hides.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { MUTED, SIDE_COLORS } from "./style.js";
import { column, domainOf, optionalColumn, type Table } from "./table.js";

export interface RunTimelineOptions extends FigureOptions {
  /** Order of the sides (colours follow it); default order of first appearance. */
  sides?: string[];
  yLabel?: string;
  /** Column holding the value; default "tps". */
  value?: string;
  /** Name the sides in a colour legend under the title instead of at the end of each line (end labels of close lines overlap). */
  legend?: boolean;
}

/**
 * Input columns:
 * - `side` (string), `run` (number: 1-based position in the run order), `tps` (number,
 *   or the column named by `options.value`).
 * - `included` (boolean, optional): false for runs left out of the comparison (e.g.
 *   the cold first run); those are drawn hollow and grey and not joined by the line.
 *
 * Marks (class on their <g>): `sl-included-run` (filled circles), `sl-excluded-run` (hollow circles),
 * `sl-run-order` (one line per side), `sl-side-label`, `sl-excluded-label`.
 */
export function runTimelinePlot(table: Table, options: RunTimelineOptions = {}): string {
  const H = "runTimelinePlot";
  const valueName = options.value ?? "tps";
  const side = column(H, table, "side", "string");
  const run = column(H, table, "run", "number");
  const tps = column(H, table, valueName, "number");
  const included = optionalColumn(H, table, "included", "boolean") ?? side.map(() => true);
  const sides = domainOf(H, "side", side, options.sides);

  const rows = side
    .map((s, i) => ({ side: s, run: run[i]!, tps: tps[i]!, included: included[i]! }))
    .sort((a, b) => sides.indexOf(a.side) - sides.indexOf(b.side) || a.run - b.run);
  const kept = rows.filter((r) => r.included);
  const dropped = rows.filter((r) => !r.included);
  const lastOf = sides
    .map((s) => kept.filter((r) => r.side === s).at(-1))
    .filter((r): r is (typeof rows)[number] => r !== undefined);
  const maxRun = Math.max(...run);

  return renderSvg({
    width: options.width,
    height: options.height,
    ariaLabel: options.ariaLabel ?? "run-order timeline",
    title: options.title,
    badge: options.badge,
    takeaway: options.takeaway ?? runTimelineTakeaway(rows, sides, dropped.length),
    marginLeft: 60,
    marginRight: options.legend ? 20 : 110,
    x: { label: "run (in the order made)", domain: [Math.min(...run) - 0.5, maxRun + 0.5], ticks: Math.min(maxRun, 16), tickFormat: "d" },
    y: { label: options.yLabel ?? valueName, grid: true, nice: true },
    color: { domain: sides, range: [...SIDE_COLORS] },
    marks: [
      Plot.line(kept, { x: "run", y: "tps", z: "side", stroke: "side", strokeOpacity: 0.6, className: "sl-run-order" }),
      Plot.dot(kept, { x: "run", y: "tps", fill: "side", r: 3.5, className: "sl-included-run" }),
      Plot.dot(dropped, { x: "run", y: "tps", stroke: MUTED, fill: "white", r: 3.5, strokeWidth: 1.5, className: "sl-excluded-run" }),
      Plot.text(options.legend ? [] : dropped, { x: "run", y: "tps", text: () => "excluded", fill: MUTED, dx: 8, textAnchor: "start", className: "sl-excluded-label" }),
      Plot.text(options.legend ? [] : lastOf, { x: "run", y: "tps", text: "side", fill: "side", dx: 8, textAnchor: "start", className: "sl-side-label" }),
    ],
  }, {
    legend: options.legend
      ? [...sides.map((s, i) => ({ label: s, color: SIDE_COLORS[i % SIDE_COLORS.length]! })), ...(dropped.length > 0 ? [{ label: "excluded (hollow)", color: MUTED }] : [])]
      : undefined,
  });
}

/** One line for a run-order figure: each side's range over its included runs, and how many runs were excluded. */
export function runTimelineTakeaway(rows: readonly { side: string; tps: number; included: boolean }[], sides: readonly string[], excluded: number): string {
  const f = (v: number) => (Math.abs(v) >= 1000 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
  const bits = sides.map((s) => {
    const v = rows.filter((r) => r.side === s && r.included).map((r) => r.tps);
    return v.length ? `${s} ${f(Math.min(...v))}–${f(Math.max(...v))}` : `${s}: no included run`;
  });
  return `Range over the included runs: ${bits.join(", ")}${excluded ? `; ${excluded} run${excluded === 1 ? "" : "s"} excluded` : ""}.`;
}
