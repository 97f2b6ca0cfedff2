/**
 * pg_regress output as `slicelab postgres check` reads it: the fixtures are
 * the regress.txt of real runs (data/runs/pg-check/, PostgreSQL 15's
 * "test ... ok" lines and 18's TAP lines), and the CLI's option errors.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseRegressOutput } from "../src/postgres/check.js";
import { utcStamp } from "../src/util/stamp.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const fixture = (n: string) => join(repoRoot(), "test", "fixtures", "pg-regress", n);

test("PostgreSQL 15 pg_regress output (real run, slice_extension = all): every test line and the verdict", () => {
  const r = parseRegressOutput(readFileSync(fixture("pg15-all.txt"), "utf8"), "pg15-all.txt");
  assert.equal(r.verdict, "All 217 tests passed.");
  assert.equal(r.total, 217);
  assert.equal(r.failed, 0);
  assert.equal(r.tests.length, 217);
  assert.ok(r.tests.every((t) => t.ok));
  assert.deepEqual(r.tests[0], { name: "test_setup", ok: true, ms: 922 });
  // a failure is read as one
  const failed = readFileSync(fixture("pg15-all.txt"), "utf8").replace("boolean                      ... ok", "boolean                      ... FAILED").replace("All 217 tests passed.", "1 of 217 tests failed.");
  const f = parseRegressOutput(failed);
  assert.equal(f.failed, 1);
  assert.deepEqual(f.tests.filter((t) => !t.ok).map((t) => t.name), ["boolean"]);
});

test("PostgreSQL 18 pg_regress TAP output (real run, slice_extension = all)", () => {
  const r = parseRegressOutput(readFileSync(fixture("pg18-all.txt"), "utf8"), "pg18-all.txt");
  assert.equal(r.verdict, "All 231 tests passed.");
  assert.equal(r.tests.length, r.total);
  assert.ok(r.tests.every((x) => x.ok && x.ms !== null));
});

test("output without a verdict or without test lines is an error naming the file", () => {
  assert.throws(() => parseRegressOutput("test a ... ok 1 ms\n", "x.log"), (e: unknown) => e instanceof ParseError && /x\.log/.test(e.message) && /All N tests passed/.test(e.message));
  assert.throws(() => parseRegressOutput("All 3 tests passed.\n", "y.log"), /per-test lines/);
  assert.match(utcStamp(new Date("2026-12-01T18:57:07.212Z")), /^20261201T185707Z$/);
});

test("slicelab postgres check: bad options are named before anything runs", () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "postgres", ...args], { encoding: "utf8", timeout: 120_000 });
  const bad = cli(["check", "--version", "18", "--setting", "sometimes"]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--setting: expected off, spinlock, lwlock or all, found "sometimes"/);
  const wrong = cli(["build", "--version", "18", "--setting", "all"]);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /--setting belongs to `slicelab postgres check`/);
  const rounds = cli(["hook-cost", "--version", "18", "--rounds", "1"]);
  assert.equal(rounds.status, 2);
  assert.match(rounds.stderr, /--rounds: expected an integer of at least 2, found "1"/);
});
