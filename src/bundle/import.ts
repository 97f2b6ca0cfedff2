/**
 * `slicelab import FILE|DIR`: a bundle's results (the directory run.sh wrote, or a tarball of it)
 * into a record, data/runs/<study>/<stamp>/. It checks first and writes nothing when anything is off:
 * a tarball that does not list or extract completely (truncated), SHA256SUMS against every file, the
 * results format (a newer one is refused by name), the study and the bundle's plan. Each run is reduced
 * by `rowFromRunDir`, the function the VM runner uses; a run without a row keeps its reason. The record
 * is assembled in a temporary sibling and renamed into place, so an interrupted import leaves nothing.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkSums, utcStamp, writeRecord, writeSums, type RecordEnvelope } from "../record/format.js";
import { kitInfo } from "../bench/provenance.js";
import { rowFromRunDir, type MechanismRow, type PlannedRun } from "../drivers/mechanism/index.js";
import { rowsCsv, writeAnalysis } from "../study/drivers/mechanism-files.js";
import { studyNames } from "../study/study.js";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { RESULTS_FORMATS_READ, type BundleManifest, type BundleResults, type PgBundleManifest, type PlanFile } from "./format.js";
import { importPgResults } from "./import-pg.js";
import type { StudyReportRenderer } from "../study/analyze.js";
import type { PgPlanFile } from "./postgres.js";
import { readMachine, type MachineFacts } from "./machine.js";
import { vmImport } from "./vm.js";
import type { Accel } from "../vm/qemu.js";

export interface ImportOptions {
  /** The records' root (default data/runs of the clone). */
  runsRoot: string;
  /** Refuse results of any other study. */
  study?: string;
  /** Renders a series study's report.html (src/report/study.ts's studyReport; passed in by the caller, as
   * the study runner's is: the report layer sits above this one). Needed for PostgreSQL bundles. */
  render?: StudyReportRenderer;
}

export interface ImportResult {
  dir: string;
  study: string;
  rows: number;
  failed: { run: string; reason: string }[];
  machine: MachineFacts;
  answer: string | null;
  /** The kvm and tcg paths: the guest's accelerator and kernel (the machine above is the host). */
  vm?: { accel: Accel; kernelRelease: string; timing: "real" | "emulated" };
}

function readJsonFile<T>(p: string, what: string): T {
  if (!existsSync(p)) throw new UserError(`${p}: missing (${what})`);
  try {
    return JSON.parse(readFileSync(p, "utf8")) as T;
  } catch (e) {
    throw new UserError(`${p}:1: expected ${what} as JSON, found text that does not parse (${(e as Error).message})`);
  }
}

/** Extracts a tarball into a fresh temporary directory; a truncated or corrupt one is refused by tar's own words. */
function extract(file: string): { dir: string; cleanup: () => void } {
  const tmp = mkdtempSync(join(tmpdir(), "slicelab-import-"));
  const cleanup = () => rmSync(tmp, { recursive: true, force: true });
  try {
    execFileSync("tar", ["-xzf", file, "-C", tmp], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    cleanup();
    const msg = ((e as { stderr?: Buffer }).stderr?.toString() ?? String(e)).trim().split("\n").slice(-2).join("; ");
    throw new UserError(`${file}: not a complete gzip'd tarball of results (tar: ${msg}); copy it again`);
  }
  const find = (d: string, depth: number): string | null => {
    if (existsSync(join(d, "RESULTS.json"))) return d;
    if (depth === 0) return null;
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        const f = find(p, depth - 1);
        if (f) return f;
      }
    }
    return null;
  };
  const dir = find(tmp, 2);
  if (!dir) {
    cleanup();
    throw new UserError(`${file}: no RESULTS.json inside (expected the directory run.sh writes, tarred)`);
  }
  return { dir, cleanup };
}

