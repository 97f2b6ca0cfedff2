/**
 * Parser for the flat rows of `perf report --stdio`:
 *
 *     # Children      Self  Command   Shared Object      Symbol
 *         49.01%     0.87%  postgres  [kernel.vmlinux]   [k] __schedule
 *     # Overhead  Command  Shared Object  Symbol
 *         12.30%  gzip     gzip           [.] deflate_slow
 *
 * Rows have one percentage (Overhead, `--no-children`) or two (Children and
 * Self), then the optional Command column, the Shared Object and the symbol
 * after its `[k]` (kernel) or `[.]` (user) mark. Call-graph lines under a row
 * (`|`, `---`, bare percentages without a mark) are skipped. Header comments
 * name the columns and the sampled event. Mail quoting is removed.
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
  /** Children % (inclusive), or null when the report has a single Overhead column. */
  childrenPct: number | null;
  /** Self % (Overhead when the report has a single percentage column). */
  selfPct: number;
  /** The Command column, or null when the report has none (e.g. `--sort dso,sym`). */
  command: string | null;
  sharedObject: string;
  /** "kernel" for `[k]`, "user" for `[.]`, or the mark's letter for other kinds (e.g. "g" guest). */
  space: string;
  symbol: string;
  /** The sampled event from the `# Samples: … of event '…'` comment before the table, if any. */
  event: string | null;
}

const PCT = String.raw`(\d+(?:\.\d+)?)%`;
/** Optional call-graph expansion mark (`+`/`-`) then one or two percentages, the middle, the mark and the symbol. */
const ROW_RE = new RegExp(String.raw`^\s*[-+]?\s*${PCT}(?:\s+${PCT})?\s+(.*?)\s*\[([k.gusHhG])\]\s+(.+?)\s*$`);
const ROW_START = new RegExp(String.raw`^\s*[-+]?\s*${PCT}\s`);
const TWO_PCT = new RegExp(String.raw`^\s*[-+]?\s*${PCT}\s+${PCT}\s`);

/** Parses `perf report --stdio` text into rows. */
export function parsePerfReport(text: string, file: string): PerfReportRow[] {
  const lines = splitLines(text);
  const rows: PerfReportRow[] = [];
  /** Columns from the last header comment: whether a Children column and a Command column are present. */
  let header: { children: boolean; command: boolean } | null = null;
  let event: string | null = null;
  let table = -1;
  let inTable = false;

  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i]!;
    const t = unquote(raw);
    const s = t.trim();

    if (s.startsWith("#")) {
      const c = s.replace(/^#\s*/, "");
      const ev = /^Samples:\s+\S+\s+of event '([^']+)'/.exec(c);
      if (ev) event = ev[1]!;
      if (/^(Children|Overhead)\b/.test(c) && /\bSymbol\b/.test(c)) {
        header = { children: /^Children\s+Self\b/.test(c), command: /\bCommand\b/.test(c) };
      }
      inTable = false;
      continue;
    }
    const m = ROW_RE.exec(t);
    if (!m) {
      // Blank lines do not end a table: perf prints one after each call graph.
      if (s === "") continue;
      const lead = /^\s*/.exec(t)![0].length;
      const hasMark = /\[[k.gusHhG]\]/.test(s);
      const callGraph = inTable && (/^[|`-]/.test(s) || lead >= 8 || (ROW_START.test(t) && !hasMark));
      if (callGraph) continue;
      if (ROW_START.test(t) && (hasMark || TWO_PCT.test(t))) {
        throw new ParseError(file, n, "a perf report row: PCT% [PCT%] [COMMAND] SHARED-OBJECT [k|.] SYMBOL", quoteFound(raw));
      }
      inTable = false;
      continue;
    }
    const two = m[2] !== undefined;
    if (header && header.children !== two) {
      throw new ParseError(
        file,
        n,
        header.children ? "two percentages (Children and Self) as the header says" : "one percentage (Overhead) as the header says",
        quoteFound(raw),
      );
    }
    const middle = m[3]!.trim();
    if (middle === "") throw new ParseError(file, n, "a shared object before the [k]/[.] mark", quoteFound(raw));
    const words = middle.split(/\s{2,}/);
    let command: string | null = null;
    let sharedObject: string;
    if (words.length >= 2) {
      sharedObject = words[words.length - 1]!;
      command = words.slice(0, -1).join(" ");
    } else {
      const single = middle.split(/\s+/);
      sharedObject = single[single.length - 1]!;
      command = single.length > 1 ? single.slice(0, -1).join(" ") : null;
    }
    if (header && header.command && command === null) {
      throw new ParseError(file, n, "a Command column before the shared object, as the header says", quoteFound(raw));
    }
    if (!inTable) {
      table++;
      inTable = true;
    }
    const mark = m[4]!;
    rows.push({
      file,
      line: n,
      table,
      childrenPct: two ? Number(m[1]) : null,
      selfPct: two ? Number(m[2]) : Number(m[1]),
      command,
      sharedObject,
      space: mark === "k" ? "kernel" : mark === "." ? "user" : mark,
      symbol: m[5]!,
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
