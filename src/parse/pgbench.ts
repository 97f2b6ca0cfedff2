/**
 * Parser for pgbench output, every format since PostgreSQL 9.x:
 *
 * - the summary block (transaction type, scaling factor, query mode, clients,
 *   threads, maximum number of tries, duration or transactions per client,
 *   transactions processed, failed / serialization / deadlock failures,
 *   retried transactions and retries, skipped transactions, latency limit,
 *   latency average and stddev, schedule lag, initial connection time);
 * - the tps line(s): `(including connections establishing)` and
 *   `(excluding connections establishing)` up to PostgreSQL 13,
 *   `(without initial connection time)` from PostgreSQL 14;
 * - `--progress` lines (any order of the `failed`, `lag`, `skipped`, `retried`,
 *   `retries` parts, and the 9.3 form `N ms lat`);
 * - per-statement latencies (`-r`), with failures and retries columns (15+);
 * - per-script blocks of runs with several scripts (`-b`/`-f` with weights);
 * - bare excerpt lines `tps = N (…)` as quoted in mail: each tps line is a run.
 *
 * One text may hold several runs one after another. Lines may carry mail
 * quoting or indentation. Anything that is not pgbench output is skipped,
 * but a line that starts like a pgbench line and does not parse is an error,
 * as is a run without its tps line (truncated output) or a run that pgbench
 * itself reports as aborted.
 */
import { readFileSync } from "node:fs";
import { ParseError, UserError, quoteFound } from "../util/errors.js";
import { cNumber, finiteOrNull, splitLines, unquote, type ParseWarning } from "./text.js";

/** What the tps figure of a run counts, from the text in parentheses after it. */
export type PgbenchTpsMode =
  /** PostgreSQL 14+: connection set-up time is not counted. */
  | "without initial connection time"
  /** PostgreSQL ≤ 13: connection set-up time is not counted (the comparable figure). */
  | "excluding connections establishing"
  /** PostgreSQL ≤ 13, when the output lacks the "excluding" line. */
  | "including connections establishing"
  /** PostgreSQL 14+ with -C/--connect: every transaction's connection time is counted. */
  | "including reconnection times";

/** One `--progress` line. */
export interface PgbenchProgress {
  line: number;
  /** Seconds since the start of the run (or a Unix time with --progress-timestamp). */
  elapsedS: number;
  tps: number | null;
  latencyMs: number | null;
  latencyStddevMs: number | null;
  lagMs: number | null;
  skipped: number | null;
  failed: number | null;
  retried: number | null;
  retries: number | null;
}

/** One line of the per-statement report (`-r`). */
export interface PgbenchStatement {
  line: number;
  /** Index (1-based) of the script in a multi-script run, else null. */
  script: number | null;
  latencyMs: number;
  failures: number | null;
  retries: number | null;
  command: string;
}

/** The per-script block of a run with several scripts. */
export interface PgbenchScript {
  line: number;
  index: number;
  name: string;
  weight: number | null;
  targetPct: number | null;
  transactions: number | null;
  sharePct: number | null;
  tps: number | null;
  failed: number | null;
  latencyAverageMs: number | null;
  latencyStddevMs: number | null;
}

/** One pgbench run. Fields a format does not print are null. */
export interface PgbenchRun {
  file: string;
  /** Line of the tps figure (the "excluding" line for the two-line format). */
  line: number;
  /** First line that belongs to the run. */
  startLine: number;
  /** True when the run is a bare `tps = …` excerpt without the summary block. */
  excerpt: boolean;
  tps: number;
  tpsMode: PgbenchTpsMode;
  /** PostgreSQL ≤ 13: the "(including connections establishing)" figure. */
  tpsIncludingConnections: number | null;
  /** `pgbench (15.18 (Debian …))` banner (client version), PostgreSQL 14+. */
  version: string | null;
  /** `, server 15.3` part of the banner when client and server differ. */
  serverVersion: string | null;
  transactionType: string | null;
  scale: number | null;
  queryMode: string | null;
  clients: number | null;
  threads: number | null;
  maxTries: number | null;
  durationS: number | null;
  transactionsPerClient: number | null;
  transactionsProcessed: number | null;
  /** The "/M" part of "processed: N/M" (runs with -t). */
  transactionsIntended: number | null;
  failed: number | null;
  serializationFailures: number | null;
  deadlockFailures: number | null;
  retried: number | null;
  retriesTotal: number | null;
  skipped: number | null;
  latencyLimitMs: number | null;
  aboveLatencyLimit: number | null;
  latencyAverageMs: number | null;
  /** True for "latency average = … ms (including failures)" (15+). */
  latencyIncludesFailures: boolean;
  latencyStddevMs: number | null;
  scheduleLagAvgMs: number | null;
  scheduleLagMaxMs: number | null;
  initialConnectionTimeMs: number | null;
  progress: PgbenchProgress[];
  statements: PgbenchStatement[];
  scripts: PgbenchScript[];
  /** `pgbench: error: …` / `client N aborted …` lines printed during the run. */
  errors: string[];
}

