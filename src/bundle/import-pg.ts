/**
 * `slicelab import` of a PostgreSQL bundle's results (src/bundle/postgres.ts): the runs become the
 * series directory the kit's runner writes (series/series.json, series/runs/ID/result.json,
 * results.csv), reduced with the runner's own code — pgbench's parser (`parseToolOutput`), the
 * patch's settings and counters (`sliceSettingsFromText`, `sliceExtensionRecord`), the tidy table
 * (`writeTidy`) — and the study's analysis (`analyzeStudyRecord`) runs on it as on an in-kit record.
 * The envelope states the machine run.sh recorded (bare metal, VM or sandbox; real time), the path
 * (native or reference), the bundled builds with their patch version and the bundled glibc.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SERIES_FORMAT, sliceExtensionRecord, sliceSettingsFromText, writeTidy, type RunResult, type SeriesPlan, type WorkloadResult } from "../bench/series.js";
import { parseToolOutput } from "../bench/tools.js";
import { resolveWorkloads, loadProtocol, type ResolvedWorkload } from "../bench/protocol.js";
import type { PlannedRun } from "../bench/design.js";
import { kitInfo } from "../bench/provenance.js";
import { RECORD_FORMAT, readRecord, utcStamp, writeRecord, writeSums, type RecordEnvelope } from "../record/format.js";
import { analyzeStudyRecord } from "../study/analyze.js";
import { loadStudy, type Study } from "../study/study.js";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import type { BundleResults, PgBundleManifest } from "./format.js";
import type { ImportOptions, ImportResult } from "./import.js";
import { readMachine, type MachineFacts } from "./machine.js";
import type { PgBundleRun, PgPlanFile } from "./postgres.js";

const read = (p: string) => (existsSync(p) ? readFileSync(p, "utf8") : null);
const loadOf = (p: string): [number, number, number] => {
  const t = read(p);
  const x = (t ?? "").trim().split(/\s+/).slice(0, 3).map(Number);
  if (x.length !== 3 || x.some((n) => !Number.isFinite(n))) throw new UserError(`${p}:1: expected /proc/loadavg's three load averages, found ${JSON.stringify((t ?? "").slice(0, 60))}`);
  return x as [number, number, number];
};

/** The workloads run.sh ran: the bundle's resolution for the CPU count it found. */
export function bundleWorkloads(dir: string): { cpus: number; workloads: ResolvedWorkload[] } {
  const cpusText = read(join(dir, "cpus"));
  const cpus = Number(cpusText?.trim());
  if (!Number.isInteger(cpus) || cpus < 1) throw new UserError(`${join(dir, "cpus")}:1: expected the CPU count run.sh used, found ${JSON.stringify(cpusText?.trim() ?? "no file")}`);
  const f = join(dir, "workloads.json");
  const w = JSON.parse(read(f) ?? "null") as { groups?: { cpus: number[]; workloads: ResolvedWorkload[] }[] } | null;
  const g = w?.groups?.find((x) => x.cpus.includes(cpus));
  if (!g) throw new UserError(`${f}: no workloads resolved for ${cpus} CPUs`);
  return { cpus, workloads: g.workloads };
}

/** One run's result.json as the runner writes it, from run.sh's files; throws a UserError naming the file when one is off. */
export function pgRunResult(runDir: string, r: PgBundleRun, workloads: ResolvedWorkload[], session: number): RunResult {
  const results: WorkloadResult[] = [];
  for (const w of workloads) {
    const raw = join(runDir, `${w.name}.out`);
    const text = read(raw);
    if (text === null) throw new UserError(`${raw}: missing (the run has a status but no pgbench output)`);
    const parsed = parseToolOutput("pgbench", text, raw);
    const slice = (when: string) => {
      const settings = read(join(runDir, `${w.name}.slice-${when}.txt`)) ?? "";
      const stats = join(runDir, `${w.name}.slice-stats-${when}.json`);
      return sliceSettingsFromText(settings, existsSync(stats) ? () => readFileSync(stats, "utf8") : undefined);
    };
    const before = slice("before");
    const started = (read(join(runDir, `${w.name}.started`)) ?? "").trim();
    const ended = (read(join(runDir, `${w.name}.ended`)) ?? "").trim();
    const seconds = (Date.parse(ended) - Date.parse(started)) / 1000;
    if (!Number.isFinite(seconds)) throw new UserError(`${join(runDir, `${w.name}.started`)}: expected UTC times before and after pgbench, found ${JSON.stringify(started)} and ${JSON.stringify(ended)}`);
    results.push({
      workload: w.name,
      tool: "pgbench",
      command: ["pgbench", ...w.args, w.database],
      hogs: w.hogs,
      started,
      ended,
      seconds,
      loadBefore: loadOf(join(runDir, `${w.name}.load-before`)),
      loadAfter: loadOf(join(runDir, `${w.name}.load-after`)),
      tps: parsed.tps,
      metrics: parsed.metrics,
      ...(before.slice_extension !== undefined ? { sliceExtension: sliceExtensionRecord(before, slice("after")) } : {}),
      cluster: r.build,
      clusterLog: `raw/clusters/${r.build}/postgres.log`,
      raw: `${w.name}.out`,
    });
  }
  return { index: r.index, id: r.id, block: r.block, variant: r.variant, warmup: r.warmup, session, started: (read(join(runDir, "started")) ?? "").trim(), ended: (read(join(runDir, "ended")) ?? "").trim(), workloads: results };
}

