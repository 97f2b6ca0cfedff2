import { existsSync, readFileSync, statSync } from "node:fs";
import { csvFields as splitCsv } from "../../util/csv.js";
import { basename, join } from "node:path";
import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { ParseError, UserError, quoteFound } from "../../util/errors.js";
import { parsePgbenchFile } from "../../parse/pgbench.js";
import { compareSamples, formatP, type Comparison } from "../../stats/index.js";
import { seriesRows, tidyCsv, writeTidy } from "../../bench/series.js";

const usage = `usage: slicelab compare A B [options]
       slicelab compare --a FILE… --b FILE… [options]
       slicelab compare CSV… --by COLUMN[=A_VALUE,B_VALUE] [options]
       slicelab compare SERIES_DIR [--by variant=A,B] [options]

Compares the tps of side B with side A: summaries, Welch t-test, Mann–Whitney U,
F-test and Brown–Forsythe test of the spread, seeded bootstrap confidence
intervals (mean difference in % of A, SD ratio B/A), leave-one-out sensitivity
(does one run flip the verdict?) and power (minimum detectable difference, runs
needed per side).

Each side is one or more files, each either
  - a CSV file with a header line that has a "tps" column (other columns are
    ignored unless --where/--by name them; lines starting with # are comments), or
  - pgbench output (one or several runs per file; every "tps = …" run counts).
A benchmark series directory (from \`slicelab bench run\`) is read as its
results.csv split by variant (--by variant), warm-up runs left out
(--where warmup=false). It is read from the finished runs and nothing is
written unless --write asks to rewrite its results.csv and results.jsonl.

options:
  --a FILE…            the files of side A (several allowed)
  --b FILE…            the files of side B (several allowed)
  --by COLUMN          split the rows of the CSV files into A and B by this column,
                       which must take exactly two values (A = the first seen);
  --by COLUMN=X,Y      or name them: A = rows with X, B = rows with Y
  --where COLUMN=VALUE only use CSV rows with this value (repeatable; all must hold)
  --discard-first N    leave out the first N runs of each side (warm-up runs), in
                       the order the files and rows were given
  --seed N             bootstrap seed (default 1); recorded in the output
  --resamples N        bootstrap resamples (default 10000)
  --alpha X            significance level and 1 − confidence level (default 0.05)
  --json               print the full comparison as JSON (stable key order)
  --write              with a series directory: rewrite its results.csv/results.jsonl
                       from its finished runs (otherwise nothing is written)
  --help               this text

examples (Rostedt 2023, the first run of each side left out as he did):
  slicelab compare data/published/rostedt-2023/runs.csv --by side=without-patch,with-patch --where role=measured
  slicelab compare data/published/rostedt-2023/without-patch.raw.txt data/published/rostedt-2023/with-patch.raw.txt --discard-first 1
our A/A series (randomised blocks, analysed unpaired):
  slicelab compare data/runs/rostedt-2023/20261130T011758Z`;

/** One input side: the files read, the row selection applied to CSV files, and the tps values in file order. */
export interface CompareSide {
  /** Each file and the number of runs read from it (before --discard-first). */
  files: { file: string; runs: number }[];
  /** `COLUMN=VALUE` conditions a CSV row had to meet (from --where and --by); empty when none. */
  select: string[];
  /** The runs left out at the start of the side (--discard-first). */
  discarded: number[];
  /** The runs compared. */
  tps: number[];
}

/** A `COLUMN=VALUE` condition on CSV rows. */
export interface RowFilter {
  column: string;
  value: string;
}

/** One selected CSV row. */
export interface TpsRow {
  line: number;
  tps: number;
  /** The row's fields by column name. */
  fields: Record<string, string>;
}

/** The fields of a CSV line (the kit's one dialect, src/util/csv.ts), surrounding blanks trimmed. */
const csvFields = (line: string): string[] => splitCsv(line).map((f) => f.trim());

function isCommentOrBlank(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith("#");
}

/** True when the first non-comment line of `text` is a CSV header with a `tps` column. */
export function looksLikeTpsCsv(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => !isCommentOrBlank(l));
  return first !== undefined && first.includes(",") && csvFields(first).includes("tps");
}

/**
 * Reads the rows of a CSV text that meet every `where` condition (header line
 * required; blank lines and lines starting with # are skipped). The header must
 * name `tps`, every `where` column and every column in `need`. A selected row
 * whose tps is not a finite number is a ParseError naming `file` and the line.
 */
