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
const KNOWN: readonly string[] = [...RSEQ_BASE_COUNTERS, ...RSEQ_SLICE_COUNTERS];

export interface RseqStats {
  file: string;
  /** Counter name → value for the counters mainline prints (the 13 above), in file order. */
  counters: Record<string, number>;
  /**
   * Counters a patched kernel adds (e.g. `sabort_futex:` of a per-syscall abort breakdown,
   * `sabort_lt100us:` of an abort-latency histogram), in file order. Mainline prints none.
   */
  extra: Record<string, number>;
  /** True when slice-extension counters (sgrant … sabort) are present (all five, unless an excerpt). */
  sliceExtension: boolean;
  /** True when every base counter is present and the slice counters are all present or all absent. */
  complete: boolean;
  /** The mainline counters an excerpt lacks (empty for a whole file). */
  missing: string[];
  /** What a pasted copy added to or changed in the file (notes, separators, a command line, quoting). */
  warnings: ParseWarning[];
}

export interface RseqStatsDiff {
  counters: Record<string, number>;
  sliceExtension: boolean;
}

export interface RseqStatsOptions {
  /**
   * Accept an excerpt: any of the 13 counters, in any order, as posted in a report
   * that quotes only the slice counters. What is missing is listed in `missing`
   * and said in a warning. Default false: the whole file, as the kernel prints it.
   */
  excerpt?: boolean;
}

