/**
 * Grant durations of the rseq time-slice extension, traced inside the VM two
 * ways on the same run: our tracepoints (kernel-patches/linux/series/slicelab)
 * and the hrtimer events of the enforcement timer (the indirect method that
 * works on an unpatched kernel). One boot runs the micro-benchmark with the
 * extension on, oversubscribed, while tracefs records
 *
 *   rseq:rseq_slice_{grant,expire,end,revoke}
 *   timer:hrtimer_start, hrtimer_expire_entry   (filter function.function == rseq_slice_expired)
 *   timer:hrtimer_cancel, hrtimer_start_expired (unfiltered: they carry only the timer pointer)
 *
 * with the mono trace clock (the clock of the kernel's slice deadlines), and
 * rseq/stats before and after. After the run `trace-cmd extract` + `report -t`
 * (nanosecond timestamps) turns the buffers into text; the tracefs text
 * (microsecond timestamps) is kept as well. The host parses and analyses it
 * (src/parse/slice-trace.ts) and writes data/runs/slice-trace/STAMP/.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { basename, join, relative } from "node:path";
import { kitInfo, hostInfo } from "../../record/provenance.js";
import { loadProtocol, resolveWorkloads } from "../../bench/protocol.js";
import { buildMicro, type MicroRun } from "../../micro/driver.js";
import { readBuildRecord, type BuildRecord } from "../../kernel/build.js";
import { sha256File } from "../../kernel/fetch.js";
import { defaultSeriesDir, readSeriesFile } from "../../kernel/patch.js";
import { kernelCacheDir, type KernelTree } from "../../kernel/tree.js";
import { diffRseqStats, parseRseqStats, type RseqStatsDiff } from "../../parse/rseq-stats.js";
import { analyseSliceTrace, parseSliceTrace, type SliceTrace, type SliceTraceAnalysis } from "../../parse/slice-trace.js";
import { ParseError, UserError } from "../../util/errors.js";
import { freshRawDir, writeFileAtomic } from "../../util/fs.js";
import { utcStamp } from "../../record/format.js";
import { repoRoot } from "../../util/paths.js";
import { runVm, type Accel, type VmResult } from "../../vm/qemu.js";

/** sha256 over the series' patch names and contents, as `slicelab kernel patch` computes it. */
export function seriesSha256(dir = defaultSeriesDir()): string {
  const h = createHash("sha256");
  for (const p of readSeriesFile(dir)) h.update(p).update(readFileSync(join(dir, p)));
  return h.digest("hex");
}

/** Build records of kernels built from a tree patched with this series (newest first). */
export function patchedKernelBuilds(seriesHash = seriesSha256(), fragmentsLabel = "slice-ext+vm"): BuildRecord[] {
  const root = join(kernelCacheDir(), "build");
  if (!existsSync(root)) return [];
  const out: BuildRecord[] = [];
  for (const src of readdirSync(root)) {
    if (!src.endsWith(`+slicelab-${seriesHash.slice(0, 12)}`)) continue;
    const rec = readBuildRecord(join(root, src, fragmentsLabel));
    if (rec) out.push(rec);
  }
  return out.sort((a, b) => statSync(b.bzImage).mtimeMs - statSync(a.bzImage).mtimeMs);
}

/** The patched tree's record (`slicelab kernel patch` writes it beside the tree). */
function patchedTreeRecord(seriesHash: string): KernelTree | null {
  const src = join(kernelCacheDir(), "src");
  if (!existsSync(src)) return null;
  const name = readdirSync(src).find((n) => n.endsWith(`+slicelab-${seriesHash.slice(0, 12)}.slicelab.json`));
  return name ? (JSON.parse(readFileSync(join(src, name), "utf8")) as KernelTree) : null;
}

export const TRACE_CLOCK = "mono";

