/**
 * The direct cost of each collector: what its own processes consume while a run is measured,
 * instead of (only) the throughput difference with the collector off and on, which a noisy
 * machine cannot resolve (see data/runs/collector-cost/20261130T000000Z).
 *
 * How: the collector runs alone in a child Node process (the "worker", this file with
 * `--worker NAME`) that does nothing else, while the parent keeps a pgbench -S workload running
 * on a PostgreSQL cluster. The worker takes readings right after start(), right before stop()
 * and after stop():
 *   - its own CPU time (process.cpuUsage: the JS samplers of pg-waits and ctxsw, reading /proc);
 *   - the CPU time of its children: the reaped ones from /proc/self/stat cutime+cstime (psql per
 *     pg-waits sample, perf record once stopped, perf report) plus the live ones by scanning /proc
 *     for processes whose parent is the worker (perf record while it records);
 *   - the server side: the postmaster's cutime+cstime, i.e. the CPU time of its children that
 *     exited in the window — pg-waits' one-connection-per-sample backends (the workload's
 *     backends stay connected until after the window; autovacuum is off in the cluster);
 *   - the bytes in the run directory (before stop: what the recorder wrote during the run; after:
 *     what is kept), and the sampling achieved (pg-waits sample times, ctxsw sample count, perf
 *     samples from perf's "Captured and wrote … (N samples)" line).
 * A worker with no collector ("none") measures the same quantities for the bare worker and the
 * idle server; its means are subtracted. The window's CPU time per second of window is the cost;
 * divided by the machine's CPU count it is the share of the machine the collector takes, an upper
 * bound of the throughput it can cost a CPU-bound workload.
 *
 * Run: `slicelab study run collector-cost [--param collect=a,b] [--param reps=N] [--param seconds=S]
 * [--param clients=C]` (src/study/drivers/collector-cost.ts; default: the collectors whose checks
 * pass, 3 repetitions, 10 s windows; PostgreSQL 15; result in the record's out/direct-cost.json).
 * This file's own entry point is the worker (`--worker NAME`), which that driver starts.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { cpus as osCpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { workDir } from "../util/paths.js";
import { writeFileAtomic } from "../util/fs.js";
import { UserError } from "../util/errors.js";
import { COLLECTOR_NAMES, parseCollectList, prepareCollectors, startCollectors, stopCollectors, type CollectContext, type CollectorName } from "./index.js";

/** utime, stime, cutime, cstime of a /proc/PID/stat line, in clock ticks; ppid too. */
export interface ProcStatTimes {
  ppid: number;
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
}

/** Parses /proc/PID/stat (the command may hold spaces and parentheses: fields are counted after the last ")"). */
export function parseProcStatTimes(text: string): ProcStatTimes {
  const close = text.lastIndexOf(")");
  if (close < 0) throw new Error(`expected a /proc/PID/stat line, found ${JSON.stringify(text.slice(0, 60))}`);
  // After ") ": field 3 (state) is index 0, so field N is index N - 3.
  const f = text.slice(close + 2).trim().split(/\s+/);
  const num = (n: number) => {
    const v = Number(f[n - 3]);
    if (!Number.isFinite(v)) throw new Error(`/proc/PID/stat: field ${n} is not a number: ${JSON.stringify(f[n - 3])}`);
    return v;
  };
  return { ppid: num(4), utime: num(14), stime: num(15), cutime: num(16), cstime: num(17) };
}

/** Clock ticks per second of /proc/PID/stat times (USER_HZ; 100 on Linux x86). */
export const USER_HZ = 100;

/** The samples perf reports at the end of a recording ("… wrote 20.077 MB FILE (114340 samples) ]"), or null. */
export function perfCapturedSamples(log: string): { mb: number; samples: number } | null {
  const m = /\[ perf record: Captured and wrote ([\d.]+) MB .* \((\d+) samples\) \]/.exec(log);
  return m ? { mb: Number(m[1]), samples: Number(m[2]) } : null;
}

