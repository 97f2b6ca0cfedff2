/**
 * Parser for `perf top --stdio` screens as people paste them:
 *
 *        PerfTop:    3716 irqs/sec  kernel:92.9%  exact: 99.1% lost: 68/68 drop: 0/0 [4000Hz cycles],  (all, 12 CPUs)
 *     -------------------------------------------------------------------------------
 *         47.53%  [kernel]                 [k] compaction_alloc
 *          0.25%  libdbus-1.so.3.19.9      [.] _dbus_string_hex_decode
 *
 * Each `PerfTop:` header starts a snapshot (perf top reprints the screen every
 * few seconds); the rows under it are the same rows as `perf report`'s (one or
 * two percentages, the shared object, the `[k]`/`[.]` mark, the symbol). The
 * header gives the sample rate, the kernel share, the exact-IP share, lost and
 * dropped samples, the frequency (or period) and event, and the target.
 *
 * The layout of perf 2.6.31–2.6.35 is read too: a `samples  pcnt [RIP]
 * function [DSO]` column header, then rows `3235.00 - 75.1% - ffffffff814afb21 : _spin_lock`
 * or `697.00 50.6% symbol  dso`.
 *
 * Mail artefacts: quoting is removed, a header wrapped onto the next line(s) is
 * joined (also across a quoted-printable soft break, `=` or `=20` at the end of
 * a line), a row wrapped before its `[k]`/`[.]` mark is joined with the next
 * line, dashed rulers and `______` underlines are skipped. Rows without any
 * `PerfTop:` header are kept, with a warning.
 */
import { readFileSync } from "node:fs";
import { ParseError, UserError, quoteFound } from "../util/errors.js";
import { splitLines, unquote, type ParseWarning } from "./text.js";
import { joinWrappedRow, looksLikeRow, markSpace, matchPerfRow, perfHeader, splitMiddle, type PerfColumns } from "./perf-report.js";

export interface PerfTopSnapshot {
  /** Index (from 0) of the snapshot in the text; -1 for rows before any header. */
  index: number;
  /** Line of the `PerfTop:` header (0 when there is none). */
  line: number;
  irqsPerSec: number | null;
  kernelPct: number | null;
  /** Share of samples with an exact IP (precise events); null when the header has no `exact:`. */
  exactPct: number | null;
  /** Lost samples `N/M` (this interval / total), null when not printed. */
  lost: number | null;
  lostTotal: number | null;
  drop: number | null;
  dropTotal: number | null;
  /** Sampling frequency (`[4000Hz cycles]`), or null when a period is given instead. */
  frequencyHz: number | null;
  /** Sample period (`[100000 cycles]`, old perf or `-c`), or null. */
  period: number | null;
  event: string | null;
  /** What was profiled, as printed in the parentheses: `all`, `target_pid: 1208268`, … */
  target: string | null;
  /** The CPU count printed with the target (`(all, 12 CPUs)`), or null. */
  cpus: number | null;
  /** The CPU list of a per-CPU screen (`(all, CPU: 0)`, `perf top -C 0`), or null. */
  cpuList: string | null;
}

export interface PerfTopRow {
  file: string;
  line: number;
  snapshot: number;
  /** Children % (perf top --children), or null. */
  childrenPct: number | null;
  /** Self % (the overhead column). */
  selfPct: number;
  /** Sample count (the old layout's `samples` column, decayed, so not an integer), or null. */
  samples: number | null;
  /** The Command column when the screen is sorted by comm too, else null. */
  command: string | null;
  /** Shared object (`[kernel]`, a library, a module such as `[sunrpc]`), or null when the old layout prints none. */
  sharedObject: string | null;
  /** "kernel" / "user" from the `[k]`/`[.]` mark, "kernel" under an old "kernel function" header, else null. */
  space: string | null;
  symbol: string;
  /** The instruction address of the old layout's RIP column, or null. */
  address: string | null;
}

