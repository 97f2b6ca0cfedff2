import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { tQuantile } from "../../stats/distributions.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { readJson } from "../../util/json.js";
import { currentPath } from "../../record/move.js";

/**
 * The side-by-side of the vm-eviction batches (studies/vm-eviction.json): preemption mode ×
 * slice_extension. A comparison record holds cells.json (mode, kernel, the series directory
 * of every cell, optionally a sensitivity subset); this runs `slicelab compare --json` for
 * every comparison — within each mode extension off (A) vs on (B), and across every pair of
 * modes with the extension setting kept — and tabulates, per cell and variant, what the
 * patched server reported about the extension (result.json → workloads[].sliceExtension).
 * It writes comparisons/NAME.json, derived/CELL.csv (the sensitivity subset), summary.json
 * and table.md. Paths in cells.json may name a record by its former place (before
 * `slicelab record convert`); they are resolved to where the record is now.
 */

interface Cell {
  mode: string;
  kernel: string;
  dir: string;
}
interface Sensitivity {
  file: string;
  column: string;
  value: string;
  why: string;
}
interface CompareResult {
  a: { n: number; mean: number; sd: number; cv: number };
  b: { n: number; mean: number; sd: number; cv: number };
  welch: { differencePct: number; ciPct: [number, number]; p: number };
  bootstrap: { meanDiffPct: { lo: number; hi: number } };
  power: { minimumDetectableEffectPct: number };
  verdict: string;
}
interface Comparison {
  kind: "extension" | "mode";
  mode?: string;
  variant?: string;
  a?: string;
  b?: string;
  name: string;
  args: string[];
  result: CompareResult;
  text: string;
}

export interface EvictionComparison {
  /** comparisons/NAME.json and derived/CELL.csv: path relative to the record → text. */
  files: Map<string, string>;
  summary: unknown;
  table: string;
}

function compareRun(repo: string, name: string, aCsv: string, aVariant: string, bCsv: string, bVariant: string, extraWhere: string[]): Omit<Comparison, "kind"> {
  const args = ["bin/slicelab.js", "compare", "--json"];
  const more = extraWhere.flatMap((w) => ["--where", w]);
  if (aCsv === bCsv) args.push(aCsv, "--by", `variant=${aVariant},${bVariant}`, "--where", "warmup=false", ...more);
  else args.push("--a", aCsv, "--b", bCsv, "--where", "warmup=false", "--where", `variant=${aVariant}`, ...more);
  if (aCsv !== bCsv && aVariant !== bVariant) throw new UserError("cross-cell comparisons keep the variant");
  const text = execFileSync(process.execPath, args, { cwd: repo, encoding: "utf8" });
  return { name, args: args.slice(1), result: JSON.parse(text) as CompareResult, text };
}

function allComparisons(repo: string, cells: Cell[], csv: (c: Cell) => string, prefix = "", extraWhere: string[] = []): Comparison[] {
  const out: Comparison[] = [];
  for (const c of cells) out.push({ kind: "extension", mode: c.mode, ...compareRun(repo, `${prefix}${c.mode}-off-vs-on`, csv(c), "off", csv(c), "on", extraWhere) });
  for (const v of ["off", "on"]) {
    for (let i = 0; i < cells.length; i++) {
      for (let j = i + 1; j < cells.length; j++) {
        const [a, b] = [cells[i] as Cell, cells[j] as Cell];
        out.push({ kind: "mode", variant: v, a: a.mode, b: b.mode, ...compareRun(repo, `${prefix}${v}-${a.mode}-vs-${b.mode}`, csv(a), v, csv(b), v, extraWhere) });
      }
    }
  }
  return out;
}

function cellStats(s: CompareResult["a"]) {
  const half = s.n > 1 ? tQuantile(0.975, s.n - 1) * (s.sd / Math.sqrt(s.n)) : NaN;
  return { n: s.n, mean: s.mean, sd: s.sd, cv: s.cv, ci95: [s.mean - half, s.mean + half] as [number, number] };
}

