import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ParseError, UserError } from "../util/errors.js";
import { JsonChecker, parseJson, type JsonPath } from "../util/json-check.js";
import { repoRoot } from "../util/paths.js";

/**
 * A benchmark protocol is data: one JSON file in protocols/ that says what to run
 * (workloads: tool, arguments, server settings, one-time setup, CPU hogs), how
 * often (runs, warm-up runs) and with which parameters. The runner
 * (src/bench/series.ts) knows how to run a tool against a cluster, never what a
 * protocol measures, so adding a protocol is adding a file.
 */

export type Literal = string | number | boolean;

/** A parameter: a literal, or a value derived from the machine's CPU count or from other parameters. */
export interface ParamSpec {
  /** A fixed value. */
  value?: Literal;
  /** round(perCpu × CPUs), clamped to [min, max]: scales a count from the original machine to this one. */
  perCpu?: number;
  min?: number;
  max?: number;
  /** The sum of parameter names and numbers, e.g. ["clients", 10]. */
  sum?: (string | number)[];
  /** Why this value (e.g. "not given in the post; chosen …"). Recorded, not used. */
  note?: string;
}

export type ParamValue = Literal | ParamSpec;

/** A one-time initialisation, run once per cluster, database and resolved step (e.g. `pgbench -i -s 100`). */
export interface SetupStep {
  /** Arguments of the workload's tool (connection options are added by the runner). */
  args?: string[];
  /** SQL run with psql in the workload's database. */
  sql?: string;
}

export const TOOLS = ["pgbench", "sysbench"] as const;
export type Tool = (typeof TOOLS)[number];

/** A measured command, defined in place. */
export interface WorkloadSpec {
  name: string;
  tool: Tool;
  /** The database it runs in; created when missing. May use {param} placeholders. */
  database: string;
  /** Server settings for this workload (a variant's settings override them). */
  settings?: Record<string, Literal>;
  setup?: SetupStep[];
  /** The tool's arguments for one measured run (connection options are added by the runner). */
  args: string[];
  /** Number of CPU-hog processes running during the measurement (a literal or "{param}"). */
  hogs?: number | string;
}

/** A workload borrowed from another protocol, with some of its parameters overridden. */
export interface WorkloadRef {
  /** Name for this use (defaults to the referenced workload's name). */
  name?: string;
  from: string;
  workload?: string;
  params?: Record<string, ParamValue>;
}

export interface ProtocolFile {
  name: string;
  title: string;
  description?: string;
  source?: Record<string, string>;
  notes?: string[];
  /** Measured runs per variant, warm-up runs included. */
  runs: number;
  /** Runs (per variant, or blocks in the block design) discarded as warm-up. */
  warmup: number;
  params?: Record<string, ParamValue>;
  workloads: (WorkloadSpec | WorkloadRef)[];
}

/** One workload with its parameter context, ready to resolve against a machine. */
export interface ProtocolWorkload {
  name: string;
  spec: WorkloadSpec;
  /** Parameters in scope (the defining protocol's, with a reference's overrides). */
  params: Record<string, ParamValue>;
  /** The protocol file that defines the workload ({protocolDir} is its directory). */
  definedIn: string;
}

export interface Protocol extends ProtocolFile {
  /** Absolute path of the protocol file. */
  file: string;
  /** sha256 of the protocol file and of every protocol file it references. */
  hash: string;
  /** Workloads with references expanded. */
  expanded: ProtocolWorkload[];
}

/** The directory holding the kit's protocols. */
export function protocolsDir(): string {
  return join(repoRoot(), "protocols");
}

/** Every protocol file name (without .json) in protocols/. */
export function protocolNames(dir = protocolsDir()): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5))
    .sort();
}

/** The file of a protocol given by name (protocols/NAME.json) or by path. */
export function protocolPath(nameOrPath: string): string {
  if (nameOrPath.endsWith(".json") || nameOrPath.includes("/")) return resolve(nameOrPath);
  const p = join(protocolsDir(), `${nameOrPath}.json`);
  if (!existsSync(p)) {
    throw new UserError(`unknown protocol "${nameOrPath}": expected one of ${protocolNames().join(", ")} or a path to a .json file`);
  }
  return p;
}

// ---------------------------------------------------------------------------
// Validation: every error names the file, the line of the field and the field.

type Path = JsonPath;

