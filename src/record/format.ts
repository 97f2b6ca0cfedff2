import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ParseError, UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";

/**
 * The one record format. Every experiment leaves a directory with `record.json`
 * (this envelope) beside its raw files: what study it belongs to, how it was
 * designed, the command that made it, and the machine it ran on. Runner,
 * analysis, claims, notebooks and the index all read records through this
 * module; none of them imports the runner to do so.
 *
 * A field the experiment did not record is `{ "unknown": "why" }`, never a
 * guess and never silently absent.
 *
 * New records live at data/runs/<study>/<UTC stamp>/; records made before this
 * format (data/runs/<name>/) carry the same envelope, derived from their own
 * provenance files by `slicelab record convert` (`derivedFrom` names them).
 */

export const RECORD_FORMAT = "slicelab-record/1";
export const RECORD_FILE = "record.json";
export const SUMS_FILE = "SHA256SUMS";

/** A value the record does not have, and why. */
export interface Unknown {
  unknown: string;
}
export type Field<T> = T | Unknown;

export function unknown(why: string): Unknown {
  return { unknown: why };
}

export function isUnknown(v: unknown): v is Unknown {
  return typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as Unknown).unknown === "string" && Object.keys(v).length === 1;
}

/** The value of a field, or undefined when it is unknown. */
export function known<T>(v: Field<T>): T | undefined {
  return isUnknown(v) ? undefined : (v as T);
}

/** A field as text: its value, or "unknown (why)". */
export function fieldText(v: Field<unknown>): string {
  if (isUnknown(v)) return `unknown (${v.unknown})`;
  if (Array.isArray(v)) return v.map(String).join(" ");
  if (typeof v === "object" && v !== null) return JSON.stringify(v);
  return String(v);
}

export interface RecordEnvelope {
  format: typeof RECORD_FORMAT;
  /** The study file (studies/NAME.json) the record belongs to. */
  study: string;
  /** One line: what the record is. */
  title: string;
  /** Where it ran: on the host, or inside the kit's VM (with the accelerator). */
  environment: Field<{ kind: "host" | "vm"; detail: string; setting?: "bare metal" | "virtual machine" | "sandbox"; timing?: "real" | "emulated" }>;
  /** The design: factors and levels, order, runs, seed. */
  design: Field<Record<string, unknown>>;
  /** The command line that made it (argv, or a line quoted from the record's README). */
  command: Field<string[] | string>;
  kit: { commit: Field<string>; dirty: Field<boolean> };
  host: { hostname: Field<string>; cpuModel: Field<string>; cpus: Field<number>; memoryBytes: Field<number> };
  kernel: {
    release: Field<string>;
    configSha256: Field<string>;
    /** The preemption mode the runs used (none, voluntary, full, lazy), or several when it was a factor. */
    preemptMode: Field<string>;
    /** Whether prctl(PR_RSEQ_SLICE_EXTENSION) worked ("available", "unavailable: …"). */
    sliceExtension: Field<string>;
  };
  glibc: Field<string>;
  postgres: { version: Field<string>; build: Field<string>; patch: Field<string> };
  started: Field<string>;
  ended: Field<string>;
  /** What else ran on the machine during the record (load, other VMs, builds). */
  concurrent: Field<string>;
  /** The record's own files (relative paths, top level) other than record.json. */
  files: string[];
  /** Provenance files this envelope was derived from (converted records); [] for records the runner wrote. */
  derivedFrom: string[];
  /** The study's verdict on this record, when it was analysed. */
  analysis: Field<{ verdict: string; reason: string; file: string }>;
  notes: string[];
  /** Where the record was before `slicelab record convert` moved it (data/runs/OLD), when it was moved. */
  formerPath?: string;
}

const FIELDS: (keyof RecordEnvelope)[] = [
  "format", "study", "title", "environment", "design", "command", "kit", "host", "kernel", "glibc", "postgres",
  "started", "ended", "concurrent", "files", "derivedFrom", "analysis", "notes", "formerPath",
];

/** A record with the directory it was read from. */
export interface LoadedRecord {
  dir: string;
  file: string;
  record: RecordEnvelope;
}

function lineOfKey(text: string, key: string): number {
  const i = text.indexOf(`"${key}"`);
  return i < 0 ? 1 : text.slice(0, i).split("\n").length;
}

