/**
 * Notebook 03's small computations, moved out of its cells (issue 28 item 12): the per-file hunk counts
 * of the 15 and 18 series, whether their new files are identical, the CPU-cost table and the goal rule.
 */
import type { PatchFile } from "../postgres/patch.js";

/** "N hunk(s), +A −R" for one file of a patch, or "—" when the patch does not touch it. */
export function patchFileCell(p: PatchFile, path: string): string {
  const f = p.files.find((x) => x.path === path);
  if (!f) return "—";
  const lines = f.hunks.flatMap((h) => h.lines);
  const count = (c: string) => lines.filter((l) => l.startsWith(c)).length;
  return `${f.hunks.length} hunk(s), +${count("+")} −${count("-")}`;
}

/** The rows of the file table: every file either series touches, with its cell for 15 and for 18. */
export function patchFileRows(p15: PatchFile, p18: PatchFile): string[][] {
  const files = [...new Set([...p15.files, ...p18.files].map((f) => f.path))].sort();
  return files.map((f) => [f, patchFileCell(p15, f), patchFileCell(p18, f)]);
}

/** True when every file in `paths` has the same lines in both series (and exists in both). */
export function sameFiles(a: PatchFile, b: PatchFile, paths: readonly string[]): boolean {
  const text = (p: PatchFile, path: string) => p.files.find((f) => f.path === path)?.hunks.flatMap((h) => h.lines).join("\n");
  return paths.every((path) => {
    const x = text(a, path);
    return x !== undefined && x === text(b, path);
  });
}

/** An added cost is within the goal when its 95 % interval's upper end is. */
export const withinGoal = (x: { ci: readonly number[] }, goal: number): boolean => x.ci[1]! <= goal;

const signedPct = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;

/** The CPU-time cost summary (data/runs/patch-cost/…/summary.json of patch-cost-cpu) as the notebook's table rows. */
export function cpuCostRows(c: {
  cpuUsPerTransaction: Record<"baseline" | "off" | "on", { mean: number; n: number }>;
  pairedPct: Record<"off" | "on", { mean: number; ci: [number, number]; n: number }>;
}): (string | number)[][] {
  const arm = (name: string, k: "off" | "on") => [name, c.cpuUsPerTransaction[k].mean.toFixed(2), signedPct(c.pairedPct[k].mean), `${signedPct(c.pairedPct[k].ci[0])} … ${signedPct(c.pairedPct[k].ci[1])}`, c.pairedPct[k].n];
  return [["unpatched", c.cpuUsPerTransaction.baseline.mean.toFixed(2), "", "", c.cpuUsPerTransaction.baseline.n], arm("patched, slice_extension = off", "off"), arm("patched, slice_extension = all", "on")];
}