/** Gaps between successive sample times (ms): mean, 95th percentile (nearest rank), max. */
export function intervalStats(times: number[]): { count: number; meanMs: number; p95Ms: number; maxMs: number } | null {
  if (times.length < 2) return null;
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  const sorted = [...gaps].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]!;
  return { count: times.length, meanMs: gaps.reduce((a, b) => a + b, 0) / gaps.length, p95Ms: p95, maxMs: sorted.at(-1)! };
}

/** Total size of the regular files under dir (recursively). */
export function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += bytesUnder(p);
    else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

/** CPU seconds of the live children of pid (one level: perf, psql). */
function liveChildrenCpuS(pid: number): number {
  let ticks = 0;
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = parseProcStatTimes(readFileSync(`/proc/${d}/stat`, "utf8"));
      if (s.ppid === pid) ticks += s.utime + s.stime;
    } catch {
      // exited while scanning
    }
  }
  return ticks / USER_HZ;
}

interface Reading {
  wallMs: number;
  selfS: number;
  childrenS: number;
  serverS: number | null;
}

function reading(postmasterPid: number | null): Reading {
  const u = process.cpuUsage();
  const me = parseProcStatTimes(readFileSync("/proc/self/stat", "utf8"));
  let serverS: number | null = null;
  if (postmasterPid !== null) {
    const pm = parseProcStatTimes(readFileSync(`/proc/${postmasterPid}/stat`, "utf8"));
    serverS = (pm.cutime + pm.cstime) / USER_HZ;
  }
  return { wallMs: performance.now(), selfS: (u.user + u.system) / 1e6, childrenS: (me.cutime + me.cstime) / USER_HZ + liveChildrenCpuS(process.pid), serverS };
}

/** What one worker window measured (before the baseline is subtracted). */
export interface CostWindow {
  collector: CollectorName | "none";
  rep: number;
  /** Wall-clock seconds between the readings after start() and before stop(). */
  windowS: number;
  /** CPU seconds in the window: the worker itself, its children, the server's exited children. */
  selfCpuS: number;
  childrenCpuS: number;
  serverCpuS: number | null;
  /** CPU seconds spent in stop() (snapshot, post-processing such as perf report), all sources. */
  stopCpuS: number;
  stopWallS: number;
  /** Bytes in the run directory just before stop() (written during the run) and after it (kept). */
  bytesDuringRun: number;
  bytesKept: number;
  /** Sampling achieved, when the collector samples. */
  sampling: { what: string; target: string; achieved: string; count: number; meanIntervalMs: number | null; p95IntervalMs: number | null; maxIntervalMs: number | null } | null;
  notes: string[];
}

function sampling(name: CollectorName | "none", dir: string, windowS: number, parsed: unknown): CostWindow["sampling"] {
  if (name === "pg-waits") {
    const file = join(dir, "pg-waits.jsonl");
    const ts = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => (JSON.parse(l) as { t: number }).t) : [];
    const s = intervalStats(ts);
    const target = (parsed as { intervalMs: number }).intervalMs;
    return { what: "pg_stat_activity samples", target: `every ${target} ms`, achieved: s ? `every ${s.meanMs.toFixed(0)} ms (mean)` : "fewer than 2 samples", count: ts.length, meanIntervalMs: s?.meanMs ?? null, p95IntervalMs: s?.p95Ms ?? null, maxIntervalMs: s?.maxMs ?? null };
  }
  if (name === "ctxsw") {
    const p = parsed as { intervalMs: number; samples: number };
    // start() takes one sample, stop() one; the loop's samples fall in the window.
    const inWindow = Math.max(0, p.samples - 2);
    return { what: "/proc scans of the PostgreSQL processes", target: `every ${p.intervalMs} ms`, achieved: inWindow > 0 ? `every ${((windowS * 1000) / inWindow).toFixed(0)} ms (mean)` : "none in the window", count: p.samples, meanIntervalMs: inWindow > 0 ? (windowS * 1000) / inWindow : null, p95IntervalMs: null, maxIntervalMs: null };
  }
  if (name === "perf-profile" || name === "perf-lock") {
    const log = join(dir, name === "perf-profile" ? "perf-record.log" : "perf-lock.log");
    const c = existsSync(log) ? perfCapturedSamples(readFileSync(log, "utf8")) : null;
    const ncpu = osCpus().length;
    if (name === "perf-profile") {
      return { what: "CPU samples (all CPUs)", target: "99 Hz per CPU", achieved: c ? `${(c.samples / windowS / ncpu).toFixed(1)} Hz per CPU` : "no sample count in perf-record.log", count: c?.samples ?? 0, meanIntervalMs: null, p95IntervalMs: null, maxIntervalMs: null };
    }
    return { what: "lock tracepoint records", target: "every contention_begin/end", achieved: c ? `${(c.samples / windowS).toFixed(0)} records/s` : "no sample count in perf-lock.log", count: c?.samples ?? 0, meanIntervalMs: null, p95IntervalMs: null, maxIntervalMs: null };
  }
  return null;
}