/** Checks a parsed record.json; errors name the file, the line of the field and the field. */
export function validateRecord(raw: unknown, file: string, text: string): RecordEnvelope {
  const fail = (key: string, expected: string, found: unknown): never => {
    throw new ParseError(file, lineOfKey(text, key), `${key} to be ${expected}`, found === undefined ? "nothing" : JSON.stringify(found)?.slice(0, 60) ?? String(found));
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ParseError(file, 1, "a JSON object (a slicelab record)", JSON.stringify(raw)?.slice(0, 40) ?? "nothing");
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!(FIELDS as string[]).includes(k)) fail(k, `one of the fields ${FIELDS.join(", ")}`, k);
  if (o.format !== RECORD_FORMAT) fail("format", `"${RECORD_FORMAT}"`, o.format);
  for (const k of ["study", "title"]) if (typeof o[k] !== "string" || (o[k] as string).length === 0) fail(k, "a non-empty string", o[k]);
  const field = (k: string, v: unknown, check: (x: unknown) => boolean, expected: string) => {
    if (v === undefined) fail(k, `${expected} or {"unknown": why}`, v);
    if (isUnknown(v)) {
      if ((v as Unknown).unknown.trim().length === 0) fail(k, "an unknown with a reason", v);
      return;
    }
    if (!check(v)) fail(k, `${expected} or {"unknown": why}`, v);
  };
  const str = (x: unknown) => typeof x === "string" && x.length > 0;
  const obj = (x: unknown) => typeof x === "object" && x !== null && !Array.isArray(x);
  field("environment", o.environment, (x) => obj(x) && ["host", "vm"].includes((x as { kind?: string }).kind ?? "") && str((x as { detail?: unknown }).detail), 'an object {kind: "host"|"vm", detail}');
  field("design", o.design, obj, "an object");
  field("command", o.command, (x) => str(x) || (Array.isArray(x) && x.length > 0 && x.every(str)), "an argv array or a command line");
  const group = (k: string, subs: [string, (x: unknown) => boolean, string][]) => {
    const g = o[k];
    if (!obj(g)) fail(k, `an object with ${subs.map((s) => s[0]).join(", ")}`, g);
    const go = g as Record<string, unknown>;
    for (const sk of Object.keys(go)) if (!subs.some((s) => s[0] === sk)) fail(sk, `one of the fields of ${k}: ${subs.map((s) => s[0]).join(", ")}`, sk);
    for (const [sk, check, expected] of subs) field(sk, go[sk], check, `${k}.${sk}: ${expected}`);
  };
  const int = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x > 0;
  group("kit", [["commit", (x) => typeof x === "string" && /^[0-9a-f]{7,40}$/.test(x), "a git commit"], ["dirty", (x) => typeof x === "boolean", "true or false"]]);
  group("host", [["hostname", str, "a string"], ["cpuModel", str, "a string"], ["cpus", int, "a positive integer"], ["memoryBytes", int, "a positive integer"]]);
  group("kernel", [["release", str, "a string"], ["configSha256", (x) => typeof x === "string" && /^[0-9a-f]{64}$/.test(x), "a sha256"], ["preemptMode", str, "a string"], ["sliceExtension", str, "a string"]]);
  group("postgres", [["version", str, "a string"], ["build", str, "a string"], ["patch", str, "a string"]]);
  const iso = (x: unknown) => typeof x === "string" && !Number.isNaN(Date.parse(x)) && /^\d{4}-\d\d-\d\dT/.test(x);
  field("glibc", o.glibc, str, "a string");
  field("started", o.started, iso, "an ISO 8601 time");
  field("ended", o.ended, iso, "an ISO 8601 time");
  field("concurrent", o.concurrent, str, "a string");
  field("analysis", o.analysis, (x) => obj(x) && str((x as { verdict?: unknown }).verdict) && typeof (x as { reason?: unknown }).reason === "string" && str((x as { file?: unknown }).file), "an object {verdict, reason, file}");
  for (const k of ["files", "derivedFrom", "notes"]) {
    if (!Array.isArray(o[k]) || !(o[k] as unknown[]).every((x) => typeof x === "string")) fail(k, "an array of strings", o[k]);
  }
  if (o.formerPath !== undefined && (typeof o.formerPath !== "string" || !/^data\/runs\/[^/]/.test(o.formerPath))) fail("formerPath", "a path data/runs/…", o.formerPath);
  return o as unknown as RecordEnvelope;
}

/** Reads DIR/record.json; a missing or malformed record is a UserError naming the file. */
export function readRecord(dir: string): RecordEnvelope {
  const file = join(dir, RECORD_FILE);
  if (!existsSync(file)) throw new UserError(`${dir}: expected a record directory with ${RECORD_FILE}, found none`);
  const text = readFileSync(file, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ParseError(file, 1, "valid JSON", err instanceof Error ? err.message : String(err));
  }
  return validateRecord(raw, file, text);
}

