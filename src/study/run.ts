import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus as osCpus, release } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { repoRoot, workDir } from "../util/paths.js";
import { loadProtocol, resolveWorkloads } from "../bench/protocol.js";
import { runSeries, seriesRows } from "../bench/series.js";
import { parseVariant, type Variant } from "../bench/variant.js";
import { hostInfo, kernelInfo, kitInfo, loadAverage, postgresInfo, type KernelInfo } from "../record/provenance.js";
import { type ProgressEvent } from "../bench/progress.js";
import { debianBinDir } from "../postgres/binaries.js";
import { installRoot } from "../postgres/build.js";
import { patchHash } from "../postgres/patch.js";
import type { CollectorName } from "../collect/index.js";
import { checkSums, readRecord, RECORD_FORMAT, unknown, utcStamp, writeRecord, writeSums, type Field, type RecordEnvelope } from "../record/format.js";
import { cells, resolveExperimentParams, shrink, type Cell, type Factor, type Study } from "./study.js";
import { driverSpec, type DriverPlan, type DriverResult } from "./drivers/index.js";
import type { Params } from "./params.js";
import { analyzeStudyRecord, type StudyAnalysisResult, type StudyReportRenderer } from "./analyze.js";
import { kernelLevel, PREEMPT_FILE, readText, runChecks, sizeMiB, vmChecks, type Check } from "./checks.js";

// The checks and the plan in words live in checks.ts and plan-text.ts; re-exported for callers of run.ts.
export { kernelImageCheck, kernelLevel, runChecks, vmChecks, type Check, type CheckContext, type CheckStatus } from "./checks.js";
export { planText } from "./plan-text.js";

/**
 * `slicelab study run`: checks, plan, preparation, the runs, one record, its
 * analysis. Factors that change within a boot are crossed into the cells of the
 * series (variants); a factor that needs a reboot is recorded at the level of
 * the running kernel, and the plan says to run the study again on the other
 * boot. The bootloader is never touched.
 */

// ---------------------------------------------------------------------------

export interface PrepareStep {
  name: string;
  /** "cached" when nothing needs doing, else what will be done and how long it usually takes. */
  state: string;
  seconds?: number;
}

export interface StudyPlan {
  study: Study;
  /** Shrunk for the VM (the study's vm section applied). */
  vm: boolean;
  /** Levels fixed for this boot (factors that need a reboot). */
  boot: Record<string, string>;
  cells: Cell[];
  runsPerCell: number;
  warmup: number;
  totalRuns: number;
  /** Seconds a run takes: the protocol's measured durations plus the study's overhead per run. */
  secondsPerRun: number;
  estimateSeconds: number;
  params: Record<string, string>;
  /** An experiment study: its driver's parameters, resolved and typed, and the driver's plan. */
  experiment?: { params: Params; plan: DriverPlan };
  prepare: PrepareStep[];
  checks: Check[];
  recordDir: string;
  /** Factors by when they can change. */
  withinBoot: string[];
  needReboot: string[];
}

/** A finished build of the patched PostgreSQL 18 with today's patch (its hash in the prefix name), when there is one. */
export function cachedPatchedBuild(): string | undefined {
  const hash = patchHash("18");
  for (const root of [installRoot(), join(workDir(), "postgres", "install")]) {
    if (!existsSync(root)) continue;
    for (const d of readdirSync(root).sort().reverse()) {
      if (!d.startsWith("18.") || !d.includes(`-patched-${hash}-`)) continue;
      if (existsSync(join(root, d, "slicelab-build.json")) && existsSync(join(root, d, "bin", "postgres"))) return join(root, d, "bin");
    }
  }
  return undefined;
}

function durationOf(params: Record<string, unknown>): number {
  for (const k of ["duration", "time"]) if (typeof params[k] === "number") return params[k] as number;
  return 0;
}

/** The record directory of an interrupted run of the study (study-run.json without record.json), if any. */
export function unfinishedRecord(runsRoot: string, study: string, vm: boolean): string | undefined {
  const dir = join(runsRoot, study);
  if (!existsSync(dir)) return undefined;
  for (const d of readdirSync(dir).sort().reverse()) {
    const p = join(dir, d);
    const state = readText(join(p, "study-run.json"));
    if (state && !existsSync(join(p, "record.json")) && (JSON.parse(state) as { vm?: boolean }).vm === vm) return p;
  }
  return undefined;
}

