/**
 * `slicelab kernel package`: Debian packages of a built kernel (`make bindeb-pkg`),
 * for installing it on a machine (the bare-metal path of REPRODUCE.md).
 *
 * bindeb-pkg does not leave a build directory as it found it: mkdebian bumps
 * `.version` (scripts/build-version) and debian/rules relinks vmlinux and
 * bzImage with that build number, so the image `slicelab vm run` boots would
 * no longer be the one whose hash slicelab-build.json records. It also writes
 * its packages to the parent of the object tree (dh_builddeb's `..`), which
 * for a kit build directory is shared with the other builds of that tree.
 * So packaging works on a copy of the build directory, kept at
 *
 *   BUILD/debs/objtree/           rsync of BUILD (timestamps kept: what BUILD compiled is not compiled again)
 *   BUILD/debs/*.deb              what dpkg-buildpackage wrote (the parent of the copy)
 *   BUILD/debs/*.buildinfo, *.changes
 *   BUILD/debs/slicelab-package.json   names, sizes, sha256, time of the packaging run
 *   BUILD/debs/slicelab-package.log    make's output
 *
 * and nothing lands outside BUILD.
 */
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, join } from "node:path";
import { execa } from "execa";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { kbuildEnv, readBuildRecord, withBuildLock } from "./build.js";
import { configureRecordPath } from "./configure.js";
import { sha256File } from "./fetch.js";
import { kernelCcacheDir, type KernelTree } from "./tree.js";

/** One package file dpkg-buildpackage produced, as `dpkg-deb --field` describes it. */
export interface PackageFile {
  /** Absolute path (in BUILD/debs/). */
  path: string;
  /** Binary package name, e.g. linux-image-7.2.13. */
  package: string;
  /** Debian version, e.g. 7.2.13-3. */
  version: string;
  architecture: string;
  /** Size of the .deb in bytes. */
  size: number;
  sha256: string;
}

/** What `kernel package` records in BUILD/debs/slicelab-package.json. Stable key order. */
export interface PackageRecord {
  /** The tree's version (Makefile) and the kernel release the packages install (`uname -r`). */
  version: string;
  kernelRelease: string;
  tree: string;
  buildDir: string;
  /** The copy of the build directory that bindeb-pkg ran in. */
  objtree: string;
  /** How the build directory was configured (from slicelab-configure.json): base and fragment files. */
  base: string | null;
  fragments: string[];
  /** sha256 of the .config packaged (the copy's, after bindeb-pkg's olddefconfig). */
  configSha256: string;
  /** sha256 of the build directory's bzImage the copy was taken from (slicelab-build.json). */
  fromBzImageSha256: string;
  /** sha256 of the copy's bzImage after bindeb-pkg: the kernel in the package (relinked with the bumped build number). */
  bzImageSha256: string;
  /** Compiler runs (`CC` lines) of the packaging make: objtool (built with absolute paths) and the version files, normally. */
  compiled: number;
  jobs: number;
  ccache: boolean;
  /** Wall-clock seconds of the copy and of `make bindeb-pkg`. */
  copySeconds: number;
  seconds: number;
  machine: { cpus: number };
  log: string;
  files: PackageFile[];
}

/** Where a build directory's packages and their record live. */
export function debsDir(buildDir: string): string {
  return join(buildDir, "debs");
}

export function packageRecordPath(buildDir: string): string {
  return join(debsDir(buildDir), "slicelab-package.json");
}

/** The package record of a build directory, if every file it names is still there with its size. */
export function readPackageRecord(buildDir: string): PackageRecord | undefined {
  const p = packageRecordPath(buildDir);
  if (!existsSync(p)) return undefined;
  const rec = JSON.parse(readFileSync(p, "utf8")) as PackageRecord;
  for (const f of rec.files) if (!existsSync(f.path) || statSync(f.path).size !== f.size) return undefined;
  return rec;
}

/** The linux-image package of a record (not -dbg, not linux-libc-dev or headers). */
export function imagePackage(rec: PackageRecord): PackageFile | undefined {
  return rec.files.find((f) => f.package.startsWith("linux-image-") && !f.package.endsWith("-dbg"));
}

/** `dpkg-deb --field`: the control fields of a .deb. */
export async function debFields(file: string): Promise<Map<string, string>> {
  const r = await execa("dpkg-deb", ["--field", file], { reject: false });
  if (r.exitCode !== 0) throw new UserError(`dpkg-deb --field ${file} failed: ${r.stderr.trim()}`);
  const m = new Map<string, string>();
  let key: string | undefined;
  for (const line of r.stdout.split("\n")) {
    const kv = /^([A-Za-z0-9-]+):\s?(.*)$/.exec(line);
    if (kv) {
      key = kv[1]!;
      m.set(key, kv[2]!);
    } else if (key && /^\s/.test(line)) {
      m.set(key, `${m.get(key)}\n${line.trim()}`);
    }
  }
  return m;
}

