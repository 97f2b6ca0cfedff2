import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { parsePgbench, parsePgbenchFile, type PgbenchRun } from "../src/parse/pgbench.js";
import { ParseError, UserError } from "../src/util/errors.js";
import { repoRoot, workDir } from "../src/util/paths.js";

const root = repoRoot();
const fx = (name: string): string => join(root, "test/fixtures/pgbench", name);
const rel = (name: string): string => `test/fixtures/pgbench/${name}`;
const parseFixture = (name: string): PgbenchRun[] => parsePgbench(readFileSync(fx(name), "utf8"), rel(name));
const one = (name: string): PgbenchRun => {
  const runs = parseFixture(name);
  assert.equal(runs.length, 1, `${name}: one run`);
  return runs[0]!;
};
const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} ≈ ${b}`);

/** Asserts that parsing throws a ParseError at `line` whose message matches `re`. */
function assertParseError(fn: () => unknown, file: string, line: number, re: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ParseError, `ParseError, got ${String(err)}`);
    assert.equal(err.line, line, err.message);
    assert.ok(err.message.startsWith(`${file}:${line}: expected `), err.message);
    assert.match(err.message, re);
    return true;
  });
}

test("pgbench 15 select-only run: every summary field", () => {
  const r = one("pg15-select-only.txt");
  assert.equal(r.file, "test/fixtures/pgbench/pg15-select-only.txt");
  assert.equal(r.line, 13);
  assert.equal(r.startLine, 1);
  assert.equal(r.excerpt, false);
  assert.equal(r.tps, 8474.816596);
  assert.equal(r.tpsMode, "without initial connection time");
  assert.equal(r.tpsIncludingConnections, null);
  assert.equal(r.version, "15.18 (Debian 15.18-0+deb12u1)");
  assert.equal(r.serverVersion, null);
  assert.equal(r.transactionType, "<builtin: select only>");
  assert.equal(r.scale, 1);
  assert.equal(r.queryMode, "simple");
  assert.equal(r.clients, 1);
  assert.equal(r.threads, 1);
  assert.equal(r.maxTries, 1);
  assert.equal(r.durationS, 3);
  assert.equal(r.transactionsPerClient, null);
  assert.equal(r.transactionsProcessed, 25402);
  assert.equal(r.transactionsIntended, null);
  assert.equal(r.failed, 0);
  assert.equal(r.latencyAverageMs, 0.118);
  assert.equal(r.latencyStddevMs, null);
  assert.equal(r.initialConnectionTimeMs, 2.845);
  assert.deepEqual(r.progress, []);
  assert.deepEqual(r.statements, []);
  assert.deepEqual(r.errors, []);
});

test("pgbench 15: clients/threads, prepared mode, custom script, -t transactions", () => {
  const ct = one("pg15-clients-threads.txt");
  assert.equal(ct.clients, 4);
  assert.equal(ct.threads, 2);
  assert.equal(ct.tps, 45126.576991);
  assert.equal(one("pg15-prepared.txt").queryMode, "prepared");
  assert.equal(one("pg15-custom-script.txt").transactionType, "test/fixtures/pgbench/scripts/custom-select.sql");
  const t = one("pg15-transactions.txt");
  assert.equal(t.transactionsPerClient, 2000);
  assert.equal(t.transactionsProcessed, 4000);
  assert.equal(t.transactionsIntended, 4000);
  assert.equal(t.durationS, null);
  assert.equal(t.clients, 2);
});

test("pgbench 15 --progress lines, and the run's latency stddev", () => {
  const r = one("pg15-progress.txt");
  assert.equal(r.progress.length, 5);
  assert.deepEqual(r.progress[0], {
    line: 2,
    elapsedS: 1,
    tps: 7095.2,
    latencyMs: 0.14,
    latencyStddevMs: 0.04,
    lagMs: null,
    skipped: null,
    failed: 0,
    retried: null,
    retries: null,
  });
  assert.deepEqual(
    r.progress.map((p) => p.elapsedS),
    [1, 2, 3, 4, 5],
  );
  assert.equal(r.latencyStddevMs, 0.056);
  assert.equal(r.line, 19);
  // The five one-second rates average close to the final tps.
  const mean = r.progress.reduce((a, p) => a + p.tps!, 0) / r.progress.length;
  assert.ok(Math.abs(mean - r.tps) / r.tps < 0.01, `${mean} vs ${r.tps}`);
});

test("pgbench 15 progress with failures and retries: per-second failures add up to the total", () => {
  const r = one("pg15-progress-retries.txt");
  assert.equal(r.maxTries, 3);
  assert.equal(r.failed, 5481);
  assert.equal(r.retried, 6491);
  assert.equal(r.retriesTotal, 12450);
  assert.deepEqual(
    r.progress.map((p) => [p.failed, p.retried, p.retries]),
    [
      [1571, 1833, 3534],
      [1402, 1706, 3255],
      [1293, 1480, 2852],
      [1215, 1471, 2807],
    ],
  );
  assert.equal(
    r.progress.reduce((a, p) => a + p.failed!, 0),
    r.failed,
  );
});

test("pgbench 15 -r: per-statement latencies sum to the transaction latency", () => {
  const r = one("pg15-per-statement.txt");
  assert.equal(r.transactionType, "<builtin: TPC-B (sort of)>");
  assert.equal(r.statements.length, 11);
  assert.deepEqual(r.statements[0], {
    line: 15,
    script: null,
    latencyMs: 0.001,
    failures: 0,
    retries: null,
    command: String.raw`\set aid random(1, 100000 * :scale)`,
  });
  assert.equal(r.statements[10]!.command, "END;");
  const sum = r.statements.reduce((a, s) => a + s.latencyMs, 0);
  close(sum, r.latencyAverageMs!, 0.005);
});

test("pgbench 15 failures and retries (--failures-detailed -r with --max-tries)", () => {
  const r = one("pg15-failures-retries.txt");
  assert.equal(r.failed, 4318);
  assert.equal(r.serializationFailures, 4318);
  assert.equal(r.deadlockFailures, 0);
  assert.equal(r.retried, 5242);
  assert.equal(r.retriesTotal, 9971);
  assert.equal(r.latencyAverageMs, 1.168);
  assert.equal(r.latencyIncludesFailures, true);
  assert.equal(r.statements.length, 5);
  const update = r.statements.find((s) => s.command.startsWith("UPDATE"))!;
  assert.equal(update.failures, 4311);
  assert.equal(update.retries, 9963);
  assert.equal(
    r.statements.reduce((a, s) => a + s.failures!, 0),
    r.failed,
  );
});

test("pgbench 15 rate limit: skipped, latency limit, schedule lag", () => {
  const r = one("pg15-rate-limit.txt");
  assert.equal(r.skipped, 1);
  assert.equal(r.latencyLimitMs, 5);
  assert.equal(r.aboveLatencyLimit, 1);
  assert.equal(r.scheduleLagAvgMs, 0.181);
  assert.equal(r.scheduleLagMaxMs, 4.352);
  assert.equal(r.latencyStddevMs, 0.474);
});

test("pgbench 15 weighted scripts: per-script blocks add up to the run", () => {
  const r = one("pg15-weighted-scripts.txt");
  assert.equal(r.transactionType, "multiple scripts");
  assert.equal(r.scripts.length, 2);
  assert.deepEqual(
    r.scripts.map((s) => [s.index, s.name, s.weight, s.targetPct, s.transactions, s.sharePct, s.tps, s.failed, s.latencyAverageMs, s.latencyStddevMs]),
    [
      [1, "<builtin: select only>", 3, 75, 10539, 75.3, 3514.940247, 0, 0.098, 0.112],
      [2, "<builtin: simple update>", 1, 25, 3453, 24.7, 1151.635703, 0, 0.568, 0.328],
    ],
  );
  assert.equal(
    r.scripts.reduce((a, s) => a + s.transactions!, 0),
    r.transactionsProcessed,
  );
  close(
    r.scripts.reduce((a, s) => a + s.tps!, 0),
    r.tps,
    1e-5,
  );
});

test("several runs in one file (a benchmark loop appending its output)", () => {
  const runs = parseFixture("pg15-three-runs.txt");
  assert.deepEqual(
    runs.map((r) => [r.startLine, r.line, r.tps, r.transactionsProcessed]),
    [
      [1, 13, 21242.056838, 42397],
      [14, 26, 28198.528472, 56235],
      [27, 39, 29026.175954, 57946],
    ],
  );
});

test("pgbench -i output holds no run", () => {
  assert.deepEqual(parseFixture("pg15-init.txt"), []);
});

test("an aborted run is an error at pgbench's own 'Run was aborted' line", () => {
  const f = rel("pg15-aborted.txt");
  assertParseError(() => parseFixture("pg15-aborted.txt"), f, 12, /a completed pgbench run, found "pgbench: error: Run was aborted/);
});

test("a run that could not connect is an error, not a silently missing run", () => {
  const f = rel("pg15-connection-failed.txt");
  assertParseError(() => parseFixture("pg15-connection-failed.txt"), f, 3, /closing the pgbench run that starts at line 1, found end of file/);
});

test("public: PostgreSQL 9.4/9.5 output (cockroachdb issue 4091): 'latency average:' and two tps lines", () => {
  const r = one("public/pg95-cockroachdb-issue-4091.txt");
  assert.equal(r.tps, 108.83263);
  assert.equal(r.tpsMode, "excluding connections establishing");
  assert.equal(r.tpsIncludingConnections, 108.830105);
  assert.equal(r.line, 11);
  assert.equal(r.transactionType, "TPC-B (sort of)");
  assert.equal(r.durationS, 30);
  assert.equal(r.transactionsProcessed, 3265);
  assert.equal(r.latencyAverageMs, 9.188);
  assert.equal(r.version, null);
});

test("public: PostgreSQL 10 documentation output and the Postgres Pro 12 variant agree", () => {
  const a = one("public/pg10-manpage-typical-output.txt");
  const b = one("public/pg12-postgrespro-docs.txt");
  for (const r of [a, b]) {
    assert.equal(r.tps, 85.296346);
    assert.equal(r.tpsIncludingConnections, 85.184871);
    assert.equal(r.clients, 10);
    assert.equal(r.scale, 10);
    assert.equal(r.transactionsPerClient, 1000);
    assert.equal(r.transactionsProcessed, 10000);
    assert.equal(r.transactionsIntended, 10000);
  }
});

test("public: PostgreSQL 8.x README output without a space before '(including'", () => {
  const r = one("public/pg81-readme-jis-2006.txt");
  assert.equal(r.tps, 20.098827);
  assert.equal(r.tpsIncludingConnections, 19.875015);
  assert.equal(r.transactionsProcessed, 400);
  assert.equal(r.transactionsIntended, 400);
  assert.equal(r.clients, 4);
});

test("public: two PostgreSQL 14 runs inside a Markdown README (RutamBhagat/haproxy)", () => {
  const runs = parseFixture("public/pg14-haproxy-readme.md");
  assert.deepEqual(
    runs.map((r) => [r.line, r.tps, r.clients, r.threads, r.transactionType, r.latencyStddevMs, r.initialConnectionTimeMs, r.maxTries]),
    [
      [26, 1732.598854, 10500, 150, "<builtin: TPC-B (sort of)>", 987.882, 2513.284, null],
      [47, 14265.844597, 100, 10, "pgbench-simple.sql", null, 12.075, null],
    ],
  );
});

test("public: PostgreSQL 16.4 output with banner and vacuum notice (kkknkp/db)", () => {
  const r = one("public/pg16-kkknkp-db-dz5.txt");
  assert.equal(r.version, "16.4 (Debian 16.4-1.pgdg120+2)");
  assert.equal(r.startLine, 2);
  assert.equal(r.tps, 803.850282);
  assert.equal(r.transactionsProcessed, 48232);
  assert.equal(r.failed, 0);
});

test("public: PostgreSQL 18.3, four runs among a script's own lines (serverscamp, AWS RDS bench100)", () => {
  const runs = parseFixture("public/pg18-serverscamp-aws-rds-bench100.txt");
  assert.deepEqual(
    runs.map((r) => [r.startLine, r.line, r.durationS, r.transactionsProcessed, r.latencyAverageMs, r.initialConnectionTimeMs, r.tps]),
    [
      [5, 17, 300, 1185125, 8.097, 146.725, 3952.077593],
      [21, 33, 600, 2385331, 8.047, 157.934, 3976.442323],
      [37, 49, 600, 2380108, 8.065, 143.238, 3967.670593],
      [53, 65, 600, 2411845, 7.959, 152.182, 4020.635072],
    ],
  );
  for (const r of runs) {
    assert.equal(r.version, "18.3 (Ubuntu 18.3-1)");
    assert.equal(r.tpsMode, "without initial connection time");
    assert.equal(r.queryMode, "prepared");
    assert.deepEqual([r.scale, r.clients, r.threads, r.maxTries, r.failed], [100, 32, 4, 1, 0]);
  }
  // tps × duration is close to the transactions processed (pgbench's tps excludes connection time)
  for (const r of runs) assert.ok(Math.abs((r.tps * r.durationS!) / r.transactionsProcessed! - 1) < 0.002, `run at line ${r.line}`);
});

test("public: PostgreSQL 17 documentation output", () => {
  const r = one("public/pg17-manpage-typical-output.txt");
  assert.equal(r.tps, 896.967014);
  assert.equal(r.tpsMode, "without initial connection time");
  assert.equal(r.maxTries, 1);
  assert.equal(r.failed, 0);
  assert.equal(r.latencyAverageMs, 11.013);
  assert.equal(r.latencyStddevMs, 7.351);
  assert.equal(r.initialConnectionTimeMs, 45.758);
});

test("public: PostgreSQL 15 documentation, latency limit with '(13.110 %)' and statement failures", () => {
  const r = one("public/pg15-docs-latency-limit-statements.txt");
  assert.equal(r.latencyLimitMs, 50);
  assert.equal(r.aboveLatencyLimit, 1311);
  assert.equal(r.statements.length, 8);
  assert.equal(r.statements[7]!.latencyMs, 11.126);
  assert.equal(r.statements[7]!.failures, 0);
  assert.equal(r.statements[7]!.command, "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;");
});

test("public: a PostgreSQL 14 output cut after its progress lines is reported as truncated", () => {
  const f = rel("public/pg14-neon-progress-fragment.txt");
  assertParseError(() => parseFixture("public/pg14-neon-progress-fragment.txt"), f, 11, /tps = N .* starts at line 1, found end of file/);
  // Without the cut it is a run: add the summary lines of a real run to check the banner parse.
  const text = readFileSync(fx("public/pg14-neon-progress-fragment.txt"), "utf8") + "tps = 8.0 (without initial connection time)\n";
  const [r] = parsePgbench(text, "x");
  assert.equal(r!.version, "14.8 (Ubuntu 14.8-0ubuntu0.22.04.1)");
  assert.equal(r!.serverVersion, "15.3");
  assert.equal(r!.progress.length, 9);
  assert.equal(r!.progress[8]!.latencyMs, 7055.317);
  assert.equal(r!.progress[0]!.failed, null);
});

test("Rostedt's excerpt lines: each indented tps line is one run", () => {
  const f = "data/published/rostedt-2023/without-patch.raw.txt";
  const runs = parsePgbench(readFileSync(join(root, f), "utf8"), f);
  assert.equal(runs.length, 16);
  assert.ok(runs.every((r) => r.excerpt && r.tpsMode === "without initial connection time" && r.clients === null));
  assert.equal(runs[0]!.tps, 72573.188203);
  assert.equal(runs[0]!.line, 4);
  assert.equal(runs[15]!.tps, 74973.185122);
  assert.equal(runs[15]!.line, 21);
});

test("mail quoting and CRLF line ends do not change the records", () => {
  const text = readFileSync(fx("pg15-failures-retries.txt"), "utf8");
  const plain = parsePgbench(text, "f");
  const quoted = parsePgbench(
    text
      .split("\n")
      .map((l) => (l === "" ? l : `> ${l}`))
      .join("\r\n"),
    "f",
  );
  assert.deepEqual(quoted, plain);
});

test("malformed and truncated pgbench output: FILE:LINE, what was expected, what was found", () => {
  const cases: [string, number, RegExp][] = [
    ["malformed/truncated-before-tps.txt", 11, /a "tps = N \(…\)" line closing the pgbench run that starts at line 1, found end of file/],
    ["malformed/truncated-mid-tps-line.txt", 13, /a tps line "tps = N \(without initial connection time\)".*found "tps = 8474\.81"/],
    ["malformed/second-run-truncated.txt", 22, /run that starts at line 14, found end of file/],
    ["malformed/unknown-tps-mode.txt", 19, /a tps mode .*found "tps = 7507\.660797 \(without initial connexion time\)"/],
    ["malformed/bad-progress-line.txt", 3, /progress parts .*found "progress: 2\.0 s, 7904\.7 tps, latency 0\.126 ms stddev 0\.030, 0 failed"/],
    ["malformed/latency-without-unit.txt", 11, /a latency "N ms", found "latency average = 0\.089"/],
  ];
  for (const [name, line, re] of cases) {
    assertParseError(() => parseFixture(name), rel(name), line, re);
  }
});

test("parsePgbenchFile reads the file and names it; a missing file is a UserError", () => {
  const runs = parsePgbenchFile(fx("pg15-select-only.txt"));
  assert.equal(runs[0]!.file, fx("pg15-select-only.txt"));
  assert.throws(
    () => parsePgbenchFile(fx("no-such-file.txt")),
    (e: unknown) => e instanceof UserError && /no-such-file\.txt: cannot read the file \(ENOENT\)/.test(e.message),
  );
});

test("every captured and public fixture parses or fails as its README says", () => {
  const failing = new Set(["pg15-aborted.txt", "pg15-connection-failed.txt", "public/pg14-neon-progress-fragment.txt"]);
  const names = [
    ...readdirSync(join(root, "test/fixtures/pgbench")).filter((n) => n.endsWith(".txt")),
    ...readdirSync(join(root, "test/fixtures/pgbench/public"))
      .filter((n) => n.endsWith(".txt") || n.endsWith(".md"))
      .map((n) => `public/${n}`),
  ];
  assert.ok(names.length >= 20, `${names.length} fixtures`);
  for (const n of names) {
    if (failing.has(n)) assert.throws(() => parseFixture(n), ParseError, n);
    else if (n !== "pg15-init.txt") assert.ok(parseFixture(n).length >= 1, n);
  }
});

// ------------------------------------------------------------------ CLI

const cli = join(root, "bin/slicelab.js");
function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("CLI: slicelab parse pgbench FILE… --json", () => {
  const r = run(["parse", "pgbench", rel("pg15-select-only.txt"), rel("pg15-three-runs.txt"), "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { format: string; records: PgbenchRun[] };
  assert.equal(out.format, "pgbench");
  assert.deepEqual(
    out.records.map((x) => [x.file, x.line, x.tps]),
    [
      [rel("pg15-select-only.txt"), 13, 8474.816596],
      [rel("pg15-three-runs.txt"), 13, 21242.056838],
      [rel("pg15-three-runs.txt"), 26, 28198.528472],
      [rel("pg15-three-runs.txt"), 39, 29026.175954],
    ],
  );
});

test("CLI: the readable table lists one line per run", () => {
  const r = run(["parse", "pgbench", rel("pg15-three-runs.txt")]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 4);
  assert.match(lines[0]!, /^file:line\s+tps\s+tps mode/);
  assert.match(lines[2]!, /pg15-three-runs\.txt:26\s+28198\.5\s+without conn\. time\s+2\s+1\s+2\s+56235/);
});

test("CLI: auto detects pgbench; --help lists the formats", () => {
  const r = run(["parse", "auto", rel("public/pg17-manpage-typical-output.txt"), "--json"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { format: string }).format, "pgbench");
  const h = run(["parse", "--help"]);
  assert.equal(h.status, 0, h.stderr);
  assert.match(h.stdout, /usage: slicelab parse FORMAT FILE…/);
  assert.match(h.stdout, /pgbench\s+pgbench output/);
  assert.match(h.stdout, /lockmeter\s+.*alias: lockstat/);
});

test("CLI: a run cut before its tps line is kept with a warning, as a cut run (issue 28 item 14)", () => {
  const r = run(["parse", "pgbench", rel("pg15-select-only.txt"), rel("malformed/truncated-before-tps.txt"), "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { records: { file: string; tps: number | null; cut?: boolean; startLine: number; endLine?: number }[]; warnings: { file: string; line: number; message: string }[] };
  assert.deepEqual(out.records.map((x) => [x.file, x.tps, x.cut ?? false]), [
    [rel("pg15-select-only.txt"), 8474.816596, false],
    [rel("malformed/truncated-before-tps.txt"), null, true],
  ]);
  assert.deepEqual(out.warnings.map((w) => [w.file, w.line]), [[rel("malformed/truncated-before-tps.txt"), 11]]);
  assert.match(out.warnings[0]!.message, /^the pgbench run that starts at line 1 has no "tps = N \(…\)" line \(the text ends\): kept as a cut run/);
  // Without --json: the table lists it and the warning goes to standard error.
  const t = run(["parse", "pgbench", rel("malformed/truncated-before-tps.txt")]);
  assert.equal(t.status, 0, t.stderr);
  assert.match(t.stderr, /slicelab parse: warning: .*truncated-before-tps\.txt:11: the pgbench run that starts at line 1 has no "tps = N/);
  // The kit's own runs are read strictly: parsePgbench still refuses the cut run.
  assertParseError(() => parseFixture("malformed/truncated-before-tps.txt"), rel("malformed/truncated-before-tps.txt"), 11, /a "tps = N \(…\)" line closing the pgbench run/);
  // The public sample cut by its post in the progress lines (pgbench 14.8): one cut run, 9 progress lines, the last at 10 s.
  const neon = run(["parse", "pgbench", rel("public/pg14-neon-progress-fragment.txt"), "--json"]);
  assert.equal(neon.status, 0, neon.stderr);
  const n = JSON.parse(neon.stdout) as { records: { cut?: boolean; clients: number | null; progress: { elapsedS: number }[] }[] };
  assert.deepEqual(n.records.map((x) => [x.cut, x.progress.length, x.progress.at(-1)?.elapsedS]), [[true, 9, 10]]);
  // A run pgbench itself reports aborted is not a cut one: still exit 2.
  const a = run(["parse", "pgbench", rel("pg15-aborted.txt")]);
  assert.equal(a.status, 2, a.stderr);
});

test("CLI: malformed input exits 2 with FILE:LINE and writes nothing", () => {
  const dir = join(workDir(), "test-tmp");
  mkdirSync(dir, { recursive: true });
  const tmp = mkdtempSync(join(dir, "parse-"));
  try {
    const out = join(tmp, "runs.json");
    const r = run(["parse", "pgbench", rel("pg15-select-only.txt"), rel("malformed/bad-progress-line.txt"), "--json", "--output", out]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, new RegExp(`^slicelab parse: ${rel("malformed/bad-progress-line.txt").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:3: expected progress parts`));
    assert.equal(existsSync(out), false);
    assert.deepEqual(readdirSync(tmp), []);
    // The same command with good files writes the JSON.
    const ok = run(["parse", "pgbench", rel("pg15-select-only.txt"), "--json", "--output", out]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal((JSON.parse(readFileSync(out, "utf8")) as { records: unknown[] }).records.length, 1);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("CLI: unknown format and missing file exit 2 with a message", () => {
  const a = run(["parse", "pgbenchx", rel("pg15-select-only.txt")]);
  assert.equal(a.status, 2, a.stderr);
  assert.match(a.stderr, /unknown format "pgbenchx" \(known: pgbench, lockmeter, perf-report/);
  const b = run(["parse", "pgbench", rel("nope.txt")]);
  assert.equal(b.status, 2, b.stderr);
  assert.match(b.stderr, /nope\.txt: cannot read the file \(no such file\)/);
});
