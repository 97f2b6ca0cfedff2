/**
 * `perf lock contention` and `perf lock report` text output.
 *
 * contention: a header line ` contended   total wait   max wait   avg wait   <key columns>`
 * (the time columns follow -F; the key columns depend on the aggregation mode):
 *   type   caller       by stack trace (default)            "spinlock   pollwake+0x73"
 *   pid    comm         -t / --threads, also -o (owner)     "1665   postgres"  (pid -1 = Unknown owner)
 *   address symbol      -l / --lock-addr                     "ffffa105becb45c0   mmap_lock (rwsem)"
 *   cgroup              --lock-cgroup                        "/sys"
 * With -v, each entry is followed by its stack ("0xffffffff9d0407c0  _raw_spin_lock+0x30"), the
 * header is preceded by symbol-loading messages and a "=== output for debug ===" block ends the output.
 * Times carry a unit: ns, us, ms or s ("900 ns", "28.02 ms", "1.58 s").
 *
 * report: header `Name   acquired  contended     avg wait   total wait     max wait     min wait`
 * (columns follow -F), one row per lock (name truncated to 20 columns with "...") or per thread (-t).
 */
import { ParseError, quoteFound } from "../util/errors.js";
import { joinSoftBreaks, unquote, type ParseWarning } from "./text.js";

export type PerfLockMode = "caller" | "task" | "lock" | "cgroup";
type TimeField = "waitTotalNs" | "waitMaxNs" | "waitMinNs" | "waitAvgNs";

export interface PerfLockContentionEntry {
  contended: number | null;
  waitTotalNs: number | null;
  waitMaxNs: number | null;
  waitMinNs: number | null;
  waitAvgNs: number | null;
  /** caller mode: lock type ("spinlock", "rwsem:W", …) and the caller symbol. */
  type: string | null;
  caller: string | null;
  /** task mode. */
  pid: number | null;
  comm: string | null;
  /** lock mode: the address and the symbol (may be empty); the type is in `type`. */
  address: string | null;
  symbol: string | null;
  /** cgroup mode. */
  cgroup: string | null;
  /** With -v: the stack of the entry. */
  stack: { address: string; symbol: string }[];
  /** 1-based table number: posts show several outputs (before/after, two options) with text between them. */
  table: number;
  /** With -o and -v (perf ≥ 6.15): entries after "=== owner stack trace ===" aggregate lock owners, not waiters. */
  owner: boolean;
  line: number;
}

export interface PerfLockContention {
  file: string;
  /** Mode and columns of the first table (see `tables` for the others). */
  mode: PerfLockMode;
  /** The time/count columns in header order. */
  columns: string[];
  /**
   * Every table found: its header line (1-based), mode and time/count columns. A table whose rows
   * follow text without a header of their own (`headerless`) takes the previous table's columns;
   * its `line` is that of its first row.
   */
  tables: { line: number; mode: PerfLockMode; columns: string[]; headerless: boolean }[];
  entries: PerfLockContentionEntry[];
  /** Lines before the header (perf's symbol-loading messages with -v). */
  messages: string[];
  /** The "=== output for debug ===" block of -v, when present. */
  debug: { bad: number; total: number; histogram: Record<string, number> } | null;
  /** What a pasted output lacked or had after it ("..." elisions, prose). */
  warnings: ParseWarning[];
}

export interface PerfLockReportEntry {
  name: string;
  /** True when perf cut the name to fit its column (ends in "..."). */
  truncated: boolean;
  acquired: number | null;
  contended: number | null;
  waitAvgNs: number | null;
  waitTotalNs: number | null;
  waitMaxNs: number | null;
  waitMinNs: number | null;
  /** 1-based table of the text (before/after pairs have two). */
  table: number;
  line: number;
}

export interface PerfLockReport {
  file: string;
  /** The columns of the first table. */
  columns: string[];
  entries: PerfLockReportEntry[];
  /** What a pasted report lacked or had around it ("..." elisions, prose after a table). */
  warnings: ParseWarning[];
}

// perf ≥ 5.20 prints "h" and "m" (minutes) for long waits too (lock_stat_key_print_time()).
const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