const TPS_RE = /^tps = ([^\s(]+)\s*\(([^)]*)\)\s*$/;
const TPS_MODES: Record<string, PgbenchTpsMode> = {
  "without initial connection time": "without initial connection time",
  "excluding connections establishing": "excluding connections establishing",
  "including connections establishing": "including connections establishing",
  "including reconnection times": "including reconnection times",
};

type RunDraft = Omit<PgbenchRun, "line" | "tps" | "tpsMode" | "excerpt"> & {
  line: number | null;
  tps: number | null;
  tpsMode: PgbenchTpsMode | null;
  /** Number of summary fields seen (to tell an empty run from a truncated one). */
  fields: number;
  /** Which summary rules matched, to notice a second header inside an unfinished run. */
  seen: Set<number>;
  /** The run has its final tps; only per-statement / per-script blocks may follow. */
  closed: boolean;
};

function emptyRun(file: string, startLine: number): RunDraft {
  return {
    file,
    line: null,
    startLine,
    tps: null,
    tpsMode: null,
    tpsIncludingConnections: null,
    version: null,
    serverVersion: null,
    transactionType: null,
    scale: null,
    queryMode: null,
    clients: null,
    threads: null,
    maxTries: null,
    durationS: null,
    transactionsPerClient: null,
    transactionsProcessed: null,
    transactionsIntended: null,
    failed: null,
    serializationFailures: null,
    deadlockFailures: null,
    retried: null,
    retriesTotal: null,
    skipped: null,
    latencyLimitMs: null,
    aboveLatencyLimit: null,
    latencyAverageMs: null,
    latencyIncludesFailures: false,
    latencyStddevMs: null,
    scheduleLagAvgMs: null,
    scheduleLagMaxMs: null,
    initialConnectionTimeMs: null,
    progress: [],
    statements: [],
    scripts: [],
    errors: [],
    fields: 0,
    seen: new Set(),
    closed: false,
  };
}

/** Reads a number or throws a ParseError naming what was expected. */
function num(file: string, line: number, text: string, what: string, raw: string): number {
  const n = cNumber(text);
  if (n === undefined) throw new ParseError(file, line, what, quoteFound(raw));
  return n;
}

function int(file: string, line: number, text: string, what: string, raw: string): number {
  const n = num(file, line, text, what, raw);
  if (!Number.isInteger(n)) throw new ParseError(file, line, what, quoteFound(raw));
  return n;
}

/** Summary fields `key: value` / `key = value` → setter. */
interface FieldRule {
  re: RegExp;
  apply(run: RunDraft, m: RegExpExecArray, ctx: { file: string; line: number; raw: string }): void;
}

const countPct = /^(\d+) \((?:[-\d.]+|-?nan) ?%\)$/i;

function runField(re: RegExp, apply: (run: RunDraft, m: RegExpExecArray, c: { file: string; line: number; raw: string }) => void): FieldRule {
  return { re, apply };
}

