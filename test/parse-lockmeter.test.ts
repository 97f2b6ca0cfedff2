import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { parseLockmeter, parseLockmeterFile, type LockmeterRow } from "../src/parse/lockmeter.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot, workDir } from "../src/util/paths.js";

const root = repoRoot();
const LAHR = "data/published/lahr-2001/lockstat.raw.txt";
const QUOTE = "data/published/lahr-2001/blanchard-quote.raw.txt";
const read = (rel: string): string => readFileSync(join(root, rel), "utf8");
const parse = (rel: string): LockmeterRow[] => parseLockmeter(read(rel), rel);
/** A row without its position in the file, to compare copies of the same table. */
const content = (r: LockmeterRow) => {
  const { file: _f, line: _l, ...rest } = r;
  return rest;
};

test("Lahr 2001: 80 rows in three sections, 18 locks with their callers", () => {
  const rows = parse(LAHR);
  assert.equal(rows.length, 80);
  const count = (section: string, kind?: string) => rows.filter((r) => r.section === section && (!kind || r.kind === kind)).length;
  assert.deepEqual([count("2way"), count("4way"), count("8way")], [37, 21, 22]);
  assert.deepEqual([count("2way", "lock"), count("4way", "lock"), count("8way", "lock")], [4, 11, 3]);
  assert.ok(rows.every((r) => r.table === "SPINLOCKS"));
  assert.deepEqual(
    rows.filter((r) => r.section === "8way" && r.kind === "lock").map((r) => r.name),
    ["io_request_lock", "sem_ids+0x24", "timerlist_lock"],
  );
});

test("Lahr 2001: a lock row and a caller row, every column, units in µs", () => {
  const rows = parse(LAHR);
  assert.deepEqual(rows[0], {
    file: LAHR,
    line: 8,
    section: "2way",
    table: "SPINLOCKS",
    kind: "lock",
    lock: "kernel_flag",
    caller: null,
    utilPct: 4.04,
    conPct: 1.22,
    holdMeanUs: 50,
    holdMaxUs: 3344,
    waitMeanUs: 5.2,
    waitMaxUs: 2014,
    total: 36515,
    nowait: 36068,
    spin: 447,
    reject: 0,
    name: "kernel_flag",
  });
  const sched = rows.find((r) => r.section === "2way" && r.name === "schedule+0xe0")!;
  assert.equal(sched.kind, "caller");
  assert.equal(sched.lock, "runqueue_lock");
  assert.equal(sched.caller, "schedule+0xe0");
  assert.deepEqual(
    [sched.utilPct, sched.conPct, sched.holdMeanUs, sched.holdMaxUs, sched.waitMeanUs, sched.waitMaxUs, sched.total, sched.nowait, sched.spin, sched.reject],
    [23.15, 38.78, 28, 218, 6.2, 108, 376292, 230381, 145911, 0],
  );
});

test("Lahr 2001: bare '0us' waits have no max; rejects are read (4-way reschedule_idle)", () => {
  const rows = parse(LAHR);
  const exit = rows.find((r) => r.name === "do_exit+0x94")!;
  assert.equal(exit.waitMeanUs, 0);
  assert.equal(exit.waitMaxUs, null);
  assert.equal(exit.holdMeanUs, 960);
  const resched = rows.find((r) => r.name === "reschedule_idle+0x3a4")!;
  assert.equal(resched.section, "4way");
  assert.equal(resched.kind, "lock");
  assert.equal(resched.reject, 12132);
  assert.equal(resched.spin, 0);
  assert.equal(resched.waitMaxUs, null);
  // Fractional microseconds stay as printed.
  const dt = rows.find((r) => r.section === "4way" && r.name === "del_timer+0x14")!;
  assert.deepEqual([dt.holdMeanUs, dt.holdMaxUs, dt.waitMeanUs, dt.waitMaxUs], [0.1, 1.2, 0, 6.2]);
});

test("Lahr 2001: every row's NOWAIT + SPIN + REJECT equals its TOTAL", () => {
  for (const r of parse(LAHR)) assert.equal(r.nowait + r.spin + r.reject, r.total, `line ${r.line} ${r.name}`);
});

test("Lahr 2001: caller rows of a lock account for its acquisitions", () => {
  const rows = parse(LAHR);
  for (const lock of rows.filter((r) => r.kind === "lock")) {
    const callers = rows.filter((r) => r.kind === "caller" && r.section === lock.section && r.lock === lock.name);
    if (callers.length === 0) continue;
    // The excerpt shows the more contended callers only, so they never exceed the lock's total.
    const sum = callers.reduce((a, c) => a + c.total, 0);
    assert.ok(sum <= lock.total, `${lock.section} ${lock.name}: ${sum} > ${lock.total}`);
  }
  // runqueue_lock's callers in the 2-way run are all shown: they add up exactly.
  const rq = rows.filter((r) => r.section === "2way" && r.lock === "runqueue_lock");
  assert.equal(
    rq.filter((r) => r.kind === "caller").reduce((a, c) => a + c.total, 0),
    rq.find((r) => r.kind === "lock")!.total,
  );
});

