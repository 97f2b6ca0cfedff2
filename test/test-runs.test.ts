/**
 * The end of every `npm test`: the reporter's summary (skips with reasons, the data/ guard), the
 * closing lines, the run records and README's table of times generated from them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataSnapshot, failureMessage, snapshotChanges, type TestSummary } from "../src/testing/reporter.js";
import { cacheClass, reproduceCacheClass, closingLines, readTestRuns, README_BEGIN, README_END, skipSummaryLines, timesTable, withTimesTable, type TestRunRecord } from "../src/testing/runs.js";
import { repoRoot } from "../src/util/paths.js";

const reporter = join(repoRoot(), "dist", "src", "testing", "reporter.js");
const guard = join(repoRoot(), "dist", "src", "testing", "data-guard.js");

/** A scratch git repository with committed data/, and test files to run in it. */
function scratchRepo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-guard-repo-"));
  mkdirSync(join(dir, "data"));
  writeFileSync(join(dir, "data", "committed.txt"), "evidence\n");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const git = (...a: string[]) => execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", ...a]);
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "init");
  return dir;
}

function runWithReporter(dir: string, files: string[]): { summary: TestSummary; status: number | null } {
  const out = join(dir, "summary.json");
  const r = spawnSync(process.execPath, ["--import", guard, "--test", "--test-concurrency=1", `--test-reporter=${reporter}`, `--test-reporter-destination=${out}`, ...files], {
    cwd: dir,
    encoding: "utf8",
    // Without NODE_TEST_CONTEXT: with it the child would report to this runner instead of its reporter.
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT")), SLICELAB_GUARD_ROOT: dir, SLICELAB_GUARD_OUT: join(dir, "guard") },
  });
  return { summary: JSON.parse(readFileSync(out, "utf8")) as TestSummary, status: r.status };
}

