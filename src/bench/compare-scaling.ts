/**
 * How `slicelab compare` scales with the number of runs (issue 16): times the
 * command end to end (a fresh `node bin/slicelab.js compare A.csv B.csv --json`
 * per measurement, as a user runs it) on two seeded synthetic samples of n runs
 * per side, and the parts of compareSamples in process at the largest n.
 *
 *   node dist/src/bench/compare-scaling.js [--sizes 1000,3000,10000] [--resamples 10000]
 *        [--repeats 3] [--record DIR] [--json]
 *   node dist/src/bench/compare-scaling.js --envelope DIR   (record.json again from DIR/result.json)
 *
 * Prints the ratio time(10,000 runs) / time(1,000 runs) (goal ≤ 4) and the time of
 * 2 × 10,000 runs with 10,000 resamples (goal < 2 s on a quiet machine), with the
 * load average before and after: on a shared machine wall times are inflated by
 * the other load; the child's CPU time (user + sys, from the shell's `times`) is
 * recorded beside them.
 */
import { utcStamp } from "../util/stamp.js";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { bootstrapThreads } from "../stats/bootstrap.js";
import {
  bootstrapCis,
  brownForsythe,
  compareSamples,
  createRng,
  fTestVariances,
  leaveOneOut,
  mannWhitneyU,
  minimumDetectableEffectPct,
  runsNeeded,
  summary,
  welchTTest,
} from "../stats/index.js";
import { release } from "node:os";
import { hostInfo, kitInfo, loadAverage } from "../record/provenance.js";
import { RECORD_FORMAT, unknown, writeRecord, type RecordEnvelope } from "../record/format.js";
import { repoRoot } from "../util/paths.js";
import { writeFileAtomic } from "../util/fs.js";
import { UserError } from "../util/errors.js";

/** Two seeded samples of n runs: A around 70,000 tps (SD ≈ 300), B 0.14% higher with SD ≈ 250 (Irwin–Hall sums). */
export function syntheticSides(n: number, seed = 7): { a: number[]; b: number[] } {
  const rng = createRng(seed);
  const g = (): number => {
    let s = 0;
    for (let i = 0; i < 12; i++) s += rng.next();
    return s - 6;
  };
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  const a = Array.from({ length: n }, () => round(70000 + 300 * g()));
  const b = Array.from({ length: n }, () => round(70100 + 250 * g()));
  return { a, b };
}

/** One end-to-end measurement of the CLI. */
export interface CliTiming {
  wallS: number;
  /** user + sys CPU seconds of the child (and its children), from `times`. */
  cpuS: number | null;
}

