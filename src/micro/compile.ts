/**
 * The kit's small C programs (the micro-benchmark, the slice probe for bundles, the stale-work
 * reproducer), compiled once per source hash into the cache: statically linked when the C library
 * allows it (they run inside the VM's guest and on other machines), else dynamically unless the
 * caller needs static. A marker beside the binary says which it is.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { cacheDir } from "../util/paths.js";

const run = promisify(execFile);

export interface CompiledProgram {
  path: string;
  sourceSha256: string;
  static: boolean;
}

/** Compiles SRC into cacheDir()/DIR/NAME-SHA12 (with `cc -O2 -Wall FLAGS`); `requireStatic` refuses a dynamic fallback. */
export async function compileCached(src: string, o: { dir: string; name: string; flags?: string[]; requireStatic?: string }): Promise<CompiledProgram> {
  const sha = createHash("sha256").update(readFileSync(src)).digest("hex");
  const dir = join(cacheDir(), o.dir);
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, `${o.name}-${sha.slice(0, 12)}`);
  const marker = `${bin}.json`;
  if (existsSync(bin) && existsSync(marker)) {
    return { path: bin, sourceSha256: sha, static: (JSON.parse(readFileSync(marker, "utf8")) as { static: boolean }).static };
  }
  const tmp = `${bin}.tmp-${process.pid}`;
  const cc = async (extra: string[]) => run("cc", ["-O2", "-Wall", ...(o.flags ?? []), ...extra, "-o", tmp, src]);
  let isStatic = true;
  try {
    await cc(["-static"]);
  } catch (err) {
    const e = err as { code?: string; stderr?: string };
    if (e.code === "ENOENT") throw new UserError("cc not found: install the Debian package build-essential");
    if (o.requireStatic) throw new UserError(`compiling ${src} statically failed (${o.requireStatic}; libc6-dev's static libraries are needed):\n${e.stderr ?? String(err)}`);
    isStatic = false;
    try {
      await cc([]);
    } catch (err2) {
      throw new UserError(`compiling ${src} failed:\n${(err2 as { stderr?: string }).stderr ?? String(err2)}`);
    }
  }
  renameSync(tmp, bin);
  writeFileAtomic(marker, `${JSON.stringify({ static: isStatic, sourceSha256: sha })}\n`);
  return { path: bin, sourceSha256: sha, static: isStatic };
}
