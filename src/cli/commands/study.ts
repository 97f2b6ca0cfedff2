import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { type Command, withSubcommands } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { cacheDir, repoRoot, workDir } from "../../util/paths.js";
import { progressPrinter } from "../../bench/progress.js";
import { loadStudy, studyNames } from "../../study/study.js";
import { importRecord, planStudy, planText, preparePatched, runStudy, type StudyPlan } from "../../study/run.js";
import { analyzeStudyRecord } from "../../study/analyze.js";
import { studyReport } from "../../report/study.js";
import { dryRunOverSsh, runOverSsh } from "../../study/ssh.js";
import { copyRecord, readRecord, recordsOfStudy, utcStamp, writeRecord, writeSums, fieldText } from "../../record/format.js";
import { makeDir } from "../../util/fs.js";

const usage = `usage: slicelab study list [--json]
       slicelab study show NAME [--vm] [--json]
       slicelab study run NAME [--vm] [--dry-run] [--out DIR] [--runs-dir DIR] [--param K=V]… [--max-runs N]
                          [--cluster-prefix P]
                          [--ssh [USER@]HOST [--ssh-port N] [--ssh-key FILE] [--ssh-option K=V]… [--remote-dir DIR]]
       slicelab study analyze DIR
       slicelab study import DIR [--runs-dir DIR]

Studies are data (studies/NAME.json): a protocol or a measurement script, the
factors and their levels (which change within a boot and which need a reboot),
the design, what the machine must offer, and the analysis rule.

  list     every study, its factors and how many records it has
  show     a study's plan for this machine (the same text as run --dry-run)
  run      checks first (slice-extension probe; PREEMPT_DYNAMIC and a writable
           debugfs sched/preempt when the mode is a factor; huge pages reservable;
           perf permissions; disk space) and refuses with a clear line; prepares
           what it needs (the patched PostgreSQL build) with timings; runs the
           blocks with a progress bar and ETA; Ctrl-C stops cleanly and the same
           command resumes; writes one record to data/runs/NAME/STAMP/ (record.json,
           the raw series, SHA256SUMS) and analyses it by the study's rule
           (analysis.json, report.html). Never touches the bootloader: a factor
           that needs a reboot is run at the level of the running kernel.
           --vm: the study shrunk (its "vm" section), run inside the kit's VM
           (QEMU, the kit's 7.2 kernel), the record copied back.
           --ssh HOST: copy the kit to HOST with rsync (no .git, .work or data/runs),
           run the study there over OpenSSH (the checks are HOST's), fetch the
           record back after checking its SHA256SUMS (kit commit: this checkout's).
           --dry-run: print the plan, the checks and a duration estimate; run nothing.
  analyze  (re)apply the study's rule to a record directory
  import   take a record made on another machine into data/runs/STUDY/ after
           checking its SHA256SUMS and envelope

examples:
  npx slicelab study run dipietro-2026-metal --dry-run
  npx slicelab study run dipietro-2026-metal
  npx slicelab study run smoke --vm`;

