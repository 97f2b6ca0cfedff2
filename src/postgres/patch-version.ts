/**
 * Which version of our PostgreSQL patch a record used: records name the patch
 * by its hash (12 hex digits of sha256 over the series' bytes); the table
 * kernel-patches/postgresql/versions.json says which hash is which version.
 * The answer for a record comes from its envelope's `postgres.patch` field
 * (record.json), so a notebook can label every record it reads.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";

export interface PatchVersionEntry {
  version: string;
  major: string;
  hash: string;
  /** The file (under kernel-patches/postgresql/) whose sha256 is the hash, when the kit keeps it. */
  file?: string;
  /** The numbered series directory whose patchHash is the hash (the current version). */
  series?: string;
  commit?: string;
  /** The diagnostic patch (MAJOR/diag/) of that version, applied on top of the series by the diag build. */
  diag?: boolean;
}

export function versionsFile(): string {
  return join(repoRoot(), "kernel-patches", "postgresql", "versions.json");
}

/** Reads and validates the table; errors name the file and the entry. */
export function readPatchVersions(file = versionsFile()): PatchVersionEntry[] {
  const j = JSON.parse(readFileSync(file, "utf8")) as { versions?: unknown };
  if (!Array.isArray(j.versions)) throw new ParseError(file, 1, 'a "versions" array', typeof j.versions);
  return j.versions.map((v, i) => {
    const e = v as Partial<PatchVersionEntry>;
    for (const k of ["version", "major", "hash"] as const) {
      if (typeof e[k] !== "string") throw new ParseError(file, 1, `versions[${i}].${k}: a string`, JSON.stringify(e[k]));
    }
    if (!/^[0-9a-f]{12}$/.test(e.hash!)) throw new ParseError(file, 1, `versions[${i}].hash: 12 hex digits`, JSON.stringify(e.hash));
    if (e.diag !== undefined && typeof e.diag !== "boolean") throw new ParseError(file, 1, `versions[${i}].diag: true or false`, JSON.stringify(e.diag));
    return e as PatchVersionEntry;
  });
}

/** "v1", "v2", … for a patch hash, or null when the table does not know it. */
export function patchVersionOf(hash: string, table = readPatchVersions()): string | null {
  return table.find((e) => e.hash === hash.slice(0, 12))?.version ?? null;
}

export interface RecordPatchVersion {
  /** "v1", "v2", "v1, v2" (a record with both), "unpatched", or "unknown". */
  version: string;
  hashes: string[];
  /** Why, in words: which hashes, or what the envelope said instead. */
  detail: string;
}

/** The patch version(s) named by an envelope's `postgres.patch` field (a string, or {unknown: why}). */
export function patchVersionOfField(field: unknown, table = readPatchVersions()): RecordPatchVersion {
  if (typeof field !== "string") {
    const why = field && typeof field === "object" && typeof (field as { unknown?: unknown }).unknown === "string" ? (field as { unknown: string }).unknown : "no postgres.patch field";
    return { version: "unknown", hashes: [], detail: why };
  }
  // a 12-hex patch hash, or the full sha256 it is the start of (the study runner records the full one)
  const hashes = [...new Set([...field.matchAll(/\b(?:[0-9a-f]{64}|[0-9a-f]{12})\b/g)].map((m) => m[0].slice(0, 12)))];
  if (hashes.length === 0) {
    return /none/.test(field) ? { version: "unpatched", hashes, detail: field } : { version: "unknown", hashes, detail: `no patch hash in "${field}"` };
  }
  // a diag build records "<series>+<diag>": the diagnostic patch names the same version, and the detail says which
  const entries = hashes.map((h) => table.find((e) => e.hash === h));
  const versions = hashes.map((h, i) => entries[i]?.version ?? `unknown hash ${h}`);
  const uniq = [...new Set(versions)].sort();
  const named = hashes.map((h, i) => `${h} = ${versions[i]}${entries[i]?.diag ? " diagnostic patch" : ""}`);
  return { version: uniq.join(", "), hashes, detail: named.join("; ") };
}

/** The patch version of the record in DIR (its record.json envelope). */
export function recordPatchVersion(dir: string, table = readPatchVersions()): RecordPatchVersion {
  const f = join(dir, "record.json");
  if (!existsSync(f)) return { version: "unknown", hashes: [], detail: `${f}: no record.json` };
  const env = JSON.parse(readFileSync(f, "utf8")) as { postgres?: { patch?: unknown } };
  return patchVersionOfField(env.postgres?.patch, table);
}

/** Rows "record | patch version | from the envelope" for record directories (names relative to RUNS). */
export function patchVersionRows(dirs: string[], runs: string, table = readPatchVersions()): string[][] {
  return dirs.map((d) => {
    const v = recordPatchVersion(d, table);
    return [d.startsWith(runs) ? d.slice(runs.length).replace(/^\/+/, "") : d, v.version, v.detail];
  });
}

/** The patch version of the record that holds PATH (the nearest directory at or above it with a record.json, up to RUNS). */
export function recordPatchVersionAt(path: string, runs: string, table = readPatchVersions()): RecordPatchVersion {
  let d = path.replace(/\/+$/, "");
  const stop = runs.replace(/\/+$/, "");
  while (d.length > stop.length && d.startsWith(stop)) {
    if (existsSync(join(d, "record.json"))) return recordPatchVersion(d, table);
    d = d.slice(0, d.lastIndexOf("/"));
  }
  return { version: "unknown", hashes: [], detail: `no record.json at or above ${path} (below ${runs})` };
}
