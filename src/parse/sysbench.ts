/**
 * sysbench output (1.0.x and 1.1.x): the run header, the per-interval report
 * lines of `--report-interval`, the optional `--histogram`, and the final
 * result block (SQL statistics, General statistics / Throughput, Latency,
 * Threads fairness). Also the short output of `prepare`.
 *
 * Shapes seen in real output (test/fixtures/sysbench/README.md, public/*.source.json):
 *   0.4.12   "OLTP test statistics:" (with "deadlocks:", "read/write requests:", "other operations:"),
 *            "Test execution summary:" with "per-request statistics:" and "approx.  95 percentile:" in ms
 *   0.5      as 0.4 but "General statistics:" / "response time:", and `[  10s] threads: N, tps: …`
 *            interval lines ("reads/s:" early, "reads:" with "errors:"/"reconnects:" later)
 *   1.0.20   "General statistics:" with "total time:" and "total number of events:"
 *   1.1.0    "Throughput:" with "events/s (eps):", "time elapsed:", "total number of events:"
 *   cpu test "CPU speed:" with "events per second:" and no SQL statistics
 * Fields a version does not print stay null and are named in `warnings`.
 */
import { ParseError, quoteFound } from "../util/errors.js";
import type { ParseWarning } from "./text.js";

/** One `--report-interval` line: `[ 1s ] thds: 4 tps: … qps: … (r/w/o: …) lat (ms,95%): … err/s: … reconn/s: …`. */
export interface SysbenchInterval {
  /** Seconds since the start (end of the interval). */
  time: number;
  /** Threads running (null on fileio interval lines, which do not print it). */
  threads: number | null;
  /** Transactions per second (SQL tests), else null. */
  tps: number | null;
  /** Queries per second (SQL tests), else null. */
  qps: number | null;
  readsPerSec: number | null;
  writesPerSec: number | null;
  otherPerSec: number | null;
  /** Events per second (non-SQL tests such as cpu), else null. */
  eps: number | null;
  /** Which latency percentile the line reports (95 unless --percentile was given). */
  latencyPercentile: number;
  latencyMs: number;
  errorsPerSec: number | null;
  reconnectsPerSec: number | null;
  /** `--rate` runs print a second line per interval: queue length and concurrency. */
  queueLength: number | null;
  concurrency: number | null;
  /** fileio test: MiB/s read and written and fsyncs per second in the interval, else null. */
  readMiBps: number | null;
  writtenMiBps: number | null;
  fsyncsPerSec: number | null;
  /** 1-based line number in the file. */
  line: number;
}

export interface SysbenchLatency {
  minMs: number;
  avgMs: number;
  maxMs: number;
  /** The percentile printed (95 unless --percentile) and its value. */
  percentile: number;
  percentileMs: number;
  /** Every "Nth percentile" line, in file order (1.1 builds may print several). */
  percentiles: { percentile: number; ms: number }[];
  /** Sum of all event latencies. */
  sumMs: number | null;
}

export interface SysbenchResult {
  file: string;
  /** "0.4.12", "0.5", "1.0.20", "1.1.0", … */
  version: string;
  /** Output layout: "0.x" (OLTP test statistics / per-request or response time block) or "1.x" (SQL statistics / Latency (ms)). */
  layout: "0.x" | "1.x";
  threads: number | null;
  reportIntervalSec: number | null;
  targetRate: number | null;
  /** Per-type query counts of the SQL statistics block; null for non-SQL tests. */
  queriesPerformed: { read: number; write: number; other: number; total: number } | null;
  transactions: number | null;
  transactionsPerSec: number | null;
  queries: number | null;
  queriesPerSec: number | null;
  ignoredErrors: number | null;
  ignoredErrorsPerSec: number | null;
  reconnects: number | null;
  reconnectsPerSec: number | null;
  /** 0.x only: "deadlocks:", "read/write requests:" and "other operations:" (count and per-second rate). */
  deadlocks: number | null;
  deadlocksPerSec: number | null;
  readWriteRequests: number | null;
  readWriteRequestsPerSec: number | null;
  otherOperations: number | null;
  otherOperationsPerSec: number | null;
  /** Wall time of the run in seconds ("total time" in 1.0, "time elapsed" in 1.1). */
  time: number;
  events: number;
  /** Events per second: printed by 1.1 ("events/s (eps)") and by the cpu test; else events / time. */
  eventsPerSec: number;
  latency: SysbenchLatency;
  fairness: { eventsAvg: number; eventsStddev: number; execTimeAvg: number; execTimeStddev: number } | null;
  intervals: SysbenchInterval[];
  histogram: { valueMs: number; count: number }[];
  /** fileio test: "File operations:" (per second) and the MiB/s lines of "Throughput:"; else null. */
  fileOps: { readsPerSec: number; writesPerSec: number; fsyncsPerSec: number } | null;
  fileThroughputMiBps: { read: number; written: number } | null;
  /** Lines starting with FATAL:/WARNING: seen during the run (with error-ignoring drivers they can precede a result). */
  messages: string[];
  /** What this version's output lacks (fields left null) and printed values that contradict each other. */
  warnings: ParseWarning[];
  /** Present (true) only when the output ends before the result is complete (parseSysbenchRuns with cut). */
  truncated?: true;
}

