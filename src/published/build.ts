/**
 * Turns the raw excerpts of the four source posts (data/published/<source>/*.raw.txt)
 * into tidy records, using the parsers of src/parse/. Pure functions of the raw
 * texts: scripts/build-published.ts writes their output as the committed tidy
 * files, and test/published-data.test.ts runs them again and compares.
 */
import { toCsv } from "../util/csv.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError, quoteFound } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { parsePgbench } from "../parse/pgbench.js";
import { parseLockmeter, type LockmeterRow } from "../parse/lockmeter.js";
import { parsePerfReport } from "../parse/perf-report.js";
import { extractFigures, parseOutline, parseWithWithout, type Outline, type ProseFigure } from "../parse/figures.js";
import { splitLines, unquote } from "../parse/text.js";

/** The folder of the published data, relative to the repository root. */
export const PUBLISHED_DIR = "data/published";

/** A raw excerpt: its path relative to the repository root and its text. */
export interface RawFile {
  path: string;
  text: string;
}

/** Reads a raw excerpt of a source (`name` without folder). */
export function readRaw(source: string, name: string, root = repoRoot()): RawFile {
  const path = `${PUBLISHED_DIR}/${source}/${name}`;
  return { path, text: readFileSync(join(root, path), "utf8") };
}

/** The nearest non-blank line above `line` (1-based) that ends with a colon, without the colon. */
function labelAbove(lines: string[], line: number): { text: string; line: number } | null {
  for (let i = line - 2; i >= 0; i--) {
    const t = unquote(lines[i]!).trim();
    if (t.endsWith(":")) return { text: t.slice(0, -1).trim(), line: i + 1 };
  }
  return null;
}

// ---------------------------------------------------------------- Rostedt 2023

export type RostedtSide = "without-patch" | "with-patch";

/** One pgbench run of Rostedt's post. */
export interface RostedtRun {
  side: RostedtSide;
  /** "first": the run he discarded as cold; "measured": one of the 15 runs he compared. */
  role: "first" | "measured";
  /** Position of the run on its side, 1–16, in the order posted. */
  run: number;
  tps: number;
  file: string;
  line: number;
}

/** The Average / Std Dev he reported for one side. */
export interface RostedtReported {
  side: RostedtSide;
  average: number;
  stdDev: number;
  file: string;
  line: number;
}

function rostedtSide(raw: RawFile): RostedtSide {
  const first = splitLines(raw.text).findIndex((l) => l.trim() !== "");
  const head = splitLines(raw.text)[first] ?? "";
  const m = /^(Without|With) the patched postgres executable:$/.exec(head.trim());
  if (!m) {
    throw new ParseError(raw.path, first + 1, '"Without/With the patched postgres executable:"', quoteFound(head));
  }
  return m[1] === "Without" ? "without-patch" : "with-patch";
}

/** Runs of one side: the pgbench excerpt lines, labelled by the "First run:" / "15 runs:" headings above them. */
export function buildRostedtRuns(raw: RawFile): RostedtRun[] {
  const side = rostedtSide(raw);
  const lines = splitLines(raw.text);
  return parsePgbench(raw.text, raw.path).map((r, i) => {
    if (!r.excerpt) throw new ParseError(raw.path, r.line, "a bare tps excerpt line", quoteFound(lines[r.line - 1]));
    const label = labelAbove(lines, r.line);
    let role: RostedtRun["role"];
    if (label && /^First run$/i.test(label.text)) role = "first";
    else if (label && /^\d+ runs$/i.test(label.text)) role = "measured";
    else throw new ParseError(raw.path, r.line, 'a "First run:" or "N runs:" heading above the tps line', quoteFound(label?.text));
    return { side, role, run: i + 1, tps: r.tps, file: raw.path, line: r.line };
  });
}

