/**
 * The rseq statistics file of debugfs, `/sys/kernel/debug/rseq/stats`
 * (CONFIG_RSEQ_STATS, Linux ≥ 6.19; slice-extension counters with
 * CONFIG_RSEQ_SLICE_EXTENSION, Linux ≥ 7.0).
 *
 * Format, from rseq_stats_show() in kernel/rseq.c: one counter per line,
 * `seq_printf(m, "NAME:%*s%16lu\n", …)` — a short name, a colon, padding to
 * column 8 and the value right-aligned in 16 columns. The counters are sums
 * over all possible CPUs since boot; the file cannot be reset, so a run is
 * measured as the difference of two snapshots (diffRseqStats).
 *
 *   exit    exits to user space (syscall and interrupt)           stats.exit
 *   signal  signal deliveries that ran the rseq handling           stats.signal
 *   slowp   slow-path runs of the exit handling                    stats.slowpath
 *   fastp   fast-path runs of the exit handling                    stats.fastpath
 *   ids     CPU / MM-CID id updates written to user space          stats.ids
 *   cs      critical-section checks                                stats.cs
 *   clear   critical-section pointers cleared                      stats.clear
 *   fixup   critical sections aborted (ip moved to abort handler)  stats.fixup
 *   sgrant  slice extensions granted                               stats.s_granted
 *   sexpir  granted extensions whose timer fired (task forced out) stats.s_expired
 *   srevok  grants cleared while still granted (revoked)           stats.s_revoked
 *   syield  grants ended by the rseq_slice_yield() syscall         stats.s_yielded
 *   sabort  grants ended by any other syscall                      stats.s_aborted
 * (where each is counted: include/linux/rseq_entry.h and kernel/rseq.c, Linux 7.2).
 */
import { ParseError, quoteFound } from "../util/errors.js";
import { unquote, type ParseWarning } from "./text.js";

/** The counter names in the order the kernel prints them. */
export const RSEQ_BASE_COUNTERS = ["exit", "signal", "slowp", "fastp", "ids", "cs", "clear", "fixup"] as const;
export const RSEQ_SLICE_COUNTERS = ["sgrant", "sexpir", "srevok", "syield", "sabort"] as const;

export interface RseqStats {
  file: string;
  /** Counter name → value, in file order. */
  counters: Record<string, number>;
  /** True when the slice-extension counters (sgrant … sabort) are present. */
  sliceExtension: boolean;
  /** What a pasted copy added to the file (a poster's notes after the values, mail quoting). */
  warnings: ParseWarning[];
}

export interface RseqStatsDiff {
  counters: Record<string, number>;
  sliceExtension: boolean;
}

const LINE = /^([a-z_]+):\s+(\d+)$/;
/** A posted copy with the poster's note after the value: `exit:   774496161   (RSEQ exit path invocations)`. */
const ANNOTATED = /^([a-z_]+):\s+(\d+)\s+(\(.*\)|#.*|<-.*|←.*)$/;

/** True when the text has the shape of rseq/stats. */
export function detectRseqStats(text: string): boolean {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const t = lines.map((l) => unquote(l).trim());
  return lines.length >= RSEQ_BASE_COUNTERS.length && t[0]!.startsWith("exit:") && t.every((l) => LINE.test(l) || ANNOTATED.test(l));
}

export function parseRseqStats(text: string, file: string): RseqStats {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const counters: Record<string, number> = {};
  const warnings: ParseWarning[] = [];
  const annotated: number[] = [];
  let quoted = false;
  let lastLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const u = unquote(lines[i]!);
    if (u !== lines[i]) quoted = true;
    const t = u.trim();
    if (t === "") continue;
    lastLine = i + 1;
    let m = LINE.exec(t);
    if (!m && (m = ANNOTATED.exec(t))) annotated.push(i + 1);
    if (!m) throw new ParseError(file, i + 1, "a counter line `name:   value`", quoteFound(lines[i]));
    const name = m[1]!;
    if (name in counters) throw new ParseError(file, i + 1, `each counter once (${name} already seen)`, quoteFound(lines[i]));
    const v = Number(m[2]);
    if (!Number.isSafeInteger(v)) throw new ParseError(file, i + 1, "a counter below 2^53", quoteFound(lines[i]));
    counters[name] = v;
  }
  for (const k of RSEQ_BASE_COUNTERS) {
    if (!(k in counters)) throw new ParseError(file, Math.max(lastLine, 1), `the rseq counter "${k}:"`, lastLine === 0 ? "an empty file" : "no such line");
  }
  const present = RSEQ_SLICE_COUNTERS.filter((k) => k in counters);
  if (present.length !== 0 && present.length !== RSEQ_SLICE_COUNTERS.length) {
    const missing = RSEQ_SLICE_COUNTERS.filter((k) => !(k in counters));
    throw new ParseError(file, lastLine, `all slice-extension counters (missing ${missing.join(", ")})`, `only ${present.join(", ")}`);
  }
  if (annotated.length > 0) {
    warnings.push({
      file,
      line: annotated[0]!,
      message: `text after the value (a note by whoever posted the file; the kernel prints none) ignored on ${annotated.length} line(s): ${annotated.join(", ")}`,
    });
  }
  if (quoted) warnings.push({ file, line: 1, message: "mail quoting removed" });
  return { file, counters, sliceExtension: present.length === RSEQ_SLICE_COUNTERS.length, warnings };
}

/**
 * after − before, counter by counter. Counters only grow; a smaller value
 * after means a reboot between the snapshots, which is an error.
 */
export function diffRseqStats(before: RseqStats, after: RseqStats): RseqStatsDiff {
  const counters: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.counters)) {
    const b = before.counters[k];
    if (b === undefined) throw new ParseError(before.file, 1, `counter "${k}" (present in ${after.file})`, "none");
    if (v < b) throw new ParseError(after.file, 1, `counter "${k}" ≥ ${b} (its value in ${before.file}; counters only grow)`, String(v));
    counters[k] = v - b;
  }
  return { counters, sliceExtension: before.sliceExtension && after.sliceExtension };
}