export interface SysbenchPrepare {
  file: string;
  version: string;
  tables: { name: string; records: number | null; secondaryIndex: boolean }[];
}

/** "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)", "sysbench 0.4.12:  multi-threaded system evaluation benchmark", "sysbench 0.5:  …". */
const HEADER = /^sysbench (\d+\.\d+[^\s:]*)(?::\s+multi-threaded system evaluation benchmark| \(using .*\))?\s*$/;
const NUM = "(-?\\d+(?:\\.\\d+)?)";

/** True when the text looks like the output of a sysbench run. */
export function detectSysbench(text: string): boolean {
  const head = text.slice(0, 4000);
  return /^sysbench \d+\.\d+/m.test(head) && /^(SQL statistics:|OLTP test statistics:|General statistics:|Test execution summary:|Throughput:|Latency \(ms\):)/m.test(text);
}

/** Parses one sysbench run (the file must hold exactly one result block). */
export function parseSysbench(text: string, file: string): SysbenchResult {
  const runs = parseSysbenchRuns(text, file);
  if (runs.length !== 1) {
    const lines = text.split("\n");
    const second = lines.findIndex((l, i) => i > 0 && HEADER.test(l) && lines.slice(0, i).some((p) => HEADER.test(p)));
    throw new ParseError(file, second + 1, "one sysbench run", `${runs.length} runs (use parseSysbenchRuns)`);
  }
  return runs[0]!;
}

/** Parses every sysbench run of a file (several runs appended one after another). */
/**
 * `cut: true` (slicelab parse, for outputs that are not ours): a run whose output ends before its
 * result is complete (a report cut off mid-way, the last run of the text) is kept with what it printed,
 * the missing fields NaN/null, `truncated: true` and a warning naming the line and what is missing,
 * instead of a ParseError. A run that reports FATAL, or a malformed line, is still an error.
 */
export function parseSysbenchRuns(text: string, file: string, options: { cut?: boolean } = {}): SysbenchResult[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (HEADER.test(l)) starts.push(i);
  });
  if (starts.length === 0) {
    const first = lines.findIndex((l) => l.trim() !== "");
    throw new ParseError(file, Math.max(first, 0) + 1, 'a "sysbench X.Y.Z" header line (or "sysbench 0.5:")', quoteFound(lines[Math.max(first, 0)]));
  }
  const runs: SysbenchResult[] = [];
  for (let k = 0; k < starts.length; k++) {
    const end = k + 1 < starts.length ? starts[k + 1]! : lines.length;
    // Only the text's last run can be cut off by the end of the text.
    runs.push(parseOneRun(lines, starts[k]!, end, file, options.cut === true && k === starts.length - 1));
  }
  return runs;
}

type Section = "none" | "sql" | "queriesPerformed" | "general" | "throughput" | "cpu" | "fileops" | "latency" | "legacyLatency" | "fairness" | "histogram";