/** Rules for the lines of the summary block (after the common prefix is known). */
const RUN_FIELDS: FieldRule[] = [
  runField(/^transaction type: (.+)$/, (r, m) => (r.transactionType = m[1]!.trim())),
  runField(/^scaling factor: (.*)$/, (r, m, c) => (r.scale = int(c.file, c.line, m[1]!, "an integer scaling factor", c.raw))),
  runField(/^query mode: (.*)$/, (r, m) => (r.queryMode = m[1]!.trim())),
  runField(/^number of clients: (.*)$/, (r, m, c) => (r.clients = int(c.file, c.line, m[1]!, "an integer number of clients", c.raw))),
  runField(/^number of threads: (.*)$/, (r, m, c) => (r.threads = int(c.file, c.line, m[1]!, "an integer number of threads", c.raw))),
  runField(/^maximum number of tries: (.*)$/, (r, m, c) => (r.maxTries = int(c.file, c.line, m[1]!, "an integer maximum number of tries", c.raw))),
  runField(/^duration: (.*)$/, (r, m, c) => {
    const d = /^(\S+) s$/.exec(m[1]!.trim());
    if (!d) throw new ParseError(c.file, c.line, 'a duration "N s"', quoteFound(c.raw));
    r.durationS = num(c.file, c.line, d[1]!, 'a duration "N s"', c.raw);
  }),
  runField(/^number of transactions per client: (.*)$/, (r, m, c) => {
    r.transactionsPerClient = int(c.file, c.line, m[1]!, "an integer number of transactions per client", c.raw);
  }),
  runField(/^number of (?:transactions actually processed|processed transactions): (.*)$/, (r, m, c) => {
    const p = /^(\d+)(?:\/(\d+))?$/.exec(m[1]!.trim());
    if (!p) throw new ParseError(c.file, c.line, 'a count "N" or "N/M" of processed transactions', quoteFound(c.raw));
    r.transactionsProcessed = Number(p[1]);
    r.transactionsIntended = p[2] === undefined ? null : Number(p[2]);
  }),
  runField(/^number of failed transactions: (.*)$/, (r, m, c) => (r.failed = pctCount(c, m[1]!, "failed transactions"))),
  runField(/^number of serialization failures: (.*)$/, (r, m, c) => (r.serializationFailures = pctCount(c, m[1]!, "serialization failures"))),
  runField(/^number of deadlock failures: (.*)$/, (r, m, c) => (r.deadlockFailures = pctCount(c, m[1]!, "deadlock failures"))),
  runField(/^number of transactions retried: (.*)$/, (r, m, c) => (r.retried = pctCount(c, m[1]!, "retried transactions"))),
  runField(/^total number of retries: (.*)$/, (r, m, c) => (r.retriesTotal = int(c.file, c.line, m[1]!, "an integer number of retries", c.raw))),
  runField(/^number of transactions skipped: (.*)$/, (r, m, c) => (r.skipped = pctCount(c, m[1]!, "skipped transactions"))),
  runField(/^number of transactions above the (\S+) ms latency limit: (.*)$/, (r, m, c) => {
    r.latencyLimitMs = num(c.file, c.line, m[1]!, "a latency limit in ms", c.raw);
    const p = /^(\d+)(?:\/\d+)? \((?:[-\d.]+|-?nan) ?%\)$/i.exec(m[2]!.trim());
    if (!p) throw new ParseError(c.file, c.line, 'a count "N/M (P%)" of transactions above the latency limit', quoteFound(c.raw));
    r.aboveLatencyLimit = Number(p[1]);
  }),
  runField(/^latency average\s*[:=]\s*(.*)$/, (r, m, c) => {
    const l = /^(\S+) ms( \(including failures\))?$/.exec(m[1]!.trim());
    if (!l) throw new ParseError(c.file, c.line, 'a latency "N ms"', quoteFound(c.raw));
    r.latencyAverageMs = finiteOrNull(num(c.file, c.line, l[1]!, 'a latency "N ms"', c.raw));
    r.latencyIncludesFailures = l[2] !== undefined;
  }),
  runField(/^latency stddev\s*[:=]\s*(.*)$/, (r, m, c) => {
    const l = /^(\S+) ms$/.exec(m[1]!.trim());
    if (!l) throw new ParseError(c.file, c.line, 'a latency stddev "N ms"', quoteFound(c.raw));
    r.latencyStddevMs = finiteOrNull(num(c.file, c.line, l[1]!, 'a latency stddev "N ms"', c.raw));
  }),
  runField(/^rate limit schedule lag: (.*)$/, (r, m, c) => {
    const l = /^avg (\S+) \(max (\S+)\) ms$/.exec(m[1]!.trim());
    if (!l) throw new ParseError(c.file, c.line, 'a schedule lag "avg N (max M) ms"', quoteFound(c.raw));
    r.scheduleLagAvgMs = num(c.file, c.line, l[1]!, "a number", c.raw);
    r.scheduleLagMaxMs = num(c.file, c.line, l[2]!, "a number", c.raw);
  }),
  runField(/^initial connection time = (.*)$/, (r, m, c) => {
    const l = /^(\S+) ms$/.exec(m[1]!.trim());
    if (!l) throw new ParseError(c.file, c.line, 'an initial connection time "N ms"', quoteFound(c.raw));
    r.initialConnectionTimeMs = num(c.file, c.line, l[1]!, "a number", c.raw);
  }),
];

