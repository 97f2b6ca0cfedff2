/**
 * The public samples the parsers are tested on, computed from the fixtures: every
 * file under test/fixtures/DIR/ that has a sidecar NAME.source.json (URL, date, what
 * was kept, the tool version). Most live in DIR/public/; a few older ones sit in
 * DIR/ itself (the perf wiki's `perf lock contention` blocks, a sysbench 1.1 run)
 * and have their sidecars there.
 *
 * Each sample belongs to one `slicelab parse` format (src/parse/formats.ts): the
 * format of its fixture directory, or, for a directory holding more than one
 * format (perf-lock: report and contention), the one whose detect() recognises it;
 * a sidecar's `format` field overrides both.
 *
 * The sidecar's `version` is the tool (or kernel) version the sample or its source
 * states ("pgbench 16.4", "sysbench 1.0.20", "perf 6.2", "Linux 2.6.11"), "unknown"
 * otherwise; `versionSource` says where it was read: "sample" (in the stored text
 * itself), "source" (the mail, page or document it came from), "none".
 *
 * coverageTable() counts samples and versions per format; coverageMarkdown() is the
 * table in test/fixtures/README.md, which `node dist/scripts/fixtures-coverage.js readme`
 * rewrites (--check: exit 1 if stale) and test/parse-public-coverage.test.ts checks.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { formats, type ParserFormat } from "./formats.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";

/** Fixture directory → the parse formats its samples can be (first match of detect() when several). */
export const FIXTURE_DIR_FORMATS: Readonly<Record<string, readonly string[]>> = {
  lockmeter: ["lockmeter"],
  perf: ["perf-report"],
  "perf-lock": ["perf-lock-report", "perf-lock-contention"],
  "perf-top": ["perf-top"],
  pgbench: ["pgbench"],
  "proc-lock-stat": ["proc-lock-stat"],
  "rseq-stats": ["rseq-stats"],
  "slice-trace": ["slice-trace"],
  sysbench: ["sysbench"],
};

/** The formats issue 16 asks public samples for, in the order of the table. */
export const COVERED_FORMATS = [
  "pgbench",
  "lockmeter",
  "proc-lock-stat",
  "perf-lock-report",
  "perf-lock-contention",
  "perf-report",
  "perf-top",
  "sysbench",
  "rseq-stats",
  "slice-trace",
] as const;

export type VersionSource = "sample" | "source" | "none";

export interface PublicSample {
  format: string;
  /** Fixture directory under test/fixtures/ (perf-lock, …). */
  dir: string;
  /** Path relative to test/fixtures/. */
  path: string;
  /** Absolute path of the sample and of its sidecar. */
  file: string;
  sidecar: string;
  url: string;
  date: string;
  version: string;
  versionSource: VersionSource;
}

export function fixturesRoot(): string {
  return join(repoRoot(), "test", "fixtures");
}

function formatByName(name: string): ParserFormat {
  const f = formats.find((x) => x.name === name);
  if (!f) throw new UserError(`public coverage: no parse format named ${JSON.stringify(name)}`);
  return f;
}

/** Sample files (any extension but .json) with a NAME.source.json beside them, in one directory. */
function samplesIn(dir: string): { file: string; sidecar: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => !n.endsWith(".json") && statSync(join(dir, n)).isFile())
    .map((n) => ({ file: join(dir, n), sidecar: join(dir, `${n.replace(/\.[^.]+$/, "")}.source.json`) }))
    .filter((s) => existsSync(s.sidecar))
    .sort((a, b) => (a.file < b.file ? -1 : 1));
}

/** Every sidecar under test/fixtures/DIR/ and DIR/public/ (a sidecar must have its sample). */
function sidecarsIn(dir: string): string[] {
  const out: string[] = [];
  for (const d of [dir, join(dir, "public")]) if (existsSync(d)) out.push(...readdirSync(d).filter((n) => n.endsWith(".source.json")).map((n) => join(d, n)));
  return out.sort();
}

