/**
 * The kit's one CSV dialect (RFC 4180): a field holding a comma, a double quote,
 * a line feed or a carriage return is double-quoted with its quotes doubled; an
 * absent value (null, undefined) is the empty field. Every CSV the kit writes goes
 * through `csvCell`/`toCsv`; `csvFields`/`csvRows` read it back.
 */

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line of the given cells. */
export function csvLine(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(",");
}

/** Records as CSV with the given columns (keys), header first, one line each, a final newline. */
export function toCsv(columns: readonly string[], rows: readonly object[]): string {
  const lines = [columns.join(",")];
  for (const r of rows) lines.push(csvLine(columns.map((c) => (r as Record<string, unknown>)[c])));
  return `${lines.join("\n")}\n`;
}

/** The fields of one CSV line (a quoted field may hold commas; "" inside it is a quote). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** The rows of a CSV text with a header line, as objects by column name (lines without a line feed inside fields). */
export function csvRows(text: string): Record<string, string>[] {
  const [head, ...lines] = text.replace(/\r\n/g, "\n").trimEnd().split("\n");
  if (head === undefined || head === "") return [];
  const cols = csvFields(head);
  return lines.filter((l) => l !== "").map((l) => {
    const f = csvFields(l);
    return Object.fromEntries(cols.map((c, i) => [c, f[i] ?? ""]));
  });
}
