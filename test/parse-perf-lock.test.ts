import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectPerfLockContention, detectPerfLockReport, parsePerfLockContention, parsePerfLockReport } from "../src/parse/perf-lock.js";


import { cliParse } from "./helpers/cli.js";


const dir = join(repoRoot(), "test/fixtures/perf-lock");
const read = (name: string) => readFileSync(join(dir, name), "utf8");
const con = (name: string) => parsePerfLockContention(read(name), name);

test("perf 6.1 contention (this machine): by caller, times in ns", () => {
  const c = con("p61-contention.txt");
  assert.equal(c.mode, "caller");
  assert.deepEqual(c.columns, ["contended", "total wait", "max wait", "avg wait"]);
  assert.equal(c.entries.length, 89);
  const e = c.entries[0]!;
  assert.deepEqual([e.contended, e.waitTotalNs, e.waitMaxNs, e.waitAvgNs, e.type, e.caller], [314, 4410000, 40760, 14050, "spinlock", "pollwake+0x73"]);
  assert.equal(e.waitMinNs, null);
  // sorted by total wait (the default key)
  for (let i = 1; i < c.entries.length; i++) assert.ok(c.entries[i - 1]!.waitTotalNs! >= c.entries[i]!.waitTotalNs!);
  assert.equal(c.debug, null);
});

test("perf 6.1 contention -t, -F, -k, -E", () => {
  const t = con("p61-contention-threads.txt");
  assert.equal(t.mode, "task");
  assert.deepEqual([t.entries[0]!.pid, t.entries[0]!.comm, t.entries[0]!.contended], [6205, "postgres", 122]);
  const f = con("p61-contention-fields.txt");
  assert.deepEqual(f.columns, ["contended", "max wait", "min wait", "total wait"]);
  assert.deepEqual([f.entries[0]!.waitMinNs, f.entries[0]!.waitAvgNs], [2720, null]);
  const k = con("p61-contention-key-contended.txt");
  for (let i = 1; i < k.entries.length; i++) assert.ok(k.entries[i - 1]!.contended! >= k.entries[i]!.contended!);
  assert.equal(con("p61-contention-E5.txt").entries.length, 5);
  // the same recording: the per-task and per-caller totals count the same contentions
  const sum = (xs: { contended: number | null }[]) => xs.reduce((s, x) => s + x.contended!, 0);
  assert.equal(sum(t.entries), sum(con("p61-contention.txt").entries));
});

test("perf 6.1 contention -v: messages, stacks, debug block", () => {
  const v = con("p61-contention-verbose.txt");
  assert.ok(v.messages.some((m) => m.startsWith("Using /proc/kallsyms")));
  assert.equal(v.entries.length, 3);
  assert.ok(v.entries.every((e) => e.stack.length > 0));
  assert.deepEqual(v.debug, { bad: 0, total: 3, histogram: { acquire: 0, acquired: 0, contended: 0, release: 0 } });
});

test("public outputs (perf wiki, perf 6.2-6.7 with BPF): -ab, -abv -E3, -L, -abt, -abto, -abl, --lock-cgroup", () => {
  const ab = con("pw62-ab.txt");
  assert.deepEqual(ab.entries.map((e) => e.type), ["spinlock", "rwlock:W", "rwlock:W", "spinlock", "spinlock", "spinlock", "rwlock:R"]);
  const v = con("pw62-abv-E3.txt");
  assert.equal(v.entries.length, 3);
  assert.equal(v.entries[0]!.stack.length, 8);
  assert.deepEqual(v.entries[2]!.stack[1], { address: "0xffffffff9c9bc81d", symbol: "ep_poll_callback+0x2d" });
  assert.deepEqual(v.debug, { bad: 0, total: 14, histogram: { task: 0, stack: 0, time: 0, data: 0 } });
  const L = con("pw62-ab-L-addr.txt");
  assert.equal(L.entries[0]!.waitTotalNs, 1.58e9);
  assert.equal(L.entries[0]!.contended, 39412);
  const t = con("pw62-abt.txt");
  assert.equal(t.entries[7]!.waitAvgNs, 900);
  assert.equal(t.entries[1]!.comm, "kworker/4:0");
  const o = con("pw63-abto-owner.txt");
  assert.deepEqual([o.entries[2]!.pid, o.entries[2]!.comm, o.entries[2]!.waitAvgNs], [-1, "Unknown", 434]);
  const l = con("pw62-abl-lock-addr.txt");
  assert.equal(l.mode, "lock");
  assert.deepEqual([l.entries[0]!.address, l.entries[0]!.symbol, l.entries[0]!.type], ["ffffa64fdb3f11b8", "", "mutex"]);
  assert.deepEqual([l.entries[1]!.symbol, l.entries[1]!.type], ["mmap_lock", "rwsem"]);
  assert.equal(l.entries[10]!.symbol, "kernfs_open_file_mutex");
  const g = con("pw67-lock-cgroup.txt");
  assert.equal(g.mode, "cgroup");
  assert.deepEqual(g.entries.map((e) => [e.cgroup, e.contended]), [["/", 214], ["/sys", 782]]);
});

