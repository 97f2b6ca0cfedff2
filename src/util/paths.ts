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