/** The guest's shell script: set up tracefs, run the workload, collect the trace. */
export function guestTraceScript(o: { workload: string; sliceNsec?: number; bufferKb: number }): string {
  const T = "/sys/kernel/tracing";
  const D = "/sys/kernel/debug";
  return `O="$SLICELAB_VM_OUT"
T=${T}
D=${D}
note() { echo "slicelab-trace: $*"; echo "$*" >> "$O/notes.txt"; }
for e in rseq_slice_grant rseq_slice_expire rseq_slice_end rseq_slice_revoke; do
  [ -d $T/events/rseq/$e ] || { note "missing event rseq:$e (kernel without the slicelab tracepoint series)"; exit 3; }
done
[ -r $D/rseq/stats ] || { note "missing $D/rseq/stats (CONFIG_RSEQ_STATS)"; exit 3; }
echo 0 > $T/tracing_on
echo ${TRACE_CLOCK} > $T/trace_clock || note "trace_clock ${TRACE_CLOCK} refused"
echo ${o.bufferKb} > $T/buffer_size_kb || note "buffer_size_kb ${o.bufferKb} refused"
echo > $T/trace
for e in rseq_slice_grant rseq_slice_expire rseq_slice_end rseq_slice_revoke; do echo 1 > $T/events/rseq/$e/enable; done
for e in hrtimer_start hrtimer_expire_entry; do
  echo 'function.function == rseq_slice_expired' > $T/events/timer/$e/filter || note "filter on timer:$e refused (events unfiltered)"
done
for e in hrtimer_start hrtimer_cancel hrtimer_expire_entry hrtimer_start_expired; do echo 1 > $T/events/timer/$e/enable; done
${o.sliceNsec === undefined ? "" : `echo ${o.sliceNsec} > $D/rseq/slice_ext_nsec || note "slice_ext_nsec ${o.sliceNsec} refused"`}
cat $D/rseq/slice_ext_nsec > "$O/slice_ext_nsec"
cat $T/trace_clock > "$O/trace_clock"
cat $T/events/timer/hrtimer_start/filter > "$O/hrtimer_start.filter"
cat $D/rseq/stats > "$O/rseq-stats-before.txt"
echo 1 > $T/tracing_on
${o.workload}
rc=$?
echo 0 > $T/tracing_on
cat $D/rseq/stats > "$O/rseq-stats-after.txt"
for c in $T/per_cpu/cpu*; do echo "== $(basename $c)"; cat $c/stats; done > "$O/buffer-stats.txt"
cat $T/trace > "$O/trace-tracefs.txt"
if command -v trace-cmd >/dev/null 2>&1; then
  trace-cmd extract -o "$O/trace.dat" > "$O/trace-cmd.log" 2>&1 &&
  trace-cmd report -t -i "$O/trace.dat" > "$O/trace.txt" 2>> "$O/trace-cmd.log" || note "trace-cmd failed (see trace-cmd.log)"
  trace-cmd --version 2>/dev/null | grep -m1 version > "$O/trace-cmd.version"
else
  note "trace-cmd not found: only the tracefs text (microsecond timestamps)"
fi
exit $rc
`;
}

/**
 * Protocol parameters that fit a 2-vCPU TCG guest on a busy host: few clients
 * (each backend's connection setup alone takes seconds when emulated) and runs
 * long enough that transactions complete after the clients have connected —
 * the smoke protocol's 2 s runs with 8 clients processed 0 transactions there
 * (data/runs/slice-trace/20261130T045713Z). `--pg-param` overrides them.
 */
export const PG_TCG_DEFAULTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "sangappa-2024-locktable": { clients: "4", hogs: "2", threads: "2", duration: "60" },
  "rostedt-2023": { scale: "1", clients: "4", threads: "2", duration: "60" },
  smoke: { clients: "4", threads: "2", duration: "30", time: "30" },
};

export const PG_DEFAULT_PROTOCOL = "sangappa-2024-locktable";