/** The study as the bundle's plan crossed it: its factors at the plan's levels; without the extension, build baseline → patched is a contrast too. */
export function planStudyView(study: Study, plan: PgPlanFile): Study {
  const contrasts = [...study.analysis.contrasts];
  const build = plan.factors.find((f) => f.via === "bin");
  if (build && build.levels.includes("baseline") && build.levels.includes("patched") && !contrasts.some((c) => c.factor === build.name)) contrasts.push({ factor: build.name, a: "baseline", b: "patched" });
  return { ...study, factors: plan.factors, analysis: { ...study.analysis, contrasts } };
}

export function importPgResults(dir: string, c: { results: BundleResults; manifest: PgBundleManifest; plan: PgPlanFile }, o: ImportOptions): ImportResult {
  const { results, manifest, plan } = c;
  const machine = readMachine(join(dir, "machine"));
  const study = loadStudy(results.study);
  const { cpus, workloads } = bundleWorkloads(dir);
  const failed: { run: string; reason: string }[] = [];
  const done: { r: PgBundleRun; result: RunResult }[] = [];
  const notRun = new Set((read(join(dir, "not-run")) ?? "").split("\n").filter((x) => x));
  for (const r of plan.runs) {
    const d = join(dir, "runs", r.id);
    if (notRun.has(r.id)) failed.push({ run: r.id, reason: "not started: the budget ended before its block" });
    else if (!existsSync(join(d, "status"))) failed.push({ run: r.id, reason: existsSync(d) ? "interrupted (no status)" : "not reached" });
    else {
      const st = readFileSync(join(d, "status"), "utf8").trim();
      if (st === "refused") failed.push({ run: r.id, reason: `the kernel refused preemption mode ${r.mode} (debugfs sched/preempt)` });
      else if (st !== "0") failed.push({ run: r.id, reason: `status ${st}: ${{ "4": "the cluster did not start", "5": "the workload's setup failed", "6": "pgbench failed" }[st] ?? "failed"} (notes.txt)` });
      else done.push({ r, result: pgRunResult(d, r, workloads, results.session) });
    }
  }
  if (done.length === 0) throw new UserError(`${dir}: no run finished (${failed.slice(0, 3).map((f) => `${f.run}: ${f.reason}`).join("; ")}${failed.length > 3 ? "; …" : ""}): nothing to import`);
  const stamp = utcStamp(new Date(results.started));
  const parent = join(o.runsRoot, results.study);
  const out = join(parent, stamp);
  if (existsSync(out)) throw new UserError(`${out}: already exists (these results were imported before, or another record has the same start time)`);
  mkdirSync(parent, { recursive: true });
  const tmp = mkdtempSync(join(parent, `.import-${stamp}-`));
  try {
    // raw/: the files SHA256SUMS names (the clusters' data directories are not results).
    for (const line of readFileSync(join(dir, "SHA256SUMS"), "utf8").split("\n").filter((l) => l)) {
      const f = line.slice(66);
      mkdirSync(join(tmp, "raw", f, ".."), { recursive: true });
      copyFileSync(join(dir, f), join(tmp, "raw", f));
    }
    copyFileSync(join(dir, "SHA256SUMS"), join(tmp, "raw", "SHA256SUMS"));
    const sdir = join(tmp, "series");
    mkdirSync(join(sdir, "runs"), { recursive: true });
    const protocol = manifest.postgres.protocol;
    const seriesPlan: SeriesPlan = {
      format: SERIES_FORMAT,
      protocol,
      design: "blocks",
      seed: manifest.seed,
      runs: plan.runsPerCell,
      warmup: plan.warmup,
      cpus,
      params: manifest.postgres.params,
      variants: plan.variants,
      clients: { binDir: "pg/patched/bin (the bundle's)" },
      workloads,
      plan: plan.runs.map((r): PlannedRun => ({ index: r.index, block: r.block, variant: r.variant, warmup: r.warmup, id: r.id })),
    };
    writeFileAtomic(join(sdir, "series.json"), `${JSON.stringify(seriesPlan, null, 2)}\n`);
    for (const { r, result } of done) {
      mkdirSync(join(sdir, "runs", r.id));
      for (const w of result.workloads) copyFileSync(join(dir, "runs", r.id, w.raw), join(sdir, "runs", r.id, w.raw));
      writeFileAtomic(join(sdir, "runs", r.id, "result.json"), `${JSON.stringify(result, null, 2)}\n`);
    }
    const rows = writeTidy(sdir);
    // Does this kit resolve the protocol as the bundle did? (The bundle's resolution is what ran.)
    let sameResolution: string;
    try {
      const p = loadProtocol(protocol.name);
      const now = resolveWorkloads(p, cpus, manifest.postgres.params).map((w) => ({ ...w, params: Object.fromEntries(Object.entries(w.params).filter(([k]) => k !== "protocolDir")) }));
      sameResolution = p.hash !== protocol.hash ? `the protocol file changed since the bundle was made (sha256 ${protocol.hash.slice(0, 12)} then, ${p.hash.slice(0, 12)} now); the bundle's resolution is what ran` : JSON.stringify(now) === JSON.stringify(workloads) ? "this kit resolves the protocol for the same CPU count to the same workloads" : "this kit resolves the protocol differently now; the bundle's resolution is what ran";
    } catch (e) {
      sameResolution = `the protocol could not be resolved here (${(e as Error).message})`;
    }
    const envelope = pgEnvelope({ results, manifest, plan, machine, rows: rows.length, failed, cpus, sameResolution, loads: done.flatMap((d) => d.result.workloads.map((w) => w.loadAfter[0])) });
    envelope.files = readdirSync(tmp).sort();
    writeRecord(tmp, envelope);
    writeFileAtomic(join(tmp, "provenance.json"), `${JSON.stringify({ what: "a PostgreSQL bundle's results (slicelab bundle + run.sh), imported", results, bundle: { id: manifest.id, made: manifest.made, probe: manifest.probe, postgres: manifest.postgres }, machine, plan: plan.runs, failed, importedBy: kitInfo(), importedAt: new Date().toISOString() }, null, 2)}\n`);
    if (!o.render) throw new Error("importPgResults: a PostgreSQL bundle's import needs ImportOptions.render (the study report renderer)");
    const analysis = analyzeStudyRecord(tmp, planStudyView(study, plan), o.render);
    // The analysis ran in the temporary sibling: its messages name the record's final directory.
    for (const f of ["analysis.json", "record.json", "report.html"]) writeFileAtomic(join(tmp, f), readFileSync(join(tmp, f), "utf8").replaceAll(tmp, out));
    analysis.reason = analysis.reason.replaceAll(tmp, out);
    const rec = readRecord(tmp);
    rec.files = readdirSync(tmp).filter((n) => n !== "record.json" && n !== "SHA256SUMS").sort();
    writeRecord(tmp, rec);
    writeSums(tmp);
    renameSync(tmp, out);
    return { dir: out, study: results.study, rows: done.length, failed, machine, answer: `${analysis.verdict}: ${analysis.reason}` };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

function pgEnvelope(o: { results: BundleResults; manifest: PgBundleManifest; plan: PgPlanFile; machine: MachineFacts; rows: number; failed: { run: string }[]; cpus: number; sameResolution: string; loads: number[] }): RecordEnvelope {
  const m = o.machine;
  const pg = o.manifest.postgres;
  const modes = [...new Set(o.plan.runs.map((r) => r.mode))];
  const builds = pg.builds.filter((b) => o.plan.factors.find((f) => f.via === "bin")?.levels.includes(b.name) ?? b.name === "patched");
  const patchText = builds.map((b) => `${b.name}: ${b.patch ? `${b.patch.hash}${b.patch.version ? ` = ${b.patch.version}` : ""} (${b.patch.files.join(", ")})` : "none (unpatched)"}`).join("; ");
  return {
    format: RECORD_FORMAT,
    study: o.results.study,
    title: `${o.manifest.title}: ${m.setting.label}, Linux ${m.kernelRelease}, ${o.rows} workload results of ${o.results.plannedRuns} planned runs (bundle, ${o.results.path} path, plan ${o.results.plan})`,
    environment: { kind: "host", detail: `${m.setting.label} (${m.setting.reason}); the bundle's ${o.results.path} path, plan ${o.results.plan}; ${o.cpus} CPUs (the protocol resolved for them)`, setting: m.setting.kind, timing: "real" },
    design: {
      kind: "blocks",
      runsPerCell: o.plan.runsPerCell,
      warmup: o.plan.warmup,
      cells: o.plan.cells.map((c) => c.name),
      factors: Object.fromEntries(o.plan.factors.map((f) => [f.name, { levels: f.levels, changes: f.changes, via: f.via }])),
      boot: {},
      params: pg.params,
      protocol: pg.protocol,
      seriesPlan: "series/series.json",
      plan: o.results.plan,
      plannedRuns: o.results.plannedRuns,
      failedRuns: o.failed.length,
      source: "plan.json, workloads.json, MANIFEST.json of the bundle (raw/)",
    },
    command: ["sh", "run.sh", "--budget", String(o.results.budgetS)],
    kit: { commit: o.manifest.made.kitCommit, dirty: o.manifest.made.dirty ?? { unknown: "the bundle's maker did not know" } },
    host: { hostname: m.hostname ?? { unknown: "uname -n not recorded" }, cpuModel: m.cpuModel ?? { unknown: "no model name in /proc/cpuinfo" }, cpus: m.cpus ?? { unknown: "not recorded" }, memoryBytes: m.memoryBytes ?? { unknown: "not recorded" } },
    kernel: {
      release: m.kernelRelease,
      configSha256: m.configSha256 ?? { unknown: "neither /proc/config.gz nor /boot/config-RELEASE was readable" },
      preemptMode: `${modes.join(", ")} (${m.modesAccepted.length ? `debugfs sched/preempt accepted ${m.modesAccepted.join(", ")}` : `the current mode: debugfs sched/preempt not switchable (at start: ${m.modeAtStart ?? "unreadable"}); the kernel's build-time model: ${m.preemptConfig.join(" ") || "not recorded"}`})`,
      sliceExtension: m.sliceExtension,
    },
    glibc: `${pg.glibc}, bundled: the PostgreSQL programs ran through the bundle's loader (ld-linux-x86-64.so.2 --library-path) with ${pg.systemLibs.join(", ")} from the bundle, not the machine's C library`,
    postgres: {
      version: [...new Set(builds.map((b) => b.version))].join(", "),
      build: builds.map((b) => `${b.name}: kit build ${b.from.split("/").pop()} (slicelab-build.json sha256 ${b.buildRecordSha256.slice(0, 12)}, ${b.cc})`).join("; "),
      patch: patchText,
    },
    started: o.results.started,
    ended: o.results.ended,
    concurrent: o.loads.length ? `1-minute load average ${Math.min(...o.loads).toFixed(2)}–${Math.max(...o.loads).toFixed(2)} after the measured workloads (series/results.csv has it per run, before and after); steal time in the notes; what else ran is not known to run.sh` : { unknown: "no run recorded /proc/loadavg" },
    files: [],
    derivedFrom: [],
    analysis: { unknown: "not analysed yet" },
    notes: [
      "real time: PostgreSQL and pgbench ran on the machine's own CPUs (no emulator); the throughput is a measurement of that machine",
      `steal time over the runs: ${m.stealPct === null ? "not recorded" : `${m.stealPct.toFixed(2)} % of CPU time`} (/proc/stat before and after each session)`,
      `clusters: initdb'd by the bundle's builds in the results directory as an unprivileged user, a Unix socket only (no TCP address), port ${pg.port} naming the socket`,
      o.sameResolution,
      ...(o.results.path === "reference" ? ["reference path: the kernel has no slice extension, so the extension is off in every run and the plan compares the unpatched build with the patched one (the patch's cost where the kernel lacks the feature)"] : []),
      ...(o.failed.length ? [`${o.failed.length} of ${o.results.plannedRuns} planned runs produced no result (provenance.json's failed: each with its reason)`] : []),
    ],
  };
}