test("Anton Blanchard's quoted copy: the same two rows as the 2-way table", () => {
  const quoted = parse(QUOTE);
  assert.equal(quoted.length, 2);
  assert.deepEqual(
    quoted.map((r) => [r.kind, r.lock, r.caller, r.line]),
    [
      ["lock", "runqueue_lock", null, 8],
      ["caller", "runqueue_lock", "schedule+0xe0", 9],
    ],
  );
  const lahr = parse(LAHR).filter((r) => r.section === "2way" && r.lock === "runqueue_lock" && (r.kind === "lock" || r.name === "schedule+0xe0"));
  assert.deepEqual(
    quoted.map((r) => ({ ...content(r), section: null })),
    lahr.map((r) => ({ ...content(r), section: null, table: null })),
  );
});

test("rows wrapped by a mail client (fold -s -w 72) are joined again", () => {
  const original = parse(LAHR).map(content);
  const folded = parse("test/fixtures/lockmeter/lahr-lockstat-folded-72.txt");
  assert.deepEqual(folded.map(content), original);
  // Line numbers point at the first line of each wrapped row.
  const text = read("test/fixtures/lockmeter/lahr-lockstat-folded-72.txt").split("\n");
  assert.match(text[folded[0]!.line - 1]!, /^\s+4\.04%\s+1\.22%/);
});

test("quoted, then wrapped so that continuation lines lose their '> '", () => {
  const original = parse(LAHR).map(content);
  assert.deepEqual(parse("test/fixtures/lockmeter/lahr-lockstat-quoted-folded-76.txt").map(content), original);
});

test("a row with a missing column: ParseError at its line", () => {
  const f = "test/fixtures/lockmeter/malformed-missing-column.txt";
  assert.throws(
    () => parse(f),
    (e: unknown) =>
      e instanceof ParseError &&
      e.line === 8 &&
      e.message.startsWith(`${f}:8: expected a lockmeter row: UTIL% CON% HOLD-MEAN(MAX) WAIT-MEAN[(MAX)] TOTAL NOWAIT SPIN REJECT NAME, found "`) &&
      /36515      447      0  kernel_flag"$/.test(e.message),
  );
});

test("a bad time unit: ParseError naming the unit", () => {
  const f = "test/fixtures/lockmeter/malformed-bad-unit.txt";
  assert.throws(
    () => parse(f),
    (e: unknown) => e instanceof ParseError && e.line === 27 && /^.*:27: expected a time unit us, ms or s, found "2\.6xs" in /.test(e.message),
  );
});

test("ms and s units are normalised to µs", () => {
  const text = [
    "    SPINLOCKS             HOLD              WAIT",
    "       1.00%   2.00%   1.5ms(   2.0s)   250us(    1ms)        10          9          1      0  some_lock",
  ].join("\n");
  const [r] = parseLockmeter(text, "t");
  assert.deepEqual([r!.holdMeanUs, r!.holdMaxUs, r!.waitMeanUs, r!.waitMaxUs], [1500, 2_000_000, 250, 1000]);
  assert.equal(r!.section, null);
});

test("a caller row with no lock above it is an error", () => {
  const text = "       0.01%   3.47%    46us(   427us)    17us(  2014us)        144        139          5      0    do_coredump+0x24\n";
  assert.throws(() => parseLockmeter(text, "t"), /t:1: expected a lock row before this caller row/);
});

test("parseLockmeterFile and the CLI (slicelab parse lockstat FILE --json)", () => {
  assert.equal(parseLockmeterFile(join(root, LAHR)).length, 80);
  const cli = join(root, "bin/slicelab.js");
  const r = spawnSync(process.execPath, [cli, "parse", "lockstat", LAHR, "--json"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { format: string; records: LockmeterRow[] };
  assert.equal(out.format, "lockmeter");
  assert.deepEqual(out.records, parse(LAHR));
  const bad = spawnSync(process.execPath, [cli, "parse", "lockstat", "test/fixtures/lockmeter/malformed-missing-column.txt"], { cwd: root, encoding: "utf8" });
  assert.equal(bad.status, 2, bad.stderr);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /^slicelab parse: test\/fixtures\/lockmeter\/malformed-missing-column\.txt:8: expected a lockmeter row/);
  // A bad unit with --output: exit 2, FILE:LINE, and no file.
  const dir = join(workDir(), "test-tmp");
  mkdirSync(dir, { recursive: true });
  const tmp = mkdtempSync(join(dir, "lockstat-"));
  try {
    const out = join(tmp, "rows.json");
    const unit = spawnSync(
      process.execPath,
      [cli, "parse", "lockstat", LAHR, "test/fixtures/lockmeter/malformed-bad-unit.txt", "--json", "--output", out],
      { cwd: root, encoding: "utf8" },
    );
    assert.equal(unit.status, 2, unit.stderr);
    assert.match(unit.stderr, /^slicelab parse: test\/fixtures\/lockmeter\/malformed-bad-unit\.txt:27: expected a time unit us, ms or s, found "2\.6xs"/);
    assert.equal(existsSync(out), false);
    assert.deepEqual(readdirSync(tmp), []);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
