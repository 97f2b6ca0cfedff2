import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tryReadJson } from "../util/json.js";
import { basename, join, relative } from "node:path";
import {
  RECORD_FILE,
  RECORD_FORMAT,
  recordText,
  SUMS_FILE,
  writeRecord,
  unknown,
  type Field,
  type RecordEnvelope,
} from "./format.js";
import { combineVerdicts, verdictsIn } from "./verdicts.js";

/**
 * Envelopes for the records made before the one format existed: derived, in
 * place, from each directory's own provenance files (provenance.json,
 * series.json, summary.json, kernel build records, README.md). Nothing is
 * guessed: a fact none of those files states is `unknown` with the reason.
 */

/** Which study a legacy directory belongs to, by its name. */
const LEGACY_STUDY: [RegExp, string][] = [
  [/^lock-ops-per-txn-/, "lock-ops-vm"],
  [/^vm-eviction-/, "vm-eviction"],
  [/^vm-micro-/, "vm-micro"],
  [/^vm-slice-trace-/, "slice-trace"],
  [/^aa-rostedt-2023/, "rostedt-2023"],
  [/^collect-locktable-aa$/, "sangappa-2024-locktable"],
  [/^collect-smoke/, "collector-cost"],
  [/^collector-overhead-/, "collector-cost"],
  [/^micro-cost$/, "patch-cost"],
  [/^patch-cost/, "patch-cost"],
  [/^overhead-/, "harness-overhead"],
  [/^vm-lockstat-/, "sangappa-2024-locktable"],
  [/^vm-pg-smoke-/, "smoke"],
  [/^vm-kernel-bench$/, "kernel-build"],
];

export function legacyStudy(name: string): string | undefined {
  return LEGACY_STUDY.find(([re]) => re.test(name))?.[1];
}

const SKIP_DIRS = new Set(["runs", "raw", "collect", "setup", "comparisons", "derived"]);
const PROVENANCE_NAMES = /^(provenance|series|summary|result|cells|overhead|direct-cost|kernel-build.*|\d{8}T\d{6}Z)\.json$/;

type Json = Record<string, unknown>;

interface Source {
  rel: string;
  json: Json;
}

/** A JSON object file, or undefined when it is missing, unreadable or not an object. */
function readJson(p: string): Json | undefined {
  const v = tryReadJson(p);
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

/** Provenance-like JSON files of a directory, at most three levels down, outside per-run folders. */
function provenanceSources(dir: string): Source[] {
  const out: Source[] = [];
  const walk = (d: string, depth: number) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) {
        if (depth < 3 && !SKIP_DIRS.has(n)) walk(p, depth + 1);
      } else if (PROVENANCE_NAMES.test(n)) {
        const json = readJson(p);
        if (json) out.push({ rel: relative(dir, p), json });
      }
    }
  };
  walk(dir, 0);
  // provenance.json first, then the shallowest files: the record's own facts before its parts'.
  const rank = (s: Source) => (basename(s.rel) === "provenance.json" ? 0 : 1) * 10 + s.rel.split("/").length;
  return out.sort((a, b) => rank(a) - rank(b) || a.rel.localeCompare(b.rel));
}

/** The first object found at key `key` (depth-first, up to depth 4) that passes `ok`, with the file it came from. */
function findObject(sources: Source[], key: string, ok: (o: Json) => boolean): { value: Json; from: string } | undefined {
  for (const s of sources) {
    const stack: [unknown, number][] = [[s.json, 0]];
    while (stack.length) {
      const [v, depth] = stack.shift() as [unknown, number];
      if (typeof v !== "object" || v === null || depth > 4) continue;
      if (Array.isArray(v)) {
        for (const x of v) stack.push([x, depth + 1]);
        continue;
      }
      for (const [k, x] of Object.entries(v as Json)) {
        if (k === key && typeof x === "object" && x !== null && !Array.isArray(x) && ok(x as Json)) return { value: x as Json, from: s.rel };
        stack.push([x, depth + 1]);
      }
    }
  }
  return undefined;
}

function findValue(sources: Source[], key: string, ok: (v: unknown) => boolean): { value: unknown; from: string } | undefined {
  for (const s of sources) {
    const stack: [unknown, number][] = [[s.json, 0]];
    while (stack.length) {
      const [v, depth] = stack.shift() as [unknown, number];
      if (typeof v !== "object" || v === null || depth > 4) continue;
      for (const [k, x] of Object.entries(v as Json)) {
        if (k === key && ok(x)) return { value: x, from: s.rel };
        stack.push([x, depth + 1]);
      }
    }
  }
  return undefined;
}