const CONTENTION_COLUMNS: Record<string, "contended" | TimeField> = {
  contended: "contended",
  "total wait": "waitTotalNs",
  "max wait": "waitMaxNs",
  "min wait": "waitMinNs",
  "avg wait": "waitAvgNs",
};
const REPORT_COLUMNS: Record<string, keyof PerfLockReportEntry> = {
  acquired: "acquired",
  contended: "contended",
  "avg wait": "waitAvgNs",
  "total wait": "waitTotalNs",
  "max wait": "waitMaxNs",
  "min wait": "waitMinNs",
};

/** Splits a header into its known column labels (some are two words). */
function headerColumns(t: string, known: string[]): string[] | null {
  const out: string[] = [];
  let rest = t.trim();
  while (rest.length > 0) {
    const k = known.find((c) => rest.startsWith(c) && (rest.length === c.length || /\s/.test(rest[c.length]!)));
    if (!k) return null;
    out.push(k);
    rest = rest.slice(k.length).trim();
  }
  return out;
}

const KEY_TAILS: [string[], PerfLockMode][] = [
  [["type", "caller"], "caller"],
  [["pid", "comm"], "task"],
  [["address", "symbol"], "lock"],
  [["cgroup"], "cgroup"],
];

function contentionHeader(t: string): { columns: string[]; mode: PerfLockMode } | null {
  const cols = headerColumns(t, [...Object.keys(CONTENTION_COLUMNS), "type", "caller", "pid", "comm", "address", "symbol", "cgroup"]);
  if (!cols || cols[0] !== "contended") return null;
  for (const [tail, mode] of KEY_TAILS) {
    const head = cols.slice(0, cols.length - tail.length);
    if (cols.slice(-tail.length).join(" ") === tail.join(" ") && head.every((c) => c in CONTENTION_COLUMNS)) return { columns: head, mode };
  }
  return null;
}

export function detectPerfLockContention(text: string): boolean {
  return contentionLines(text.split("\n", 400).join("\n")).lines.some((l) => contentionHeader(l) !== null);
}

export function detectPerfLockReport(text: string): boolean {
  return text.split("\n", 400).some((l) => reportHeader(unquote(l).replace(/\t/g, " ").trim()) !== null);
}

/** Reads `count` values from the tokens: integers for counts, "<number> <unit>" for times. */
function takeValues(tokens: string[], kinds: ("count" | "time")[], file: string, lineNo: number, raw: string): number[] {
  const out: number[] = [];
  for (const kind of kinds) {
    const v = tokens.shift();
    if (v === undefined || !/^-?\d+(\.\d+)?$/.test(v)) throw new ParseError(file, lineNo, kind === "count" ? "a count" : "a time like `12.80 us`", quoteFound(raw));
    if (kind === "count") out.push(Number(v));
    else {
      const u = tokens.shift();
      if (u === undefined || !(u in UNIT_NS)) throw new ParseError(file, lineNo, "a time unit (ns, us, ms, s)", quoteFound(raw));
      out.push(Math.round(Number(v) * UNIT_NS[u]!));
    }
  }
  return out;
}

/** The lines of a contention output as posted: quoted-printable soft breaks joined, quoting and CRs removed, tabs expanded. */
function contentionLines(text: string): { lines: string[]; joined: number[] } {
  const raw = text.split("\n");
  const joined = joinSoftBreaks(raw);
  return { lines: raw.map((l) => unquote(l.replace(/\r$/, "")).replace(/\t/g, "        ")), joined };
}

const ELISION = /^(?:\.\.\.|…|\[\.\.\.\]|\.\.\.\s*snip\s*\.\.\.|<snip>)$/i;

