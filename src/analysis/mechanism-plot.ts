/**
 * Notebook 07's figure: for each cell of the mechanism factorial, holder
 * preemptions per 1,000 holds stacked by where they happened (in the kernel:
 * page fault / elsewhere; at the return to user space: from a fault / from an
 * interrupt or syscall), beside the holds whose end a grant covered.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg } from "../plot/render.js";
import { CATEGORY_COLORS, SIZE } from "../plot/style.js";
import type { CellSummary } from "./mechanism.js";

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

export function mechanismWherePlot(cells: readonly CellSummary[], options: { width?: number; ariaLabel?: string } = {}): string {
  const rows = whereRows(cells);
  const labels = [...new Set(rows.map((r) => r.cell))];
  return renderSvg({
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
  });
}
