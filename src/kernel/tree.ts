/**
 * Where kernel sources and builds live, and what we know about a source tree.
 *
 * Everything is under `cacheDir()/kernel` (not the clone's .work/), so a fresh
 * clone on the same machine reuses the fetched tree, the build and ccache:
 *
 *   kernel/debs/…                      downloaded linux-source-*.deb
 *   kernel/src/<name>/                 extracted source trees
 *   kernel/src/<name>.slicelab.json    the tree's fetch record (origin, version, sha256)
 *   kernel/current.json                the tree `configure`/`build` use by default
 *   kernel/build/<version>/<fragments>/  out-of-tree build directories (make O=…)
 *   kernel/ccache/                     ccache for kernel builds
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { cacheDir } from "../util/paths.js";

export function kernelCacheDir(): string {
  return join(cacheDir(), "kernel");
}

export function kernelCcacheDir(): string {
  return join(kernelCacheDir(), "ccache");
}

/** How a source tree was obtained. Stable key order (written as JSON). */
export interface KernelTree {
  /** Absolute path of the source tree (the directory holding the top Makefile). */
  dir: string;
  /** VERSION.PATCHLEVEL.SUBLEVEL[EXTRAVERSION] from the tree's Makefile. */
  version: string;
  origin: "debian" | "tarball" | "git";
  /** Debian package name and version (origin debian). */
  debianPackage?: string;
  debianVersion?: string;
  /** The file fetched or given: the .deb (debian), the tarball (tarball). */
  file?: string;
  /** sha256 of `file`. */
  sha256?: string;
  /** sha256 of the kernel tarball inside the .deb (origin debian). */
  tarballSha256?: string;
  /** `git rev-parse HEAD` and whether the work tree had local changes (origin git). */
  gitCommit?: string;
  gitDirty?: boolean;
  /** A tree made by `slicelab kernel patch`: the series directory and its hash. */
  patchSeries?: string;
  patchSeriesSha256?: string;
}

/** Reads VERSION, PATCHLEVEL, SUBLEVEL and EXTRAVERSION from a kernel tree's Makefile. */
export function treeVersion(dir: string): string {
  const mk = join(dir, "Makefile");
  if (!existsSync(mk)) throw new UserError(`${dir}: expected a Linux source tree (no Makefile found)`);
  const text = readFileSync(mk, "utf8").split("\n").slice(0, 12);
  const get = (key: string): string | undefined => {
    for (const line of text) {
      const m = new RegExp(`^${key}\\s*=\\s*(\\S*)`).exec(line);
      if (m) return m[1]!;
    }
    return undefined;
  };
  const [v, p, s] = [get("VERSION"), get("PATCHLEVEL"), get("SUBLEVEL")];
  if (!v || p === undefined || s === undefined) {
    throw new UserError(`${mk}:1: expected VERSION, PATCHLEVEL and SUBLEVEL in the first lines, found ${JSON.stringify(text.slice(0, 4).join(" | "))}`);
  }
  return `${v}.${p}.${s}${get("EXTRAVERSION") ?? ""}`;
}

/** The major.minor of a kernel version ("7.2.13" → [7, 2]). */
export function majorMinor(version: string): [number, number] {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) throw new UserError(`expected a kernel version like 7.2.13, found "${version}"`);
  return [Number(m[1]), Number(m[2])];
}

function recordPath(dir: string): string {
  return `${dir.replace(/\/+$/, "")}.slicelab.json`;
}

/** Writes the fetch record next to the tree and (unless told not to) marks it current. */
export function saveTree(tree: KernelTree, makeCurrent = true): void {
  const text = `${JSON.stringify(tree, null, 2)}\n`;
  // Trees the kit extracted get their record beside them; a user's git tree is
  // not ours to write into, so its record lives in the cache.
  const path = tree.origin === "git" ? join(kernelCacheDir(), "src", `${basename(tree.dir)}.git.slicelab.json`) : recordPath(tree.dir);
  writeFileAtomic(path, text);
  if (makeCurrent) writeFileAtomic(join(kernelCacheDir(), "current.json"), text);
}

/** The tree `configure` and `build` use when none is named: the last one fetched. */
export function currentTree(): KernelTree {
  const path = join(kernelCacheDir(), "current.json");
  if (!existsSync(path)) {
    throw new UserError(`no kernel source fetched yet (${path} is missing): run \`slicelab kernel fetch\` first`);
  }
  const tree = JSON.parse(readFileSync(path, "utf8")) as KernelTree;
  if (!existsSync(join(tree.dir, "Makefile"))) {
    throw new UserError(`${path}: the recorded source tree ${tree.dir} is gone: run \`slicelab kernel fetch\` again`);
  }
  return tree;
}

/** A tree given by path: its record if the kit fetched it, else what its Makefile says. */
export function treeAt(dir: string): KernelTree {
  const rec = recordPath(dir);
  if (existsSync(rec)) return JSON.parse(readFileSync(rec, "utf8")) as KernelTree;
  return { dir, version: treeVersion(dir), origin: existsSync(join(dir, ".git")) ? "git" : "tarball" };
}
