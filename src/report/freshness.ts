/** Whether a committed notebook's outputs match a fresh execution of it. */
import { readNotebook } from "./notebooks.js";
import type { NotebookJson } from "./values.js";

const text = (s: string | string[]) => (Array.isArray(s) ? s.join("") : s);

/** The parts of a notebook that execution determines: per cell, its source and outputs. */
export function executionFingerprint(nb: NotebookJson): string {
  return JSON.stringify(nb.cells.map((c) => ({ type: c.cell_type, source: text(c.source), outputs: c.outputs ?? [] })));
}

/**
 * Cells that measure something live (a benchmark run, the running kernel) carry the tag "live" in their
 * metadata: their outputs are expected to differ from run to run, so only their source is compared.
 */
export function isLiveCell(cell: { metadata?: Record<string, unknown> }): boolean {
  const tags = cell.metadata?.tags;
  return Array.isArray(tags) && tags.includes("live");
}

/**
 * Compares the outputs of two versions of a notebook (e.g. committed vs freshly
 * executed). Returns null when equal, else a short description of the first
 * difference ("cell 4: outputs differ"). Outputs of cells tagged "live" are not compared.
 */
export function notebookOutputsDiffer(committedPath: string, executedPath: string): string | null {
  const a = readNotebook(committedPath);
  const b = readNotebook(executedPath);
  if (a.cells.length !== b.cells.length) return `${a.cells.length} cells vs ${b.cells.length}`;
  for (let i = 0; i < a.cells.length; i++) {
    const ca = a.cells[i]!;
    const cb = b.cells[i]!;
    if (text(ca.source) !== text(cb.source)) return `cell ${i}: source differs`;
    if (isLiveCell(ca)) continue;
    if (JSON.stringify(ca.outputs ?? []) !== JSON.stringify(cb.outputs ?? [])) return `cell ${i}: outputs differ`;
  }
  return null;
}