/** The harness run of a `pg` workload: protocol, its parameters (TCG defaults + overrides), runs. */
export interface PgWorkload {
  protocol: string;
  params: Record<string, string>;
  runs: number;
}

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PARAM_VALUE = /^[A-Za-z0-9_.+-]+$/;

/**
 * `--pg-param NAME=VALUE` (repeatable) into a map. Values go into the guest's
 * shell command line, so only plain tokens (numbers, sizes like 16MB, names)
 * are accepted.
 */
export function parsePgParams(list: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of list ?? []) {
    const i = kv.indexOf("=");
    const name = i > 0 ? kv.slice(0, i) : "";
    const value = i > 0 ? kv.slice(i + 1) : "";
    if (!PARAM_NAME.test(name) || !PARAM_VALUE.test(value)) {
      throw new UserError(`--pg-param: expected NAME=VALUE (letters, digits, _ . + -), found "${kv}"`);
    }
    out[name] = value;
  }
  return out;
}

/**
 * The protocol's TCG defaults under the user's overrides, checked against the
 * protocol on the host (unknown protocol or parameter: UserError before any boot).
 */
export function resolvePgWorkload(protocol: string | undefined, overrides: Record<string, string> = {}, runs = 1, guestCpus = 2): PgWorkload {
  const name = protocol ?? PG_DEFAULT_PROTOCOL;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new UserError(`--pg-protocol: expected a protocol name (slicelab bench list), found "${name}"`);
  if (!Number.isInteger(runs) || runs < 1) throw new UserError(`--pg-runs expects an integer ≥ 1, found ${runs}`);
  const params = { ...(PG_TCG_DEFAULTS[name] ?? {}), ...overrides };
  // Resolving the workloads validates every parameter name against the protocol.
  try {
    resolveWorkloads(loadProtocol(name), guestCpus, params);
  } catch (err) {
    if (err instanceof UserError && err.message.startsWith("--param ")) throw new UserError(`--pg-param ${err.message.slice("--param ".length)}`);
    throw err;
  }
  return { protocol: name, params, runs };
}

/** The command the guest runs for a `pg` workload (one variant: the patched build, slice_extension = all). */
export function pgBenchCommand(cli: string, pgBin: string, w: PgWorkload): string {
  const params = Object.entries(w.params)
    .map(([k, v]) => ` --param ${k}=${v}`)
    .join("");
  // glibc 2.36 registers a 32-byte rseq area: the patched server registers its own with glibc's switched off.
  return `node ${cli} bench run ${w.protocol} --out "$O/series" --runs ${w.runs} --warmup 0${params} --variant "on=bin=${pgBin},setting:slice_extension=all,env:GLIBC_TUNABLES=glibc.pthread.rseq=0" > "$O/bench.log" 2>&1`;
}

export interface SliceTraceOptions {
  kernel: string;
  /** The build record of that kernel (provenance), when known. */
  build?: BuildRecord;
  cpus?: number;
  memMiB?: number;
  append?: string;
  /** kvm, tcg or auto (default: auto, the cached KVM probe decides). */
  accel?: Accel | "auto";
  threads?: number;
  hogs?: number;
  csNs?: number;
  durationS?: number;
  /** Written to debugfs rseq/slice_ext_nsec before the run (kernel default 5000 ns). */
  sliceNsec?: number;
  /**
   * What runs while tracing: the micro-benchmark (default), or the harness's
   * smoke protocol on a patched PostgreSQL build with slice_extension = all.
   */
  workload?: "micro" | "pg-smoke" | "pg";
  /** bin/ of the patched PostgreSQL build (workloads pg-smoke and pg). */
  pgBin?: string;
  /** Workload pg: the harness protocol (default sangappa-2024-locktable). */
  pgProtocol?: string;
  /** Workload pg: parameter overrides on top of PG_TCG_DEFAULTS for the protocol. */
  pgParams?: Record<string, string>;
  /** Workload pg: measured runs (default 1; no warm-up run). */
  pgRuns?: number;
  /** Per-CPU ring buffer size in KiB. */
  bufferKb?: number;
  timeoutS?: number;
  /** Directory for the results (default data/runs/slice-trace/STAMP). */
  outDir?: string;
  onConsole?: (s: string) => void;
}

