import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectProcLockStat, lockStatRows, parseLockStatRow, parseProcLockStat, type LockStatRow } from "../src/parse/proc-lock-stat.js";


import { cliParse } from "./helpers/cli.js";
import { lockStatRunRows, topLockClasses } from "../src/collect/tables.js";
import { readRunResult, seriesRows } from "../src/bench/series.js";

/** A row's six contention columns and six acquisition columns, in /proc/lock_stat's order. */
const waitFigures = (r: LockStatRow) => [r.conBounces, r.contentions, r.waittimeMinUs, r.waittimeMaxUs, r.waittimeTotalUs, r.waittimeAvgUs];
const holdFigures = (r: LockStatRow) => [r.acqBounces, r.acquisitions, r.holdtimeMinUs, r.holdtimeMaxUs, r.holdtimeTotalUs, r.holdtimeAvgUs];

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
    waitFigures(w),
    [46, 84, 0.26, 939.1, 16371.53, 194.9],
  );
  assert.deepEqual(
    holdFigures(w),
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

// Real capture: /proc/lock_stat of the kit's Linux 7.2.13 lockstat VM kernel around the micro-benchmark
// (see test/fixtures/proc-lock-stat/README.md for kernel, config hash and command).
test("VM 7.2.13 capture: classes, rows, read/write halves, a class's full statistics and its points", () => {
  const ls = parseProcLockStat(read("vm-7.2.13-micro.txt"), "vm-7.2.13-micro.txt");
  assert.equal(ls.version, "0.4");
  assert.equal(ls.warning, null);
  assert.equal(ls.classes.length, 182);
  const rows = lockStatRows(ls);
  assert.equal(rows.length, 192);
  assert.deepEqual(
    ["exclusive", "write", "read"].map((m) => rows.filter((r) => r.mode === m).length),
    [149, 10, 33],
  );
  // the kernel sorts classes by contentions (read + write), most contended first
  const per = ls.classes.map((c) => c.rows.reduce((a, r) => a + r.contentions, 0));
  assert.ok(per.every((x, k) => k === 0 || per[k - 1]! >= x));
  assert.equal(ls.classes.filter((c) => c.points.length > 0).length, 13);
  assert.equal(per.filter((x) => x > 0).length, 13);

  const gp = ls.classes[0]!;
  assert.equal(gp.name, "&rcu_state.gp_wq");
  assert.deepEqual(gp.rows.map((r) => r.mode), ["exclusive"]);
  const g = gp.rows[0]!;
  assert.equal(g.line, 6);
  assert.deepEqual(
    waitFigures(g),
    [431, 431, 179.18, 16723.97, 1624314.97, 3768.71],
  );
  assert.deepEqual(
    holdFigures(g),
    [1555, 3701, 0.57, 12063.55, 1016675.8, 274.7],
  );
  assert.deepEqual(gp.points.map((p) => [p.role, p.count, p.symbol]), [
    ["contention", 431, "prepare_to_swait_event+0x25/0x100"],
    ["contending", 431, "swake_up_one+0x1a/0x70"],
  ]);
  assert.equal(gp.points[0]!.ip, "[<00000000d1442340>]");

  // the 9p channel lock of the guest's root file system: two points each, counts summing to the contentions
  const chan = ls.classes.find((c) => c.name === "&chan->lock")!;
  assert.equal(chan.rows[0]!.contentions, 79);
  assert.deepEqual(chan.points.filter((p) => p.role === "contention").map((p) => [p.count, p.symbol]), [[77, "req_done+0x38/0xc0"], [2, "p9_virtio_request+0x4a/0x1e0"]]);
  assert.deepEqual(chan.points.filter((p) => p.role === "contending").map((p) => p.count), [33, 46]);
  // the run-queue lock: the most acquired contended class; only 4 points per side are kept, so they need not add up
  const rq = ls.classes.find((c) => c.name === "&rq->__lock")!;
  assert.deepEqual([rq.rows[0]!.conBounces, rq.rows[0]!.contentions, rq.rows[0]!.acquisitions, rq.rows[0]!.holdtimeTotalUs], [38, 39, 38901, 1289348.34]);
  assert.equal(rq.points.length, 8);
  assert.equal(rq.points.filter((p) => p.role === "contention").reduce((a, p) => a + p.count, 0), 28);

  // a read/write class: -W and -R rows of one class
  const mm = ls.classes.find((c) => c.name === "&mm->mmap_lock")!;
  assert.deepEqual(mm.rows.map((r) => [r.mode, r.acquisitions, r.holdtimeMaxUs, r.line]), [["write", 269, 9863.56, 208], ["read", 545, 11671.53, 209]]);
  // a class that was only read-held prints just its -R row
  const uts = ls.classes.find((c) => c.name === "uts_sem")!;
  assert.deepEqual(uts.rows.map((r) => [r.mode, r.acqBounces, r.acquisitions, r.holdtimeTotalUs]), [["read", 1, 2, 309.94]]);
  // a subclass is its own class
  assert.equal(ls.classes.find((c) => c.name === "&mm->mmap_lock/1")!.rows[0]!.acquisitions, 1);
  // seq_stats() keeps 2 characters for "#N": name versions ≥ 10 all print as "#1", so names are not unique
  assert.equal(ls.classes.filter((c) => c.name === "&sb->s_type->i_lock_key#1").length, 4);

  // waittime-avg / holdtime-avg are total / count as the kernel prints them (0.01 us resolution)
  for (const r of rows) {
    if (r.contentions > 0) assert.ok(Math.abs(r.waittimeTotalUs / r.contentions - r.waittimeAvgUs) <= 0.01, `${r.className} line ${r.line}`);
    if (r.acquisitions > 0) assert.ok(Math.abs(r.holdtimeTotalUs / r.acquisitions - r.holdtimeAvgUs) <= 0.01, `${r.className} line ${r.line}`);
    assert.ok(r.waittimeMinUs <= r.waittimeMaxUs && r.holdtimeMinUs <= r.holdtimeMaxUs, `${r.className} line ${r.line}`);
  }
});

test("VM 7.2.13 capture: top classes by contentions and by wait time (topLockClasses)", () => {
  const ls = parseProcLockStat(read("vm-7.2.13-micro.txt"), "vm-7.2.13-micro.txt");
  assert.deepEqual(topLockClasses(ls, 5).map((c) => [c.name, c.contentions]), [
    ["&rcu_state.gp_wq", 431], ["&folio_wait_table[i]", 145], ["&pool->lock", 142], ["&req->wq", 99], ["&chan->lock", 79],
  ]);
  assert.deepEqual(
    topLockClasses(ls, Infinity).sort((a, b) => b.waittimeTotalUs - a.waittimeTotalUs).slice(0, 3).map((c) => c.name),
    ["&rcu_state.gp_wq", "&chan->lock", "&pool->lock"],
  );
  // read and write rows of a class are summed
  const vm = topLockClasses(ls, Infinity).find((c) => c.name === "vm_lock")!;
  assert.equal(vm.acquisitions, 516 + 3460);
  assert.equal(topLockClasses(ls, 1)[0]!.topPoint, "prepare_to_swait_event+0x25/0x100");
});

test("CLI: slicelab parse auto detects the VM capture", () => {
  const r = cliParse("auto", "vm-7.2.13-micro.txt", read("vm-7.2.13-micro.txt"));
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.format, "proc-lock-stat");
  assert.equal(j.records.length, 192);
  assert.equal(j.records[0].className, "&rcu_state.gp_wq");
  assert.equal(j.records[0].points.length, 2);
  assert.equal(detectProcLockStat(read("vm-7.2.13-micro.txt")), true);
});

