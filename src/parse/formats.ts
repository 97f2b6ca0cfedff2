/**
 * The registry of tool-output formats `slicelab parse` knows. Each format has a
 * name (the CLI word), optional aliases, a one-line description, a cheap
 * `detect` used by `slicelab parse auto`, and its parser.
 *
 * Formats added by later work (lock statistics) live in formats-extra.ts and
 * are appended here.
 */
import { parsePgbench, parsePgbenchLenient } from "./pgbench.js";
import { parseLockmeter } from "./lockmeter.js";
import { isLockmeter1, parseLockmeter1 } from "./lockmeter1.js";
import { parsePerfReport } from "./perf-report.js";
import { detectPerfTop, parsePerfTop, perfTopRecords } from "./perf-top.js";
import { extraFormats } from "./formats-extra.js";
import { splitLines, unquote, type ParseWarning } from "./text.js";

export interface ParserFormat {
  name: string;
  aliases?: string[];
  description: string;
  /** True when the text looks like this format (a quick look, not a full parse). */
  detect(text: string): boolean;
  /** Parses the text; `file` goes into records and error messages. Throws ParseError. */
  parse(text: string, file: string): unknown;
  /** What `detect` looks for, in words (for `slicelab parse auto` when it cannot decide). */
  signature?: string;
  /** A lenient parse that also reports what an excerpt lacked (the CLI prefers it when present). */
  parseWithWarnings?(text: string, file: string): { records: unknown[]; warnings: ParseWarning[] };
}

function someLine(text: string, re: RegExp): boolean {
  return splitLines(text).some((l) => re.test(unquote(l).trim()));
}

export const pgbenchFormat: ParserFormat = {
  name: "pgbench",
  description: "pgbench output (PostgreSQL 8.x–18): runs with tps, summary, progress, per-statement latencies",
  signature: '"tps = N (without initial connection time)" (or "…including/excluding connections establishing")',
  detect: (text) =>
    someLine(text, /^tps = \S+ \((?:without initial connection time|(?:in|ex)cluding connections establishing)\)/) ||
    // A run cut off in its progress lines: pgbench's banner or summary, then "progress: N s, X tps" lines.
    (someLine(text, /^progress: \d+(?:\.\d+)? s, \S+ tps, lat /) && someLine(text, /^(?:pgbench \(|transaction type: |starting vacuum\.\.\.)/)),
  parse: (text, file) => parsePgbench(text, file),
  parseWithWarnings: (text, file) => parsePgbenchLenient(text, file),
};

export const lockmeterFormat: ParserFormat = {
  name: "lockmeter",
  aliases: ["lockstat"],
  description: "lockmeter reports (lockstat, Linux 2.4–2.6): the 2001 count layout and the 1.x layout with % CPU and RJECT; lock, caller and *TOTAL* rows, times in µs",
  signature: 'a "SPINLOCKS" section title or a "UTIL% CON% HOLD(MAX) …" row such as "0.2% 1.5% 0.5us( 12us)"',
  detect: (text) =>
    someLine(text, /^SPINLOCKS\b/) ||
    someLine(text, /^\d+(?:\.\d+)?%\s+\d+(?:\.\d+)?%\s+\d+(?:\.\d+)?[a-z]+\(\s*\d+(?:\.\d+)?[a-z]+\)/),
  parse: (text, file) => (isLockmeter1(text) ? parseLockmeter1(text, file).rows : parseLockmeter(text, file)),
  parseWithWarnings: (text, file) => {
    if (!isLockmeter1(text)) return { records: parseLockmeter(text, file), warnings: [] };
    const r = parseLockmeter1(text, file);
    return { records: r.rows, warnings: r.warnings };
  },
};

export const perfReportFormat: ParserFormat = {
  name: "perf-report",
  aliases: ["perf"],
  description: "perf report --stdio rows (and TUI screens pasted as text): Children/Self or Overhead, Samples (-n), command, shared object, [k]/[.], symbol; quoted, wrapped and labelled rows",
  signature: 'a "# Children  Self … Symbol" or "# Overhead … Symbol" header, or a "12.5%  cmd  dso  [k] symbol" row',
  detect: (text) =>
    !detectPerfTop(text) &&
    (someLine(text, /^#?\s*(?:Children\s+Self|Overhead)\b.*\bSymbol\b/) ||
      someLine(text, /^(?:[A-Za-z][\w-]{0,15}:\s+)?\d+(?:\.\d+)?%(?:\s+\d+(?:\.\d+)?%)?\s+.*\[[k.]\]\s+\S/)),
  parse: (text, file) => parsePerfReport(text, file),
};

export const perfTopFormat: ParserFormat = {
  name: "perf-top",
  description: "perf top --stdio screens: PerfTop header (irqs/sec, kernel %, event, target) and its rows; the 2.6.3x samples/pcnt layout",
  signature: 'a "PerfTop: N irqs/sec kernel:P% …" header or a "samples  pcnt … function" column header',
  detect: detectPerfTop,
  parse: (text, file) => perfTopRecords(parsePerfTop(text, file)),
  parseWithWarnings: (text, file) => {
    const top = parsePerfTop(text, file);
    return { records: perfTopRecords(top), warnings: top.warnings };
  },
};

/** Every known format: ours first, then the extra ones. */
export const formats: ParserFormat[] = [pgbenchFormat, lockmeterFormat, perfReportFormat, perfTopFormat, ...extraFormats];

/** The format with this name or alias, or undefined. */
export function findFormat(name: string): ParserFormat | undefined {
  return formats.find((f) => f.name === name || (f.aliases ?? []).includes(name));
}

/** The formats whose `detect` accepts the text, in registry order. */
export function detectFormats(text: string): ParserFormat[] {
  return formats.filter((f) => f.detect(text));
}