/** rseq/stats deltas against the event counts of the trace: each should match. */
export interface StatsCrossCheck {
  counter: string;
  stats: number;
  trace: number;
  traceIs: string;
}

export function crossCheck(a: SliceTraceAnalysis, d: RseqStatsDiff): StatsCrossCheck[] {
  const c = d.counters;
  const ev = a.events;
  return [
    { counter: "sgrant", stats: c.sgrant ?? 0, trace: a.tracepoints.grants, traceIs: "grants (rseq_slice_grant + expired/revoked before user space)" },
    { counter: "sexpir", stats: c.sexpir ?? 0, trace: ev["slice-expire"] ?? 0, traceIs: "rseq_slice_expire late=0 (timer fired, grant held)" },
    { counter: "srevok", stats: c.srevok ?? 0, trace: ev["slice-revoke"] ?? 0, traceIs: "rseq_slice_revoke" },
    { counter: "syield", stats: c.syield ?? 0, trace: ev["slice-end-yield"] ?? 0, traceIs: "rseq_slice_end yield=1" },
    { counter: "sabort", stats: c.sabort ?? 0, trace: ev["slice-end-abort"] ?? 0, traceIs: "rseq_slice_end yield=0" },
  ];
}

export interface SliceTraceRun {
  dir: string;
  vm: Pick<VmResult, "accel" | "accelReason" | "cpus" | "memMiB" | "append" | "exitStatus" | "bootToCommandS" | "totalS">;
  analysis: SliceTraceAnalysis;
  statsDelta: RseqStatsDiff | null;
  crossCheck: StatsCrossCheck[];
  micro: MicroRun | null;
}

/** The analysis without its per-grant lists (those go to grants.json / timers.json). */
export function analysisSummary(a: SliceTraceAnalysis): Omit<SliceTraceAnalysis, "grants" | "timers" | "histograms"> {
  const { grants: _g, timers: _t, histograms: _h, ...rest } = a;
  return rest;
}

