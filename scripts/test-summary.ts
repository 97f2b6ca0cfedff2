/**
 * Test plumbing for scripts/test.sh (not a test itself):
 *
 *   node dist/scripts/test-summary.js close SUMMARY NODE_EXIT [--record DIR --suite test|e2e
 *        --prepare PREPARE.json --started ISO --t0 S --t-tests S --load-start L]
 *       prints the skip summary, the data/ guard's verdict and the closing count line; exits 1
 *       unless the run passed; with --record writes the run record into DIR.
 *   node dist/scripts/test-summary.js reproduce-record --out DIR --started ISO --t0 S --t-setup S
 *        --exit N --missing "a b" --what TEXT --load-start L
 *       writes the run record of one `npm run reproduce` (scripts/reproduce.sh --record) into DIR.
 *   node dist/scripts/test-summary.js readme [--check]
 *       regenerates README.md's table of times from data/test-runs/ (--check: exit 1 if stale).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { cacheClass, reproduceCacheClass, closingLines, readTestRuns, timesTable, withTimesTable, type PrepareRecord, type TestRunRecord } from "../src/testing/runs.js";
import type { TestSummary } from "../src/testing/reporter.js";
import { writeFileAtomic } from "../src/util/fs.js";
import { cacheDir, repoRoot } from "../src/util/paths.js";

function git(args: string[]): string {
  try {
    return execFileSync("git", ["-C", repoRoot(), ...args], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

function close(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      record: { type: "string" },
      suite: { type: "string" },
      prepare: { type: "string" },
      started: { type: "string" },
      t0: { type: "string" },
      "t-tests": { type: "string" },
      "load-start": { type: "string" },
    },
  });
  const [summaryPath, exitText] = positionals;
  if (!summaryPath || exitText === undefined) throw new Error("usage: test-summary.js close SUMMARY NODE_EXIT [--record DIR …]");
  const nodeExit = Number(exitText);
  let summary: TestSummary;
  try {
    summary = JSON.parse(readFileSync(summaryPath, "utf8")) as TestSummary;
  } catch (e) {
    process.stdout.write(`test summary: the reporter wrote no summary to ${summaryPath} (${(e as Error).message.split("\n")[0]}); node --test exited ${nodeExit}\n`);
    return 1;
  }
  const { lines, passed } = closingLines(summary, nodeExit);
  if (values.record) {
    const prep = JSON.parse(readFileSync(values.prepare!, "utf8")) as PrepareRecord;
    const now = Date.now() / 1000;
    const t0 = Number(values.t0);
    const tTests = Number(values["t-tests"]);
    const suite = values.suite === "e2e" ? "e2e" : "test";
    const rec: TestRunRecord = {
      kind: "slicelab-test-run",
      suite,
      cache: cacheClass(prep),
      commit: git(["rev-parse", "HEAD"]),
      dirty: git(["status", "--porcelain", "--untracked-files=no"]) !== "",
      started: values.started!,
      ended: new Date().toISOString(),
      seconds: { total: Math.round(now - t0), prepare: Math.round(prep.seconds), tests: Math.round(now - tTests) },
      prepare: prep,
      counts: summary.counts,
      skipped: summary.skipped,
      failed: summary.failed,
      dataGuard: summary.dataGuard,
      exitStatus: nodeExit,
      passed,
      machine: { cpus: cpus().length, kernel: release(), loadavgStart: (values["load-start"] ?? "").split(" ").filter(Boolean).map(Number), loadavgEnd: loadavg().map((x) => Math.round(x * 100) / 100) },
      where: { cloneUnder: dirname(repoRoot()), cacheUnder: dirname(cacheDir()) },
    };
    const stamp = rec.started.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    const path = join(values.record, `${stamp}-${suite}-${rec.cache}.json`);
    writeFileAtomic(path, `${JSON.stringify(rec, null, 2)}\n`);
    lines.unshift(`run record: ${path} (${rec.cache} cache, ${passed ? "passed" : "did not pass"})`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return passed ? 0 : 1;
}

function reproduceRecord(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string" }, started: { type: "string" }, t0: { type: "string" }, "t-setup": { type: "string" },
      exit: { type: "string" }, missing: { type: "string" }, what: { type: "string" }, "load-start": { type: "string" },
    },
  });
  for (const k of ["out", "started", "t0", "t-setup", "exit", "what"] as const) {
    if (values[k] === undefined) throw new Error(`test-summary.js reproduce-record: --${k} is required`);
  }
  const now = Date.now() / 1000;
  const t0 = Number(values.t0);
  const tSetup = Number(values["t-setup"]);
  const missing = (values.missing ?? "").split(" ").filter(Boolean);
  const exitStatus = Number(values.exit);
  const rec: TestRunRecord = {
    kind: "slicelab-test-run",
    suite: "reproduce",
    cache: reproduceCacheClass(missing),
    commit: git(["rev-parse", "HEAD"]),
    dirty: git(["status", "--porcelain", "--untracked-files=no"]) !== "",
    started: values.started!,
    ended: new Date().toISOString(),
    seconds: { total: Math.round(now - t0), prepare: Math.round(tSetup - t0), tests: Math.round(now - tSetup) },
    prepare: { target: "reproduce (scripts/setup.sh)", cache: cacheDir(), coldAtStart: missing.length > 0, seconds: tSetup - t0, steps: [] },
    counts: { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0 },
    skipped: [],
    failed: [],
    dataGuard: { ran: false, reason: "npm run reproduce runs no tests", violations: [] },
    exitStatus,
    passed: exitStatus === 0,
    machine: { cpus: cpus().length, kernel: release(), loadavgStart: (values["load-start"] ?? "").split(" ").filter(Boolean).map(Number), loadavgEnd: loadavg().map((x) => Math.round(x * 100) / 100) },
    where: { cloneUnder: dirname(repoRoot()), cacheUnder: dirname(cacheDir()) },
    reproduce: { what: values.what!, missingAtStart: missing },
  };
  const stamp = rec.started.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const path = join(values.out!, `${stamp}-reproduce-${rec.cache}.json`);
  writeFileAtomic(path, `${JSON.stringify(rec, null, 2)}\n`);
  process.stdout.write(`run record: ${path} (${rec.cache}, ${rec.passed ? "passed" : "did not pass"})\n`);
  return 0;
}

function readme(argv: string[]): number {
  const check = argv.includes("--check");
  const path = join(repoRoot(), "README.md");
  const text = readFileSync(path, "utf8");
  const next = withTimesTable(text, timesTable(readTestRuns(join(repoRoot(), "data", "test-runs"))));
  if (check) {
    if (next !== text) {
      process.stdout.write("README.md: the table of times is stale: run node dist/scripts/test-summary.js readme\n");
      return 1;
    }
    return 0;
  }
  if (next !== text) writeFileAtomic(path, next);
  process.stdout.write(next !== text ? "README.md: table of times regenerated\n" : "README.md: table of times already current\n");
  return 0;
}

const [mode, ...rest] = process.argv.slice(2);
process.exitCode = mode === "close" ? close(rest) : mode === "readme" ? readme(rest) : mode === "reproduce-record" ? reproduceRecord(rest) : (process.stderr.write("usage: test-summary.js close|reproduce-record|readme …\n"), 2);
