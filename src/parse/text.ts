/**
 * Small helpers shared by the tool-output parsers: splitting text into lines,
 * removing mail quoting, and reading numbers strictly.
 */

/** Splits text into lines (LF or CRLF); a final newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Removes mail quoting (`> `, `>> `, `> > `) from the start of a line. Only the
 * quote marks and the single space a mail client puts after them are removed,
 * so the column layout of a quoted table stays as it was.
 */
export function unquote(line: string): string {
  const m = /^(?:[ \t]*>)+ ?/.exec(line);
  return m ? line.slice(m[0].length) : line;
}

/** True when the line carries mail quoting. */
export function isQuoted(line: string): boolean {
  return /^[ \t]*>/.test(line);
}

/**
 * Parses a decimal number as printed by C's printf (`12`, `0.133`, `-1.5`,
 * `nan`, `-nan`); returns NaN for "nan" and undefined when the text is not a number.
 */
export function cNumber(text: string): number | undefined {
  const t = text.trim();
  if (/^-?nan$/i.test(t)) return Number.NaN;
  if (!/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/.test(t)) return undefined;
  return Number(t);
}

/** A finite number or null (NaN and infinities become null, as JSON cannot hold them). */
export function finiteOrNull(n: number | undefined): number | null {
  return n === undefined || !Number.isFinite(n) ? null : n;
}

/** Something an excerpt lacked or that a lenient parser skipped: reported beside the records, not thrown. */
export interface ParseWarning {
  file: string;
  line: number;
  message: string;
}