const str = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const NOT_IN = (what: string, files: string[]) =>
  files.length === 0 ? `the directory has no provenance file that could say ${what}` : `none of ${files.join(", ")} records ${what}`;

/** Every `started`/`ended` time in the tidy tables of the record (results.jsonl, runs.jsonl), at most three levels down. */
function tableTimes(dir: string): { first?: string; last?: string; from: string[] } {
  const from: string[] = [];
  let first: string | undefined;
  let last: string | undefined;
  const walk = (d: string, depth: number) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) {
        if (depth < 3 && !SKIP_DIRS.has(n)) walk(p, depth + 1);
      } else if (n === "results.jsonl" || n === "runs.jsonl") {
        from.push(relative(dir, p));
        for (const line of readFileSync(p, "utf8").split("\n")) {
          if (!line.trim()) continue;
          try {
            const r = JSON.parse(line) as Json;
            if (str(r.started) && (!first || r.started < first)) first = r.started;
            if (str(r.ended) && (!last || r.ended > last)) last = r.ended;
          } catch {
            /* a malformed line says nothing about times */
          }
        }
      }
    }
  };
  walk(dir, 0);
  return { first, last, from };
}

/** The first command line the record's README quotes (a fenced block or an inline span starting with a kit command). */
export function readmeCommand(text: string): string | undefined {
  const starts = /^(?:SLICELAB_\w+=\S+\s+|[A-Z_]+=\S+\s+)*(?:npx slicelab|slicelab|node|sh|bash|nice)\s/;
  for (const block of text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) {
    const lines = (block[1] as string).split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!starts.test(lines[i] as string)) continue;
      let cmd = (lines[i] as string).trim();
      while (cmd.endsWith("\\") && i + 1 < lines.length) cmd = `${cmd.slice(0, -1).trim()} ${(lines[++i] as string).trim()}`;
      return cmd;
    }
  }
  for (const m of text.matchAll(/`([^`\n]+)`/g)) if (starts.test(`${m[1]} `) && (m[1] as string).includes(" ")) return (m[1] as string).trim();
  return undefined;
}

/** The mode a `sched/preempt` read shows: the word in parentheses. */
export function preemptFromDebugfs(text: string): string | undefined {
  return /\(([a-z]+)\)/.exec(text)?.[1];
}

function preemptFiles(dir: string): { mode: string; from: string }[] {
  const out: { mode: string; from: string }[] = [];
  const walk = (d: string, depth: number) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        if (depth < 2 && !SKIP_DIRS.has(n)) walk(p, depth + 1);
      } else if (n === "preempt.txt") {
        const mode = preemptFromDebugfs(readFileSync(p, "utf8"));
        if (mode) out.push({ mode, from: relative(dir, p) });
      }
    }
  };
  walk(dir, 0);
  return out;
}

type PgBuild = { name: string; info: Json; from: string };

/** PostgreSQL builds the provenance names: an object with a version, or a map variant → build (series sessions, `builds`). */
function pgBuilds(sources: Source[]): PgBuild[] {
  for (const key of ["postgres", "builds", "server"]) {
    const single = findObject(sources, key, (o) => str(o.version));
    if (single) return [{ name: key, info: single.value, from: single.from }];
    const map = findObject(sources, key, (o) => Object.values(o).length > 0 && Object.values(o).every((v) => typeof v === "object" && v !== null && str((v as Json).version)));
    if (map) return Object.entries(map.value).map(([name, info]) => ({ name, info: info as Json, from: map.from }));
  }
  return [];
}

function postgresFields(sources: Source[], readme: string | undefined, files: string[]): RecordEnvelope["postgres"] {
  const builds = pgBuilds(sources);
  const readmePatch = readme ? /patch hash `([0-9a-f]{8,64})`/.exec(readme)?.[1] : undefined;
  if (builds.length === 0) {
    // the patch's own records (postgres check, hook-cost, lock-ops) carry `version` and `patch: { hash }` at the top
    const own = sources.find((s) => str(s.json.version) && typeof s.json.patch === "object" && s.json.patch !== null && str((s.json.patch as Json).hash));
    // a kit build's prefix names its patch hash: …/install/18.6-patched-<hash>-<key>/bin (traced VM runs record only pgBin)
    const pgBin = findValue(sources, "pgBin", str)?.value as string | undefined;
    const binPatch = pgBin ? /\/\d+\.\d+-patched-([0-9a-f]{12})-[0-9a-f]+\/bin\/?$/.exec(pgBin)?.[1] : undefined;
    const ownPatch = own ? ((own.json.patch as Json).hash as string) : binPatch ? `${binPatch} (the kit build's prefix, pgBin)` : undefined;
    return {
      version: own ? `${own.json.version as string} (${own.rel})` : unknown(NOT_IN("the PostgreSQL version", files)),
      build: own && str(own.json.binDir) ? `binaries ${own.json.binDir as string}` : pgBin ? `kit patched build ${pgBin}` : unknown(NOT_IN("the PostgreSQL build", files)),
      patch: ownPatch ? ownPatch : readmePatch ? `patch hash ${readmePatch} (README.md)` : unknown(NOT_IN("the PostgreSQL patch version", files)),
    };
  }
  const label = (b: PgBuild) => (builds.length > 1 ? `${b.name}: ` : "");
  const versions = [...new Set(builds.map((b) => (b.info.version as string).replace(/^postgres \(PostgreSQL\) /, "")))];
  const build = builds.map((b) => {
    const br = b.info.buildRecord as Json | null | undefined;
    const bin = str(b.info.binDir) ? (b.info.binDir as string) : "?";
    if (br && typeof br === "object") return `${label(b)}kit ${String(br.variant ?? "source")} build ${bin}`;
    return `${label(b)}${bin.startsWith("/usr/lib/postgresql/") ? "Debian package" : "binaries"} ${bin}`;
  });
  const patches = builds.map((b) => {
    const br = b.info.buildRecord as Json | null | undefined;
    const patch = br && typeof br === "object" ? (br.patch as Json | undefined) : undefined;
    if (patch && str(patch.hash)) return `${label(b)}${patch.hash as string}`;
    if (br && typeof br === "object") return `${label(b)}none (kit ${String(br.variant ?? "")} build)`;
    return `${label(b)}none (unpatched)`;
  });
  return { version: `${versions.join(", ")} (${builds[0]?.from})`, build: [...new Set(build)].join("; "), patch: [...new Set(patches)].join("; ") };
}

