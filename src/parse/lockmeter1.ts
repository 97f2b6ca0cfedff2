/**
 * The later lockmeter (1.x, 2001–2005, Linux 2.4.x to 2.6.x) `lockstat` report,
 * whose SPINLOCKS table prints the shares as percentages and adds the CPU share
 * of the waits and the REJECT (RJECT) column:
 *
 *   SPINLOCKS         HOLD            WAIT
 *     UTIL  CON    MEAN(  MAX )   MEAN(  MAX )(% CPU)     TOTAL NOWAIT SPIN RJECT  NAME
 *          29.4%  4.8us(2809ms)   40us(1780ms)(62.4%)  15255259 70.6% 29.4%  0.00%  *TOTAL*
 *     7.5% 52.0%  1.7us( 257us)  175us(  29ms)( 4.7%)   2666132 48.0% 19.0% 33.1%  net_device->queue_lock
 *     1.2% 78.5%  0.7us( 125us)    0us                  1124063 21.5%    0% 78.5%    net_tx_action+0x240
 *
 * Lock rows have two spaces before NAME, caller rows four; the *TOTAL* row has
 * no UTIL. A mail that puts several kernels' reports under one header labels each block with a
 * line of its own ("2.4.17:", "2.5.5:"): the rows after it carry that label in `kernel`. Rows wrapped by a mail client (76 columns is common) are joined.
 * The RWLOCK READS / RWLOCK WRITES / SEMAPHORES tables have other columns; they
 * are skipped with a warning, never read with the SPINLOCKS layout.
 */
import { ParseError, quoteFound } from "../util/errors.js";
import { unquote, type ParseWarning } from "./text.js";

export interface Lockmeter1Row {
  file: string;
  line: number;
  kind: "total" | "lock" | "caller";
  lock: string;
  caller: string | null;
  /** null on the *TOTAL* row (not printed). */
  utilPct: number | null;
  conPct: number;
  holdMeanUs: number;
  holdMaxUs: number;
  waitMeanUs: number;
  /** null where nothing waited (a bare "0us"). */
  waitMaxUs: number | null;
  /** The "(% CPU)" of the waits; null where nothing waited. */
  waitCpuPct: number | null;
  total: number;
  nowaitPct: number;
  spinPct: number;
  rejectPct: number;
  name: string;
  /** The kernel label of the block the row is in ("2.5.5"), when a mail compares several; else null. */
  kernel: string | null;
}

export interface Lockmeter1Report {
  file: string;
  /** The "System: Linux …" line when the excerpt has it. */
  system: string | null;
  rows: Lockmeter1Row[];
  warnings: ParseWarning[];
}