function keyValues(values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new UserError(`--param: expected NAME=VALUE, found "${v}"`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

function runsDir(v: string | undefined): string {
  return resolve(v ?? join(repoRoot(), "data", "runs"));
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("study", argv, { json: { type: "boolean" } });
  if (positionals.length) throw new UserError(`study list takes no arguments, found "${positionals[0]}"`);
  const rows = studyNames().map((n) => {
    const s = loadStudy(n);
    const root = join(repoRoot(), "data", "runs");
    const records = [...new Set([...(s.records ?? []), ...recordsOfStudy(root, s.name).map((r) => relative(root, r.dir))])];
    return { name: s.name, title: s.title, driver: s.driver, factors: s.factors.map((f) => `${f.name}(${f.levels.join("|")}${f.changes === "boot" ? ", reboot" : ""})`), records, vm: s.vm !== undefined };
  });
  if (values.json) printJson(rows);
  else {
    const w = Math.max(...rows.map((r) => r.name.length));
    for (const r of rows) process.stdout.write(`${r.name.padEnd(w)}  ${r.title}\n${" ".repeat(w)}  ${r.driver}; factors ${r.factors.join(" × ") || "none"}; ${r.records.length} past record${r.records.length === 1 ? "" : "s"}${r.vm ? "; --vm" : ""}\n`);
  }
  return 0;
}

function planFor(argv: string[]) {
  const { values, positionals } = parseCommandArgs("study", argv, {
    "dry-run": { type: "boolean" },
    "max-runs": { type: "string" },
    "cluster-prefix": { type: "string" },
    ssh: { type: "string" },
    "ssh-port": { type: "string" },
    "ssh-key": { type: "string" },
    "ssh-option": { type: "string", multiple: true },
    "remote-dir": { type: "string" },
    json: { type: "boolean" },
    vm: { type: "boolean" },
    out: { type: "string" },
    "runs-dir": { type: "string" },
    param: { type: "string", multiple: true },
    guest: { type: "boolean" },
  });
  if (positionals.length !== 1) throw new UserError("expected one study NAME (see `slicelab study list`)");
  const study = loadStudy(positionals[0] as string);
  const plan = planStudy(study, {
    vm: values.vm === true || values.guest === true,
    guest: values.guest === true,
    runsRoot: runsDir(values["runs-dir"] as string | undefined),
    out: values.out as string | undefined,
    params: keyValues(values.param as string[] | undefined),
  });
  return { values, plan };
}

function planJson(p: StudyPlan): Record<string, unknown> {
  return {
    study: p.study.name,
    vm: p.vm,
    boot: p.boot,
    cells: p.cells.map((c) => c.name),
    runsPerCell: p.runsPerCell,
    warmup: p.warmup,
    totalRuns: p.totalRuns,
    secondsPerRun: p.secondsPerRun,
    estimateSeconds: p.estimateSeconds,
    params: p.params,
    withinBoot: p.withinBoot,
    needReboot: p.needReboot,
    prepare: p.prepare,
    checks: p.checks,
    recordDir: p.recordDir,
  };
}

async function show(argv: string[]): Promise<number> {
  const { values, plan } = planFor(argv);
  if (values.json) printJson(planJson(plan));
  else process.stdout.write(planText(plan));
  return 0;
}

async function run(argv: string[]): Promise<number> {
  const { values, plan } = planFor(argv);
  if (values["dry-run"] && values.ssh === undefined) {
    if (values.json) printJson(planJson(plan));
    else process.stdout.write(planText(plan));
    return 0;
  }
  const log = (line: string) => process.stderr.write(`${process.stderr.isTTY ? "\r\x1b[2K" : ""}${line}\n`);
  const maxRuns = values["max-runs"] === undefined ? undefined : Number(values["max-runs"]);
  if (maxRuns !== undefined && !(Number.isInteger(maxRuns) && maxRuns > 0)) throw new UserError(`--max-runs expects a positive whole number, found "${String(values["max-runs"])}"`);
  if (values.ssh !== undefined) {
    if (plan.vm) throw new UserError("--ssh and --vm: choose one (the remote machine is the bare metal)");
    const pass: string[] = [];
    for (const [k, v] of Object.entries(plan.params)) pass.push("--param", `${k}=${v}`);
    if (values["cluster-prefix"]) pass.push("--cluster-prefix", values["cluster-prefix"]);
    if (values["max-runs"]) pass.push("--max-runs", values["max-runs"]);
    const port = values["ssh-port"] === undefined ? undefined : Number(values["ssh-port"]);
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new UserError(`--ssh-port expects a port number, found "${values["ssh-port"]}"`);
    const sshOpts = { host: values.ssh, port, key: values["ssh-key"], options: values["ssh-option"] ?? [], remoteDir: values["remote-dir"] ?? "slicelab-kit" };
    if (values["dry-run"]) return dryRunOverSsh(plan.study.name, pass, sshOpts, log);
    const dest = runOverSsh(plan.study.name, pass, runsDir(values["runs-dir"]), { host: values.ssh, port, key: values["ssh-key"], options: values["ssh-option"] ?? [], remoteDir: values["remote-dir"] ?? "slicelab-kit" }, log, ["slicelab", "study", "run", ...argv]);
    if (dest === undefined) {
      process.stdout.write(`${values.ssh}: not finished; run the same command again to resume there\n`);
      return 1;
    }
    process.stdout.write(`${dest}: record fetched from ${values.ssh} (checksums match); ${fieldText(readRecord(dest).analysis)}\n`);
    return 0;
  }
  const failed = plan.checks.filter((c) => c.status === "fail");
  if (failed.length) {
    throw new UserError(`study ${plan.study.name}${plan.vm && !values.guest ? " --vm" : ""}: refused before running anything:\n${failed.map((c) => `  ${c.name}: ${c.detail}`).join("\n")}\n(\`slicelab study run ${plan.study.name}${plan.vm ? " --vm" : ""} --dry-run\` shows the plan and every check)`);
  }
  if (plan.vm && !values.guest) return runInVm(plan, argv, log);
  process.stderr.write(planText(plan));
  const out = await runStudy({
    plan,
    render: studyReport,
    argv: ["slicelab", "study", "run", ...argv],
    log,
    progress: progressPrinter(process.stderr),
    maxRuns,
    clusterPrefix: values["cluster-prefix"],
    environment: values.guest ? { kind: "vm", detail: `inside the kit's VM (guest kernel ${readFileSync("/proc/sys/kernel/osrelease", "utf8").trim()})` } : undefined,
  });
  if (!out.complete) {
    process.stdout.write(`${out.dir}: not finished; run the same command again to resume\n`);
    return 1;
  }
  if (values.json) printJson({ dir: out.dir, verdict: out.analysis?.verdict, reason: out.analysis?.reason });
  else process.stdout.write(`${out.dir}: record written; ${out.analysis?.verdict}: ${out.analysis?.reason}\nreport: ${join(out.dir, "report.html")}\n`);
  return 0;
}

/** --vm: boot the kit's VM, run the shrunk study inside (--guest), copy the record back. */
async function runInVm(plan: StudyPlan, argv: string[], log: (s: string) => void): Promise<number> {
  const { defaultKernelImage } = await import("../../kernel/ensure.js");
  const { runVm } = await import("../../vm/qemu.js");
  const failed = plan.checks.filter((c) => c.status === "fail");
  if (failed.length) throw new UserError(`study ${plan.study.name} --vm: refused:\n${failed.map((c) => `  ${c.name}: ${c.detail}`).join("\n")}`);
  const kernel = defaultKernelImage();
  const dest = plan.recordDir;
  if (existsSync(join(dest, "record.json"))) throw new UserError(`${dest}: already holds a finished record; choose another --out`);
  // The guest writes into a directory of the work dir, shared with it; only a finished record is copied to the runs directory.
  const vmOut = join(workDir(), "study-vm", `${plan.study.name}-${utcStamp()}`);
  makeDir(vmOut);
  process.stderr.write(planText(plan));
  // What the guest needs from the host's cache is built here, where the CPU is not emulated.
  if (plan.study.factors.some((f) => f.via === "bin" && f.levels.includes("patched"))) {
    const t = Date.now();
    log("prepare patched PostgreSQL 18 (on the host, for the guest)…");
    const bin = await preparePatched();
    log(`prepare patched PostgreSQL 18: ${Math.round((Date.now() - t) / 100) / 10} s (${bin})`);
  }
  const params = Object.entries(plan.params).flatMap(([k, v]) => ["--param", `${k}=${v}`]);
  const guestCmd = ["node", join(repoRoot(), "bin", "slicelab.js"), "study", "run", plan.study.name, "--guest", "--out", join(vmOut, "record"), ...params];
  const t0 = Date.now();
  const r = await runVm({
    kernel,
    command: ["sh", "-c", `${guestCmd.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")}`],
    cwd: repoRoot(),
    env: { SLICELAB_CACHE: cacheDir() },
    outDir: vmOut,
    // the guest's writable directories are tmpfs overlays (half the guest's memory): room for the study's clusters
    memMiB: Math.max(2048, 2 * plan.study.requires.diskMiB + 1024),
    append: "no_timer_check",
    timeoutS: Math.max(900, plan.estimateSeconds * 20),
    onConsole: (c) => process.stderr.write(c),
  });
  log(`VM: ${r.accel} (${r.accelReason}), boot to command ${r.bootToCommandS ?? "?"} s, total ${r.totalS} s, exit ${r.exitStatus ?? "none"}`);
  const inner = join(vmOut, "record");
  if (r.exitStatus !== 0 || !existsSync(join(inner, "record.json"))) {
    throw new UserError(`study ${plan.study.name} --vm: the guest ${r.timedOut ? "timed out" : `exited ${r.exitStatus ?? "without a status"}`} without a record (console ${r.consoleLog}; partial results in ${vmOut})`, 1);
  }
  copyRecord(inner, dest);
  const rec = readRecord(dest);
  rec.environment = { kind: "vm", detail: `the kit's VM: QEMU ${r.accel.toUpperCase()} (${r.accelReason}), ${r.cpus} vCPUs, ${r.memMiB} MiB, kernel ${kernel}, boot to command ${r.bootToCommandS ?? "?"} s, ${Math.round((Date.now() - t0) / 1000)} s in all` };
  rec.command = ["slicelab", "study", "run", ...argv];
  rec.notes = [...rec.notes, `the guest ran: ${guestCmd.join(" ")}`];
  writeRecord(dest, rec);
  analyzeStudyRecord(dest, plan.study, studyReport);
  writeSums(dest);
  const done = readRecord(dest);
  process.stdout.write(`${dest}: record written; ${fieldText(done.analysis)}\n`);
  return 0;
}

async function analyze(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("study", argv, { json: { type: "boolean" } });
  if (positionals.length !== 1) throw new UserError("study analyze expects one record DIR");
  const dir = resolve(positionals[0] as string);
  const rec = readRecord(dir);
  const study = loadStudy(rec.study);
  const r = analyzeStudyRecord(dir, study, studyReport);
  writeSums(dir);
  if (values.json) printJson(r);
  else process.stdout.write(`${dir}: ${r.verdict}: ${r.reason}\n`);
  return 0;
}

async function importCmd(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("study", argv, { "runs-dir": { type: "string" } });
  if (positionals.length !== 1) throw new UserError("study import expects one record DIR");
  const dest = importRecord(positionals[0] as string, runsDir(values["runs-dir"]));
  process.stdout.write(`imported into ${dest} (checksums match)\n`);
  return 0;
}

export const studyCommand: Command = withSubcommands("study", "studies: one command from a machine to a record and its verdict", usage, { list, show, run, analyze, import: importCmd });