/** The envelope in its fixed key order, as written to disk. */
export function recordText(r: RecordEnvelope): string {
  const ordered: Record<string, unknown> = {};
  for (const k of FIELDS) if (r[k] !== undefined) ordered[k] = r[k];
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

export function writeRecord(dir: string, r: RecordEnvelope): void {
  validateRecord(JSON.parse(recordText(r)), join(dir, RECORD_FILE), recordText(r));
  writeFileAtomic(join(dir, RECORD_FILE), recordText(r));
}

/**
 * Every record under a runs root: a directory holding record.json is a record;
 * a directory without one is a study directory whose subdirectories are records
 * (data/runs/<study>/<stamp>/). Sorted by path.
 */
export function listRecords(root: string): LoadedRecord[] {
  const out: LoadedRecord[] = [];
  if (!existsSync(root)) return out;
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!statSync(dir).isDirectory()) continue;
    if (existsSync(join(dir, RECORD_FILE))) {
      out.push({ dir, file: join(dir, RECORD_FILE), record: readRecord(dir) });
      continue;
    }
    for (const sub of readdirSync(dir).sort()) {
      const sd = join(dir, sub);
      if (statSync(sd).isDirectory() && existsSync(join(sd, RECORD_FILE))) out.push({ dir: sd, file: join(sd, RECORD_FILE), record: readRecord(sd) });
    }
  }
  return out;
}

/** The records of one study under a runs root (legacy and new layout), oldest first by start time. */
export function recordsOfStudy(root: string, study: string): LoadedRecord[] {
  return listRecords(root)
    .filter((r) => r.record.study === study)
    .sort((a, b) => String(known(a.record.started) ?? "").localeCompare(String(known(b.record.started) ?? "")));
}

/** Directories under a runs root that are neither records nor study directories holding records. */
export function directoriesWithoutRecord(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!statSync(dir).isDirectory() || existsSync(join(dir, RECORD_FILE))) continue;
    const subs = readdirSync(dir).filter((s) => statSync(join(dir, s)).isDirectory());
    if (subs.length === 0 || subs.some((s) => !existsSync(join(dir, s, RECORD_FILE)))) out.push(dir);
  }
  return out;
}

/** The one stamp format (src/util/stamp.ts), re-exported for the record's writers. */
export { STAMP_RE, utcStamp } from "../util/stamp.js";

/** Every regular file below dir (relative paths, sorted), record.json and SHA256SUMS included only if asked. */
export function filesBelow(dir: string, skip: string[] = []): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        const rel = relative(dir, p);
        if (!skip.includes(rel)) out.push(rel);
      }
    }
  };
  walk(dir);
  return out.sort();
}

function sha256File(p: string): string {
  return createHash("sha256").update(readFileSync(p)).digest("hex");
}

/** Writes DIR/SHA256SUMS (sha256sum format) over every file of the record but itself. */
export function writeSums(dir: string): void {
  const lines = filesBelow(dir, [SUMS_FILE]).map((f) => `${sha256File(join(dir, f))}  ${f}`);
  writeFileAtomic(join(dir, SUMS_FILE), `${lines.join("\n")}\n`);
}

/** Checks DIR/SHA256SUMS: every listed file exists with its hash, and no file is unlisted. Returns the problems. */
export function checkSums(dir: string): string[] {
  const file = join(dir, SUMS_FILE);
  if (!existsSync(file)) return [`${file}: no checksum file (the record's maker writes it last)`];
  const problems: string[] = [];
  const listed = new Set<string>();
  readFileSync(file, "utf8").split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m) {
      problems.push(`${file}:${i + 1}: expected "SHA256  PATH", found ${JSON.stringify(line.slice(0, 60))}`);
      return;
    }
    const [, hash, rel] = m as unknown as [string, string, string];
    listed.add(rel);
    const p = join(dir, rel);
    if (rel.startsWith("/") || rel.split("/").includes("..")) problems.push(`${file}:${i + 1}: path ${rel} leaves the record`);
    else if (!existsSync(p)) problems.push(`${file}:${i + 1}: ${rel} is listed but missing`);
    else if (sha256File(p) !== hash) problems.push(`${file}:${i + 1}: ${rel} has sha256 ${sha256File(p).slice(0, 12)}…, the list says ${hash.slice(0, 12)}…`);
  });
  for (const f of filesBelow(dir, [SUMS_FILE])) if (!listed.has(f)) problems.push(`${dir}/${f}: not listed in ${SUMS_FILE}`);
  return problems;
}

/** Writes one JSON file of a record (DIR/NAME, the directory made if needed), atomically. */
export function writeRecordJson(dir: string, name: string, value: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(join(dir, name), `${JSON.stringify(value, null, 2)}\n`);
}

/** Copies a finished record (a guest's, a remote host's) to its place under the runs root. */
export function copyRecord(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true });
}