export function parseTpsCsvRows(text: string, file: string, where: RowFilter[] = [], need: string[] = []): TpsRow[] {
  const lines = text.split(/\r?\n/);
  let header: string[] | null = null;
  const out: TpsRow[] = [];
  lines.forEach((line, i) => {
    if (isCommentOrBlank(line)) return;
    const fields = csvFields(line);
    if (header === null) {
      const wanted = ["tps", ...where.map((w) => w.column), ...need].filter((c, k, all) => all.indexOf(c) === k);
      const missing = wanted.filter((c) => !fields.includes(c));
      if (missing.length > 0) {
        const what = wanted.map((c) => `"${c}"`).join(", ");
        throw new ParseError(file, i + 1, `a CSV header line with the column${wanted.length > 1 ? "s" : ""} ${what}`, quoteFound(line));
      }
      header = fields;
      return;
    }
    if (fields.length !== header.length) {
      throw new ParseError(file, i + 1, `${header.length} comma-separated fields as in the header`, quoteFound(line));
    }
    const row: Record<string, string> = {};
    header.forEach((h, k) => (row[h] = fields[k]!));
    if (!where.every((w) => row[w.column] === w.value)) return;
    const raw = row.tps!;
    const v = raw === "" ? NaN : Number(raw);
    if (!Number.isFinite(v)) throw new ParseError(file, i + 1, "a number in the tps column", JSON.stringify(raw));
    out.push({ line: i + 1, tps: v, fields: row });
  });
  if (header === null) throw new ParseError(file, Math.max(1, lines.length), 'a CSV header line with a "tps" column', "end of file");
  return out;
}

/** The tps column of a CSV text (see parseTpsCsvRows). */
export function parseTpsCsv(text: string, file: string, where: RowFilter[] = []): number[] {
  return parseTpsCsvRows(text, file, where).map((r) => r.tps);
}

/** In-memory texts that stand for files (a series' results.csv made from its runs without writing it). */
const virtualFiles = new Map<string, string>();

