import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { UserError } from "../util/errors.js";
import { JsonChecker, parseJson, type JsonPath } from "../util/json-check.js";
import { repoRoot } from "../util/paths.js";
import { COLLECTOR_NAMES } from "../collect/index.js";
import { driverNames, driverSpec } from "./drivers/index.js";
import { BAD, paramExpected, parseParam, resolveParams, type Params } from "./params.js";

/**
 * A study is data: one JSON file in studies/ that says what to run (a protocol,
 * or one of the kit's measurement scripts), which factors vary and at which
 * levels, which factors can change within a boot and which need a reboot or a
 * rebuild, the design, what the machine must offer, and how the record is
 * analysed (contrasts, goal, verdict rule). `slicelab study run` reads it; the
 * runner knows how to vary a factor, never what a study is for.
 *
 * Validated like protocols (src/bench/protocol.ts): every error names the file,
 * the line of the field and the field.
 */

/** How a factor's level is put in place. */
export type FactorVia =
  | `setting:${string}` // a server setting (GUC), changed at run time
  | "bin" // the PostgreSQL build: "debian" or "patched" (built by the kit)
  | "preempt" // the preemption mode, written to debugfs sched/preempt between runs (PREEMPT_DYNAMIC)
  | "kernel" // the booted kernel: needs a reboot (the kit never touches the bootloader)
  | "arm"; // an arm of a measurement script (the script varies it itself)

/** When a factor can change: between runs of one boot, only across boots, or only across builds. */
export type FactorChange = "run" | "boot" | "build";

export interface Factor {
  name: string;
  levels: string[];
  via: FactorVia;
  changes: FactorChange;
  note?: string;
}

export interface Contrast {
  factor: string;
  a: string;
  b: string;
}

export interface StudyAnalysis {
  /** paired-contrast: within-block paired CI of B − A for each contrast and each cell of the other factors. script: the script's own analysis.json. none: no verdict (a smoke test). */
  rule: "paired-contrast" | "script" | "none";
  contrasts: Contrast[];
  /** The goal: the CI half-width (% of A) the design must reach for a verdict. */
  goal?: { halfWidthPct?: number; maxCostPct?: number; note?: string };
  /** The verdict rule in words, as it is applied. */
  verdict: string;
}

export interface StudyRequires {
  /** "required": refuse without prctl(PR_RSEQ_SLICE_EXTENSION); "recorded": run anyway and record its absence. */
  sliceExtension: "required" | "recorded";
  /** Reserve huge pages (vm.nr_hugepages) before runs where huge_pages=on. */
  hugePages?: boolean;
  /** perf must be usable (perf_event_paranoid, the perf binary). */
  perf?: boolean;
  /** Disk space the planned runs need, in MiB. */
  diskMiB: number;
}

export interface StudyShrink {
  runs: number;
  warmup: number;
  params?: Record<string, string | number>;
  /** Factor levels kept in the shrunk study (default: all). */
  levels?: Record<string, string[]>;
}

export interface StudyFile {
  name: string;
  title: string;
  question: string;
  source?: Record<string, string>;
  notes?: string[];
  driver: "series" | "script" | "experiment";
  /** The protocol a series study runs. */
  protocol?: string;
  /** The experiment driver an experiment study runs (src/study/drivers/). */
  experiment?: string;
  /** The command a script study runs ({out}: the record directory). */
  script?: string[];
  factors: Factor[];
  design: { kind: "blocks" | "sequential"; runs: number; warmup: number; seed?: number };
  params?: Record<string, string | number | boolean>;
  collectors?: string[];
  requires: StudyRequires;
  analysis: StudyAnalysis;
  /** The study shrunk to run inside the kit's VM. */
  vm?: StudyShrink;
  /** Seconds per measured run (besides the protocol's duration): cluster start/stop, setup. */
  overheadSecondsPerRun: number;
  /** Where the study's past records are: directories under data/runs/. */
  records?: string[];
}

export interface Study extends StudyFile {
  file: string;
  hash: string;
}