/** `dpkg-deb --contents`: the paths a .deb installs ("./boot/vmlinuz-…" → "/boot/vmlinuz-…"). */
export async function debContents(file: string): Promise<string[]> {
  const r = await execa("dpkg-deb", ["--contents", file], { reject: false });
  if (r.exitCode !== 0) throw new UserError(`dpkg-deb --contents ${file} failed: ${r.stderr.trim()}`);
  const paths: string[] = [];
  for (const line of r.stdout.split("\n")) {
    // drwxr-xr-x root/root         0 2026-11-30 04:10 ./boot/   (symlinks: "name -> target")
    const m = /^\S+\s+\S+\s+\d+\s+\S+\s+\S+\s+\.(\/.*?)(?: -> .*)?$/.exec(line);
    if (m) paths.push(m[1]!);
  }
  return paths;
}

/** The first executable called `name` on $PATH. */
export function onPath(name: string): string | undefined {
  for (const d of (process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
    if (d && existsSync(join(d, name))) return join(d, name);
  }
  return undefined;
}

/** Tools bindeb-pkg needs beyond a kernel build, with the Debian package providing each. */
const TOOLS: [string, string][] = [
  ["dpkg-buildpackage", "dpkg-dev"],
  ["dh_testdir", "debhelper"],
  ["rsync", "rsync"],
];

function checkTools(): void {
  for (const [tool, pkg] of TOOLS) {
    if (!onPath(tool)) throw new UserError(`${tool} is not installed (Debian package ${pkg}): \`make bindeb-pkg\` needs it`);
  }
}

export interface PackageOptions {
  tree: KernelTree;
  buildDir: string;
  jobs?: number;
  /** Receives every output line of make (the CLI streams them). */
  onLine?: (line: string) => void;
  log?: (s: string) => void;
}

/** Files of an earlier packaging run in BUILD/debs (removed before a new one). */
function oldOutputs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.(deb|ddeb|buildinfo|changes)$/.test(f) || f === "slicelab-package.json")
    .map((f) => join(dir, f));
}

/**
 * Packages a built kernel: copies BUILD to BUILD/debs/objtree (holding the
 * build's lock), runs `make O=… bindeb-pkg` there niced and through ccache
 * when the build used it, and records the .deb files dpkg-buildpackage listed
 * in debian/files. A failed run leaves no record.
 */
