/**
 * PostgreSQL source trees for the kit's own builds: the Debian source package
 * (postgresql-18 from sid, postgresql-15 from bookworm) fetched through the
 * private apt configuration, or a tarball / checkout the user names.
 *
 * The tree is the pristine upstream source (`dpkg-source --skip-patches`):
 * Debian's packaging patches change install paths and the default socket
 * directory, which the kit does not want. Trees are unpacked once under
 * cacheDir()/postgres/src and never modified; builds copy them.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { promisify } from "node:util";
import { downloadSource, privateApt, sourceVersion, updatePrivateApt } from "../debian/apt.js";
import { UserError } from "../util/errors.js";
import { cacheDir } from "../util/paths.js";

const run = promisify(execFile);

/** The major versions the kit fetches from Debian, with where they come from. */
export const DEBIAN_POSTGRES: Record<string, { suite: string; pkgVersion: string; pkg: string }> = {
  "18": { suite: "sid", pkg: "postgresql-18", pkgVersion: "postgresql-18" },
  // bookworm-security's 15.20 source is not on the mirror (404): pin the point release
  "15": { suite: "bookworm", pkg: "postgresql-15", pkgVersion: "postgresql-15=15.18-0+deb12u1" },
};

export type SourceOrigin =
  | { kind: "debian"; suite: string; package: string; debianVersion: string; files: { name: string; sha256: string }[] }
  | { kind: "tarball"; path: string; sha256: string }
  | { kind: "directory"; path: string; gitCommit: string | null };

export interface PgSource {
  /** Upstream version from configure's PACKAGE_VERSION, e.g. "18.6". */
  version: string;
  /** Major version, e.g. "18". */
  major: string;
  /** The pristine tree (read-only by convention). */
  dir: string;
  origin: SourceOrigin;
  /** 12 hex digits identifying the source: part of every build's cache key. */
  key: string;
}

/** Where downloads and unpacked trees live. */
export function sourceCacheDir(): string {
  return join(cacheDir(), "postgres", "src");
}

function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

/** PACKAGE_VERSION from a PostgreSQL tree's configure script, e.g. "18.6"; throws when DIR is no PostgreSQL tree. */
export function treeVersion(dir: string): string {
  const configure = join(dir, "configure");
  if (!existsSync(configure) || !existsSync(join(dir, "src", "backend", "postmaster"))) {
    throw new UserError(`${dir}: expected a PostgreSQL source tree (configure and src/backend/postmaster), found none`);
  }
  const text = readFileSync(configure, "utf8");
  const m = /^PACKAGE_VERSION='([^']+)'/m.exec(text);
  if (!m) throw new UserError(`${configure}: expected a line PACKAGE_VERSION='…', found none`);
  return m[1]!;
}

/** The major version of an upstream version string ("18.6" → "18", "15.18" → "15", "19devel" → "19"). */
export function majorOfVersion(version: string): string {
  const m = /^(\d+)/.exec(version);
  if (!m) throw new UserError(`PostgreSQL version: expected digits first, found ${JSON.stringify(version)}`);
  return m[1]!;
}

function finishTree(dir: string, origin: SourceOrigin, identity: string): PgSource {
  const version = treeVersion(dir);
  return { version, major: majorOfVersion(version), dir, origin, key: shortHash(identity) };
}

