/**
 * perf profile shares before/after a change: for each symbol, one bar per phase,
 * labelled with its value.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { CATEGORY_COLORS, SIDE_COLORS, SIZE } from "./style.js";
import { column, domainOf, type Table } from "./table.js";

export interface PerfSharesOptions extends FigureOptions {
  /** Order of the phases top to bottom within a symbol; default order of first appearance. */
  phases?: string[];
  /** Order of the symbols; default order of first appearance. */
  symbols?: string[];
  /** Column holding the share; default "children" (perf's inclusive "Children" %). */
  value?: string;
  xLabel?: string;
  /**
   * Phases by colour with a legend under the title instead of as tick labels on the y axis (long phase
   * names, e.g. "kernel 7f588d8f73…" or "oltp_read_only, 8 threads", no longer clipped by the margin).
   */
  legend?: boolean;
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
  const colors = phases.length > SIDE_COLORS.length ? [...CATEGORY_COLORS] : [...SIDE_COLORS];
  const legend = options.legend ? phases.map((p, i) => ({ label: p, color: colors[i % colors.length]! })) : undefined;
  // The value labels sit right of the bars: leave room for the widest ("43.20%").
  const maxShare = Math.max(...share.filter(Number.isFinite), 0);

  return renderSvg({
    width: options.width ?? SIZE.width,
    height,
    ariaLabel: options.ariaLabel ?? "perf shares before/after",
    title: options.title,
    badge: options.badge,
    takeaway: options.takeaway ?? perfSharesTakeaway(table, { phases: options.phases, symbols: options.symbols, value: valueName }),
    marginLeft: options.legend ? 20 : 70,
    marginRight: 60,
    fy: { domain: symbols, label: null, padding: 0.1, axis: null },
    y: { domain: phases, label: null, padding: 0.1, insetTop: 18, axis: options.legend ? null : undefined },
    x: { label: options.xLabel ?? `${valueName} (% of samples)`, grid: true, nice: true, domain: options.legend ? [0, maxShare * 1.12 || 1] : undefined },
    color: { domain: phases, range: colors },
    facet: { label: null },
    marks: [
      Plot.barX(rows, { fy: "symbol", y: "phase", x: "share", fill: "phase", className: "sl-share" }),
      Plot.text(rows, { fy: "symbol", y: "phase", x: "share", text: "label", dx: 4, textAnchor: "start", className: "sl-share-label" }),
      Plot.ruleX([0]),
      Plot.text(symbols, { fy: (d: string) => d, text: (d: string) => d, frameAnchor: "top-left", dy: 2, fontWeight: "bold", className: "sl-symbol-label" }),
    ],
  }, { legend });
}

/**
 * One line saying what a perf-shares figure shows, from its rows: with two or more phases, the
 * symbol whose share changed most from the first phase to the last; with one phase, the largest share.
 */
export function perfSharesTakeaway(table: Table, options: Pick<PerfSharesOptions, "phases" | "symbols" | "value"> = {}): string {
  const H = "perfSharesTakeaway";
  const valueName = options.value ?? "children";
  const symbol = column(H, table, "symbol", "string");
  const phase = column(H, table, "phase", "string");
  const share = column(H, table, valueName, "number");
  const phases = domainOf(H, "phase", phase, options.phases);
  const symbols = domainOf(H, "symbol", symbol, options.symbols);
  const get = (s: string, p: string) => share[symbol.findIndex((x, i) => x === s && phase[i] === p)];
  const f = (x: number) => `${x.toFixed(2)}%`;
  if (phases.length < 2) {
    const best = symbols.map((s) => ({ s, v: get(s, phases[0]!) ?? NaN })).filter((x) => Number.isFinite(x.v)).sort((a, b) => b.v - a.v)[0];
    return best ? `Largest: ${best.s}, ${f(best.v)} (${phases[0]}).` : "No shares.";
  }
  const [a, b] = [phases[0]!, phases.at(-1)!];
  const ch = symbols
    .map((s) => ({ s, x: get(s, a), y: get(s, b) }))
    .filter((c): c is { s: string; x: number; y: number } => Number.isFinite(c.x) && Number.isFinite(c.y))
    .sort((p, q) => Math.abs(q.y - q.x) - Math.abs(p.y - p.x))[0];
  return ch ? `Largest change: ${ch.s}, ${f(ch.x)} (${a}) → ${f(ch.y)} (${b}).` : "No symbol has a share in both phases.";
}
