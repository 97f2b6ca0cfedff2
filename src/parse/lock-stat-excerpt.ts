/**
 * `/proc/lock_stat` as people post it: whole files or excerpts, version 0.3
 * (10 numbers per row: no waittime-avg/holdtime-avg) or 0.4 (12 numbers), with
 * or without the version line and the column header, several tables in one
 * text (before/after pairs), mail quoting at any depth, rows and contention
 * points wrapped by the mail client, CRLF, tabs, prose before, between and after.
 *
 * What the strict parser (proc-lock-stat.ts) would refuse but an excerpt may
 * lack is reported in `warnings`, never guessed silently: a missing version line
 * or header, an unrecognised header, a table that ends at prose, a point line
 * whose class row is not in the excerpt. A row whose numbers do not add up to
 * the table's layout is a ParseError naming the line.
 */
import { ParseError, quoteFound } from "../util/errors.js";
import { unquote, type ParseWarning } from "./text.js";

/** The numeric columns a table can have, in kernel order, and the record field of each. */
const COLUMN_FIELDS: Record<string, keyof ExcerptNumbers> = {
  "con-bounces": "conBounces",
  contentions: "contentions",
  "waittime-min": "waittimeMinUs",
  "waittime-max": "waittimeMaxUs",
  "waittime-total": "waittimeTotalUs",
  "waittime-avg": "waittimeAvgUs",
  "acq-bounces": "acqBounces",
  acquisitions: "acquisitions",
  "holdtime-min": "holdtimeMinUs",
  "holdtime-max": "holdtimeMaxUs",
  "holdtime-total": "holdtimeTotalUs",
  "holdtime-avg": "holdtimeAvgUs",
};

/** Version 0.3 (Linux 2.6.25 … 3.x): ten numbers. */
export const COLUMNS_V03 = [
  "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total",
  "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total",
];
/** Version 0.4: the averages added after each total. */
export const COLUMNS_V04 = [
  "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total", "waittime-avg",
  "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total", "holdtime-avg",
];
const LAYOUT_BY_VERSION: Record<string, string[]> = { "0.3": COLUMNS_V03, "0.4": COLUMNS_V04 };

interface ExcerptNumbers {
  conBounces: number;
  contentions: number;
  waittimeMinUs: number;
  waittimeMaxUs: number;
  waittimeTotalUs: number;
  /** null in version 0.3 tables (not printed; not computed here). */
  waittimeAvgUs: number | null;
  acqBounces: number;
  acquisitions: number;
  holdtimeMinUs: number;
  holdtimeMaxUs: number;
  holdtimeTotalUs: number;
  holdtimeAvgUs: number | null;
}

/** One statistics row of a class (or its -W / -R half). */
export interface ExcerptRow extends ExcerptNumbers {
  className: string;
  mode: "exclusive" | "write" | "read";
  line: number;
}

export interface ExcerptPoint {
  role: "contention" | "contending";
  count: number;
  ip: string;
  symbol: string;
  line: number;
}

export interface ExcerptClass {
  name: string;
  rows: ExcerptRow[];
  points: ExcerptPoint[];
}

export interface LockStatTable {
  /** 1-based position of the table in the text. */
  index: number;
  /** Line where the table starts (its version line, header or first row). */
  line: number;
  /** "0.3"/"0.4" from the version line; null when the excerpt has none. */
  version: string | null;
  /** The numeric columns of each row, in order. */
  columns: string[];
  /** The line of prose right before the table ("Before the patch:"), trimmed; null when none. */
  label: string | null;
  /** The kernel's "*WARNING* lock debugging disabled!!" line when present. */
  kernelWarning: string | null;
  classes: ExcerptClass[];
}

export interface LockStatExcerpt {
  file: string;
  tables: LockStatTable[];
  warnings: ParseWarning[];
}

const NUM = /^\d+(?:\.\d+)?$/;
const VERSION = /^lock_stat version (\d+\.\d+)$/;
const ROW_START = /^(\S.*?)(-[WR])?:((?:\s+\d+(?:\.\d+)?)*)$/;
const POINT = /^(\S.*?)\s+(\d+)\s+(\[<[0-9a-fA-Fx]+>\])\s+(\S.*)$/;
const POINT_HEAD = /^(\S*[^\d\s.]\S*(?:\s+\S+)*?)\s+(\d+)$/;
const POINT_TAIL = /^(\[<[0-9a-fA-Fx]+>\])\s+(\S.*)$/;
const HEADER_WORDS = new Set(["class", "name", ...Object.keys(COLUMN_FIELDS)]);