/** The public samples of all fixture directories named in FIXTURE_DIR_FORMATS. */
export function publicSamples(root: string = fixturesRoot()): PublicSample[] {
  const out: PublicSample[] = [];
  for (const [dir, names] of Object.entries(FIXTURE_DIR_FORMATS)) {
    const base = join(root, dir);
    const found = [...samplesIn(base), ...samplesIn(join(base, "public"))];
    const withSample = new Set(found.map((s) => s.sidecar));
    for (const side of sidecarsIn(base)) if (!withSample.has(side)) throw new UserError(`${side}: a sidecar without its sample (NAME.txt or NAME.md beside it)`);
    for (const s of found) {
      const meta = JSON.parse(readFileSync(s.sidecar, "utf8")) as Record<string, unknown>;
      let format: string;
      if (typeof meta.format === "string") format = meta.format;
      else if (names.length === 1) format = names[0]!;
      else {
        const text = readFileSync(s.file, "utf8");
        const hit = names.filter((n) => formatByName(n).detect(text));
        if (hit.length !== 1) throw new UserError(`${s.file}: expected exactly one of ${names.join(", ")} to recognise it (or a "format" in its sidecar), found ${hit.length === 0 ? "none" : hit.join(", ")}`);
        format = hit[0]!;
      }
      const vs = meta.versionSource;
      out.push({
        format,
        dir,
        path: s.file.slice(root.length + 1),
        file: s.file,
        sidecar: s.sidecar,
        url: String(meta.url ?? ""),
        date: String(meta.date ?? ""),
        version: typeof meta.version === "string" ? meta.version : "",
        versionSource: vs === "sample" || vs === "source" || vs === "none" ? vs : "none",
      });
    }
  }
  return out;
}

export interface CoverageRow {
  format: string;
  samples: number;
  /** Stated versions, each once, in a stable order; "unknown" samples are counted apart. */
  versions: string[];
  unknownVersion: number;
}

/** Versions in the order of their first number ("PostgreSQL 10" < "pgbench 14.8" < "PostgreSQL 17"), then by text. */
export function versionCompare(a: string, b: string): number {
  const num = (v: string) => /\d[\d.]*/.exec(v)?.[0] ?? "";
  return num(a).localeCompare(num(b), "en", { numeric: true }) || a.localeCompare(b, "en", { numeric: true });
}

/** Formats of the table with fewer than `min` public samples. */
export function formatsBelow(rows: readonly CoverageRow[], min: number): string[] {
  return rows.filter((r) => r.samples < min).map((r) => `${r.format} (${r.samples})`);
}

export function coverageTable(samples: readonly PublicSample[]): CoverageRow[] {
  return COVERED_FORMATS.map((format) => {
    const mine = samples.filter((s) => s.format === format);
    const stated = mine.filter((s) => s.version !== "" && s.version !== "unknown").map((s) => s.version);
    return { format, samples: mine.length, versions: [...new Set(stated)].sort(versionCompare), unknownVersion: mine.length - stated.length };
  });
}

export const COVERAGE_BEGIN = "<!-- public-coverage:begin (generated by node dist/scripts/fixtures-coverage.js readme; do not edit) -->";
export const COVERAGE_END = "<!-- public-coverage:end -->";

export function coverageMarkdown(rows: readonly CoverageRow[]): string {
  const lines = ["| format | public samples | versions stated (sample or source) | version not stated |", "| --- | ---: | --- | ---: |"];
  for (const r of rows) lines.push(`| ${r.format} | ${r.samples} | ${r.versions.length === 0 ? "—" : r.versions.join(", ").replace(/\|/g, "\\|")} | ${r.unknownVersion} |`);
  return lines.join("\n");
}

/** The README text with the table between the markers replaced. */
export function withCoverageTable(readme: string, table: string): string {
  const a = readme.indexOf(COVERAGE_BEGIN);
  const b = readme.indexOf(COVERAGE_END);
  if (a < 0 || b < a) throw new UserError(`test/fixtures/README.md: expected the markers ${COVERAGE_BEGIN} … ${COVERAGE_END}, found ${a < 0 ? "no begin marker" : "no end marker after it"}`);
  return `${readme.slice(0, a + COVERAGE_BEGIN.length)}\n${table}\n${readme.slice(b)}`;
}
