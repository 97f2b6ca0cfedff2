import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectProcLockStat, lockStatRows, parseLockStatRow, parseProcLockStat } from "../src/parse/proc-lock-stat.js";


import { cliParse } from "./helpers/cli.js";


const dir = join(repoRoot(), "test/fixtures/proc-lock-stat");
const read = (name: string) => readFileSync(join(dir, name), "utf8");

test("kernel documentation example: read/write rows, exclusive rows, subclasses", () => {
  const ls = parseProcLockStat(read("doc-example.txt"), "doc-example.txt");
  assert.equal(ls.version, "0.4");
  assert.equal(ls.warning, null);
  assert.deepEqual(ls.classes.map((c) => c.name), ["&mm->mmap_sem", "unix_table_lock", "&rq->lock", "&rq->lock/1"]);
  const mmap = ls.classes[0]!;
  assert.deepEqual(mmap.rows.map((r) => r.mode), ["write", "read"]);
  const w = mmap.rows[0]!;
  assert.deepEqual(
    [w.conBounces, w.contentions, w.waittimeMinUs, w.waittimeMaxUs, w.waittimeTotalUs, w.waittimeAvgUs],
    [46, 84, 0.26, 939.1, 16371.53, 194.9],
  );
  assert.deepEqual(
    [w.acqBounces, w.acquisitions, w.holdtimeMinUs, w.holdtimeMaxUs, w.holdtimeTotalUs, w.holdtimeAvgUs],
    [47291, 2922365, 0.16, 2220301.69, 17464026916.32, 5975.99],
  );
  assert.equal(w.line, 6);
  const r = mmap.rows[1]!;
  assert.equal(r.contentions, 100);
  assert.equal(r.acquisitions, 34316685);
  // avg = total / count, as the kernel prints it (rounded to 0.01 us)
  assert.ok(Math.abs(r.waittimeTotalUs / r.contentions - r.waittimeAvgUs) < 0.01);
  // 4 contention points then 4 contending points
  assert.deepEqual(mmap.points.map((p) => p.role), ["contention", "contention", "contention", "contention", "contending", "contending", "contending", "contending"]);
  assert.deepEqual(mmap.points[1], { role: "contention", count: 96, ip: "[<ffffffff815351c4>]", symbol: "__do_page_fault+0x1d4/0x510", line: 10 });
  assert.equal(mmap.points[5]!.symbol, "SyS_mprotect+0xe9/0x250");
  const unix = ls.classes[1]!;
  assert.deepEqual(unix.rows.map((x) => x.mode), ["exclusive"]);
  assert.equal(unix.rows[0]!.contentions, 112);
  const sub = ls.classes[3]!;
  assert.equal(sub.rows[0]!.contentions, 11488);
  assert.deepEqual(sub.points.map((p) => p.role), ["contention", "contending", "contending", "contending", "contending"]);
  assert.equal(lockStatRows(ls).length, 5);
});

test("grep : /proc/lock_stat rows (tab-indented) parse one by one", () => {
  const rows = read("doc-grep-top.txt").split("\n").filter((l) => l.trim() !== "").map((l, i) => parseLockStatRow(l, "grep", i + 1));
  assert.equal(rows.length, 10);
  assert.ok(rows.every((r) => r !== null));
  assert.equal(rows[0]!.className, "clockevents_lock");
  assert.equal(rows[0]!.contentions, 2947636);
  assert.deepEqual(rows.filter((r) => r!.className === "tasklist_lock").map((r) => r!.mode), ["write", "read"]);
  assert.equal(rows[8]!.className, "&(&dentry->d_lockref.lock)->rlock");
  // sorted by contentions as the kernel sorts them (read + write of a class together)
  assert.ok(rows[0]!.contentions > rows[1]!.contentions);
});

