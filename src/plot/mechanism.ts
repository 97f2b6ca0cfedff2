/**
 * Notebook 07's figure: for each cell of the mechanism factorial, holder
 * preemptions per 1,000 holds stacked by where they happened (in the kernel:
 * page fault / elsewhere; at the return to user space: from a fault / from an
 * interrupt or syscall), beside the holds whose end a grant covered.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type EvidenceBadge } from "./render.js";
import { CATEGORY_COLORS, INK, MUTED, SIZE } from "./style.js";
import type { CellSummary } from "../analysis/mechanism.js";
import { hzValidationTakeaway, type ValidationPoint } from "../analysis/mechanism-model-hz.js";

export interface MechanismFigureOptions {
  width?: number;
  ariaLabel?: string;
  title?: string;
  /** Default "emulated" (the factorial runs in a TCG guest). */
  badge?: EvidenceBadge;
}

export const WHERE = ["in kernel: page fault", "in kernel: elsewhere", "at return: from fault", "at return: interrupt/syscall", "covered by a grant"] as const;

/** Long rows (cell, where, per 1,000 holds) of the figure. */
export function whereRows(cells: readonly CellSummary[]): { cell: string; where: string; per1000: number }[] {
  return cells.flatMap((c) => {
    const label = `${c.mode} · ${c.pages} · ext ${c.extension}`;
    const r = c.rates;
    const kernelOther = r.kernel.mean - r.kernelFault.mean;
    const retOther = r.atReturn.mean - r.returnFault.mean;
    const v = [r.kernelFault.mean, kernelOther, r.returnFault.mean, retOther, r.covered.mean];
    return WHERE.map((w, i) => ({ cell: label, where: w, per1000: Math.max(0, v[i]!) }));
  });
}

/** What the where-figure shows, from the cells: the cell with most holder preemptions inside the kernel, and the most covered. */
export function mechanismWhereTakeaway(cells: readonly CellSummary[]): string {
  if (cells.length === 0) return "No cells.";
  const label = (c: CellSummary) => `${c.mode} · ${c.pages} · ext ${c.extension}`;
  const k = [...cells].sort((a, b) => b.rates.kernel.mean - a.rates.kernel.mean)[0]!;
  const cov = [...cells].sort((a, b) => b.rates.covered.mean - a.rates.covered.mean)[0]!;
  return `Most in-kernel preemptions: ${label(k)}, ${k.rates.kernel.mean.toFixed(2)} per 1,000 holds; ` +
    (cov.rates.covered.mean > 0 ? `most holds covered by a grant: ${label(cov)}, ${cov.rates.covered.mean.toFixed(2)} per 1,000.` : "no hold was covered by a grant.");
}

export function mechanismWherePlot(cells: readonly CellSummary[], options: MechanismFigureOptions = {}): string {
  const rows = whereRows(cells);
  const labels = [...new Set(rows.map((r) => r.cell))];
  return renderSvg({
    title: options.title ?? "Where lock holders were preempted, per cell (mean over runs)",
    badge: options.badge ?? "emulated",
    takeaway: mechanismWhereTakeaway(cells),
    width: options.width ?? SIZE.width,
    height: Math.max(180, 60 + labels.length * 26),
    ariaLabel: options.ariaLabel ?? "holder preemptions per 1,000 holds by where they happened, per cell",
    marginLeft: 170,
    y: { domain: labels, label: null },
    x: { label: "per 1,000 holds (mean over runs)", grid: true, nice: true },
    color: { domain: [...WHERE], range: CATEGORY_COLORS.slice(0, WHERE.length), legend: false },
    marks: [
      Plot.barX(rows, Plot.stackX({ y: "cell", x: "per1000", fill: "where", order: [...WHERE], className: "sl-where" })),
      Plot.ruleX([0]),
    ],
  }, { legend: WHERE.map((w, i) => ({ label: w, color: CATEGORY_COLORS[i]! })) });
}

/** Rows of the share figure: per cell, the in-kernel share (extension off) or the covered fraction (on), in %, with its bootstrap interval. */
export function shareRows(cells: readonly CellSummary[]): { cell: string; measure: string; pct: number; lo: number; hi: number; n: number; label: string }[] {
  return cells.flatMap((c) => {
    const cell = `${c.mode} · ${c.pages} · ext ${c.extension}`;
    const out = [{ cell, measure: "in-kernel share of holder preemptions", i: c.inKernelShare }];
    if (c.extension === "on") out.push({ cell, measure: "covered fraction (holds a grant covered)", i: c.coveredFraction });
    return out
      .filter((x) => Number.isFinite(x.i.mean))
      .map((x) => ({
        cell: x.cell,
        measure: x.measure,
        pct: 100 * x.i.mean,
        lo: 100 * (Number.isFinite(x.i.lo) ? x.i.lo : x.i.mean),
        hi: 100 * (Number.isFinite(x.i.hi) ? x.i.hi : x.i.mean),
        n: c.runs,
        label: Number.isFinite(x.i.lo) ? `${(100 * x.i.mean).toFixed(0)}% (${(100 * x.i.lo).toFixed(0)}–${(100 * x.i.hi).toFixed(0)})` : `${(100 * x.i.mean).toFixed(0)}% (n = ${c.runs})`,
      }));
  });
}