export async function packageKernel(opts: PackageOptions): Promise<PackageRecord> {
  const { tree, buildDir } = opts;
  const build = readBuildRecord(buildDir);
  if (!build) throw new UserError(`${buildDir}: no built kernel (slicelab-build.json or its bzImage is missing): run \`slicelab kernel build\` with the same options first`);
  const cfgSha = await sha256File(join(buildDir, ".config"));
  if (cfgSha !== build.configSha256) {
    throw new UserError(`${buildDir}/.config: changed since the last build (sha256 ${cfgSha.slice(0, 12)}, built ${build.configSha256.slice(0, 12)}): run \`slicelab kernel build\` first`);
  }
  checkTools();
  const jobs = opts.jobs ?? availableParallelism();
  const dir = debsDir(buildDir);
  const objtree = join(dir, "objtree");
  mkdirSync(dir, { recursive: true });
  for (const f of oldOutputs(dir)) rmSync(f, { force: true });

  // The copy: rsync keeps modification times, so make finds every object up to date.
  const c0 = process.hrtime.bigint();
  await withBuildLock(buildDir, async () => {
    opts.log?.(`copying ${buildDir} → ${objtree}`);
    const r = await execa(
      "rsync",
      [
        // No --delete: objects only the copy has (modules, which `kernel build` does not
        // make) stay for the next run; make judges freshness as in any incremental build.
        "-a",
        "--exclude=/debs/",
        "--exclude=/slicelab-build.lock",
        "--exclude=/slicelab-*.json",
        "--exclude=/slicelab-build.log",
        // Made by bindeb-pkg in the copy only (headers_install, mkdebian): kept between runs.
        "--exclude=/usr/include/",
        "--exclude=/debian/",
        `${buildDir}/`,
        `${objtree}/`,
      ],
      { reject: false, all: true },
    );
    if (r.exitCode !== 0) throw new UserError(`rsync ${buildDir}/ ${objtree}/ failed (exit ${r.exitCode}):\n${(r.all ?? "").slice(-2000)}`);
  });
  const copySeconds = Number(process.hrtime.bigint() - c0) / 1e9;

  const logPath = join(dir, "slicelab-package.log");
  const log = createWriteStream(logPath);
  const args = [`O=${objtree}`, `-j${jobs}`, ...(build.ccache ? ["CC=ccache gcc"] : []), "bindeb-pkg"];
  const ccDir = kernelCcacheDir();
  const env = {
    ...kbuildEnv(ccDir),
    KDEB_CHANGELOG_DIST: "unstable",
    DEBEMAIL: "slicelab@slicelab",
    // No linux-image-*-dbg package (vmlinux with debug info: large with a distribution config, not needed here).
    DEB_BUILD_PROFILES: "pkg.linux-upstream.nokerneldbg",
  };
  opts.log?.(`make ${args.join(" ")} (in ${tree.dir})`);
  const t0 = process.hrtime.bigint();
  const child = execa("nice", ["-n", "10", "make", ...args], { cwd: tree.dir, env, reject: false, all: true, buffer: false });
  let tail: string[] = [];
  let compiled = 0;
  let partial = "";
  child.all?.on("data", (buf: Buffer) => {
    log.write(buf);
    // Chunks end anywhere: keep the unfinished last line for the next one.
    const lines = (partial + buf.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "") continue;
      if (/^\s+CC\s/.test(line)) compiled++;
      tail.push(line);
      if (tail.length > 60) tail = tail.slice(-40);
      opts.onLine?.(line);
    }
  });
  const r = await child;
  if (partial !== "") tail.push(partial);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await new Promise<void>((res) => log.end(res));
  if (r.exitCode !== 0) {
    const unmet = tail.map((l) => /Unmet build dependencies: (.*)$/.exec(l)?.[1]).find((x) => x !== undefined);
    if (unmet) {
      const pkgs = unmet.replace(/\([^)]*\)/g, "").split(/\s+/).filter(Boolean).map((p) => p.replace(/:native$/, ""));
      throw new UserError(`make bindeb-pkg: dpkg-buildpackage found unmet build dependencies: ${unmet}; install them (\`apt-get install ${pkgs.join(" ")}\`) and run again; full log: ${logPath}`);
    }
    throw new UserError(`make ${args.join(" ")} failed (exit ${r.exitCode}); full log: ${logPath}\n${tail.slice(-25).join("\n")}`);
  }

  // debian/files: "NAME_VERSION_ARCH.deb SECTION PRIORITY" per package built.
  const listed = join(objtree, "debian", "files");
  if (!existsSync(listed)) throw new UserError(`${listed}: missing after make bindeb-pkg; see ${logPath}`);
  const names = readFileSync(listed, "utf8")
    .split("\n")
    .map((l) => l.split(/\s+/)[0] ?? "")
    .filter((n) => n.endsWith(".deb"));
  if (names.length === 0) throw new UserError(`${listed}: lists no .deb after make bindeb-pkg; see ${logPath}`);
  const files: PackageFile[] = [];
  for (const n of names) {
    const path = join(dir, n);
    if (!existsSync(path)) throw new UserError(`${path}: listed in ${listed} but not written (expected in the parent of ${objtree})`);
    const f = await debFields(path);
    files.push({
      path,
      package: f.get("Package") ?? "",
      version: f.get("Version") ?? "",
      architecture: f.get("Architecture") ?? "",
      size: statSync(path).size,
      sha256: await sha256File(path),
    });
  }
  const conf = existsSync(configureRecordPath(buildDir))
    ? (JSON.parse(readFileSync(configureRecordPath(buildDir), "utf8")) as { base?: string; fragments?: { path: string }[] })
    : undefined;
  const rec: PackageRecord = {
    version: tree.version,
    kernelRelease: readFileSync(join(objtree, "include", "config", "kernel.release"), "utf8").trim(),
    tree: tree.dir,
    buildDir,
    objtree,
    base: conf?.base ?? null,
    fragments: (conf?.fragments ?? []).map((f) => basename(f.path)),
    configSha256: await sha256File(join(objtree, ".config")),
    fromBzImageSha256: build.bzImageSha256,
    bzImageSha256: await sha256File(join(objtree, "arch", "x86", "boot", "bzImage")),
    compiled,
    jobs,
    ccache: build.ccache,
    copySeconds: Math.round(copySeconds * 10) / 10,
    seconds: Math.round(seconds * 10) / 10,
    machine: { cpus: availableParallelism() },
    log: logPath,
    files,
  };
  writeFileAtomic(packageRecordPath(buildDir), `${JSON.stringify(rec, null, 2)}\n`);
  return rec;
}