interface RunJson {
  variant: string;
  warmup: boolean;
  workloads: { sliceExtension?: { status: string; countersDelta?: Record<string, number> } }[];
}

/** The extension's engagement in one cell and variant, measured runs only. */
function engagement(repo: string, dir: string, variant: string) {
  const runsDir = join(repo, dir, "series/runs");
  const out = { runs: 0, statuses: [] as string[], requests: 0, grants: 0, yields: 0, revoked: 0, grantsPerRun: [] as number[] };
  for (const id of readdirSync(runsDir).sort()) {
    const r = readJson<RunJson>(join(runsDir, id, "result.json"));
    if (r.variant !== variant || r.warmup) continue;
    out.runs++;
    let g = 0;
    for (const w of r.workloads) {
      const se = w.sliceExtension;
      if (!se) continue;
      if (!out.statuses.includes(se.status)) out.statuses.push(se.status);
      const d = se.countersDelta ?? {};
      out.requests += d.requests ?? 0;
      out.yields += d.yields ?? 0;
      out.revoked += d.revoked ?? 0;
      g += d.grants ?? 0;
    }
    out.grants += g;
    out.grantsPerRun.push(g);
  }
  return out;
}

const testsOf = (list: Comparison[]) => list.map((x) => ({
  name: x.name,
  kind: x.kind,
  a: x.kind === "extension" ? `${x.mode}/off` : `${x.a}/${x.variant}`,
  b: x.kind === "extension" ? `${x.mode}/on` : `${x.b}/${x.variant}`,
  differencePct: x.result.welch.differencePct,
  ci95Pct: x.result.welch.ciPct,
  bootstrapCi95Pct: [x.result.bootstrap.meanDiffPct.lo, x.result.bootstrap.meanDiffPct.hi],
  welchP: x.result.welch.p,
  minimumDetectableEffectPct: x.result.power.minimumDetectableEffectPct,
  verdict: x.result.verdict,
  command: `slicelab ${x.args.join(" ")}`,
}));

/** Computes the comparison record's outputs for DIR (holding cells.json), `repo` the kit's root; a sensitivity subset is written to OUT/derived/ first. */
export function evictionComparison(repo: string, dir: string, out = dir): EvictionComparison {
  const { cells: given, sensitivity } = readJson<{ cells: Cell[]; sensitivity?: Sensitivity }>(join(dir, "cells.json"));
  const cells = given.map((c) => ({ ...c, dir: currentPath(repo, c.dir) }));
  const files = new Map<string, string>();
  const comparisons = allComparisons(repo, cells, (c) => join(c.dir, "series/results.csv"));
  for (const c of comparisons) files.set(`comparisons/${c.name}.json`, c.text);
  let sens: (Sensitivity & { comparisons: Comparison[] }) | null = null;
  if (sensitivity) {
    const text = readFileSync(join(repo, currentPath(repo, sensitivity.file)), "utf8").trim().split("\n");
    for (const c of cells) {
      const name = c.dir.split("/").pop() as string;
      const rows = text.slice(1).filter((l) => l.split(",")[0] === name);
      files.set(`derived/${name}.csv`, `${[text[0], ...rows].join("\n")}\n`);
      // `slicelab compare` reads the subset from OUT/derived/, so it is written before the comparisons
      writeFileAtomic(join(out, "derived", `${name}.csv`), files.get(`derived/${name}.csv`) as string);
    }
    const where = [`${sensitivity.column}=${sensitivity.value}`];
    sens = { ...sensitivity, comparisons: allComparisons(repo, cells, (c) => relative(repo, join(out, "derived", `${c.dir.split("/").pop()}.csv`)), "subset-", where) };
    for (const c of sens.comparisons) files.set(`comparisons/${c.name}.json`, c.text);
  }
  const rows: Record<string, unknown>[] = [];
  for (const c of cells) {
    const cmp = (comparisons.find((x) => x.kind === "extension" && x.mode === c.mode) as Comparison).result;
    const at = given.find((g) => g.mode === c.mode) as Cell;
    rows.push({ mode: c.mode, kernel: c.kernel, dir: at.dir, variant: "off", ...cellStats(cmp.a) });
    rows.push({ mode: c.mode, kernel: c.kernel, dir: at.dir, variant: "on", ...cellStats(cmp.b) });
  }
  for (const r of rows) r.sliceExtension = engagement(repo, currentPath(repo, r.dir as string), r.variant as string);
  const tests = testsOf(comparisons);
  const subsetRows: Record<string, unknown>[] = [];
  if (sens) {
    for (const c of cells) {
      const cmp = (sens.comparisons.find((x) => x.kind === "extension" && x.mode === c.mode) as Comparison).result;
      subsetRows.push({ mode: c.mode, kernel: c.kernel, variant: "off", ...cellStats(cmp.a) });
      subsetRows.push({ mode: c.mode, kernel: c.kernel, variant: "on", ...cellStats(cmp.b) });
    }
  }
  const subset = sens ? { file: sens.file, column: sens.column, value: sens.value, why: sens.why, cells: subsetRows, comparisons: testsOf(sens.comparisons) } : null;
  const summary = { cells: rows, comparisons: tests, subset };
  return { files, summary, table: tableText(rows, tests, subset) };
}