function numbersOf(s: string): string[] {
  const t = s.trim();
  return t === "" ? [] : t.split(/\s+/);
}

/** True when the text looks like /proc/lock_stat output or an excerpt of it. */
export function detectLockStatExcerpt(text: string): boolean {
  const head = text.length > 1_000_000 ? text.slice(0, 1_000_000) : text;
  return /lock_stat version \d+\.\d+/.test(head) || /class name\s+con-bounces\s+contentions/.test(head);
}

/** Parses /proc/lock_stat text or excerpts of it (see the module comment). */
export function parseLockStatExcerpt(text: string, file: string): LockStatExcerpt {
  const lines = text.split("\n");
  const out: LockStatExcerpt = { file, tables: [], warnings: [] };
  const warn = (line: number, message: string): void => {
    out.warnings.push({ file, line, message });
  };

  let table: LockStatTable | null = null;
  let cls: ExcerptClass | null = null;
  let block = 0; // 0: rows; 1: contention points; 2: contending points
  /** "version": after the version line; "header": between the dash lines around the column names. */
  let headerState: "none" | "version" | "header" = "none";
  let headerWords: string[] = [];
  let headerLine = 0;
  let pending: { name: string; mode: ExcerptRow["mode"]; nums: string[]; line: number; raw: string } | null = null;
  let pendingPoint: { name: string; count: number; line: number } | null = null;
  let lastProse: { text: string; line: number } | null = null;

  // A function, so that TypeScript does not narrow `cls` from the assignments it cannot see in the closures.
  const currentClass = (): ExcerptClass | null => cls;

  const startTable = (lineNo: number, version: string | null): LockStatTable => {
    const t: LockStatTable = {
      index: out.tables.length + 1,
      line: lineNo,
      version,
      columns: version && LAYOUT_BY_VERSION[version] ? LAYOUT_BY_VERSION[version]! : [],
      label: lastProse && lineNo - lastProse.line <= 3 && /[A-Za-z]/.test(lastProse.text) ? lastProse.text : null,
      kernelWarning: null,
      classes: [],
    };
    out.tables.push(t);
    cls = null;
    block = 0;
    return t;
  };

  const finishHeader = (lineNo: number): void => {
    if (!table) return;
    const names = headerWords.join(" ").replace(/^class name\s*/, "").split(/\s+/).filter((w) => w !== "");
    const known = names.length > 0 && names.every((n) => n in COLUMN_FIELDS) && (names.length === 10 || names.length === 12);
    if (known) {
      if (table.version && LAYOUT_BY_VERSION[table.version] && LAYOUT_BY_VERSION[table.version]!.join(" ") !== names.join(" ")) {
        warn(headerLine, `table ${table.index}: the column header does not match lock_stat version ${table.version}; used the header's ${names.length} columns`);
      }
      table.columns = names;
    } else if (names.length > 0) {
      const fallback = table.version && LAYOUT_BY_VERSION[table.version] ? `the version ${table.version} layout` : "the number of values in the rows";
      warn(headerLine || lineNo, `table ${table.index}: column header not recognised (${JSON.stringify(names.join(" ").slice(0, 80))}); used ${fallback}`);
    }
    headerWords = [];
    headerState = "none";
  };

  const finishRow = (lineNo: number): void => {
    if (!pending || !table) return;
    const p = pending;
    pending = null;
    let columns = table.columns;
    if (columns.length === 0) {
      if (p.nums.length === 12) columns = COLUMNS_V04;
      else if (p.nums.length === 10) columns = COLUMNS_V03;
      else {
        throw new ParseError(file, p.line, `10 (version 0.3) or 12 (version 0.4) numbers after "${p.name}:"`, `${p.nums.length}: ${quoteFound(p.raw)}`);
      }
      table.columns = columns;
      warn(p.line, `table ${table.index}: no column header; ${columns.length} numbers per row read as the lock_stat version ${columns.length === 12 ? "0.4" : "0.3"} layout`);
    }
    if (p.nums.length !== columns.length) {
      throw new ParseError(file, lineNo, `${columns.length} numbers for class "${p.name}" (row from line ${p.line})`, `${p.nums.length}`);
    }
    const v: ExcerptNumbers = {
      conBounces: 0, contentions: 0, waittimeMinUs: 0, waittimeMaxUs: 0, waittimeTotalUs: 0, waittimeAvgUs: null,
      acqBounces: 0, acquisitions: 0, holdtimeMinUs: 0, holdtimeMaxUs: 0, holdtimeTotalUs: 0, holdtimeAvgUs: null,
    };
    columns.forEach((c, k) => {
      (v as unknown as Record<string, number>)[COLUMN_FIELDS[c]!] = Number(p.nums[k]);
    });
    const row: ExcerptRow = { className: p.name, mode: p.mode, ...v, line: p.line };
    const sameRw = cls && block === 0 && row.mode === "read" && cls.rows.length === 1 && cls.rows[0]!.mode === "write" && cls.rows[0]!.className === row.className;
    if (sameRw) cls!.rows.push(row);
    else {
      cls = { name: row.className, rows: [row], points: [] };
      table.classes.push(cls);
      block = 0;
    }
  };

  const addPoint = (name: string, count: number, ip: string, symbol: string, lineNo: number): void => {
    if (!cls || block === 0) {
      warn(lineNo, `a contention point of "${name}" without its class row and separator in the excerpt: skipped`);
      return;
    }
    if (name !== cls.name) warn(lineNo, `a point of "${name}" under class "${cls.name}": kept under "${cls.name}"`);
    cls.points.push({ role: block === 1 ? "contention" : "contending", count, ip, symbol, line: lineNo });
  };

  /** Ends the current table at a line that is not lock_stat output. */
  const endTable = (lineNo: number, raw: string): void => {
    if (table && (table.classes.length > 0 || headerState !== "none")) {
      warn(lineNo, `table ${table.index} ends here: followed by text that is not lock_stat output (${quoteFound(raw, 60)})`);
    }
    table = null;
    cls = null;
    block = 0;
    headerState = "none";
    headerWords = [];
  };

  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i]!;
    const t = unquote(raw.replace(/\r$/, "")).replace(/[\t\r]/g, " ").trim();

    // A wrapped point: "name count" on one line, "[<ip>] symbol" on the next.
    if (pendingPoint) {
      const pp: { name: string; count: number; line: number } = pendingPoint;
      pendingPoint = null;
      const m = POINT_TAIL.exec(t);
      if (m) {
        addPoint(pp.name, pp.count, m[1]!, m[2]!.trim(), pp.line);
        continue;
      }
      throw new ParseError(file, lineNo, `the "[<address>] symbol" rest of the point on line ${pp.line}`, quoteFound(raw));
    }
    // The rest of a wrapped row: lines of numbers only.
    if (pending) {
      const nums = numbersOf(t);
      if (nums.length > 0 && nums.every((n) => NUM.test(n))) {
        const p: { nums: string[] } = pending;
        p.nums.push(...nums);
        if (table && table.columns.length > 0 && p.nums.length >= table.columns.length) finishRow(lineNo);
        continue;
      }
      finishRow(lineNo);
    }

    if (t === "") continue;
    const vm = VERSION.exec(t);
    if (vm) {
      if (!LAYOUT_BY_VERSION[vm[1]!]) warn(lineNo, `lock_stat version ${vm[1]}: not 0.3 or 0.4; the layout comes from the column header`);
      table = startTable(lineNo, vm[1]!);
      headerState = "version";
      continue;
    }
    if (table && headerState === "version" && t.startsWith("*WARNING*")) {
      table.kernelWarning = t;
      continue;
    }
    if (/^-{3,}$/.test(t)) {
      if (headerState === "version") {
        headerState = "header";
        headerLine = 0;
        continue;
      }
      if (headerState === "header") {
        finishHeader(lineNo);
        continue;
      }
      const cc = currentClass();
      if (!cc) continue; // a rule above a header without version line, or between tables
      if (block >= 2) throw new ParseError(file, lineNo, `at most two point blocks for class "${cc.name}"`, quoteFound(raw));
      block++;
      continue;
    }
    if (/^\.{3,}$/.test(t)) {
      cls = null;
      block = 0;
      continue;
    }
    // Column names: inside the header, or a header that opens a table without a version line.
    const words = t.split(/\s+/);
    const isHeaderText = words.every((w) => HEADER_WORDS.has(w)) && words.some((w) => w in COLUMN_FIELDS || w === "class");
    if (headerState === "header") {
      if (t.startsWith("class name") || isHeaderText) {
        if (headerLine === 0) headerLine = lineNo;
        headerWords.push(t);
        continue;
      }
      // No closing dash line in the excerpt: the header ends here.
      finishHeader(lineNo);
    }
    if (t.startsWith("class name") && (isHeaderText || /con-bounces/.test(t))) {
      if (!table || table.classes.length > 0) {
        table = startTable(lineNo, null);
        warn(lineNo, `table ${table.index}: no "lock_stat version" line before the column header`);
      }
      headerState = "header";
      headerLine = lineNo;
      headerWords = [t];
      // The closing dash line may be missing in an excerpt: the header ends at the first row.
      continue;
    }
    const rm = ROW_START.exec(t);
    // A class row: all its numbers on the line (any class name, "(local_lock_t *)&pcs->lock" has spaces),
    // or the start of a wrapped row (a name without spaces and some of the numbers).
    const rowNums = rm ? numbersOf(rm[3]!).length : 0;
    const rowName = rm ? rm[1]!.trim() : "";
    const layout = table?.columns.length ?? 0;
    const isRow =
      rm !== null &&
      rowName !== "" &&
      ((layout > 0 ? rowNums === layout : rowNums === 10 || rowNums === 12) || (!/\s/.test(rowName) && rowNums >= 1));
    if (rm && isRow) {
      if (headerState === "header") finishHeader(lineNo);
      if (!table) {
        table = startTable(lineNo, null);
        warn(lineNo, `table ${table.index}: starts at a class row, without the "lock_stat version" line and the column header`);
      }
      pending = {
        name: rm[1]!.trim(),
        mode: rm[2] === "-W" ? "write" : rm[2] === "-R" ? "read" : "exclusive",
        nums: numbersOf(rm[3]!),
        line: lineNo,
        raw,
      };
      if (table.columns.length > 0 && pending.nums.length >= table.columns.length) finishRow(lineNo);
      continue;
    }
    // Inside a table, a line shaped like a class row whose numbers do not parse is an error, not prose.
    if (table && table.columns.length > 0 && /^\S.*?(?:-[WR])?:\s+[-+]?[\d.]/.test(t)) {
      throw new ParseError(file, lineNo, `a lock class row ("name:" and ${table.columns.length} numbers)`, quoteFound(raw));
    }
    const pm = POINT.exec(t);
    if (pm && table) {
      addPoint(pm[1]!.trim(), Number(pm[2]), pm[3]!, pm[4]!.trim(), lineNo);
      continue;
    }
    const ph = POINT_HEAD.exec(t);
    const curClass = currentClass();
    if (ph && table && curClass && block > 0 && ph[1]!.trim() === curClass.name) {
      pendingPoint = { name: ph[1]!.trim(), count: Number(ph[2]), line: lineNo };
      continue;
    }
    if (pm && !table) {
      warn(lineNo, `a contention point of "${pm[1]!.trim()}" outside any table: skipped`);
      continue;
    }
    // Inside a class's point blocks, a line that starts with the class name must be a point.
    if (curClass && block > 0 && t.startsWith(`${curClass.name} `)) {
      throw new ParseError(file, lineNo, `a lock class row, a contention point ("${curClass.name}" count [<address>] symbol) or a separator`, quoteFound(raw));
    }
    // Anything else is prose: it ends a table, or it may label the next one.
    if (table) endTable(lineNo, raw);
    lastProse = { text: t, line: lineNo };
  }
  if (pendingPoint) {
    const pp: { line: number } = pendingPoint;
    throw new ParseError(file, lines.length, `the "[<address>] symbol" rest of the point on line ${pp.line}`, "end of file");
  }
  if (pending) finishRow(lines.length);
  if (headerState === "header") finishHeader(lines.length);

  const rows = out.tables.reduce((s, tb) => s + tb.classes.length, 0);
  if (rows === 0) {
    const first = lines.findIndex((l) => l.trim() !== "");
    throw new ParseError(
      file,
      first < 0 ? 1 : first + 1,
      'lock_stat output: a "lock_stat version" line, its column header or a "class: numbers" row',
      first < 0 ? "an empty file" : out.tables.length > 0 ? "a table header without any class row" : quoteFound(lines[first]),
    );
  }
  for (const tb of out.tables) {
    if (tb.classes.length === 0) warn(tb.line, `table ${tb.index}: no class rows`);
  }
  return out;
}
