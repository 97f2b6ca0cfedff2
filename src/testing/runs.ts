/**
 * What `scripts/test.sh` says at the end of a test run, and the records it keeps with `--record`:
 *   - the summary of every skipped test grouped by reason (nothing skips in silence),
 *   - the data/ guard's verdict,
 *   - with --record, a run record data/test-runs/<UTC stamp>-<suite>-<cold|warm>.json (the command a
 *     user runs, never a test, writes it), from which README's table of times is generated.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import type { TestSummary } from "./reporter.js";
import type { StepResult } from "../prepare/index.js";

export interface PrepareRecord {
  target: string;
  cache: string;
  coldAtStart: boolean;
  seconds: number;
  steps: StepResult[];
}

/**
 * How warm the cache was for a run: cold (it held nothing the kit made when the run started), warm
 * (the prepare step built nothing), partial (it held some builds and prepare made the rest, e.g.
 * `test:e2e` after `npm test`: the tracepoint kernel is new).
 */
export type CacheClass = "cold" | "warm" | "partial";

export function cacheClass(p: PrepareRecord): CacheClass {
  if (p.coldAtStart) return "cold";
  return p.steps.some((s) => s.status === "made") ? "partial" : "warm";
}

export interface TestRunRecord {
  kind: "slicelab-test-run";
  /** `npm test`, `npm run test:e2e`, or `npm run reproduce` (no tests: its counts are zero, its prepare step is the installs). */
  suite: "test" | "e2e" | "reproduce";
  /** See cacheClass. */
  cache: CacheClass;
  commit: string;
  dirty: boolean;
  started: string;
  ended: string;
  /** Wall-clock seconds: the whole command (installs included), the prepare step, the tests. */
  seconds: { total: number; prepare: number; tests: number };
  prepare: PrepareRecord;
  counts: TestSummary["counts"];
  skipped: TestSummary["skipped"];
  failed: TestSummary["failed"];
  dataGuard: TestSummary["dataGuard"];
  /** The node --test exit status. */
  exitStatus: number;
  passed: boolean;
  machine: { cpus: number; kernel: string; loadavgStart: number[]; loadavgEnd: number[] };
  where: { cloneUnder: string; cacheUnder: string };
  /** What else the machine did meanwhile, added by hand to a kept record (the load average at start and end misses it). */
  note?: string;
  /** `npm run reproduce` only: what it did after the installs, and what the clone lacked at the start. */
  reproduce?: { what: string; missingAtStart: string[] };
}

/**
 * How warm a clone was for `npm run reproduce`: cold when it lacked anything the installs make
 * (node_modules, dist, the tslab kernel spec), warm otherwise. Debian packages are not looked at: on a
 * machine that has them already, a "cold" run does not include apt's downloads.
 */
export function reproduceCacheClass(missingAtStart: readonly string[]): CacheClass {
  return missingAtStart.length > 0 ? "cold" : "warm";
}

const COMMAND: Record<TestRunRecord["suite"], string> = { test: "npm test", e2e: "npm run test:e2e", reproduce: "npm run reproduce" };