export function studiesDir(): string {
  return join(repoRoot(), "studies");
}

export function studyNames(dir = studiesDir()): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();
}

export function studyPath(nameOrPath: string): string {
  if (nameOrPath.endsWith(".json") || nameOrPath.includes("/")) return resolve(nameOrPath);
  const p = join(studiesDir(), `${nameOrPath}.json`);
  if (!existsSync(p)) throw new UserError(`unknown study "${nameOrPath}": expected one of ${studyNames().join(", ")} or a path to a .json file`);
  return p;
}

type Path = JsonPath;

/** Study files: an array element's field is found at that element (lineOf with countIndices). */
class Checker extends JsonChecker {
  constructor(file: string, text: string) {
    super(file, text, true);
  }
  params(v: unknown, path: Path, experiment?: string): void {
    const o = this.object(v, path);
    const specs = experiment === undefined ? undefined : driverSpec(experiment)?.params;
    for (const [k, x] of Object.entries(o)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) this.fail([...path, k], "a parameter name", k);
      if (specs === undefined) {
        if (typeof x !== "string" && typeof x !== "number") this.fail([...path, k], "a string or a number", x);
        continue;
      }
      // An experiment's parameters are checked against its driver's declarations, as --param is.
      const spec = specs.find((sp) => sp.name === k);
      if (!spec) this.fail([...path, k], `a parameter of the ${experiment} driver (${specs.map((sp) => sp.name).join(", ")})`, k);
      if ((typeof x !== "string" && typeof x !== "number" && typeof x !== "boolean") || parseParam(spec, x) === BAD) this.fail([...path, k], paramExpected(spec), x);
    }
  }
}

const NAME_RE = /^[a-z0-9][a-z0-9.-]*$/;

function checkFactor(c: Checker, v: unknown, path: Path, driver: string): Factor {
  const o = c.object(v, path);
  c.keys(o, path, ["name", "levels", "via", "changes", "note"], ["name", "levels", "via", "changes"]);
  const name = c.string(o.name, [...path, "name"]);
  if (!/^[a-z][a-z0-9-]*$/.test(name)) c.fail([...path, "name"], "lower-case letters, digits and '-'", name);
  const levels = c.stringArray(o.levels, [...path, "levels"], true);
  if (levels.length < 1) c.fail([...path, "levels"], "at least one level", levels);
  const dup = levels.find((l, i) => levels.indexOf(l) !== i);
  if (dup !== undefined) c.fail([...path, "levels"], "distinct levels", dup);
  levels.forEach((l, i) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(l)) c.fail([...path, "levels", i], "letters, digits, '.', '_' or '-'", l);
  });
  const via = c.string(o.via, [...path, "via"]);
  if (!/^setting:[a-z_][a-z0-9_]*$/.test(via) && !["bin", "preempt", "kernel", "arm"].includes(via)) {
    c.fail([...path, "via"], '"setting:NAME", "bin", "preempt", "kernel" or "arm"', via);
  }
  const changes = c.oneOf(o.changes, [...path, "changes"], ["run", "boot", "build"] as const);
  // What can change when is a fact of the mechanism, not a choice: check it.
  const must: Record<string, FactorChange> = { preempt: "run", kernel: "boot", bin: "run" };
  if (via.startsWith("setting:") && changes !== "run") c.fail([...path, "changes"], `"run" (a server setting changes between runs)`, changes);
  if (must[via] !== undefined && changes !== must[via]) {
    c.fail([...path, "changes"], `"${must[via]}" (${via === "preempt" ? "PREEMPT_DYNAMIC switches the mode at run time through debugfs" : via === "kernel" ? "another kernel needs a reboot" : "each build has its own server, so runs can alternate"})`, changes);
  }
  if (via === "bin") levels.forEach((l, i) => {
    if (l !== "debian" && l !== "patched" && l !== "baseline") c.fail([...path, "levels", i], '"debian", "baseline" or "patched"', l);
  });
  if (via === "preempt") levels.forEach((l, i) => {
    if (!["none", "voluntary", "full", "lazy"].includes(l)) c.fail([...path, "levels", i], '"none", "voluntary", "full" or "lazy"', l);
  });
  if (via === "arm" && driver === "series") c.fail([...path, "via"], 'a series factor ("arm" is for script and experiment studies)', via);
  if (o.note !== undefined) c.string(o.note, [...path, "note"]);
  return o as unknown as Factor;
}