function parseOneRun(lines: string[], start: number, end: number, file: string, cutOk = false): SysbenchResult {
  const version = HEADER.exec(lines[start]!)![1]!;
  const r: SysbenchResult = {
    file,
    version,
    threads: null,
    reportIntervalSec: null,
    targetRate: null,
    queriesPerformed: null,
    transactions: null,
    transactionsPerSec: null,
    queries: null,
    queriesPerSec: null,
    ignoredErrors: null,
    ignoredErrorsPerSec: null,
    reconnects: null,
    reconnectsPerSec: null,
    deadlocks: null,
    deadlocksPerSec: null,
    readWriteRequests: null,
    readWriteRequestsPerSec: null,
    otherOperations: null,
    otherOperationsPerSec: null,
    layout: "1.x",
    time: NaN,
    events: NaN,
    eventsPerSec: NaN,
    latency: { minMs: NaN, avgMs: NaN, maxMs: NaN, percentile: NaN, percentileMs: NaN, percentiles: [], sumMs: null },
    fairness: null,
    intervals: [],
    histogram: [],
    fileOps: null,
    fileThroughputMiBps: null,
    messages: [],
    warnings: [],
  };
  const fops: Partial<Record<"reads/s" | "writes/s" | "fsyncs/s", number>> = {};
  const ftp: Partial<Record<"read, MiB/s" | "written, MiB/s", number>> = {};
  /** 0-based line of each result section header, for warnings. */
  const at: Partial<Record<"sql" | "general" | "latency", number>> = {};
  const qp: Partial<{ read: number; write: number; other: number; total: number }> = {};
  let section: Section = "none";
  let sawResult = false;
  let printedEps: number | null = null;
  let fairness: Partial<NonNullable<SysbenchResult["fairness"]>> = {};
  let lastInterval: SysbenchInterval | null = null;

  const fail = (i: number, expected: string): never => {
    throw new ParseError(file, i + 1, expected, quoteFound(lines[i]));
  };
  const num = (i: number, s: string, what: string): number => {
    const n = Number(s);
    if (s.trim() === "" || !Number.isFinite(n)) fail(i, what);
    return n;
  };
  /** "N   (R per sec.)" */
  const countRate = (i: number, value: string): [number, number] => {
    const m = new RegExp(`^${NUM}\\s+\\(${NUM} per sec\\.\\)$`).exec(value);
    if (!m) return fail(i, "a count and a rate like `4296   (427.24 per sec.)`");
    return [Number(m[1]), Number(m[2])];
  };

  for (let i = start + 1; i < end; i++) {
    const raw = lines[i]!;
    const line = raw.trimEnd();
    const t = line.trim();
    if (t === "") {
      section = "none";
      continue;
    }
    if (/^(FATAL|WARNING|ALERT|ERROR):/.test(t)) {
      r.messages.push(t);
      continue;
    }
    // Section headers.
    if (t === "SQL statistics:") { section = "sql"; sawResult = true; at.sql = i; continue; }
    if (t === "OLTP test statistics:") { section = "sql"; sawResult = true; at.sql = i; r.layout = "0.x"; continue; }
    if (t === "General statistics:") { section = "general"; sawResult = true; at.general = i; continue; }
    if (t === "Test execution summary:") { section = "general"; sawResult = true; at.general = i; r.layout = "0.x"; continue; }
    if (t === "Throughput:") { section = "throughput"; sawResult = true; continue; }
    if (t === "CPU speed:") { section = "cpu"; sawResult = true; continue; }
    if (t === "File operations:") { section = "fileops"; sawResult = true; continue; }
    if (t === "Latency (ms):") { section = "latency"; sawResult = true; at.latency = i; continue; }
    if (t === "Threads fairness:") { section = "fairness"; continue; }
    if (/^Latency histogram \(values are in milliseconds\)$/.test(t)) { section = "histogram"; continue; }

    if (/^\[[^\]\s]*@[^\]]*\]\s*[#$%]/.test(t)) {
      // A shell prompt pasted with the output ("[root@host ~]#"): the run's output ends here.
      r.warnings.push({ file, line: i + 1, message: `a shell prompt: the output of this run ends here (${quoteFound(t, 40)})` });
      break;
    }
    if (t.startsWith("[")) {
      const iv = parseIntervalLine(t, i, file, lastInterval);
      if (iv === "queue") continue; // merged into the previous interval
      r.intervals.push(iv);
      lastInterval = iv;
      continue;
    }

    switch (section) {
      case "none": {
        let m: RegExpExecArray | null;
        if ((m = /^Number of threads: (\d+)$/.exec(t))) r.threads = Number(m[1]);
        else if ((m = /^Report intermediate results every (\d+) second\(s\)$/.exec(t))) r.reportIntervalSec = Number(m[1]);
        else if ((m = /^Target transaction rate: (\d+(?:\.\d+)?)\/sec$/.exec(t))) r.targetRate = Number(m[1]);
        else if (sawResult) fail(i, "a result section header (SQL statistics:, General statistics:, Throughput:, Latency (ms):, Threads fairness:)");
        // Other header lines (test options, "Threads started!", …) vary by test and are kept out.
        break;
      }
      case "sql":
      case "queriesPerformed": {
        const kv = splitKv(t);
        if (!kv) fail(i, "a `name: value` line in the SQL statistics block");
        const [k, v] = kv!;
        if (k === "queries performed" && v === "") { section = "queriesPerformed"; break; }
        if (section === "queriesPerformed" && /^\s{8}\S/.test(raw) && ["read", "write", "other", "total"].includes(k)) {
          qp[k as "read"] = num(i, v, `a number after "${k}:"`);
          break;
        }
        section = "sql";
        if (k === "transactions") [r.transactions, r.transactionsPerSec] = countRate(i, v);
        else if (k === "queries") [r.queries, r.queriesPerSec] = countRate(i, v);
        else if (k === "ignored errors") [r.ignoredErrors, r.ignoredErrorsPerSec] = countRate(i, v);
        else if (k === "reconnects") [r.reconnects, r.reconnectsPerSec] = countRate(i, v);
        else if (k === "deadlocks") [r.deadlocks, r.deadlocksPerSec] = countRate(i, v);
        else if (k === "read/write requests") [r.readWriteRequests, r.readWriteRequestsPerSec] = countRate(i, v);
        else if (k === "other operations") [r.otherOperations, r.otherOperationsPerSec] = countRate(i, v);
        else fail(i, "queries performed:, transactions:, queries:, ignored errors:, reconnects: (or 0.x: deadlocks:, read/write requests:, other operations:)");
        break;
      }
      case "general":
      case "throughput": {
        const kv = splitKv(t);
        if (!kv) fail(i, "a `name: value` line");
        const [k, v] = kv!;
        if (k === "total time" || k === "time elapsed") {
          const m = /^(\d+(?:\.\d+)?)s$/.exec(v);
          if (!m) fail(i, `a time in seconds like "10.0552s" after "${k}:"`);
          r.time = Number(m![1]);
        } else if (k === "total number of events") r.events = num(i, v, "an event count");
        else if (k === "events/s (eps)") printedEps = num(i, v, "an events-per-second rate");
        else if (section === "throughput" && (k === "read, MiB/s" || k === "written, MiB/s")) ftp[k] = num(i, v, `a rate in MiB/s after "${k}:"`);
        else if (k === "total time taken by event execution") {
          // 0.x: the sum of all event latencies, in seconds (printed with or without the "s").
          const m = /^(\d+(?:\.\d+)?)s?$/.exec(v);
          if (!m) fail(i, 'a time in seconds like "119.1212" or "90.9547s"');
          r.latency.sumMs = Math.round(Number(m![1]) * 1e6) / 1e3;
        } else if ((k === "per-request statistics" || k === "response time") && v === "") {
          section = "legacyLatency";
          at.latency = i;
        } else fail(i, "total time:, time elapsed:, events/s (eps):, total number of events: (or 0.x: total time taken by event execution:, per-request statistics:, response time:)");
        break;
      }
      case "legacyLatency": {
        // 0.x: "min:  0.12ms" … "approx.  95 percentile:  0.30ms"
        const kv = splitKv(t);
        if (!kv) fail(i, "a `name: value` line in the per-request statistics block");
        const [k, v] = kv!;
        const m = /^(\d+(?:\.\d+)?)ms$/.exec(v);
        if (!m) fail(i, `a latency in milliseconds like "0.30ms" after "${k}:"`);
        const ms = Number(m![1]);
        const L = r.latency;
        let p: RegExpExecArray | null;
        if (k === "min") L.minMs = ms;
        else if (k === "avg") L.avgMs = ms;
        else if (k === "max") L.maxMs = ms;
        else if ((p = /^approx\.\s+(\d+(?:\.\d+)?) percentile$/.exec(k))) {
          L.percentiles.push({ percentile: Number(p[1]), ms });
          if (L.percentiles.length === 1) {
            L.percentile = Number(p[1]);
            L.percentileMs = ms;
          }
        } else fail(i, "min:, avg:, max: or approx.  N percentile:");
        break;
      }
      case "fileops": {
        const kv = splitKv(t);
        if (!kv || !["reads/s", "writes/s", "fsyncs/s"].includes(kv[0])) fail(i, '"reads/s:", "writes/s:" or "fsyncs/s:" in "File operations:"');
        fops[kv![0] as "reads/s"] = num(i, kv![1], `a rate after "${kv![0]}:"`);
        break;
      }
      case "cpu": {
        const kv = splitKv(t);
        if (!kv || kv[0] !== "events per second") fail(i, '"events per second: N"');
        printedEps = num(i, kv![1], "an events-per-second rate");
        break;
      }
      case "latency": {
        const kv = splitKv(t);
        if (!kv) fail(i, "a `name: value` line in the Latency (ms) block");
        const [k, v] = kv!;
        const L = r.latency;
        let m: RegExpExecArray | null;
        if (k === "min") L.minMs = num(i, v, "a latency in ms");
        else if (k === "avg") L.avgMs = num(i, v, "a latency in ms");
        else if (k === "max") L.maxMs = num(i, v, "a latency in ms");
        else if (k === "sum") L.sumMs = num(i, v, "a latency sum in ms");
        else if ((m = /^(\d+(?:\.\d+)?)th percentile$/.exec(k))) {
          const p = Number(m[1]);
          const ms = num(i, v, "a latency in ms");
          L.percentiles.push({ percentile: p, ms });
          if (L.percentiles.length === 1) {
            L.percentile = p;
            L.percentileMs = ms;
          }
        } else fail(i, "min:, avg:, max:, Nth percentile: or sum:");
        break;
      }
      case "fairness": {
        const m = new RegExp(`^(events|execution time) \\(avg/stddev\\):\\s+${NUM}/${NUM}$`).exec(t);
        if (!m) fail(i, '"events (avg/stddev): A/S" or "execution time (avg/stddev): A/S"');
        if (m![1] === "events") fairness = { ...fairness, eventsAvg: Number(m![2]), eventsStddev: Number(m![3]) };
        else fairness = { ...fairness, execTimeAvg: Number(m![2]), execTimeStddev: Number(m![3]) };
        break;
      }
      case "histogram": {
        if (/^value\s+-+ distribution -+ count$/.test(t)) break;
        const m = new RegExp(`^${NUM} \\|\\**\\s*(\\d+)$`).exec(t);
        if (!m) fail(i, "a histogram row like `0.527 |***   12`");
        r.histogram.push({ valueMs: Number(m![1]), count: Number(m![2]) });
        break;
      }
    }
  }

  const lastLine = end - 1;
  // The last line with text: where a cut output ends.
  let lastText = end - 1;
  while (lastText > start && lines[lastText]!.trim() === "") lastText--;
  const cut = (what: string): void => {
    r.truncated = true;
    r.warnings.push({ file, line: lastText + 1, message: `the output ends here, before ${what}: kept as a truncated run (missing fields are null)` });
  };
  const firstFatal = lines.slice(start, end).findIndex((l) => /^FATAL:/.test(l.trim()));
  if (!sawResult) {
    if (firstFatal >= 0) fail(start + firstFatal, "a sysbench result block (the run failed)");
    if (cutOk) {
      cut(`its result block (SQL statistics: or General statistics:)${r.intervals.length ? `; ${r.intervals.length} interval line${r.intervals.length === 1 ? "" : "s"} kept` : ""}`);
      return r;
    }
    throw new ParseError(file, lastLine + 1, "a sysbench result block (SQL statistics: or General statistics:)", "end of the run's output");
  }
  // Missing parts of a result that the end of the text cut off: named once, kept as null.
  if (cutOk && firstFatal < 0) {
    const missing: string[] = [];
    if (Object.keys(qp).length > 0 && ["read", "write", "other", "total"].some((k) => qp[k as keyof typeof qp] === undefined)) missing.push('part of "queries performed:"');
    if (!Number.isFinite(r.time)) missing.push('"total time:"');
    if (!Number.isFinite(r.events)) missing.push('"total number of events:"');
    const lat = (["minMs", "avgMs", "maxMs", "percentileMs"] as const).filter((k) => !Number.isFinite(r.latency[k]));
    if (lat.length > 0) missing.push(`the latency ${lat.map((k) => k.replace("Ms", "")).join(", ")}`);
    if ((fairness.eventsAvg === undefined) !== (fairness.execTimeAvg === undefined)) missing.push('the second line of "Threads fairness:"');
    if (missing.length > 0) {
      cut(missing.join(", "));
      if (Object.keys(qp).length === 4) r.queriesPerformed = qp as NonNullable<SysbenchResult["queriesPerformed"]>;
      r.eventsPerSec = printedEps ?? (r.time > 0 ? r.events / r.time : NaN);
      return r;
    }
  }
  if (Object.keys(qp).length > 0) {
    for (const k of ["read", "write", "other", "total"] as const) {
      if (qp[k] === undefined) throw new ParseError(file, lastLine + 1, `"${k}:" under "queries performed:"`, "none");
    }
    r.queriesPerformed = qp as NonNullable<SysbenchResult["queriesPerformed"]>;
  }
  if (!Number.isFinite(r.time)) throw new ParseError(file, lastLine + 1, '"total time:" or "time elapsed:" in the result', "none");
  if (!Number.isFinite(r.events)) throw new ParseError(file, lastLine + 1, '"total number of events:" in the result', "none");
  for (const k of ["minMs", "avgMs", "maxMs", "percentileMs"] as const) {
    if (!Number.isFinite(r.latency[k])) throw new ParseError(file, lastLine + 1, `a complete "Latency (ms):" block (${k.replace("Ms", "")} missing)`, "none");
  }
  if (fairness.eventsAvg !== undefined || fairness.execTimeAvg !== undefined) {
    if (fairness.eventsAvg === undefined || fairness.execTimeAvg === undefined) {
      throw new ParseError(file, lastLine + 1, 'both lines of "Threads fairness:"', "one");
    }
    r.fairness = fairness as NonNullable<SysbenchResult["fairness"]>;
  }
  if (Object.keys(fops).length > 0) {
    for (const k of ["reads/s", "writes/s", "fsyncs/s"] as const) {
      if (fops[k] === undefined) throw new ParseError(file, lastLine + 1, `"${k}:" under "File operations:"`, "none");
    }
    r.fileOps = { readsPerSec: fops["reads/s"]!, writesPerSec: fops["writes/s"]!, fsyncsPerSec: fops["fsyncs/s"]! };
  }
  if (Object.keys(ftp).length > 0) {
    if (ftp["read, MiB/s"] === undefined || ftp["written, MiB/s"] === undefined) {
      throw new ParseError(file, lastLine + 1, 'both "read, MiB/s:" and "written, MiB/s:" under "Throughput:"', "one");
    }
    r.fileThroughputMiBps = { read: ftp["read, MiB/s"]!, written: ftp["written, MiB/s"]! };
  }
  r.eventsPerSec = printedEps ?? (r.time > 0 ? r.events / r.time : NaN);
  addWarnings(r, at, start, file);
  return r;
}