export interface PlanOptions {
  vm: boolean;
  runsRoot: string;
  out?: string;
  params?: Record<string, string>;
  kernel?: KernelInfo;
  /** In the VM's guest: the kernel is the guest's. */
  guest?: boolean;
}

export function planStudy(studyIn: Study, oIn: PlanOptions): StudyPlan {
  // An experiment that boots the kit's VM itself (mechanism-micro, vm-micro) runs the same with and
  // without --vm: the study is not shrunk and not run inside a guest of its own.
  const bootsItself = studyIn.driver === "experiment" && studyIn.experiment !== undefined && driverSpec(studyIn.experiment)?.bootsVm === true;
  const o = bootsItself ? { ...oIn, vm: false } : oIn;
  const study = o.vm ? shrink(studyIn) : studyIn;
  const kernel = o.kernel ?? kernelInfo();
  const boot: Record<string, string> = {};
  const kf = study.factors.find((f) => f.via === "kernel");
  if (kf) {
    const lvl = o.vm && !o.guest ? "7.x" : kernelLevel(kernel.release);
    boot[kf.name] = kf.levels.includes(lvl) ? lvl : (kf.levels[0] as string);
  }
  const cs = cells(study.factors, boot);
  const params: Record<string, string> = {};
  let experiment: StudyPlan["experiment"];
  if (study.driver === "experiment") {
    // One parser for the study file's parameters and --param (src/study/params.ts).
    const spec = driverSpec(study.experiment as string);
    const ep = resolveExperimentParams(study, o.params ?? {});
    spec?.validate?.(ep);
    experiment = { params: ep, plan: (spec as NonNullable<typeof spec>).plan(ep) };
    for (const [k, v] of Object.entries(ep)) if (v !== undefined) params[k] = Array.isArray(v) ? v.join(",") : String(v);
  } else {
    for (const [k, v] of Object.entries(study.params ?? {})) params[k] = String(v);
    Object.assign(params, o.params ?? {});
  }
  let secondsPerRun = study.overheadSecondsPerRun;
  if (study.driver === "series") {
    const p = loadProtocol(study.protocol as string);
    const known = new Set(p.expanded.flatMap((w) => Object.keys(w.params)));
    const applicable = Object.fromEntries(Object.entries(params).filter(([k]) => known.has(k)));
    for (const w of resolveWorkloads(p, osCpus().length, applicable)) secondsPerRun += durationOf(w.params);
  }
  const runsPerCell = study.design.runs;
  const totalRuns = study.driver === "series" ? cs.length * runsPerCell : experiment ? experiment.plan.runs : study.design.runs;
  if (experiment) secondsPerRun = Math.round((experiment.plan.seconds / Math.max(1, experiment.plan.runs)) * 10) / 10;
  const prepare: PrepareStep[] = [];
  const needsPatched = study.factors.some((f) => f.via === "bin" && f.levels.includes("patched"));
  if (needsPatched) {
    const b = cachedPatchedBuild();
    prepare.push({ name: "patched PostgreSQL 18", state: b ? `cached (${b})` : "build: fetch Debian sid's postgresql-18 source, apply kernel-patches/postgresql/18, make (3–9 min cold)" });
  }
  if (study.driver === "series") prepare.push({ name: "clusters and data", state: "initdb and each workload's setup once per cluster (part of the first run of each cell)" });
  const spec = study.driver === "experiment" ? driverSpec(study.experiment as string) : undefined;
  if (spec?.needsBuilds) {
    const given = experiment?.params.baseline_bin !== undefined && experiment?.params.patched_bin !== undefined;
    prepare.push({ name: "baseline and patched PostgreSQL 18", state: given ? `given (${String(experiment?.params.baseline_bin)}, ${String(experiment?.params.patched_bin)})` : "built from Debian's postgresql-18 source by the driver unless finished builds exist (3–9 min each cold)" });
  }
  if (o.vm && !o.guest) prepare.push({ name: "VM boot", state: "QEMU with the kit's 7.2 kernel (TCG here: about 10–40 s to the command)" });
  const recordParent = join(o.runsRoot, study.name);
  const recordDir = o.out ? resolve(o.out) : (unfinishedRecord(o.runsRoot, study.name, o.vm) ?? join(recordParent, utcStamp()));
  const checks = o.vm && !o.guest ? vmChecks() : [...runChecks(study, { kernel, recordParent, params, bootsVm: spec?.bootsVm === true }), ...(spec?.bootsVm ? vmChecks() : [])];
  const tcg = o.vm ? 1 : 1;
  return {
    study,
    vm: o.vm,
    boot,
    cells: cs,
    runsPerCell,
    warmup: study.design.warmup,
    totalRuns,
    secondsPerRun,
    estimateSeconds: experiment ? Math.round(experiment.plan.seconds) : Math.round(totalRuns * secondsPerRun * tcg + (o.vm && !o.guest ? 40 : 0)),
    params,
    experiment,
    prepare,
    checks,
    recordDir,
    withinBoot: study.factors.filter((f) => f.changes === "run").map((f) => f.name),
    needReboot: study.factors.filter((f) => f.changes !== "run").map((f) => f.name),
  };
}

