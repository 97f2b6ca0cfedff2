import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { repoRoot } from "../../util/paths.js";
import { cachedKernel, defaultKernelImage } from "../../kernel/ensure.js";
import { ACCELS, type Accel } from "../../vm/qemu.js";
import { PAGE_LEVELS, runMechanismInVm, runMechanismOnHost, type ExtLevel, type MechanismRow, type PageLevel, type PreemptMode } from "../../vm/mechanism.js";
import { answerSentence, summariseCells, type FactorialRow } from "../../analysis/mechanism.js";
import { evaluatePredictions } from "../../analysis/mechanism-predictions.js";
import { kitInfo, hostInfo, loadAverage } from "../../bench/provenance.js";
import { writeMechanismEnvelope, type RunContext } from "../../vm/mechanism-record.js";
import { runHead, writeAnalysis, writeMicroRecord, writeRunFiles } from "../../vm/mechanism-files.js";
export { rowsCsv, writeAnalysis, writeMicroRecord } from "../../vm/mechanism-files.js";
import type { MechanismRun } from "../../vm/mechanism.js";
import type { PgMechanismRun } from "../../vm/mechanism-pg.js";
import type { BuildRecord as KernelBuildRecord } from "../../kernel/build.js";
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { ensureDiagBin, writePgWaitEvidence, ON_SETTINGS, runPgMechanismInVm, type HugeLevel, type OnSetting, type PgMechanismRow } from "../../vm/mechanism-pg.js";
import { pgAnswerSentence, summarisePgCells, type PgFactorialRow } from "../../analysis/mechanism-pg.js";
import { join } from "node:path";
import { utcStamp } from "../../record/format.js";

const usage = `usage: slicelab mechanism SUBCOMMAND [OPTIONS] [--json]

  run [--blocks N] [--duration S] [--modes full,lazy|none] [--pages 4k,4k-prefault,hugetlb]
      [--extensions off,on] [--seed S] [--threads T] [--hogs H] [--cs-ns L]
      [--fault-every K] [--region-mib M] [--jitter-pct P] [--cpus N] [--mem MIB]
      [--accel tcg-icount|tcg|kvm] [--kernel PATH] [--timeout S] [--out DIR]
      The mechanism factorial (issue 14) in one boot: preemption mode (switched
      at run time through debugfs sched/preempt) × pages × extension, in N
      randomised blocks (default 3), each run the micro-benchmark with
      --fault-in-cs (default 2 threads, 2 hogs, 2000 ns sections ±25 % with 2
      nested uncontended acquires (v2 re-arm points), a fresh
      page every 4th section, 1 s) while tracefs records every switch away from
      a worker with its kernel stack. Default accel tcg-icount, 1 vCPU. --modes none
      needs a kernel that still has it (a 6.x reference, --kernel PATH; 7.x refuses).
      Writes rows.json / rows.csv (one row per run), cells.json, predictions.json,
      provenance.json and record.json (study dipietro-2026) to
      data/runs/mechanism-2026/STAMP/ (or --out DIR);
      raw traces stay under .work/mechanism/. One boot per block (a timeout
      loses at most the rest of that block; each run not reached says why).
      --attribute also traces every __resched_curr call with its kernel stack,
      wakeups, timer interrupts, hrtimer expiries and user page faults, so
      each holder descheduling gets the cause of its reschedule (issue 26);
      --sched-features W[,W] writes debugfs sched/features once at boot (e.g.
      NO_HRTICK); --micro-args "ARGS" appends micro-benchmark arguments to
      every run (the known cases, e.g. "--syscall-in-cs 65536"); --pages thp
      (shmem THP set to advise) makes each first touch a 2 MB fault.
  run --pg [--blocks N] [--duration S] [--modes full,lazy] [--huge-pages off,on]
      [--extensions off,on] [--shared-buffers 1GB] [--scale N] [--clients C]
      [--connect-clients K] [--bin DIR] [--mem MIB] [--accel …] [--kernel PATH]
      [--on-setting all|spinlock|lwlock]
      The same factorial on PostgreSQL 18 (the diagnostic build, \`slicelab
      postgres build --variant diag\`, or --bin DIR): mode × huge_pages ×
      slice_extension in N randomised blocks (default 3) in one boot (1 vCPU,
      default 3072 MiB, shared_buffers 1GB, huge pages reserved from
      shared_memory_size_in_huge_pages); every run a fresh server (an empty
      pool: the freelist phase) with C persistent select-only sessions and K
      sessions connecting per transaction (new backends). Per run: spin-style
      holds, faults and involuntary switches inside them (diag counters), where
      the traced preempted holders were, grants, huge pages held, tps; with the
      v3 diag build also waits with the request armed, grants taken while
      waiting, and LWLockWakeup's stalls (a grant yielded before the dequeued
      waiters were woken). --on-setting: slice_extension in the "on" runs
      (default all; spinlock shows the LWLockWakeup stall).
      Records go to data/runs/mechanism-2026/STAMP/ (or --out DIR).
  wait-evidence DIR
      A --pg record made with the v3 diag build: copy each run's armed-waits
      and wakeup-stalls files from the raw directory into DIR and match every
      LWLockWakeup stall with the run's trace (DIR/stall-trace.json).
  analyse DIR
      Recompute cells, predictions and the answer from DIR/rows.json
      (a --pg record: cells.json and answer.txt), and rewrite DIR/record.json
      from DIR/provenance.json (fields only an older record.json knew are kept).
  run --host [--blocks N] [--pages …] [--duration S] …
      The same runs on this machine's kernel instead of a VM (root; tracefs
      and debugfs mounted): a private tracing instance, the preemption mode as
      it is (read, never changed), extension off, no huge-page reservation.
      Records go to data/runs/mechanism-2026/host-STAMP/ (or --out DIR).

Under TCG (also with icount) the CPU is emulated: counts of where preemptions
land are the evidence; times are functional evidence only.`;

