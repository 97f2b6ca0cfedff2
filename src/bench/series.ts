import { createHash, randomInt } from "node:crypto";
import { tryReadJson } from "../util/json.js";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { cpus as osCpus } from "node:os";
import { join, relative, resolve } from "node:path";
import { debianBinDir, missingServerProgram } from "../postgres/binaries.js";
import { clusterDir, isShuttingDown, startCluster, type Cluster } from "../postgres/cluster.js";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { repoRoot } from "../util/paths.js";
import { planSeries, type Design, type PlannedRun } from "./design.js";
import { spawnGroup, startHogs } from "./procs.js";
import type { ProgressEvent } from "./progress.js";
import { hostInfo, kernelInfo, kitInfo, loadAverage, postgresInfo } from "../record/provenance.js";
import { loadProtocol, resolveWorkloads, type Literal, type Protocol, type ResolvedWorkload } from "./protocol.js";
import { clientVersions, parseToolOutput, toolCommand, type Clients } from "./tools.js";
import { variantRecord, type Variant } from "./variant.js";
import type { CollectorName } from "../collect/index.js";
import { readRunResult, writeTidy, type RunResult, type SeriesPlan, type SeriesSummary, type SliceExtensionRecord, type WorkloadResult } from "./series-files.js";
import { collectAround, collectContext, prepareSeriesCollect, runCollectRecord, type RunCollectRecord, type WorkloadCollect } from "./collect.js";

/**
 * The runner: runs a protocol's workloads for every variant in a planned order,
 * one run at a time, each against a freshly started cluster, and records raw
 * output, parsed figures and provenance in a series directory:
 *
 *   DIR/series.json         the plan (protocol hash, variants, design, seed, resolved workloads, run order)
 *   DIR/provenance.json     machine, kernel, PostgreSQL builds, tools, kit commit; one entry per invocation
 *   DIR/runs/NNN-VARIANT/   raw tool output per workload + result.json (written last, atomically)
 *   DIR/results.csv, results.jsonl   the tidy table, rebuilt from the result files after every run
 *
 * A run counts as done only when its result.json exists, so an interrupted series
 * resumes where it stopped, and the tidy table cannot hold a row twice.
 */

// The series directory's files (plan, run results, tidy table): series-files.ts; re-exported for the runner's callers.
export { readRunResult, seriesRows, tidyCsv, writeTidy, type RunResult, type SeriesPlan, type SeriesRow, type SeriesSummary, type SliceExtensionRecord, type WorkloadResult } from "./series-files.js";

const readJson = tryReadJson;

export const SERIES_FORMAT = "slicelab-series/1";

export interface SeriesOptions {
  /** Protocol name (protocols/NAME.json), path, or a loaded protocol. */
  protocol: string | Protocol;
  /** Variants to compare; default: one variant "base" (Debian's PostgreSQL, no changes). On resume: the stored ones. */
  variants?: Variant[];
  outDir: string;
  /** `--param NAME=VALUE` overrides of protocol parameters. */
  params?: Record<string, string>;
  /** Runs per variant (default: the protocol's). */
  runs?: number;
  /** Warm-up runs or blocks (default: the protocol's). */
  warmup?: number;
  design?: Design;
  seed?: number;
  /** Directory with the client programs (pgbench, psql); default Debian's PostgreSQL bin directory. */
  clientBinDir?: string;
  /** Prefix of the cluster names (default "bench"): clusters are PREFIX-PROTOCOL-BINHASH. */
  clusterPrefix?: string;
  /** Stop after this many runs in this invocation (the rest stays pending for a later resume). */
  maxRuns?: number;
  /** Collectors around every measured workload (`--collect`); on resume: the stored ones when absent. */
  collect?: CollectorName[];
  /** CPU count used to scale parameters (default: this machine's). */
  cpus?: number;
  progress?: (e: ProgressEvent) => void;
  /**
   * Called before each run starts (after the previous cluster stopped): a study puts a run-time
   * factor in place here (e.g. the preemption mode in debugfs sched/preempt).
   */
  beforeRun?: (run: PlannedRun) => Promise<void> | void;
  /** Informational lines (cluster log paths, setup steps). */
  log?: (line: string) => void;
}

