// perf lock report / contention as posted (test/fixtures/perf-lock/public/, each with its
// *.source.json): "(ns)" columns of perf ≤ 5.19 and values with units after it, -F selections,
// before/after tables, empty names, "..." elisions, tabs, quoting, prose around the tables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { parsePerfLockContention, parsePerfLockReport } from "../src/parse/perf-lock.js";
import { cliParse } from "./helpers/cli.js";

const dir = join(repoRoot(), "test/fixtures/perf-lock/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");
const report = (name: string) => parsePerfLockReport(read(name), name);
const waits = (e: { acquired: number | null; contended: number | null; waitAvgNs: number | null; waitTotalNs: number | null; waitMaxNs: number | null; waitMinNs: number | null }) =>
  [e.acquired, e.contended, e.waitAvgNs, e.waitTotalNs, e.waitMaxNs, e.waitMinNs];

test("Kim 2022-01 (perf 5.17): (ns) columns, names cut with ..., trailing spaces", () => {
  const r = report("kim-2022-01-report-ns-columns");
  assert.deepEqual(r.columns, ["acquired", "contended", "avg wait", "total wait", "max wait", "min wait"]);
  assert.equal(r.entries.length, 7);
  assert.deepEqual([r.entries[0]!.name, r.entries[0]!.acquired, r.entries[0]!.truncated], ["rcu_read_lock", 251225, false]);
  assert.deepEqual(r.entries.map((e) => e.acquired).slice(1), [8731, 8731, 5261, 2626, 1953, 1382]);
  assert.equal(r.entries[1]!.name, "&(ei->i_block_re...");
  assert.equal(r.entries[1]!.truncated, true);
  assert.deepEqual(r.warnings, []);
});

test("Kim 2022-06: the same locks before (ns) and after (units) 'Print wait times with unit'", () => {
  const r = report("kim-2022-06-report-before-after-units");
  const before = r.entries.filter((e) => e.table === 1);
  const after = r.entries.filter((e) => e.table === 2);
  assert.equal(before.length, 6);
  assert.equal(after.length, 6);
  assert.deepEqual(waits(before[0]!), [433, 32, 2778, 88908, 13570, 692]);
  assert.deepEqual(waits(after[0]!), [433, 32, 2780, 88910, 13570, 692]);
  assert.deepEqual(waits(after[1]!), [747, 5, 11250, 56270, 18320, 1410]);
  // Units round to 2 decimals: every "after" time is within 0.5% (or 5 ns) of the ns value before.
  before.forEach((b, k) => {
    const a = after[k]!;
    assert.equal(a.name, b.name);
    for (const f of ["waitAvgNs", "waitTotalNs", "waitMaxNs", "waitMinNs"] as const) {
      assert.ok(Math.abs(a[f]! - b[f]!) <= Math.max(5, 0.005 * b[f]!), `${b.name} ${f}: ${a[f]} vs ${b[f]}`);
    }
  });
  assert.deepEqual(r.warnings.map((w) => w.line), [13, 23]);
});

test("Shi 2019 (perf 5.3): tab-indented rows, a tab inside a row, ... elision, a row after prose", () => {
  const r = report("shi-2019-report-ns-tabs");
  assert.deepEqual(r.entries.map((e) => [e.table, e.name, ...waits(e)]), [
    [1, "&(ptlock_ptr(pag...", 22, 0, 0, 0, 0, 0],
    [1, "&(&pgdat->lru_lo...", 9, 7, 12728, 89096, 26656, 1597],
    [2, "&(&lruvec->lru_l...", 8, 0, 0, 0, 0, 0],
  ]);
  assert.match(r.warnings.map((w) => `${w.line}: ${w.message}`).join("\n"), /4: table 1: "\.\.\." — rows left out[\s\S]*8: table 2: rows without a header line/);
});

test("Forrington 2023 (perf 6.6, -F acquired), quoted: rows without a lock name, two tables", () => {
  const r = report("forrington-2023-report-F-acquired-quoted");
  assert.deepEqual(r.columns, ["acquired"]);
  assert.deepEqual(r.entries.map((e) => [e.table, e.name, e.acquired]), [
    [1, "event_mutex", 34], [1, "", 21], [1, "", 1],
    [2, "perf_trace_init+...", 34], [2, "lock_mm_and_find...", 20], [2, "inherit_event.co...", 1], [2, "do_madvise+0x1f8", 1],
  ]);
  assert.equal(r.entries[0]!.contended, null);
});

test("acme 2022-08 (perf 6.0): report -F with units; contention -b after ^C, ... and prose", () => {
  const r = report("acme-2022-08-report-F-units");
  assert.deepEqual(r.columns, ["acquired", "contended", "avg wait", "total wait"]);
  assert.deepEqual(r.entries.map((e) => [e.name, e.waitAvgNs, e.waitTotalNs]), [
    ["update_blocked_a...", 3610, 144450], ["kernfs_fop_open+...", 3640, 18180], ["_nohz_idle_balance", 2650, 7950],
    ["tick_do_update_j...", 6040, 6040], ["ep_scan_ready_list", 3930, 3930],
  ]);
  const c = parsePerfLockContention(read("acme-2022-08-contention-b"), "c");
  assert.equal(c.mode, "caller");
  assert.equal(c.entries.length, 10);
  assert.deepEqual([c.entries[0]!.contended, c.entries[0]!.waitTotalNs, c.entries[0]!.type, c.entries[0]!.caller], [42, 192670, "spinlock", "queue_work_on+0x20"]);
  assert.deepEqual([c.entries[5]!.type, c.entries[5]!.caller], ["rwlock:W", "sys_epoll_wait+0x148"]);
  assert.equal(c.entries.reduce((s, e) => s + e.contended!, 0), 82);
  assert.deepEqual(c.messages, ["   $ sudo perf lock contention -b", "  ^C"]);
  assert.deepEqual(c.warnings.map((w) => w.line), [15, 17]);
});

test("errors: a row-shaped line with a bad value is a ParseError, not the end of the table", () => {
  const bad = read("kim-2022-06-report-before-after-units").replace("11254           56272", "11254           5627x");
  assert.throws(() => parsePerfLockReport(bad, "b.txt"), (e: unknown) => e instanceof ParseError && e.line === 7);
  const badUnit = read("acme-2022-08-contention-b").replace("85.54 us", "85.54 parsecs");
  assert.throws(() => parsePerfLockContention(badUnit, "u.txt"), (e: unknown) => e instanceof ParseError && e.line === 6 && /time unit/.test(e.message));
});

test("CLI: parse auto on a quoted report; warnings in the JSON", () => {
  const r = cliParse("auto", "forrington.txt", read("forrington-2023-report-F-acquired-quoted"));
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.format, "perf-lock-report");
  assert.equal(j.records.length, 7);
  assert.equal(j.warnings.length, 2);
});
