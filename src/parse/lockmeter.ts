/**
 * Parser for Linux 2.4-era lockmeter reports (`lockstat` output of the
 * lockmeter patch, 2000–2001), as posted to mailing lists:
 *
 *     SPINLOCKS             HOLD              WAIT
 *        UTIL     CON    MEAN (   MAX  )   MEAN (   MAX  )      TOTAL     NOWAIT       SPIN REJECT  NAME
 *
 *        4.04%   1.22%    50us(  3344us)   5.2us(  2014us)      36515      36068        447      0  kernel_flag
 *        0.01%   3.47%    46us(   427us)    17us(  2014us)        144        139          5      0    do_coredump+0x24
 *
 * A lock row's NAME follows the REJECT column after two spaces; its caller rows
 * are indented by two more. WAIT is a bare `0us` (no max) when nothing waited.
 * Times are normalised to microseconds (us, ms and s are accepted).
 *
 * A label line such as `2way:` before a table names the section of its rows.
 * Mail quoting (`> `) is removed; rows that a mail client wrapped onto two or
 * three lines are joined again. A line that starts like a row (two
 * percentages) and cannot be read as one, even joined with what follows, is a
 * ParseError, as is a time with an unknown unit.
 */
import { readFileSync } from "node:fs";
import { ParseError, UserError, quoteFound } from "../util/errors.js";
import { splitLines, unquote } from "./text.js";

export interface LockmeterRow {
  file: string;
  /** First line of the row in the file. */
  line: number;
  /** The label before the table (e.g. "2way"), or null. */
  section: string | null;
  /** The table kind from the header line (e.g. "SPINLOCKS"), or null when no header was seen. */
  table: string | null;
  kind: "lock" | "caller";
  /** The lock: its own name for a lock row, the lock above it for a caller row. */
  lock: string;
  /** The calling site (function+offset) for a caller row, null for a lock row. */
  caller: string | null;
  utilPct: number;
  conPct: number;
  holdMeanUs: number;
  holdMaxUs: number;
  waitMeanUs: number;
  /** Null where the report prints a bare wait mean without a max (nothing waited). */
  waitMaxUs: number | null;
  total: number;
  nowait: number;
  spin: number;
  reject: number;
  /** The NAME column as printed. */
  name: string;
}

const TIME = String.raw`(\d+(?:\.\d+)?)([A-Za-z]+)`;
const ROW_RE = new RegExp(
  String.raw`^(\s*)(\d+(?:\.\d+)?)%\s+(\d+(?:\.\d+)?)%\s+${TIME}\(\s*${TIME}\)\s+${TIME}(?:\(\s*${TIME}\))?\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)( +)(\S+)\s*$`,
);
/** A line that starts like a row: two percentages. */
const ROW_START = /^\s*\d+(?:\.\d+)?%\s+\d+(?:\.\d+)?%/;
const UNIT_TO_US: Record<string, number> = { us: 1, ms: 1000, s: 1_000_000 };

function toUs(file: string, line: number, value: string, unit: string, raw: string): number {
  const f = UNIT_TO_US[unit];
  if (f === undefined) {
    throw new ParseError(file, line, `a time unit us, ms or s`, `"${value}${unit}" in ${quoteFound(raw, 200)}`);
  }
  // Round away binary noise from the multiplication (e.g. 1.3ms → 1300us).
  return Math.round(Number(value) * f * 1e6) / 1e6;
}

/**
 * Parses a lockmeter report (or a mail quoting one). Returns the rows in file order.
 */
export function parseLockmeter(text: string, file: string): LockmeterRow[] {
  const lines = splitLines(text).map(unquote);
  const rows: LockmeterRow[] = [];
  let label: string | null = null;
  let section: string | null = null;
  let table: string | null = null;
  /** The lock the next caller rows belong to; reset by blank lines and headers. */
  let lock: string | null = null;

  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const text = lines[i]!;
    const t = text.trim();
    if (t === "") {
      lock = null;
      continue;
    }
    const lm = /^([A-Za-z0-9_.\-[\]]+):$/.exec(t);
    if (lm) {
      label = lm[1]!;
      continue;
    }
    if (/^(SPINLOCKS|RWLOCK READERS|RWLOCK WRITERS)\b/.test(t)) {
      table = /^(RWLOCK READERS|RWLOCK WRITERS|SPINLOCKS)/.exec(t)![1]!;
      section = label;
      lock = null;
      continue;
    }
    if (/^UTIL\s+CON\s+MEAN/.test(t)) continue;
    if (!ROW_START.test(text)) continue;

    // A row, possibly wrapped by a mail client onto the following line(s).
    let joined = text;
    let m = ROW_RE.exec(joined);
    let used = 0;
    while (!m && used < 2 && i + used + 1 < lines.length) {
      const next = lines[i + used + 1]!;
      if (next.trim() === "" || ROW_START.test(next) || /^\s*(SPINLOCKS|UTIL)\b/.test(next)) break;
      const raw = joined + next;
      const spaced = joined.replace(/\s*$/, " ") + next.trimStart();
      m = ROW_RE.exec(raw) ?? ROW_RE.exec(spaced);
      if (m) joined = ROW_RE.exec(raw) ? raw : spaced;
      used++;
    }
    if (!m) {
      // Name the specific problem when it is a time unit.
      const units = [...text.matchAll(/\d(?:\.\d+)?([A-Za-z]+)\(/g), ...text.matchAll(/\(\s*\d+(?:\.\d+)?([A-Za-z]+)\)/g)];
      for (const u of units) {
        if (UNIT_TO_US[u[1]!] === undefined) toUs(file, n, "", u[1]!, text);
      }
      throw new ParseError(
        file,
        n,
        "a lockmeter row: UTIL% CON% HOLD-MEAN(MAX) WAIT-MEAN[(MAX)] TOTAL NOWAIT SPIN REJECT NAME",
        quoteFound(text, 200),
      );
    }
    i += used;
    const g = m;
    const name = g[17]!;
    const gap = g[16]!.length;
    // Lock rows: NAME two spaces after REJECT; caller rows: four or more.
    const kind: "lock" | "caller" = gap >= 4 ? "caller" : "lock";
    if (kind === "caller" && lock === null) {
      throw new ParseError(file, n, "a lock row before this caller row (caller rows are indented under their lock)", quoteFound(text, 200));
    }
    if (kind === "lock") lock = name;
    rows.push({
      file,
      line: n,
      section,
      table,
      kind,
      lock: kind === "lock" ? name : lock!,
      caller: kind === "caller" ? name : null,
      utilPct: Number(g[2]),
      conPct: Number(g[3]),
      holdMeanUs: toUs(file, n, g[4]!, g[5]!, joined),
      holdMaxUs: toUs(file, n, g[6]!, g[7]!, joined),
      waitMeanUs: toUs(file, n, g[8]!, g[9]!, joined),
      waitMaxUs: g[10] === undefined ? null : toUs(file, n, g[10], g[11]!, joined),
      total: Number(g[12]),
      nowait: Number(g[13]),
      spin: Number(g[14]),
      reject: Number(g[15]),
      name,
    });
  }
  return rows;
}

/** Reads and parses a lockmeter report file. */
export function parseLockmeterFile(path: string): LockmeterRow[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseLockmeter(text, path);
}