export function parsePerfLockContention(text: string, file: string): PerfLockContention {
  const { lines, joined } = contentionLines(text);
  let h = -1;
  let header: ReturnType<typeof contentionHeader> = null;
  for (let i = 0; i < lines.length; i++) {
    header = contentionHeader(lines[i]!);
    if (header) {
      h = i;
      break;
    }
  }
  if (!header) {
    const first = lines.findIndex((l) => l.trim() !== "");
    const errLine = lines.findIndex((l) => /^\s*Error:/.test(l));
    const at = errLine >= 0 ? errLine : Math.max(first, 0);
    throw new ParseError(file, at + 1, "a `perf lock contention` header ( contended   total wait … )", quoteFound(lines[at]));
  }
  const out: PerfLockContention = {
    file,
    mode: header.mode,
    columns: header.columns,
    tables: [{ line: h + 1, mode: header.mode, columns: header.columns, headerless: false }],
    entries: [],
    messages: lines.slice(0, h).map((l) => l.trimEnd()).filter((l) => l !== ""),
    debug: null,
    warnings: [],
  };
  if (joined.length > 0) {
    out.warnings.push({
      file,
      line: joined[0]! + 1,
      message: `${joined.length} quoted-printable soft line break(s) joined (a quoted line ending in "=" continued on the next, unquoted line): line(s) ${joined.map((j) => j + 1).join(", ")}`,
    });
  }
  let kinds = header.columns.map((c) => (c === "contended" ? "count" : "time")) as ("count" | "time")[];
  let table = 1;
  let owner = false;
  /** Between tables: text that is not contention output, until the next header line. */
  let between = false;
  for (let i = h + 1; i < lines.length; i++) {
    const raw = lines[i]!;
    const t = raw.trim();
    if (t === "") continue;
    if (between) {
      const next = contentionHeader(raw);
      if (next) {
        header = next;
        kinds = header.columns.map((c) => (c === "contended" ? "count" : "time")) as ("count" | "time")[];
        table++;
        owner = false;
        between = false;
        out.tables.push({ line: i + 1, mode: header.mode, columns: header.columns, headerless: false });
        continue;
      }
      if (/^\d/.test(t)) {
        // Rows again after the text, without a header line: a table pasted without its header.
        let e: PerfLockContentionEntry | null = null;
        try {
          e = row(t, raw, i, table + 1, false);
        } catch (err) {
          if (!(err instanceof ParseError)) throw err;
        }
        if (e) {
          table++;
          owner = false;
          between = false;
          out.tables.push({ line: i + 1, mode: header!.mode, columns: header!.columns, headerless: true });
          out.warnings.push({ file, line: i + 1, message: `table ${table}: rows without a header line; the columns of table ${table - 1} are assumed` });
          out.entries.push(e);
        }
      }
      continue;
    }
    if (/^=== output for debug ?===$/.test(t)) {
      out.debug = parseDebug(lines, i + 1, file, out.warnings);
      break;
    }
    if (/^=== owner stack trace ===$/.test(t)) {
      owner = true;
      continue;
    }
    if (ELISION.test(t)) {
      out.warnings.push({ file, line: i + 1, message: `"${t}" — entries left out by the poster` });
      continue;
    }
    const st = /^(0x[0-9a-f]+)\s+(.*)$/.exec(t);
    if (st && /^(\t|\s{8,})/.test(raw)) {
      const last = out.entries[out.entries.length - 1];
      if (!last) throw new ParseError(file, i + 1, "an entry before its stack", quoteFound(raw));
      last.stack.push({ address: st[1]!, symbol: st[2]!.trim() });
      continue;
    }
    if (!/^\d/.test(t) && out.entries.length > 0) {
      // Prose after the table (a mail goes on): say so, and look for another table after it.
      out.warnings.push({ file, line: i + 1, message: `the table ends here: followed by text that is not perf lock contention output (${quoteFound(raw, 60)})` });
      between = true;
      continue;
    }
    out.entries.push(row(t, raw, i, table, owner));
  }
  return out;

  /** One entry row of the current header's shape (a ParseError naming the line when it is not). */
  function row(t: string, raw: string, i: number, table: number, owner: boolean): PerfLockContentionEntry {
    const tokens = t.split(/\s+/);
    const vals = takeValues(tokens, kinds, file, i + 1, raw);
    const e: PerfLockContentionEntry = {
      contended: null,
      waitTotalNs: null,
      waitMaxNs: null,
      waitMinNs: null,
      waitAvgNs: null,
      type: null,
      caller: null,
      pid: null,
      comm: null,
      address: null,
      symbol: null,
      cgroup: null,
      stack: [],
      table,
      owner,
      line: i + 1,
    };
    header!.columns.forEach((c, k) => {
      (e as unknown as Record<string, number>)[CONTENTION_COLUMNS[c]!] = vals[k]!;
    });
    const rest = tokens.join(" ");
    switch (header!.mode) {
      case "caller": {
        const m = /^(\S+)\s*(.*)$/.exec(rest);
        if (!m) throw new ParseError(file, i + 1, "a lock type and a caller after the times", quoteFound(raw));
        e.type = m[1]!;
        e.caller = m[2]!;
        break;
      }
      case "task": {
        const m = /^(-?\d+)\s+(.*)$/.exec(rest);
        if (!m) throw new ParseError(file, i + 1, "a pid and a command name after the times", quoteFound(raw));
        e.pid = Number(m[1]);
        e.comm = m[2]!;
        break;
      }
      case "lock": {
        const m = /^([0-9a-f]+)\s*(.*?)\s*\(([^()]+)\)$/.exec(rest);
        if (!m) throw new ParseError(file, i + 1, "an address, an optional symbol and a (type) after the times", quoteFound(raw));
        e.address = m[1]!;
        e.symbol = m[2]!;
        e.type = m[3]!;
        break;
      }
      case "cgroup":
        if (rest === "") throw new ParseError(file, i + 1, "a cgroup path after the times", quoteFound(raw));
        e.cgroup = rest;
        break;
    }
    return e;
  }
}