/** Checks a results directory; returns what it says. Throws a UserError naming the file and what is wrong. */
export function checkResults(dir: string, o: Pick<ImportOptions, "study"> = {}): { results: BundleResults; manifest: BundleManifest; plan: PlanFile } {
  const rp = join(dir, "RESULTS.json");
  if (!existsSync(rp)) throw new UserError(`${dir}: no RESULTS.json (expected a results directory written by a bundle's run.sh)`);
  const results = readJsonFile<BundleResults>(rp, "the results' summary");
  if (typeof results.format !== "string" || !/^slicelab-results\/\d+$/.test(results.format)) {
    throw new UserError(`${rp}:1: expected "format": "slicelab-results/N", found ${JSON.stringify(results.format)}`);
  }
  if (!RESULTS_FORMATS_READ.includes(results.format)) {
    const n = Number(results.format.split("/")[1]);
    const newest = Math.max(...RESULTS_FORMATS_READ.map((f) => Number(f.split("/")[1])));
    throw new UserError(`${rp}:1: results format ${results.format} was written by a ${n > newest ? "newer" : "different"} bundle; this kit reads ${RESULTS_FORMATS_READ.join(", ")}${n > newest ? " (update the kit: git pull)" : ""}`);
  }
  const problems = checkSums(dir);
  if (problems.length) throw new UserError(`${dir}: the files do not match SHA256SUMS (${problems.length} problem${problems.length > 1 ? "s" : ""}): ${problems.slice(0, 3).join("; ")}`);
  if (o.study !== undefined && results.study !== o.study) throw new UserError(`${rp}: results of study ${results.study}, expected ${o.study}`);
  if (!studyNames().includes(results.study)) throw new UserError(`${rp}: study ${JSON.stringify(results.study)} is not a study of this kit (studies/): expected one of ${studyNames().join(", ")}`);
  const manifest = readJsonFile<BundleManifest>(join(dir, "MANIFEST.json"), "the bundle's manifest");
  if (manifest.id !== results.bundle) throw new UserError(`${join(dir, "MANIFEST.json")}: bundle ${manifest.id}, but RESULTS.json names bundle ${results.bundle}`);
  if (manifest.study !== results.study) throw new UserError(`${join(dir, "MANIFEST.json")}: study ${manifest.study}, but RESULTS.json says ${results.study}`);
  const plan = readJsonFile<PlanFile>(join(dir, "plan.json"), "the plan run.sh ran");
  if (plan.name !== results.plan) throw new UserError(`${join(dir, "plan.json")}: plan ${plan.name}, but RESULTS.json says ${results.plan}`);
  if (!Array.isArray(plan.runs) || plan.runs.length !== results.plannedRuns) throw new UserError(`${join(dir, "plan.json")}: ${Array.isArray(plan.runs) ? plan.runs.length : "no"} planned runs, RESULTS.json says ${results.plannedRuns}`);
  return { results, manifest, plan };
}

/** A row of a run made without tracing: the holder-trace classes are not known, and say so (null), never 0. */
export type ImportedRow = MechanismRow | (Omit<MechanismRow, "deschedHolds" | "kernelFault" | "kernelOther" | "returnFault" | "returnInterrupt" | "returnSyscall" | "voluntary" | "unclassified"> & Record<"deschedHolds" | "kernelFault" | "kernelOther" | "returnFault" | "returnInterrupt" | "returnSyscall" | "voluntary" | "unclassified", null>);

export function reduceRuns(dir: string, plan: PlanFile, ctx: { kernelRelease: string; traced: boolean; accel?: Accel | "host" }): { rows: (ImportedRow & { traced: boolean })[]; failed: { run: string; reason: string }[] } {
  const rows: (ImportedRow & { traced: boolean })[] = [];
  const failed: { run: string; reason: string }[] = [];
  const notRun = new Set((existsSync(join(dir, "not-run")) ? readFileSync(join(dir, "not-run"), "utf8") : "").split("\n").filter((x) => x));
  for (const r of plan.runs as PlannedRun[]) {
    const d = join(dir, "runs", r.id);
    if (notRun.has(r.id)) {
      failed.push({ run: r.id, reason: "not started: the budget ended before its block" });
      continue;
    }
    if (!existsSync(join(d, "status"))) {
      failed.push({ run: r.id, reason: existsSync(d) ? "interrupted (no status)" : "not reached" });
      continue;
    }
    const status = readFileSync(join(d, "status"), "utf8").trim();
    if (status === "refused") {
      failed.push({ run: r.id, reason: `the kernel refused preemption mode ${r.mode} (debugfs sched/preempt)` });
      continue;
    }
    try {
      const { row } = rowFromRunDir(d, r, { kernelRelease: ctx.kernelRelease, accel: ctx.accel ?? "host", durationS: plan.shape.durationS });
      if (ctx.traced) rows.push({ ...row, traced: true });
      else rows.push({ ...row, deschedHolds: null, kernelFault: null, kernelOther: null, returnFault: null, returnInterrupt: null, returnSyscall: null, voluntary: null, unclassified: null, traced: false });
    } catch (e) {
      failed.push({ run: r.id, reason: (e as Error).message.replace(`${dir}/`, "") });
    }
  }
  return { rows, failed };
}

