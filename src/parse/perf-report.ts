/**
 * Parser for the flat rows of `perf report --stdio`:
 *
 *     # Children      Self  Command   Shared Object      Symbol
 *         49.01%     0.87%  postgres  [kernel.vmlinux]   [k] __schedule
 *     # Overhead  Command  Shared Object  Symbol
 *         12.30%  gzip     gzip           [.] deflate_slow
 *
 * Rows have one percentage (Overhead, `--no-children`) or two (Children and
 * Self), then the optional Samples column (`-n`), the optional Command column,
 * the Shared Object and the symbol after its `[k]` (kernel) or `[.]` (user)
 * mark. Call-graph lines under a row (`|`, `---`, bare percentages without a
 * mark) are skipped. Header lines name the columns (with or without their `#`:
 * a mail may keep only the column names) and the sampled event. Mail quoting is
 * removed, a row wrapped before its `[k]`/`[.]` mark is joined with the next
 * line, and a row may carry a label before its percentages, as posted
 * comparisons do (`old:  0.12%  0.11%  cmd  dso  [k] sym`).
 *
 * Rows are grouped into tables: a table is a run of rows with nothing but
 * call-graph lines between them; any other line ends it. The tables of one
 * text are numbered from 0 (e.g. a profile before and after a change, quoted
 * one after the other in a mail).
 */
import { readFileSync } from "node:fs";
import { ParseError, UserError, quoteFound } from "../util/errors.js";
import { splitLines, unquote } from "./text.js";

export interface PerfReportRow {
  file: string;
  line: number;
  /** Index (from 0) of the table of rows this row belongs to. */
  table: number;
  /** A label the poster put before the percentages (`old:`, `before:`), or null. */
  label: string | null;
  /** Children % (inclusive), or null when the report has a single Overhead column. */
  childrenPct: number | null;
  /** Self % (Overhead when the report has a single percentage column). */
  selfPct: number;
  /** The Samples column (`perf report -n`), or null when the header names none. */
  samples: number | null;
  /** The Command column, or null when the report has none (e.g. `--sort dso,sym`). */
  command: string | null;
  /** The Shared Object column, or null when the header names none (e.g. `--sort symbol`). */
  sharedObject: string | null;
  /** "kernel" for `[k]`, "user" for `[.]`, or the mark's letter for other kinds (e.g. "g" guest). */
  space: string;
  symbol: string;
  /** The sampled event from the `# Samples: … of event '…'` comment before the table, if any. */
  event: string | null;
}

const PCT = String.raw`(\d+(?:\.\d+)?)%`;
/** A label before the percentages: one word and a colon (`old:`, `before:`). */
const LABEL = String.raw`(?:([A-Za-z][\w-]{0,15}):\s+)?`;
/** Optional label, optional call-graph expansion mark (`+`/`-`) then one or two percentages, the middle, the mark and the symbol. */
const ROW_RE = new RegExp(String.raw`^\s*${LABEL}[-+]?\s*${PCT}(?:\s+${PCT})?\s+(.*?)\s*\[([k.gusHhG])\]\s+(.+?)\s*$`);
const ROW_START = new RegExp(String.raw`^\s*${LABEL}[-+]?\s*${PCT}\s`);
const TWO_PCT = new RegExp(String.raw`^\s*${LABEL}[-+]?\s*${PCT}\s+${PCT}\s`);

/** The columns a header line names. */
export interface PerfColumns {
  children: boolean;
  samples: boolean;
  command: boolean;
  sharedObject: boolean;
}

/**
 * The columns of a header line (`# Children  Self  Command  Shared Object  Symbol`,
 * `Overhead  Samples  Command …`, with or without its `#`), or null when the line is no header.
 */