/** Names what this run's output does not print, and printed values that contradict each other. */
function addWarnings(r: SysbenchResult, at: Partial<Record<"sql" | "general" | "latency", number>>, start: number, file: string): void {
  const warn = (i: number, message: string) => r.warnings.push({ file, line: i + 1, message });
  if (r.layout === "0.x") {
    const sql = at.sql ?? at.general ?? start;
    if (at.sql !== undefined && r.queries === null) {
      warn(sql, `sysbench ${r.version} prints no "queries:" line ("read/write requests:" and "other operations:" instead): queries and queriesPerSec are null`);
    }
    if (at.sql !== undefined && r.ignoredErrors === null) {
      warn(sql, `sysbench ${r.version} prints no "ignored errors:"/"reconnects:" lines${r.deadlocks !== null ? ' ("deadlocks:" instead)' : ""}: they are null`);
    }
    if (r.latency.sumMs === null) warn(at.general ?? start, 'no "total time taken by event execution:" line: latency.sumMs is null');
    const iv = r.intervals.find((x) => x.qps === null && x.tps !== null);
    if (iv) {
      warn(iv.line - 1, `interval lines of sysbench ${r.version} print no qps or other-queries rate${iv.errorsPerSec === null ? ", and no errors/reconnects rates" : ""}: those fields are null`);
    }
  }
  const L = r.latency;
  if (L.percentileMs < L.minMs || L.percentileMs > L.maxMs) {
    warn(at.latency ?? start, `the printed ${L.percentile}th percentile (${L.percentileMs} ms) lies outside the printed min…max (${L.minMs}…${L.maxMs} ms): sysbench reports the percentile from histogram buckets`);
  }
}