/** The envelope of an imported record: where it ran (from the machine files), the plan, the rows. */
export function importEnvelope(o: { results: BundleResults; manifest: BundleManifest; plan: PlanFile; machine: MachineFacts; rows: ImportedRow[]; failed: { run: string }[]; files: string[]; loads: number[] }): RecordEnvelope {
  const m = o.machine;
  const modes = [...new Set(o.rows.map((r) => r.modeActive))];
  const p = o.manifest.plans.find((x) => x.name === o.results.plan);
  const notes = [
    "real time: the micro-benchmark ran on the machine's own CPUs (no emulator); its times are measurements of that machine",
    `the micro-benchmark was pinned to ${o.manifest.shape.pinCpus ?? "all"} CPU${o.manifest.shape.pinCpus === 1 ? "" : "s"} (${o.manifest.shape.threads} workers + ${o.manifest.shape.hogs} hogs), as the kit's 1-vCPU guest runs it`,
    `steal time over the runs: ${m.stealPct === null ? "not recorded" : `${m.stealPct.toFixed(2)} % of CPU time`} (/proc/stat before and after)`,
    ...(o.results.traced ? [] : ["run without tracefs (--no-trace): hold times, faults and switch counts only; the deschedulings are not classified (null in rows.json)"]),
    ...(o.failed.length ? [`${o.failed.length} of ${o.results.plannedRuns} planned runs produced no row (provenance.json's failed: each with its reason)`] : []),
  ];
  return {
    format: "slicelab-record/1",
    study: o.results.study,
    title: `${o.manifest.title}: ${m.setting.label}, Linux ${m.kernelRelease}, ${o.rows.length} of ${o.results.plannedRuns} planned runs (bundle, ${o.results.path} path)`,
    environment: { kind: "host", detail: `${m.setting.label} (${m.setting.reason}); the bundle's ${o.results.path} path, plan ${o.results.plan}`, setting: m.setting.kind, timing: "real" },
    design: { kind: "blocks", factors: { mode: p?.modes ?? [], pages: p?.pages ?? [], extension: p?.extensions ?? [] }, blocks: p?.blocks ?? 0, seed: o.manifest.seed, plannedRuns: o.results.plannedRuns, runsWithARow: o.rows.length, failedRuns: o.failed.length, shape: o.manifest.shape, source: "plan.json, MANIFEST.json" },
    command: ["sh", "run.sh", "--budget", String(o.results.budgetS)],
    kit: { commit: o.manifest.made.kitCommit, dirty: o.manifest.made.dirty ?? { unknown: "the bundle's maker did not know" } },
    host: { hostname: m.hostname ?? { unknown: "uname -n not recorded" }, cpuModel: m.cpuModel ?? { unknown: "no model name in /proc/cpuinfo" }, cpus: m.cpus ?? { unknown: "not recorded" }, memoryBytes: m.memoryBytes ?? { unknown: "not recorded" } },
    kernel: {
      release: m.kernelRelease,
      configSha256: m.configSha256 ?? { unknown: "neither /proc/config.gz nor /boot/config-RELEASE was readable" },
      preemptMode: modes.length ? `${modes.join(", ")} (${m.modesAccepted.length ? `debugfs sched/preempt accepted ${m.modesAccepted.join(", ")}` : "the current mode: debugfs sched/preempt not switchable"})` : { unknown: "no run produced a row" },
      sliceExtension: m.sliceExtension,
    },
    glibc: { unknown: "the bundle's programs are static; the machine's C library is not used" },
    postgres: { version: { unknown: "no PostgreSQL: the micro-benchmark" }, build: { unknown: "no PostgreSQL: the micro-benchmark" }, patch: { unknown: "no PostgreSQL: the micro-benchmark" } },
    started: o.results.started,
    ended: o.results.ended,
    concurrent: o.loads.length ? `1-minute load average ${Math.min(...o.loads).toFixed(2)}–${Math.max(...o.loads).toFixed(2)} after the runs (runs/*/loadavg, ${o.loads.length} runs; the micro-benchmark itself keeps 4 threads runnable); steal time in the notes` : { unknown: "no run recorded /proc/loadavg; steal time is in the notes" },
    files: o.files,
    derivedFrom: [],
    analysis: { unknown: "imported: predictions.json and answer.txt say what the traced runs show" },
    notes,
  };
}