/** The query for a server's `slice_extension*` settings (one `name=setting` per line). */
export const SLICE_SETTINGS_SQL = "SELECT name || '=' || setting FROM pg_settings WHERE name LIKE 'slice\\_extension%' ORDER BY name";
/** Patch v2 and later: the counters come from a function, one JSON row. */
export const SLICE_STATS_SQL = "SELECT row_to_json(s)::text FROM pg_stat_get_slice_extension() s";

/**
 * The settings from SLICE_SETTINGS_SQL's output; when the server has the patch but no
 * `slice_extension_stats` setting (v2 and later), `statsRow` is SLICE_STATS_SQL's output and its
 * numbers become the same `k=v …` text. Shared by the runner (live) and the bundle's import (files).
 */
export function sliceSettingsFromText(settingsText: string, statsRow: (() => string) | undefined): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of settingsText.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) settings[line.slice(0, eq)] = line.slice(eq + 1);
  }
  if (needsSliceStatsRow(settings) && statsRow) {
    const row = JSON.parse(statsRow()) as Record<string, unknown>;
    settings.slice_extension_stats = Object.entries(row)
      .filter(([, v]) => typeof v === "number")
      .map(([k, v]) => `${k}=${v as number}`)
      .join(" ");
  }
  return settings;
}

/** A patched server whose counters come from pg_stat_get_slice_extension() (patch v2 and later). */
export function needsSliceStatsRow(settings: Record<string, string>): boolean {
  return settings.slice_extension !== undefined && settings.slice_extension_stats === undefined;
}

/** The `slice_extension*` settings of a server (empty on a server without our patch). */
export async function sliceExtensionSettings(cluster: Cluster, db: string): Promise<Record<string, string>> {
  const text = await cluster.query(SLICE_SETTINGS_SQL, db);
  const row = needsSliceStatsRow(sliceSettingsFromText(text, undefined)) ? await cluster.query(SLICE_STATS_SQL, db) : undefined;
  return sliceSettingsFromText(text, row === undefined ? undefined : () => row);
}

/** The record of the patch's setting, status and counter change around one workload (the runner's and the import's). */
export function sliceExtensionRecord(before: Record<string, string>, after: Record<string, string>): SliceExtensionRecord {
  const c0 = parseSliceCounters(before.slice_extension_stats ?? "");
  const c1 = parseSliceCounters(after.slice_extension_stats ?? "");
  return {
    setting: before.slice_extension ?? "",
    status: after.slice_extension_status ?? "",
    countersDelta: Object.fromEntries(Object.keys(c1).map((k) => [k, c1[k]! - (c0[k] ?? 0)])),
  };
}