function pctCount(c: { file: string; line: number; raw: string }, text: string, what: string): number {
  const p = countPct.exec(text.trim());
  if (!p) throw new ParseError(c.file, c.line, `a count "N (P%)" of ${what}`, quoteFound(c.raw));
  return Number(p[1]);
}

/** Parses the part after `progress: `. */
function parseProgress(file: string, line: number, body: string, raw: string): PgbenchProgress {
  const parts = body.split(/,\s*/);
  const head = /^(\S+) s$/.exec(parts[0] ?? "");
  const tpsPart = /^(\S+) tps$/.exec(parts[1] ?? "");
  if (!head || !tpsPart) {
    throw new ParseError(file, line, 'a progress line "progress: T s, N tps, …"', quoteFound(raw));
  }
  const p: PgbenchProgress = {
    line,
    elapsedS: num(file, line, head[1]!, "an elapsed time in seconds", raw),
    tps: finiteOrNull(num(file, line, tpsPart[1]!, "a tps figure", raw)),
    latencyMs: null,
    latencyStddevMs: null,
    lagMs: null,
    skipped: null,
    failed: null,
    retried: null,
    retries: null,
  };
  for (const part of parts.slice(2)) {
    let m: RegExpExecArray | null;
    if ((m = /^lat (\S+) ms stddev (\S+)$/.exec(part))) {
      p.latencyMs = finiteOrNull(num(file, line, m[1]!, "a latency", raw));
      p.latencyStddevMs = finiteOrNull(num(file, line, m[2]!, "a latency stddev", raw));
    } else if ((m = /^(\S+) ms lat$/.exec(part))) {
      p.latencyMs = finiteOrNull(num(file, line, m[1]!, "a latency", raw));
    } else if ((m = /^lag (\S+) ms$/.exec(part))) {
      p.lagMs = finiteOrNull(num(file, line, m[1]!, "a lag", raw));
    } else if ((m = /^(\d+) (skipped|failed|retried|retries)$/.exec(part))) {
      p[m[2] as "skipped" | "failed" | "retried" | "retries"] = Number(m[1]);
    } else {
      throw new ParseError(
        file,
        line,
        'progress parts "lat N ms stddev M", "lag N ms", "N skipped", "N failed", "N retried" or "N retries"',
        quoteFound(raw),
      );
    }
  }
  return p;
}

/** A run whose output ends (or is cut) before its tps line: what was printed of it. */
export interface PgbenchCutRun {
  file: string;
  /** Last line that belongs to it (as `line` of a complete run: where it ends). */
  line: number;
  startLine: number;
  /** Last line that belongs to it. */
  endLine: number;
  cut: true;
  version: string | null;
  transactionType: string | null;
  scale: number | null;
  clients: number | null;
  threads: number | null;
  durationS: number | null;
  transactionsProcessed: number | null;
  latencyAverageMs: number | null;
  progress: PgbenchProgress[];
  /** Always null / empty: a cut run has no tps line and no per-statement block (kept so that tables can list it). */
  tps: null;
  tpsMode: null;
  statements: [];
}

export interface PgbenchParseOptions {
  /** Keep runs cut before their tps line here, with a warning each, instead of a ParseError. */
  cut?: { runs: PgbenchCutRun[]; warnings: ParseWarning[] };
}