// The lockstat collector inside the same VM kernel: one snapshot per measured workload of
// data/runs/sangappa-2024-locktable/20261130T075623Z/lockstat-{1,2}/series (cleared before the workload, read after it).
for (const boot of ["lockstat-1", "lockstat-2"]) {
  test(`lockstat collector snapshots of the VM series (${boot}): every one parses, matches result.json, and was reset`, () => {
    const dir = join(repoRoot(), "data/runs/sangappa-2024-locktable/20261130T075623Z", boot, "series");
    const prov = JSON.parse(readFileSync(join(dir, "provenance.json"), "utf8"));
    assert.deepEqual(prov.sessions.at(-1).collectors.on, ["lockstat", "rseq-stats", "ctxsw", "pg-waits"]);
    assert.deepEqual(prov.sessions.at(-1).collectors.skipped, []);
    const rows = seriesRows(dir);
    assert.equal(rows.length, 8);
    const rqAcquisitions: number[] = [];
    for (const r of [...rows].sort((a, b) => a.started.localeCompare(b.started))) {
      const file = join(dir, "runs", r.id, "collect", r.workload, "lock_stat.txt");
      const ls = parseProcLockStat(readFileSync(file, "utf8"), file);
      assert.equal(ls.warning, null, file);
      assert.ok(ls.classes.length > 150, `${file}: ${ls.classes.length} classes`);
      const out = readRunResult(dir, r.id)!.workloads.find((w) => w.workload === r.workload)!.collect!.outputs.find((o) => o.collector === "lockstat")!;
      assert.deepEqual(out.files, ["lock_stat.txt"]);
      assert.equal((out.parsed as typeof ls).classes.length, ls.classes.length, file);
      // the run queue lock is the most contended class of every workload's snapshot
      assert.equal(topLockClasses(ls, 1)[0]!.name, "&rq->__lock", file);
      rqAcquisitions.push(ls.classes.find((c) => c.name === "&rq->__lock")!.rows[0]!.acquisitions);
    }
    // without the reset before each workload the counters would only grow from one snapshot to the next
    assert.ok(rqAcquisitions.some((x, k) => k > 0 && x < rqAcquisitions[k - 1]!), rqAcquisitions.join(", "));
    // the tidy table of notebook 06: the 3 most contended classes of each of the 8 snapshots
    const tidy = lockStatRunRows(dir, 3);
    assert.equal(tidy.length, 24);
    assert.ok(tidy.every((t) => t.seconds > 0 && t.contentions > 0));
  });
}
