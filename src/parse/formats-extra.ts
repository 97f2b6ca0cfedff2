import type { ParserFormat } from "./formats.js";
import { detectSysbench, parseSysbenchPrepare, parseSysbenchRuns } from "./sysbench.js";
import { detectLockStatExcerpt, parseLockStatExcerpt, type LockStatExcerpt } from "./lock-stat-excerpt.js";
import { detectPerfLockContention, detectPerfLockReport, parsePerfLockContention, parsePerfLockReport } from "./perf-lock.js";
import { detectRseqStats, parseRseqStats, type RseqStats } from "./rseq-stats.js";
import { sliceTraceFormat } from "./slice-trace.js";
import { holderTraceFormat } from "./holder-trace.js";

/** One flat record per class row of every table: the table's number, label and version, then the row and its class's points. */
function lockStatRecords(ex: LockStatExcerpt): Record<string, unknown>[] {
  return ex.tables.flatMap((t) =>
    t.classes.flatMap((c) =>
      c.rows.map((r) => ({ file: ex.file, table: t.index, tableLabel: t.label, version: t.version, ...r, points: c.points })),
    ),
  );
}

/** One record per counter; a patched kernel's extra counters are marked `extra: true`. */
function rseqRecords(s: RseqStats): Array<{ file: string; counter: string; value: number; extra?: true }> {
  return [
    ...Object.entries(s.counters).map(([counter, value]) => ({ file: s.file, counter, value })),
    ...Object.entries(s.extra).map(([counter, value]) => ({ file: s.file, counter, value, extra: true as const })),
  ];
}

/**
 * Formats added by the lock-statistics work (issue 6); joined into the registry in formats.ts.
 * Each `parse` returns a list of flat records (one per run / lock row / entry / counter) so that
 * `slicelab parse` can print them as a table; `--json` keeps every field.
 */
export const extraFormats: ParserFormat[] = [
  {
    name: "sysbench",
    signature: 'a "sysbench X.Y" banner with "SQL statistics:" / "OLTP test statistics:" / "General statistics:" / "Test execution summary:" sections',
    description: "sysbench 0.4/0.5/1.0.x/1.1.x run output: SQL (OLTP) statistics, tps/qps, latency, --report-interval lines, --histogram",
    detect: detectSysbench,
    parse: (text, file) => parseSysbenchRuns(text, file),
    parseWithWarnings: (text, file) => {
      // Outputs that are not ours: a report cut off mid-way is kept with a warning (parseSysbenchRuns cut).
      const runs = parseSysbenchRuns(text, file, { cut: true });
      return { records: runs, warnings: runs.flatMap((r) => r.warnings) };
    },
  },
  {
    name: "sysbench-prepare",
    signature: 'a "sysbench 1.x" banner and "Creating table \'sbtest…\'" lines',
    description: "sysbench prepare output: tables created, rows inserted",
    detect: (text) => /^sysbench \d/m.test(text) && /^Creating table '/m.test(text) && !detectSysbench(text),
    parse: (text, file) => parseSysbenchPrepare(text, file).tables.map((t) => ({ file, ...t })),
  },
  {
    name: "proc-lock-stat",
    aliases: ["lock_stat"],
    description:
      "/proc/lock_stat version 0.3/0.4 (CONFIG_LOCK_STAT) and excerpts of it (no header, wrapped, quoted, before/after tables): one row per class and mode, with its contention points",
    signature: 'a "lock_stat version" line or a "class name  con-bounces  contentions" header',
    detect: detectLockStatExcerpt,
    parse: (text, file) => lockStatRecords(parseLockStatExcerpt(text, file)),
    parseWithWarnings: (text, file) => {
      const ex = parseLockStatExcerpt(text, file);
      return { records: lockStatRecords(ex), warnings: ex.warnings };
    },
  },
  {
    name: "perf-lock-contention",
    signature: 'a "contended   total wait     max wait     avg wait" header',
    aliases: ["perf-lock-con"],
    description: "perf lock contention: by caller (default), task (-t, -o), lock (-l) or cgroup; -v stacks",
    detect: detectPerfLockContention,
    parse: (text, file) => {
      const c = parsePerfLockContention(text, file);
      return c.entries.map((e) => ({ file, mode: c.mode, ...e }));
    },
    parseWithWarnings: (text, file) => {
      const c = parsePerfLockContention(text, file);
      return { records: c.entries.map((e) => ({ file, mode: c.mode, ...e })), warnings: c.warnings };
    },
  },
  {
    name: "perf-lock-report",
    signature: 'a "Name   acquired  contended …" header',
    description: "perf lock report: per lock (or per thread with -t) acquired/contended and wait times",
    detect: detectPerfLockReport,
    parse: (text, file) => parsePerfLockReport(text, file).entries.map((e) => ({ file, ...e })),
    parseWithWarnings: (text, file) => {
      const r = parsePerfLockReport(text, file);
      return { records: r.entries.map((e) => ({ file, ...e })), warnings: r.warnings };
    },
  },
  {
    name: "rseq-stats",
    signature: '"exit: N" … counter lines of debugfs rseq/stats (or at least two of its counters, e.g. "sgrant: N", "srevok: N")',
    description: "debugfs rseq/stats (CONFIG_RSEQ_STATS): exit/fast/slow-path counters and slice-extension grants, expiries, yields; posted excerpts of it",
    detect: detectRseqStats,
    parse: (text, file) => rseqRecords(parseRseqStats(text, file)),
    parseWithWarnings: (text, file) => {
      const s = parseRseqStats(text, file, { excerpt: true });
      return { records: rseqRecords(s), warnings: s.warnings };
    },
  },
  sliceTraceFormat,
  holderTraceFormat,
];