/** `name:   value` with an optional note after the value; the value may carry thousands separators. */
const COUNTER = /^([a-z][a-z0-9_]*):\s+(\d{1,3}(?:,\d{3})+|\d+)(?:\s+((?:\(|#|<-|←).*))?$/;
/** A section heading a patched kernel prints between counters (`Abort breakdown:`, `Abort latency histogram (n=12):`). */
const HEADING = /^[A-Z][A-Za-z0-9 ()=,.%/-]*:$/;
/** The command a poster pasted above the output (`$ sudo cat /sys/kernel/debug/rseq/stats`). */
const COMMAND = /^(?:[$#] )?(?:sudo )?(?:cat|watch\b.*\bcat) \S*rseq\/stats\s*$/;

interface Line {
  n: number;
  name: string;
  value: number;
  separators: boolean;
  note: boolean;
}

/** The shape of a line: a counter, a heading, a command, or none of these. */
function classify(t: string): { kind: "counter"; name: string; raw: string; note: boolean } | { kind: "heading" | "command" | "other" } {
  const m = COUNTER.exec(t);
  if (m) return { kind: "counter", name: m[1]!, raw: m[2]!, note: m[3] !== undefined };
  if (COMMAND.test(t)) return { kind: "command" };
  if (HEADING.test(t)) return { kind: "heading" };
  return { kind: "other" };
}

/**
 * True when the text has the shape of rseq/stats: the whole file (first counter `exit:`,
 * at least the eight base counters) or an excerpt of at least two of the 13 counters
 * and no other counter names.
 */
export function detectRseqStats(text: string): boolean {
  const t = text
    .split("\n")
    .map((l) => unquote(l).trim())
    .filter((l) => l !== "");
  const shapes = t.map(classify);
  if (shapes.some((s) => s.kind === "other")) return false;
  const names = shapes.flatMap((s) => (s.kind === "counter" ? [s.name] : []));
  const known = names.filter((n) => KNOWN.includes(n));
  if (names[0] === "exit" && RSEQ_BASE_COUNTERS.every((k) => known.includes(k))) return true;
  return known.length >= 2 && known.length === names.length;
}

/**
 * Parses rseq/stats. The whole file by default (every base counter; the slice counters
 * all or none); `{ excerpt: true }` accepts any subset of the 13 counters. Both accept
 * what posted copies add, each said in a warning: a note after a value, thousands
 * separators, the command line above the output, mail quoting, and the extra counters
 * and section headings of patched kernels (kept in `extra`). Anything else is a ParseError.
 */
export function parseRseqStats(text: string, file: string, opts: RseqStatsOptions = {}): RseqStats {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const counters: Record<string, number> = {};
  const extra: Record<string, number> = {};
  const warnings: ParseWarning[] = [];
  const seen: Line[] = [];
  const headings: number[] = [];
  const commands: number[] = [];
  let quoted = false;
  let lastLine = 0;
  let firstCounter = 0;
  for (let i = 0; i < lines.length; i++) {
    const u = unquote(lines[i]!);
    if (u !== lines[i]) quoted = true;
    const t = u.trim();
    if (t === "") continue;
    lastLine = i + 1;
    const c = classify(t);
    if (c.kind === "command" && firstCounter === 0) {
      commands.push(i + 1);
      continue;
    }
    if (c.kind === "heading" && firstCounter !== 0) {
      headings.push(i + 1);
      continue;
    }
    if (c.kind !== "counter") throw new ParseError(file, i + 1, "a counter line `name:   value`", quoteFound(lines[i]));
    if (firstCounter === 0) firstCounter = i + 1;
    if (c.name in counters || c.name in extra) throw new ParseError(file, i + 1, `each counter once (${c.name} already seen)`, quoteFound(lines[i]));
    const v = Number(c.raw.replace(/,/g, ""));
    if (!Number.isSafeInteger(v)) throw new ParseError(file, i + 1, "a counter below 2^53", quoteFound(lines[i]));
    if (KNOWN.includes(c.name)) counters[c.name] = v;
    else extra[c.name] = v;
    seen.push({ n: i + 1, name: c.name, value: v, separators: c.raw.includes(","), note: c.note });
  }
  const present = RSEQ_SLICE_COUNTERS.filter((k) => k in counters);
  const missing = KNOWN.filter((k) => !(k in counters));
  const baseMissing = RSEQ_BASE_COUNTERS.filter((k) => !(k in counters));
  const complete = baseMissing.length === 0 && (present.length === 0 || present.length === RSEQ_SLICE_COUNTERS.length);
  if (!opts.excerpt) {
    for (const k of baseMissing) {
      throw new ParseError(file, Math.max(lastLine, 1), `the rseq counter "${k}:"`, lastLine === 0 ? "an empty file" : "no such line");
    }
    if (present.length !== 0 && present.length !== RSEQ_SLICE_COUNTERS.length) {
      const lacking = RSEQ_SLICE_COUNTERS.filter((k) => !(k in counters));
      throw new ParseError(file, lastLine, `all slice-extension counters (missing ${lacking.join(", ")})`, `only ${present.join(", ")}`);
    }
  } else if (Object.keys(counters).length === 0) {
    throw new ParseError(file, Math.max(lastLine, 1), "at least one rseq counter line (exit: … sabort:)", lastLine === 0 ? "an empty file" : "none");
  }
  const say = (ls: number[], message: string) => {
    if (ls.length > 0) warnings.push({ file, line: ls[0]!, message: `${message} on ${ls.length} line(s): ${ls.join(", ")}` });
  };
  say(commands, "the command above the output (the kernel prints none) skipped");
  say(
    seen.filter((l) => l.note).map((l) => l.n),
    "text after the value (a note by whoever posted the file; the kernel prints none) ignored",
  );
  say(
    seen.filter((l) => l.separators).map((l) => l.n),
    "thousands separators (the kernel prints none) removed",
  );
  const extras = seen.filter((l) => !KNOWN.includes(l.name));
  if (extras.length > 0) {
    warnings.push({
      file,
      line: extras[0]!.n,
      message: `${extras.length} counter(s) mainline does not print (a patched kernel's), kept as extra: ${extras.map((l) => l.name).join(", ")}`,
    });
  }
  say(headings, "section headings (a patched kernel's) skipped");
  if (!complete) {
    const order = seen.filter((l) => KNOWN.includes(l.name));
    const inOrder = order.every((l, j) => j === 0 || KNOWN.indexOf(order[j - 1]!.name) < KNOWN.indexOf(l.name));
    warnings.push({
      file,
      line: firstCounter,
      message: `an excerpt: ${KNOWN.length - missing.length} of the ${KNOWN.length} counters (missing ${missing.join(", ")})${inOrder ? "" : `, not in the kernel's order (${order.map((l) => l.name).join(", ")})`}`,
    });
  }
  if (quoted) warnings.push({ file, line: 1, message: "mail quoting removed" });
  return { file, counters, extra, sliceExtension: opts.excerpt ? present.length > 0 : present.length === RSEQ_SLICE_COUNTERS.length, complete, missing: complete ? [] : missing, warnings };
}

/**
 * after − before, counter by counter. Counters only grow; a smaller value
 * after means a reboot between the snapshots, which is an error.
 */
export function diffRseqStats(before: RseqStats, after: RseqStats): RseqStatsDiff {
  for (const s of [before, after]) {
    if (!s.complete) throw new ParseError(s.file, 1, "a whole rseq/stats file to take a difference of", `an excerpt (missing ${s.missing.join(", ")})`);
  }
  const counters: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.counters)) {
    const b = before.counters[k];
    if (b === undefined) throw new ParseError(before.file, 1, `counter "${k}" (present in ${after.file})`, "none");
    if (v < b) throw new ParseError(after.file, 1, `counter "${k}" ≥ ${b} (its value in ${before.file}; counters only grow)`, String(v));
    counters[k] = v - b;
  }
  return { counters, sliceExtension: before.sliceExtension && after.sliceExtension };
}