function parseDebug(lines: string[], from: number, file: string, warnings: ParseWarning[]): NonNullable<PerfLockContention["debug"]> {
  const d = { bad: NaN, total: NaN, histogram: {} as Record<string, number> };
  for (let i = from; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t === "") continue;
    let m: RegExpExecArray | null;
    if ((m = /^bad: (\d+), total: (\d+)$/.exec(t))) {
      d.bad = Number(m[1]);
      d.total = Number(m[2]);
    } else if (/^bad rate: [\d.]+ %$/.test(t) || /^histogram of /.test(t)) continue;
    else if ((m = /^([\w ]+): (\d+)$/.exec(t))) d.histogram[m[1]!.trim()] = Number(m[2]);
    else if (Number.isFinite(d.bad)) {
      // A mail goes on after the pasted output.
      warnings.push({ file, line: i + 1, message: `the debug block ends here: followed by text that is not perf output (${quoteFound(lines[i], 60)})` });
      break;
    } else throw new ParseError(file, i + 1, "a line of perf's debug block (bad: N, total: N / name: N)", quoteFound(lines[i]));
  }
  if (!Number.isFinite(d.bad)) throw new ParseError(file, lines.length, '"bad: N, total: N" in the debug block', "none");
  return d;
}

const ROW_TAIL = /(?:^|\s)(?:\d+(?:\.\d+)?|ns|us|ms|s|m|h)$/;

/** The values at the end of a report row when they all parse for these kinds, else null. */
function rowValues(t: string, kinds: ("count" | "time" | "ns")[]): string[] | null {
  const tokens = t.split(/\s+/);
  const width = kinds.reduce((sum, k) => sum + (k === "time" ? 2 : 1), 0);
  if (tokens.length < width) return null;
  const v = tokens.slice(tokens.length - width);
  let j = 0;
  for (const k of kinds) {
    if (k === "time") {
      if (!/^\d+(?:\.\d+)?$/.test(v[j]!) || !(v[j + 1]! in UNIT_NS)) return null;
      j += 2;
    } else {
      if (!/^\d+$/.test(v[j]!)) return null;
      j++;
    }
  }
  return v;
}

/**
 * Splits a report header after "Name" into columns and how each prints its
 * values: "count", "time" (number and unit, perf ≥ 5.20) or "ns" (a plain
 * number of nanoseconds: "avg wait (ns)" in perf ≤ 5.19, "max wait(ns)" in 5.18's -F).
 */