/** Parses `requests=12 grants=3 …` into numbers. */
export function parseSliceCounters(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/([a-z_]+)=(\d+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

function binKey(binDir: string): string {
  return createHash("sha256").update(realpathSync(binDir)).digest("hex").slice(0, 8);
}

function stable(v: unknown): string {
  return JSON.stringify(v);
}

function mismatch(dir: string, what: string, stored: unknown, given: unknown): never {
  throw new UserError(
    `${join(dir, "series.json")}: this series was started with ${what} ${stable(stored)}, found ${stable(given)} now: resume with the same options or choose another --out`,
  );
}

/** Creates the plan of a new series or loads (and checks against the options) the plan of an existing one. */
function planOrResume(opts: SeriesOptions, protocol: Protocol, dir: string): { plan: SeriesPlan; variants: Variant[]; resumed: boolean } {
  const file = join(dir, "series.json");
  const stored = readJson<SeriesPlan>(file);
  if (existsSync(file) && !stored) throw new UserError(`${file}: expected a series plan (JSON), found an unreadable file`);
  if (stored) {
    if (stored.format !== SERIES_FORMAT) mismatch(dir, "format", stored.format, SERIES_FORMAT);
    if (stored.protocol.name !== protocol.name) mismatch(dir, "protocol", stored.protocol.name, protocol.name);
    if (stored.protocol.hash !== protocol.hash) mismatch(dir, `protocol file ${protocol.file} of sha256`, stored.protocol.hash, protocol.hash);
    const storedVariants = stored.variants.map((v) => v as unknown as Variant);
    if (opts.variants && stable(opts.variants.map(variantRecord)) !== stable(stored.variants)) {
      mismatch(dir, "variants", stored.variants.map((v) => `${String(v.name)}=${String(v.spec)}`), opts.variants.map((v) => `${v.name}=${v.spec}`));
    }
    for (const [k, v] of [
      ["design", opts.design],
      ["seed", opts.seed],
      ["runs", opts.runs],
      ["warmup", opts.warmup],
      ["cpus", opts.cpus],
    ] as const) {
      if (v !== undefined && v !== stored[k]) mismatch(dir, k, stored[k], v);
    }
    if (opts.params && Object.keys(opts.params).length > 0 && stable(opts.params) !== stable(stored.params)) mismatch(dir, "--param", stored.params, opts.params);
    if (opts.collect !== undefined && stable(opts.collect) !== stable(stored.collect ?? [])) mismatch(dir, "--collect", stored.collect ?? [], opts.collect);
    return { plan: stored, variants: storedVariants, resumed: true };
  }
  const variants = opts.variants ?? [{ name: "base", spec: "default", settings: {}, env: {}, boot: [] }];
  for (const v of variants) {
    if (v.kernel !== undefined || v.boot.length > 0) {
      throw new UserError(`--variant ${v.name}: kernel= and boot: items need the VM runner (src/vm); \`slicelab bench run\` runs on the host's kernel only`);
    }
  }
  const cpus = opts.cpus ?? osCpus().length;
  const runs = opts.runs ?? protocol.runs;
  const warmup = opts.warmup ?? Math.min(protocol.warmup, runs - 1);
  const design = opts.design ?? "blocks";
  const seed = opts.seed ?? randomInt(1, 2 ** 31 - 1);
  const params = opts.params ?? {};
  const plan: SeriesPlan = {
    format: SERIES_FORMAT,
    protocol: { name: protocol.name, file: relative(repoRoot(), protocol.file), hash: protocol.hash },
    design,
    seed,
    runs,
    warmup,
    cpus,
    params,
    variants: variants.map(variantRecord),
    clients: { binDir: opts.clientBinDir ?? debianBinDir() },
    ...(opts.collect && opts.collect.length > 0 ? { collect: opts.collect } : {}),
    workloads: resolveWorkloads(protocol, cpus, params),
    plan: planSeries(variants.map((v) => v.name), runs, warmup, design, seed),
  };
  writeFileAtomic(file, `${JSON.stringify(plan, null, 2)}\n`);
  return { plan, variants, resumed: false };
}

interface SetupRecord {
  [key: string]: { at: string; workload: string; database: string };
}

/** Creates the workload's database and runs its setup steps once per cluster (remembered in the cluster directory). */
async function ensureSetup(cluster: Cluster, w: ResolvedWorkload, clients: Clients, logDir: string, log: (s: string) => void): Promise<void> {
  const recordFile = join(clusterDir(cluster.name), "slicelab-setup.json");
  const record = readJson<SetupRecord>(recordFile) ?? {};
  const key = createHash("sha256").update(stable({ database: w.database, tool: w.tool, setup: w.setup })).digest("hex").slice(0, 16);
  const exists = (await cluster.query(`SELECT count(*) FROM pg_database WHERE datname = '${w.database.replace(/'/g, "''")}'`)) === "1";
  if (exists && record[key]) return;
  if (!exists) await cluster.query(`CREATE DATABASE "${w.database.replace(/"/g, '""')}"`);
  mkdirSync(logDir, { recursive: true });
  for (const [i, step] of w.setup.entries()) {
    if (step.sql !== undefined) {
      log(`setup ${w.name} in ${cluster.name}/${w.database}: ${step.sql.slice(0, 80)}`);
      await cluster.query(step.sql, w.database);
      continue;
    }
    const cmd = toolCommand(w.tool, clients, cluster, w.database, step.args ?? []);
    const out = join(logDir, `${cluster.name}-${w.name}-${i + 1}.out`);
    log(`setup ${w.name} in ${cluster.name}/${w.database}: ${w.tool} ${(step.args ?? []).join(" ")} (output ${out})`);
    const fd = openSync(out, "w");
    let res;
    try {
      res = await spawnGroup(cmd.file, cmd.args, { outFd: fd }).done;
    } finally {
      closeSync(fd);
    }
    if (res.code !== 0) {
      throw new UserError(`setup of ${w.name} (${w.tool} ${(step.args ?? []).join(" ")}) failed with ${res.code ?? res.signal}; output ${out}:\n${tailOf(out)}`);
    }
  }
  record[key] = { at: new Date().toISOString(), workload: w.name, database: w.database };
  writeFileAtomic(recordFile, `${JSON.stringify(record, null, 2)}\n`);
}

function tailOf(file: string, lines = 10): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no output)";
  }
}

