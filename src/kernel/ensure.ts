/**
 * The whole kernel path in one call (fetch → configure → build), reusing what
 * the cache already holds: what `slicelab vm` and the tests use to get a
 * bootable kernel with the slice extension.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { applySeries, defaultSeriesDir, readSeriesFile } from "./patch.js";
import { UserError } from "../util/errors.js";
import { buildKernel, readBuildRecord, type BuildRecord } from "./build.js";
import { buildDirFor, configureIsCurrent, configureKernel, DEFAULT_FRAGMENTS, fragmentPath } from "./configure.js";
import { fetchKernel } from "./fetch.js";
import { currentTree, kernelCacheDir, type KernelTree } from "./tree.js";

/** The current tree, fetching Debian sid's source when none was fetched yet. */
export async function ensureTree(log?: (s: string) => void): Promise<KernelTree> {
  if (existsSync(join(kernelCacheDir(), "current.json"))) return currentTree();
  return fetchKernel({ log });
}

/** The built kernel for `fragments` (default slice-ext + vm), if one is cached. */
export function cachedKernel(fragments: string[] = DEFAULT_FRAGMENTS): BuildRecord | undefined {
  if (!existsSync(join(kernelCacheDir(), "current.json"))) return undefined;
  const tree = currentTree();
  return readBuildRecord(buildDirFor(tree, fragments.map(fragmentPath)));
}

/** The tick rates the kit builds kernels for (the model's HZ sweep, issue 26 item 6); 1000 is slice-ext.config's. */
export const KERNEL_HZ = [100, 250, 1000] as const;

/**
 * The fragments of the kit's kernel at a tick rate: the default (slice-ext + vm, HZ 1000) or, for
 * 100 and 250, the same plus kernel-patches/linux/hz<N>.config, which replaces only the tick.
 */
export function hzFragments(hz: number): string[] {
  if (!(KERNEL_HZ as readonly number[]).includes(hz)) throw new UserError(`HZ ${hz}: expected one of ${KERNEL_HZ.join(", ")} (kernel-patches/linux/hz<N>.config)`);
  return hz === 1000 ? [...DEFAULT_FRAGMENTS] : [...DEFAULT_FRAGMENTS, `hz${hz}`];
}

/** Where `applySeries` puts `base` patched with the series in `seriesDir` (named by the series' hash). */
export function patchedTreeDir(base: KernelTree, seriesDir: string): string {
  const dir = resolve(seriesDir);
  const h = createHash("sha256");
  for (const p of readSeriesFile(dir)) h.update(p).update(readFileSync(join(dir, p)));
  return `${base.dir.replace(/\/+$/, "")}+${basename(dir)}-${h.digest("hex").slice(0, 12)}`;
}

/**
 * The built kernel (default fragments) of the current tree patched with `seriesDir`, if the cache
 * holds one; never patches or builds (that is `slicelab prepare`'s or `kernel patch`/`build`'s).
 */
export function cachedPatchedKernel(seriesDir: string, fragments: string[] = DEFAULT_FRAGMENTS): BuildRecord | undefined {
  if (!existsSync(join(kernelCacheDir(), "current.json"))) return undefined;
  const record = `${patchedTreeDir(currentTree(), seriesDir)}.slicelab.json`;
  if (!existsSync(record)) return undefined;
  const tree = JSON.parse(readFileSync(record, "utf8")) as KernelTree;
  return readBuildRecord(buildDirFor(tree, fragments.map(fragmentPath)));
}

/**
 * The current tree patched with a series (default kernel-patches/linux/series/slicelab): the copy
 * made by an earlier `slicelab kernel patch` of the same series (same hash), else a new one.
 */
export async function ensurePatchedTree(o: { seriesDir?: string; log?: (s: string) => void } = {}): Promise<KernelTree> {
  const base = await ensureTree(o.log);
  const dir = resolve(o.seriesDir ?? defaultSeriesDir());
  const dest = patchedTreeDir(base, dir);
  const record = `${dest}.slicelab.json`;
  if (existsSync(record) && existsSync(join(dest, "Makefile"))) return JSON.parse(readFileSync(record, "utf8")) as KernelTree;
  const r = await applySeries({ tree: base, seriesDir: dir, log: o.log });
  return JSON.parse(readFileSync(`${r.patchedTree!}.slicelab.json`, "utf8")) as KernelTree;
}

/** The default kernel image for `slicelab vm`, or an error saying how to make one. */
export function defaultKernelImage(): string {
  const rec = cachedKernel();
  if (!rec) {
    throw new UserError(
      "no built kernel in the cache: run `slicelab kernel fetch && slicelab kernel configure && slicelab kernel build` (or pass --kernel PATH)",
    );
  }
  return rec.bzImage;
}

/** Fetches, configures and builds as needed; a no-op (apart from make's check) when all is cached. */
export async function ensureKernel(
  opts: { tree?: KernelTree; fragments?: string[]; log?: (s: string) => void; onLine?: (s: string) => void } = {},
): Promise<BuildRecord> {
  const tree = opts.tree ?? (await ensureTree(opts.log));
  const frags = (opts.fragments ?? DEFAULT_FRAGMENTS).map(fragmentPath);
  const buildDir = buildDirFor(tree, frags);
  // Skip the merge (a minute on a busy machine) when the fragments are unchanged since it ran.
  if (!configureIsCurrent(buildDir, frags)) await configureKernel({ tree, fragments: frags });
  const configSha = createHash("sha256").update(readFileSync(join(buildDir, ".config"))).digest("hex");
  const prev = readBuildRecord(buildDir);
  if (prev && prev.configSha256 === configSha) return prev;
  opts.log?.(`building ${buildDir}`);
  return buildKernel({ tree, buildDir, onLine: opts.onLine });
}