/** Derives the envelope of a legacy record directory from its own files. */
export function deriveRecord(dir: string): RecordEnvelope {
  const name = basename(dir);
  const sources = provenanceSources(dir);
  const files = sources.map((s) => s.rel);
  const readmePath = join(dir, "README.md");
  const readme = existsSync(readmePath) ? readFileSync(readmePath, "utf8") : undefined;
  const notes: string[] = [`envelope derived by \`slicelab record convert\` from the directory's own files; the raw files are unchanged`];

  const title = readme
    ? (/^#\s+(.+)$/m.exec(readme)?.[1]?.trim() ?? name)
    : (findValue(sources, "question", str)?.value as string | undefined) ?? (findValue(sources, "kind", str)?.value as string | undefined) ?? name;

  const kitObj = findObject(sources, "kit", (o) => str(o.commit));
  const kit = {
    commit: kitObj ? (kitObj.value.commit as string) : unknown(NOT_IN("the kit commit", files)),
    dirty: kitObj && typeof kitObj.value.dirty === "boolean" ? (kitObj.value.dirty as boolean) : unknown(NOT_IN("whether the working tree was dirty", files)),
  };

  const hostObj = findObject(sources, "host", (o) => str(o.hostname) || typeof o.cpus === "number");
  const machine = hostObj ? undefined : findObject(sources, "machine", (o) => typeof o.cpus === "number");
  const h = hostObj?.value ?? machine?.value;
  const host = {
    hostname: h && str(h.hostname) ? (h.hostname as string) : unknown(NOT_IN("the host name", files)),
    cpuModel: h && str(h.cpuModel) ? (h.cpuModel as string) : h && str(h.model) ? (h.model as string) : unknown(NOT_IN("the CPU model", files)),
    cpus: h && typeof h.cpus === "number" ? (h.cpus as number) : unknown(NOT_IN("the CPU count", files)),
    memoryBytes: h && typeof h.memoryBytes === "number" ? (h.memoryBytes as number) : unknown(NOT_IN("the memory size", files)),
  };

  const envObj = findObject(sources, "environment", (o) => o.vm === true);
  const isVm = envObj !== undefined || /^vm-/.test(name);
  const environment: RecordEnvelope["environment"] = envObj
    ? { kind: "vm", detail: `QEMU ${String(envObj.value.accel ?? "?").toUpperCase()}, ${String(envObj.value.cpus ?? "?")} vCPUs, ${String(envObj.value.memMiB ?? "?")} MiB${str(envObj.value.append) ? `, boot line ${envObj.value.append as string}` : ""} (${envObj.from})` }
    : isVm
      ? { kind: "vm", detail: `the kit's QEMU VM (the directory's name and README; no environment record)` }
      : hostObj
        ? { kind: "host", detail: `on the host ${typeof host.hostname === "string" ? host.hostname : "(its name not recorded)"} (${hostObj.from})` }
        : unknown(NOT_IN("where it ran", files));

  const kernelObj = findObject(sources, "kernel", (o) => str(o.release) || str(o.version));
  const k = kernelObj?.value;
  const release = k ? (str(k.release) ? (k.release as string) : (k.version as string)) : undefined;
  const preemptCfg = k && typeof k.preempt === "object" && k.preempt !== null ? (k.preempt as Json) : undefined;
  const preemptTxt = preemptFiles(dir);
  const appendModes = [...new Set(sources.flatMap((s) => [...JSON.stringify(s.json).matchAll(/preempt=(none|voluntary|full|lazy)/g)].map((m) => m[1] as string)))];
  let preemptMode: Field<string>;
  if (preemptTxt.length > 0) {
    const modes = [...new Set(preemptTxt.map((p) => p.mode))];
    preemptMode = `${modes.join(", ")} (sched/preempt read in ${preemptTxt.map((p) => p.from).join(", ")})`;
  } else if (preemptCfg && str(preemptCfg.debugfs)) {
    preemptMode = `${preemptFromDebugfs(preemptCfg.debugfs as string) ?? preemptCfg.debugfs} (debugfs sched/preempt)`;
  } else if (appendModes.length > 0) {
    preemptMode = `${appendModes.join(", ")} (preempt= on the boot line)`;
  } else if (preemptCfg && str(preemptCfg.config)) {
    preemptMode = unknown(
      `the build-time model is ${preemptCfg.config as string}${preemptCfg.dynamic === true ? " with PREEMPT_DYNAMIC" : ""}, but debugfs sched/preempt was not readable, so the mode in force is not recorded`,
    );
  } else preemptMode = unknown(NOT_IN("the preemption mode", files));

  const prctl = k && typeof k.sliceExtensionPrctl === "object" && k.sliceExtensionPrctl !== null ? (k.sliceExtensionPrctl as Json) : undefined;
  const sliceExtension: Field<string> = prctl
    ? prctl.available === true
      ? `available (${String(prctl.detail)})`
      : prctl.available === false
        ? `unavailable: prctl(PR_RSEQ_SLICE_EXTENSION) ${String(prctl.detail)}`
        : unknown(String(prctl.detail))
    : k && typeof k.sliceExtension === "boolean"
      ? k.sliceExtension
        ? "available (the VM kernel's build has RSEQ_SLICE_EXTENSION)"
        : "unavailable (the kernel's build lacks RSEQ_SLICE_EXTENSION)"
      : unknown(NOT_IN("whether the slice extension worked", files));
  const kernel = {
    release: release ?? unknown(NOT_IN("the kernel release", files)),
    configSha256: k && str(k.configSha256) ? (k.configSha256 as string) : unknown(NOT_IN("the kernel config hash", files)),
    preemptMode,
    sliceExtension,
  };

  const glibcHit = findValue(sources, "glibc", str);
  const glibc: Field<string> = glibcHit ? `${glibcHit.value as string} (${glibcHit.from})` : unknown(`not recorded: ${NOT_IN("the C library version", files)}`);

  const postgres = postgresFields(sources, readme, files);

  const times = tableTimes(dir);
  const startedHit = findValue(sources, "started", (v) => str(v) && /^\d{4}-\d\d-\d\dT/.test(v));
  const stampHit = findValue(sources, "measured", (v) => str(v) && /^\d{8}T\d{6}Z$/.test(v));
  const fromStamp = (s: string) => `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`;
  const started: Field<string> = startedHit
    ? (startedHit.value as string)
    : times.first
      ? times.first
      : stampHit
        ? fromStamp(stampHit.value as string)
        : unknown(NOT_IN("when it started", [...files, ...times.from]));
  const ended: Field<string> = times.last ? times.last : unknown(times.from.length ? `no row of ${times.from.join(", ")} has an end time` : "the directory has no run table (results.jsonl, runs.jsonl) with end times");

  const designHit = findObject(sources, "design", () => true) ?? findObject(sources, "series", (o) => o.design !== undefined) ?? findObject(sources, "protocol", () => true);
  const design: Field<Json> = designHit ? { ...designHit.value, source: designHit.from } : unknown(NOT_IN("the design", files));

  const cmd = readme ? readmeCommand(readme) : undefined;
  const command: Field<string> = cmd
    ? cmd
    : unknown(readme ? "README.md quotes no command line" : `no README.md, and ${NOT_IN("the command line that made it", files)}`);
  if (cmd) notes.push("command: the first command line README.md quotes");

  const concurrentParts: string[] = [];
  const load = findValue(sources, "loadAverage", (v) => Array.isArray(v) && v.length === 3) ?? findValue(sources, "loadAverageStart", (v) => Array.isArray(v) && v.length === 3) ?? findValue(sources, "loadavgStart", (v) => Array.isArray(v) && v.length === 3);
  if (load) concurrentParts.push(`load average ${(load.value as number[]).join(" ")} at the start (${load.from}; per-run loads in the run tables)`);
  if (existsSync(join(dir, "host-overlap.csv"))) concurrentParts.push("other processes and VMs overlapping each run: host-overlap.csv");
  if (existsSync(join(dir, "host-activity.log"))) concurrentParts.push("host activity during the runs: host-activity.log");
  const concurrent: Field<string> = concurrentParts.length
    ? concurrentParts.join("; ")
    : unknown("not recorded: no load averages or host activity log among the record's files (the machine was shared; see README.md where present)");

  const top = readdirSync(dir).filter((n) => n !== RECORD_FILE && n !== SUMS_FILE).sort();
  const code = top.filter((n) => /\.(mjs|js|ts|sh|py)$/.test(n));
  if (code.length) notes.push(`code among the data (kept where the README cites it): ${code.join(", ")}`);

  let analysis: RecordEnvelope["analysis"] = unknown("the record has no analysis file with a verdict (analysis.json, summary.json, comparison.json); README.md and the notebooks say what it shows");
  for (const f of ["analysis.json", "summary.json", "comparison.json"]) {
    const j = existsSync(join(dir, f)) ? readJson(join(dir, f)) : undefined;
    const c = j ? combineVerdicts(verdictsIn(j)) : undefined;
    if (c) {
      analysis = { ...c, file: f };
      break;
    }
  }

  return {
    format: RECORD_FORMAT,
    study: legacyStudy(name) ?? name,
    title,
    environment,
    design,
    command,
    kit,
    host,
    kernel,
    glibc,
    postgres,
    started,
    ended,
    concurrent,
    files: top,
    derivedFrom: [...files, ...(readme ? ["README.md"] : [])],
    analysis,
    notes,
  };
}

/**
 * Derives record.json for every top-level directory under `root` that has none
 * and is not a study directory of records; writes them when `write`.
 */
export function deriveEnvelopes(root: string, write: boolean): { dir: string; study: string; unknown: string[] }[] {
  const done: { dir: string; study: string; unknown: string[] }[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!statSync(dir).isDirectory() || existsSync(join(dir, RECORD_FILE))) continue;
    // A study directory of new-format records (data/runs/STUDY/STAMP/) is not itself a record.
    const subs = readdirSync(dir).filter((s) => statSync(join(dir, s)).isDirectory());
    if (subs.length > 0 && subs.every((s) => existsSync(join(dir, s, RECORD_FILE)))) continue;
    const rec = deriveRecord(dir);
    const text = recordText(rec);
    const unknowns = Object.entries(JSON.parse(text) as Record<string, unknown>).flatMap(([k, v]) =>
      typeof v === "object" && v !== null && !Array.isArray(v)
        ? "unknown" in v ? [k] : Object.entries(v).filter(([, x]) => typeof x === "object" && x !== null && "unknown" in x).map(([s]) => `${k}.${s}`)
        : [],
    );
    if (write) writeRecord(dir, rec);
    done.push({ dir: name, study: rec.study, unknown: unknowns });
  }
  return done;
}