/** "name:   value" → [name, value]; the name may contain spaces, slashes and parentheses. */
function splitKv(t: string): [string, string] | null {
  const m = /^([^:]+):\s*(.*)$/.exec(t);
  return m ? [m[1]!.trim(), m[2]!.trim()] : null;
}

function parseIntervalLine(t: string, i: number, file: string, prev: SysbenchInterval | null): SysbenchInterval | "queue" {
  const head = /^\[\s*(\d+(?:\.\d+)?)s\s*\]\s+(.*)$/.exec(t);
  if (!head) throw new ParseError(file, i + 1, "an interval report line like `[ 1s ] thds: …`", quoteFound(t));
  const time = Number(head[1]);
  const rest = head[2]!;
  const q = /^queue length: (\d+), concurrency: (\d+)$/.exec(rest);
  if (q) {
    if (!prev || prev.time !== time) throw new ParseError(file, i + 1, `a "thds:" report line for ${time}s before its queue line`, quoteFound(t));
    prev.queueLength = Number(q[1]);
    prev.concurrency = Number(q[2]);
    return "queue";
  }
  const sql = new RegExp(
    `^thds: (\\d+) tps: ${NUM} qps: ${NUM} \\(r/w/o: ${NUM}/${NUM}/${NUM}\\) lat \\(ms,(\\d+(?:\\.\\d+)?)%\\): ${NUM} err/s:? ${NUM} reconn/s: ${NUM}$`,
  ).exec(rest);
  if (sql) {
    return {
      time,
      threads: Number(sql[1]),
      tps: Number(sql[2]),
      qps: Number(sql[3]),
      readsPerSec: Number(sql[4]),
      writesPerSec: Number(sql[5]),
      otherPerSec: Number(sql[6]),
      eps: null,
      latencyPercentile: Number(sql[7]),
      latencyMs: Number(sql[8]),
      errorsPerSec: Number(sql[9]),
      reconnectsPerSec: Number(sql[10]),
      queueLength: null,
      concurrency: null,
      readMiBps: null,
      writtenMiBps: null,
      fsyncsPerSec: null,
      line: i + 1,
    };
  }
  const ev = new RegExp(`^thds: (\\d+) eps: ${NUM} lat \\(ms,(\\d+(?:\\.\\d+)?)%\\): ${NUM}$`).exec(rest);
  if (ev) {
    return {
      time,
      threads: Number(ev[1]),
      tps: null,
      qps: null,
      readsPerSec: null,
      writesPerSec: null,
      otherPerSec: null,
      eps: Number(ev[2]),
      latencyPercentile: Number(ev[3]),
      latencyMs: Number(ev[4]),
      errorsPerSec: null,
      reconnectsPerSec: null,
      queueLength: null,
      concurrency: null,
      readMiBps: null,
      writtenMiBps: null,
      fsyncsPerSec: null,
      line: i + 1,
    };
  }
  // fileio: "reads: 28.78 MiB/s writes: 0.00 MiB/s fsyncs: 0.00/s latency (ms,95%): 1.319"
  const fio = new RegExp(`^reads: ${NUM} MiB/s writes: ${NUM} MiB/s fsyncs: ${NUM}/s latency \\(ms,(\\d+(?:\\.\\d+)?)%\\): ${NUM}$`).exec(rest);
  if (fio) {
    return {
      time,
      threads: null,
      tps: null,
      qps: null,
      readsPerSec: null,
      writesPerSec: null,
      otherPerSec: null,
      eps: null,
      latencyPercentile: Number(fio[4]),
      latencyMs: Number(fio[5]),
      errorsPerSec: null,
      reconnectsPerSec: null,
      queueLength: null,
      concurrency: null,
      readMiBps: Number(fio[1]),
      writtenMiBps: Number(fio[2]),
      fsyncsPerSec: Number(fio[3]),
      line: i + 1,
    };
  }
  // 0.5 (and the 1.0 pre-releases): "threads: 8, tps: 3377.03, reads/s: 47284.78, writes/s: 13508.14 response time: 2.82ms (99%)"
  // or "threads: 1, tps: 194.58, reads: 2731.07, writes: 780.31, response time: 6.58ms (95%), errors: 0.00, reconnects:  0.00"
  const old = new RegExp(
    `^threads: (\\d+), tps: ${NUM}, reads(?:/s)?: ${NUM}, writes(?:/s)?: ${NUM},? response time: ${NUM}ms \\((\\d+(?:\\.\\d+)?)%\\)(?:, errors: ${NUM}, reconnects:\\s+${NUM})?$`,
  ).exec(rest);
  if (old) {
    return {
      time,
      threads: Number(old[1]),
      tps: Number(old[2]),
      qps: null,
      readsPerSec: Number(old[3]),
      writesPerSec: Number(old[4]),
      otherPerSec: null,
      eps: null,
      latencyPercentile: Number(old[6]),
      latencyMs: Number(old[5]),
      errorsPerSec: old[7] === undefined ? null : Number(old[7]),
      reconnectsPerSec: old[8] === undefined ? null : Number(old[8]),
      queueLength: null,
      concurrency: null,
      readMiBps: null,
      writtenMiBps: null,
      fsyncsPerSec: null,
      line: i + 1,
    };
  }
  throw new ParseError(
    file,
    i + 1,
    "`thds: N tps: X qps: X (r/w/o: R/W/O) lat (ms,P%): X err/s: X reconn/s: X`, `thds: N eps: X lat (ms,P%): X` or (0.5) `threads: N, tps: X, reads: X, writes: X, response time: Xms (P%)`",
    quoteFound(t),
  );
}