/** Parses the children line of POSIX `times` ("0m1.234s 0m0.050s", the second line). */
export function parseTimes(out: string): number | null {
  const lines = out.trim().split("\n");
  const m = /^(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s$/.exec((lines[lines.length - 1] ?? "").trim());
  if (!m) return null;
  return Math.round((Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000) / 1000;
}

function timeCli(fileA: string, fileB: string, resamples: number): CliTiming {
  const bin = join(repoRoot(), "bin", "slicelab.js");
  const q = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
  const cmd = `${q(process.execPath)} ${q(bin)} compare ${q(fileA)} ${q(fileB)} --resamples ${resamples} --json >/dev/null || exit 3; times`;
  const t0 = process.hrtime.bigint();
  const r = spawnSync("/bin/sh", ["-c", cmd], { encoding: "utf8" });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new UserError(`slicelab compare failed (exit ${r.status}): ${r.stderr.trim()}`);
  return { wallS, cpuS: parseTimes(r.stdout) };
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((p, q) => p - q);
  const h = s.length >> 1;
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

/** The in-process time of each part of compareSamples at one size. */
export function partTimes(a: number[], b: number[], resamples: number): Record<string, number> {
  const out: Record<string, number> = {};
  const time = (name: string, f: () => unknown): void => {
    const t0 = process.hrtime.bigint();
    f();
    out[name] = Math.round(Number(process.hrtime.bigint() - t0) / 1e3) / 1e6;
  };
  time("summaries", () => [summary(a), summary(b)]);
  time("welch", () => welchTTest(a, b));
  time("mannWhitney", () => mannWhitneyU(a, b));
  time("fTest", () => fTestVariances(a, b));
  time("brownForsythe", () => brownForsythe(a, b));
  time("bootstrap", () => bootstrapCis(a, b, { resamples }));
  time("leaveOneOut", () => leaveOneOut(a, b));
  const sa = summary(a);
  const sb = summary(b);
  time("power", () => {
    minimumDetectableEffectPct(sa.sd, sb.sd, sa.n, sb.n, sa.mean);
    for (const e of [0.5, 1, 2]) runsNeeded(sa.sd, sb.sd, sa.mean, e);
  });
  time("compareSamples", () => compareSamples(a, b, { resamples }));
  return out;
}

export interface ScalingRow {
  runsPerSide: number;
  resamples: number;
  wallS: number[];
  cpuS: (number | null)[];
  medianWallS: number;
  medianCpuS: number | null;
  /** Threads the bootstrap drew its resamples in at this size (absent before 2026-12-02). */
  bootstrapThreads?: number;
}

export interface ScalingResult {
  kind: "compare-scaling";
  command: string;
  sizes: number[];
  resamples: number;
  repeats: number;
  rows: ScalingRow[];
  /** median wall time at 10,000 runs / at 1,000 runs (null when a size is missing). */
  ratio10kOver1kWall: number | null;
  ratio10kOver1kCpu: number | null;
  /** median wall time of 2 × 10,000 runs at `resamples` resamples. */
  time10kS: number | null;
  goals: { ratioMax: number; time10kMaxS: number; note: string };
  /** In-process seconds per part of compareSamples at the largest size. */
  parts: { runsPerSide: number; seconds: Record<string, number> };
  loadAverageBefore: [number, number, number];
  loadAverageAfter: [number, number, number];
  host: ReturnType<typeof hostInfo>;
  kit: ReturnType<typeof kitInfo>;
  startedAt: string;
  /** When the measurements ended (absent in records made before 2026-12-02). */
  endedAt?: string;
  /** The benchmark's own command line (absent in records made before 2026-12-02). */
  argv?: string[];
  /** The host kernel's release (absent in records made before 2026-12-02). */
  kernelRelease?: string;
}

/** Runs the benchmark: `repeats` CLI runs per size, the parts at the largest size. */
export function runCompareScaling(opts: { sizes: number[]; resamples: number; repeats: number }): ScalingResult {
  const startedAt = new Date().toISOString();
  const before = loadAverage();
  const dir = mkdtempSync(join(tmpdir(), "slicelab-compare-scaling-"));
  const rows: ScalingRow[] = [];
  try {
    for (const n of opts.sizes) {
      const { a, b } = syntheticSides(n);
      const fa = join(dir, `a-${n}.csv`);
      const fb = join(dir, `b-${n}.csv`);
      writeFileSync(fa, `tps\n${a.join("\n")}\n`);
      writeFileSync(fb, `tps\n${b.join("\n")}\n`);
      const ts: CliTiming[] = [];
      for (let r = 0; r < opts.repeats; r++) ts.push(timeCli(fa, fb, opts.resamples));
      const cpu = ts.map((t) => t.cpuS);
      rows.push({
        runsPerSide: n,
        resamples: opts.resamples,
        wallS: ts.map((t) => Math.round(t.wallS * 1000) / 1000),
        cpuS: cpu,
        medianWallS: Math.round(medianOf(ts.map((t) => t.wallS)) * 1000) / 1000,
        medianCpuS: cpu.every((c) => c !== null) ? Math.round(medianOf(cpu as number[]) * 1000) / 1000 : null,
        bootstrapThreads: bootstrapThreads(undefined, opts.resamples * 2 * n),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const largest = Math.max(...opts.sizes);
  const { a, b } = syntheticSides(largest);
  const parts = { runsPerSide: largest, seconds: partTimes(a, b, opts.resamples) };
  const at = (n: number): ScalingRow | undefined => rows.find((r) => r.runsPerSide === n);
  const r1 = at(1000);
  const r10 = at(10000);
  const ratio = (x: number | null | undefined, y: number | null | undefined): number | null =>
    x == null || y == null || y === 0 ? null : Math.round((x / y) * 1000) / 1000;
  return {
    kind: "compare-scaling",
    command: `slicelab compare A.csv B.csv --resamples ${opts.resamples} --json (fresh node process per measurement)`,
    sizes: opts.sizes,
    resamples: opts.resamples,
    repeats: opts.repeats,
    rows,
    ratio10kOver1kWall: ratio(r10?.medianWallS, r1?.medianWallS),
    ratio10kOver1kCpu: ratio(r10?.medianCpuS, r1?.medianCpuS),
    time10kS: r10?.medianWallS ?? null,
    goals: {
      ratioMax: 4,
      time10kMaxS: 2,
      note: "goals of issue 16, for a quiet machine; compare the load averages",
    },
    parts,
    loadAverageBefore: before,
    loadAverageAfter: loadAverage(),
    host: hostInfo(),
    kit: kitInfo(),
    startedAt,
    endedAt: new Date().toISOString(),
    kernelRelease: release(),
  };
}

/** 1-minute load per CPU above which the machine is not called quiet (the goals are for a quiet one). */
export const QUIET_LOAD_PER_CPU = 0.25;

/**
 * The verdict on the two goals of issue 16, from the record alone: each goal "met" or "not met" with
 * its measured figure, and whether the machine was quiet (1-minute load before and after at most
 * QUIET_LOAD_PER_CPU per CPU). A goal met on a loaded machine is met (load only slows); a goal not met
 * on a loaded machine is not settled for a quiet one, and the reason says so.
 */
export function scalingVerdict(r: ScalingResult): { verdict: string; reason: string; ratioMet: boolean | null; timeMet: boolean | null; quiet: boolean } {
  const ratioMet = r.ratio10kOver1kWall === null ? null : r.ratio10kOver1kWall <= r.goals.ratioMax;
  const timeMet = r.time10kS === null ? null : r.time10kS < r.goals.time10kMaxS;
  const worstLoad = Math.max(r.loadAverageBefore[0], r.loadAverageAfter[0]);
  const quiet = worstLoad <= QUIET_LOAD_PER_CPU * r.host.cpus;
  const word = (m: boolean | null) => (m === null ? "not measured" : m ? "met" : "not met");
  const verdict = ratioMet === true && timeMet === true ? "both goals met" : ratioMet === null || timeMet === null ? "not measured" : ratioMet || timeMet ? "one goal met" : "neither goal met";
  const machine = quiet
    ? `a quiet machine (1-minute load ${r.loadAverageBefore[0]} before, ${r.loadAverageAfter[0]} after, ${r.host.cpus} CPUs)`
    : `a loaded machine (1-minute load ${r.loadAverageBefore[0]} before, ${r.loadAverageAfter[0]} after, ${r.host.cpus} CPUs)${ratioMet === false || timeMet === false ? ": a goal not met here is not settled for a quiet machine" : ": load only slows the runs, so a goal met here holds on a quiet one"}`;
  const reason = `wall-time ratio 10,000/1,000 runs ${r.ratio10kOver1kWall ?? "n/a"} (goal ≤ ${r.goals.ratioMax}: ${word(ratioMet)}); 2 × 10,000 runs with ${r.resamples} resamples ${r.time10kS ?? "n/a"} s (goal < ${r.goals.time10kMaxS} s: ${word(timeMet)}); on ${machine}; CPU: ${r.host.cpuModel ?? "unknown"}`;
  return { verdict, reason, ratioMet, timeMet, quiet };
}

/** The record envelope (record.json) of a compare-scaling result in `dir`. */
export function scalingEnvelope(r: ScalingResult, files: string[]): RecordEnvelope {
  const v = scalingVerdict(r);
  const old = "not recorded by compare-scaling before 2026-12-02";
  return {
    format: RECORD_FORMAT,
    study: "compare-scaling",
    title: `slicelab compare: time against runs per side (${r.sizes.join(", ")}) with ${r.resamples} resamples, median of ${r.repeats}`,
    environment: { kind: "host", detail: `on the host ${r.host.hostname} (${r.host.cpus} CPUs, ${r.host.cpuModel ?? "CPU model unknown"})` },
    design: { sizes: r.sizes, resamples: r.resamples, repeats: r.repeats, samples: "syntheticSides(n, seed 7): A ≈ 70,000 tps (SD ≈ 300), B 0.14% higher (SD ≈ 250)", measured: r.command },
    command: r.argv ?? unknown(old),
    kit: { commit: r.kit.commit ?? unknown("git rev-parse failed"), dirty: r.kit.dirty ?? unknown("git status failed") },
    host: {
      hostname: r.host.hostname,
      cpuModel: r.host.cpuModel ?? unknown("/proc/cpuinfo has no model name"),
      cpus: r.host.cpus,
      memoryBytes: r.host.memoryBytes,
    },
    kernel: {
      release: r.kernelRelease ?? unknown(old),
      configSha256: unknown("not relevant to a user-space statistics benchmark; not recorded"),
      preemptMode: unknown("not relevant to a user-space statistics benchmark; not recorded"),
      sliceExtension: unknown("not relevant to a user-space statistics benchmark; not recorded"),
    },
    glibc: unknown("not recorded (Node.js only)"),
    postgres: { version: unknown("no PostgreSQL in this benchmark"), build: unknown("no PostgreSQL in this benchmark"), patch: unknown("no PostgreSQL in this benchmark") },
    started: r.startedAt,
    ended: r.endedAt ?? unknown(old),
    concurrent: `1-minute load average ${r.loadAverageBefore[0]} before and ${r.loadAverageAfter[0]} after (5-minute ${r.loadAverageBefore[1]} → ${r.loadAverageAfter[1]}) on ${r.host.cpus} CPUs; ${v.quiet ? "a quiet machine" : "other work was running"}`,
    files,
    derivedFrom: [],
    analysis: { verdict: v.verdict, reason: v.reason, file: "result.json" },
    notes: [`written by compare-scaling (src/bench/compare-scaling.ts) from result.json; \`node dist/src/bench/compare-scaling.js --envelope DIR\` writes it again`],
  };
}

/** Writes DIR/record.json from DIR/result.json (also for records made before the envelope existed). */
export function writeScalingEnvelope(dir: string): RecordEnvelope {
  const file = join(dir, "result.json");
  let r: ScalingResult;
  try {
    r = JSON.parse(readFileSync(file, "utf8")) as ScalingResult;
  } catch (err) {
    throw new UserError(`${file}: expected a compare-scaling result (JSON), found ${err instanceof Error ? err.message : String(err)}`);
  }
  if (r.kind !== "compare-scaling") throw new UserError(`${file}: expected "kind": "compare-scaling", found ${JSON.stringify(r.kind)}`);
  const env = scalingEnvelope(r, ["result.json"]);
  writeRecord(dir, env);
  return env;
}

/** The human-readable lines. */
export function formatScaling(r: ScalingResult): string {
  const lines = r.rows.map(
    (row) =>
      `2 × ${row.runsPerSide} runs, ${row.resamples} resamples: median ${row.medianWallS.toFixed(3)} s wall, ${row.medianCpuS === null ? "?" : row.medianCpuS.toFixed(3)} s CPU (${row.wallS.map((w) => w.toFixed(3)).join(", ")})${row.bootstrapThreads === undefined ? "" : `, bootstrap in ${row.bootstrapThreads} thread${row.bootstrapThreads === 1 ? "" : "s"}`}`,
  );
  lines.push(
    `ratio 10,000 / 1,000 runs: ${r.ratio10kOver1kWall ?? "n/a"} wall, ${r.ratio10kOver1kCpu ?? "n/a"} CPU (goal ≤ ${r.goals.ratioMax})`,
    `2 × 10,000 runs with ${r.resamples} resamples: ${r.time10kS ?? "n/a"} s wall (goal < ${r.goals.time10kMaxS} s on a quiet machine)`,
    `parts at ${r.parts.runsPerSide} runs per side (s): ${Object.entries(r.parts.seconds)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
    `load average before ${r.loadAverageBefore.join(" ")}, after ${r.loadAverageAfter.join(" ")} (${r.host.cpus} CPUs)`,
  );
  return lines.join("\n");
}

function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new UserError(`--${name} expects a positive integer, got "${text}"`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "1000,3000,10000" },
      resamples: { type: "string", default: "10000" },
      repeats: { type: "string", default: "3" },
      record: { type: "string" },
      envelope: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (values.envelope !== undefined) {
    const env = writeScalingEnvelope(values.envelope);
    process.stdout.write(`compare-scaling: wrote ${join(values.envelope, "record.json")}: ${env.analysis && "verdict" in env.analysis ? `${env.analysis.verdict}: ${env.analysis.reason}` : ""}\n`);
    return;
  }
  const sizes = values.sizes!.split(",").map((s) => positiveInt("sizes", s.trim()));
  if (sizes.some((n) => n < 2)) throw new UserError("--sizes: every size must be at least 2");
  const r: ScalingResult = {
    ...runCompareScaling({
      sizes,
      resamples: positiveInt("resamples", values.resamples!),
      repeats: positiveInt("repeats", values.repeats!),
    }),
    // The environment that changes what runs is part of the command line.
    argv: [...(process.env.SLICELAB_BOOTSTRAP_THREADS ? [`SLICELAB_BOOTSTRAP_THREADS=${process.env.SLICELAB_BOOTSTRAP_THREADS}`] : []), "node", "dist/src/bench/compare-scaling.js", ...process.argv.slice(2)],
  };
  const text = `${JSON.stringify(r, null, 2)}\n`;
  if (values.record !== undefined) {
    const stamp = utcStamp(new Date(r.startedAt));
    const dir = join(values.record, stamp);
    mkdirSync(dir, { recursive: true });
    writeFileAtomic(join(dir, "result.json"), text);
    writeScalingEnvelope(dir);
    process.stderr.write(`compare-scaling: wrote ${join(dir, "result.json")} and record.json\n`);
  }
  process.stdout.write(values.json ? text : `${formatScaling(r)}\n${scalingVerdict(r).verdict}: ${scalingVerdict(r).reason}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