/**
 * The lenient reading `slicelab parse pgbench` uses for outputs that are not ours (mail excerpts,
 * logs): complete runs as parsePgbench gives them, plus every run cut off before its tps line as a
 * PgbenchCutRun with a warning. The kit's own runs are read with parsePgbench, which refuses them.
 */
export function parsePgbenchLenient(text: string, file: string): { records: (PgbenchRun | PgbenchCutRun)[]; warnings: ParseWarning[] } {
  const cut = { runs: [] as PgbenchCutRun[], warnings: [] as ParseWarning[] };
  const runs = parsePgbench(text, file, { cut });
  const records = [...runs, ...cut.runs].sort((a, b) => a.startLine - b.startLine);
  return { records, warnings: cut.warnings };
}

const STATEMENT_HEADER = /^statement latencies in milliseconds(?:( and failures)|(, failures and retries))?:$/;

/**
 * Parses pgbench output into runs. `file` is used in error messages and in the
 * records. Throws ParseError on malformed or truncated output.
 */
export function parsePgbench(text: string, file: string, options: PgbenchParseOptions = {}): PgbenchRun[] {
  const lines = splitLines(text);
  const runs: PgbenchRun[] = [];
  let cur: RunDraft | null = null;
  /** Per-statement block being read: number of numeric columns and the script it belongs to. */
  let stmt: { columns: number; script: number | null } | null = null;
  let script: PgbenchScript | null = null;

  const finish = (atLine: number, found: string | undefined): void => {
    if (cur === null) return;
    if (cur.tps === null || cur.tpsMode === null || cur.line === null) {
      // A banner, a summary field, progress or an error without the tps line: the run failed or the output was cut.
      if (cur.fields > 0 || cur.progress.length > 0 || cur.version !== null || cur.errors.length > 0) {
        // A run cut off before its tps line (a mail excerpt, a log that ends early): kept with a warning
        // when the caller asks for it, never when it has errors of its own (a failed run is not a cut one).
        if (options.cut && cur.errors.length === 0) {
          const last = cur.progress.at(-1);
          const where = found === undefined ? "the text ends" : `line ${atLine} starts something else`;
          options.cut.warnings.push({
            file,
            line: atLine,
            message:
              `the pgbench run that starts at line ${cur.startLine} has no "tps = N (…)" line (${where}): kept as a cut run` +
              (last ? ` with ${cur.progress.length} progress line${cur.progress.length === 1 ? "" : "s"}, the last at ${last.elapsedS} s (${last.tps} tps)` : "") +
              `; it has no tps of its own`,
          });
          const endLine = Math.max(cur.startLine, atLine - (found === undefined ? 0 : 1));
          options.cut.runs.push({
            file,
            line: endLine,
            startLine: cur.startLine,
            endLine,
            cut: true,
            version: cur.version,
            transactionType: cur.transactionType,
            scale: cur.scale,
            clients: cur.clients,
            threads: cur.threads,
            durationS: cur.durationS,
            transactionsProcessed: cur.transactionsProcessed,
            latencyAverageMs: cur.latencyAverageMs,
            progress: cur.progress,
            tps: null,
            tpsMode: null,
            statements: [],
          });
          cur = null;
          return;
        }
        throw new ParseError(file, atLine, 'a "tps = N (…)" line closing the pgbench run that starts at line ' + cur.startLine, quoteFound(found));
      }
      cur = null;
      return;
    }
    const r = cur;
    const [line, tps, tpsMode] = [cur.line, cur.tps, cur.tpsMode];
    const excerpt = r.fields === 0 && r.version === null && r.progress.length === 0;
    // Keys in a fixed order (the order of PgbenchRun) so that JSON output is stable.
    runs.push({
      file: r.file,
      line,
      startLine: r.startLine,
      excerpt,
      tps,
      tpsMode,
      tpsIncludingConnections: r.tpsIncludingConnections,
      version: r.version,
      serverVersion: r.serverVersion,
      transactionType: r.transactionType,
      scale: r.scale,
      queryMode: r.queryMode,
      clients: r.clients,
      threads: r.threads,
      maxTries: r.maxTries,
      durationS: r.durationS,
      transactionsPerClient: r.transactionsPerClient,
      transactionsProcessed: r.transactionsProcessed,
      transactionsIntended: r.transactionsIntended,
      failed: r.failed,
      serializationFailures: r.serializationFailures,
      deadlockFailures: r.deadlockFailures,
      retried: r.retried,
      retriesTotal: r.retriesTotal,
      skipped: r.skipped,
      latencyLimitMs: r.latencyLimitMs,
      aboveLatencyLimit: r.aboveLatencyLimit,
      latencyAverageMs: r.latencyAverageMs,
      latencyIncludesFailures: r.latencyIncludesFailures,
      latencyStddevMs: r.latencyStddevMs,
      scheduleLagAvgMs: r.scheduleLagAvgMs,
      scheduleLagMaxMs: r.scheduleLagMaxMs,
      initialConnectionTimeMs: r.initialConnectionTimeMs,
      progress: r.progress,
      statements: r.statements,
      scripts: r.scripts,
      errors: r.errors,
    });
    cur = null;
  };
  /** Returns the run that a summary line belongs to, starting a new one when the current one is closed. */
  const open = (n: number): RunDraft => {
    if (cur !== null && cur.closed) finish(n, lines[n - 1]);
    if (cur === null) cur = emptyRun(file, n);
    return cur;
  };

  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i]!;
    const t = unquote(raw).trim();

    // Per-statement latency lines.
    if (stmt !== null) {
      const cols = t.split(/\s+/);
      const values = cols.slice(0, stmt.columns).map((v) => cNumber(v));
      if (t !== "" && cols.length > stmt.columns && values.every((v) => v !== undefined)) {
        const [lat, fail, retr] = values as number[];
        cur!.statements.push({
          line: n,
          script: stmt.script,
          latencyMs: lat!,
          failures: stmt.columns >= 2 ? fail! : null,
          retries: stmt.columns >= 3 ? retr! : null,
          command: t.replace(new RegExp(`^(?:\\S+\\s+){${stmt.columns}}`), ""),
        });
        continue;
      }
      if (/^-?[\d.]+\s/.test(t) && values[0] !== undefined) {
        throw new ParseError(file, n, `a statement latency line with ${stmt.columns} number(s) before the command`, quoteFound(raw));
      }
      stmt = null;
    }

    if (t === "") continue;

    // Per-script blocks (multi-script runs): "SQL script N: name" then " - …" lines.
    let m: RegExpExecArray | null;
    if ((m = /^SQL script (\d+): (.*)$/.exec(t))) {
      if (cur === null || !cur.closed) {
        throw new ParseError(file, n, 'a "tps = N (…)" line before the per-script report', quoteFound(raw));
      }
      script = {
        line: n,
        index: Number(m[1]),
        name: m[2]!.trim(),
        weight: null,
        targetPct: null,
        transactions: null,
        sharePct: null,
        tps: null,
        failed: null,
        latencyAverageMs: null,
        latencyStddevMs: null,
      };
      cur.scripts.push(script);
      continue;
    }
    if (script !== null && t.startsWith("- ")) {
      const s = t.slice(2).trim();
      const c = { file, line: n, raw };
      if ((m = /^weight: (\d+) \(targets (\S+)% of total\)$/.exec(s))) {
        script.weight = Number(m[1]);
        script.targetPct = num(file, n, m[2]!, "a percentage", raw);
      } else if ((m = /^(\d+) transactions \((\S+)% of total, tps = (\S+)\)$/.exec(s))) {
        script.transactions = Number(m[1]);
        script.sharePct = finiteOrNull(num(file, n, m[2]!, "a percentage", raw));
        script.tps = num(file, n, m[3]!, "a tps figure", raw);
      } else if ((m = /^number of failed transactions: (.*)$/.exec(s))) {
        script.failed = pctCount(c, m[1]!, "failed transactions");
      } else if ((m = /^latency average\s*[:=]\s*(\S+) ms$/.exec(s))) {
        script.latencyAverageMs = finiteOrNull(num(file, n, m[1]!, "a latency", raw));
      } else if ((m = /^latency stddev\s*[:=]\s*(\S+) ms$/.exec(s))) {
        script.latencyStddevMs = finiteOrNull(num(file, n, m[1]!, "a latency", raw));
      } else if ((m = STATEMENT_HEADER.exec(s))) {
        stmt = { columns: m[2] ? 3 : m[1] ? 2 : 1, script: script.index };
      } else if (!/^number of (?:serialization|deadlock) failures|^number of transactions (?:retried|skipped)|^total number of retries|^number of transactions above/.test(s)) {
        throw new ParseError(file, n, "a per-script line (weight, transactions, failures, latency)", quoteFound(raw));
      }
      continue;
    }
    script = null;

    // Banner and vacuum notice open a new run.
    if ((m = /^pgbench \((.*)\)$/.exec(t)) && !/^pgbench \(PostgreSQL\)/.test(t)) {
      if (cur !== null) finish(n, raw);
      cur = emptyRun(file, n);
      const v = /^(.*?)(?:, server (.*))?$/.exec(m[1]!)!;
      cur.version = v[1]!.trim();
      cur.serverVersion = v[2]?.trim() ?? null;
      continue;
    }
    if (/^starting vacuum\.\.\./.test(t)) {
      if (cur !== null && (cur.closed || cur.fields > 0)) finish(n, raw);
      if (cur === null) cur = emptyRun(file, n);
      continue;
    }
    if ((m = /^progress: (.*)$/.exec(t))) {
      const r = open(n);
      r.progress.push(parseProgress(file, n, m[1]!, raw));
      continue;
    }
    if (/^pgbench: (?:error|fatal): Run was aborted/.test(t) || /^Run was aborted; the above results are incomplete/.test(t)) {
      throw new ParseError(file, n, "a completed pgbench run", quoteFound(raw));
    }
    if (/^pgbench: (?:error|fatal|warning): /.test(t) || /^client \d+ (?:aborted|receiving|sending)/.test(t)) {
      open(n).errors.push(t);
      continue;
    }

    // The tps line.
    if ((m = /^tps = /.exec(t))) {
      const tm = TPS_RE.exec(t);
      if (!tm) throw new ParseError(file, n, 'a tps line "tps = N (without initial connection time)" or "(… connections establishing)"', quoteFound(raw));
      const mode = TPS_MODES[tm[2]!.trim()];
      if (!mode) {
        throw new ParseError(file, n, 'a tps mode "without initial connection time", "including/excluding connections establishing" or "including reconnection times"', quoteFound(raw));
      }
      const value = num(file, n, tm[1]!, "a tps figure", raw);
      if (!Number.isFinite(value)) throw new ParseError(file, n, "a finite tps figure", quoteFound(raw));
      // "excluding" right after "including" belongs to the same run.
      if (cur !== null && cur.closed && cur.tpsMode === "including connections establishing" && mode === "excluding connections establishing") {
        cur.tpsIncludingConnections = cur.tps;
        cur.tps = value;
        cur.tpsMode = mode;
        cur.line = n;
        continue;
      }
      const r = open(n);
      r.tps = value;
      r.tpsMode = mode;
      r.line = n;
      r.closed = true;
      continue;
    }
    if ((m = STATEMENT_HEADER.exec(t))) {
      if (cur === null || !cur.closed) {
        throw new ParseError(file, n, 'a "tps = N (…)" line before the statement latencies', quoteFound(raw));
      }
      stmt = { columns: m[2] ? 3 : m[1] ? 2 : 1, script: null };
      continue;
    }

    // Summary fields.
    let matched = false;
    for (const [k, rule] of RUN_FIELDS.entries()) {
      const fm = rule.re.exec(t);
      if (!fm) continue;
      let r = open(n);
      if (r.seen.has(k)) {
        // The same summary line twice: the previous run ended without its tps line.
        finish(n, raw);
        r = open(n);
      }
      r.seen.add(k);
      rule.apply(r, fm, { file, line: n, raw });
      r.fields++;
      matched = true;
      break;
    }
    if (matched) continue;
    // Anything else (shell prompts, prose, NOTICE lines) is not pgbench run output.
  }
  finish(Math.max(1, lines.length), undefined);
  return runs;
}

/** Reads and parses a pgbench output file; the file name goes into the records and errors. */
export function parsePgbenchFile(path: string): PgbenchRun[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: cannot read the file (${code ?? String(err)})`);
  }
  return parsePgbench(text, path);
}