/** The Average and Std Dev lines of both sides. */
export function buildRostedtReported(raw: RawFile): RostedtReported[] {
  const figs = extractFigures(raw.text, raw.path, [
    { id: "without-patch.average", before: String.raw`Without the patch:\s*Average:`, after: "", unit: "tps" },
    { id: "without-patch.stdDev", before: String.raw`Without the patch:\s*Average:\s*[\d.]+\s*Std Dev:`, after: "", unit: "tps" },
    { id: "with-patch.average", before: String.raw`With the patch:\s*Average:`, after: "", unit: "tps" },
    { id: "with-patch.stdDev", before: String.raw`With the patch:\s*Average:\s*[\d.]+\s*Std Dev:`, after: "", unit: "tps" },
  ]);
  const get = (id: string): ProseFigure => figs.find((f) => f.id === id)!;
  return (["without-patch", "with-patch"] as const).map((side) => ({
    side,
    average: get(`${side}.average`).value,
    stdDev: get(`${side}.stdDev`).value,
    file: raw.path,
    line: get(`${side}.average`).line,
  }));
}

export interface Rostedt2023Tidy {
  runs: RostedtRun[];
  reported: RostedtReported[];
}

export function buildRostedt2023(root = repoRoot()): Rostedt2023Tidy {
  return {
    runs: [
      ...buildRostedtRuns(readRaw("rostedt-2023", "without-patch.raw.txt", root)),
      ...buildRostedtRuns(readRaw("rostedt-2023", "with-patch.raw.txt", root)),
    ],
    reported: buildRostedtReported(readRaw("rostedt-2023", "reported-summary.raw.txt", root)),
  };
}

// --------------------------------------------------------------- Sangappa 2024

export interface SangappaResult {
  test: string;
  description: string;
  feature: string;
  unit: string;
  without: number;
  withFeature: number;
  withoutPrinted: string;
  withPrinted: string;
  statedImprovementPct: number | null;
  statedImprovementText: string | null;
  file: string;
  line: number;
  withoutLine: number;
  withLine: number;
  statedImprovementLine: number | null;
}

export function buildSangappa2024(root = repoRoot()): { results: SangappaResult[] } {
  const raw = readRaw("sangappa-2024", "test-results.raw.txt", root);
  const results = parseWithWithout(raw.text, raw.path).map((r) => {
    if (r.without.unit !== r.with.unit) {
      throw new ParseError(raw.path, r.with.line, `the unit of the "without" line (${r.without.unit})`, quoteFound(r.with.unit));
    }
    return {
      test: r.test,
      description: r.description,
      feature: r.feature,
      unit: r.without.unit,
      without: r.without.value,
      withFeature: r.with.value,
      withoutPrinted: r.without.printed,
      withPrinted: r.with.printed,
      statedImprovementPct: r.statedImprovementPct,
      statedImprovementText: r.statedImprovementText,
      file: raw.path,
      line: r.line,
      withoutLine: r.without.line,
      withLine: r.with.line,
      statedImprovementLine: r.statedImprovementLine,
    };
  });
  return { results };
}

// ------------------------------------------------------------------ Lahr 2001

/** One machine of Lahr's configuration, with the `[48]-way` entries expanded. */
export interface LahrMachine {
  machine: string;
  cpus: number;
  memory: string;
  cpu: string;
  kernel: string;
  nics: string;
  distribution: string;
  database: string;
  client: string;
}

/** Expands an outline key like "2-way" or "[48]-way" into the CPU counts it names. */
function cpuCounts(key: string): number[] {
  const m = /^(?:(\d+)|\[(\d+)\])-way$/.exec(key);
  if (!m) return [];
  return m[1] !== undefined ? [Number(m[1])] : [...m[2]!].map(Number);
}

function perMachine(node: string | Outline | undefined, what: string, file: string): Map<number, string> {
  const out = new Map<number, string>();
  if (node === undefined) throw new ParseError(file, 1, `a "${what}" entry in the configuration`, "none");
  if (typeof node === "string") return out; // one value for all machines: handled by the caller
  for (const [k, v] of Object.entries(node)) {
    if (typeof v !== "string") throw new ParseError(file, 1, `a value for "${what}: ${k}"`, "a nested outline");
    for (const c of cpuCounts(k)) out.set(c, v.trim());
  }
  return out;
}