const NAME_RE = /^[a-z0-9][a-z0-9.-]*$/;
const PLACEHOLDER_RE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Server settings a protocol may not set (they would expose the kit's trust-authenticated clusters). */
export const REFUSED_SETTINGS: readonly string[] = ["listen_addresses"];

/** Placeholders every workload may use without declaring them. */
export const BUILTIN_PARAMS = ["cpus", "protocolDir"] as const;

function checkParam(c: JsonChecker, v: unknown, path: Path, names: string[]): void {
  if (typeof v !== "object" || v === null) {
    c.literal(v, path);
    return;
  }
  const o = c.object(v, path);
  c.keys(o, path, ["value", "perCpu", "min", "max", "sum", "note"]);
  const kinds = ["value", "perCpu", "sum"].filter((k) => o[k] !== undefined);
  if (kinds.length !== 1) c.fail(path, 'an object with exactly one of "value", "perCpu", "sum"', v);
  if (o.value !== undefined) c.literal(o.value, [...path, "value"]);
  if (o.perCpu !== undefined && (typeof o.perCpu !== "number" || !(o.perCpu > 0))) c.fail([...path, "perCpu"], "a positive number", o.perCpu);
  for (const k of ["min", "max"]) if (o[k] !== undefined && typeof o[k] !== "number") c.fail([...path, k], "a number", o[k]);
  if (o.sum !== undefined) {
    if (!Array.isArray(o.sum) || o.sum.length === 0) c.fail([...path, "sum"], "a non-empty array of parameter names and numbers", o.sum);
    (o.sum as unknown[]).forEach((x, i) => {
      if (typeof x === "number") return;
      if (typeof x !== "string" || !names.includes(x)) c.fail([...path, "sum", i], `a number or a parameter name (${names.join(", ")})`, x);
    });
  }
  if (o.note !== undefined) c.string(o.note, [...path, "note"]);
}

function checkPlaceholders(c: JsonChecker, s: string, path: Path, names: string[]): void {
  for (const m of s.matchAll(PLACEHOLDER_RE)) {
    const n = m[1] as string;
    if (!names.includes(n) && !(BUILTIN_PARAMS as readonly string[]).includes(n)) {
      c.fail(path, `a string whose {placeholders} name parameters (${[...names, ...BUILTIN_PARAMS].join(", ")})`, s);
    }
  }
}

function checkWorkload(c: JsonChecker, v: unknown, path: Path, names: string[]): WorkloadSpec {
  const o = c.object(v, path);
  c.keys(o, path, ["name", "tool", "database", "settings", "setup", "args", "hogs"]);
  const name = c.string(o.name, [...path, "name"]);
  if (!NAME_RE.test(name)) c.fail([...path, "name"], "lower-case letters, digits, '.' and '-'", name);
  if (!(TOOLS as readonly unknown[]).includes(o.tool)) c.fail([...path, "tool"], TOOLS.map((t) => `"${t}"`).join(" or "), o.tool);
  checkPlaceholders(c, c.string(o.database, [...path, "database"]), [...path, "database"], names);
  if (o.settings !== undefined) {
    const s = c.object(o.settings, [...path, "settings"]);
    for (const [k, x] of Object.entries(s)) {
      // The kit's clusters trust every local connection and listen on no TCP address; settings are
      // applied after the kit's own, so a protocol's listen_addresses would open trust over TCP.
      if (REFUSED_SETTINGS.includes(k.toLowerCase())) {
        c.fail(
          [...path, "settings", k],
          `absent: the kit's clusters use trust authentication on the Unix socket only, with listen_addresses = '' (src/postgres/cluster.ts), and a protocol's settings would override that`,
          x,
        );
      }
      const lit = c.literal(x, [...path, "settings", k]);
      if (typeof lit === "string") checkPlaceholders(c, lit, [...path, "settings", k], names);
    }
  }
  if (o.setup !== undefined) {
    if (!Array.isArray(o.setup)) c.fail([...path, "setup"], "an array of steps", o.setup);
    (o.setup as unknown[]).forEach((st, i) => {
      const sp = [...path, "setup", i];
      const so = c.object(st, sp);
      c.keys(so, sp, ["args", "sql"]);
      if ((so.args === undefined) === (so.sql === undefined)) c.fail(sp, 'a step with exactly one of "args" or "sql"', st);
      if (so.args !== undefined) c.stringArray(so.args, [...sp, "args"]).forEach((a, j) => checkPlaceholders(c, a, [...sp, "args", j], names));
      if (so.sql !== undefined) checkPlaceholders(c, c.string(so.sql, [...sp, "sql"]), [...sp, "sql"], names);
    });
  }
  c.stringArray(o.args, [...path, "args"]).forEach((a, j) => checkPlaceholders(c, a, [...path, "args", j], names));
  if (o.hogs !== undefined) {
    if (typeof o.hogs === "number") c.int(o.hogs, [...path, "hogs"], 0);
    else checkPlaceholders(c, c.string(o.hogs, [...path, "hogs"]), [...path, "hogs"], names);
  }
  return o as unknown as WorkloadSpec;
}

/** Reads and validates a protocol file; a reference to another protocol loads and validates that one too. */
export function loadProtocol(nameOrPath: string, seen: string[] = []): Protocol {
  const file = protocolPath(nameOrPath);
  if (seen.includes(file)) throw new UserError(`${file}: protocols reference each other in a cycle (${[...seen, file].join(" → ")})`);
  if (!existsSync(file)) throw new UserError(`${file}: no such protocol file`);
  const text = readFileSync(file, "utf8");
  const raw = parseJson(file, text);
  const c = new JsonChecker(file, text);
  const o = c.object(raw, []);
  c.keys(o, [], ["$comment", "name", "title", "description", "source", "notes", "runs", "warmup", "params", "workloads"]);
  const name = c.string(o.name, ["name"]);
  if (name !== basename(file, ".json")) c.fail(["name"], `the file's name "${basename(file, ".json")}"`, name);
  c.string(o.title, ["title"]);
  if (o.description !== undefined) c.string(o.description, ["description"]);
  if (o.source !== undefined) {
    const s = c.object(o.source, ["source"]);
    for (const [k, v] of Object.entries(s)) c.string(v, ["source", k]);
  }
  if (o.notes !== undefined) c.stringArray(o.notes, ["notes"]);
  const runs = c.int(o.runs, ["runs"], 1);
  const warmup = c.int(o.warmup, ["warmup"], 0);
  if (warmup >= runs) c.fail(["warmup"], `fewer than runs (${runs})`, warmup);
  const params = o.params === undefined ? {} : c.object(o.params, ["params"]);
  const names = Object.keys(params);
  for (const [k, v] of Object.entries(params)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) c.fail(["params", k], "a parameter name (letters, digits, _)", k);
    if ((BUILTIN_PARAMS as readonly string[]).includes(k)) c.fail(["params", k], "a name other than the built-in ones", k);
    checkParam(c, v, ["params", k], names);
  }
  if (!Array.isArray(o.workloads) || o.workloads.length === 0) c.fail(["workloads"], "a non-empty array", o.workloads);
  const hashes = [createHash("sha256").update(text).digest("hex")];
  // Files a workload reads from the protocol directory (custom scripts) are part of the protocol.
  for (const m of text.matchAll(/\{protocolDir\}\/([A-Za-z0-9._-]+)/g)) {
    const f = join(dirname(file), m[1] as string);
    if (!existsSync(f)) c.fail(["workloads"], `an existing file for {protocolDir}/${m[1]}`, f);
    hashes.push(createHash("sha256").update(readFileSync(f)).digest("hex"));
  }
  const expanded: ProtocolWorkload[] = [];
  (o.workloads as unknown[]).forEach((w, i) => {
    const path: Path = ["workloads", i];
    const wo = c.object(w, path);
    if (wo.from === undefined) {
      const spec = checkWorkload(c, w, path, names);
      expanded.push({ name: spec.name, spec, params: params as Record<string, ParamValue>, definedIn: file });
      return;
    }
    c.keys(wo, path, ["name", "from", "workload", "params"]);
    const from = c.string(wo.from, [...path, "from"]);
    let other!: Protocol; // assigned, or c.fail throws
    try {
      other = loadProtocol(from.includes("/") ? resolve(dirname(file), from) : from, [...seen, file]);
    } catch (err) {
      if (err instanceof ParseError) throw err;
      c.fail([...path, "from"], `a loadable protocol (${err instanceof Error ? err.message : String(err)})`, from);
    }
    hashes.push(other.hash);
    const wname = wo.workload === undefined ? undefined : c.string(wo.workload, [...path, "workload"]);
    const candidates = other.expanded.filter((x) => wname === undefined || x.name === wname);
    if (candidates.length !== 1) {
      c.fail([...path, wname === undefined ? "from" : "workload"], `one workload of ${from} (${other.expanded.map((x) => x.name).join(", ")})`, wname ?? from);
    }
    const base = candidates[0] as ProtocolWorkload;
    const overrides = wo.params === undefined ? {} : c.object(wo.params, [...path, "params"]);
    const baseNames = Object.keys(base.params);
    for (const [k, v] of Object.entries(overrides)) {
      if (!baseNames.includes(k)) c.fail([...path, "params", k], `a parameter of ${from} (${baseNames.join(", ")})`, k);
      checkParam(c, v, [...path, "params", k], baseNames);
    }
    const useName = wo.name === undefined ? base.name : c.string(wo.name, [...path, "name"]);
    if (!NAME_RE.test(useName)) c.fail([...path, "name"], "lower-case letters, digits, '.' and '-'", useName);
    expanded.push({ name: useName, spec: base.spec, params: { ...base.params, ...(overrides as Record<string, ParamValue>) }, definedIn: base.definedIn });
  });
  const dup = expanded.map((w) => w.name).find((n, i, a) => a.indexOf(n) !== i);
  if (dup !== undefined) c.fail(["workloads"], "workloads with distinct names", dup);
  const hash = hashes.length === 1 ? (hashes[0] as string) : createHash("sha256").update(hashes.join("\n")).digest("hex");
  return { ...(o as unknown as ProtocolFile), file, hash, expanded };
}

