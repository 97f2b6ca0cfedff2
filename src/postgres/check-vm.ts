/**
 * `slicelab postgres check --vm`: PostgreSQL's own regression suite on the
 * patched tree inside the kit's VM (the 7.2 kernel, where the time slice
 * extension is active), with slice_extension set for the temporary server.
 *
 * The tree is configured, built and given its temporary installation on the
 * host (`make temp-install`, which in 17+ also makes the initdb template), and
 * kept under the work directory, which the guest sees through a writable
 * overlay: inside, `make check NO_TEMP_INSTALL=1` runs as the cluster user
 * with GLIBC_TUNABLES=glibc.pthread.rseq=0 (glibc 2.36's registration does not
 * cover slice_ctrl, so the server registers its own area). Before and after,
 * the guest runs the kit's slice-extension probe and reads debugfs
 * rseq/stats, so the record says whether the feature was usable and how many
 * grants the kernel made while the suite ran.
 *
 * `--groups N` runs the first N test groups of parallel_schedule (a prefix
 * is self-consistent: later groups depend on objects earlier ones create).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { kitInfo, hostInfo } from "../record/provenance.js";
import { sha256File } from "../kernel/fetch.js";
import { assertBuildAllowed } from "../util/build-guard.js";
import { ParseError, UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { cacheDir, workDir } from "../util/paths.js";
import { parseProbeOutput, buildProbe, type ProbeReport } from "../vm/probe.js";
import { runVm, type Accel } from "../vm/qemu.js";
import { deriveRecord } from "../record/convert.js";
import { writeRecord } from "../record/format.js";
import { CONFIGURE_OPTIONS } from "./build.js";
import { chownTree, parseRegressOutput, spawnLogged, type RegressSummary } from "./check.js";
import { applyPatchSeries, patchHash } from "./patch.js";
import { patchVersionOf } from "./patch-version.js";
import type { PgSource } from "./source.js";
import { ensurePgUser } from "./user.js";

export interface ScheduleSubset {
  /** The schedule file's text for the subset (comments dropped). */
  text: string;
  groups: number;
  /** Test groups in the whole schedule. */
  groupsInSchedule: number;
  tests: string[];
  /** The widest group (tests run at the same time). */
  widest: number;
  /**
   * Tests named by `ignore:` lines kept in the subset (PostgreSQL 15's schedule marks `random`
   * so: pg_regress still runs it and reports a failure as "failed (ignored)").
   */
  ignored: string[];
}

/**
 * The first `groups` `test:` lines of a pg_regress schedule (all of them when
 * `groups` is undefined), with the `ignore:` lines that come before the last kept
 * group (pg_regress applies one to the tests after it). `file` names the schedule in errors.
 */
