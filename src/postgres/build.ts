/**
 * Builds PostgreSQL from a source tree (source.ts) into a prefix, unpatched
 * ("baseline") or with our time-slice-extension patch ("patched"), both from
 * the same tree. The prefix is keyed by version, variant, source and patch
 * hash, so a build is done once and reused (also by fresh clones: the cache is
 * outside the repository); `PREFIX/slicelab-build.json` — written last — is
 * the build's provenance and its completion mark.
 *
 * Prefix location: cacheDir()/postgres/install when the unprivileged cluster
 * user can reach it, else workDir()/postgres/install (root's home is usually
 * mode 0700, and clusters run as `slicelab`).
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { cpus, release } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { assertBuildAllowed } from "../util/build-guard.js";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { cacheDir, workDir } from "../util/paths.js";
import { applyDiagPatches, applyPatchSeries, diagPatchFiles, diagPatchHash, patchFiles, patchHash } from "./patch.js";
import type { PgSource, SourceOrigin } from "./source.js";

const run = promisify(execFile);

/**
 * diag: the patched build plus kernel-patches/postgresql/MAJOR/diag/NNNN-*.patch,
 * configured with CPPFLAGS=-DSLICELAB_DIAG (counts faults inside spin-style
 * lock holds; never a benchmark build, never part of "both").
 */
export type BuildVariant = "baseline" | "patched" | "diag";
export const BUILD_VARIANTS: readonly BuildVariant[] = ["baseline", "patched"];
export const ALL_BUILD_VARIANTS: readonly BuildVariant[] = ["baseline", "patched", "diag"];

/** The define that turns the diagnostic patch on (diag variant only). */
export const DIAG_CPPFLAGS = "CPPFLAGS=-DSLICELAB_DIAG";

/** configure options of every kit build (besides --prefix). */
export const CONFIGURE_OPTIONS: readonly string[] = ["--without-icu", "--without-readline"];

export interface BuildRecord {
  kind: "slicelab-postgres-build";
  version: string;
  major: string;
  variant: BuildVariant;
  prefix: string;
  source: SourceOrigin;
  sourceKey: string;
  patch: { files: string[]; sha256: string[]; hash: string } | null;
  configure: string[];
  cc: string;
  ccVersion: string;
  make: string[];
  host: { kernel: string; glibc: string };
  /** Wall-clock seconds the build took (a recorded fact). */
  buildSeconds: number;
  builtAt: string;
}

export interface BuildResult {
  prefix: string;
  binDir: string;
  record: BuildRecord;
  /** true when an existing build was reused. */
  reused: boolean;
}

/** True when every directory from / down to PATH can be traversed by other users. */
export function traversableByOthers(path: string): boolean {
  let p = path;
  for (;;) {
    if (existsSync(p) && (statSync(p).mode & 0o001) === 0) return false;
    const parent = dirname(p);
    if (parent === p) return true;
    p = parent;
  }
}

/** Where prefixes go: see the module comment. */
export function installRoot(): string {
  if (process.env.SLICELAB_PG_INSTALL) return process.env.SLICELAB_PG_INSTALL;
  const cached = join(cacheDir(), "postgres", "install");
  return traversableByOthers(cached) ? cached : join(workDir(), "postgres", "install");
}

/** The cache key of a build: version, variant, source and (patched) patch hash. */
export function buildKey(src: PgSource, variant: BuildVariant): string {
  const parts = [src.version, variant, src.key, ...CONFIGURE_OPTIONS];
  if (variant !== "baseline") parts.push(patchHash(src.major));
  if (variant === "diag") parts.push(diagPatchHash(src.major), DIAG_CPPFLAGS);
  const h = createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 12);
  const hashes = variant === "patched" ? `${patchHash(src.major)}-` : variant === "diag" ? `${patchHash(src.major)}-${diagPatchHash(src.major)}-` : "";
  return `${src.version}-${variant}-${hashes}${h}`;
}

export function prefixFor(src: PgSource, variant: BuildVariant): string {
  return join(installRoot(), buildKey(src, variant));
}

/** The build record of a finished build at PREFIX, or undefined. */
export function readBuildRecord(prefix: string): BuildRecord | undefined {
  const f = join(prefix, "slicelab-build.json");
  if (!existsSync(f)) return undefined;
  return JSON.parse(readFileSync(f, "utf8")) as BuildRecord;
}

async function which(cmd: string): Promise<string | undefined> {
  try {
    return (await run("sh", ["-c", `command -v ${cmd}`])).stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Runs a build step niced, appending its output to LOG; a failure names the step and the log. */
function step(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, log: string, what: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const fd = openSync(log, "a");
    writeSync(fd, `\n$ (cd ${cwd} && ${cmd} ${args.join(" ")})\n`);
    const child = spawn("nice", ["-n", "10", cmd, ...args], { cwd, env, stdio: ["ignore", fd, fd] });
    child.on("error", (err) => {
      closeSync(fd);
      reject(new UserError(`${what}: cannot run ${cmd}: ${err.message}`));
    });
    child.on("close", (code) => {
      closeSync(fd);
      if (code === 0) resolvePromise();
      else {
        const tail = readFileSync(log, "utf8").trimEnd().split("\n").slice(-15).join("\n");
        reject(new UserError(`${what} failed (exit ${code}); full log: ${log}\n${tail}`));
      }
    });
  });
}

