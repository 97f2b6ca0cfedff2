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

/**
 * Undoes quoted-printable soft line breaks in quoted mail text as archives keep it
 * raw ("Content-Transfer-Encoding: quoted-printable"): a quoted line ending in a
 * single "=" whose next line is not quoted was one line, cut at 76 columns by the
 * encoder. The continuation is appended to the quoted line and its own line
 * becomes empty, so line numbers stay those of the file. A line ending in "=="
 * is never a soft break ("=" itself is encoded as "=3D"). Returns the 0-based
 * indices of the lines that were joined.
 */
export function joinSoftBreaks(lines: string[]): number[] {
  const joined: number[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const l = lines[i]!.replace(/\r$/, "");
    const next = lines[i + 1]!.replace(/\r$/, "");
    if (!isQuoted(l) || !/[^=]=$/.test(l) || next.trim() === "" || isQuoted(next)) continue;
    lines[i] = l.slice(0, -1) + next;
    lines[i + 1] = "";
    joined.push(i);
    i++;
  }
  return joined;
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
