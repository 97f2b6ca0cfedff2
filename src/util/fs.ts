import { mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { UserError } from "./errors.js";

/**
 * Writes a file atomically: the content goes to a temporary sibling first and is
 * renamed into place, so a reader (or an interrupted run) never sees half a file.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

/** DIR/raw, created empty for a new record; refuses one that already holds files. */
export function freshRawDir(dir: string): string {
  const raw = join(dir, "raw");
  mkdirSync(raw, { recursive: true });
  if (readdirSync(raw).length > 0) throw new UserError(`${raw}: not empty; choose a new --out directory`);
  return raw;
}

/** Makes a directory (and its parents) for the kit's work files; returns it. */
export function makeDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
