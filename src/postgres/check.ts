/**
 * PostgreSQL's own regression suite (`make check`) on the patched tree with
 * slice_extension set (pg_regress --temp-config), timed and kept as a small
 * record: the build and check times, the host's load, what the temporary
 * server said about the extension, and pg_regress's per-test lines and
 * summary (not the whole logs).
 *
 * PostgreSQL refuses to run as root, so the tree is built in a scratch
 * directory owned by the cluster user and `make check` runs as that user.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import { cpus, loadavg, release, tmpdir } from "node:os";
import { join } from "node:path";
import { ParseError, UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { CONFIGURE_OPTIONS } from "./build.js";
import { applyPatchSeries, patchHash } from "./patch.js";
import type { PgSource } from "./source.js";
import { ensurePgUser } from "./user.js";

async function which(cmd: string): Promise<string | undefined> {
  return new Promise((res) => {
    const c = spawn("sh", ["-c", `command -v ${cmd}`], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    c.stdout.on("data", (d: Buffer) => (out += d.toString()));
    c.on("close", () => res(out.trim() || undefined));
  });
}

export interface RegressTest {
  name: string;
  ok: boolean;
  ms: number | null;
}

export interface RegressSummary {
  /** pg_regress's final verdict line, e.g. "All 222 tests passed." or "2 of 222 tests failed.". */
  verdict: string;
  total: number;
  failed: number;
  tests: RegressTest[];
}

/**
 * Reads pg_regress output of PostgreSQL 15 (`test_setup ... ok  325 ms`) or
 * 16+ (TAP: `ok 1 - test_setup  427 ms`, `not ok 5 + boolean  12 ms`).
 */
export function parseRegressOutput(text: string, file = "<make check output>"): RegressSummary {
  const tests: RegressTest[] = [];
  let verdict: string | undefined;
  let total = 0;
  let failed = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const tap = /^(not ok|ok)\s+\d+\s+[-+]\s+(\S+)\s+(?:(\d+) ms)?/.exec(line);
    const old = /^(?:test\s+)?(\S+)\s+\.\.\.\s+(ok|FAILED|failed \(ignored\))(?:\s+(\d+) ms)?/.exec(line.replace(/^[+-]\s+/, ""));
    if (tap) tests.push({ name: tap[2]!, ok: tap[1] === "ok", ms: tap[3] ? Number(tap[3]) : null });
    else if (old) tests.push({ name: old[1]!, ok: old[2] !== "FAILED", ms: old[3] ? Number(old[3]) : null });
    const all = /All (\d+) tests passed\./.exec(line);
    const some = /(\d+) of (\d+) tests failed\./.exec(line);
    if (all) {
      verdict = all[0];
      total = Number(all[1]);
      failed = 0;
    } else if (some) {
      verdict = some[0];
      failed = Number(some[1]);
      total = Number(some[2]);
    }
  }
  if (verdict === undefined) throw new ParseError(file, text.split("\n").length, 'pg_regress\'s "All N tests passed." or "N of M tests failed." line', "none");
  if (tests.length === 0) throw new ParseError(file, 1, "pg_regress per-test lines", "none");
  return { verdict, total, failed, tests };
}

export interface CheckRecord {
  kind: "slicelab-pg-check";
  version: string;
  major: string;
  source: PgSource["origin"];
  patch: { hash: string; files: string[] };
  /** The slice_extension value in pg_regress's --temp-config. */
  setting: string;
  /** What the temporary server logged about the extension (its first such line). */
  serverSaid: string | null;
  target: string;
  started: string;
  buildSeconds: number;
  checkSeconds: number;
  exitCode: number;
  host: { kernel: string; cpus: number; load1Before: number; load1After: number };
  regress: { verdict: string; total: number; failed: number; passed: number };
  configure: string[];
}

/** Runs CMD niced in CWD, its output appended to LOG after a "$ (cd …)" line; resolves to its exit status. */
export function spawnLogged(cmd: string, args: string[], cwd: string, log: string, opts: { uid?: number; gid?: number; env: NodeJS.ProcessEnv }): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const fd = openSync(log, "a");
    writeSync(fd, `\n$ (cd ${cwd} && ${cmd} ${args.join(" ")})\n`);
    const child = spawn("nice", ["-n", "10", cmd, ...args], { cwd, env: opts.env, uid: opts.uid, gid: opts.gid, stdio: ["ignore", fd, fd] });
    child.on("error", (err) => {
      closeSync(fd);
      reject(new UserError(`cannot run ${cmd}: ${err.message}`));
    });
    child.on("close", (code) => {
      closeSync(fd);
      resolvePromise(code ?? 1);
    });
  });
}

/** chown -R, not following symbolic links. */
export function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chownTree(p, uid, gid);
    else if (!e.isSymbolicLink()) chownSync(p, uid, gid);
  }
}

/** The first line of the temporary server's log that mentions time slice extensions. */
function serverLine(tree: string): string | null {
  const dirs = [join(tree, "src/test/regress/log"), join(tree, "src/test/regress/tmp_check/log")];
  for (const d of dirs) {
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (!statSync(p).isFile()) continue;
      const hit = readFileSync(p, "utf8").split("\n").find((l) => /time slice extensions/.test(l));
      if (hit) return hit.replace(/^.*?(LOG|DEBUG\d?|WARNING):\s+/, "$1: ");
    }
  }
  return null;
}

export interface CheckOptions {
  setting: string;
  jobs?: number;
  /** Record directory (summary.json, regress.txt). */
  out: string;
  /** CFLAGS for configure (e.g. "-O0" to build faster); PostgreSQL's default when undefined. */
  cflags?: string;
  /** Copy the temporary installation (relocatable) here after the check, for later counting runs. */
  keepInstall?: string;
  log?: (line: string) => void;
}