test("layout printed by lockdep_proc.c with current kernels (hashed %p, module symbols, warning line)", () => {
  // Built with the widths of seq_header()/seq_stats(): "%40s:" / "%38s-W:", "%14lu ", " %14s", "%40s %14lu %29s %pS".
  const p = (s: string, n: number) => s.padStart(n);
  const nums = (xs: string[]) => xs.map((x, k) => (k === 0 ? `${p(x, 14)} ` : k === 6 ? ` ${p(x, 14)} ` : k === 1 || k === 7 ? p(x, 14) : ` ${p(x, 14)}`)).join("");
  const dashes = "-".repeat(40 + 1 + 12 * 15);
  const header = ["class name", "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total", "waittime-avg", "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total", "holdtime-avg"];
  const text = [
    "lock_stat version 0.4",
    "*WARNING* lock debugging disabled!! - possibly due to a lockdep warning",
    dashes,
    `${p(header[0]!, 40)} ${header.slice(1).map((h) => p(h, 14)).join(" ")}`,
    dashes,
    "",
    `${p("&rq->__lock", 40)}:${nums(["5", "7", "0.10", "3.20", "9.00", "1.28", "100", "2000", "0.05", "10.00", "500.00", "0.25"])}`,
    `${p("-----------", 40)}`,
    `${p("&rq->__lock", 40)} ${p("7", 14)} ${p("[<00000000a1b2c3d4>]", 29)} raw_spin_rq_lock_nested+0x1c/0x30`,
    `${p("-----------", 40)}`,
    `${p("&rq->__lock", 40)} ${p("6", 14)} ${p("[<00000000deadbeef>]", 29)} kvm_vcpu_ioctl+0x2a/0x60 [kvm]`,
    "",
    ".".repeat(40 + 1 + 12 * 15),
    "",
    `${p("&sb->s_type->i_mutex_key#9", 38)}-W:${nums(["0", "0", "0.00", "0.00", "0.00", "0.00", "3", "40", "0.30", "2.00", "20.00", "0.50"])}`,
    `${p("&sb->s_type->i_mutex_key#9", 38)}-R:${nums(["0", "0", "0.00", "0.00", "0.00", "0.00", "1", "8", "0.20", "1.00", "4.00", "0.50"])}`,
  ].join("\n");
  const ls = parseProcLockStat(text, "layout");
  assert.match(ls.warning!, /lock debugging disabled/);
  assert.equal(ls.classes.length, 2);
  assert.equal(ls.classes[0]!.points[1]!.symbol, "kvm_vcpu_ioctl+0x2a/0x60 [kvm]");
  assert.equal(ls.classes[0]!.points[1]!.role, "contending");
  assert.equal(ls.classes[0]!.points[0]!.ip, "[<00000000a1b2c3d4>]");
  assert.equal(ls.classes[1]!.name, "&sb->s_type->i_mutex_key#9");
  assert.deepEqual(ls.classes[1]!.rows.map((r) => [r.mode, r.acquisitions]), [["write", 40], ["read", 8]]);
  assert.equal(detectProcLockStat(text), true);
});

test("malformed input names file and line", () => {
  const good = read("doc-example.txt");
  const badNum = good.replace("           0.26         939.10", "           0.26         lots");
  assert.throws(() => parseProcLockStat(badNum, "a.txt"), (e: unknown) => e instanceof ParseError && e.line === 6 && /^a\.txt:6: expected a lock class row/.test(e.message));
  const badVersion = good.replace("lock_stat version 0.4", "lock_stat version 0.3");
  assert.throws(() => parseProcLockStat(badVersion, "b.txt"), (e: unknown) => e instanceof ParseError && /b\.txt:1: expected lock_stat version 0.4/.test(e.message));
  const badHeader = good.replace("waittime-avg", "wait-avg");
  assert.throws(() => parseProcLockStat(badHeader, "c.txt"), (e: unknown) => e instanceof ParseError && e.line === 3);
  const wrongClass = good.replace("                           &mm->mmap_sem             96", "                           &mm->other_sem            96");
  assert.throws(() => parseProcLockStat(wrongClass, "d.txt"), (e: unknown) => e instanceof ParseError && e.line === 10 && /a point of class "&mm->mmap_sem"/.test(e.message));
  assert.throws(() => parseProcLockStat("hello\n", "e.txt"), (e: unknown) => e instanceof ParseError && e.message.startsWith('e.txt:1: expected "lock_stat version 0.4"'));
  assert.equal(detectProcLockStat("hello"), false);
});

test("CLI: slicelab parse proc-lock-stat/auto, and exit 2 with FILE:LINE on malformed input", () => {
  const ok = cliParse("auto", "ls-ok.txt", read("doc-example.txt"));
  assert.equal(ok.status, 0, ok.stderr);
  const j = JSON.parse(ok.stdout);
  assert.equal(j.format, "proc-lock-stat");
  assert.equal(j.records.length, 5);
  assert.equal(j.records[0].points.length, 8);
  const bad = cliParse("lock_stat", "ls-bad.txt", read("doc-example.txt").replace("unix_table_lock             45", "unix_table_lock             4x"));
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, "");
  assert.ok(bad.stderr.startsWith(`slicelab parse: ${bad.path}:23: expected a lock class row`), bad.stderr);
});