export function buildLahrMachines(configuration: Outline, file: string): LahrMachine[] {
  const server = configuration["server configuration"];
  if (typeof server !== "object") throw new ParseError(file, 1, '"server configuration:"', "none");
  const hw = server.hardware as Outline;
  const sw = server.software as Outline;
  const memory = perMachine(hw.memory, "memory", file);
  const cpus = perMachine(hw.cpus, "cpus", file);
  const kernel = perMachine(sw.kernel, "kernel", file);
  const counts = [...memory.keys()].sort((a, b) => a - b);
  return counts.map((c) => {
    const need = (m: Map<number, string>, what: string): string => {
      const v = m.get(c);
      if (v === undefined) throw new ParseError(file, 1, `a "${what}" entry for the ${c}-way machine`, "none");
      return v;
    };
    return {
      machine: `${c}way`,
      cpus: c,
      memory: need(memory, "memory"),
      cpu: need(cpus, "cpus"),
      kernel: need(kernel, "kernel"),
      nics: String(hw.NICs ?? "").trim(),
      distribution: String(sw.distribution ?? "").trim(),
      database: String(sw.database ?? "").trim(),
      client: String(sw.client ?? "").trim(),
    };
  });
}

export interface Lahr2001Tidy {
  rows: LockmeterRow[];
  configuration: Outline;
  machines: LahrMachine[];
  /** Spraul's figures for the 8-way run. */
  spraul: ProseFigure[];
  /** The two rows Anton Blanchard quoted in his reply. */
  blanchardQuote: LockmeterRow[];
}

export function buildLahr2001(root = repoRoot()): Lahr2001Tidy {
  const lock = readRaw("lahr-2001", "lockstat.raw.txt", root);
  const conf = readRaw("lahr-2001", "configuration.raw.txt", root);
  const spraul = readRaw("lahr-2001", "spraul-reply.raw.txt", root);
  const quote = readRaw("lahr-2001", "blanchard-quote.raw.txt", root);
  const configuration = parseOutline(conf.text, conf.path);
  return {
    rows: parseLockmeter(lock.text, lock.path),
    configuration,
    machines: buildLahrMachines(configuration, conf.path),
    spraul: extractFigures(spraul.text, spraul.path, [
      { id: "wall-clock", before: String.raw`The 8-way test ran for ~`, after: String.raw`seconds wall clock time`, unit: "s" },
      { id: "cpu-time", before: String.raw`total cpu time`, after: String.raw`seconds`, unit: "s" },
      { id: "spinning", before: String.raw`and around`, after: String.raw`seconds were lost due to spinning`, unit: "s" },
    ]),
    blanchardQuote: parseLockmeter(quote.text, quote.path),
  };
}

// -------------------------------------------------------------------- Lu 2023

export interface LuProfileRow {
  /** "before" or "after" commit af7f588d8f73, from the words that introduce each table. */
  kernel: "before" | "after";
  childrenPct: number | null;
  selfPct: number;
  sharedObject: string;
  space: string;
  symbol: string;
  file: string;
  line: number;
}

/** A command line of the reproducer: the program, its --options and the positional words. */
export interface CommandLine {
  program: string;
  options: Record<string, string>;
  args: string[];
  file: string;
  line: number;
}

export function buildLuProfile(raw: RawFile): LuProfileRow[] {
  const rows = parsePerfReport(raw.text, raw.path);
  const lines = splitLines(raw.text);
  const tables = [...new Set(rows.map((r) => r.table))];
  const kindOf = new Map<number, "before" | "after">();
  let from = 0;
  for (const t of tables) {
    const first = rows.find((r) => r.table === t)!;
    const intro = lines.slice(from, first.line - 1).map((l) => unquote(l).trim()).join(" ");
    if (/\bafter that commit\b/i.test(intro)) kindOf.set(t, "after");
    else if (/\bbefore commit\b/i.test(intro)) kindOf.set(t, "before");
    else throw new ParseError(raw.path, first.line, 'words "before commit …" or "After that commit" introducing the profile', quoteFound(intro));
    from = rows.filter((r) => r.table === t).at(-1)!.line;
  }
  return rows.map((r) => ({
    kernel: kindOf.get(r.table)!,
    childrenPct: r.childrenPct,
    selfPct: r.selfPct,
    sharedObject: r.sharedObject ?? failNoSharedObject(raw.path, r.line, lines[r.line - 1] ?? ""),
    space: r.space,
    symbol: r.symbol,
    file: raw.path,
    line: r.line,
  }));
}

/** Lu's profiles are sorted by dso,sym: a row without a shared object means the header was not that one. */
function failNoSharedObject(file: string, line: number, text: string): never {
  throw new ParseError(file, line, "a Shared Object column (the profile is sorted by dso,sym)", quoteFound(text));
}