/**
 * Copies SRC, applies the patch, builds, and runs `make check` as the cluster
 * user with slice_extension = SETTING; writes OUT/summary.json and
 * OUT/regress.txt (pg_regress's per-test lines and verdict).
 */
export async function runMakeCheck(src: PgSource, opts: CheckOptions): Promise<CheckRecord> {
  const say = opts.log ?? (() => {});
  const user = await ensurePgUser();
  const work = mkdtempSync(join(tmpdir(), `slicelab-pgcheck-${src.major}-`));
  const tree = join(work, "src");
  const log = join(work, "build.log");
  const started = new Date();
  try {
    say(`copying ${src.dir} to ${tree}`);
    cpSync(src.dir, tree, { recursive: true, filter: (p) => !p.endsWith("/.git") });
    const applied = await applyPatchSeries(tree, src.major);
    const tempConfig = join(work, "slice_extension.conf");
    writeFileAtomic(tempConfig, `slice_extension = '${opts.setting}'\n`);
    const ccache = await which("ccache");
    const cc = ccache ? "ccache gcc" : "gcc";
    // built as root with the kit's ccache settings (hits the kit's builds), checked as the cluster user
    const buildEnv: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", ...(ccache ? { CCACHE_BASEDIR: tree } : {}) };
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LC_ALL: "C", HOME: work };
    const jobs = opts.jobs ?? Math.max(1, Math.min(2, cpus().length));
    const t0 = Date.now();
    // a kept installation is configured for where it will live, so its rpath finds its libpq
    const prefix = opts.keepInstall ?? join(work, "prefix");
    const configure = [`--prefix=${prefix}`, ...CONFIGURE_OPTIONS, `CC=${cc}`, ...(opts.cflags !== undefined ? [`CFLAGS=${opts.cflags}`] : [])];
    say(`configure and make -j${jobs} (log: ${log})`);
    for (const [cmd, args, what] of [
      ["./configure", configure, "configure"],
      ["make", [`-j${jobs}`, "-s"], "make"],
    ] as const) {
      const code = await spawnLogged(cmd, [...args], tree, log, { env: buildEnv });
      if (code !== 0) {
        const tail = readFileSync(log, "utf8").trimEnd().split("\n").slice(-15).join("\n");
        throw new UserError(`${what} (${src.version} patched) failed (exit ${code}); log ${log}\n${tail}`);
      }
    }
    chownTree(work, user.uid, user.gid);
    const buildSeconds = Math.round((Date.now() - t0) / 1000);
    const load1Before = loadavg()[0]!;
    const checkLog = join(work, "check.log");
    say(`make check with slice_extension = ${opts.setting} (log: ${checkLog})`);
    const t1 = Date.now();
    const exitCode = await spawnLogged("make", ["check", `TEMP_CONFIG=${tempConfig}`], tree, checkLog, { uid: user.uid, gid: user.gid, env });
    const checkSeconds = Math.round((Date.now() - t1) / 100) / 10;
    const load1After = loadavg()[0]!;
    const out = readFileSync(checkLog, "utf8");
    const regress = parseRegressOutput(out, checkLog);
    const record: CheckRecord = {
      kind: "slicelab-pg-check",
      version: src.version,
      major: src.major,
      source: src.origin,
      patch: { hash: patchHash(src.major), files: applied.patches.map((p) => p.split("/").slice(-3).join("/")) },
      setting: opts.setting,
      serverSaid: serverLine(tree),
      target: "make check (src/test/regress, parallel schedule, temporary installation)",
      started: started.toISOString(),
      buildSeconds,
      checkSeconds,
      exitCode,
      host: { kernel: release(), cpus: cpus().length, load1Before, load1After },
      regress: { verdict: regress.verdict, total: regress.total, failed: regress.failed, passed: regress.tests.filter((t) => t.ok).length },
      configure,
    };
    if (opts.keepInstall) {
      const inst = join(tree, "tmp_install", prefix);
      if (!existsSync(join(inst, "bin", "postgres"))) throw new UserError(`make check left no temporary installation at ${inst}`);
      rmSync(opts.keepInstall, { recursive: true, force: true });
      cpSync(inst, opts.keepInstall, { recursive: true });
      writeFileAtomic(join(opts.keepInstall, "slicelab-check-install.json"), `${JSON.stringify({ from: "slicelab postgres check (temporary installation)", version: src.version, patch: patchHash(src.major), configure }, null, 2)}\n`);
      say(`kept the temporary installation in ${opts.keepInstall}`);
    }
    mkdirSync(opts.out, { recursive: true });
    const lines = out.split("\n").filter((l) => /^(not ok|ok)\s+\d+|\.\.\.\s+(ok|FAILED|failed)|tests (passed|failed)\.|^(test|parallel group)\b/.test(l.trim()));
    writeFileAtomic(join(opts.out, "regress.txt"), `${lines.join("\n")}\n`);
    writeFileAtomic(join(opts.out, "summary.json"), `${JSON.stringify(record, null, 2)}\n`);
    if (exitCode !== 0 || regress.failed > 0) {
      const diffs = join(tree, "src/test/regress/regression.diffs");
      if (existsSync(diffs)) {
        const d = readFileSync(diffs, "utf8");
        writeFileAtomic(join(opts.out, "regression.diffs.head"), d.split("\n").slice(0, 400).join("\n") + "\n");
      }
    }
    return record;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** sha256 (12 hex) of a record's regress lines, to tell records apart in notes. */
export function regressHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}
