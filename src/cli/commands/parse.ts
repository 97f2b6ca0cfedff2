import { readFileSync } from "node:fs";
import type { Command } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { detectFormats, findFormat, formats, type ParserFormat } from "../../parse/formats.js";

function usage(): string {
  const width = Math.max(...formats.map((f) => f.name.length));
  const list = formats.map((f) => {
    const aliases = f.aliases && f.aliases.length > 0 ? ` (alias: ${f.aliases.join(", ")})` : "";
    return `  ${f.name.padEnd(width)}  ${f.description}${aliases}`;
  });
  return [
    "usage: slicelab parse FORMAT FILE… [--json] [--output PATH]",
    "",
    "Parses tool output into records: a table on the terminal, or JSON with --json.",
    "All files are parsed before anything is printed or written; on the first",
    "malformed line the command stops with FILE:LINE and exit status 2.",
    "",
    "formats:",
    ...list,
    `  ${"auto".padEnd(width)}  detect the format of each file (all files must be of one format)`,
    "",
    "options:",
    "  --json         print {format, records} as JSON",
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
    col("children%", "childrenPct"),
    col("self%", "selfPct"),
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
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: cannot read the file (${code === "ENOENT" ? "no such file" : (code ?? String(err))})`);
  }
}

export const parseCommand: Command = {
  name: "parse",
  summary: "parse tool output (pgbench, lockmeter/lockstat, perf report) into records",
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

    const texts = files.map((f) => ({ file: f, text: readInput(f) }));
    let format: ParserFormat;
    if (formatName === "auto") {
      const chosen = texts.map(({ file, text }) => {
        const found = detectFormats(text);
        if (found.length !== 1) {
          const names = found.map((f) => f.name).join(", ");
          throw new UserError(
            found.length === 0
              ? `${file}: cannot tell its format (known: ${formats.map((f) => f.name).join(", ")}); name the FORMAT`
              : `${file}: looks like several formats (${names}); name the FORMAT`,
          );
        }
        return found[0]!;
      });
      format = chosen[0]!;
      const other = chosen.findIndex((f) => f !== format);
      if (other >= 0) {
        throw new UserError(`${files[other]} is ${chosen[other]!.name} but ${files[0]} is ${format.name}; parse them separately`);
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
    for (const { file, text } of texts) {
      const parsed = format.parse(text, file);
      if (Array.isArray(parsed)) records.push(...parsed);
      else records.push(parsed);
    }

    let out: string;
    if (values.json) {
      out = `${JSON.stringify({ format: format.name, records }, null, 2)}\n`;
    } else {
      const rows = records as Record<string, unknown>[];
      const columns = TABLES[format.name] ?? genericColumns(rows);
      out = rows.length === 0 ? `no ${format.name} records found in ${files.join(", ")}\n` : `${renderTable(columns, rows)}\n`;
    }
    if (values.output !== undefined) {
      writeFileAtomic(values.output, out);
      process.stderr.write(`slicelab parse: wrote ${records.length} ${format.name} record(s) to ${values.output}\n`);
    } else if (values.json) {
      printJson({ format: format.name, records });
    } else {
      process.stdout.write(out);
    }
    return 0;
  },
};