/** Parses the output of `sysbench … prepare` (tables created and rows inserted). */
export function parseSysbenchPrepare(text: string, file: string): SysbenchPrepare {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const first = lines.findIndex((l) => l.trim() !== "");
  const h = first >= 0 ? HEADER.exec(lines[first]!) : null;
  if (!h) throw new ParseError(file, Math.max(first, 0) + 1, 'a "sysbench X.Y.Z" header line', quoteFound(lines[Math.max(first, 0)]));
  const out: SysbenchPrepare = { file, version: h[1]!, tables: [] };
  const byName = new Map<string, SysbenchPrepare["tables"][number]>();
  const table = (i: number, name: string) => {
    const t = byName.get(name);
    if (!t) throw new ParseError(file, i + 1, `"Creating table '${name}'..." before this line`, quoteFound(lines[i]));
    return t;
  };
  for (let i = first + 1; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t === "") continue;
    let m: RegExpExecArray | null;
    if ((m = /^Creating table '([^']+)'\.\.\.$/.exec(t))) {
      const rec = { name: m[1]!, records: null, secondaryIndex: false };
      byName.set(rec.name, rec);
      out.tables.push(rec);
    } else if ((m = /^Inserting (\d+) records into '([^']+)'$/.exec(t))) table(i, m[2]!).records = Number(m[1]);
    else if ((m = /^Creating a secondary index on '([^']+)'\.\.\.$/.exec(t))) table(i, m[1]!).secondaryIndex = true;
    else if (/^FATAL:/.test(t)) throw new ParseError(file, i + 1, "a completed prepare step", quoteFound(t));
    else throw new ParseError(file, i + 1, "Creating table / Inserting N records / Creating a secondary index", quoteFound(t));
  }
  if (out.tables.length === 0) throw new ParseError(file, lines.length, "at least one \"Creating table '…'...\" line", "none");
  return out;
}
