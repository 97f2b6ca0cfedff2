/**
 * `/proc/lock_stat` (CONFIG_LOCK_STAT), format "lock_stat version 0.4".
 *
 * Layout, from seq_header()/seq_stats() in kernel/locking/lockdep_proc.c:
 *   lock_stat version 0.4
 *   [*WARNING* lock debugging disabled!! - possibly due to a lockdep warning]
 *   ------…
 *   class name  con-bounces contentions waittime-min waittime-max waittime-total waittime-avg
 *               acq-bounces acquisitions holdtime-min holdtime-max holdtime-total holdtime-avg
 *   ------…
 *   then per lock class (sorted by contentions):
 *     "%40s:" (exclusive lock) or "%38s-W:" / "%38s-R:" (read/write lock) and 12 numbers
 *     if it was ever contended: a dash line, up to 4 contention points (where waiters waited),
 *       a dash line, up to 4 contending points (where the holder was), each
 *       "%40s %14lu %29s %pS" = class name, count, [<ip>], symbol+off/len
 *     a blank line and a dotted line after the points.
 * Times are in microseconds with two decimals (the kernel prints ns / 1000).
 * A "class name" may carry "#N" (name version) and "/N" (subclass) suffixes.
 */
import { ParseError, quoteFound } from "../util/errors.js";

/** One row of statistics: a class, or one of its write (-W) / read (-R) halves. */
export interface LockStatRow {
  className: string;
  /** "exclusive" for a plain lock ("name:"), "write"/"read" for the -W/-R rows of a rwlock. */
  mode: "exclusive" | "write" | "read";
  conBounces: number;
  contentions: number;
  waittimeMinUs: number;
  waittimeMaxUs: number;
  waittimeTotalUs: number;
  waittimeAvgUs: number;
  acqBounces: number;
  acquisitions: number;
  holdtimeMinUs: number;
  holdtimeMaxUs: number;
  holdtimeTotalUs: number;
  holdtimeAvgUs: number;
  line: number;
}

export interface LockStatPoint {
  /** "contention": a call site that had to wait; "contending": where the holder was (the lock it waited on). */
  role: "contention" | "contending";
  count: number;
  /** The address as printed (hashed by %p on current kernels). */
  ip: string;
  /** "func+0xoff/0xlen" (with " [module]" when in a module). */
  symbol: string;
  line: number;
}

export interface LockStatClass {
  name: string;
  rows: LockStatRow[];
  points: LockStatPoint[];
}

export interface LockStat {
  file: string;
  version: string;
  /** The "*WARNING* lock debugging disabled!!" line when present: the statistics stopped being collected. */
  warning: string | null;
  classes: LockStatClass[];
}

const VALUE = "(\\d+(?:\\.\\d+)?)";
const ROW = new RegExp(`^(.*?)(-[WR])?:((?:\\s+${VALUE}){12})\\s*$`);
const POINT = /^(.*\S)\s+(\d+)\s+(\[<[0-9a-fA-Fx]+>\])\s+(\S.*)$/;

export function detectProcLockStat(text: string): boolean {
  return /^\s*lock_stat version \d+\.\d+\s*$/m.test(text.slice(0, 300));
}

/** Parses one class statistics row (also usable on `grep : /proc/lock_stat` output). */
export function parseLockStatRow(line: string, file: string, lineNo: number): LockStatRow | null {
  const t = line.replace(/\t/g, " ").trim();
  const m = ROW.exec(t);
  if (!m) return null;
  const v = m[3]!.trim().split(/\s+/).map(Number);
  if (v.length !== 12) throw new ParseError(file, lineNo, "12 numbers after the class name", quoteFound(line));
  const name = m[1]!.trim();
  if (name === "") throw new ParseError(file, lineNo, "a lock class name before the colon", quoteFound(line));
  return {
    className: name,
    mode: m[2] === "-W" ? "write" : m[2] === "-R" ? "read" : "exclusive",
    conBounces: v[0]!,
    contentions: v[1]!,
    waittimeMinUs: v[2]!,
    waittimeMaxUs: v[3]!,
    waittimeTotalUs: v[4]!,
    waittimeAvgUs: v[5]!,
    acqBounces: v[6]!,
    acquisitions: v[7]!,
    holdtimeMinUs: v[8]!,
    holdtimeMaxUs: v[9]!,
    holdtimeTotalUs: v[10]!,
    holdtimeAvgUs: v[11]!,
    line: lineNo,
  };
}