function reportHeader(t: string): { columns: string[]; kinds: ("count" | "time" | "ns")[] } | null {
  const m = /^Name(?:\s+(.*))?$/.exec(t);
  if (!m) return null;
  const rest = (m[1] ?? "").trim();
  const columns: string[] = [];
  const kinds: ("count" | "time" | "ns")[] = [];
  let r = rest;
  const known = Object.keys(REPORT_COLUMNS);
  while (r.length > 0) {
    const k = known.find((c) => r.startsWith(c) && (r.length === c.length || /[\s(]/.test(r[c.length]!)));
    if (!k) return null;
    r = r.slice(k.length);
    const ns = /^\s*\(ns\)/.exec(r);
    if (ns) r = r.slice(ns[0].length);
    r = r.trim();
    columns.push(k);
    kinds.push(k === "acquired" || k === "contended" ? "count" : ns ? "ns" : "time");
  }
  return columns.length > 0 ? { columns, kinds } : null;
}

/**
 * `perf lock report` text, as printed or as pasted: one or more tables (a
 * "Name …" header each, e.g. before/after a change), old "(ns)" columns or
 * values with units, -F field selections, names cut with "...", empty names,
 * "..." elision lines, mail quoting, tabs, CRLF, and prose before, between and
 * after the tables (reported in `warnings`). A line shaped like a row whose
 * values do not parse is a ParseError.
 */
export function parsePerfLockReport(text: string, file: string): PerfLockReport {
  const lines = text.split("\n");
  const out: PerfLockReport = { file, columns: [], entries: [], warnings: [] };
  type Table = { columns: string[]; kinds: ("count" | "time" | "ns")[]; index: number; line: number };
  let cur: Table | null = null;
  let last: Table | null = null;
  let tables = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const t = unquote(raw.replace(/\r$/, "")).replace(/\t/g, " ").trim();
    if (t === "") continue;
    const h = reportHeader(t);
    if (h) {
      tables++;
      cur = { ...h, index: tables, line: i + 1 };
      last = cur;
      if (tables === 1) out.columns = h.columns;
      else if (h.columns.join(",") !== out.columns.join(",")) out.warnings.push({ file, line: i + 1, message: `table ${tables} has other columns (${h.columns.join(", ")}) than table 1` });
      continue;
    }
    if (!cur) {
      // A row after prose that interrupted a table ("With this patch:" and one more row): read it with
      // the columns of the last table, as a table of its own, and say so.
      const lt = last;
      // (Only for tables of two or more values: one number at the end of a sentence is not a row.)
      if (lt && lt.kinds.length >= 2 && ROW_TAIL.test(t) && rowValues(t, lt.kinds) !== null) {
        tables++;
        cur = { ...lt, index: tables, line: i + 1 };
        out.warnings.push({ file, line: i + 1, message: `table ${tables}: rows without a header line, read with the columns of table ${lt.index}` });
      } else continue; // text before the first header or between tables
    }
    if (/^=== output for debug ?===$/.test(t)) {
      cur = null;
      continue;
    }
    if (/^(?:\.\.\.|…)$/.test(t)) {
      out.warnings.push({ file, line: i + 1, message: `table ${cur.index}: "..." — rows left out by the poster` });
      continue;
    }
    const tokens = t.split(/\s+/);
    const width = cur.kinds.reduce((sum, k) => sum + (k === "time" ? 2 : 1), 0);
    if (!ROW_TAIL.test(t) || tokens.length < width) {
      // Prose: the table ends here.
      out.warnings.push({ file, line: i + 1, message: `table ${cur.index} ends here: followed by text that is not perf lock report output (${quoteFound(raw, 60)})` });
      cur = null;
      continue;
    }
    const valueTokens = tokens.slice(tokens.length - width);
    const name = tokens.slice(0, tokens.length - width).join(" ");
    const vals: number[] = [];
    const vt = [...valueTokens];
    for (const kind of cur.kinds) {
      if (kind === "ns") {
        const v = vt.shift();
        if (v === undefined || !/^\d+$/.test(v)) throw new ParseError(file, i + 1, `a name and ${cur.columns.length} values (${cur.columns.join(", ")}; times in ns)`, quoteFound(raw));
        vals.push(Number(v));
      } else {
        const taken = takeValues(vt, [kind], file, i + 1, raw);
        vals.push(taken[0]!);
      }
    }
    const e: PerfLockReportEntry = {
      name,
      truncated: name.endsWith("..."),
      acquired: null,
      contended: null,
      waitAvgNs: null,
      waitTotalNs: null,
      waitMaxNs: null,
      waitMinNs: null,
      table: cur.index,
      line: i + 1,
    };
    cur.columns.forEach((c, k) => {
      (e as unknown as Record<string, number>)[REPORT_COLUMNS[c]!] = vals[k]!;
    });
    out.entries.push(e);
  }
  if (tables === 0) {
    const first = lines.findIndex((l) => l.trim() !== "");
    throw new ParseError(file, Math.max(first, 0) + 1, "a `perf lock report` header (Name   acquired  contended …)", quoteFound(lines[Math.max(first, 0)]));
  }
  return out;
}
