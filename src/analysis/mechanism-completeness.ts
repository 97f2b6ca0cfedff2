/**
 * Issue 26 item 4, "every cell has its planned runs": for a pooled group of mechanism records
 * (notebook 07 pools records of one kernel, accelerator and micro shape), per cell the runs each
 * record planned, the rows it produced, and whether the pooled rows reach the design's runs per
 * cell — the most runs any one record planned for that cell (a record that lost runs is topped up
 * by later blocks of the same shape, which plan runs of their own).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";

export interface PlannedEntry {
  id: string;
  mode?: string;
  /** The micro-benchmark's pages (4k, 4k-prefault, hugetlb). */
  pages?: string;
  /** The PostgreSQL runs' huge_pages (off, on). */
  hugePages?: string;
  extension?: string;
}

export interface CompletenessRecord {
  name: string;
  plan: readonly PlannedEntry[];
  rows: readonly { run: string; mode?: string; pages?: string; extension?: string }[];
  failed: readonly { run: string; reason: string }[];
}

export interface CellCompleteness {
  cell: string;
  /** Planned runs over all pooled records. */
  planned: number;
  /** The most runs one record planned for the cell: the design's runs per cell. */
  design: number;
  rows: number;
  /** Planned runs without a row, with their stated reasons (record/run: reason). */
  lost: string[];
  /** rows ≥ design. */
  complete: boolean;
  /** Per record: planned/rows, e.g. "20261201T215612Z 3/2". */
  byRecord: string[];
}

const cellOf = (x: { mode?: string; pages?: string; hugePages?: string; extension?: string }) =>
  `${x.mode ?? "?"} · ${x.pages ?? (x.hugePages !== undefined ? `huge_pages ${x.hugePages}` : "?")} · ext ${x.extension ?? "?"}`;

/** Per cell of the pooled records: planned, rows, lost runs (with reasons) and whether the design's count is reached. */
export function cellCompleteness(records: readonly CompletenessRecord[]): CellCompleteness[] {
  const cells = new Map<string, CellCompleteness>();
  for (const r of records) {
    const planOf = new Map(r.plan.map((p) => [p.id, p]));
    const rowIds = new Set(r.rows.map((x) => x.run));
    for (const f of r.failed) if (!planOf.has(f.run)) throw new RangeError(`${r.name}: failed run ${f.run} is not in the plan`);
    const reason = new Map(r.failed.map((f) => [f.run, f.reason]));
    const per = new Map<string, { planned: number; rows: number }>();
    for (const p of r.plan) {
      const k = cellOf(p);
      const c = cells.get(k) ?? { cell: k, planned: 0, design: 0, rows: 0, lost: [], complete: false, byRecord: [] };
      cells.set(k, c);
      const e = per.get(k) ?? { planned: 0, rows: 0 };
      per.set(k, e);
      c.planned++;
      e.planned++;
      if (rowIds.has(p.id)) {
        c.rows++;
        e.rows++;
      } else c.lost.push(`${r.name}/${p.id}: ${reason.get(p.id) ?? "no row and no stated reason"}`);
    }
    for (const x of r.rows) if (!planOf.has(x.run)) throw new RangeError(`${r.name}: row of run ${x.run} is not in the plan`);
    for (const [k, e] of per) {
      const c = cells.get(k)!;
      c.design = Math.max(c.design, e.planned);
      c.byRecord.push(`${r.name} ${e.rows}/${e.planned}`);
    }
  }
  return [...cells.values()].map((c) => ({ ...c, complete: c.rows >= c.design })).sort((a, b) => a.cell.localeCompare(b.cell));
}

/** One line on the pooled group: how many cells reach their design's runs, and which do not. */
export function completenessSentence(cells: readonly CellCompleteness[], label: string): string {
  const short = cells.filter((c) => !c.complete);
  const lost = cells.reduce((a, c) => a + c.lost.length, 0);
  const planned = cells.reduce((a, c) => a + c.planned, 0);
  const unexplained = cells.flatMap((c) => c.lost).filter((l) => l.endsWith("no row and no stated reason")).length;
  const head = `${label}: ${planned - lost} of ${planned} planned runs have a row; ${lost} without one${lost > 0 ? ` (${unexplained === 0 ? "each with its stated reason" : `${unexplained} without a stated reason`})` : ""}.`;
  return short.length === 0
    ? `${head} Pooled, every one of the ${cells.length} cells has at least its design's runs per cell (the most one record planned for it: ${[...new Set(cells.map((c) => c.design))].sort().join(" or ")}; fewest rows in a cell: ${Math.min(...cells.map((c) => c.rows))}).`
    : `${head} ${short.length} of ${cells.length} cells are short of their design's runs: ${short.map((c) => `${c.cell} (${c.rows} of ${c.design})`).join(", ")}.`;
}

/** The records of a pooled group (names, or a group's `paths`, under `root`), read from their provenance.json and rows.json. */
export function readCompletenessRecords(root: string, names: readonly string[]): CompletenessRecord[] {
  return names.map((name) => {
    const dir = existsSync(join(root, name, "out", "rows.json")) ? join(root, name, "out") : join(root, name);
    const p = join(dir, "provenance.json");
    const rp = join(dir, "rows.json");
    if (!existsSync(p) || !existsSync(rp)) throw new UserError(`${dir}: expected provenance.json and rows.json (a mechanism record)`);
    const prov = JSON.parse(readFileSync(p, "utf8")) as { plan?: PlannedEntry[]; failed?: { run: string; reason: string }[] };
    if (!Array.isArray(prov.plan)) throw new UserError(`${p}: expected a "plan" array (the record's planned runs), found ${typeof prov.plan}`);
    return { name, plan: prov.plan, rows: JSON.parse(readFileSync(rp, "utf8")), failed: prov.failed ?? [] };
  });
}
