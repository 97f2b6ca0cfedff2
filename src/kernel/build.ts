/**
 * `slicelab kernel build`: `make -jN bzImage` in a configured build directory,
 * through ccache (cache under cacheDir()/kernel/ccache), niced; the wall time,
 * ccache hit counts and the image's hash are recorded beside the build.
 */
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { assertBuildAllowed } from "../util/build-guard.js";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { sha256File } from "./fetch.js";
import { kernelCacheDir, kernelCcacheDir, type KernelTree } from "./tree.js";

export interface BuildRecord {
  version: string;
  tree: string;
  buildDir: string;
  bzImage: string;
  bzImageSha256: string;
  configSha256: string;
  jobs: number;
  ccache: boolean;
  /** ccache counts for this build (differences of `ccache --print-stats`). */
  ccacheHits: number | null;
  ccacheMisses: number | null;
  /** Wall-clock seconds of the make run; whether anything had to be compiled. */
  seconds: number;
  upToDate: boolean;
  machine: { cpus: number };
  log: string;
}

/** Reads ccache's machine-readable statistics (`ccache --print-stats`, ccache ≥ 3.7). */
export async function ccacheStats(dir: string): Promise<Map<string, number> | undefined> {
  const r = await execa("ccache", ["--print-stats"], { env: { CCACHE_DIR: dir }, reject: false });
  if (r.exitCode !== 0) return undefined;
  const m = new Map<string, number>();
  for (const line of r.stdout.split("\n")) {
    const [k, v] = line.split("\t");
    if (k && v && /^\d+$/.test(v)) m.set(k, Number(v));
  }
  return m;
}

function hits(s: Map<string, number>): number {
  return (s.get("direct_cache_hit") ?? 0) + (s.get("preprocessed_cache_hit") ?? 0);
}
function misses(s: Map<string, number>): number {
  return s.get("cache_miss") ?? 0;
}

export interface BuildOptions {
  tree: KernelTree;
  buildDir: string;
  jobs?: number;
  ccache?: boolean;
  /** ccache directory (default cacheDir()/kernel/ccache); the cold benchmark passes an empty one. */
  ccacheDir?: string;
  /** Extra make targets after bzImage (e.g. "modules"). */
  targets?: string[];
  /** Receives every output line of make (the CLI streams them). */
  onLine?: (line: string) => void;
}

/** Path of the record `kernel build` writes in a build directory. */
export function buildRecordPath(buildDir: string): string {
  return join(buildDir, "slicelab-build.json");
}

/** The last build record of a build directory, if its image still exists. */
export function readBuildRecord(buildDir: string): BuildRecord | undefined {
  const p = buildRecordPath(buildDir);
  if (!existsSync(p)) return undefined;
  const rec = JSON.parse(readFileSync(p, "utf8")) as BuildRecord;
  return existsSync(rec.bzImage) ? rec : undefined;
}

export async function buildKernel(opts: BuildOptions): Promise<BuildRecord> {
  const { tree, buildDir } = opts;
  const cfg = join(buildDir, ".config");
  if (!existsSync(cfg)) throw new UserError(`${cfg}: missing: run \`slicelab kernel configure\` first`);
  assertBuildAllowed(`the kernel in ${buildDir}`);
  const jobs = opts.jobs ?? availableParallelism();
  const useCcache = opts.ccache ?? true;
  const ccDir = opts.ccacheDir ?? kernelCcacheDir();
  if (useCcache) {
    const which = await execa("ccache", ["--version"], { reject: false });
    if (which.exitCode !== 0) throw new UserError("ccache is not installed (Debian package ccache); or pass --no-ccache");
    mkdirSync(ccDir, { recursive: true });
  }
  return withBuildLock(buildDir, () => runBuild(opts, jobs, useCcache, ccDir));
}

/**
 * Runs `fn` holding the build directory's lock (slicelab-build.lock, the pid of
 * the holder): one make per build directory, since a second one would corrupt
 * the first's objects. `kernel package` takes it too while it copies the build.
 */