export async function runSliceTraceInVm(o: SliceTraceOptions): Promise<SliceTraceRun> {
  const threads = o.threads ?? 4;
  const hogs = o.hogs ?? 4;
  const csNs = o.csNs ?? 2000;
  const durationS = o.durationS ?? 5;
  const cpus = o.cpus ?? 2;
  const kind = o.workload ?? "micro";
  const pg = kind === "pg" ? resolvePgWorkload(o.pgProtocol, o.pgParams, o.pgRuns ?? 1, cpus) : null;
  if (kind !== "pg" && threads + hogs <= cpus) throw new UserError(`--threads ${threads} + --hogs ${hogs} must exceed --cpus ${cpus}: the run must be oversubscribed for grants to matter`);
  const micro = await buildMicro();
  const dir = o.outDir ?? join(repoRoot(), "data", "runs", "slice-trace", utcStamp());
  const raw = freshRawDir(dir);
  const cli = join(repoRoot(), "bin", "slicelab.js");
  if (kind !== "micro" && (!o.pgBin || !existsSync(join(o.pgBin, "postgres")))) {
    throw new UserError(`--pg-bin ${o.pgBin ?? "(none)"}: expected the bin/ directory of a patched PostgreSQL build (slicelab postgres build --variant patched)`);
  }
  const workload =
    kind === "micro"
      ? `node ${cli} micro run --threads ${threads} --hogs ${hogs} --cs-ns ${csNs} --duration ${durationS} --extension on --json > "$O/micro.json" 2> "$O/micro.err"`
      : pg
      ? pgBenchCommand(cli, o.pgBin!, pg)
      : // glibc 2.36 registers a 32-byte rseq area: the patched server registers its own with glibc's switched off.
        `node ${cli} bench run smoke --out "$O/series" --variant "on=bin=${o.pgBin},setting:slice_extension=all,env:GLIBC_TUNABLES=glibc.pthread.rseq=0" > "$O/bench.log" 2>&1`;
  const script = guestTraceScript({ workload, sliceNsec: o.sliceNsec, bufferKb: o.bufferKb ?? 16384 });
  const vm = await runVm({
    kernel: o.kernel,
    accel: o.accel,
    cpus,
    memMiB: o.memMiB ?? 2048,
    // no_timer_check: a loaded host makes TCG too slow for the IO-APIC timer check at boot (it panics).
    append: o.append ?? "no_timer_check",
    timeoutS: o.timeoutS ?? (kind === "micro" ? Math.max(600, durationS * 20 + 300) : 3600),
    outDir: raw,
    command: ["sh", "-c", script],
    onConsole: o.onConsole,
  });
  copyFileSync(vm.consoleLog, join(raw, "console.log"));
  // Exit 3: the guest script's own checks failed (no trace). Other non-zero statuses are the
  // workload's: the trace of what did run is still analysed and recorded, with that status.
  const traced = existsSync(join(raw, "trace-tracefs.txt")) && existsSync(join(raw, "rseq-stats-after.txt"));
  if (vm.exitStatus === null || vm.exitStatus === 3 || !traced) {
    const notes = existsSync(join(raw, "notes.txt")) ? readFileSync(join(raw, "notes.txt"), "utf8").trim() : "";
    throw new UserError(`the traced run failed in the VM (exit ${vm.exitStatus ?? "none"}${vm.timedOut ? ", timed out" : ""})${notes ? `: ${notes}` : ""}; console: ${join(raw, "console.log")}`);
  }
  const { analysis, trace, statsDelta, crossCheck: checks } = analyseRunDir(dir);
  const microRun = existsSync(join(raw, "micro.json")) && readFileSync(join(raw, "micro.json"), "utf8").trim() !== "" ? (JSON.parse(readFileSync(join(raw, "micro.json"), "utf8")) as MicroRun) : null;
  // trace.dat is binary and large; the text report made from it is the raw record kept here.
  const dat = join(raw, "trace.dat");
  const datInfo = existsSync(dat) ? { bytes: statSync(dat).size, sha256: await sha256File(dat) } : null;
  const seriesDir = defaultSeriesDir();
  const sHash = seriesSha256(seriesDir);
  const tree = patchedTreeRecord(sHash);
  const readRaw = (n: string): string | null => (existsSync(join(raw, n)) ? readFileSync(join(raw, n), "utf8").trim() : null);
  const provenance = {
    kind: "rseq slice-extension grant durations: slicelab tracepoints vs enforcement-hrtimer events, one traced run inside a QEMU guest",
    environment: {
      vm: true,
      accel: vm.accel,
      accelReason: vm.accelReason,
      timingCaveat:
        vm.accel !== "kvm"
          ? "TCG: the guest CPU is emulated by QEMU; timer interrupts, syscalls and the slice timer run at emulation speed on a busy 2-core host, so durations are functional evidence (what ends grants, how the two methods relate), not the durations a real CPU would show."
          : "KVM guest on a shared 2-core host: durations include host contention.",
      cpus: vm.cpus,
      memMiB: vm.memMiB,
      append: vm.append,
      bootToCommandS: vm.bootToCommandS,
      totalS: vm.totalS,
    },
    workloadExitStatus: vm.exitStatus,
    kernel: {
      version: o.build?.version ?? tree?.version ?? null,
      bzImage: o.kernel,
      bzImageSha256: await sha256File(o.kernel),
      configSha256: o.build?.configSha256 ?? null,
      buildDir: o.build?.buildDir ?? null,
      buildSeconds: o.build?.seconds ?? null,
      buildCcacheHits: o.build?.ccacheHits ?? null,
      buildCcacheMisses: o.build?.ccacheMisses ?? null,
      patchSeries: { dir: seriesDir, patches: readSeriesFile(seriesDir), sha256: sHash, patchedTree: tree?.dir ?? null, baseTarballSha256: tree?.tarballSha256 ?? null },
      sliceExtNsec: Number(readRaw("slice_ext_nsec")),
    },
    tracing: {
      clock: /\[(\w+)\]/.exec(readRaw("trace_clock") ?? "")?.[1] ?? readRaw("trace_clock"),
      hrtimerStartFilter: readRaw("hrtimer_start.filter"),
      traceFile: basename(trace.file),
      traceCmd: readRaw("trace-cmd.version"),
      traceDat: datInfo,
      resolutionNs: trace.resolutionNs,
      lostEvents: trace.lostEvents,
      notes: readRaw("notes.txt"),
    },
    protocol:
      kind === "micro"
        ? { workload: "slicelab micro run --extension on", threads, hogs, csNs, durationS, microBinarySha256: micro.sourceSha256 }
        : pg
        ? {
            workload: `slicelab bench run ${pg.protocol}, patched PostgreSQL, slice_extension = all`,
            protocol: pg.protocol,
            params: pg.params,
            runs: pg.runs,
            warmup: 0,
            pgBin: o.pgBin,
            series: "raw/series",
            command: pgBenchCommand("bin/slicelab.js", o.pgBin!, pg),
          }
        : { workload: "slicelab bench run smoke, patched PostgreSQL, slice_extension = all", pgBin: o.pgBin, series: "raw/series" },
    host: hostInfo(),
    kit: kitInfo(),
  };
  writeFileAtomic(join(dir, "provenance.json"), `${JSON.stringify(provenance, null, 2)}\n`);
  return {
    dir,
    vm: { accel: vm.accel, accelReason: vm.accelReason, cpus: vm.cpus, memMiB: vm.memMiB, append: vm.append, exitStatus: vm.exitStatus, bootToCommandS: vm.bootToCommandS, totalS: vm.totalS },
    analysis,
    statsDelta,
    crossCheck: checks,
    micro: microRun,
  };
}