export function perfHeader(line: string): PerfColumns | null {
  const c = line.trim().replace(/^#\s*/, "");
  if (!/^(?:Children\s+Self|Overhead)\b/.test(c) || !/\bSymbol\b/.test(c)) return null;
  return {
    children: /^Children\s+Self\b/.test(c),
    samples: /^(?:Children\s+Self|Overhead)\s+Samples\b/.test(c),
    command: /\bCommand\b/.test(c),
    sharedObject: /\bShared Object\b/.test(c),
  };
}

/** One row's fields as printed (before the header's checks). */
export interface PerfRowMatch {
  label: string | null;
  first: number;
  second: number | null;
  middle: string;
  mark: string;
  symbol: string;
}

/** Matches a row `[LABEL:] PCT% [PCT%] MIDDLE [k] SYMBOL`, or null. */
export function matchPerfRow(t: string): PerfRowMatch | null {
  const m = ROW_RE.exec(t);
  if (!m) return null;
  return { label: m[1] ?? null, first: Number(m[2]), second: m[3] === undefined ? null : Number(m[3]), middle: m[4]!.trim(), mark: m[5]!, symbol: m[6]! };
}

/** True when the line starts like a row (a percentage) and has a symbol mark or two percentages, so it cannot be a call-graph line. */
export function looksLikeRow(t: string): boolean {
  return ROW_START.test(t) && (/\[[k.gusHhG]\]/.test(t) || TWO_PCT.test(t));
}

/**
 * A row a mail client wrapped before its mark: this line starts like a row but
 * has no `[k]`/`[.]` mark, and the next line (unquoted) starts with one. Returns
 * the joined row, or null when the lines are not such a pair.
 */
export function joinWrappedRow(t: string, next: string | undefined): string | null {
  if (next === undefined || !ROW_START.test(t) || /\[[k.gusHhG]\]/.test(t)) return null;
  const n = unquote(next).trim();
  return /^\[[k.gusHhG]\]\s+\S/.test(n) ? `${t.replace(/\s+$/, "")}  ${n}` : null;
}

/** The space a `[k]`/`[.]` mark names. */
export function markSpace(mark: string): string {
  return mark === "k" ? "kernel" : mark === "." ? "user" : mark;
}

/**
 * Splits the middle of a row (between the percentages and the mark) into the
 * Samples count, the Command and the Shared Object. Columns are separated by
 * two or more spaces; a single space is taken as a separator only when no
 * column is separated by two (the narrowest layouts).
 */
export function splitMiddle(
  middle: string,
  cols: PerfColumns | null,
): { samples: number | null; command: string | null; sharedObject: string | null } | { error: string } {
  let rest = middle;
  let samples: number | null = null;
  if (cols?.samples) {
    const s = /^(\d+)\s+(.*)$/.exec(rest);
    if (!s) return { error: "a sample count after the percentage, as the header's Samples column says" };
    samples = Number(s[1]);
    rest = s[2]!;
  }
  if (cols && !cols.sharedObject) {
    // The header names no Shared Object (`--sort symbol`, `--sort comm,sym`): whatever stands before the mark is the command.
    if (cols.command) return rest === "" ? { error: "a command before the [k]/[.] mark, as the header says" } : { samples, command: rest, sharedObject: null };
    if (rest !== "") return { error: "nothing between the percentage and the [k]/[.] mark, as the header names no Command or Shared Object" };
    return { samples, command: null, sharedObject: null };
  }
  if (rest === "") return { error: "a shared object before the [k]/[.] mark" };
  const words = rest.split(/\s{2,}/);
  let command: string | null;
  let sharedObject: string | null;
  if (words.length >= 2) {
    sharedObject = words[words.length - 1]!;
    command = words.slice(0, -1).join(" ");
  } else {
    const single = rest.split(/\s+/);
    sharedObject = single[single.length - 1]!;
    command = single.length > 1 ? single.slice(0, -1).join(" ") : null;
  }
  if (cols && !cols.command && command !== null) {
    // No Command column: the shared object may hold spaces (e.g. a path).
    sharedObject = rest;
    command = null;
  }
  return { samples, command, sharedObject };
}

/** Parses `perf report --stdio` text into rows. */
export function parsePerfReport(text: string, file: string): PerfReportRow[] {
  const lines = splitLines(text);
  const rows: PerfReportRow[] = [];
  /** Columns from the last header line. */
  let header: PerfColumns | null = null;
  let event: string | null = null;
  let table = -1;
  let inTable = false;

  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i]!;
    const t = unquote(raw);
    const s = t.trim();

    const cols = perfHeader(s);
    if (cols) {
      header = cols;
      inTable = false;
      continue;
    }
    // "# Samples: 345  of event 'cycles'", or the TUI's "Samples: 119K of event 'cycles', Event count …" without '#'.
    const ev = /^(?:#\s*)?Samples:\s+\S+\s+of event '([^']+)'/.exec(s);
    if (ev) {
      event = ev[1]!;
      inTable = false;
      continue;
    }
    if (s.startsWith("#")) {
      inTable = false;
      continue;
    }
    const joined = joinWrappedRow(t, lines[i + 1]);
    const m = matchPerfRow(joined ?? t);
    if (m && joined !== null) i++;
    if (!m) {
      // Blank lines do not end a table: perf prints one after each call graph.
      if (s === "") continue;
      const lead = /^\s*/.exec(t)![0].length;
      const callGraph = inTable && (/^[|`-]/.test(s) || lead >= 8 || (ROW_START.test(t) && !/\[[k.gusHhG]\]/.test(s)));
      if (callGraph) continue;
      if (looksLikeRow(t)) {
        throw new ParseError(file, n, "a perf report row: PCT% [PCT%] [COMMAND] SHARED-OBJECT [k|.] SYMBOL", quoteFound(raw));
      }
      inTable = false;
      continue;
    }
    const two = m.second !== null;
    if (header && header.children !== two) {
      throw new ParseError(
        file,
        n,
        header.children ? "two percentages (Children and Self) as the header says" : "one percentage (Overhead) as the header says",
        quoteFound(raw),
      );
    }
    const mid = splitMiddle(m.middle, header);
    if ("error" in mid) throw new ParseError(file, n, mid.error, quoteFound(raw));
    if (header && header.command && mid.command === null) {
      throw new ParseError(file, n, "a Command column before the shared object, as the header says", quoteFound(raw));
    }
    if (!inTable) {
      table++;
      inTable = true;
    }
    rows.push({
      file,
      line: n,
      table,
      label: m.label,
      childrenPct: two ? m.first : null,
      selfPct: two ? m.second! : m.first,
      samples: mid.samples,
      command: mid.command,
      sharedObject: mid.sharedObject,
      space: markSpace(m.mark),
      symbol: m.symbol,
      event,
    });
  }
  return rows;
}

/** Reads and parses a `perf report --stdio` file. */
export function parsePerfReportFile(path: string): PerfReportRow[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parsePerfReport(text, path);
}
