/**
 * Driver of the lock-holder-preemption micro-benchmark (src/micro/lhp.c):
 * compiles it once per source version into cacheDir()/micro, runs it, checks
 * and types its JSON, and adds the kernel's rseq/stats deltas when debugfs is
 * readable (root on a kernel with CONFIG_RSEQ_STATS).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { diffRseqStats, parseRseqStats, type RseqStatsDiff } from "../parse/rseq-stats.js";
import { ParseError, UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { compileCached, type CompiledProgram } from "./compile.js";

/**
 * on: request extensions (needs the kernel feature); simulate: the same loads and
 * stores on an unregistered area; off: the hooks test the switch and do nothing
 * (patched PostgreSQL with slice_extension = off); none: no hook code (unpatched).
 */
export type ExtensionMode = "off" | "on" | "simulate" | "none";
export const EXTENSION_MODES: readonly ExtensionMode[] = ["off", "on", "simulate", "none"];

export interface MicroOptions {
  threads: number;
  hogs: number;
  csNs: number;
  /** Work outside the critical section (default: csNs). */
  thinkNs?: number;
  durationS: number;
  extension: ExtensionMode;
  /** Measure hold times (two clock reads per critical section); default true. */
  holdTimes?: boolean;
  /** Fault inside critical sections: every faultEvery-th section writes to a fresh page of a shared region. */
  faultInCs?: { pages: PageKind; faultEvery?: number; regionMiB?: number; prefault?: boolean };
  /** spin (default: test-and-set, no back-off) or slock (PostgreSQL s_lock-like spin, then sleep). */
  backoff?: Backoff;
  /** Uncontended nested acquires inside each hold (exercise the v2 re-arm). */
  innerLocks?: number;
  /** Section and think lengths vary by ± this percentage (default 0). */
  jitterPct?: number;
  seed?: number;
  /** Write holds of at least logMinNs to this file (tid start end flags, CLOCK_MONOTONIC). */
  holdLog?: string;
  logMinNs?: number;
  /** Run on the N highest-numbered CPUs the process may use (so T + H threads oversubscribe N CPUs on any machine). */
  pinCpus?: number;
}

export type PageKind = "4k" | "hugetlb" | "thp";
export const PAGE_KINDS: readonly PageKind[] = ["4k", "hugetlb", "thp"];
export type Backoff = "spin" | "slock";
export const BACKOFFS: readonly Backoff[] = ["spin", "slock"];

/** Every arm runs with the same environment: glibc's rseq registration off, so each thread registers its own area. */
export const MICRO_ENV: Readonly<Record<string, string>> = { GLIBC_TUNABLES: "glibc.pthread.rseq=0" };

export interface MicroFeature {
  /** null with --extension off (not probed). */
  available: boolean | null;
  area: string;
  /** Whether every worker thread has an rseq registration (same in every arm). */
  registered: boolean;
  glibcRseqSize: number;
  auxvFeatureSize: number;
  auxvAlign: number;
  /** errno name of the failing call (EINVAL, ENXIO, ENOTSUPP, …) or null. */
  error: string | null;
  reason: string | null;
}

export interface MicroResults {
  criticalSections: number;
  elapsedS: number;
  throughputPerS: number;
  /** Wall-clock ns per loop iteration (critical section + think time + lock traffic), averaged over threads. */
  nsPerIteration: number;
  /** Thread CPU time (CLOCK_THREAD_CPUTIME_ID) per iteration: leaves out time the threads were preempted. */
  cpuNsPerIteration: number;
  loopsPerNs: number;
  holdNs: { mean: number; p50: number; p99: number; p999: number; max: number } | null;
  /** Time from the first attempt to the acquisition, per acquisition. */
  waitNs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number } | null;
  /** The hogs' work: spin_work(1000) calls, as calibrated ns, their CPU seconds, calls per second. */
  hogs: { loops: number; workNs: number; cpuS: number; workPerS: number };
  /** Worker threads' page faults over the loop (the loop touches new memory only inside sections). */
  faults: { workerMinor: number; workerMajor: number; freshPagesTouched: number; regionExhausted: boolean; hugeKiBMapped: number };
  /**
   * The first touch inside a section (--fault-in-cs with hold times; lhp version 3): two clock
   * reads around the store, so a fault's duration plus the reads' own cost. Absent before version 3.
   */
  touchNs?: { count: number; mean: number; p50: number; p99: number; max: number } | null;
  /** Holds that touched a page against the rest; work = the touched hold minus its touch (version 3). */
  holdSplit?: { touchedHolds: number; touchedHoldMeanNs: number; touchMeanNs: number; workMeanNs: number; untouchedHoldMeanNs: number; touchedHoldP50Ns: number; untouchedHoldP50Ns: number } | null;
  /** Releases that found the request cleared without a grant (the kernel dropped it). */
  dropped: number;
  /** Nested acquires that re-armed a cleared request (protocol v2). */
  rearmed: number;
  involuntaryCtxSwitches: { workers: number; hogs: number };
  voluntaryCtxSwitches: number;
  requests: number;
  grants: number;
  yields: number;
  revoked: number;
}

