/**
 * `slicelab kernel patch`: applies a quilt-style series (a `series` file
 * listing patches, one per line) to a copy of a source tree. Every patch is
 * dry-run before it is applied; the first one that does not apply is reported
 * with its file and failing hunk, and the copy is removed: nothing half-patched
 * is left behind. The copy shares unchanged files with the original through
 * hard links (GNU patch replaces the files it changes, so the original stays intact).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { execa } from "execa";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { saveTree, type KernelTree } from "./tree.js";

export function defaultSeriesDir(): string {
  return join(repoRoot(), "kernel-patches", "linux", "series", "slicelab");
}

/** The patch files a series directory lists, in order (`#` comments allowed). */
export function readSeriesFile(dir: string): string[] {
  const file = join(dir, "series");
  if (!existsSync(file)) throw new UserError(`${file}: missing: a patch series directory needs a \`series\` file listing its patches`);
  const names: string[] = [];
  readFileSync(file, "utf8").split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") return;
    const name = line.split(/\s+/)[0]!;
    if (!existsSync(join(dir, name))) throw new UserError(`${file}:${i + 1}: expected a patch file in ${dir}, found no file "${name}"`);
    names.push(name);
  });
  if (names.length === 0) throw new UserError(`${file}: expected at least one patch, found none`);
  return names;
}

/** From GNU patch's output: the file and hunk that failed, as one phrase. */
export function failingHunk(output: string): string {
  let file = "?";
  const found: string[] = [];
  for (const line of output.split("\n")) {
    const f = /^(?:checking|patching) file '?([^']+?)'?$/.exec(line.trim());
    if (f) file = f[1]!;
    const h = /^Hunk #(\d+) FAILED at (\d+)/.exec(line.trim());
    if (h) found.push(`${file}: hunk #${h[1]} (at line ${h[2]})`);
    if (/can't find file to patch/.test(line)) found.push(`a file the patch names does not exist`);
    if (/Reversed \(or previously applied\) patch detected/.test(line)) found.push(`${file}: already applied (reversed patch detected)`);
  }
  return found.length > 0 ? found.join("; ") : output.trim().split("\n").slice(-3).join(" | ");
}

export interface PatchResult {
  base: string;
  seriesDir: string;
  patches: string[];
  seriesSha256: string;
  checkOnly: boolean;
  /** The patched copy (absent with checkOnly). */
  patchedTree?: string;
}

export async function applySeries(o: {
  tree: KernelTree;
  seriesDir?: string;
  checkOnly?: boolean;
  /** Where the patched copy goes (default: beside the tree, suffixed with the series hash). */
  dest?: string;
  log?: (s: string) => void;
}): Promise<PatchResult> {
  const dir = resolve(o.seriesDir ?? defaultSeriesDir());
  const patches = readSeriesFile(dir);
  const h = createHash("sha256");
  for (const p of patches) h.update(p).update(readFileSync(join(dir, p)));
  const seriesSha256 = h.digest("hex");
  const dest = o.dest ?? `${o.tree.dir.replace(/\/+$/, "")}+${basename(dir)}-${seriesSha256.slice(0, 12)}`;
  const tmp = `${dest}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  o.log?.(`copying ${o.tree.dir} (hard links) for patching`);
  const cp = await execa("cp", ["-al", o.tree.dir, tmp], { reject: false, all: true });
  if (cp.exitCode !== 0) throw new UserError(`cp -al ${o.tree.dir} ${tmp} failed:\n${cp.all ?? ""}`);
  try {
    for (const p of patches) {
      const file = join(dir, p);
      const dry = await execa("patch", ["-p1", "-N", "-F0", "--dry-run", "-i", file], { cwd: tmp, reject: false, all: true });
      if (dry.exitCode !== 0) {
        throw new UserError(`${file}: does not apply to ${o.tree.dir} (${o.tree.version}): ${failingHunk(dry.all ?? "")}`);
      }
      const real = await execa("patch", ["-p1", "-N", "-F0", "-s", "-i", file], { cwd: tmp, reject: false, all: true });
      if (real.exitCode !== 0) throw new UserError(`${file}: patch failed after a clean dry run: ${failingHunk(real.all ?? "")}`);
      o.log?.(`applied ${p}`);
    }
    if (o.checkOnly) return { base: o.tree.dir, seriesDir: dir, patches, seriesSha256, checkOnly: true };
    rmSync(dest, { recursive: true, force: true });
    renameSync(tmp, dest);
    saveTree({ ...o.tree, dir: dest, patchSeries: dir, patchSeriesSha256: seriesSha256 }, false);
    return { base: o.tree.dir, seriesDir: dir, patches, seriesSha256, checkOnly: false, patchedTree: dest };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