/** Runs one workload once against a running cluster; the shared core of the runner (also used by the overhead script). */
export async function measureWorkload(
  cluster: Cluster,
  w: ResolvedWorkload,
  clients: Clients,
  rawFile: string,
): Promise<Omit<WorkloadResult, "cluster" | "clusterLog" | "raw">> {
  const cmd = toolCommand(w.tool, clients, cluster, w.database, w.args);
  const sliceBefore = await sliceExtensionSettings(cluster, w.database);
  const loadBefore = loadAverage();
  const hogs = startHogs(w.hogs);
  const fd = openSync(rawFile, "w");
  const t0 = Date.now();
  const started = new Date(t0).toISOString();
  let res;
  try {
    res = await spawnGroup(cmd.file, cmd.args, { outFd: fd }).done;
  } finally {
    closeSync(fd);
    await hogs?.kill(500);
  }
  const t1 = Date.now();
  const loadAfter = loadAverage();
  if (res.code !== 0) {
    throw new UserError(`${w.tool} of workload ${w.name} exited with ${res.code ?? res.signal}; output ${rawFile}:\n${tailOf(rawFile)}`);
  }
  const parsed = parseToolOutput(w.tool, readFileSync(rawFile, "utf8"), rawFile);
  let sliceExtension: SliceExtensionRecord | undefined;
  if (sliceBefore.slice_extension !== undefined) {
    sliceExtension = sliceExtensionRecord(sliceBefore, await sliceExtensionSettings(cluster, w.database));
  }
  return {
    workload: w.name,
    tool: w.tool,
    command: [cmd.file, ...cmd.args],
    hogs: w.hogs,
    started,
    ended: new Date(t1).toISOString(),
    seconds: (t1 - t0) / 1000,
    loadBefore,
    loadAfter,
    tps: parsed.tps,
    metrics: parsed.metrics,
    ...(sliceExtension ? { sliceExtension } : {}),
  };
}

/** What a benchmark script's row keeps of a measureWorkload result: tps, times, 1-min load before and after. */
export function workloadTiming(m: Pick<WorkloadResult, "tps" | "started" | "ended" | "seconds" | "loadBefore" | "loadAfter">) {
  return { tps: m.tps, started: m.started, ended: m.ended, seconds: m.seconds, load1Before: m.loadBefore[0], load1After: m.loadAfter[0] };
}

/** What every experiment records of a measured run: tps, start and end, seconds, 1-min load before and after. */
export type WorkloadTiming = ReturnType<typeof workloadTiming>;