function readText(file: string): string {
  const v = virtualFiles.get(file);
  if (v !== undefined) return v;
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${file}: cannot read the file (${code ?? String(err)})`);
  }
}

function isCsv(file: string, text: string): boolean {
  return file.toLowerCase().endsWith(".csv") || looksLikeTpsCsv(text);
}

/**
 * Reads one input file: the tps column of a CSV file (rows meeting `where`) or
 * every run's tps of pgbench output.
 */
export function readTpsFile(file: string, where: RowFilter[] = []): number[] {
  const text = readText(file);
  if (isCsv(file, text)) return parseTpsCsv(text, file, where);
  if (where.length > 0) {
    throw new UserError(`${file}: --where selects CSV rows, but this file is not a CSV file with a "tps" column`);
  }
  const runs = parsePgbenchFile(file);
  if (runs.length === 0) {
    throw new UserError(`${file}: expected pgbench output with "tps = …" lines or a CSV file with a "tps" column, found neither`);
  }
  return runs.map((r) => r.tps);
}

/** Reads the files of one side in order. */
export function readSide(files: string[], where: RowFilter[] = []): CompareSide {
  const side: CompareSide = { files: [], select: where.map((w) => `${w.column}=${w.value}`), discarded: [], tps: [] };
  for (const f of files) {
    const tps = readTpsFile(f, where);
    side.files.push({ file: f, runs: tps.length });
    side.tps.push(...tps);
  }
  return side;
}

/**
 * Splits the rows of CSV files into two sides by the value of `column`: the
 * two given `values` (A first), or, without them, the two values the column
 * takes (in order of first appearance; any other number is an error).
 */
export function splitCsvBy(
  files: string[],
  column: string,
  values: [string, string] | null,
  where: RowFilter[] = [],
): { a: CompareSide; b: CompareSide; labels: [string, string] } {
  const perFile = files.map((file) => {
    const text = readText(file);
    if (!isCsv(file, text)) throw new UserError(`${file}: --by splits CSV files, but this file is not a CSV file with a "tps" column`);
    return { file, rows: parseTpsCsvRows(text, file, where, [column]) };
  });
  const seen: string[] = [];
  for (const { rows } of perFile) for (const r of rows) if (!seen.includes(r.fields[column]!)) seen.push(r.fields[column]!);
  const sel = where.map((w) => `${w.column}=${w.value}`).join(", ");
  let pair: [string, string];
  if (values) {
    for (const v of values) {
      if (!seen.includes(v)) {
        throw new UserError(
          `--by ${column}: no row has ${column}=${v}${sel ? ` (with ${sel})` : ""}; values found: ${seen.map((x) => `"${x}"`).join(", ") || "none"}`,
        );
      }
    }
    pair = values;
  } else {
    if (seen.length !== 2) {
      throw new UserError(
        `--by ${column}: expected exactly two values to compare, found ${seen.length}${seen.length ? ` (${seen.map((x) => `"${x}"`).join(", ")})` : ""}; name them with --by ${column}=A_VALUE,B_VALUE`,
      );
    }
    pair = [seen[0]!, seen[1]!];
  }
  const side = (v: string): CompareSide => {
    const out: CompareSide = {
      files: [],
      select: [...where.map((w) => `${w.column}=${w.value}`), `${column}=${v}`],
      discarded: [],
      tps: [],
    };
    for (const { file, rows } of perFile) {
      const tps = rows.filter((r) => r.fields[column] === v).map((r) => r.tps);
      if (tps.length > 0) out.files.push({ file, runs: tps.length });
      out.tps.push(...tps);
    }
    return out;
  };
  return { a: side(pair[0]), b: side(pair[1]), labels: pair };
}

function parseFilter(option: string, text: string): RowFilter {
  const eq = text.indexOf("=");
  if (eq <= 0) throw new UserError(`${option} expects COLUMN=VALUE, got "${text}"`);
  return { column: text.slice(0, eq).trim(), value: text.slice(eq + 1).trim() };
}

/** Pulls `--a FILE…` and `--b FILE…` lists out of argv; the rest goes to parseArgs. */
function splitSides(argv: string[]): { a: string[]; b: string[]; rest: string[]; explicit: boolean } {
  const a: string[] = [];
  const b: string[] = [];
  const rest: string[] = [];
  let into: string[] | null = null;
  let explicit = false;
  let afterDashDash = false;
  for (const tok of argv) {
    if (afterDashDash) {
      (into ?? rest).push(tok);
      continue;
    }
    if (tok === "--") {
      afterDashDash = true;
      continue;
    }
    if (tok === "--a" || tok === "--b") {
      into = tok === "--a" ? a : b;
      explicit = true;
      continue;
    }
    const m = /^--([ab])=(.*)$/.exec(tok);
    if (m) {
      (m[1] === "a" ? a : b).push(m[2]!);
      into = m[1] === "a" ? a : b;
      explicit = true;
      continue;
    }
    if (tok.startsWith("-") && tok !== "-") {
      into = null;
      rest.push(tok);
      continue;
    }
    (into ?? rest).push(tok);
  }
  return { a, b, rest, explicit };
}

function sideName(files: { file: string }[]): string {
  return files.length === 1 ? basename(files[0]!.file) : `${files.length} files`;
}

function num(x: number, digits: number): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}

function signed(x: number, digits: number): string {
  return `${x > 0 ? "+" : ""}${num(x, digits)}`;
}

/** The compact human-readable report. */
export function formatReport(c: Comparison, a: CompareSide, b: CompareSide): string {
  const lines: string[] = [];
  const pct = (x: number): string => `${signed(x, 3)}%`;
  const level = `${Number((100 * (1 - c.alpha)).toPrecision(3))}%`;
  for (const [label, s, side] of [
    ["A", c.a, a],
    ["B", c.b, b],
  ] as const) {
    const name = label === "A" ? c.labels.a : c.labels.b;
    const what = name === label ? sideName(side.files) : `${name}, ${sideName(side.files)}`;
    lines.push(
      `${label} (${what}): n=${s.n}  mean ${num(s.mean, 2)}  sd ${num(s.sd, 2)}  CV ${num(100 * s.cv, 3)}%  median ${num(s.median, 2)}  min ${num(s.min, 2)}  max ${num(s.max, 2)}`,
    );
  }
  const w = c.welch;
  lines.push(
    `difference B − A: ${signed(w.difference, 2)} (${pct(w.differencePct)}), ${level} CI ${pct(w.ciPct[0])} … ${pct(w.ciPct[1])}`,
    `Welch t-test:        t = ${num(w.t, 3)}, df = ${num(w.df, 2)}, p = ${formatP(w.p)}`,
    `Mann–Whitney U:      U = ${c.mannWhitney.u}, p = ${formatP(c.mannWhitney.p)} (${c.mannWhitney.method})`,
    `F-test var B/var A:  F = ${num(c.fTest.f, 4)}, df = (${c.fTest.dfNum}, ${c.fTest.dfDen}), p = ${formatP(c.fTest.p)}`,
    `Brown–Forsythe:      W = ${num(c.brownForsythe.w, 4)}, p = ${formatP(c.brownForsythe.p)}`,
    `bootstrap (${c.bootstrap.resamples} resamples, seed ${c.bootstrap.seed}): mean difference ${level} CI ${pct(c.bootstrap.meanDiffPct.lo)} … ${pct(c.bootstrap.meanDiffPct.hi)}; SD ratio B/A ${num(c.bootstrap.sdRatio.estimate, 3)}, ${level} CI ${num(c.bootstrap.sdRatio.lo, 3)} … ${num(c.bootstrap.sdRatio.hi, 3)}`,
  );
  const loo = c.leaveOneOut;
  lines.push(
    loo.fragile
      ? `leave-one-out: FRAGILE, ${loo.flips.length} of ${loo.drops.length} single-run drops change the verdict: ${loo.flips
          .map((f) => `${f.side}#${f.index + 1} (${f.value}) → ${f.verdict}, p = ${formatP(f.p)}`)
          .join("; ")}`
      : `leave-one-out: the verdict holds for all ${loo.drops.length} single-run drops`,
  );
  const rn = c.power.runsNeeded
    .map((r) => `${num(r.effectPct, 3)}%: ${r.runsPerSide ?? "> 1e6"}`)
    .join(", ");
  lines.push(
    `power (${Number((100 * c.power.power).toPrecision(3))}%, α = ${c.alpha}): detectable difference with these runs ${num(c.power.minimumDetectableEffectPct, 3)}%; runs per side needed for ${rn}`,
    `spread: ${c.spread.verdict} (${c.spread.reason})`,
    `verdict: ${c.verdict} (${c.reason})`,
  );
  return lines.join("\n");
}

function isSeriesDir(path: string): boolean {
  return existsSync(join(path, "series.json")) && statSync(path).isDirectory();
}

function seriesVariants(dir: string): string[] {
  const series = JSON.parse(readFileSync(join(dir, "series.json"), "utf8")) as { variants?: { name: string }[] };
  return (series.variants ?? []).map((v) => v.name);
}

/**
 * The series' results.csv as its finished runs give it. Read only: the committed file is left as it
 * is (a note says when it is out of date) unless `write` asks to rewrite it.
 */
function seriesResultsCsv(dir: string, write: boolean): string {
  const file = join(dir, "results.csv");
  if (write) {
    writeTidy(dir);
    return file;
  }
  const text = tidyCsv(seriesRows(dir));
  const onDisk = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  if (onDisk !== text) {
    process.stderr.write(`note: ${file} ${onDisk === undefined ? "is missing" : "is out of date"}; compared the finished runs (--write rewrites it)\n`);
  }
  virtualFiles.set(file, text);
  return file;
}

export const compareCommand: Command = {
  name: "compare",
  summary: "compare the tps of two sets of runs (tests, bootstrap, leave-one-out, power)",
  usage,
  async run(argv) {
    const sides = splitSides(argv);
    const { values, positionals } = parseCommandArgs("compare", sides.rest, {
      seed: { type: "string" },
      resamples: { type: "string" },
      alpha: { type: "string" },
      by: { type: "string" },
      where: { type: "string", multiple: true },
      "discard-first": { type: "string" },
      json: { type: "boolean" },
      write: { type: "boolean" },
    });
    const seed = numberOption("seed", values.seed, 1);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed expects a non-negative integer, got "${values.seed}"`);
    const resamples = numberOption("resamples", values.resamples, 10000);
    if (!Number.isSafeInteger(resamples) || resamples < 1) {
      throw new UserError(`--resamples expects a positive integer, got "${values.resamples}"`);
    }
    const alpha = numberOption("alpha", values.alpha, 0.05);
    if (!(alpha > 0 && alpha < 1)) throw new UserError(`--alpha expects a number between 0 and 1, got "${values.alpha}"`);
    const where = (values.where ?? []).map((w) => parseFilter("--where", w));
    const discardFirst = numberOption("discard-first", values["discard-first"], 0);
    if (!Number.isSafeInteger(discardFirst) || discardFirst < 0) {
      throw new UserError(`--discard-first expects a non-negative integer, got "${values["discard-first"]}"`);
    }

    // A benchmark series directory (written by `slicelab bench run`) stands for its tidy results.csv,
    // split by variant, warm-up runs excluded, unless the options say otherwise.
    let by = values.by;
    const seriesDirs = positionals.filter(isSeriesDir);
    if (seriesDirs.length > 0) {
      if (sides.explicit) throw new UserError("a series directory is split by variant; it cannot be combined with --a/--b");
      for (let i = 0; i < positionals.length; i++) {
        if (isSeriesDir(positionals[i]!)) positionals[i] = seriesResultsCsv(positionals[i]!, values.write === true);
      }
      if (by === undefined) {
        // Variants in the order the series declared them (A = the first), not the order runs happened to end.
        const names = seriesVariants(seriesDirs[0]!);
        by = names.length === 2 ? `variant=${names[0]},${names[1]}` : "variant";
      }
      if (!where.some((w) => w.column === "warmup")) where.push({ column: "warmup", value: "false" });
    }

    let a: CompareSide;
    let b: CompareSide;
    let labels: [string, string] = ["A", "B"];
    if (by !== undefined) {
      values.by = by;
      if (sides.explicit) throw new UserError("--by splits the given CSV files into A and B; it cannot be combined with --a/--b");
      if (positionals.length === 0) throw new UserError("--by needs at least one CSV file (see `slicelab compare --help`)");
      const eq = values.by.indexOf("=");
      const column = (eq < 0 ? values.by : values.by.slice(0, eq)).trim();
      let pair: [string, string] | null = null;
      if (eq >= 0) {
        const vs = values.by.slice(eq + 1).split(",").map((v) => v.trim());
        if (vs.length !== 2 || vs.some((v) => v === "") || column === "") {
          throw new UserError(`--by expects COLUMN or COLUMN=A_VALUE,B_VALUE, got "${values.by}"`);
        }
        pair = [vs[0]!, vs[1]!];
      }
      if (column === "") throw new UserError(`--by expects COLUMN or COLUMN=A_VALUE,B_VALUE, got "${values.by}"`);
      ({ a, b, labels } = splitCsvBy(positionals, column, pair, where));
    } else {
      let filesA: string[];
      let filesB: string[];
      if (sides.explicit) {
        if (positionals.length > 0) {
          throw new UserError(`with --a/--b, give every file after --a or --b; found stray argument "${positionals[0]}" (see \`slicelab compare --help\`)`);
        }
        filesA = sides.a;
        filesB = sides.b;
        if (filesA.length === 0 || filesB.length === 0) {
          throw new UserError(`--a and --b each need at least one file, found ${filesA.length} and ${filesB.length} (see \`slicelab compare --help\`)`);
        }
      } else {
        if (positionals.length !== 2) {
          throw new UserError(`expected two inputs A and B (or --a FILE… --b FILE…, or CSV… --by COLUMN), found ${positionals.length} (see \`slicelab compare --help\`)`);
        }
        filesA = [positionals[0]!];
        filesB = [positionals[1]!];
      }
      a = readSide(filesA, where);
      b = readSide(filesB, where);
    }
    for (const [label, side] of [
      ["A", a],
      ["B", b],
    ] as const) {
      side.discarded = side.tps.splice(0, discardFirst);
      if (side.tps.length < 2) {
        const sel = side.select.length ? `; rows with ${side.select.join(", ")}` : "";
        throw new UserError(
          `side ${label} (${side.files.map((f) => f.file).join(", ") || "no rows"}${sel}): expected at least 2 runs to compare, found ${side.tps.length}${discardFirst ? ` after discarding ${side.discarded.length}` : ""}`,
        );
      }
    }
    const comparison = compareSamples(a.tps, b.tps, { seed, resamples, alpha, labels });
    if (values.json) {
      printJson({ inputs: { a, b }, ...comparison });
    } else {
      process.stdout.write(`${formatReport(comparison, a, b)}\n`);
    }
    return 0;
  },
};
