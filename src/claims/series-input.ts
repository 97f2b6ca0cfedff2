/** A series directory read and checked for the claims (`slicelab claims --series`): its measured and warm-up runs of A and B, its blocks, and what its provenance says. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { tryReadJson } from "../util/json.js";
import { seriesRows, type SeriesRow } from "../bench/series.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { type LedgerOptions } from "./ledger.js";
import { fmt } from "./numbers.js";

/** Which variants and workload of a series to compare, and the ledger's statistical options. */
export interface SeriesClaimsOptions extends LedgerOptions {
  /** Variant A (default: the first variant series.json declares). */
  a?: string;
  /** Variant B (default: the second declared variant). */
  b?: string;
  /** Workload (default: the first one series.json declares). */
  workload?: string;
}

/** What provenance.json and series.json say about how the series was made. */
export interface SeriesProvenance {
  protocol: string;
  design: "blocks" | "sequential";
  seed: number | null;
  /** Seconds per run as the series ran it (the workload's `duration` parameter), or null when it has none. */
  duration: number | null;
  /** The protocol's own duration, when the series overrode it. */
  protocolDuration: number | null;
  deviations: string[];
  cpus: number | null;
  cpuModel: string | null;
  /** Highest 1-minute load average recorded before or after a run of the compared variants, and at session starts. */
  maxLoad1: number | null;
  minLoad1: number | null;
  /** One line: protocol, duration, design, host and the load caveat. */
  line: string;
}

/** A series read for the claims: the measured and warm-up runs of A and B. */
export interface SeriesInput {
  /** The directory as given. */
  dir: string;
  /** Its last path component (used in ids). */
  name: string;
  /** The directory relative to the repository when inside it, else absolute (used in `source`). */
  shown: string;
  variants: string[];
  a: string;
  b: string;
  workload: string;
  /** Measured (non-warm-up) runs in run order. */
  runsA: SeriesRow[];
  runsB: SeriesRow[];
  /** Warm-up runs in run order. */
  warmupA: SeriesRow[];
  warmupB: SeriesRow[];
  /** Blocks in which both A and B have a measured run: [A run, B run]. */
  pairs: [SeriesRow, SeriesRow][];
  provenance: SeriesProvenance;
}

export interface PlanFile {
  protocol?: { name?: string };
  design?: string;
  seed?: number;
  cpus?: number;
  variants?: { name?: unknown }[];
  workloads?: { name?: string; params?: Record<string, unknown> }[];
}

export interface ProvenanceFile {
  series?: { deviationsFromProtocol?: string[] };
  sessions?: { host?: { cpus?: number; cpuModel?: string }; loadAverage?: number[] }[];
}