export async function withBuildLock<T>(buildDir: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(buildDir, "slicelab-build.lock");
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, "utf8"));
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {
      alive = false;
    }
    if (alive && pid !== process.pid) throw new UserError(`${buildDir}: another build is running (pid ${pid}, lock ${lock}); wait for it`);
  }
  writeFileAtomic(lock, String(process.pid));
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Environment of the kit's kernel makes: ccache's directory and hashing, a fixed build user and host. */
export function kbuildEnv(ccacheDir: string): Record<string, string> {
  return {
    // Relative paths in ccache's hash: build directories at the same depth share hits.
    CCACHE_DIR: ccacheDir,
    CCACHE_BASEDIR: kernelCacheDir(),
    CCACHE_NOHASHDIR: "1",
    KBUILD_BUILD_USER: "slicelab",
    KBUILD_BUILD_HOST: "slicelab",
  };
}

async function runBuild(opts: BuildOptions, jobs: number, useCcache: boolean, ccDir: string): Promise<BuildRecord> {
  const { tree, buildDir } = opts;
  const cfg = join(buildDir, ".config");
  const before = useCcache ? await ccacheStats(ccDir) : undefined;
  const configBefore = createHash("sha256").update(readFileSync(cfg)).digest("hex");
  const image = join(buildDir, "arch/x86/boot/bzImage");
  const logPath = join(buildDir, "slicelab-build.log");
  const log = createWriteStream(logPath);
  const args = [`O=${buildDir}`, `-j${jobs}`, ...(useCcache ? ["CC=ccache gcc"] : []), "bzImage", ...(opts.targets ?? [])];
  const env = kbuildEnv(ccDir);
  const t0 = process.hrtime.bigint();
  const child = execa("nice", ["-n", "10", "make", ...args], { cwd: tree.dir, env, reject: false, all: true, buffer: false });
  let compiled = 0;
  let tail: string[] = [];
  const onData = (buf: Buffer): void => {
    log.write(buf);
    for (const line of buf.toString().split("\n")) {
      if (line === "") continue;
      if (/^\s+CC\s/.test(line)) compiled++;
      tail.push(line);
      if (tail.length > 60) tail = tail.slice(-40);
      opts.onLine?.(line);
    }
  };
  child.all?.on("data", onData);
  const r = await child;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await new Promise<void>((res) => log.end(res));
  if (r.exitCode !== 0 || !existsSync(image)) {
    throw new UserError(`make ${args.join(" ")} failed (exit ${r.exitCode}); full log: ${logPath}\n${tail.slice(-25).join("\n")}`);
  }
  const after = useCcache ? await ccacheStats(ccDir) : undefined;
  // make's syncconfig may rewrite .config (same options, normalised); keep the
  // configure record in step so an unchanged configuration is not merged again.
  const configAfter = createHash("sha256").update(readFileSync(cfg)).digest("hex");
  const confRec = join(buildDir, "slicelab-configure.json");
  if (configAfter !== configBefore && existsSync(confRec)) {
    const c = JSON.parse(readFileSync(confRec, "utf8")) as { configSha256: string };
    if (c.configSha256 === configBefore) writeFileAtomic(confRec, `${JSON.stringify({ ...c, configSha256: configAfter, configSha256AtConfigure: configBefore }, null, 2)}\n`);
  }
  const rec: BuildRecord = {
    version: tree.version,
    tree: tree.dir,
    buildDir,
    bzImage: image,
    bzImageSha256: await sha256File(image),
    configSha256: configAfter,
    jobs,
    ccache: useCcache,
    ccacheHits: before && after ? hits(after) - hits(before) : null,
    ccacheMisses: before && after ? misses(after) - misses(before) : null,
    seconds: Math.round(seconds * 10) / 10,
    upToDate: compiled === 0,
    machine: { cpus: availableParallelism() },
    log: logPath,
  };
  writeFileAtomic(buildRecordPath(buildDir), `${JSON.stringify(rec, null, 2)}\n`);
  return rec;
}