/** The cluster name a variant uses for a protocol: PREFIX-PROTOCOL-HASH(bin dir). */
export function clusterNameFor(prefix: string, protocol: string, binDir: string): string {
  return `${prefix}-${protocol}-${binKey(binDir)}`;
}

const binOf = (v: Variant): string => v.bin ?? debianBinDir();

function checkBins(variants: Variant[]): void {
  for (const v of variants) {
    const missing = missingServerProgram(binOf(v));
    if (missing !== undefined) throw new UserError(`--variant ${v.name}: ${binOf(v)}: expected a PostgreSQL bin directory, found no ${missing} in it`);
  }
}

/** Runs (or resumes) a series; returns the tidy rows of every finished run. */
export async function runSeries(opts: SeriesOptions): Promise<SeriesSummary> {
  const protocol = typeof opts.protocol === "string" ? loadProtocol(opts.protocol) : opts.protocol;
  const dir = resolve(opts.outDir);
  if (opts.variants) checkBins(opts.variants); // before anything is written
  mkdirSync(dir, { recursive: true });
  const { plan, variants } = planOrResume(opts, protocol, dir);
  const log = opts.log ?? (() => undefined);
  const progress = opts.progress ?? (() => undefined);
  const clients: Clients = { binDir: plan.clients.binDir };
  checkBins(variants);
  // Collectors: checked once per invocation; the skipped ones (with why) go to the provenance and every run.
  const collect = await prepareSeriesCollect(plan.collect ?? []);
  for (const s of collect.skipped) log(`collector ${s.name} skipped: ${s.reason}`);
  const collectRecord = runCollectRecord(collect);

  // Provenance: one entry per invocation (a resumed series may span sessions).
  const provFile = join(dir, "provenance.json");
  const prov = readJson<{ series: unknown; sessions: unknown[] }>(provFile) ?? { series: null, sessions: [] };
  const session = prov.sessions.length + 1;
  // Where this series departs from its protocol: overridden parameters, runs, warm-up.
  const defaults = resolveWorkloads(protocol, plan.cpus);
  const deviations: string[] = [];
  for (const [k, v] of Object.entries(plan.params)) {
    const was = [...new Set(defaults.filter((w) => k in w.params).map((w) => String(w.params[k])))];
    if (was.join(",") !== v) deviations.push(`--param ${k}=${v} (protocol: ${was.join(", ")})`);
  }
  if (plan.runs !== protocol.runs) deviations.push(`--runs ${plan.runs} (protocol: ${protocol.runs})`);
  if (plan.warmup !== protocol.warmup) deviations.push(`--warmup ${plan.warmup} (protocol: ${protocol.warmup})`);
  prov.series = {
    protocol: plan.protocol,
    design: plan.design,
    seed: plan.seed,
    runs: plan.runs,
    warmup: plan.warmup,
    params: plan.params,
    deviationsFromProtocol: deviations,
    variants: plan.variants,
    ...(plan.collect ? { collect: plan.collect } : {}),
    note: "Load averages before and after every run are in runs/*/result.json and results.csv.",
  };
  const pendingAtStart = plan.plan.filter((p) => !readRunResult(dir, p.id)).length;
  const postgres: Record<string, unknown> = {};
  for (const v of variants) postgres[v.name] = postgresInfo(binOf(v));
  // A session is recorded when it has runs to do; re-running a finished series only refreshes `series`.
  if (pendingAtStart > 0) prov.sessions.push({
    session,
    started: new Date().toISOString(),
    host: hostInfo(),
    kernel: kernelInfo(),
    postgres,
    clients: { binDir: clients.binDir, versions: clientVersions(clients) },
    kit: kitInfo(),
    loadAverage: loadAverage(),
    ...(collectRecord ? { collectors: collectRecord } : {}),
  });
  writeFileAtomic(provFile, `${JSON.stringify(prov, null, 2)}\n`);

  const total = plan.plan.length;
  const pending = plan.plan.filter((p) => !readRunResult(dir, p.id));
  progress({ kind: "series", total, done: total - pending.length, dir });
  writeTidy(dir);
  const durations: number[] = [];
  const logged = new Set<string>();
  let ranNow = 0;
  for (const p of pending) {
    if (opts.maxRuns !== undefined && ranNow >= opts.maxRuns) break;
    if (isShuttingDown()) break;
    const variant = variants.find((v) => v.name === p.variant);
    if (!variant) throw new UserError(`${join(dir, "series.json")}: run ${p.id} names variant "${p.variant}", which the series does not define`);
    const k = p.index;
    const remaining = pending.length - ranNow;
    const avg = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : null;
    progress({ kind: "start", k, total, id: p.id, variant: p.variant, etaSeconds: avg === null ? null : avg * remaining });
    if (opts.beforeRun) await opts.beforeRun(p);
    const runDir = join(dir, "runs", p.id);
    rmSync(runDir, { recursive: true, force: true }); // leftovers of an interrupted attempt never count
    mkdirSync(runDir, { recursive: true });
    const t0 = Date.now();
    const started = new Date(t0).toISOString();
    const results: WorkloadResult[] = [];
    const binDir = binOf(variant);
    const name = clusterNameFor(opts.clusterPrefix ?? "bench", protocol.name, binDir);
    for (const w of plan.workloads) {
      const settings: Record<string, Literal> = { ...w.settings, ...variant.settings };
      const cluster = await startCluster({ binDir, name, settings, env: variant.env });
      try {
        if (!logged.has(name)) {
          log(`cluster ${name}: log ${cluster.logFile}`);
          logged.add(name);
        }
        progress({ kind: "workload", k, total, id: p.id, variant: p.variant, workload: w.name, logFile: cluster.logFile });
        await ensureSetup(cluster, w, clients, join(dir, "setup"), log);
        const rawName = `${w.name}.out`;
        const measure = () => measureWorkload(cluster, w, clients, join(runDir, rawName));
        if (collect.active.length === 0) {
          results.push({ ...(await measure()), cluster: name, clusterLog: cluster.logFile, raw: rawName });
        } else {
          const { ctx, dir: collectDir } = collectContext(cluster, runDir, w.name);
          const { value: m, collect: c } = await collectAround(collect.active, ctx, collectDir, measure);
          results.push({ ...m, cluster: name, clusterLog: cluster.logFile, raw: rawName, ...(c ? { collect: c } : {}) });
        }
      } finally {
        await cluster.stop("fast");
      }
    }
    const t1 = Date.now();
    const result: RunResult = {
      index: p.index,
      id: p.id,
      block: p.block,
      variant: p.variant,
      warmup: p.warmup,
      session,
      started,
      ended: new Date(t1).toISOString(),
      ...(collectRecord ? { collectors: collectRecord } : {}),
      workloads: results,
    };
    writeFileAtomic(join(runDir, "result.json"), `${JSON.stringify(result, null, 2)}\n`);
    writeTidy(dir);
    ranNow++;
    durations.push((t1 - t0) / 1000);
    const avg2 = durations.reduce((a, b) => a + b, 0) / durations.length;
    progress({
      kind: "done",
      k,
      total,
      id: p.id,
      variant: p.variant,
      tps: results.map((r) => r.tps),
      seconds: (t1 - t0) / 1000,
      etaSeconds: avg2 * (pending.length - ranNow),
    });
  }
  const rows = writeTidy(dir);
  const done = plan.plan.filter((p) => readRunResult(dir, p.id)).length;
  return { dir, total, done, ranNow, rows };
}

/** Lists the runs directories of a series that have no result (interrupted attempts). */
export function unfinishedRuns(dir: string): string[] {
  const runs = join(dir, "runs");
  if (!existsSync(runs)) return [];
  return readdirSync(runs).filter((id) => !readRunResult(dir, id));
}
