import { readFileSync } from "node:fs";
import type { Command } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { findFormat, formats, type ParserFormat } from "../../parse/formats.js";
import type { ParseWarning } from "../../parse/text.js";

function usage(): string {
  const width = Math.max(...formats.map((f) => f.name.length));
  const list = formats.map((f) => {
    const aliases = f.aliases && f.aliases.length > 0 ? ` (alias: ${f.aliases.join(", ")})` : "";
    return `  ${f.name.padEnd(width)}  ${f.description}${aliases}`;
  });
  return [
    "usage: slicelab parse FORMAT FILE… [--json] [--output PATH]   (FILE - reads standard input)",
    "",
    "Parses tool output into records: a table on the terminal, or JSON with --json.",
    "All files are parsed before anything is printed or written; on the first",
    "malformed line the command stops with FILE:LINE and exit status 2.",
    "",
    "formats:",
    ...list,
    `  ${"auto".padEnd(width)}  detect the format of each file (all files must be of one format); when it cannot`,
    `  ${"".padEnd(width)}  decide it lists every format and what ruled it out`,
    "",
    "options:",
    "  --json         print {format, records, warnings} as JSON; warnings say what an",
    "                 excerpt lacked (no header, a table ending at prose); without",
    "                 --json they go to standard error",
    "  --output PATH  write the output to PATH (atomically) instead of stdout",
    "",
    "examples:",
    "  slicelab parse pgbench run1.txt run2.txt --json",
    "  slicelab parse lockstat data/published/lahr-2001/lockstat.raw.txt",
  ].join("\n");
}

/** Formats a number for the table: integers as they are, others with up to 6 significant digits. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return "-";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

/** Renders rows as an aligned text table; numeric columns are right-aligned. */
export function renderTable(columns: { title: string; get: (r: Record<string, unknown>) => unknown }[], rows: Record<string, unknown>[]): string {
  const cells = rows.map((r) => columns.map((c) => c.get(r)));
  const numeric = columns.map((_, j) => cells.every((row) => row[j] === null || row[j] === undefined || typeof row[j] === "number"));
  const text = cells.map((row) => row.map(cell));
  const widths = columns.map((c, j) => Math.max(c.title.length, ...text.map((row) => row[j]!.length)));
  const fmt = (row: string[]) =>
    row
      .map((v, j) => (numeric[j] ? v.padStart(widths[j]!) : v.padEnd(widths[j]!)))
      .join("  ")
      .trimEnd();
  return [fmt(columns.map((c) => c.title)), ...text.map(fmt)].join("\n");
}

type Col = { title: string; get: (r: Record<string, unknown>) => unknown };
const col = (title: string, key: string): Col => ({ title, get: (r) => r[key] });

const TABLES: Record<string, Col[]> = {
  pgbench: [
    { title: "file:line", get: (r) => `${r.file}:${r.line}` },
    col("tps", "tps"),
    { title: "tps mode", get: (r) => String(r.tpsMode).replace(/ connections establishing$/, " conn.").replace("without initial connection time", "without conn. time") },
    col("clients", "clients"),
    col("threads", "threads"),
    col("duration_s", "durationS"),
    col("transactions", "transactionsProcessed"),
    col("failed", "failed"),
    col("retried", "retried"),
    col("lat_ms", "latencyAverageMs"),
    col("lat_sd_ms", "latencyStddevMs"),
    { title: "progress", get: (r) => (r.progress as unknown[]).length },
    { title: "statements", get: (r) => (r.statements as unknown[]).length },
  ],
  lockmeter: [
    { title: "line", get: (r) => r.line },
    col("section", "section"),
    col("util%", "utilPct"),
    col("con%", "conPct"),
    col("hold_us", "holdMeanUs"),
    col("hold_max_us", "holdMaxUs"),
    col("wait_us", "waitMeanUs"),
    col("wait_max_us", "waitMaxUs"),
    col("total", "total"),
    col("nowait", "nowait"),
    col("spin", "spin"),
    col("reject", "reject"),
    { title: "name", get: (r) => (r.kind === "caller" ? `  ${r.name}` : r.name) },
  ],
  "perf-report": [
    { title: "line", get: (r) => r.line },
    col("table", "table"),
    col("label", "label"),
    col("children%", "childrenPct"),
    col("self%", "selfPct"),
    col("samples", "samples"),
    col("command", "command"),
    col("shared_object", "sharedObject"),
    col("space", "space"),
    col("symbol", "symbol"),
  ],
};

/** Columns for a format without its own table: the scalar fields of the first record. */
function genericColumns(rows: Record<string, unknown>[]): Col[] {
  const first = rows[0] ?? {};
  return Object.keys(first)
    .filter((k) => first[k] === null || ["string", "number", "boolean"].includes(typeof first[k]))
    .map((k) => col(k, k));
}