test("reporter: counts, every skip with its file and reason, and the data/ guard charging the file that wrote", { timeout: 120_000 }, () => {
  const dir = scratchRepo({
    "a.test.mjs": `import { test } from "node:test";\ntest("ok", () => {});\ntest("needs tracefs", { skip: "tracefs is not mounted" }, () => {});\ntest("inner skip", (t) => { t.skip("no kernel with the feature"); });\n`,
    "b.test.mjs": `import { test } from "node:test";\nimport { writeFileSync } from "node:fs";\ntest("writes evidence", () => { writeFileSync("data/committed.txt", "changed\\n"); writeFileSync("data/new.json", "{}"); });\n`,
    "c.test.mjs": `import { test } from "node:test";\nimport assert from "node:assert/strict";\ntest("fails", () => { throw new Error("x"); });\ntest("asserts", () => { assert.ok(0 > 1, "client backends: expected ≥ 8, found 7"); });\n`,
  });
  try {
    const { summary, status } = runWithReporter(dir, ["a.test.mjs", "b.test.mjs", "c.test.mjs"]);
    assert.notEqual(status, 0);
    // b's own test passes, but the file fails: the guard set its exit status (node counts that as a failure).
    assert.deepEqual(summary.counts, { tests: 7, pass: 2, fail: 3, skipped: 2, todo: 0 });
    assert.deepEqual(summary.skipped.map((s) => [s.file, s.name, s.reason]), [
      ["a.test.mjs", "needs tracefs", "tracefs is not mounted"],
      ["a.test.mjs", "inner skip", "no kernel with the feature"],
    ]);
    assert.deepEqual(summary.failed.map((f) => f.file).sort(), ["b.test.mjs", "c.test.mjs", "c.test.mjs"]);
    // Each failure keeps its message (not the stack), so a run record says why after the log is gone.
    assert.equal(summary.failed.find((f) => f.name === "fails")?.message, "x");
    assert.equal(summary.failed.find((f) => f.name === "asserts")?.message, "client backends: expected ≥ 8, found 7");
    assert.equal(summary.dataGuard.ran, true);
    assert.equal(summary.dataGuard.violations.length, 1);
    assert.equal(summary.dataGuard.violations[0]!.file, "b.test.mjs");
    assert.deepEqual(summary.dataGuard.violations[0]!.changes, ["M data/committed.txt", "?? data/new.json"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("reporter: a run that leaves data/ alone has no violation; outside git the guard says it did not run", { timeout: 120_000 }, () => {
  const dir = scratchRepo({ "a.test.mjs": `import { test } from "node:test";\nimport { writeFileSync } from "node:fs";\ntest("writes elsewhere", () => { writeFileSync("scratch.txt", "x"); });\n` });
  try {
    const { summary, status } = runWithReporter(dir, ["a.test.mjs"]);
    assert.equal(status, 0);
    assert.deepEqual(summary.dataGuard, { ran: true, reason: null, violations: [] });
    rmSync(join(dir, ".git"), { recursive: true, force: true });
    const r2 = runWithReporter(dir, ["a.test.mjs"]);
    assert.equal(r2.summary.dataGuard.ran, false);
    assert.match(r2.summary.dataGuard.reason!, /is not a git checkout/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("snapshots: a file changed twice after its first modification is still seen", () => {
  const dir = scratchRepo({});
  try {
    writeFileSync(join(dir, "data", "committed.txt"), "one\n");
    const a = dataSnapshot(dir) as Map<string, string>;
    writeFileSync(join(dir, "data", "committed.txt"), "two\n");
    const b = dataSnapshot(dir) as Map<string, string>;
    assert.deepEqual(snapshotChanges(a, b), ["M data/committed.txt"]);
    assert.deepEqual(snapshotChanges(b, b), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const summary = (over: Partial<TestSummary> = {}): TestSummary => ({
  kind: "slicelab-test-summary",
  counts: { tests: 10, pass: 7, fail: 0, skipped: 3, todo: 0 },
  skipped: [
    { file: "dist/test/vm-e2e.test.js", name: "micro A/B", reason: "set SLICELAB_E2E=1" },
    { file: "dist/test/vm-trace.test.js", name: "traced", reason: "set SLICELAB_E2E=1" },
    { file: "dist/test/collect-perf.test.js", name: "perf-lock", reason: "tracefs is not mounted" },
  ],
  failed: [],
  dataGuard: { ran: true, reason: null, violations: [] },
  ...over,
});

test("closing lines: skips grouped by reason, most frequent first; the plain count line last; the guard fails the run", () => {
  assert.deepEqual(skipSummaryLines(summary()), [
    '2 skipped because set SLICELAB_E2E=1: vm-e2e.test.js "micro A/B"; vm-trace.test.js "traced"',
    '1 skipped because tracefs is not mounted: collect-perf.test.js "perf-lock"',
  ]);
  const ok = closingLines(summary(), 0);
  assert.equal(ok.passed, true);
  assert.equal(ok.lines.at(-1), "7 passed, 0 failed, 3 skipped");
  assert.ok(ok.lines.includes("data/ guard: no test changed anything under data/"));
  const bad = closingLines(summary({ dataGuard: { ran: true, reason: null, violations: [{ file: "dist/test/x.test.js", changes: ["?? data/runs/vm-micro-1/rows.json"] }] } }), 0);
  assert.equal(bad.passed, false);
  assert.equal(bad.lines.at(-1), "7 passed, 1 failed, 3 skipped");
  assert.ok(bad.lines.some((l) => l.includes("x.test.js (or the file that ran next): ?? data/runs/vm-micro-1/rows.json")));
  assert.equal(closingLines(summary(), 1).passed, false, "node's own exit status counts too");
});

const run = (over: Partial<TestRunRecord & { path: string }>): TestRunRecord & { path: string } => ({
  kind: "slicelab-test-run",
  suite: "test",
  cache: "cold",
  commit: "0123456789abcdef",
  dirty: false,
  started: "2026-12-01T19:00:00.000Z",
  ended: "2026-12-01T19:50:00.000Z",
  seconds: { total: 3000, prepare: 1500, tests: 1400 },
  prepare: { target: "test", cache: "/c", coldAtStart: true, seconds: 1500, steps: [{ step: "kernel (slice-ext + vm)", status: "made", seconds: 1200, detail: "" }, { step: "VM probe", status: "cached", seconds: 0.1, detail: "" }] },
  counts: { tests: 600, pass: 580, fail: 0, skipped: 20, todo: 0 },
  skipped: [],
  failed: [],
  dataGuard: { ran: true, reason: null, violations: [] },
  exitStatus: 0,
  passed: true,
  machine: { cpus: 2, kernel: "6.18", loadavgStart: [0.5], loadavgEnd: [2.25] },
  where: { cloneUnder: "/tmp/x", cacheUnder: "/tmp/x" },
  path: "data/test-runs/a.json",
  ...over,
});

test("README's table of times: passing runs only, newest first, what prepare built and the load", () => {
  const t = timesTable([run({}), run({ passed: false, started: "2026-12-01T21:00:00.000Z" }), run({ cache: "warm", started: "2026-12-01T20:00:00.000Z", seconds: { total: 900, prepare: 30, tests: 850 }, path: "data/test-runs/b.json", prepare: { target: "test", cache: "/c", coldAtStart: false, seconds: 30, steps: [] } })]);
  const rows = t.split("\n").slice(2);
  assert.equal(rows.length, 2);
  assert.equal(rows[0], "| `npm test` | warm | 15.0 min | 0.5 min | 580 / 0 / 20 | 0.5–2.3 | 0123456789 | `data/test-runs/b.json` |");
  assert.equal(rows[1], "| `npm test` | cold | 50.0 min | 25.0 min (kernel (slice-ext + vm) 20.0 min) | 580 / 0 / 20 | 0.5–2.3 | 0123456789 | `data/test-runs/a.json` |");
  assert.match(timesTable([run({ passed: false })]), /^No passing run is recorded yet/);
  assert.match(timesTable([run({ note: "six builds beside it" })]), /`data\/test-runs\/a\.json` \(six builds beside it\) \|$/m);
  assert.throws(() => withTimesTable("# no markers\n", t), /README\.md: expected the markers/);
  assert.equal(withTimesTable(`a\n${README_BEGIN}\nold\n${README_END}\nb\n`, "T"), `a\n${README_BEGIN}\nT\n${README_END}\nb\n`);
});

test("a run's cache class: cold when nothing was cached, warm when prepare built nothing, partial otherwise", () => {
  const step = (status: "made" | "cached") => ({ step: "s", status, seconds: 1, detail: "" });
  const prep = (coldAtStart: boolean, steps: ReturnType<typeof step>[]) => ({ target: "e2e", cache: "/c", coldAtStart, seconds: 1, steps });
  assert.equal(cacheClass(prep(true, [step("made")])), "cold");
  assert.equal(cacheClass(prep(false, [step("cached"), step("cached")])), "warm");
  assert.equal(cacheClass(prep(false, [step("cached"), step("made")])), "partial");
});

test("npm run reproduce's row: the installs as its prepare time, what the clone lacked, its exit status instead of test counts", () => {
  const r = run({
    suite: "reproduce", cache: reproduceCacheClass(["node_modules", "dist"]), seconds: { total: 150, prepare: 90, tests: 60 },
    counts: { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0 }, prepare: { target: "reproduce (scripts/setup.sh)", cache: "/c", coldAtStart: true, seconds: 90, steps: [] },
    reproduce: { what: "claims recomputed", missingAtStart: ["node_modules", "dist"] },
  });
  assert.equal(timesTable([r]).split("\n")[2], "| `npm run reproduce` | cold | 2.5 min | 1.5 min (installs; the clone lacked node_modules, dist) | exit 0 (claims recomputed) | 0.5–2.3 | 0123456789 | `data/test-runs/a.json` |");
  assert.equal(reproduceCacheClass([]), "warm");
  assert.equal(reproduceCacheClass(["tslab-kernel-spec"]), "cold");
  assert.match(timesTable([{ ...r, suite: "e2e" }]).split("\n")[2]!, /^\| `npm run test:e2e` \|/);
});

test("README.md's table of times is the one generated from data/test-runs/", () => {
  const readme = readFileSync(join(repoRoot(), "README.md"), "utf8");
  const runs = readTestRuns(join(repoRoot(), "data", "test-runs"));
  assert.equal(withTimesTable(readme, timesTable(runs)), readme, "stale: run node dist/scripts/test-summary.js readme");
});

test("failureMessage: the wrapped error's message without its stack, clipped to 12 lines", () => {
  const inner = new Error("first\nsecond");
  inner.stack = "Error: first\nsecond\n    at f (x.js:1:1)";
  assert.equal(failureMessage(Object.assign(new Error("test failed"), { cause: inner })), "first\nsecond");
  assert.equal(failureMessage(new TypeError("no such thing")), "TypeError: no such thing");
  assert.equal(failureMessage({ message: "plain object" }), "plain object");
  assert.equal(failureMessage(undefined), "undefined");
  const long = failureMessage(new Error(Array.from({ length: 20 }, (_, i) => `line ${i}\n    at g (y.js:${i}:1)`).join("\n")));
  assert.equal(long.split("\n").length, 13);
  assert.match(long, /^line 0\n/);
  assert.match(long, /… \(8 more lines\)$/);
});