/** Reads and validates a study file. */
export function loadStudy(nameOrPath: string): Study {
  const file = studyPath(nameOrPath);
  if (!existsSync(file)) throw new UserError(`${file}: no such study file`);
  const text = readFileSync(file, "utf8");
  const raw = parseJson(file, text);
  const c = new Checker(file, text);
  const o = c.object(raw, []);
  const top = ["$comment", "name", "title", "question", "source", "notes", "driver", "protocol", "script", "experiment", "factors", "design", "params", "collectors", "requires", "analysis", "vm", "overheadSecondsPerRun", "records"];
  c.keys(o, [], top);
  for (const k of ["name", "title", "question", "driver", "factors", "design", "requires", "analysis", "overheadSecondsPerRun"]) {
    if (o[k] === undefined) c.fail([k], "present", undefined);
  }
  const name = c.string(o.name, ["name"]);
  if (!NAME_RE.test(name)) c.fail(["name"], "lower-case letters, digits, '.' and '-'", name);
  if (name !== basename(file, ".json")) c.fail(["name"], `the file's name "${basename(file, ".json")}"`, name);
  c.string(o.title, ["title"]);
  c.string(o.question, ["question"]);
  if (o.source !== undefined) for (const [k, v] of Object.entries(c.object(o.source, ["source"]))) c.string(v, ["source", k]);
  if (o.notes !== undefined) c.stringArray(o.notes, ["notes"]);
  const driver = c.oneOf(o.driver, ["driver"], ["series", "script", "experiment"] as const);
  if (driver !== "experiment" && o.experiment !== undefined) c.fail(["experiment"], `absent in a ${driver} study`, o.experiment);
  if (driver === "experiment") {
    const e = c.string(o.experiment, ["experiment"]);
    const spec = driverSpec(e);
    if (!spec) c.fail(["experiment"], `one of the kit's experiment drivers (${driverNames().join(", ")})`, e);
    for (const k of ["protocol", "script"]) if (o[k] !== undefined) c.fail([k], "absent in an experiment study", o[k]);
  } else if (driver === "series") {
    const p = c.string(o.protocol, ["protocol"]);
    if (!existsSync(join(repoRoot(), "protocols", `${p}.json`))) c.fail(["protocol"], `a protocol of protocols/ (${readdirSync(join(repoRoot(), "protocols")).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).join(", ")})`, p);
    if (o.script !== undefined) c.fail(["script"], "absent in a series study", o.script);
  } else {
    const s = c.stringArray(o.script, ["script"], true);
    if (!s.some((a) => a.includes("{out}"))) c.fail(["script"], "a command with an {out} argument (the record directory)", s);
    const entry = s.find((a) => /\.(js|ts)$/.test(a));
    if (entry && !existsSync(join(repoRoot(), entry)) && !existsSync(join(repoRoot(), entry.replace(/^dist\//, "").replace(/\.js$/, ".ts")))) c.fail(["script"], `a command whose program exists (${entry})`, entry);
  }
  if (!Array.isArray(o.factors)) c.fail(["factors"], "an array of factors", o.factors);
  const factors = (o.factors as unknown[]).map((f, i) => checkFactor(c, f, ["factors", i], driver));
  const fdup = factors.map((f) => f.name).find((n, i, a) => a.indexOf(n) !== i);
  if (fdup !== undefined) c.fail(["factors"], "factors with distinct names", fdup);
  const d = c.object(o.design, ["design"]);
  c.keys(d, ["design"], ["kind", "runs", "warmup", "seed"], ["kind", "runs", "warmup"]);
  c.oneOf(d.kind, ["design", "kind"], ["blocks", "sequential"] as const);
  const runs = c.int(d.runs, ["design", "runs"], 1);
  const warmup = c.int(d.warmup, ["design", "warmup"], 0);
  if (warmup >= runs) c.fail(["design", "warmup"], `fewer than runs (${runs})`, warmup);
  if (d.seed !== undefined) c.int(d.seed, ["design", "seed"], 0);
  const experiment = driver === "experiment" ? (o.experiment as string) : undefined;
  if (o.params !== undefined) c.params(o.params, ["params"], experiment);
  if (experiment !== undefined) {
    try {
      driverSpec(experiment)?.validate?.(resolveExperimentParams({ experiment, params: o.params as StudyFile["params"] }, {}));
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      c.fail(["params"], `parameters the ${experiment} driver accepts together`, err.message);
    }
  }
  if (o.collectors !== undefined) {
    c.stringArray(o.collectors, ["collectors"]).forEach((x, i) => c.oneOf(x, ["collectors", i], COLLECTOR_NAMES));
  }
  const r = c.object(o.requires, ["requires"]);
  c.keys(r, ["requires"], ["sliceExtension", "hugePages", "perf", "diskMiB"], ["sliceExtension", "diskMiB"]);
  c.oneOf(r.sliceExtension, ["requires", "sliceExtension"], ["required", "recorded"] as const);
  for (const k of ["hugePages", "perf"]) if (r[k] !== undefined && typeof r[k] !== "boolean") c.fail(["requires", k], "true or false", r[k]);
  c.int(r.diskMiB, ["requires", "diskMiB"], 0);
  const a = c.object(o.analysis, ["analysis"]);
  c.keys(a, ["analysis"], ["rule", "contrasts", "goal", "verdict"], ["rule", "contrasts", "verdict"]);
  const rule = c.oneOf(a.rule, ["analysis", "rule"], ["paired-contrast", "script", "none"] as const);
  if (rule === "script" && driver === "series") c.fail(["analysis", "rule"], '"paired-contrast" or "none" for a series study', rule);
  if (!Array.isArray(a.contrasts)) c.fail(["analysis", "contrasts"], "an array", a.contrasts);
  (a.contrasts as unknown[]).forEach((x, i) => {
    const p: Path = ["analysis", "contrasts", i];
    const co = c.object(x, p);
    c.keys(co, p, ["factor", "a", "b"], ["factor", "a", "b"]);
    const f = factors.find((ff) => ff.name === co.factor) as Factor;
    if (!f) c.fail([...p, "factor"], `a factor of the study (${factors.map((ff) => ff.name).join(", ") || "none"})`, co.factor);
    for (const k of ["a", "b"]) if (!f.levels.includes(co[k] as string)) c.fail([...p, k], `a level of ${f.name} (${f.levels.join(", ")})`, co[k]);
    if (co.a === co.b) c.fail([...p, "b"], "a level other than a", co.b);
  });
  if (rule === "paired-contrast" && (a.contrasts as unknown[]).length === 0) c.fail(["analysis", "contrasts"], "at least one contrast for the paired-contrast rule", a.contrasts);
  if (a.goal !== undefined) {
    const g = c.object(a.goal, ["analysis", "goal"]);
    c.keys(g, ["analysis", "goal"], ["halfWidthPct", "maxCostPct", "note"]);
    for (const k of ["halfWidthPct", "maxCostPct"]) if (g[k] !== undefined && !(typeof g[k] === "number" && (g[k] as number) > 0)) c.fail(["analysis", "goal", k], "a positive number", g[k]);
    if (g.note !== undefined) c.string(g.note, ["analysis", "goal", "note"]);
  }
  c.string(a.verdict, ["analysis", "verdict"]);
  if (o.vm !== undefined) {
    const v = c.object(o.vm, ["vm"]);
    c.keys(v, ["vm"], ["runs", "warmup", "params", "levels"], ["runs", "warmup"]);
    const vr = c.int(v.runs, ["vm", "runs"], 1);
    const vw = c.int(v.warmup, ["vm", "warmup"], 0);
    if (vw >= vr) c.fail(["vm", "warmup"], `fewer than vm.runs (${vr})`, vw);
    if (v.params !== undefined) c.params(v.params, ["vm", "params"], experiment);
    if (v.levels !== undefined) {
      for (const [k, lv] of Object.entries(c.object(v.levels, ["vm", "levels"]))) {
        const f = factors.find((ff) => ff.name === k) as Factor;
        if (!f) c.fail(["vm", "levels", k], `a factor of the study (${factors.map((ff) => ff.name).join(", ")})`, k);
        c.stringArray(lv, ["vm", "levels", k], true).forEach((l, i) => {
          if (!f.levels.includes(l)) c.fail(["vm", "levels", k, i], `a level of ${k} (${f.levels.join(", ")})`, l);
        });
      }
    }
  }
  if (typeof o.overheadSecondsPerRun !== "number" || !((o.overheadSecondsPerRun as number) >= 0)) c.fail(["overheadSecondsPerRun"], "a number ≥ 0", o.overheadSecondsPerRun);
  if (o.records !== undefined) {
    // Names under data/runs/ (checked by test/record-format.test.ts; a copy of the kit without data/ still loads).
    c.stringArray(o.records, ["records"]).forEach((rec, i) => {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9._-]+)?$/.test(rec)) c.fail(["records", i], "a directory name under data/runs/", rec);
    });
  }
  const hash = createHash("sha256").update(text).digest("hex");
  return { ...(o as unknown as StudyFile), file, hash };
}

// ---------------------------------------------------------------------------
// The plan: cells of the factorial, which run in this boot, and how long it takes.

/** One cell of the factorial: a level of every factor. */
export interface Cell {
  /** Variant name: the levels joined, e.g. "full.hp-on.ext-all" (stable, valid as a --variant NAME). */
  name: string;
  levels: Record<string, string>;
}

export function cellName(levels: Record<string, string>, factors: Factor[]): string {
  // Factors that need a reboot are fixed for the whole record (design.boot says at which level): not part of the name.
  return factors.filter((f) => f.changes === "run" && levels[f.name] !== undefined).map((f) => `${f.name}-${levels[f.name]}`).join(".") || "base";
}

/** The cells of the factors that change within a boot (boot-level factors: the level given for this boot). */
export function cells(factors: Factor[], fixed: Record<string, string> = {}): Cell[] {
  let out: Record<string, string>[] = [{}];
  for (const f of factors) {
    const levels = fixed[f.name] !== undefined ? [fixed[f.name] as string] : f.levels;
    out = out.flatMap((c) => levels.map((l) => ({ ...c, [f.name]: l })));
  }
  return out.map((levels) => ({ name: cellName(levels, factors), levels }));
}

/** A study adjusted for the VM: runs, warm-up, parameters and levels from its `vm` section. */
export function shrink(s: Study): Study {
  if (!s.vm) throw new UserError(`${s.file}: study ${s.name} has no "vm" section, so it cannot run shrunk in the kit's VM`);
  const factors = s.factors.map((f) => ({ ...f, levels: s.vm?.levels?.[f.name] ?? f.levels }));
  return { ...s, factors, design: { ...s.design, runs: s.vm.runs, warmup: s.vm.warmup }, params: { ...(s.params ?? {}), ...(s.vm.params ?? {}) } };
}

/**
 * An experiment study's parameters: the driver's defaults, the study file's `params`, then the
 * command line's `--param K=V` (one parser for both, src/study/params.ts).
 */
export function resolveExperimentParams(s: Pick<StudyFile, "experiment" | "params"> & { file?: string }, cli: Record<string, string>): Params {
  const spec = driverSpec(s.experiment as string);
  if (!spec) throw new UserError(`unknown experiment driver "${String(s.experiment)}": expected one of ${driverNames().join(", ")}`);
  const p = resolveParams(spec.params, [
    { values: s.params ?? {}, where: (k) => `${s.file ?? "the study file"}: params.${k}` },
    { values: cli, where: (k) => `--param ${k}` },
  ]);
  return p;
}