// ---------------------------------------------------------------------------

/** Variants of a cell: settings and the build; the preemption mode is put in place by beforeRun. */
export function cellVariant(c: Cell, factors: Factor[], patchedBin: string | undefined, glibc: Field<string> = glibcVersion()): Variant {
  const items: string[] = [];
  // glibc before 2.41 registers a 32-byte rseq area, too small for the extension: the patch then
  // registers its own 64-byte area, which needs glibc's registration off (as in REPRODUCE §5).
  const gv = typeof glibc === "string" ? /(\d+)\.(\d+)/.exec(glibc) : null;
  const oldGlibc = gv ? Number(gv[1]) < 2 || (Number(gv[1]) === 2 && Number(gv[2]) < 41) : true;
  for (const f of factors) {
    const level = c.levels[f.name] as string;
    if (f.via.startsWith("setting:")) items.push(`setting:${f.via.slice(8)}=${level}`);
    else if (f.via === "bin" && level === "patched") {
      if (!patchedBin) throw new UserError(`cell ${c.name} needs the patched PostgreSQL build, which is not prepared`);
      items.push(`bin=${patchedBin}`);
      if (oldGlibc) items.push("env:GLIBC_TUNABLES=glibc.pthread.rseq=0");
    }
  }
  return parseVariant(`${c.name}=${items.map((i) => i.replace(/,/g, "\\,")).join(",") || "default"}`);
}