/** The skipped tests grouped by reason, most frequent first: "5 skipped: REASON — file: name; …". */
export function skipSummaryLines(s: TestSummary): string[] {
  const by = new Map<string, { file: string; name: string }[]>();
  for (const t of s.skipped) by.set(t.reason, [...(by.get(t.reason) ?? []), t]);
  return [...by.entries()]
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([reason, ts]) => `${ts.length} skipped because ${reason}: ${ts.map((t) => `${t.file.replace(/^dist\/test\//, "")} "${t.name}"`).join("; ")}`);
}

/** The lines test.sh prints after the spec reporter's output, and whether the run passed. */
export function closingLines(s: TestSummary, nodeExit: number): { lines: string[]; passed: boolean } {
  const lines: string[] = [];
  lines.push(s.skipped.length === 0 ? "skipped: none" : `skipped: ${s.skipped.length} test(s) did not run, and why:`);
  for (const l of skipSummaryLines(s)) lines.push(`  ${l}`);
  if (!s.dataGuard.ran) lines.push(`data/ guard: did not run (${s.dataGuard.reason})`);
  else if (s.dataGuard.violations.length === 0) lines.push("data/ guard: no test changed anything under data/");
  else {
    lines.push("data/ guard: FAILED — tests must not write into data/ (use a temporary directory):");
    for (const v of s.dataGuard.violations) lines.push(`  ${v.file} (or the file that ran next): ${v.changes.join(", ")}`);
  }
  const passed = nodeExit === 0 && s.counts.fail === 0 && s.dataGuard.violations.length === 0;
  lines.push(`${s.counts.pass} passed, ${s.counts.fail + s.dataGuard.violations.length} failed, ${s.counts.skipped} skipped`);
  return { lines, passed };
}

/** Every run record under `dir` (data/test-runs), oldest first; a bad file is an error naming it. */
export function readTestRuns(dir: string): (TestRunRecord & { path: string })[] {
  if (!existsSync(dir)) return [];
  const out: (TestRunRecord & { path: string })[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
    const path = join(dir, name);
    let r: TestRunRecord;
    try {
      r = JSON.parse(readFileSync(path, "utf8")) as TestRunRecord;
    } catch (e) {
      throw new UserError(`${path}: expected a test-run record (JSON), found unparsable text: ${(e as Error).message}`);
    }
    if (r.kind !== "slicelab-test-run") throw new UserError(`${path}: expected "kind": "slicelab-test-run", found ${JSON.stringify(r.kind)}`);
    out.push({ ...r, path: `data/test-runs/${name}` });
  }
  return out;
}

const fmtMin = (s: number) => `${(s / 60).toFixed(1)} min`;

/**
 * README's table of times: one row per recorded run that passed (a failed run is no measure of how
 * long the suite takes), newest first, with the counts and the machine's load as recorded.
 */
export function timesTable(runs: TestRunRecord[] & { path?: string }[]): string {
  const ok = (runs as (TestRunRecord & { path: string })[]).filter((r) => r.passed).sort((a, b) => b.started.localeCompare(a.started));
  if (ok.length === 0) return "No passing run is recorded yet (`bash scripts/test.sh --record` records one).";
  const rows = ok.map((r) => {
    const made = r.prepare.steps.filter((s) => s.status === "made").map((s) => `${s.step} ${fmtMin(s.seconds)}`);
    const prepare = r.suite === "reproduce"
      ? `${fmtMin(r.seconds.prepare)} (installs${r.reproduce && r.reproduce.missingAtStart.length ? `; the clone lacked ${r.reproduce.missingAtStart.join(", ")}` : ""})`
      : `${fmtMin(r.seconds.prepare)}${made.length ? ` (${made.join("; ")})` : ""}`;
    const counts = r.suite === "reproduce" ? `exit ${r.exitStatus} (${r.reproduce?.what ?? "no tests"})` : `${r.counts.pass} / ${r.counts.fail} / ${r.counts.skipped}`;
    return `| \`${COMMAND[r.suite]}\` | ${r.cache} | ${fmtMin(r.seconds.total)} | ${prepare} | ${counts} | ${r.machine.loadavgStart[0]?.toFixed(1)}–${r.machine.loadavgEnd[0]?.toFixed(1)} | ${r.commit.slice(0, 10)}${r.dirty ? "+dirty" : ""} | \`${r.path}\`${r.note ? ` (${r.note})` : ""} |`;
  });
  return [
    "| command | cache | total | prepare (what it built) | pass / fail / skipped | load (start–end) | commit | record |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

export const README_BEGIN = "<!-- test-times:begin (generated by `node dist/scripts/test-summary.js readme` from data/test-runs/) -->";
export const README_END = "<!-- test-times:end -->";

/** README's text with the generated table between the markers. */
export function withTimesTable(readme: string, table: string): string {
  const a = readme.indexOf(README_BEGIN);
  const b = readme.indexOf(README_END);
  if (a < 0 || b < a) throw new UserError(`README.md: expected the markers ${README_BEGIN} … ${README_END}, found ${a < 0 ? "no begin marker" : "no end marker after it"}`);
  return `${readme.slice(0, a + README_BEGIN.length)}\n${table}\n${readme.slice(b)}`;
}