/** A lock directory next to the prefix, so two processes do not build the same prefix at once. */
async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileAtomic(join(lock, "pid"), String(process.pid));
      break;
    } catch {
      let pid = NaN;
      try {
        pid = Number(readFileSync(join(lock, "pid"), "utf8"));
      } catch {
        /* being created */
      }
      let alive = false;
      if (Number.isInteger(pid) && pid > 0) {
        try {
          process.kill(pid, 0);
          alive = true;
        } catch {
          alive = false;
        }
      }
      if (!alive && Number.isInteger(pid)) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 3000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface BuildOptions {
  /** make -j (default: min(2, CPUs)). */
  jobs?: number;
  /** Rebuild even when the prefix holds a finished build. */
  force?: boolean;
  log?: (line: string) => void;
}

/**
 * Builds SRC as VARIANT into its prefix (or reuses a finished build there).
 * The tree is copied, patched (after a dry run), configured with
 * CONFIGURE_OPTIONS, built with `make -jN` (ccache when installed) and installed.
 */
export async function buildPostgres(src: PgSource, variant: BuildVariant, opts: BuildOptions = {}): Promise<BuildResult> {
  const say = opts.log ?? (() => {});
  if (variant !== "baseline") patchFiles(src.major); // fail early, naming the missing series
  if (variant === "diag") diagPatchFiles(src.major);
  const prefix = prefixFor(src, variant);
  const existing = readBuildRecord(prefix);
  if (existing && !opts.force) return { prefix, binDir: join(prefix, "bin"), record: existing, reused: true };
  assertBuildAllowed(`PostgreSQL ${src.version} ${variant} in ${prefix}`);
  return withLock(prefix, async () => {
    const again = readBuildRecord(prefix);
    if (again && !opts.force) return { prefix, binDir: join(prefix, "bin"), record: again, reused: true };
    const started = Date.now();
    const buildRoot = join(cacheDir(), "postgres", "build");
    const tree = join(buildRoot, buildKey(src, variant));
    const log = join(cacheDir(), "postgres", "logs", `${buildKey(src, variant)}.log`);
    mkdirSync(dirname(log), { recursive: true });
    writeFileAtomic(log, `slicelab postgres build: ${src.version} ${variant}\n`);
    rmSync(tree, { recursive: true, force: true });
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(buildRoot, { recursive: true });
    say(`copying ${src.dir} to ${tree}`);
    cpSync(src.dir, tree, { recursive: true, filter: (p) => !p.endsWith("/.git") });
    let patch: BuildRecord["patch"] = null;
    if (variant !== "baseline") {
      say(`applying ${patchFiles(src.major).map((p) => p.split("/").pop()).join(", ")}`);
      const applied = await applyPatchSeries(tree, src.major);
      const diag = variant === "diag" ? await applyDiagPatches(tree, src.major) : [];
      const files = [...applied.patches, ...diag];
      patch = {
        files: files.map((p) => p.split("/").slice(variant === "diag" && diag.includes(p) ? -4 : -3).join("/")),
        sha256: files.map((p) => createHash("sha256").update(readFileSync(p)).digest("hex")),
        hash: variant === "diag" ? `${patchHash(src.major)}+${diagPatchHash(src.major)}` : patchHash(src.major),
      };
    }
    const ccache = await which("ccache");
    const gcc = (await which("gcc")) ?? (await which("cc"));
    if (!gcc) throw new UserError("no C compiler: install the Debian package build-essential");
    const cc = ccache ? `ccache ${gcc.split("/").pop()}` : gcc.split("/").pop()!;
    const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C" };
    // relative paths in ccache's hash: trees of other variants/clones share entries
    if (ccache) {
      env.CCACHE_BASEDIR = tree;
      // ccache's entries live in the kit's cache too, so an empty SLICELAB_CACHE is a truly cold build.
      env.CCACHE_DIR = join(cacheDir(), "postgres", "ccache");
    }
    const configure = [`--prefix=${prefix}`, ...CONFIGURE_OPTIONS, ...(variant === "diag" ? [DIAG_CPPFLAGS] : [])];
    const jobs = opts.jobs ?? Math.max(1, Math.min(2, cpus().length));
    say(`configure ${configure.join(" ")} CC="${cc}"`);
    await step("./configure", [...configure, `CC=${cc}`], tree, env, log, `configure (${src.version} ${variant})`);
    say(`make -j${jobs} (log: ${log})`);
    await step("make", [`-j${jobs}`, "-s"], tree, env, log, `make (${src.version} ${variant})`);
    await step("make", ["-s", "install"], tree, env, log, `make install (${src.version} ${variant})`);
    const ccVersion = (await run(gcc, ["--version"])).stdout.split("\n")[0]!;
    const glibc = (await run("ldd", ["--version"]).catch(() => ({ stdout: "" }))).stdout.split("\n")[0] ?? "";
    const record: BuildRecord = {
      kind: "slicelab-postgres-build",
      version: src.version,
      major: src.major,
      variant,
      prefix,
      source: src.origin,
      sourceKey: src.key,
      patch,
      configure: [...configure, `CC=${cc}`],
      cc,
      ccVersion,
      make: [`make -j${jobs}`, "make install"],
      host: { kernel: release(), glibc },
      buildSeconds: Math.round((Date.now() - started) / 1000),
      builtAt: new Date().toISOString(),
    };
    writeFileAtomic(join(prefix, "slicelab-build.json"), `${JSON.stringify(record, null, 2)}\n`);
    rmSync(tree, { recursive: true, force: true });
    return { prefix, binDir: join(prefix, "bin"), record, reused: false };
  });
}