interface WorkerArgs {
  collector: CollectorName | "none";
  rep: number;
  seconds: number;
  dir: string;
  postmasterPid: number | null;
  psql: string | null;
  socketDir: string | null;
  port: number | null;
  user: string | null;
}

/** The worker: one collector, one window; prints its CostWindow as JSON on stdout. */
async function worker(a: WorkerArgs): Promise<CostWindow> {
  rmSync(a.dir, { recursive: true, force: true });
  mkdirSync(a.dir, { recursive: true });
  const query = a.psql
    ? (sql: string) =>
        new Promise<string>((resolve, reject) => {
          const p = spawn(a.psql!, ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-h", a.socketDir!, "-p", String(a.port), "-U", a.user!, "-d", "postgres", "-c", sql], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PGAPPNAME: "slicelab" } });
          let out = "";
          let err = "";
          p.stdout.on("data", (d) => (out += d));
          p.stderr.on("data", (d) => (err += d));
          p.on("exit", (code) => (code === 0 ? resolve(out.replace(/\n$/, "")) : reject(new Error(`psql exit ${code}: ${err.trim()}`))));
        })
    : undefined;
  const ctx: CollectContext = { runDir: a.dir, query, postmasterPid: a.postmasterPid ?? undefined };
  const notes: string[] = [];
  let active: Awaited<ReturnType<typeof prepareCollectors>>["active"] = [];
  if (a.collector !== "none") {
    const prep = await prepareCollectors([a.collector]);
    if (prep.active.length === 0) throw new UserError(`${a.collector}: skipped: ${prep.skipped[0]!.reason}`);
    active = prep.active;
    await startCollectors(active, ctx);
  }
  const r0 = reading(a.postmasterPid);
  await new Promise((r) => setTimeout(r, a.seconds * 1000));
  const r1 = reading(a.postmasterPid);
  const bytesDuringRun = bytesUnder(a.dir);
  let parsed: unknown = null;
  if (active.length > 0) {
    const outs = await stopCollectors(active, ctx);
    parsed = outs[0]!.parsed;
    notes.push(...outs[0]!.notes);
  }
  const r2 = reading(a.postmasterPid);
  const windowS = (r1.wallMs - r0.wallMs) / 1000;
  const total = (r: Reading) => r.selfS + r.childrenS + (r.serverS ?? 0);
  return {
    collector: a.collector,
    rep: a.rep,
    windowS,
    selfCpuS: r1.selfS - r0.selfS,
    childrenCpuS: r1.childrenS - r0.childrenS,
    serverCpuS: r1.serverS !== null && r0.serverS !== null ? r1.serverS - r0.serverS : null,
    stopCpuS: total(r2) - total(r1),
    stopWallS: (r2.wallMs - r1.wallMs) / 1000,
    bytesDuringRun,
    bytesKept: bytesUnder(a.dir),
    sampling: sampling(a.collector, a.dir, windowS, parsed),
    notes,
  };
}

/** Per collector: mean over its windows minus the mean of the "none" windows. */
export interface CostSummary {
  collector: CollectorName;
  reps: number;
  /** CPU seconds per second of run, baseline subtracted: worker + children + server side. */
  cpuPerSecond: { mean: number; min: number; max: number };
  /** The same split by source (means, baseline subtracted). */
  selfPerSecond: number;
  childrenPerSecond: number;
  serverPerSecond: number | null;
  /** cpuPerSecond.mean / CPUs, in percent: the share of the machine it takes during the run. */
  machineSharePct: number;
  /** After the run: CPU seconds and wall seconds of stop() (mean). */
  stopCpuS: number;
  stopWallS: number;
  /** Bytes written per second of run (mean) and kept per run (mean). */
  bytesPerSecond: number;
  bytesKept: number;
  sampling: CostWindow["sampling"][];
}

export function summarizeCost(windows: CostWindow[], cpus: number): CostSummary[] {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  const base = windows.filter((w) => w.collector === "none");
  const perS = (w: CostWindow, f: (w: CostWindow) => number) => f(w) / w.windowS;
  const bSelf = mean(base.map((w) => perS(w, (x) => x.selfCpuS)));
  const bChildren = mean(base.map((w) => perS(w, (x) => x.childrenCpuS)));
  const bServer = mean(base.filter((w) => w.serverCpuS !== null).map((w) => perS(w, (x) => x.serverCpuS!)));
  const names = [...new Set(windows.map((w) => w.collector))].filter((n): n is CollectorName => n !== "none");
  return names.map((collector) => {
    const ws = windows.filter((w) => w.collector === collector);
    const server = ws.every((w) => w.serverCpuS !== null);
    const totals = ws.map((w) => perS(w, (x) => x.selfCpuS) - bSelf + perS(w, (x) => x.childrenCpuS) - bChildren + (server ? perS(w, (x) => x.serverCpuS!) - bServer : 0));
    const m = mean(totals);
    return {
      collector,
      reps: ws.length,
      cpuPerSecond: { mean: m, min: Math.min(...totals), max: Math.max(...totals) },
      selfPerSecond: mean(ws.map((w) => perS(w, (x) => x.selfCpuS))) - bSelf,
      childrenPerSecond: mean(ws.map((w) => perS(w, (x) => x.childrenCpuS))) - bChildren,
      serverPerSecond: server ? mean(ws.map((w) => perS(w, (x) => x.serverCpuS!))) - bServer : null,
      machineSharePct: (100 * m) / cpus,
      stopCpuS: mean(ws.map((w) => w.stopCpuS)),
      stopWallS: mean(ws.map((w) => w.stopWallS)),
      bytesPerSecond: mean(ws.map((w) => w.bytesDuringRun / w.windowS)),
      bytesKept: mean(ws.map((w) => w.bytesKept)),
      sampling: ws.map((w) => w.sampling),
    };
  });
}

/** Runs one worker window in a child Node process (this file with --worker). */
export function runWorker(args: string[]): Promise<CostWindow> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("exit", (code) => {
      if (code !== 0) reject(new Error(`cost worker ${args.join(" ")} exited ${code}: ${err.trim()}`));
      else resolve(JSON.parse(out) as CostWindow);
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      worker: { type: "string" },
      rep: { type: "string", default: "0" },
      dir: { type: "string" },
      "postmaster-pid": { type: "string" },
      psql: { type: "string" },
      socket: { type: "string" },
      port: { type: "string" },
      user: { type: "string" },
      seconds: { type: "string", default: "10" },
    },
  });
  const seconds = Number(values.seconds);
  if (!(seconds > 0)) throw new UserError(`--seconds: expected a positive number, found ${JSON.stringify(values.seconds)}`);
  if (values.worker === undefined) throw new UserError("expected --worker NAME: this file is the worker of the collector-cost study (run it with `slicelab study run collector-cost`)");
  {
    const name = values.worker as CollectorName | "none";
    if (name !== "none" && !(COLLECTOR_NAMES as readonly string[]).includes(name)) throw new UserError(`--worker: unknown collector ${JSON.stringify(name)}`);
    const w = await worker({
      collector: name,
      rep: Number(values.rep),
      seconds,
      dir: values.dir!,
      postmasterPid: values["postmaster-pid"] ? Number(values["postmaster-pid"]) : null,
      psql: values.psql ?? null,
      socketDir: values.socket ?? null,
      port: values.port ? Number(values.port) : null,
      user: values.user ?? null,
    });
    process.stdout.write(`${JSON.stringify(w)}\n`);
    return;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