/**
 * Parses and analyses the raw files of a recorded run (raw/trace.txt from
 * trace-cmd, else raw/trace-tracefs.txt; rseq/stats before/after; the slice
 * length) and writes analysis.json, histograms.json, grants.json and
 * timers.json beside them: what a run records, and what `vm trace --reanalyse`
 * redoes from the raw files.
 */
export function analyseRunDir(dir: string): { analysis: SliceTraceAnalysis; trace: SliceTrace; statsDelta: RseqStatsDiff; crossCheck: StatsCrossCheck[] } {
  const raw = join(dir, "raw");
  if (!existsSync(raw)) throw new UserError(`${dir}: not a slice-trace run directory (no raw/)`);
  // Each text may be kept gzip'd (NAME.gz) in a committed record: the analysis is the same.
  const textAt = (n: string): string | null => (existsSync(join(raw, n)) ? join(raw, n) : existsSync(join(raw, `${n}.gz`)) ? join(raw, `${n}.gz`) : null);
  const readText = (f: string): string => (f.endsWith(".gz") ? gunzipSync(readFileSync(f)).toString("utf8") : readFileSync(f, "utf8"));
  const tracePath = textAt("trace.txt") ?? textAt("trace-tracefs.txt") ?? join(raw, "trace-tracefs.txt");
  const sliceFile = join(raw, "slice_ext_nsec");
  const sliceText = existsSync(sliceFile) ? readFileSync(sliceFile, "utf8").trim() : "";
  if (sliceText !== "" && !/^\d+$/.test(sliceText)) throw new ParseError(sliceFile, 1, "the slice length in ns", JSON.stringify(sliceText));
  const opts = sliceText === "" ? {} : { sliceNs: Number(sliceText) };
  const trace = parseSliceTrace(readText(tracePath), tracePath);
  const analysis = analyseSliceTrace(trace, opts);
  analysis.file = relative(dir, tracePath);
  // The tracefs text of the same buffers, analysed as a check of the printer (µs timestamps).
  const tracefsPath = textAt("trace-tracefs.txt");
  const tracefs = tracefsPath === null || tracePath === tracefsPath ? null : analyseSliceTrace(parseSliceTrace(readText(tracefsPath), tracefsPath), opts);
  if (tracefs) tracefs.file = relative(dir, tracefsPath!);
  const stats = (n: string) => parseRseqStats(readFileSync(join(raw, n), "utf8"), join(raw, n));
  const statsDelta = diffRseqStats(stats("rseq-stats-before.txt"), stats("rseq-stats-after.txt"));
  const checks = crossCheck(analysis, statsDelta);
  writeFileAtomic(
    join(dir, "analysis.json"),
    `${JSON.stringify({ ...analysisSummary(analysis), statsDelta: statsDelta.counters, crossCheck: checks, tracefsText: tracefs ? analysisSummary(tracefs) : null }, null, 2)}\n`,
  );
  writeFileAtomic(join(dir, "histograms.json"), `${JSON.stringify(analysis.histograms, null, 2)}\n`);
  writeFileAtomic(join(dir, "grants.json"), `${JSON.stringify(analysis.grants)}\n`);
  writeFileAtomic(join(dir, "timers.json"), `${JSON.stringify(analysis.timers)}\n`);
  return { analysis, trace, statsDelta, crossCheck: checks };
}