function glibcVersion(): Field<string> {
  try {
    return execFileSync("getconf", ["GNU_LIBC_VERSION"], { encoding: "utf8" }).trim();
  } catch (err) {
    return unknown(`getconf GNU_LIBC_VERSION failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
}

/** The busiest other processes now (CPU % since start as ps reports it), ours left out. */
function otherProcesses(): string {
  const r = spawnSync("ps", ["-eo", "pid,ppid,pcpu,comm", "--sort=-pcpu", "--no-headers"], { encoding: "utf8" });
  if (r.status !== 0) return "ps failed";
  const mine = new Set([process.pid, process.ppid]);
  const rows = r.stdout.trim().split("\n").map((l) => l.trim().split(/\s+/)).filter((x) => x.length >= 4);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [pid, ppid] of rows) if (!mine.has(Number(pid)) && mine.has(Number(ppid))) { mine.add(Number(pid)); changed = true; }
  }
  const busy = rows.filter(([pid, , pcpu]) => !mine.has(Number(pid)) && Number(pcpu) >= 5).slice(0, 5);
  return busy.length ? busy.map(([pid, , pcpu, comm]) => `${comm} (pid ${pid}, ${pcpu}% CPU)`).join(", ") : "no other process above 5% CPU";
}

export interface RunOptions {
  plan: StudyPlan;
  argv: string[];
  log: (line: string) => void;
  progress?: (e: ProgressEvent) => void;
  /** Where the client programs are (default Debian's). */
  clientBinDir?: string;
  maxRuns?: number;
  /** Prefix of the clusters' names (default study-NAME). */
  clusterPrefix?: string;
  /** Environment record for the guest side of --vm. */
  environment?: RecordEnvelope["environment"];
  /** The record's report page (src/report/study.ts studyReport). */
  render: StudyReportRenderer;
}

export interface RunOutcome {
  dir: string;
  complete: boolean;
  record?: RecordEnvelope;
  analysis?: StudyAnalysisResult;
}

function timed<T>(steps: { name: string; seconds: number; state: string }[], name: string, fn: () => Promise<T>, log: (s: string) => void): Promise<T> {
  const t0 = Date.now();
  log(`prepare ${name}…`);
  return fn().then((v) => {
    const seconds = Math.round((Date.now() - t0) / 100) / 10;
    steps.push({ name, seconds, state: "done" });
    log(`prepare ${name}: ${seconds} s`);
    return v;
  });
}

/** The patched PostgreSQL 18 build: the cached one, else fetched, patched and built (minutes). */
export async function preparePatched(): Promise<string> {
  const cached = cachedPatchedBuild();
  if (cached) return cached;
  const { resolveSource } = await import("../postgres/source.js");
  const { buildPostgres } = await import("../postgres/build.js");
  // buildPostgres reuses a finished prefix; its result names it.
  const src = await resolveSource({ major: "18" }, () => {});
  const r = await buildPostgres(src, "patched", {});
  return r.binDir;
}

const NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages";

function meminfoKb(key: string): number {
  return Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(readText("/proc/meminfo") ?? "")?.[1] ?? "0");
}

/**
 * Reserves enough huge pages for shared_buffers (×1.2 + 16 MiB) when fewer are free; returns the
 * function that puts vm.nr_hugepages back. Refuses when the kernel cannot reserve them.
 */
export function reserveHugePages(params: Record<string, string>): () => void {
  const sizeKb = meminfoKb("Hugepagesize");
  const need = Math.ceil(((sizeMiB(params.shared_buffers) * 1.2 + 16) * 1024) / sizeKb);
  const original = Number((readText(NR_HUGEPAGES) ?? "0").trim());
  const free = meminfoKb("HugePages_Free");
  if (free >= need) return () => {};
  writeFileSync(NR_HUGEPAGES, String(original + need - free));
  const got = meminfoKb("HugePages_Free");
  const restore = () => writeFileSync(NR_HUGEPAGES, String(original));
  if (got < need) {
    restore();
    throw new UserError(`${NR_HUGEPAGES}: asked for ${need} free huge pages of ${sizeKb} kB, the kernel reserved only ${got} (memory too fragmented? try again after \`echo 1 > /proc/sys/vm/compact_memory\`)`);
  }
  return restore;
}

/** Runs a planned study on this machine (or in the guest) and writes its record. */
export async function runStudy(o: RunOptions): Promise<RunOutcome> {
  const p = o.plan;
  const s = p.study;
  const failed = p.checks.filter((c) => c.status === "fail");
  if (failed.length) throw new UserError(`study ${s.name}: refused before running anything:\n${failed.map((c) => `  ${c.name}: ${c.detail}`).join("\n")}`);
  const dir = p.recordDir;
  mkdirSync(dir, { recursive: true });
  if (existsSync(join(dir, "record.json"))) throw new UserError(`${dir}: already holds a finished record; choose another --out`);
  const stateFile = join(dir, "study-run.json");
  const prior = readText(stateFile);
  const state = prior
    ? (JSON.parse(prior) as { started: string; argv: string[]; vm: boolean; prepare: { name: string; seconds: number; state: string }[]; sessions: number; concurrentStart: string; loadStart: number[] })
    : { started: new Date().toISOString(), argv: o.argv, vm: p.vm, prepare: [] as { name: string; seconds: number; state: string }[], sessions: 0, concurrentStart: otherProcesses(), loadStart: loadAverage() };
  state.sessions++;
  const later = ((state as { laterArgv?: string[][] }).laterArgv ??= []);
  if (prior) later.push(o.argv);
  writeFileAtomic(stateFile, `${JSON.stringify({ ...state, study: s.name, hash: s.hash, checks: p.checks, boot: p.boot, cells: p.cells }, null, 2)}\n`);
  if (prior) o.log(`resuming ${dir} (session ${state.sessions})`);

  let patched: string | undefined;
  if (s.factors.some((f) => f.via === "bin" && f.levels.includes("patched"))) {
    patched = await timed(state.prepare, "patched PostgreSQL 18", preparePatched, o.log);
  }
  const hugeRestore = s.factors.some((f) => f.via === "setting:huge_pages" && f.levels.includes("on")) && s.requires.hugePages ? await timed(state.prepare, "huge pages", async () => reserveHugePages(p.params), o.log) : undefined;
  let complete = false;
  let driverEnvelope: DriverResult["envelope"];
  const binDirs = new Set<string>();
  try {
    if (s.driver === "series") {
      const variants = p.cells.map((c) => cellVariant(c, s.factors, patched));
      for (const v of variants) binDirs.add(v.bin ?? debianBinDir());
      const mode = s.factors.find((f) => f.via === "preempt");
      const original = mode ? readText(PREEMPT_FILE) : null;
      const originalMode = original ? /\(([a-z]+)\)/.exec(original)?.[1] : undefined;
      const modeLog: { run: string; mode: string; read: string }[] = [];
      try {
        const summary = await runSeries({
          protocol: s.protocol as string,
          variants,
          outDir: join(dir, "series"),
          params: Object.keys(p.params).length ? p.params : undefined,
          runs: p.runsPerCell,
          warmup: p.warmup,
          design: s.design.kind,
          seed: s.design.seed,
          clientBinDir: o.clientBinDir,
          clusterPrefix: o.clusterPrefix ?? `study-${s.name}`.slice(0, 24),
          maxRuns: o.maxRuns,
          collect: s.collectors as CollectorName[] | undefined,
          progress: o.progress,
          log: o.log,
          beforeRun: mode
            ? (run) => {
                const c = p.cells.find((x) => x.name === run.variant) as Cell;
                const want = c.levels[mode.name] as string;
                writeFileSync(PREEMPT_FILE, want);
                const read = (readText(PREEMPT_FILE) ?? "").trim();
                if (/\(([a-z]+)\)/.exec(read)?.[1] !== want) throw new UserError(`${PREEMPT_FILE}: wrote ${want}, reads "${read}"`);
                modeLog.push({ run: run.id, mode: want, read });
              }
            : undefined,
        });
        complete = summary.done === summary.total;
      } finally {
        if (mode && originalMode) writeFileSync(PREEMPT_FILE, originalMode);
        if (modeLog.length) writeFileAtomic(join(dir, `preempt-${state.sessions}.json`), `${JSON.stringify(modeLog, null, 2)}\n`);
      }
    } else if (s.driver === "experiment") {
      const spec = driverSpec(s.experiment as string);
      if (!spec || !p.experiment) throw new UserError(`study ${s.name}: unknown experiment driver "${String(s.experiment)}"`);
      const out = join(dir, "out");
      mkdirSync(out, { recursive: true });
      o.log(`running the ${spec.name} experiment: ${p.experiment.plan.text}`);
      const impl = await spec.load();
      const r = await impl.run({ out, params: p.experiment.params, log: o.log });
      for (const b of r.binDirs) binDirs.add(b);
      driverEnvelope = r.envelope;
      complete = true;
    } else {
      const out = join(dir, "out");
      const argv = (s.script as string[]).map((a) => a.replaceAll("{out}", out));
      mkdirSync(out, { recursive: true });
      o.log(`running ${argv.join(" ")}`);
      const r = spawnSync(argv[0] as string, argv.slice(1), { cwd: repoRoot(), stdio: ["ignore", "inherit", "inherit"] });
      complete = r.status === 0;
      binDirs.add(debianBinDir());
    }
  } finally {
    if (hugeRestore) hugeRestore();
  }
  writeFileAtomic(stateFile, `${JSON.stringify({ ...state, study: s.name, hash: s.hash, checks: p.checks, boot: p.boot, cells: p.cells }, null, 2)}\n`);
  if (!complete) return { dir, complete };

  const host = hostInfo();
  const k = kernelInfo();
  const kit = kitInfo();
  const pgs = [...binDirs].filter((b) => existsSync(join(b, "postgres"))).map((b) => postgresInfo(b));
  const pgBuild = pgs.map((x) => (x.buildRecord ? `kit build ${x.realBinDir}` : `Debian package (${x.binDir})`)).join("; ");
  const patchHashes = pgs.map((x) => {
    const br = x.buildRecord as { patch?: { sha256?: string; hash?: string }; patchSha256?: string } | null;
    return br ? (br.patchSha256 ?? br.patch?.sha256 ?? br.patch?.hash ?? JSON.stringify(br).match(/"[a-zA-Z]*[pP]atch[a-zA-Z]*":"([0-9a-f]{12,64})"/)?.[1] ?? "kit build without a patch hash") : "none (unpatched)";
  });
  const rows = s.driver === "series" ? seriesRows(join(dir, "series")) : [];
  const ended = rows.length ? rows.map((r) => r.ended).sort().at(-1) as string : new Date().toISOString();
  const modeFactor = s.factors.find((f) => f.via === "preempt");
  const preemptMode = modeFactor
    ? `${p.cells.map((c) => c.levels[modeFactor.name]).filter((v, i, a) => a.indexOf(v) === i).join(", ")} (a factor: written to sched/preempt before each run, preempt-N.json)`
    : k.preempt.debugfs
      ? `${/\(([a-z]+)\)/.exec(k.preempt.debugfs)?.[1] ?? k.preempt.debugfs} (debugfs sched/preempt)`
      : unknown(`debugfs sched/preempt not readable; build-time model ${k.preempt.config ?? "unknown"}${k.preempt.dynamic ? " with PREEMPT_DYNAMIC" : ""}`);
  const probe = k.sliceExtensionPrctl;
  const record: RecordEnvelope = {
    format: RECORD_FORMAT,
    study: s.name,
    title: `${s.title}${p.vm ? " (shrunk, in the kit's VM)" : ""}`,
    environment: driverEnvelope?.environment ?? o.environment ?? { kind: "host", detail: `on ${host.hostname} (${release()})` },
    design: {
      kind: s.design.kind,
      runsPerCell: p.runsPerCell,
      warmup: p.warmup,
      cells: p.cells.map((c) => c.name),
      factors: Object.fromEntries(s.factors.map((f) => [f.name, { levels: f.levels, changes: f.changes, via: f.via }])),
      boot: p.boot,
      params: p.params,
      studyFile: relative(repoRoot(), s.file),
      studySha256: s.hash,
      ...(s.driver === "series" ? { seriesPlan: "series/series.json" } : s.driver === "experiment" ? { experiment: s.experiment, experimentParams: p.params } : { script: s.script }),
    },
    command: state.argv,
    kit: { commit: kit.commit ?? unknown("git rev-parse HEAD failed (not a git checkout?)"), dirty: kit.dirty ?? unknown("git status failed") },
    host: { hostname: host.hostname, cpuModel: host.cpuModel ?? unknown("no model name in /proc/cpuinfo"), cpus: host.cpus, memoryBytes: host.memoryBytes },
    kernel: driverEnvelope ? {
      release: driverEnvelope.kernelRelease,
      configSha256: driverEnvelope.configSha256 ?? unknown("the guest's kernel config hash is not in the driver's provenance"),
      preemptMode: driverEnvelope.preemptMode ?? preemptMode,
      sliceExtension: driverEnvelope.sliceExtension ?? unknown("the guest's slice extension is in the driver's own files under out/"),
    } : {
      release: k.release,
      configSha256: k.configSha256 ?? unknown("neither /boot/config-RELEASE nor /proc/config.gz is readable"),
      preemptMode,
      sliceExtension: probe.available === true ? `available (${probe.detail})` : probe.available === false ? `unavailable: prctl(PR_RSEQ_SLICE_EXTENSION) ${probe.detail}` : unknown(probe.detail),
    },
    glibc: glibcVersion(),
    postgres: {
      version: pgs.length ? pgs.map((x) => x.version).join("; ") : unknown("no PostgreSQL server was used"),
      build: pgBuild || unknown("no PostgreSQL server was used"),
      patch: patchHashes.length ? patchHashes.join("; ") : unknown("no PostgreSQL server was used"),
    },
    started: state.started,
    ended,
    concurrent: `at the start: load ${state.loadStart.join(" ")}, ${state.concurrentStart}; at the end: load ${loadAverage().join(" ")}, ${otherProcesses()}; per-run load averages in series/results.csv`,
    files: readdirSync(dir).filter((n) => n !== "record.json" && n !== "SHA256SUMS").sort(),
    derivedFrom: [],
    analysis: unknown("not analysed yet"),
    notes: state.sessions > 1 ? [`resumed: ${state.sessions} sessions; the later ones ran ${later.map((a) => a.join(" ")).join(" | ")}`] : [],
  };
  writeRecord(dir, record);
  const analysis = analyzeStudyRecord(dir, s, o.render);
  const final = readRecord(dir);
  final.files = readdirSync(dir).filter((n) => n !== "record.json" && n !== "SHA256SUMS").sort();
  writeRecord(dir, final);
  writeSums(dir);
  return { dir, complete, record: final, analysis };
}

/** `study import DIR`: checks the record's hashes and envelope, then copies it to RUNS/<study>/<name>/. */
export function importRecord(src: string, runsRoot: string): string {
  const dir = resolve(src);
  if (!existsSync(dir)) throw new UserError(`${dir}: no such directory`);
  const rec = readRecord(dir);
  const problems = checkSums(dir);
  if (problems.length) throw new UserError(`${dir}: refused, the record does not match its checksums:\n${problems.map((x) => `  ${x}`).join("\n")}`);
  const dest = join(runsRoot, rec.study, basename(dir));
  if (existsSync(dest)) throw new UserError(`${dest}: already exists; the record was imported before (or choose another name for DIR)`);
  mkdirSync(join(runsRoot, rec.study), { recursive: true });
  cpSync(dir, dest, { recursive: true });
  const again = checkSums(dest);
  if (again.length) throw new UserError(`${dest}: the copy does not match its checksums: ${again.join("; ")}`);
  return dest;
}