export interface MicroRun {
  program: "slicelab-lhp";
  version: number;
  config: {
    threads: number; hogs: number; csNs: number; thinkNs: number; durationS: number; extension: ExtensionMode; holdTimes: boolean;
    requestProtocol: number; backoff: Backoff; innerLocks: number; jitterPct: number; seed: number;
    faultInCs: { pages: PageKind; faultEvery: number; regionMiB: number; prefault: boolean } | null;
    /** The CPUs --pin-cpus chose (version 3), null when not pinned; absent before version 3. */
    pinnedCpus?: number[] | null;
  };
  feature: MicroFeature;
  /** null when --extension on could not be enabled (see feature.reason). */
  results: MicroResults | null;
  /** debugfs rseq/stats after − before, when readable. */
  kernelStats: RseqStatsDiff | null;
  binary: { path: string; sourceSha256: string; static: boolean };
  /** Environment given to the program (the same in every arm: MICRO_ENV). */
  env: Record<string, string>;
}

export function microSourcePath(): string {
  return join(repoRoot(), "src", "micro", "lhp.c");
}

/** Compiles lhp.c (static when the C library allows it) into the cache; returns the binary. */
export async function buildMicro(): Promise<CompiledProgram> {
  return compileCached(microSourcePath(), { dir: "micro", name: "lhp", flags: ["-pthread"] });
}

const RSEQ_STATS = "/sys/kernel/debug/rseq/stats";

function readRseqStats() {
  try {
    return parseRseqStats(readFileSync(RSEQ_STATS, "utf8"), RSEQ_STATS);
  } catch {
    return null;
  }
}

function expectNumber(o: Record<string, unknown>, key: string, where: string): number {
  const v = o[key];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new ParseError(where, 1, `a number at ${key}`, JSON.stringify(v));
  return v;
}

/** Checks the shape of lhp's JSON output; throws a ParseError naming the first bad field. */
export function parseMicroOutput(text: string, where = "lhp output"): Omit<MicroRun, "kernelStats" | "binary" | "env"> {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ParseError(where, 1, "one JSON object", JSON.stringify(text.slice(0, 80)));
  }
  if (o.program !== "slicelab-lhp") throw new ParseError(where, 1, `"program": "slicelab-lhp"`, JSON.stringify(o.program));
  const config = o.config as Record<string, unknown>;
  const feature = o.feature as Record<string, unknown>;
  if (typeof config !== "object" || config === null) throw new ParseError(where, 1, "a config object", JSON.stringify(config));
  if (typeof feature !== "object" || feature === null) throw new ParseError(where, 1, "a feature object", JSON.stringify(feature));
  for (const k of ["threads", "hogs", "csNs", "thinkNs", "durationS"]) expectNumber(config, k, where);
  const results = o.results as Record<string, unknown> | null;
  if (results !== null) {
    if (typeof results !== "object") throw new ParseError(where, 1, "a results object or null", JSON.stringify(results));
    for (const k of ["criticalSections", "elapsedS", "throughputPerS", "nsPerIteration", "cpuNsPerIteration", "requests", "grants", "yields", "revoked", "dropped", "rearmed"]) {
      expectNumber(results, k, where);
    }
    for (const [obj, keys] of [["hogs", ["loops", "workNs", "cpuS", "workPerS"]], ["faults", ["workerMinor", "workerMajor", "freshPagesTouched", "hugeKiBMapped"]]] as const) {
      const o2 = results[obj] as Record<string, unknown> | undefined;
      if (typeof o2 !== "object" || o2 === null) throw new ParseError(where, 1, `a ${obj} object`, JSON.stringify(o2));
      for (const k of keys) expectNumber(o2, k, `${where} ${obj}`);
    }
    const wait = results.waitNs as Record<string, unknown> | null;
    if (wait !== null && wait !== undefined) for (const k of ["mean", "p50", "p90", "p99", "p999", "max"]) expectNumber(wait, k, `${where} waitNs`);
    const hold = results.holdNs as Record<string, unknown> | null;
    if (hold !== null) for (const k of ["mean", "p50", "p99", "p999", "max"]) expectNumber(hold, k, `${where} holdNs`);
    const touch = results.touchNs as Record<string, unknown> | null | undefined;
    if (touch !== null && touch !== undefined) for (const k of ["count", "mean", "p50", "p99", "max"]) expectNumber(touch, k, `${where} touchNs`);
    const split = results.holdSplit as Record<string, unknown> | null | undefined;
    if (split !== null && split !== undefined) for (const k of ["touchedHolds", "touchedHoldMeanNs", "touchMeanNs", "workMeanNs", "untouchedHoldMeanNs", "touchedHoldP50Ns", "untouchedHoldP50Ns"]) expectNumber(split, k, `${where} holdSplit`);
  }
  return o as unknown as Omit<MicroRun, "kernelStats" | "binary" | "env">;
}