/** A few lines for the terminal: both methods, the matching, the disagreements. */
export function sliceTraceReport(a: SliceTraceAnalysis): string {
  const us = (n: number | null) => (n === null ? "—" : `${(n / 1000).toFixed(1)} µs`);
  const lines = [
    `tracepoints: ${a.tracepoints.grants} grants ${JSON.stringify(a.tracepoints.outcomes)}; median ${us(a.tracepoints.durationNs.median)}, p90 ${us(a.tracepoints.durationNs.p90)}`,
    `hrtimer:     ${a.hrtimer.intervals} timer intervals ${JSON.stringify(a.hrtimer.outcomes)}; median ${us(a.hrtimer.durationNs.median)}, p90 ${us(a.hrtimer.durationNs.p90)}`,
    `matched ${a.matching.matched}; grants the timer method cannot see ${a.matching.grantsWithoutTimer}; timer intervals without a grant ${a.matching.timersWithoutGrant}; lost events ${a.lostEvents}`,
    ...a.matching.disagreements.map(
      (d) => `  ${d.pair.padEnd(32)} ${String(d.n).padStart(6)}  median hrtimer−tracepoint ${us(d.medianDiffNs)}, from expires−slice ${us(d.medianDeadlineDiffNs)}  (${d.why})`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

/** Where a recorded run keeps what: used by the notebook and tests. */
export function readSliceTraceRun(dir: string): { provenance: Record<string, unknown>; analysis: Record<string, unknown>; histograms: SliceTraceAnalysis["histograms"] } {
  const read = (n: string) => JSON.parse(readFileSync(join(dir, n), "utf8"));
  if (!existsSync(join(dir, "analysis.json"))) throw new UserError(`${dir}: not a recorded slice-trace run (no analysis.json)`);
  return { provenance: read("provenance.json"), analysis: read("analysis.json"), histograms: read("histograms.json") };
}

/** The newest traced run, data/runs/slice-trace/STAMP, if any. */
export function latestSliceTraceRun(root = join(repoRoot(), "data", "runs")): string | null {
  const dir = join(root, "slice-trace");
  if (!existsSync(dir)) return null;
  const runs = readdirSync(dir).filter((n) => existsSync(join(dir, n, "analysis.json"))).sort();
  return runs.length ? join(dir, runs[runs.length - 1]!) : null;
}