const HEADER_COLUMNS =
  "class name con-bounces contentions waittime-min waittime-max waittime-total waittime-avg acq-bounces acquisitions holdtime-min holdtime-max holdtime-total holdtime-avg";

export function parseProcLockStat(text: string, file: string): LockStat {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  const vm = /^lock_stat version (\d+\.\d+)$/.exec((lines[i] ?? "").trim());
  if (!vm) throw new ParseError(file, i + 1, '"lock_stat version 0.4"', quoteFound(lines[i]));
  if (vm[1] !== "0.4") throw new ParseError(file, i + 1, "lock_stat version 0.4 (the only format this parser knows)", quoteFound(lines[i]));
  const out: LockStat = { file, version: vm[1]!, warning: null, classes: [] };
  i++;
  if ((lines[i] ?? "").trim().startsWith("*WARNING*")) out.warning = lines[i++]!.trim();
  const expectLine = (re: RegExp, what: string) => {
    if (!re.test((lines[i] ?? "").trim())) throw new ParseError(file, i + 1, what, quoteFound(lines[i]));
    i++;
  };
  expectLine(/^-+$/, "a line of dashes above the column names");
  if ((lines[i] ?? "").trim().split(/\s+/).join(" ") !== HEADER_COLUMNS) {
    throw new ParseError(file, i + 1, `the column names "${HEADER_COLUMNS}"`, quoteFound(lines[i]));
  }
  i++;
  expectLine(/^-+$/, "a line of dashes below the column names");

  let cls: LockStatClass | null = null;
  /** 0: rows of the class; 1: contention points; 2: contending points. */
  let block = 0;
  for (; i < lines.length; i++) {
    const raw = lines[i]!;
    const t = raw.trim();
    if (t === "") continue;
    if (/^\.+$/.test(t)) {
      cls = null;
      block = 0;
      continue;
    }
    if (/^-+$/.test(t)) {
      if (!cls) throw new ParseError(file, i + 1, "a lock class row before a dash separator", quoteFound(raw));
      if (block >= 2) throw new ParseError(file, i + 1, "at most two point blocks per class", quoteFound(raw));
      block++;
      continue;
    }
    const row = parseLockStatRow(raw, file, i + 1);
    if (row) {
      // A new class starts unless this is the -R row right after the -W row of the same class.
      const sameRw = cls && block === 0 && row.mode === "read" && cls.rows.length === 1 && cls.rows[0]!.mode === "write" && cls.rows[0]!.className === row.className;
      if (sameRw) cls!.rows.push(row);
      else {
        cls = { name: row.className, rows: [row], points: [] };
        out.classes.push(cls);
        block = 0;
      }
      continue;
    }
    const pm = POINT.exec(t);
    if (pm) {
      if (!cls || block === 0) throw new ParseError(file, i + 1, "a dash separator before a contention point", quoteFound(raw));
      const pname = pm[1]!.trim();
      if (pname !== cls.name) throw new ParseError(file, i + 1, `a point of class "${cls.name}"`, quoteFound(raw));
      cls.points.push({ role: block === 1 ? "contention" : "contending", count: Number(pm[2]), ip: pm[3]!, symbol: pm[4]!.trim(), line: i + 1 });
      continue;
    }
    throw new ParseError(file, i + 1, "a lock class row (name: 12 numbers), a contention point (name count [<ip>] symbol) or a separator", quoteFound(raw));
  }
  return out;
}

/** The rows of all classes as one flat list (a tidy table, one row per class and mode). */
export function lockStatRows(ls: LockStat): LockStatRow[] {
  return ls.classes.flatMap((c) => c.rows);
}
