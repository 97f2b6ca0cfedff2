import { existsSync, readFileSync } from "node:fs";
import { UserError } from "./errors.js";
import { parseJson } from "./json-check.js";

/**
 * The one JSON file reader. `readJson` is for files that must be there: a
 * missing file is a UserError naming it, bad JSON a ParseError at its line.
 * `tryReadJson` is for files that may be absent or half-written (a run that has
 * not finished): undefined instead of an error.
 */
export function readJson<T = unknown>(path: string): T {
  if (!existsSync(path)) throw new UserError(`${path}: expected a JSON file, found none`);
  return parseJson(path, readFileSync(path, "utf8")) as T;
}

export function tryReadJson<T = unknown>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}
