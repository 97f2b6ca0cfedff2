/**
 * `slicelab kernel fetch`: a Linux source tree from a Debian suite's
 * linux-source-X.Y binary package (through the kit's private apt
 * configuration: sid gives 7.x, bookworm 6.1 for the pre-7.0 reference), from
 * a kernel.org tarball, or from a git work tree.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { execa } from "execa";
import { downloadBinary, privateApt, sourceVersion, updatePrivateApt } from "../debian/apt.js";
import { UserError } from "../util/errors.js";
import { kernelCacheDir, majorMinor, saveTree, treeAt, treeVersion, type KernelTree } from "./tree.js";

export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** Extracts a kernel tarball into a fresh directory under kernel/src and returns the tree's path. */
async function extractTarball(tarball: string, name: string): Promise<string> {
  const srcRoot = join(kernelCacheDir(), "src");
  const final = join(srcRoot, name);
  if (existsSync(join(final, "Makefile"))) return final;
  const tmp = join(srcRoot, `.${name}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const r = await execa("tar", ["-xf", tarball, "-C", tmp], { reject: false, all: true });
  if (r.exitCode !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new UserError(`${tarball}: tar could not extract it:\n${r.all ?? ""}`);
  }
  const top = readdirSync(tmp);
  if (top.length !== 1 || !existsSync(join(tmp, top[0]!, "Makefile"))) {
    rmSync(tmp, { recursive: true, force: true });
    throw new UserError(`${tarball}: expected one top-level directory holding a kernel Makefile, found ${JSON.stringify(top.slice(0, 5))}`);
  }
  rmSync(final, { recursive: true, force: true });
  renameSync(join(tmp, top[0]!), final);
  rmSync(tmp, { recursive: true, force: true });
  return final;
}

export interface FetchOptions {
  /** A kernel tarball or a git work tree; default: Debian sid's linux-source package. */
  source?: string;
  /** Debian suite for the private apt configuration (default sid; bookworm gives linux-source-6.1). */
  suite?: string;
  /**
   * Whether the fetched tree becomes the current one (kernel/current.json), the
   * default tree of `configure`, `build` and `slicelab vm` (default true). A
   * reference tree (e.g. bookworm's 6.1 next to the 7.x one) is fetched with
   * false and named with `--tree` afterwards.
   */
  makeCurrent?: boolean;
  /**
   * Debian source only: use the private apt configuration's package lists and
   * the .deb already in kernel/debs without going to the network (no
   * `apt-get update`, no download); fails naming what is missing.
   */
  offline?: boolean;
  log?: (line: string) => void;
}

/** Fetches (or reuses) a source tree and records where it came from; unless told otherwise it becomes the current tree. */
export async function fetchKernel(opts: FetchOptions = {}): Promise<KernelTree> {
  const log = opts.log ?? (() => {});
  let tree: KernelTree;
  if (opts.source !== undefined) {
    const src = resolve(opts.source);
    if (!existsSync(src)) throw new UserError(`--source ${opts.source}: no such file or directory`);
    if (statSync(src).isDirectory()) {
      if (!existsSync(join(src, ".git"))) {
        throw new UserError(`--source ${opts.source}: expected a kernel tarball or a git work tree, found a directory without .git`);
      }
      const head = await execa("git", ["-C", src, "rev-parse", "HEAD"], { reject: false });
      if (head.exitCode !== 0) throw new UserError(`--source ${opts.source}: git rev-parse HEAD failed: ${head.stderr}`);
      const status = await execa("git", ["-C", src, "status", "--porcelain", "--untracked-files=no"], { reject: false });
      tree = { dir: src, version: treeVersion(src), origin: "git", gitCommit: head.stdout.trim(), gitDirty: status.stdout.trim() !== "" };
    } else {
      const sha = await sha256File(src);
      const stem = basename(src).replace(/\.tar(\.[a-z0-9]+)?$/, "");
      log(`extracting ${src}`);
      const dir = await extractTarball(src, `${stem}-${sha.slice(0, 12)}`);
      tree = { dir, version: treeVersion(dir), origin: "tarball", file: src, sha256: sha };
    }
  } else {
    const suite = opts.suite ?? "sid";
    const apt = privateApt(suite);
    if (opts.offline) {
      log(`offline: using the package lists already in ${apt.root}`);
    } else {
      log(`apt-get update (private ${suite} configuration, at most daily)`);
      await updatePrivateApt(apt);
    }
    const debVersion = await sourceVersion(apt, "linux");
    if (!debVersion) {
      throw new UserError(
        `no "linux" source package found in Debian ${suite} (private apt configuration ${apt.root})` +
          (opts.offline ? ": offline, and its package lists hold none; fetch once without offline" : ""),
      );
    }
    const [maj, min] = majorMinor(debVersion);
    const pkg = `linux-source-${maj}.${min}`;
    const name = `linux-${debVersion}`;
    const dir = join(kernelCacheDir(), "src", name);
    const debs = join(kernelCacheDir(), "debs");
    const debName = `${pkg}_${debVersion.replace(/^\d+:/, "")}_all.deb`;
    let deb = join(debs, debName);
    if (!existsSync(deb)) {
      if (opts.offline) throw new UserError(`offline: ${deb} is not in the cache; fetch ${pkg}=${debVersion} once without offline`);
      log(`apt-get download ${pkg}=${debVersion}`);
      deb = join(debs, await downloadBinary(apt, `${pkg}=${debVersion}`, debs));
    }
    const debSha = await sha256File(deb);
    const existing = existsSync(`${dir}.slicelab.json`) && existsSync(join(dir, "Makefile")) ? treeAt(dir) : undefined;
    if (existing && existing.sha256 === debSha) {
      log(`reusing ${dir}`);
      tree = existing;
    } else {
      // The package holds /usr/src/linux-source-X.Y.tar.xz; unpack just that member.
      const unpack = join(kernelCacheDir(), `.deb-x-${process.pid}`);
      rmSync(unpack, { recursive: true, force: true });
      log(`dpkg-deb -x ${deb}`);
      const x = await execa("dpkg-deb", ["-x", deb, unpack], { reject: false, all: true });
      if (x.exitCode !== 0) throw new UserError(`dpkg-deb -x ${deb} failed (package dpkg):\n${x.all ?? ""}`);
      const tarball = join(unpack, "usr/src", `${pkg}.tar.xz`);
      if (!existsSync(tarball)) throw new UserError(`${deb}: expected usr/src/${pkg}.tar.xz inside, found none`);
      const tarSha = await sha256File(tarball);
      log(`extracting ${pkg}.tar.xz`);
      rmSync(dir, { recursive: true, force: true });
      await extractTarball(tarball, name);
      rmSync(unpack, { recursive: true, force: true });
      tree = {
        dir,
        version: treeVersion(dir),
        origin: "debian",
        debianPackage: pkg,
        debianVersion: debVersion,
        file: deb,
        sha256: debSha,
        tarballSha256: tarSha,
      };
    }
  }
  saveTree(tree, opts.makeCurrent ?? true);
  return tree;
}