/** Unpacks into `dest` atomically: a temporary sibling renamed into place. */
async function unpackInto(dest: string, unpack: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = `${dest}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    await unpack(tmp);
    renameSync(tmp, dest);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Fetches (once) and unpacks the Debian source package for MAJOR ("15" or "18"). */
export async function fetchDebianSource(major: string, log: (line: string) => void = () => {}): Promise<PgSource> {
  const spec = DEBIAN_POSTGRES[major];
  if (!spec) {
    throw new UserError(`--version: expected one of ${Object.keys(DEBIAN_POSTGRES).sort().join(", ")}, found ${JSON.stringify(major)}`);
  }
  const apt = privateApt(spec.suite);
  const downloads = join(sourceCacheDir(), major);
  const pinned = spec.pkgVersion.includes("=") ? spec.pkgVersion.split("=")[1]! : undefined;
  let debVersion = pinned;
  if (debVersion === undefined) {
    // reuse what is cached before asking the network
    const cached = existsSync(downloads) ? readdirSync(downloads).filter((n) => n.startsWith(`${spec.pkg}_`) && n.endsWith(".dsc")) : [];
    if (cached.length === 1) debVersion = cached[0]!.slice(spec.pkg.length + 1, -".dsc".length);
    else {
      await updatePrivateApt(apt);
      debVersion = await sourceVersion(apt, spec.pkg);
      if (debVersion === undefined) throw new UserError(`no source package ${spec.pkg} in Debian ${spec.suite} (private apt under ${apt.root})`);
    }
  }
  const dscName = `${spec.pkg}_${debVersion.replace(/^\d+:/, "")}.dsc`;
  if (!existsSync(join(downloads, dscName))) {
    log(`downloading ${spec.pkg} ${debVersion} from Debian ${spec.suite}`);
    await updatePrivateApt(apt);
    await downloadSource(apt, `${spec.pkg}=${debVersion}`, downloads);
  }
  const files = readdirSync(downloads)
    .filter((n) => n.startsWith(`${spec.pkg}_${debVersion.split("-")[0]}`) || n === dscName)
    .filter((n) => /\.(dsc|tar\.\w+)$/.test(n) && !n.includes(".tmp-"))
    .sort()
    .map((name) => ({ name, sha256: sha256File(join(downloads, name)) }));
  const origin: SourceOrigin = { kind: "debian", suite: spec.suite, package: spec.pkg, debianVersion: debVersion, files };
  const dest = join(sourceCacheDir(), `${spec.pkg}_${debVersion}`);
  if (!existsSync(dest)) {
    log(`unpacking ${dscName} (pristine upstream source, Debian patches not applied)`);
    await unpackInto(dest, async (tmp) => {
      try {
        await run("dpkg-source", ["--skip-patches", "-x", join(downloads, dscName), tmp], { maxBuffer: 1 << 24 });
      } catch (err) {
        throw new UserError(`dpkg-source -x ${dscName} failed (Debian package dpkg-dev): ${(err as Error).message.split("\n")[0]}`);
      }
    });
    // dpkg-source leaves a copy of the orig tarball beside the tree: the download is enough
    for (const n of readdirSync(sourceCacheDir())) {
      if (/\.orig\.tar\./.test(n) && existsSync(join(downloads, n))) rmSync(join(sourceCacheDir(), n), { force: true });
    }
  }
  return finishTree(dest, origin, JSON.stringify(files));
}

/** A tarball (unpacked once into the cache, keyed by its sha256) or a directory (used in place). */
export async function localSource(path: string, log: (line: string) => void = () => {}): Promise<PgSource> {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new UserError(`--source ${path}: expected a PostgreSQL tarball or source directory, found nothing there`);
  if (statSync(abs).isDirectory()) {
    let gitCommit: string | null = null;
    if (existsSync(join(abs, ".git"))) {
      try {
        gitCommit = (await run("git", ["-C", abs, "rev-parse", "HEAD"])).stdout.trim();
      } catch {
        gitCommit = null;
      }
    }
    const version = treeVersion(abs);
    // without a commit, the tree's identity is its path and configure's mtime
    const identity = gitCommit ?? `${abs}:${statSync(join(abs, "configure")).mtimeMs}`;
    return { version, major: majorOfVersion(version), dir: abs, origin: { kind: "directory", path: abs, gitCommit }, key: shortHash(identity) };
  }
  if (!/\.tar(\.(gz|bz2|xz|zst))?$|\.tgz$/.test(abs)) {
    throw new UserError(`--source ${path}: expected a directory or a .tar.gz/.tar.bz2/.tar.xz tarball, found ${basename(abs)}`);
  }
  const sha = sha256File(abs);
  const dest = join(sourceCacheDir(), `tarball-${sha.slice(0, 12)}`);
  if (!existsSync(dest)) {
    log(`unpacking ${abs}`);
    mkdirSync(sourceCacheDir(), { recursive: true });
    await unpackInto(dest, async (tmp) => {
      mkdirSync(tmp, { recursive: true });
      try {
        await run("tar", ["-xf", abs, "-C", tmp, "--strip-components=1"], { maxBuffer: 1 << 24 });
      } catch (err) {
        throw new UserError(`tar -xf ${abs} failed: ${(err as Error).message.split("\n")[0]}`);
      }
    });
  }
  return finishTree(dest, { kind: "tarball", path: abs, sha256: sha }, sha);
}

/** `--source` when given, else the Debian package for `--version` (default 18). */
export async function resolveSource(opts: { major?: string; source?: string }, log?: (line: string) => void): Promise<PgSource> {
  if (opts.source !== undefined) {
    const src = await localSource(opts.source, log);
    if (opts.major !== undefined && opts.major !== src.major) {
      throw new UserError(`--version ${opts.major} but --source ${opts.source} holds PostgreSQL ${src.version}`);
    }
    return src;
  }
  return fetchDebianSource(opts.major ?? "18", log);
}