/** Splits a shell command line on blanks (the reproducer uses no quotes). */
function parseCommandLine(text: string, file: string, line: number): CommandLine {
  const words = text.trim().split(/\s+/);
  const options: Record<string, string> = {};
  const args: string[] = [];
  for (const w of words.slice(1)) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(w);
    if (m) options[m[1]!] = m[2] ?? "true";
    else args.push(w);
  }
  return { program: words[0]!, options, args, file, line };
}

/** The sysbench and docker command lines of the reproducer. */
export function buildLuReproducer(raw: RawFile): { sysbench: CommandLine[]; postgresSettings: Record<string, string>; dockerLine: number } {
  const lines = splitLines(raw.text).map(unquote);
  const sysbench: CommandLine[] = [];
  const settings: Record<string, string> = {};
  let dockerLine = 0;
  lines.forEach((l, i) => {
    const sb = /(sysbench --.*)$/.exec(l);
    if (sb) sysbench.push(parseCommandLine(sb[1]!, raw.path, i + 1));
    if (/docker run\b/.test(l)) {
      dockerLine = i + 1;
      // "postgres -c name=value -c name=value": the server settings after the image name.
      for (const m of l.matchAll(/-c (\S+?)=(\S+)/g)) settings[m[1]!] = m[2]!;
    }
  });
  if (sysbench.length === 0) throw new ParseError(raw.path, 1, "a sysbench command line", "none");
  if (dockerLine === 0) throw new ParseError(raw.path, 1, "a docker run command line", "none");
  return { sysbench, postgresSettings: settings, dockerLine };
}

export interface Lu2023Tidy {
  profile: LuProfileRow[];
  sysbench: CommandLine[];
  postgresSettings: Record<string, string>;
}

export function buildLu2023(root = repoRoot()): Lu2023Tidy {
  const rep = buildLuReproducer(readRaw("lu-2023", "reproducer.raw.txt", root));
  return {
    profile: buildLuProfile(readRaw("lu-2023", "profiles.raw.txt", root)),
    sysbench: rep.sysbench,
    postgresSettings: rep.postgresSettings,
  };
}

// -------------------------------------------------------------- tidy files

export { toCsv } from "../util/csv.js";

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

/** Every tidy file (path relative to the repository root → content) built from the raw excerpts. */
export function buildPublishedFiles(root = repoRoot()): Map<string, string> {
  const files = new Map<string, string>();
  const d = PUBLISHED_DIR;

  const ro = buildRostedt2023(root);
  files.set(`${d}/rostedt-2023/runs.json`, json(ro.runs));
  files.set(`${d}/rostedt-2023/runs.csv`, toCsv(["side", "role", "run", "tps", "file", "line"], ro.runs));
  files.set(`${d}/rostedt-2023/reported.json`, json(ro.reported));

  const sa = buildSangappa2024(root);
  files.set(`${d}/sangappa-2024/results.json`, json(sa.results));
  files.set(
    `${d}/sangappa-2024/results.csv`,
    toCsv(["test", "unit", "without", "withFeature", "statedImprovementPct", "file", "line"], sa.results),
  );

  const la = buildLahr2001(root);
  files.set(`${d}/lahr-2001/lockmeter.json`, json(la.rows));
  files.set(
    `${d}/lahr-2001/lockmeter.csv`,
    toCsv(
      ["section", "kind", "lock", "caller", "utilPct", "conPct", "holdMeanUs", "holdMaxUs", "waitMeanUs", "waitMaxUs", "total", "nowait", "spin", "reject", "name", "file", "line"],
      la.rows,
    ),
  );
  files.set(`${d}/lahr-2001/configuration.json`, json({ outline: la.configuration, machines: la.machines }));
  files.set(`${d}/lahr-2001/spraul.json`, json(la.spraul));
  files.set(`${d}/lahr-2001/blanchard-quote.json`, json(la.blanchardQuote));

  const lu = buildLu2023(root);
  files.set(`${d}/lu-2023/profile.json`, json(lu.profile));
  files.set(`${d}/lu-2023/profile.csv`, toCsv(["kernel", "childrenPct", "selfPct", "sharedObject", "space", "symbol", "file", "line"], lu.profile));
  files.set(`${d}/lu-2023/reproducer.json`, json({ sysbench: lu.sysbench, postgresSettings: lu.postgresSettings }));
  return files;
}
