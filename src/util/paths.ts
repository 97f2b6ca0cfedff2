import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import { existsSync } from "node:fs";

/** The repository root, found from this compiled file (dist/src/util) or the source (src/util). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "src"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("cannot find the slicelab repository root");
}

/** The kit's work directory: everything the kit creates at run time lives below it. */
export function workDir(): string {
  return resolve(process.env.SLICELAB_WORK ?? join(repoRoot(), ".work"));
}

/**
 * The kit's build cache (PostgreSQL and kernel builds, ccache, downloaded sources):
 * outside the clone so that fresh clones on the same machine reuse it.
 * `$SLICELAB_CACHE`, else `$XDG_CACHE_HOME/slicelab`, else `~/.cache/slicelab`.
 */
export function cacheDir(): string {
  if (process.env.SLICELAB_CACHE) return resolve(process.env.SLICELAB_CACHE);
  const base = process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? "/root", ".cache");
  return join(base, "slicelab");
}