export function scheduleSubset(text: string, groups: number | undefined, file = "parallel_schedule"): ScheduleSubset {
  const lines: { line: number; kind: "test" | "ignore"; tests: string[] }[] = [];
  text.split("\n").forEach((raw, i) => {
    const l = raw.replace(/#.*$/, "").trim();
    if (l === "") return;
    const m = /^(test|ignore):\s*(.*)$/.exec(l);
    if (!m) throw new ParseError(file, i + 1, '"test: NAME …", "ignore: NAME" or a comment', JSON.stringify(l.slice(0, 60)));
    const tests = m[2]!.split(/\s+/).filter((t) => t !== "");
    if (tests.length === 0) throw new ParseError(file, i + 1, `at least one test name after "${m[1]}:"`, "none");
    lines.push({ line: i + 1, kind: m[1] as "test" | "ignore", tests });
  });
  const testLines = lines.filter((g) => g.kind === "test");
  if (testLines.length === 0) throw new ParseError(file, 1, "test: lines", "none");
  if (groups !== undefined && (!Number.isInteger(groups) || groups < 1 || groups > testLines.length)) {
    throw new UserError(`--groups: expected an integer from 1 to ${testLines.length} (the test groups in ${file}), found ${groups}`);
  }
  const kept = testLines.slice(0, groups ?? testLines.length);
  const last = kept[kept.length - 1]!.line;
  const keptLines = lines.filter((g) => g.line <= last);
  return {
    text: keptLines.map((g) => `${g.kind}: ${g.tests.join(" ")}`).join("\n") + "\n",
    groups: kept.length,
    groupsInSchedule: testLines.length,
    tests: kept.flatMap((g) => g.tests),
    widest: Math.max(...kept.map((g) => g.tests.length)),
    ignored: keptLines.filter((g) => g.kind === "ignore").flatMap((g) => g.tests),
  };
}

/** Parses debugfs rseq/stats ("sgrant:   12" lines); null when the file was unreadable. */
export function parseRseqStats(text: string, file = "rseq/stats"): Record<string, number> | null {
  if (text.trim() === "" || /^unavailable/.test(text.trim())) return null;
  const out: Record<string, number> = {};
  text.split("\n").forEach((raw, i) => {
    const l = raw.trim();
    if (l === "") return;
    const m = /^([A-Za-z_]+):\s*(\d+)$/.exec(l);
    if (!m) throw new ParseError(file, i + 1, '"name: count"', JSON.stringify(l.slice(0, 60)));
    out[m[1]!] = Number(m[2]);
  });
  return out;
}

/** after − before for every counter present in both. */
export function statsDelta(before: Record<string, number> | null, after: Record<string, number> | null): Record<string, number> | null {
  if (!before || !after) return null;
  const out: Record<string, number> = {};
  for (const k of Object.keys(after)) if (before[k] !== undefined) out[k] = after[k]! - before[k]!;
  return out;
}

const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The guest's script: probe, rseq/stats, make check as USER, rseq/stats, the server's line, preempt mode. */
export function guestCheckScript(o: { tree: string; probe: string; user: string; scheduleFile: string; tempConfig: string }): string {
  const reg = `${o.tree}/src/test/regress`;
  return [
    `O="$SLICELAB_VM_OUT"`,
    `cat /proc/cmdline > "$O/cmdline.txt"`,
    `cat /sys/kernel/debug/sched/preempt > "$O/preempt.txt" 2>&1`,
    `cat /sys/kernel/debug/rseq/debug > "$O/rseq-debug.txt" 2>&1`,
    `GLIBC_TUNABLES=glibc.pthread.rseq=0 ${sq(o.probe)} > "$O/probe.txt" 2>&1`,
    `cp ${sq(o.scheduleFile)} ${sq(`${reg}/parallel_schedule`)}`,
    `cat /sys/kernel/debug/rseq/stats > "$O/rseq-stats-before.txt" 2>/dev/null || echo unavailable > "$O/rseq-stats-before.txt"`,
    `t0=$(date +%s.%N)`,
    `runuser -u ${o.user} -- env GLIBC_TUNABLES=glibc.pthread.rseq=0 LC_ALL=C HOME=/tmp make -C ${sq(reg)} check NO_TEMP_INSTALL=1 TEMP_CONFIG=${sq(o.tempConfig)} > "$O/check.log" 2>&1`,
    `rc=$?`,
    `t1=$(date +%s.%N)`,
    `echo "$t0 $t1" > "$O/check-time.txt"`,
    `cat /sys/kernel/debug/rseq/stats > "$O/rseq-stats-after.txt" 2>/dev/null || echo unavailable > "$O/rseq-stats-after.txt"`,
    `grep -h "time slice extensions" ${sq(reg)}/log/postmaster.log ${sq(reg)}/tmp_check/log/postmaster.log 2>/dev/null | head -3 > "$O/server-said.txt"`,
    `[ -f ${sq(`${reg}/regression.diffs`)} ] && head -400 ${sq(`${reg}/regression.diffs`)} > "$O/regression.diffs.head"`,
    `exit $rc`,
  ].join("\n");
}


export interface CheckTree {
  tree: string;
  patch: string;
  configure: string[];
  buildSeconds: number;
  /** The tree was built by an earlier run (same source, patch and flags). */
  reused: boolean;
}

/** A patched, built tree with its temporary installation, kept under .work/pg-check-vm/. */
export async function prepareCheckTree(src: PgSource, o: { cflags?: string; jobs?: number; log?: (s: string) => void }): Promise<CheckTree> {
  const say = o.log ?? (() => {});
  const hash = patchHash(src.major);
  const flags = o.cflags === undefined ? "default" : o.cflags.replace(/[^A-Za-z0-9]+/g, "");
  const base = join(workDir(), "pg-check-vm", `${src.version}-${src.key}-${hash}-${flags}`);
  const tree = join(base, "src");
  const marker = join(base, "built.json");
  if (existsSync(marker)) {
    const m = JSON.parse(readFileSync(marker, "utf8")) as CheckTree;
    say(`reusing the built tree ${tree}`);
    return { ...m, reused: true };
  }
  assertBuildAllowed(`the make-check tree of PostgreSQL ${src.version} (patched) in ${base}`);
  const log = join(base, "build.log");
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", CCACHE_BASEDIR: tree, CCACHE_DIR: join(cacheDir(), "postgres", "ccache") };
  const jobs = o.jobs ?? Math.max(1, Math.min(2, cpus().length));
  const configure = [`--prefix=${join(base, "prefix")}`, ...CONFIGURE_OPTIONS, "CC=ccache gcc", ...(o.cflags !== undefined ? [`CFLAGS=${o.cflags}`] : [])];
  // An interrupted earlier run left a configured tree with the same options: make resumes it.
  const configured = join(base, "configured.json");
  const resume = existsSync(configured) && readFileSync(configured, "utf8") === `${JSON.stringify(configure)}\n` && existsSync(join(tree, "config.status"));
  const t0 = Date.now();
  const steps: (readonly [string, readonly string[]])[] = [];
  if (!resume) {
    rmSync(base, { recursive: true, force: true });
    mkdirSync(base, { recursive: true });
    say(`copying ${src.dir} to ${tree}`);
    cpSync(src.dir, tree, { recursive: true, filter: (p) => !p.endsWith("/.git") });
    await applyPatchSeries(tree, src.major);
    steps.push(["./configure", configure]);
  } else say(`resuming the configured tree ${tree}`);
  // temp-install from src/test/regress: the installation, the regress directory's checkprep and (17+) the
  // initdb template; from the top it would also build every contrib module and test module
  steps.push(["make", [`-j${jobs}`, "-s"]], ["make", ["-C", "src/test/regress", "-s", "temp-install"]]);
  // initdb (the template) refuses root: temp-install runs as the cluster user, on a tree it owns
  const user = await ensurePgUser();
  say(`${resume ? "" : "configure, "}make -j${jobs}, make -C src/test/regress temp-install (log: ${log})`);
  for (const [cmd, args] of steps) {
    const asUser = args.includes("temp-install");
    if (asUser) chownTree(base, user.uid, user.gid);
    const code = await spawnLogged(cmd, [...args], tree, log, { env: asUser ? { PATH: process.env.PATH, LC_ALL: "C", HOME: "/tmp" } : env, uid: asUser ? user.uid : undefined, gid: asUser ? user.gid : undefined });
    if (code !== 0) {
      const tail = readFileSync(log, "utf8").trimEnd().split("\n").slice(-15).join("\n");
      throw new UserError(`${cmd} ${args.join(" ")} (${src.version} patched) failed (exit ${code}); log ${log}\n${tail}`);
    }
    if (cmd === "./configure") writeFileAtomic(configured, `${JSON.stringify(configure)}\n`);
  }
  const built: CheckTree = { tree, patch: hash, configure, buildSeconds: Math.round((Date.now() - t0) / 1000), reused: false };
  writeFileAtomic(marker, `${JSON.stringify(built, null, 2)}\n`);
  chownTree(base, user.uid, user.gid);
  return built;
}

export interface VmCheckOptions {
  setting: string;
  kernel: string;
  kernelVersion: string;
  /** First N groups of parallel_schedule; the whole schedule when undefined. */
  groups?: number;
  cflags?: string;
  jobs?: number;
  accel?: Accel;
  cpus?: number;
  memMiB?: number;
  timeoutS?: number;
  out: string;
  log?: (s: string) => void;
  onConsole?: (s: string) => void;
}

export interface VmCheckRecord {
  kind: "slicelab-pg-check-vm";
  version: string;
  major: string;
  source: PgSource["origin"];
  /** The patch hash and its version (kernel-patches/postgresql/versions.json; "unknown" when the table lacks it). */
  patch: { hash: string; version: string };
  setting: string;
  target: string;
  /** `ignored`: tests an `ignore:` line of the kept part marks (absent in records made before it was read). */
  schedule: { groups: number; groupsInSchedule: number; tests: number; widest: number; ignored?: string[] };
  started: string;
  buildSeconds: number;
  buildReused: boolean;
  /** make check's wall time inside the guest (guest clock), and the whole boot (host clock). */
  checkSeconds: number | null;
  vmSeconds: number;
  exitCode: number | null;
  timedOut: boolean;
  vm: { accel: Accel; accelReason: string; cpus: number; memMiB: number; append: string; timingCaveat: string | null };
  /** `rseqDebug`: debugfs rseq/debug in the guest (1: rseq debugging on); absent in records made before it was read. */
  kernel: { version: string; release: string | null; bzImageSha256: string; preempt: string | null; cmdline: string | null; rseqDebug?: number | null };
  probe: { sliceExtensionUsable: boolean; rseqRegistration: string | null; prctlGetAfter: number | string | null; output: string } | null;
  serverSaid: string | null;
  rseqStatsDelta: Record<string, number> | null;
  regress: { verdict: string; total: number; failed: number; passed: number } | null;
  host: { load1Before: number; load1After: number };
  configure: string[];
  kit: ReturnType<typeof kitInfo>;
}

const readIf = (p: string): string | null => (existsSync(p) ? readFileSync(p, "utf8") : null);

/** Builds (or reuses) the tree, boots the VM, runs make check inside, writes OUT/summary.json and OUT/regress.txt. */
export async function runMakeCheckInVm(src: PgSource, o: VmCheckOptions): Promise<VmCheckRecord> {
  const say = o.log ?? (() => {});
  const started = new Date();
  const built = await prepareCheckTree(src, { cflags: o.cflags, jobs: o.jobs, log: say });
  const regDir = join(built.tree, "src/test/regress");
  const full = join(regDir, "parallel_schedule");
  const subset = scheduleSubset(readFileSync(full, "utf8"), o.groups, full);
  const probe = await buildProbe();
  const user = await ensurePgUser();
  const shared = join(workDir(), "vm", "pg-check", `${src.major}-${Date.now()}`);
  mkdirSync(shared, { recursive: true });
  const scheduleFile = join(shared, "schedule");
  const tempConfig = join(shared, "slice_extension.conf");
  writeFileAtomic(scheduleFile, subset.text);
  writeFileAtomic(tempConfig, `slice_extension = '${o.setting}'\n`);
  const load1Before = loadavg()[0]!;
  say(`booting the VM: make check (${subset.tests.length} tests in ${subset.groups} of ${subset.groupsInSchedule} groups), slice_extension = ${o.setting}`);
  const vm = await runVm({
    kernel: o.kernel,
    accel: o.accel ?? "tcg",
    cpus: o.cpus ?? 2,
    memMiB: o.memMiB ?? 3072,
    timeoutS: o.timeoutS ?? 3600,
    outDir: shared,
    command: ["sh", "-c", guestCheckScript({ tree: built.tree, probe, user: user.user, scheduleFile, tempConfig })],
    onConsole: o.onConsole,
  });
  const load1After = loadavg()[0]!;
  const checkLog = readIf(join(shared, "check.log")) ?? "";
  let regress: RegressSummary | null = null;
  try {
    regress = parseRegressOutput(checkLog, join(shared, "check.log"));
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
  }
  const times = (readIf(join(shared, "check-time.txt")) ?? "").trim().split(/\s+/).map(Number);
  const probeText = readIf(join(shared, "probe.txt"));
  let probeRep: ProbeReport | null = null;
  if (probeText) {
    try {
      probeRep = parseProbeOutput(probeText, join(shared, "probe.txt"));
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
    }
  }
  const said = (readIf(join(shared, "server-said.txt")) ?? "").split("\n").find((l) => l.trim() !== "");
  const record: VmCheckRecord = {
    kind: "slicelab-pg-check-vm",
    version: src.version,
    major: src.major,
    source: src.origin,
    patch: { hash: built.patch, version: patchVersionOf(built.patch) ?? "unknown" },
    setting: o.setting,
    target:
      o.groups === undefined
        ? "make check (src/test/regress, the whole parallel schedule) inside the VM"
        : `make check (src/test/regress) inside the VM, the first ${subset.groups} of ${subset.groupsInSchedule} groups of parallel_schedule`,
    schedule: { groups: subset.groups, groupsInSchedule: subset.groupsInSchedule, tests: subset.tests.length, widest: subset.widest, ignored: subset.ignored },
    started: started.toISOString(),
    buildSeconds: built.buildSeconds,
    buildReused: built.reused,
    checkSeconds: times.length === 2 && times.every(Number.isFinite) ? Math.round((times[1]! - times[0]!) * 10) / 10 : null,
    vmSeconds: vm.totalS,
    exitCode: vm.exitStatus,
    timedOut: vm.timedOut,
    vm: {
      accel: vm.accel,
      accelReason: vm.accelReason,
      cpus: vm.cpus,
      memMiB: vm.memMiB,
      append: vm.append,
      timingCaveat: vm.accel === "kvm" ? null : "TCG: the guest CPU is emulated; times are functional evidence only, not performance.",
    },
    kernel: {
      version: o.kernelVersion,
      release: probeRep?.kernelRelease ?? null,
      bzImageSha256: await sha256File(o.kernel),
      preempt: readIf(join(shared, "preempt.txt"))?.trim() ?? null,
      cmdline: readIf(join(shared, "cmdline.txt"))?.trim() ?? null,
      rseqDebug: /^[01]$/.test(readIf(join(shared, "rseq-debug.txt"))?.trim() ?? "") ? Number(readIf(join(shared, "rseq-debug.txt"))!.trim()) : null,
    },
    probe: probeText === null ? null : {
      sliceExtensionUsable: probeRep?.sliceExtensionUsable ?? false,
      rseqRegistration: probeRep?.rseqRegistration ?? null,
      prctlGetAfter: probeRep?.prctlGetAfter ?? null,
      output: probeText.trim(),
    },
    serverSaid: said === undefined ? null : said.replace(/^.*?(LOG|DEBUG\d?|WARNING):\s+/, "$1: ").trim(),
    rseqStatsDelta: statsDelta(parseRseqStats(readIf(join(shared, "rseq-stats-before.txt")) ?? ""), parseRseqStats(readIf(join(shared, "rseq-stats-after.txt")) ?? "")),
    regress: regress && { verdict: regress.verdict, total: regress.total, failed: regress.failed, passed: regress.tests.filter((t) => t.ok).length },
    host: { load1Before, load1After },
    configure: built.configure,
    kit: kitInfo(),
  };
  mkdirSync(o.out, { recursive: true });
  const lines = checkLog.split("\n").filter((l) => /^(not ok|ok)\s+\d+|\.\.\.\s+(ok|FAILED|failed)|tests (passed|failed)\.|^(test|parallel group)\b/.test(l.trim()));
  writeFileAtomic(join(o.out, "regress.txt"), `${lines.join("\n")}\n`);
  if (!regress) writeFileAtomic(join(o.out, "check.log.tail"), `${checkLog.split("\n").slice(-60).join("\n")}\n`);
  const diffs = readIf(join(shared, "regression.diffs.head"));
  if (diffs) writeFileAtomic(join(o.out, "regression.diffs.head"), diffs);
  writeFileAtomic(join(o.out, "summary.json"), `${JSON.stringify({ ...record, host: { ...hostInfo(), ...record.host } }, null, 2)}\n`);
  rmSync(shared, { recursive: true, force: true });
  return record;
}

/** record.json for a stamp directory holding one or more VM check records (study pg-check, environment VM). */
export function writeVmCheckEnvelope(stampDir: string, r: VmCheckRecord, command: string[]): void {
  const rec = deriveRecord(stampDir);
  rec.study = "pg-check";
  rec.title = `make check of the patched PostgreSQL ${r.version} inside the VM (7.2, ${r.vm.accel.toUpperCase()}), slice_extension = ${r.setting}`;
  rec.environment = { kind: "vm", detail: `the kit's VM: QEMU ${r.vm.accel.toUpperCase()} (${r.vm.accelReason}), ${r.vm.cpus} vCPUs, ${r.vm.memMiB} MiB, kernel ${r.kernel.release ?? r.kernel.version}, ${r.vmSeconds} s in all` };
  rec.command = command;
  writeRecord(stampDir, rec);
}