export interface PerfTop {
  file: string;
  snapshots: PerfTopSnapshot[];
  rows: PerfTopRow[];
  warnings: ParseWarning[];
}

const HEADER_START = /^PerfTop:\s*\d+\s+irqs\/sec\b/;
const NUM = String.raw`(\d+(?:\.\d+)?)`;
const HEADER_RE = new RegExp(
  String.raw`^PerfTop:\s*(\d+)\s+irqs/sec\s+kernel:\s*${NUM}%` +
    String.raw`(?:\s+us:\s*${NUM}%\s+guest kernel:\s*${NUM}%\s+guest us:\s*${NUM}%)?` +
    String.raw`(?:\s+exact:\s*${NUM}%)?` +
    String.raw`(?:\s+lost:\s*(\d+)/(\d+))?` +
    String.raw`(?:\s+drop:\s*(\d+)/(\d+))?` +
    String.raw`\s*\[(?:(\d+)Hz\s+|(\d+)\s+)?([^\]]*?)\],?\s*\(([^)]*)\)\s*$`,
);
/** The old layout's row: samples, pcnt, optional RIP, the function and an optional DSO/module. */
const OLD_ROW = new RegExp(String.raw`^\s*${NUM}\s+(?:-\s+)?${NUM}%\s+(?:-\s+)?(?:([0-9a-f]{6,16})\s+:\s+)?(\S+)(?:\s+(\S(?:.*\S)?))?\s*$`);
const OLD_HEADER = /^samples\s+pcnt\b/;

/** True when the text holds a `PerfTop:` header or the old `samples  pcnt` column header. */
export function detectPerfTop(text: string): boolean {
  return splitLines(text).some((l) => {
    const s = unquote(l).trim();
    return HEADER_START.test(s) || (OLD_HEADER.test(s) && /\bfunction\b/.test(s));
  });
}

/** Drops a quoted-printable soft break (`=` or `=20` at the end) so that the next line can be joined. */
function softBreak(s: string): string {
  return s.replace(/=20$/, " ").replace(/=$/, "");
}

function snapshotFrom(file: string, line: number, index: number, header: string, raw: string): PerfTopSnapshot {
  const m = HEADER_RE.exec(header);
  if (!m) {
    throw new ParseError(
      file,
      line,
      "a PerfTop header: PerfTop: N irqs/sec kernel:P% [exact: P%] [lost: N/N drop: N/N] [FREQHz EVENT], (TARGET)",
      quoteFound(raw),
    );
  }
  const n = (i: number): number | null => (m[i] === undefined ? null : Number(m[i]));
  const target = m[14]!.trim();
  const cpus = /\b(\d+)\s+CPUs?\s*$/.exec(target);
  const cpuList = /\bCPUs?:\s*([\d,-]+)\s*$/.exec(target);
  return {
    index,
    line,
    irqsPerSec: n(1),
    kernelPct: n(2),
    exactPct: n(6),
    lost: n(7),
    lostTotal: n(8),
    drop: n(9),
    dropTotal: n(10),
    frequencyHz: n(11),
    period: n(12),
    event: m[13]!.trim() || null,
    target: target.split(",")[0]!.trim() || null,
    cpus: cpus ? Number(cpus[1]) : null,
    cpuList: cpuList ? cpuList[1]! : null,
  };
}