/** lhp's arguments for OPTS. */
export function microArgs(opts: MicroOptions): string[] {
  const args = [
    "--threads", String(opts.threads),
    "--hogs", String(opts.hogs),
    "--cs-ns", String(opts.csNs),
    "--duration", String(opts.durationS),
    "--extension", opts.extension,
  ];
  if (opts.thinkNs !== undefined) args.push("--think-ns", String(opts.thinkNs));
  if (opts.holdTimes === false) args.push("--no-hold-times");
  if (opts.faultInCs) {
    args.push("--fault-in-cs", "--pages", opts.faultInCs.pages);
    if (opts.faultInCs.faultEvery !== undefined) args.push("--fault-every", String(opts.faultInCs.faultEvery));
    if (opts.faultInCs.regionMiB !== undefined) args.push("--region-mib", String(opts.faultInCs.regionMiB));
    if (opts.faultInCs.prefault) args.push("--prefault");
  }
  if (opts.backoff !== undefined) args.push("--backoff", opts.backoff);
  if (opts.innerLocks !== undefined) args.push("--inner-locks", String(opts.innerLocks));
  if (opts.jitterPct !== undefined) args.push("--jitter-pct", String(opts.jitterPct));
  if (opts.seed !== undefined) args.push("--seed", String(opts.seed));
  if (opts.holdLog !== undefined) args.push("--hold-log", opts.holdLog);
  if (opts.logMinNs !== undefined) args.push("--log-min-ns", String(opts.logMinNs));
  if (opts.pinCpus !== undefined) args.push("--pin-cpus", String(opts.pinCpus));
  return args;
}

/**
 * Runs the micro-benchmark once. In every arm glibc's own rseq registration is
 * switched off (GLIBC_TUNABLES=glibc.pthread.rseq=0) so that each thread
 * registers an area covering slice_ctrl (glibc before 2.41 registers only the
 * original 32 bytes: legacy mode, no slice extensions); the arms then differ
 * only in the request writes and, for on, the prctl that enables the feature.
 */
export async function runMicro(opts: MicroOptions): Promise<MicroRun> {
  for (const [k, v] of Object.entries({ threads: opts.threads, hogs: opts.hogs, "cs-ns": opts.csNs })) {
    if (!Number.isInteger(v) || v < (k === "threads" ? 1 : 0)) throw new UserError(`--${k}: expected an integer ≥ ${k === "threads" ? 1 : 0}, found ${v}`);
  }
  if (!(opts.durationS > 0)) throw new UserError(`--duration: expected seconds > 0, found ${opts.durationS}`);
  if (!EXTENSION_MODES.includes(opts.extension)) throw new UserError(`--extension: expected off, on, simulate or none, found ${JSON.stringify(opts.extension)}`);
  const binary = await buildMicro();
  if (opts.faultInCs && !PAGE_KINDS.includes(opts.faultInCs.pages)) throw new UserError(`--pages: expected 4k, hugetlb or thp, found ${JSON.stringify(opts.faultInCs.pages)}`);
  if (opts.backoff !== undefined && !BACKOFFS.includes(opts.backoff)) throw new UserError(`--backoff: expected spin or slock, found ${JSON.stringify(opts.backoff)}`);
  const env: Record<string, string> = { ...MICRO_ENV };
  const before = readRseqStats();
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolvePromise, reject) => {
    const child = spawn(binary.path, microArgs(opts), { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (c) => resolvePromise({ stdout: out, stderr: err, code: c }));
  });
  const after = readRseqStats();
  if (code !== 0 && code !== 3) throw new UserError(`${binary.path} exited with status ${code}: ${stderr.trim() || stdout.trim()}`);
  const parsed = parseMicroOutput(stdout, binary.path);
  let kernelStats: RseqStatsDiff | null = null;
  if (before && after) kernelStats = diffRseqStats(before, after);
  return { ...parsed, kernelStats, binary, env };
}