// ---------------------------------------------------------------------------
// Resolution against a machine and the user's overrides.

/** A workload with every parameter and placeholder resolved: exactly what runs. */
export interface ResolvedWorkload {
  name: string;
  tool: Tool;
  database: string;
  settings: Record<string, Literal>;
  setup: SetupStep[];
  args: string[];
  hogs: number;
  params: Record<string, Literal>;
}

/** Turns a command-line value into a number or boolean when it looks like one. */
export function literalFromText(s: string): Literal {
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  if (s === "true" || s === "false") return s === "true";
  return s;
}

/** Resolves parameter specs: literals stay, perCpu scales with `cpus`, sums add up other parameters. */
export function resolveParams(specs: Record<string, ParamValue>, cpus: number, overrides: Record<string, Literal> = {}): Record<string, Literal> {
  const out: Record<string, Literal> = {};
  const visiting = new Set<string>();
  const get = (name: string): Literal => {
    if (name in out) return out[name] as Literal;
    if (name in overrides) return (out[name] = overrides[name] as Literal);
    const spec = specs[name];
    if (spec === undefined) throw new UserError(`unknown parameter "${name}"`);
    if (visiting.has(name)) throw new UserError(`parameter "${name}" is defined in terms of itself`);
    visiting.add(name);
    let v: Literal;
    if (typeof spec !== "object") v = spec;
    else if (spec.value !== undefined) v = spec.value;
    else if (spec.perCpu !== undefined) {
      v = Math.round(spec.perCpu * cpus);
      if (spec.min !== undefined) v = Math.max(spec.min, v);
      if (spec.max !== undefined) v = Math.min(spec.max, v);
    } else {
      v = (spec.sum ?? []).reduce<number>((s, x) => {
        const n = typeof x === "number" ? x : Number(get(x));
        if (!Number.isFinite(n)) throw new UserError(`parameter "${name}" adds "${String(x)}", which is not a number`);
        return s + n;
      }, 0);
    }
    visiting.delete(name);
    return (out[name] = v);
  };
  for (const k of Object.keys(specs)) get(k);
  return out;
}