type Row = Record<string, any>;
function tableText(rows: Row[], tests: Row[], subset: Row | null): string {
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
  const pct = (x: number) => (Number.isFinite(x) ? `${x > 0 ? "+" : ""}${x.toFixed(1)}%` : String(x));
  const cellTable = (list: Row[]) => [
    "| mode | kernel | slice_extension | n | mean tps | 95% CI | CV |",
    "| --- | --- | --- | ---: | ---: | --- | ---: |",
    ...list.map((r) => `| ${r.mode} | ${r.kernel} | ${r.variant === "on" ? "all" : "off"} | ${r.n} | ${f(r.mean)} | ${f(r.ci95[0])} – ${f(r.ci95[1])} | ${f(100 * r.cv, 0)}% |`),
    "",
  ];
  const testTable = (list: Row[]) => [
    "| B vs A | difference (Welch) | 95% CI | bootstrap 95% CI | p | detectable with 80% power | verdict |",
    "| --- | ---: | --- | --- | ---: | ---: | --- |",
    ...list.map((t) => `| ${t.b} vs ${t.a} | ${pct(t.differencePct)} | ${pct(t.ci95Pct[0])} to ${pct(t.ci95Pct[1])} | ${pct(t.bootstrapCi95Pct[0])} to ${pct(t.bootstrapCi95Pct[1])} | ${t.welchP.toFixed(3)} | ±${f(t.minimumDetectableEffectPct)}% | ${t.verdict} |`),
    "",
  ];
  return [
    ...cellTable(rows),
    "| mode | kernel | slice_extension | measured runs | server status | requests | grants (per run) | yields | revoked |",
    "| --- | --- | --- | ---: | --- | ---: | --- | ---: | ---: |",
    ...rows.map((r) => {
      const e = r.sliceExtension;
      return `| ${r.mode} | ${r.kernel} | ${r.variant === "on" ? "all" : "off"} | ${e.runs} | ${e.statuses.join("; ") || "–"} | ${e.requests} | ${e.grants} (${e.grantsPerRun.join(", ")}) | ${e.yields} | ${e.revoked} |`;
    }),
    "",
    ...testTable(tests),
    ...(subset ? [`Subset: only the measured runs with ${subset.column}=${subset.value} in ${subset.file} (${subset.why})`, "", ...cellTable(subset.cells), ...testTable(subset.comparisons)] : []),
  ].join("\n");
}

/** Writes the outputs into OUT (a comparison record's directory, or a scratch copy of it). */
export function writeEvictionComparison(out: string, c: EvictionComparison): void {
  for (const [f, text] of c.files) writeFileAtomic(join(out, f), text);
  writeFileAtomic(join(out, "summary.json"), `${JSON.stringify(c.summary, null, 2)}\n`);
  writeFileAtomic(join(out, "table.md"), c.table);
}
