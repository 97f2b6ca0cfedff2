/**
 * Figure of a traced run (src/study/drivers/slice-trace.ts): the grant-duration histograms of the
 * two methods, side by side on octave bins (log x axis), one facet row per
 * method. Input: the `histograms` list of SliceTraceAnalysis (outcome "all").
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { SIDE_COLORS } from "./style.js";
import type { HistogramBin } from "../parse/slice-trace.js";

export interface GrantHistogramOptions extends FigureOptions {
  /** Upper edge (ns) drawn for the last, open bin: default twice its lower edge. */
  openBinFactor?: number;
}

/** One bar per non-empty bin; x in µs on a log scale; the open last bin is drawn one octave wide. */
export function grantHistogramPlot(
  histograms: { method: string; outcome: string; bins: HistogramBin[] }[],
  options: GrantHistogramOptions = {},
): string {
  const methods = [...new Set(histograms.map((h) => h.method))];
  const rows = histograms
    .filter((h) => h.outcome === "all")
    .flatMap((h) =>
      h.bins
        .filter((b) => b.count > 0)
        .map((b) => ({
          method: h.method,
          lo: Math.max(b.loNs, 1) / 1000,
          hi: (b.hiNs ?? b.loNs * (options.openBinFactor ?? 2)) / 1000,
          count: b.count,
        })),
    );
  if (rows.length === 0) throw new Error("grantHistogramPlot: no non-empty bins");
  return renderSvg(
    {
      width: options.width,
      height: options.height ?? 140 * methods.length + 60,
      ariaLabel: options.ariaLabel ?? "grant durations: tracepoints vs hrtimer method",
      marginLeft: 60,
      // Room for the facet labels ("tracepoints", "hrtimer") right of the plot.
      marginRight: 86,
      x: { type: "log", label: "grant duration (µs, octave bins)", grid: true },
      y: { label: "grants", grid: true },
      fy: { label: null, domain: methods },
      color: { domain: methods, range: [...SIDE_COLORS] },
      marks: [
        Plot.rectY(rows, { x1: "lo", x2: "hi", y: "count", fy: "method", fill: "method", inset: 0.5, className: "sl-bar" }),
        Plot.ruleY([0]),
      ],
    },
    {
      title: options.title,
      badge: options.badge,
      takeaway: options.takeaway ?? `Grants per method: ${methods.map((m) => `${m} ${rows.filter((r) => r.method === m).reduce((a, r) => a + r.count, 0)}`).join(", ")}; most in the ${methods.map((m) => { const top = rows.filter((r) => r.method === m).sort((a, b) => b.count - a.count)[0]; return top ? `${m} bin ${top.lo.toFixed(0)}–${top.hi.toFixed(0)} µs` : m; }).join(", ")}.`,
    },
  );
}
