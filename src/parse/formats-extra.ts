import type { ParserFormat } from "./formats.js";
import { detectSysbench, parseSysbenchPrepare, parseSysbenchRuns } from "./sysbench.js";
import { detectProcLockStat, parseProcLockStat } from "./proc-lock-stat.js";
import { detectPerfLockContention, detectPerfLockReport, parsePerfLockContention, parsePerfLockReport } from "./perf-lock.js";
import { detectRseqStats, parseRseqStats } from "./rseq-stats.js";
import { sliceTraceFormat } from "./slice-trace.js";
import { holderTraceFormat } from "./holder-trace.js";

/**
 * Formats added by the lock-statistics work (issue 6); joined into the registry in formats.ts.
 * Each `parse` returns a list of flat records (one per run / lock row / entry / counter) so that
 * `slicelab parse` can print them as a table; `--json` keeps every field.
 */
export const extraFormats: ParserFormat[] = [
  {
    name: "sysbench",
    description: "sysbench 1.0.x/1.1.x run output: SQL statistics, tps/qps, latency, --report-interval lines, --histogram",
    detect: detectSysbench,
    parse: (text, file) => parseSysbenchRuns(text, file),
  },
  {
    name: "sysbench-prepare",
    description: "sysbench prepare output: tables created, rows inserted",
    detect: (text) => /^sysbench \d/m.test(text) && /^Creating table '/m.test(text) && !detectSysbench(text),
    parse: (text, file) => parseSysbenchPrepare(text, file).tables.map((t) => ({ file, ...t })),
  },
  {
    name: "proc-lock-stat",
    aliases: ["lock_stat"],
    description: "/proc/lock_stat version 0.4 (CONFIG_LOCK_STAT): one row per class and read/write mode, with its contention points",
    detect: detectProcLockStat,
    parse: (text, file) => {
      const ls = parseProcLockStat(text, file);
      return ls.classes.flatMap((c) => c.rows.map((r) => ({ file, ...r, points: c.points })));
    },
  },
  {
    name: "perf-lock-contention",
    aliases: ["perf-lock-con"],
    description: "perf lock contention: by caller (default), task (-t, -o), lock (-l) or cgroup; -v stacks",
    detect: detectPerfLockContention,
    parse: (text, file) => {
      const c = parsePerfLockContention(text, file);
      return c.entries.map((e) => ({ file, mode: c.mode, ...e }));
    },
  },
  {
    name: "perf-lock-report",
    description: "perf lock report: per lock (or per thread with -t) acquired/contended and wait times",
    detect: detectPerfLockReport,
    parse: (text, file) => parsePerfLockReport(text, file).entries.map((e) => ({ file, ...e })),
  },
  {
    name: "rseq-stats",
    description: "debugfs rseq/stats (CONFIG_RSEQ_STATS): exit/fast/slow-path counters and slice-extension grants, expiries, yields",
    detect: detectRseqStats,
    parse: (text, file) => {
      const s = parseRseqStats(text, file);
      return Object.entries(s.counters).map(([counter, value]) => ({ file, counter, value }));
    },
  },
  sliceTraceFormat,
  holderTraceFormat,
];