function listOption<T extends string>(name: string, v: string | undefined, allowed: readonly T[], dflt: readonly T[]): T[] {
  if (v === undefined) return [...dflt];
  const xs = v.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const x of xs) if (!(allowed as readonly string[]).includes(x)) throw new UserError(`--${name}: expected a comma list of ${allowed.join(", ")}, found ${JSON.stringify(x)}`);
  if (xs.length === 0) throw new UserError(`--${name}: expected at least one of ${allowed.join(", ")}`);
  return xs as T[];
}

/** Reads DIR/rows.json of a mechanism record; a clear error when it is not one. */
export function readMechanismRows(dir: string): MechanismRow[] {
  const p = join(dir, "rows.json");
  if (!existsSync(p)) throw new UserError(`${p}: no such file (expected a record written by \`slicelab mechanism run\`)`);
  let rows: unknown;
  try {
    rows = JSON.parse(readFileSync(p, "utf8"));
  } catch {
    throw new UserError(`${p}: not JSON`);
  }
  if (!Array.isArray(rows)) throw new UserError(`${p}: expected an array of rows`);
  return rows as MechanismRow[];
}

export const mechanismCommand: Command = {
  name: "mechanism",
  summary: "the 2026 regression's mechanism: where lock holders are preempted (kernel/fault vs return), extension off/on, in the VM",
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === "analyse") {
      const { values, positionals } = parseCommandArgs("mechanism", rest, { json: { type: "boolean" } });
      if (positionals.length !== 1) throw new UserError("usage: slicelab mechanism analyse DIR");
      const rows = readMechanismRows(positionals[0]!);
      if (rows.length > 0 && "hugePages" in (rows[0] as object)) {
        const { answer } = writePgAnalysis(positionals[0]!, rows as unknown as PgMechanismRow[]);
        writeMechanismEnvelope(positionals[0]!);
        if (values.json) printJson({ dir: positionals[0], rows: rows.length, answer });
        else process.stdout.write(`${answer}\n`);
        return 0;
      }
      const { answer } = writeAnalysis(positionals[0]!, rows);
      writeMechanismEnvelope(positionals[0]!);
      if (values.json) printJson({ dir: positionals[0], rows: rows.length, answer });
      else process.stdout.write(`${answer}\n`);
      return 0;
    }
    if (sub === "wait-evidence") {
      const { values, positionals } = parseCommandArgs("mechanism", rest, { json: { type: "boolean" } });
      if (positionals.length !== 1) throw new UserError("usage: slicelab mechanism wait-evidence DIR");
      const runs = writePgWaitEvidence(positionals[0]!);
      writeMechanismEnvelope(positionals[0]!);
      if (values.json) printJson({ dir: positionals[0], runs: runs.map((r) => ({ run: r.run, setting: r.setting, ...r.summary })) });
      else for (const r of runs) process.stdout.write(`run ${r.run} (${r.setting}): ${r.summary.stalls} stalls, ${r.summary.matched} matched in the trace, ${r.summary.viaYield} through rseq_slice_yield\n`);
      return 0;
    }
    if (sub !== "run") throw new UserError(`expected a subcommand (run, analyse, wait-evidence), found ${sub === undefined ? "none" : JSON.stringify(sub)} (see \`slicelab mechanism --help\`)`);
    const { values, positionals } = parseCommandArgs("mechanism", rest, {
      blocks: { type: "string" }, duration: { type: "string" }, modes: { type: "string" }, pages: { type: "string" },
      extensions: { type: "string" }, seed: { type: "string" }, threads: { type: "string" }, hogs: { type: "string" },
      "cs-ns": { type: "string" }, "fault-every": { type: "string" }, "region-mib": { type: "string" }, "jitter-pct": { type: "string" },
      cpus: { type: "string" }, mem: { type: "string" }, accel: { type: "string" }, kernel: { type: "string" },
      timeout: { type: "string" }, out: { type: "string" }, quiet: { type: "boolean" }, json: { type: "boolean" }, host: { type: "boolean" },
      pg: { type: "boolean" }, "huge-pages": { type: "string" }, "shared-buffers": { type: "string" }, scale: { type: "string" },
      clients: { type: "string" }, "connect-clients": { type: "string" }, bin: { type: "string" }, "on-setting": { type: "string" },
      attribute: { type: "boolean" }, "sched-features": { type: "string" }, "micro-args": { type: "string" },
    });
    if (values.pg) return runPg(values, ["slicelab", "mechanism", ...argv]);
    for (const k of ["huge-pages", "shared-buffers", "scale", "clients", "connect-clients", "bin", "on-setting"] as const) {
      if (values[k] !== undefined) throw new UserError(`--${k} belongs to \`mechanism run --pg\``);
    }
    if (positionals.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const accel = (values.accel ?? "tcg-icount") as Accel;
    if (!ACCELS.includes(accel)) throw new UserError(`--accel expects ${ACCELS.join(", ")}, got "${values.accel}"`);
    const host = values.host === true;
    if (host && (values.kernel !== undefined || values.accel !== undefined || values.modes !== undefined || values.cpus !== undefined)) {
      throw new UserError("--host runs on this machine's kernel in its current preemption mode: --kernel, --accel, --modes and --cpus do not apply");
    }
    const rec = values.kernel || host ? undefined : cachedKernel();
    const kernel = host ? "(host)" : (values.kernel ?? defaultKernelImage());
    const stamp = utcStamp();
    const dir = values.out ?? join(repoRoot(), "data", "runs", "mechanism-2026", host ? `host-${stamp}` : stamp);
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new UserError(`${dir}: not empty; choose a new --out directory`);
    const common = {
      blocks: numberOption("blocks", values.blocks, 3),
      modes: listOption<PreemptMode>("modes", values.modes, ["full", "lazy", "none"], ["full", "lazy"]),
      pages: listOption<PageLevel>("pages", values.pages, [...PAGE_LEVELS, "thp"], PAGE_LEVELS),
      extensions: listOption<ExtLevel>("extensions", values.extensions, ["off", "on"], ["off", "on"]),
      seed: numberOption("seed", values.seed, 1),
      threads: values.threads === undefined ? undefined : numberOption("threads", values.threads, 2),
      hogs: values.hogs === undefined ? undefined : numberOption("hogs", values.hogs, 2),
      csNs: values["cs-ns"] === undefined ? undefined : numberOption("cs-ns", values["cs-ns"], 2000),
      durationS: values.duration === undefined ? undefined : numberOption("duration", values.duration, 1),
      faultEvery: values["fault-every"] === undefined ? undefined : numberOption("fault-every", values["fault-every"], 4),
      regionMiB: values["region-mib"] === undefined ? undefined : numberOption("region-mib", values["region-mib"], 384),
      jitterPct: values["jitter-pct"] === undefined ? undefined : numberOption("jitter-pct", values["jitter-pct"], 25),
      timeoutS: values.timeout === undefined ? undefined : numberOption("timeout", values.timeout, 3600),
      onConsole: values.quiet || values.json ? undefined : (s: string) => process.stderr.write(s),
    };
    const runCtx = { command: ["slicelab", "mechanism", ...argv], started: new Date().toISOString(), loadStart: loadAverage() };
    const r = host
      ? await runMechanismOnHost({ ...common, modes: undefined, pages: values.pages === undefined ? undefined : common.pages, extensions: values.extensions === undefined ? undefined : common.extensions })
      : await runMechanismInVm({
          ...common, kernel, kernelRelease: rec?.version, accel, cpus: numberOption("cpus", values.cpus, 1), memMiB: numberOption("mem", values.mem, 2048),
          attribute: values.attribute === true,
          schedFeatures: values["sched-features"] === undefined ? undefined : values["sched-features"].split(",").map((x) => x.trim()).filter((x) => x !== ""),
          extraMicroArgs: values["micro-args"] === undefined ? undefined : values["micro-args"].split(/\s+/).filter((x) => x !== ""),
        });
    if (r.rows.length === 0) {
      throw new UserError(`no run produced a row (VM exit ${r.vm.exitStatus ?? "none"}${r.vm.timedOut ? ", timed out" : ""}; ${r.guest.notes ?? ""} ${r.failed.slice(0, 3).map((f) => `${f.run}: ${f.reason}`).join("; ")}); raw files in ${r.rawDir}`);
    }
    const { answer } = writeMicroRecord(dir, r, {
      ...runCtx,
      ended: new Date().toISOString(),
      loadEnd: loadAverage(),
      design: { blocks: common.blocks, seed: common.seed, factors: { mode: r.levels.modes, pages: r.levels.pages, extension: r.levels.extensions } },
    }, { host, accel, kernel, rec });
    if (values.json) printJson({ dir, rows: r.rows.length, failed: r.failed, answer });
    else {
      process.stdout.write(`${r.rows.length} runs (${r.failed.length} failed) in ${dir}\n${answer}\n`);
      for (const f of r.failed) process.stdout.write(`  run ${f.run}: ${f.reason}\n`);
    }
    return r.failed.length === 0 ? 0 : 1;
  },
};

