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

/** The class of the element that wraps machine facts (src/report/notebook.ts, machineFacts). */
export const MACHINE_FACTS_CLASS = "sl-machine";

type Output = { output_type?: string; data?: Record<string, unknown> };

/**
 * The rule for what a freshness check leaves out: an output is a machine fact when it is display
 * data whose only HTML is one element of class MACHINE_FACTS_CLASS (what `machineFacts` writes).
 * Everything else a cell shows — tables and prose computed from committed records, recorded
 * values, figures — is what the notebook claims, and must match.
 */
export function isMachineFact(output: Output): boolean {
  if (output.output_type !== "display_data" || !output.data) return false;
  const keys = Object.keys(output.data);
  if (keys.length !== 1 || keys[0] !== "text/html") return false;
  const html = text(output.data["text/html"] as string | string[]);
  return html.startsWith(`<div class="${MACHINE_FACTS_CLASS}">`) && html.endsWith("</div>");
}

/** A cell's outputs as the freshness check compares them: machine facts reduced to their place. */
export function comparableOutputs(outputs: Output[]): unknown[] {
  return outputs.map((o) => (isMachineFact(o) ? { machineFact: true } : o));
}

/**
 * Compares the outputs of two versions of a notebook (e.g. committed vs freshly
 * executed). Returns null when equal, else a short description of the first
 * difference ("cell 4: outputs differ"). Outputs of cells tagged "live" are not compared, and
 * machine facts (isMachineFact) only by their place.
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
    const oa = comparableOutputs((ca.outputs ?? []) as Output[]);
    const ob = comparableOutputs((cb.outputs ?? []) as Output[]);
    if (JSON.stringify(oa) !== JSON.stringify(ob)) return `cell ${i}: outputs differ`;
  }
  return null;
}