/** Parses `perf top --stdio` text into snapshots and rows. */
export function parsePerfTop(text: string, file: string): PerfTop {
  const lines = splitLines(text);
  const snapshots: PerfTopSnapshot[] = [];
  const rows: PerfTopRow[] = [];
  const warnings: ParseWarning[] = [];
  let current = -1;
  let cols: PerfColumns | null = null;
  /** Set by an old-layout column header: whether it names kernel functions only. */
  let old: { kernel: boolean } | null = null;

  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i]!;
    const t = unquote(raw);
    const s = t.trim();
    // Blank lines, dashed rulers, `______` underlines (also ending in a quoted-printable `=` or `=20`).
    if (/^[-=_\s]*(?:=20)?$/.test(s)) continue;

    if (HEADER_START.test(s)) {
      // A header wrapped by a mail client continues on the next line(s) until its "(target)".
      let header = s;
      let j = i;
      while (!/\)\s*$/.test(header) && j + 1 < lines.length && j - i < 2) {
        const next = unquote(lines[j + 1]!).trim();
        if (next === "" || /^-{3,}/.test(next) || HEADER_START.test(next)) break;
        header = `${softBreak(header).replace(/\s+$/, "")} ${next}`;
        j++;
      }
      snapshots.push(snapshotFrom(file, n, snapshots.length, softBreak(header).trim(), raw));
      current = snapshots.length - 1;
      cols = null;
      old = null;
      i = j;
      continue;
    }
    if (OLD_HEADER.test(s)) {
      old = { kernel: /\bkernel function\b/.test(s) };
      continue;
    }
    const hc = perfHeader(s);
    if (hc) {
      cols = hc;
      old = null;
      continue;
    }
    if (s.startsWith("#")) continue;

    const joined = joinWrappedRow(t, lines[i + 1]);
    const m = matchPerfRow(joined ?? t);
    if (m && joined !== null) i++;
    if (m) {
      const mid = splitMiddle(m.middle, cols);
      if ("error" in mid) throw new ParseError(file, n, mid.error, quoteFound(raw));
      if (cols && cols.children !== (m.second !== null)) {
        throw new ParseError(file, n, cols.children ? "two percentages (Children and Self) as the header says" : "one percentage as the header says", quoteFound(raw));
      }
      if (current < 0 && !warnings.some((w) => w.message.startsWith("no PerfTop"))) {
        warnings.push({ file, line: n, message: "no PerfTop: header before the first row (sample rate, event and target unknown)" });
      }
      rows.push({
        file,
        line: n,
        snapshot: current,
        childrenPct: m.second !== null ? m.first : null,
        selfPct: m.second !== null ? m.second : m.first,
        samples: mid.samples,
        command: mid.command,
        sharedObject: mid.sharedObject,
        space: markSpace(m.mark),
        symbol: m.symbol,
        address: null,
      });
      continue;
    }
    if (old) {
      const o = OLD_ROW.exec(t);
      if (o) {
        rows.push({
          file,
          line: n,
          snapshot: current,
          childrenPct: null,
          selfPct: Number(o[2]),
          samples: Number(o[1]),
          command: null,
          sharedObject: o[5] ?? null,
          space: old.kernel ? "kernel" : null,
          symbol: o[4]!,
          address: o[3] ?? null,
        });
        continue;
      }
      if (/^\s*\d+(?:\.\d+)?\s+(?:-\s+)?\d+(?:\.\d+)?%/.test(t)) {
        throw new ParseError(file, n, "an old perf top row: SAMPLES [-] PCT% [-] [RIP :] FUNCTION [DSO]", quoteFound(raw));
      }
      // Prose ends the old table.
      old = null;
      continue;
    }
    if (looksLikeRow(t)) {
      throw new ParseError(file, n, "a perf top row: PCT% SHARED-OBJECT [k|.] SYMBOL", quoteFound(raw));
    }
  }
  return { file, snapshots, rows, warnings };
}

/** One flat record per row with its snapshot's header fields (for `slicelab parse`). */
export function perfTopRecords(top: PerfTop): Record<string, unknown>[] {
  return top.rows.map((r) => {
    const s = top.snapshots[r.snapshot];
    return {
      ...r,
      irqsPerSec: s?.irqsPerSec ?? null,
      kernelPct: s?.kernelPct ?? null,
      event: s?.event ?? null,
      frequencyHz: s?.frequencyHz ?? null,
      period: s?.period ?? null,
      target: s?.target ?? null,
      cpus: s?.cpus ?? null,
    };
  });
}

/** Reads and parses a `perf top --stdio` file. */
export function parsePerfTopFile(path: string): PerfTop {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parsePerfTop(text, path);
}