/** Imports FILE (a tarball) or DIR; returns the record written. Nothing is written when a check fails. */
export function importResults(input: string, o: ImportOptions): ImportResult {
  const src = resolve(input);
  if (!existsSync(src)) throw new UserError(`${input}: no such file or directory`);
  const ex = statSync(src).isDirectory() ? { dir: src, cleanup: () => {} } : extract(src);
  try {
    const { results, manifest, plan } = checkResults(ex.dir, o);
    // A PostgreSQL bundle's results: the runner's series reduction (src/bundle/import-pg.ts).
    if ((manifest as unknown as PgBundleManifest).kind === "postgres") return importPgResults(ex.dir, { results, manifest: manifest as unknown as PgBundleManifest, plan: plan as unknown as PgPlanFile }, o);
    const machine = readMachine(join(ex.dir, "machine"));
    // The kvm and tcg paths: the runs were in the bundle's kernel in a guest (src/bundle/vm.ts says how, and where).
    const vmx = results.vm ? vmImport(ex.dir, results.vm, machine.setting) : null;
    const { rows, failed } = reduceRuns(ex.dir, plan, { kernelRelease: vmx?.kernelRelease ?? machine.kernelRelease, traced: results.traced, accel: vmx?.accel });
    if (rows.length === 0) throw new UserError(`${ex.dir}: no run produced a row (${failed.slice(0, 3).map((f) => `${f.run}: ${f.reason}`).join("; ")}${failed.length > 3 ? "; …" : ""}): nothing to import`);
    const stamp = utcStamp(new Date(results.started));
    const parent = join(o.runsRoot, results.study);
    const dir = join(parent, stamp);
    if (existsSync(dir)) throw new UserError(`${dir}: already exists (these results were imported before, or another record has the same start time)`);
    mkdirSync(parent, { recursive: true });
    let answer: string | null = null;
    const tmp = mkdtempSync(join(parent, `.import-${stamp}-`));
    try {
      cpSync(ex.dir, join(tmp, "raw"), { recursive: true });
      writeFileAtomic(join(tmp, "rows.json"), `${JSON.stringify(rows, null, 2)}\n`);
      writeFileAtomic(join(tmp, "rows.csv"), rowsCsv(rows as MechanismRow[]));
      const traced = rows.filter((r): r is MechanismRow & { traced: boolean } => r.traced);
      answer = traced.length ? writeAnalysis(tmp, traced, { where: vmx?.where ?? `In real time on ${machine.setting.label} (${machine.cpuModel ?? "CPU model not recorded"}; the micro-benchmark pinned to ${plan.shape.pinCpus ?? "all"} CPU${plan.shape.pinCpus === 1 ? "" : "s"}, HZ ${machine.hz ?? "unknown"}, steal ${machine.stealPct === null ? "not recorded" : `${machine.stealPct.toFixed(1)} %`})` }).answer : null;
      writeFileAtomic(join(tmp, "provenance.json"), `${JSON.stringify({ what: "a bundle's results (slicelab bundle + run.sh), imported", results, bundle: { id: manifest.id, made: manifest.made, micro: manifest.micro, probe: manifest.probe }, machine, plan: plan.runs, shape: plan.shape, failed, importedBy: kitInfo(), importedAt: new Date().toISOString() }, null, 2)}\n`);
      const files = readdirSync(tmp).filter((n) => n !== "record.json" && n !== "SHA256SUMS").sort();
      const loads = plan.runs.map((r) => join(ex.dir, "runs", r.id, "loadavg")).filter((p) => existsSync(p)).map((p) => Number(readFileSync(p, "utf8").split(" ")[0])).filter((x) => Number.isFinite(x));
      const envelope = importEnvelope({ results, manifest, plan, machine, rows, failed, files, loads });
      if (vmx) {
        envelope.environment = vmx.environment;
        envelope.title = envelope.title.replace(`Linux ${machine.kernelRelease}`, `the bundle's Linux ${vmx.kernelRelease} in ${vmx.accel === "kvm" ? "a KVM" : "a TCG"} guest`);
        const modes = [...new Set(rows.map((r) => r.modeActive))];
        envelope.kernel = { ...envelope.kernel, release: vmx.kernelRelease, preemptMode: modes.length ? `${modes.join(", ")} (a factor: written to the guest's debugfs sched/preempt before each run; rows.json modeActive)` : { unknown: "no run produced a row" }, configSha256: vmx.kernel.configSha256 ?? { unknown: "the guest wrote no config-sha256" }, sliceExtension: vmx.kernel.sliceExtension };
        envelope.notes = [...vmx.notes, ...envelope.notes.filter((n) => !n.startsWith("real time:"))];
      }
      writeRecord(tmp, envelope);
      writeSums(tmp);
      renameSync(tmp, dir);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
    return { dir, study: results.study, rows: rows.length, failed, machine, answer, ...(vmx ? { vm: { accel: vmx.accel, kernelRelease: vmx.kernelRelease, timing: vmx.timing } } : {}) };
  } finally {
    ex.cleanup();
  }
}