/** Replaces {name} placeholders; a string that is exactly one placeholder keeps the parameter's type. */
export function substitute(template: string, values: Record<string, Literal>): Literal {
  const whole = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(template);
  if (whole && (whole[1] as string) in values) return values[whole[1] as string] as Literal;
  return template.replace(PLACEHOLDER_RE, (m, n: string) => (n in values ? String(values[n]) : m));
}

/**
 * Resolves every workload of a protocol for a machine with `cpus` CPUs and the
 * user's `--param` overrides (an override applies to every workload that has
 * that parameter; naming a parameter no workload has is an error).
 */
export function resolveWorkloads(p: Protocol, cpus: number, overrides: Record<string, string> = {}): ResolvedWorkload[] {
  const known = new Set(p.expanded.flatMap((w) => Object.keys(w.params)));
  for (const k of Object.keys(overrides)) {
    if (!known.has(k)) throw new UserError(`--param ${k}: protocol ${p.name} has no parameter "${k}" (it has ${[...known].sort().join(", ") || "none"})`);
  }
  return p.expanded.map((w) => {
    const own: Record<string, Literal> = {};
    for (const [k, v] of Object.entries(overrides)) if (k in w.params) own[k] = literalFromText(v);
    const params = resolveParams(w.params, cpus, own);
    const values: Record<string, Literal> = { ...params, cpus, protocolDir: dirname(w.definedIn) };
    const str = (s: string) => String(substitute(s, values));
    const settings: Record<string, Literal> = {};
    for (const [k, v] of Object.entries(w.spec.settings ?? {})) settings[k] = typeof v === "string" ? substitute(v, values) : v;
    const hogsValue = w.spec.hogs === undefined ? 0 : typeof w.spec.hogs === "number" ? w.spec.hogs : Number(substitute(w.spec.hogs, values));
    if (!Number.isInteger(hogsValue) || hogsValue < 0) {
      throw new UserError(`${w.definedIn}: workload ${w.spec.name}: hogs resolved to ${JSON.stringify(hogsValue)}, expected an integer ≥ 0`);
    }
    return {
      name: w.name,
      tool: w.spec.tool,
      database: str(w.spec.database),
      settings,
      setup: (w.spec.setup ?? []).map((s) => (s.args ? { args: s.args.map(str) } : { sql: str(s.sql as string) })),
      args: w.spec.args.map(str),
      hogs: hogsValue,
      params,
    };
  });
}