/** What the share figure shows: the 4 KB extension-off in-kernel shares and the 4 KB extension-on covered fractions. */
export function mechanismShareTakeaway(cells: readonly CellSummary[]): string {
  const f = (c: CellSummary, k: "inKernelShare" | "coveredFraction") => `${(100 * c[k].mean).toFixed(0)}% (${(100 * c[k].lo).toFixed(0)}–${(100 * c[k].hi).toFixed(0)}) ${c.mode}`;
  const off = cells.filter((c) => c.pages === "4k" && c.extension === "off" && Number.isFinite(c.inKernelShare.lo));
  const on = cells.filter((c) => c.pages === "4k" && c.extension === "on" && Number.isFinite(c.coveredFraction.lo));
  const a = off.length ? `4 KB pages, extension off: ${off.map((c) => f(c, "inKernelShare")).join(", ")} of holder preemptions inside the kernel` : "no 4 KB extension-off cell with an interval";
  const b = on.length ? `; extension on: grants covered ${on.map((c) => f(c, "coveredFraction")).join(", ")}` : "";
  return `${a}${b}.`;
}

/** Notebook 07's interval figure: per cell, the in-kernel share and (extension on) the covered fraction in %, dot and 95 % bootstrap interval. */
export function mechanismSharePlot(cells: readonly CellSummary[], options: MechanismFigureOptions = {}): string {
  const rows = shareRows(cells);
  const labels = [...new Set(rows.map((r) => r.cell))];
  const measures = ["in-kernel share of holder preemptions", "covered fraction (holds a grant covered)"];
  const colors = [CATEGORY_COLORS[0]!, CATEGORY_COLORS[4]!];
  return renderSvg({
    title: options.title ?? "In-kernel share and covered fraction per cell, with 95 % bootstrap intervals over runs",
    badge: options.badge ?? "emulated",
    takeaway: mechanismShareTakeaway(cells),
    width: options.width ?? SIZE.width,
    height: Math.max(200, 70 + labels.length * 30),
    ariaLabel: options.ariaLabel ?? "in-kernel share and covered fraction per cell with intervals",
    marginLeft: 170,
    marginRight: 20,
    y: { domain: labels, label: null, padding: 0.3 },
    x: { label: "% (of holder preemptions; of the holds the kernel wanted to preempt)", domain: [0, 100], grid: true },
    color: { domain: measures, range: colors },
    marks: [
      ...measures.flatMap((m, i) => {
        const own = rows.filter((r) => r.measure === m);
        const dy = i === 0 ? -5 : 5;
        return [
          Plot.ruleY(own, { y: "cell", x1: "lo", x2: "hi", dy, stroke: "measure", strokeWidth: 2, className: "sl-share-interval" }),
          Plot.dot(own, { x: "pct", y: "cell", dy, fill: "measure", r: 3.5, className: "sl-share-dot" }),
        ];
      }),
      Plot.ruleX([0], { stroke: MUTED }),
      Plot.frame({ stroke: INK, strokeOpacity: 0.15 }),
    ],
  }, { legend: measures.map((m, i) => ({ label: m, color: colors[i]! })) });
}

// ---- issue 26 item 6: the model against the emulator at every recorded HZ ----

export interface HzFigureOptions {
  width?: number;
  title?: string;
  badge?: EvidenceBadge;
}

const MODE_COLORS: Record<string, string> = { full: CATEGORY_COLORS[0]!, lazy: CATEGORY_COLORS[1]! };
const HZ_SYMBOLS = ["circle", "square", "triangle", "diamond"] as const;

/** Predicted against observed in-kernel share per cell, one mark per cell and HZ, the observed 95 % interval as a vertical rule, y = x for reference. */
export function hzValidationPlot(points: readonly ValidationPoint[], o: HzFigureOptions = {}): string {
  const hzs = [...new Set(points.map((p) => p.hz))].sort((a, b) => a - b);
  const rows = points.map((p) => ({ ...p, predictedPct: 100 * p.predicted, observedPct: 100 * p.observed, loPct: 100 * p.lo, hiPct: 100 * p.hi, series: `${p.mode}, HZ ${p.hz}` }));
  const top = Math.max(10, ...rows.map((r) => Math.max(r.predictedPct, r.hiPct))) * 1.05;
  const legend = hzs.flatMap((hz) => ["full", "lazy"].filter((m) => points.some((p) => p.mode === m && p.hz === hz)).map((m) => ({ label: `${m}, HZ ${hz} (${HZ_SYMBOLS[hzs.indexOf(hz) % HZ_SYMBOLS.length]})`, color: MODE_COLORS[m] ?? MUTED })));
  return renderSvg(
    {
      width: o.width ?? SIZE.width,
      height: 340,
      ariaLabel: "in-kernel share of holder preemptions per cell: the model's prediction against the observed share with its 95 % interval, per mode and HZ",
      marginLeft: 56,
      x: { label: "predicted in-kernel share (%)", domain: [0, top], grid: true },
      y: { label: "observed in-kernel share (%)", domain: [0, top], grid: true },
      color: { domain: Object.keys(MODE_COLORS), range: Object.values(MODE_COLORS), legend: false },
      symbol: { domain: hzs.map(String), range: hzs.map((_, i) => HZ_SYMBOLS[i % HZ_SYMBOLS.length]!), legend: false },
      marks: [
        Plot.line([[0, 0], [top, top]], { stroke: MUTED, strokeDasharray: "4,3" }),
        Plot.ruleX(rows, { x: "predictedPct", y1: "loPct", y2: "hiPct", stroke: "mode", strokeOpacity: 0.6 }),
        Plot.dot(rows, { x: "predictedPct", y: "observedPct", stroke: "mode", fill: "mode", fillOpacity: 0.35, symbol: (d: { hz: number }) => String(d.hz), r: 3.5 }),
        Plot.ruleY([0], { stroke: INK }),
      ],
    },
    {
      title: o.title ?? "The model against the emulator: predicted and observed in-kernel share of holder preemptions, per cell",
      badge: o.badge ?? "emulated (icount)",
      legend,
      takeaway: hzValidationTakeaway(points),
    },
  );
}