test("perf 6.1 lock report: default, -t, -F; names truncated by perf are flagged", () => {
  const r = parsePerfLockReport(read("p61-report.txt"), "r");
  assert.deepEqual(r.columns, ["acquired", "contended", "avg wait", "total wait", "max wait", "min wait"]);
  const e = r.entries[0]!;
  assert.deepEqual([e.name, e.truncated, e.acquired, e.contended, e.waitAvgNs, e.waitTotalNs, e.waitMaxNs, e.waitMinNs], ["ep_autoremove_wa...", true, 528, 528, 14250, 7520000, 71360, 2410]);
  const th = parsePerfLockReport(read("p61-report-threads.txt"), "t");
  assert.deepEqual([th.entries[1]!.name, th.entries[1]!.truncated], ["sysbench", false]);
  const f = parsePerfLockReport(read("p61-report-fields.txt"), "f");
  assert.deepEqual(f.columns, ["acquired", "contended", "max wait"]);
  assert.equal(f.entries[1]!.waitMaxNs, 194810);
  assert.equal(f.entries[1]!.waitTotalNs, null);
  assert.equal(detectPerfLockReport(read("p61-report.txt")), true);
  assert.equal(detectPerfLockReport(read("p61-contention.txt")), false);
  assert.equal(detectPerfLockContention(read("p61-contention.txt")), true);
  assert.equal(detectPerfLockContention(read("p61-report.txt")), false);
});

test("errors: perf's own error output, bad units, stray lines", () => {
  assert.throws(
    () => con("p61-contention-bpf-unavailable.txt"),
    (e: unknown) => e instanceof ParseError && e.line === 1 && /Error: switch `b' is not available/.test(e.message),
  );
  const badUnit = read("pw62-ab.txt").replace("27.49 us", "27.49 parsecs");
  assert.throws(() => parsePerfLockContention(badUnit, "u.txt"), (e: unknown) => e instanceof ParseError && e.line === 3 && /expected a time unit/.test(e.message));
  const badLock = read("pw62-abl-lock-addr.txt").replace("mmap_lock (rwsem)", "mmap_lock rwsem");
  assert.throws(() => parsePerfLockContention(badLock, "l.txt"), (e: unknown) => e instanceof ParseError && e.line === 4);
  const badReport = read("p61-report.txt").replace("528     14.25 us", "528     14.25 xs");
  assert.throws(() => parsePerfLockReport(badReport, "r.txt"), (e: unknown) => e instanceof ParseError && e.line === 3);
  assert.throws(() => parsePerfLockReport("nothing\n", "n.txt"), (e: unknown) => e instanceof ParseError && e.message.startsWith("n.txt:1: expected a `perf lock report` header"));
});

test("CLI: slicelab parse perf-lock-contention/report/auto, and exit 2 with FILE:LINE on malformed input", () => {
  const ok = cliParse("auto", "pl-ok.txt", read("pw62-abl-lock-addr.txt"));
  assert.equal(ok.status, 0, ok.stderr);
  const j = JSON.parse(ok.stdout);
  assert.equal(j.format, "perf-lock-contention");
  assert.equal(j.records.length, 12);
  const rep = cliParse("auto", "pr-ok.txt", read("p61-report-threads.txt"));
  assert.equal(JSON.parse(rep.stdout).format, "perf-lock-report");
  const bad = cliParse("perf-lock-con", "pl-bad.txt", read("pw62-abt.txt").replace("7738   chrome", "pid?   chrome"));
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, "");
  assert.ok(bad.stderr.startsWith(`slicelab parse: ${bad.path}:3: expected a pid and a command name`), bad.stderr);
});