const P = String.raw`(\d+(?:\.\d+)?)%`;
const T = String.raw`(\d+(?:\.\d+)?)([A-Za-z]+)`;
const ROW = new RegExp(
  String.raw`^\s*(?:${P}\s+)?${P}\s+${T}\(\s*${T}\)\s+${T}(?:\(\s*${T}\)\(\s*${P}\))?\s+(\d+)\s+${P}\s+${P}\s+${P}( +)(\S+)\s*$`,
);
/** A block label inside one SPINLOCKS table: a kernel version alone on its line, "2.4.17:" (Linder 2002). */
const KERNEL_LABEL = /^(\d+\.\d+(?:\.\d+)?(?:[-.][\w.]+)?):$/;
/** A line that starts like a SPINLOCKS row: a percentage and then a percentage or a time. */
const ROW_START = /^\s*\d+(?:\.\d+)?%\s+(?:\d+(?:\.\d+)?%|\d+(?:\.\d+)?[a-z]+\()/;
const UNIT_TO_US: Record<string, number> = { us: 1, ms: 1000, s: 1_000_000 };

/** True when the text has the 1.x SPINLOCKS header (the "(% CPU)" wait share). */
export function isLockmeter1(text: string): boolean {
  return /MEAN\(\s*MAX\s*\)\s+MEAN\(\s*MAX\s*\)\(% CPU\)/.test(text);
}

function us(file: string, line: number, v: string, unit: string, raw: string): number {
  const f = UNIT_TO_US[unit];
  if (f === undefined) throw new ParseError(file, line, "a time unit us, ms or s", `"${v}${unit}" in ${quoteFound(raw, 200)}`);
  return Math.round(Number(v) * f * 1e6) / 1e6;
}

export function parseLockmeter1(text: string, file: string): Lockmeter1Report {
  const lines = text.split("\n").map((l) => unquote(l.replace(/\r$/, "")).replace(/\t/g, "        "));
  const out: Lockmeter1Report = { file, system: null, rows: [], warnings: [] };
  let inSpin = false;
  let seenHeader = false;
  let lock: string | null = null;
  let blankSince = false;
  let kernel: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const text = lines[i]!;
    const t = text.trim();
    if (t === "") {
      blankSince = true;
      continue;
    }
    const sys = /^System: (Linux .*)$/.exec(t);
    if (sys) {
      // The mail client may have wrapped the line: the year and the architecture on the next one.
      const next = (lines[i + 1] ?? "").trim();
      out.system = /^\d{4}\s+\S+$/.test(next) ? `${sys[1]} ${next}` : sys[1]!;
      continue;
    }
    if (/^SPINLOCKS\b/.test(t)) {
      inSpin = true;
      seenHeader = true;
      lock = null;
      blankSince = false;
      continue;
    }
    if (/^(RWLOCK READS|RWLOCK WRITES|SEMAPHORES)\b/.test(t)) {
      inSpin = false;
      out.warnings.push({ file, line: n, message: `the ${/^(RWLOCK READS|RWLOCK WRITES|SEMAPHORES)/.exec(t)![1]} table has other columns: not read` });
      continue;
    }
    if (!inSpin) continue;
    if (/^(UTIL|TOT\/SEC)\s+CON\b/.test(t) || /^RJECT\s+NAME$/.test(t) || /^[-_ ]+$/.test(t)) continue;
    const label = KERNEL_LABEL.exec(t);
    if (label) {
      // Another kernel's block under the same header: its rows are a report of their own.
      kernel = label[1]!;
      lock = null;
      blankSince = false;
      continue;
    }
    if (!ROW_START.test(text)) {
      // Prose (or the end of the report) after the table.
      if (out.rows.length > 0) out.warnings.push({ file, line: n, message: `the SPINLOCKS table ends here: followed by ${quoteFound(text, 60)}` });
      inSpin = false;
      continue;
    }
    let joined = text;
    let m = ROW.exec(joined);
    let used = 0;
    while (!m && used < 2 && i + used + 1 < lines.length) {
      const next = lines[i + used + 1]!;
      if (next.trim() === "" || ROW_START.test(next)) break;
      joined = `${joined.replace(/\s+$/, "")} ${next.replace(/^\s+/, (s) => (s.length >= 2 ? s : ""))}`;
      // Keep the spaces before NAME as printed: a wrapped line starts with RJECT, whose own gap follows.
      m = ROW.exec(joined);
      used++;
    }
    if (!m) {
      throw new ParseError(
        file,
        n,
        "a lockmeter SPINLOCKS row: [UTIL%] CON% HOLD-MEAN(MAX) WAIT-MEAN[(MAX)(CPU%)] TOTAL NOWAIT% SPIN% RJECT% NAME",
        quoteFound(text, 200),
      );
    }
    i += used;
    const name = m[17]!;
    const gap = m[16]!.length;
    const kind: Lockmeter1Row["kind"] = name === "*TOTAL*" ? "total" : gap >= 4 ? "caller" : "lock";
    if (kind === "caller" && lock === null) {
      throw new ParseError(file, n, "a lock row before this caller row (caller rows are indented under their lock)", quoteFound(text, 200));
    }
    if (kind === "lock") lock = name;
    if (kind === "caller" && blankSince) {
      out.warnings.push({ file, line: n, message: `a caller row after a blank line: kept under the lock above it, "${lock}"` });
    }
    blankSince = false;
    out.rows.push({
      file,
      line: n,
      kind,
      lock: kind === "caller" ? lock! : name,
      caller: kind === "caller" ? name : null,
      utilPct: m[1] === undefined ? null : Number(m[1]),
      conPct: Number(m[2]),
      holdMeanUs: us(file, n, m[3]!, m[4]!, joined),
      holdMaxUs: us(file, n, m[5]!, m[6]!, joined),
      waitMeanUs: us(file, n, m[7]!, m[8]!, joined),
      waitMaxUs: m[9] === undefined ? null : us(file, n, m[9], m[10]!, joined),
      waitCpuPct: m[11] === undefined ? null : Number(m[11]),
      total: Number(m[12]),
      nowaitPct: Number(m[13]),
      spinPct: Number(m[14]),
      rejectPct: Number(m[15]),
      name,
      kernel,
    });
  }
  if (!seenHeader && out.rows.length === 0) {
    const first = lines.findIndex((l) => l.trim() !== "");
    throw new ParseError(file, Math.max(first, 0) + 1, "a lockmeter SPINLOCKS table", quoteFound(lines[Math.max(first, 0)]));
  }
  return out;
}