function readInput(path: string): string {
  try {
    // "-" is standard input.
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what = path === "-" ? "standard input" : path;
    throw new UserError(`${what}: cannot read the ${path === "-" ? "input" : "file"} (${code === "ENOENT" ? "no such file" : (code ?? String(err))})`);
  }
}

/** The name of an input in records and messages: "stdin" for "-". */
function inputName(path: string): string {
  return path === "-" ? "stdin" : path;
}

/** Parses with the format's lenient parser when it has one; records and warnings. */
function parseOne(format: ParserFormat, text: string, file: string): { records: unknown[]; warnings: ParseWarning[] } {
  if (format.parseWithWarnings) return format.parseWithWarnings(text, file);
  const parsed = format.parse(text, file);
  return { records: Array.isArray(parsed) ? parsed : [parsed], warnings: [] };
}

/**
 * The format of one input for `parse auto`: the one format whose detect accepts
 * the text and whose parser reads at least one record from it. Otherwise a
 * UserError listing every format and what ruled it out (the signature it looks
 * for, or the parser's FILE:LINE: expected/found).
 */
export function chooseFormat(text: string, file: string): ParserFormat {
  const verdicts = formats.map((f) => {
    if (!f.detect(text)) return { f, ok: false, why: `no line looks like ${f.signature ?? "its output"}` };
    try {
      const n = parseOne(f, text, file).records.length;
      return n > 0 ? { f, ok: true, why: `${n} record(s)` } : { f, ok: false, why: "detected, but the parser found no records" };
    } catch (err) {
      return { f, ok: false, why: err instanceof Error ? err.message : String(err) };
    }
  });
  const ok = verdicts.filter((v) => v.ok);
  if (ok.length === 1) return ok[0]!.f;
  const width = Math.max(...formats.map((f) => f.name.length));
  const lines = verdicts.map((v) => `  ${v.f.name.padEnd(width)}  ${v.ok ? "fits: " : "ruled out: "}${v.why}`);
  const head =
    ok.length === 0
      ? `${file}: cannot tell its format; no format fits`
      : `${file}: looks like several formats (${ok.map((v) => v.f.name).join(", ")})`;
  throw new UserError(`${head}; name the FORMAT. Formats considered:\n${lines.join("\n")}`);
}

export const parseCommand: Command = {
  name: "parse",
  summary: "parse tool output (pgbench, lockmeter/lockstat, perf report/top, lock statistics, …) into records",
  get usage() {
    return usage();
  },
  async run(argv) {
    const { values, positionals } = parseCommandArgs("parse", argv, {
      json: { type: "boolean", default: false },
      output: { type: "string", short: "o" },
    });
    const [formatName, ...files] = positionals;
    if (formatName === undefined) throw new UserError("expected a FORMAT and at least one FILE (see `slicelab parse --help`)");
    if (files.length === 0) throw new UserError(`expected at least one FILE after "${formatName}" (see \`slicelab parse --help\`)`);

    if (files.filter((f) => f === "-").length > 1) throw new UserError('"-" (standard input) can be given only once');
    const texts = files.map((f) => ({ file: inputName(f), text: readInput(f) }));
    let format: ParserFormat;
    if (formatName === "auto") {
      const chosen = texts.map(({ file, text }) => chooseFormat(text, file));
      format = chosen[0]!;
      const other = chosen.findIndex((f) => f !== format);
      if (other >= 0) {
        throw new UserError(`${texts[other]!.file} is ${chosen[other]!.name} but ${texts[0]!.file} is ${format.name}; parse them separately`);
      }
    } else {
      const f = findFormat(formatName);
      if (!f) {
        throw new UserError(`unknown format "${formatName}" (known: ${formats.map((x) => x.name).join(", ")}, auto)`);
      }
      format = f;
    }

    // Parse everything before printing anything: a bad file leaves no partial output.
    const records: unknown[] = [];
    const warnings: ParseWarning[] = [];
    for (const { file, text } of texts) {
      const parsed = parseOne(format, text, file);
      records.push(...parsed.records);
      warnings.push(...parsed.warnings);
    }
    const fileNames = texts.map((t) => t.file);

    let out: string;
    if (values.json) {
      out = `${JSON.stringify({ format: format.name, records, warnings }, null, 2)}\n`;
    } else {
      const rows = records as Record<string, unknown>[];
      const columns = TABLES[format.name] ?? genericColumns(rows);
      out = rows.length === 0 ? `no ${format.name} records found in ${fileNames.join(", ")}\n` : `${renderTable(columns, rows)}\n`;
    }
    if (values.output !== undefined) {
      writeFileAtomic(values.output, out);
      process.stderr.write(`slicelab parse: wrote ${records.length} ${format.name} record(s) to ${values.output}\n`);
    } else if (values.json) {
      printJson({ format: format.name, records, warnings });
    } else {
      process.stdout.write(out);
    }
    // Without --json the warnings go to standard error, one line each.
    if (!values.json) for (const w of warnings) process.stderr.write(`slicelab parse: warning: ${w.file}:${w.line}: ${w.message}\n`);
    return 0;
  },
};