export function readJsonFile<T>(file: string, what: string): T {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UserError(`${file}: expected ${what}, found it unreadable (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UserError(`${file}: expected ${what} (JSON), found text that does not parse as JSON`);
  }
}

/** The series' directory, checked: a directory holding series.json. */
export function checkSeriesDir(dir: string): void {
  const what = "a series directory (with series.json, as `slicelab bench run … --out DIR` writes)";
  if (!existsSync(dir)) throw new UserError(`${dir}: expected ${what}, found no such file or directory`);
  if (!statSync(dir).isDirectory()) throw new UserError(`${dir}: expected ${what}, found a file`);
  if (!existsSync(join(dir, "series.json"))) throw new UserError(`${dir}: expected ${what}, found a directory without series.json`);
}

export function durationOf(params: Record<string, unknown> | undefined): number | null {
  const d = params?.["duration"];
  const n = typeof d === "number" ? d : typeof d === "string" ? Number(d) : NaN;
  return Number.isFinite(n) ? n : null;
}

export function provenanceOf(dir: string, plan: PlanFile, workload: string, rows: SeriesRow[]): SeriesProvenance {
  const provFile = join(dir, "provenance.json");
  const prov = existsSync(provFile) ? readJsonFile<ProvenanceFile>(provFile, "the series' provenance") : {};
  const deviations = prov.series?.deviationsFromProtocol ?? [];
  const w = (plan.workloads ?? []).find((x) => x.name === workload);
  const duration = durationOf(w?.params);
  // "--param duration=20 (protocol: 300)" is how the runner records an override.
  const dev = deviations.map((d) => /^--param duration=\S+ \(protocol: ([\d.]+)\)$/.exec(d)).find((m) => m !== null);
  const protocolDuration = dev ? Number(dev[1]) : null;
  const sessions = prov.sessions ?? [];
  const host = sessions.find((s) => s.host)?.host;
  const cpus = host?.cpus ?? plan.cpus ?? null;
  const loads = [
    ...rows.flatMap((r) => [r.load1Before, r.load1After]),
    ...sessions.map((s) => s.loadAverage?.[0]).filter((x): x is number => typeof x === "number"),
  ].filter((x) => Number.isFinite(x));
  const maxLoad1 = loads.length ? Math.max(...loads) : null;
  const minLoad1 = loads.length ? Math.min(...loads) : null;
  const protocol = plan.protocol?.name ?? "(unnamed protocol)";
  const design = plan.design === "sequential" ? "sequential" : "blocks";
  const parts = [
    `protocol ${protocol}`,
    duration === null ? "duration not recorded" : `${fmt(duration, 0)} s per run${protocolDuration !== null ? ` (protocol: ${fmt(protocolDuration, 0)} s)` : ""}`,
    design === "blocks" ? `randomised blocks (seed ${plan.seed ?? "not recorded"})` : "sequential design (all A, then all B)",
  ];
  const other = deviations.filter((d) => !/^--param duration=/.test(d));
  if (other.length) parts.push(`other departures: ${other.join("; ")}`);
  parts.push(host ? `host ${host.cpuModel ?? "?"}, ${host.cpus ?? "?"} CPUs` : "host not recorded (no provenance.json)");
  if (maxLoad1 !== null && minLoad1 !== null) {
    const loaded = cpus !== null && maxLoad1 > cpus;
    parts.push(
      `1-min load average ${fmt(minLoad1, 2)} to ${fmt(maxLoad1, 2)}${cpus !== null ? ` on ${cpus} CPUs` : ""}` +
        (loaded ? ": the host ran other work, so the noise here includes it" : ""),
    );
  }
  return {
    protocol,
    design,
    seed: plan.seed ?? null,
    duration,
    protocolDuration,
    deviations,
    cpus,
    cpuModel: host?.cpuModel ?? null,
    maxLoad1,
    minLoad1,
    line: parts.join("; "),
  };
}

/** Reads and checks a series directory for the claims (UserError, exit 2, when it cannot be used). */
export function seriesInput(dir: string, opts: SeriesClaimsOptions = {}): SeriesInput {
  checkSeriesDir(dir);
  const file = join(dir, "series.json");
  const plan = readJsonFile<PlanFile>(file, "a series plan");
  const variants = (plan.variants ?? []).map((v) => v.name).filter((n): n is string => typeof n === "string");
  if (variants.length < 2) {
    throw new UserError(`${file}: expected at least 2 variants to compare, found ${variants.length}${variants.length ? ` (${variants.join(", ")})` : ""}`);
  }
  const a = opts.a ?? variants[0]!;
  const b = opts.b ?? variants[1]!;
  for (const [opt, v] of [
    ["--a", a],
    ["--b", b],
  ] as const) {
    if (!variants.includes(v)) throw new UserError(`${file}: ${opt} ${v}: expected one of the series' variants ${variants.join(", ")}, found "${v}"`);
  }
  if (a === b) throw new UserError(`${file}: expected two different variants for --a and --b, found "${a}" twice`);
  const workloads = (plan.workloads ?? []).map((w) => w.name).filter((n): n is string => typeof n === "string");
  const workload = opts.workload ?? workloads[0];
  if (workload === undefined || !workloads.includes(workload)) {
    throw new UserError(`${file}: expected a workload among ${workloads.join(", ") || "(none declared)"}, found ${String(opts.workload)}`);
  }
  const rows = seriesRows(dir).filter((r) => r.workload === workload && (r.variant === a || r.variant === b));
  const of = (v: string, warm: boolean) => rows.filter((r) => r.variant === v && r.warmup === warm);
  const runsA = of(a, false);
  const runsB = of(b, false);
  if (runsA.length < 2 || runsB.length < 2) {
    throw new UserError(`${dir}: expected at least 2 finished measured runs of each variant, found ${a}: ${runsA.length}, ${b}: ${runsB.length}`);
  }
  const byBlock = new Map<number, { a?: SeriesRow; b?: SeriesRow }>();
  for (const r of [...runsA, ...runsB]) {
    const e = byBlock.get(r.block) ?? {};
    if (r.variant === a) e.a = r;
    else e.b = r;
    byBlock.set(r.block, e);
  }
  const pairs = [...byBlock.entries()]
    .sort(([x], [y]) => x - y)
    .flatMap(([, e]) => (e.a && e.b ? [[e.a, e.b] as [SeriesRow, SeriesRow]] : []));
  const abs = resolve(dir);
  const rel = relative(repoRoot(), abs);
  return {
    dir,
    // a record at data/runs/STUDY/STAMP is named STUDY/STAMP (its envelope's study), one made before the one layout by its directory
    name: recordName(abs),
    shown: rel.startsWith("..") || rel === "" ? abs : rel,
    variants,
    a,
    b,
    workload,
    runsA,
    runsB,
    warmupA: of(a, true),
    warmupB: of(b, true),
    pairs,
    provenance: provenanceOf(dir, plan, workload, rows),
  };
}

/** STUDY/STAMP for a record directory named by its stamp (the study from its record.json), else the directory's name. */
function recordName(abs: string): string {
  const study = (tryReadJson<{ study?: unknown }>(join(abs, "record.json")) ?? {}).study;
  return typeof study === "string" && /^\d{8}T\d{6}Z$/.test(basename(abs)) ? `${study}/${basename(abs)}` : basename(abs);
}