const PG_CSV_FIELDS: (keyof PgMechanismRow)[] = [
  "run", "block", "order", "seed", "mode", "modeActive", "kernelRelease", "accel", "hugePages", "hugePagesStatus", "hugePagesTaken", "hugePagesTotal",
  "extension", "sliceExtensionStatus", "durationS", "holds", "faultedHolds", "faultsUnderLock", "preemptedHolds", "faultedPreemptedHolds", "grantedHolds",
  "faultedGrantedHolds", "backendProcesses", "deschedHolds", "kernelFault", "kernelOther", "returnFault", "returnInterrupt", "returnSyscall", "voluntary",
  "unclassified", "logLost", "lostEvents", "grants", "expired", "revoked", "yields", "tpsLoad", "tpsConnect", "transactionsLoad", "transactionsConnect",
  "sliceSetting", "endedHolds", "armedWaitHolds", "spinWaits", "armedSpinWaits", "lwlockSleeps", "armedLwlockSleeps", "spinWaitGrants", "lwlockWaitGrants",
  "wakeups", "wakeupYields", "wakeupYieldWaiters", "wakeupStallNs", "wakeupStallMaxNs", "wakeupReleaseNs",
];

export function pgRowsCsv(rows: readonly PgMechanismRow[]): string {
  const cell = (v: unknown) => (v === null || v === undefined ? "" : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  return `${PG_CSV_FIELDS.join(",")}\n${rows.map((r) => PG_CSV_FIELDS.map((k) => cell(r[k])).join(",")).join("\n")}\n`;
}

/** Writes cells.json and answer.txt of a PostgreSQL record computed from its rows. */
export function writePgAnalysis(dir: string, rows: readonly PgMechanismRow[]): { answer: string } {
  const fr = rows as unknown as PgFactorialRow[];
  const cells = summarisePgCells(fr);
  writeFileAtomic(join(dir, "cells.json"), `${JSON.stringify(cells, null, 2)}\n`);
  const answer = pgAnswerSentence(fr, cells);
  writeFileAtomic(join(dir, "answer.txt"), `${answer}\n`);
  return { answer };
}


/** Writes a PostgreSQL mechanism record into DIR (rows, provenance with the run's command, times and design, cells, answer), then record.json. */
export function writePgRecord(
  dir: string,
  r: PgMechanismRun,
  ctx: RunContext,
  o: { accel: string; kernel: string; rec?: Pick<KernelBuildRecord, "version" | "bzImageSha256" | "configSha256">; bin: string; build: unknown },
): { answer: string } {
  writeRunFiles(dir, r.rows, pgRowsCsv(r.rows), {
    what: "mechanism factorial (issue 14) on PostgreSQL 18, diag build: faults and involuntary switches inside spin-style lock holds (getrusage), preempted holders classified from sched_switch kernel stacks",
    evidence: o.accel === "kvm" ? "KVM guest" : "TCG functional evidence: counts; times and tps are emulated, and the diag build's two getrusage calls per hold slow the server",
    ...runHead(ctx, r, o),
    postgres: { bin: o.bin, build: o.build },
    guest: r.guest,
    shape: r.shape,
    onSetting: r.onSetting,
    plan: r.plan,
    failed: r.failed,
    rawDir: r.rawDir,
    kit: kitInfo(),
    host: hostInfo(),
  });
  const res = writePgAnalysis(dir, r.rows);
  if (r.rows.some((x) => typeof x.endedHolds === "number")) writePgWaitEvidence(dir);
  writeMechanismEnvelope(dir);
  return res;
}

async function runPg(values: Record<string, string | boolean | undefined>, command: string[]): Promise<number> {
  const str = (k: string) => values[k] as string | undefined;
  if (values.host) throw new UserError("--pg runs in the VM only (it switches preemption modes and reserves huge pages)");
  const accel = (str("accel") ?? "tcg-icount") as Accel;
  if (!ACCELS.includes(accel)) throw new UserError(`--accel expects ${ACCELS.join(", ")}, got "${str("accel")}"`);
  const rec = str("kernel") ? undefined : cachedKernel();
  const kernel = str("kernel") ?? defaultKernelImage();
  const stamp = utcStamp();
  // the one layout (data/runs/<study>/<stamp>/, test/record-format.test.ts): no "pg-" prefix
  const dir = str("out") ?? join(repoRoot(), "data", "runs", "mechanism-2026", stamp);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new UserError(`${dir}: not empty; choose a new --out directory`);
  const sb = str("shared-buffers");
  if (sb !== undefined && !/^\d+(kB|MB|GB)$/.test(sb)) throw new UserError(`--shared-buffers: expected a size such as 512MB or 1GB, found ${JSON.stringify(sb)}`);
  const onSetting = str("on-setting") ?? "all";
  if (!(ON_SETTINGS as readonly string[]).includes(onSetting)) throw new UserError(`--on-setting: expected one of ${ON_SETTINGS.join(", ")}, found ${JSON.stringify(onSetting)}`);
  const { bin, user, build } = await ensureDiagBin(str("bin"));
  const runCtx = { command, started: new Date().toISOString(), loadStart: loadAverage() };
  const r = await runPgMechanismInVm({
    kernel,
    kernelRelease: rec?.version,
    bin,
    user,
    accel,
    memMiB: numberOption("mem", str("mem"), 3072),
    blocks: numberOption("blocks", str("blocks"), 3),
    modes: listOption<PreemptMode>("modes", str("modes"), ["full", "lazy"], ["full", "lazy"]),
    hugePages: listOption<HugeLevel>("huge-pages", str("huge-pages"), ["off", "on"], ["off", "on"]),
    extensions: listOption<ExtLevel>("extensions", str("extensions"), ["off", "on"], ["off", "on"]),
    seed: numberOption("seed", str("seed"), 1),
    shape: {
      sharedBuffers: sb,
      scale: str("scale") === undefined ? undefined : numberOption("scale", str("scale"), 4),
      clients: str("clients") === undefined ? undefined : numberOption("clients", str("clients"), 3),
      connectClients: str("connect-clients") === undefined ? undefined : numberOption("connect-clients", str("connect-clients"), 2),
      durationS: str("duration") === undefined ? undefined : numberOption("duration", str("duration"), 15),
    },
    timeoutS: str("timeout") === undefined ? undefined : numberOption("timeout", str("timeout"), 7200),
    onConsole: values.quiet || values.json ? undefined : (s: string) => process.stderr.write(s),
    onSetting: onSetting as OnSetting,
  });
  if (r.rows.length === 0) {
    throw new UserError(`no run produced a row (VM exit ${r.vm.exitStatus ?? "none"}${r.vm.timedOut ? ", timed out" : ""}; ${r.guest.notes ?? ""} ${r.failed.slice(0, 3).map((f) => `${f.run}: ${f.reason}`).join("; ")}); raw files in ${r.rawDir}`);
  }
  const { answer } = writePgRecord(dir, r, {
    ...runCtx,
    ended: new Date().toISOString(),
    loadEnd: loadAverage(),
    design: { blocks: numberOption("blocks", str("blocks"), 3), seed: numberOption("seed", str("seed"), 1), factors: { mode: r.levels.modes, huge_pages: r.levels.hugePages, extension: r.levels.extensions } },
  }, { accel, kernel, rec, bin, build });
  if (values.json) printJson({ dir, rows: r.rows.length, failed: r.failed, answer });
  else {
    process.stdout.write(`${r.rows.length} runs (${r.failed.length} failed) in ${dir}\n${answer}\n`);
    for (const f of r.failed) process.stdout.write(`  run ${f.run}: ${f.reason}\n`);
  }
  return r.failed.length === 0 ? 0 : 1;
}
