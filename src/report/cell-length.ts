/**
 * Notebook cells stay short: a code cell calls library functions (src/) and renders. The rule is
 * at most MAX_CELL_LINES lines per code cell; test/notebook-cells.test.ts applies it to every
 * notebook under notebooks/.
 */
import { basename } from "node:path";
import type { NotebookJson } from "./values.js";

export const MAX_CELL_LINES = 25;

/** Lines of a cell's source as an editor shows them (a final newline does not start another line). */
export function cellLineCount(source: string | string[]): number {
  const text = Array.isArray(source) ? source.join("") : source;
  if (text === "") return 0;
  return text.replace(/\n$/, "").split("\n").length;
}

export interface LongCell {
  notebook: string;
  /** Index of the cell in the notebook's `cells` (markdown cells counted), as the runner reports it. */
  cell: number;
  lines: number;
}

/** The code cells of a notebook longer than `max` lines. */
export function longCells(nb: NotebookJson, path: string, max: number = MAX_CELL_LINES): LongCell[] {
  const out: LongCell[] = [];
  nb.cells.forEach((c, i) => {
    if (c.cell_type !== "code") return;
    const lines = cellLineCount(c.source);
    if (lines > max) out.push({ notebook: basename(path), cell: i, lines });
  });
  return out;
}

/** "03-postgres-patch.ipynb: cell 19 has 31 lines (at most 25): move its logic into src/". */
export function describeLongCell(c: LongCell, max: number = MAX_CELL_LINES): string {
  return `${c.notebook}: cell ${c.cell} has ${c.lines} lines (at most ${max}): move its logic into src/ and call it`;
}
