// perf report as posted (test/fixtures/perf/public/, each with its *.source.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { parsePerfReport } from "../src/parse/perf-report.js";

const dir = join(repoRoot(), "test/fixtures/perf/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");

test("Arcangeli 2012 (perf 3.x, -g): four rows of one probe event, old --N%-- call graphs skipped", () => {
  const rows = parsePerfReport(read("arcangeli-2012-callgraph-fractal"), "a");
  assert.deepEqual(rows.map((r) => [r.selfPct, r.childrenPct, r.command, r.sharedObject, r.space, r.symbol]), [
    [64.64, null, "perf", "[kernel.kallsyms]", "kernel", "numa_hinting_fault"],
    [21.45, null, "ntpd", "[kernel.kallsyms]", "kernel", "numa_hinting_fault"],
    [7.83, null, "init", "[kernel.kallsyms]", "kernel", "numa_hinting_fault"],
    [6.09, null, "sleep", "[kernel.kallsyms]", "kernel", "numa_hinting_fault"],
  ]);
  assert.ok(rows.every((r) => r.event === "probe:numa_hinting_fault" && r.table === 0));
  // The four shares of the 345 samples add up to 100% (as printed, to 0.01).
  assert.equal(Math.round(rows.reduce((s, r) => s + r.selfPct, 0) * 100) / 100, 100.01);
});

test("mail artefacts: the same report quoted twice, with CRLF and tabs, gives the same rows", () => {
  const base = parsePerfReport(read("arcangeli-2012-callgraph-fractal"), "a");
  const quoted = read("arcangeli-2012-callgraph-fractal").split("\n").map((l) => `> > ${l}`).join("\r\n").replace(/ {8}/g, "\t");
  const rows = parsePerfReport(quoted, "a");
  assert.deepEqual(rows.map((r) => [r.selfPct, r.command, r.symbol]), base.map((r) => [r.selfPct, r.command, r.symbol]));
});

test("Molnar 2012 (perf 3.7): Overhead/Command/Shared Object rows with trailing blanks, prose before and after", () => {
  const rows = parsePerfReport(read("molnar-2012-git-describe"), "m");
  assert.equal(rows.length, 10);
  assert.deepEqual([rows[0]!.selfPct, rows[0]!.command, rows[0]!.sharedObject, rows[0]!.space, rows[0]!.symbol], [39.79, "git", "libz.so.1.2.5", "user", "0x000000000000c1fe"]);
  assert.deepEqual([rows[1]!.selfPct, rows[1]!.symbol], [26.39, "inflate"]);
  assert.deepEqual([rows[9]!.selfPct, rows[9]!.sharedObject, rows[9]!.space, rows[9]!.symbol], [0.32, "[kernel.kallsyms]", "kernel", "page_fault"]);
  assert.ok(rows.every((r) => r.childrenPct === null && r.samples === null && r.table === 0 && r.event === null));
  // libz's three rows: 39.79 + 26.39 + 2.99.
  const libz = rows.filter((r) => r.sharedObject === "libz.so.1.2.5").reduce((s, r) => s + r.selfPct, 0);
  assert.equal(Math.round(libz * 100) / 100, 69.17);
});

test("Weiner 2014 (quoted by Hocko): Children/Self rows labelled old:/new: under a quoted header", () => {
  const rows = parsePerfReport(read("weiner-2014-memcg-page-stat"), "w");
  assert.deepEqual(rows.map((r) => [r.label, r.childrenPct, r.selfPct, r.command, r.sharedObject, r.space, r.symbol, r.line]), [
    ["old", 0.12, 0.11, "filemapstress", "[kernel.kallsyms]", "kernel", "page_remove_rmap", 14],
    ["new", 0.12, 0.08, "filemapstress", "[kernel.kallsyms]", "kernel", "page_remove_rmap", 15],
  ]);
  // The "old:/new: N seconds time elapsed" lines above are not rows.
  assert.ok(rows.every((r) => r.table === 0));
});

test("Oltean 2020 (netdev): six tables, two without '#' on the header and four with perf report -n sample counts", () => {
  const rows = parsePerfReport(read("oltean-2020-dsa-ptp-classify"), "o");
  const byTable = new Map<number, typeof rows>();
  for (const r of rows) byTable.set(r.table, [...(byTable.get(r.table) ?? []), r]);
  assert.deepEqual([...byTable.values()].map((t) => t.length), [21, 20, 15, 26, 15, 24]);
  const t0 = byTable.get(0)!;
  assert.deepEqual([t0[0]!.selfPct, t0[0]!.samples, t0[0]!.command, t0[0]!.sharedObject, t0[0]!.symbol], [20.23, null, "iperf3", "[kernel.kallsyms]", "csum_partial_copy_nocheck"]);
  assert.deepEqual([t0[2]!.selfPct, t0[2]!.symbol], [4.93, "___bpf_prog_run"]);
  assert.ok(!byTable.get(1)!.some((r) => r.symbol === "___bpf_prog_run"), "the patch removes ___bpf_prog_run from the cycles profile");
  const t2 = byTable.get(2)!;
  assert.deepEqual([t2[0]!.selfPct, t2[0]!.samples, t2[0]!.command, t2[0]!.symbol, t2[0]!.event], [30.4, 102932, "iperf3", "arm_copy_from_user", "cache-misses"]);
  const t3 = byTable.get(3)!;
  assert.deepEqual([t3[0]!.selfPct, t3[0]!.samples, t3[0]!.symbol, t3[0]!.event], [10.67, 34836, "pfifo_fast_dequeue", "branch-misses"]);
  assert.deepEqual([t3[15]!.symbol, t3[15]!.samples], ["validate_xmit_skb.constprop.54", 5143]);
  const t5 = byTable.get(5)!;
  assert.deepEqual([t5.at(-1)!.selfPct, t5.at(-1)!.samples, t5.at(-1)!.symbol, t5.at(-1)!.event], [0.95, 2667, "skb_segment", "branch-misses"]);
  assert.deepEqual([byTable.get(4)![0]!.samples, byTable.get(4)![0]!.event], [94339, "cache-misses"]);
  assert.ok(rows.every((r) => r.command === "iperf3" && r.space === "kernel"));
  assert.ok(rows.filter((r) => r.table >= 2).every((r) => r.samples !== null && Number.isInteger(r.samples)));
});

test("Clark 2021 (quoted twice by Arnaldo): Before/After tables with a call graph under a bare 0.78% line", () => {
  const rows = parsePerfReport(read("clark-2021-arm64-leaf-frame"), "c");
  assert.deepEqual(rows.map((r) => [r.table, r.childrenPct, r.selfPct, r.command, r.sharedObject, r.space, r.symbol]), [
    [0, 34.55, 0, "gdb-100", "gdb-100", "user", "_start"],
    [1, 34.55, 0, "gdb-100", "gdb-100", "user", "_start"],
  ]);
  assert.deepEqual(rows.map((r) => r.line), [12, 43]);
});

test("Zingerman 2025 (bpf): a header indented by one space and '...' elisions around the one row", () => {
  const rows = parsePerfReport(read("zingerman-2025-bpf-liveness"), "z");
  assert.deepEqual(rows.map((r) => [r.childrenPct, r.selfPct, r.command, r.sharedObject, r.space, r.symbol]), [
    [1.22, 1.22, "veristat", "[kernel.kallsyms]", "kernel", "bpf_update_live_stack"],
  ]);
});

test("a header with a Samples column refuses a row without its count, naming the line", () => {
  const text = "# Overhead       Samples  Command  Shared Object      Symbol\n    30.40%  iperf3   [kernel.kallsyms]  [k] arm_copy_from_user\n";
  assert.throws(() => parsePerfReport(text, "s.txt"), (e: Error) => /^s\.txt:2: expected a sample count/.test(e.message));
});

test("Brouer 2017 (prototype-kernel blog): --sort symbol gives rows with no command and no shared object", () => {
  const rows = parsePerfReport(read("brouer-2017-sort-symbol"), "b");
  assert.equal(rows.length, 36);
  assert.ok(rows.every((r) => r.command === null && r.sharedObject === null && r.space === "kernel" && r.event === "cycles" && r.table === 0));
  assert.deepEqual([rows[0]!.selfPct, rows[0]!.symbol, rows[0]!.line], [34.33, "mlx5e_handle_rx_cqe", 16]);
  assert.deepEqual([rows[4]!.selfPct, rows[4]!.symbol], [4.06, "bpf_prog_662b9cae761bf6ab"]);
  assert.deepEqual([rows[35]!.selfPct, rows[35]!.symbol], [0.02, "__raise_softirq_irqoff"]);
});

test("Brouer 2017: a TUI screen pasted as text, header and Samples line without '#', '+' expansion marks", () => {
  const rows = parsePerfReport(read("brouer-2017-tui-children"), "b");
  assert.equal(rows.length, 24);
  assert.deepEqual(rows.slice(0, 2).map((r) => [r.childrenPct, r.selfPct, r.symbol]), [
    [100, 0, "kthread"],
    [100, 0, "ret_from_fork"],
  ]);
  const cqe = rows.find((r) => r.symbol === "mlx5e_handle_rx_cqe")!;
  assert.deepEqual([cqe.childrenPct, cqe.selfPct, cqe.line], [86.37, 34.33, 15]);
  assert.deepEqual([rows[23]!.childrenPct, rows[23]!.selfPct, rows[23]!.symbol], [2.91, 2.91, "mlx5e_get_cqe"]);
  assert.ok(rows.every((r) => r.event === "cycles" && r.sharedObject === null && r.command === null && r.childrenPct! >= r.selfPct));
});

test("a header without Shared Object refuses a row that has one, naming the line", () => {
  const text = "# Overhead  Symbol\n    51.06% abc [vdso]   [.] 0x00000000589\n";
  assert.throws(() => parsePerfReport(text, "v.txt"), (e: Error) => /^v\.txt:2: expected nothing between the percentage and the \[k\]\/\[\.\] mark/.test(e.message));
});

test("Tsai 2019 (stable): a TUI screen whose every row the mail client wrapped before its [k] mark", () => {
  const rows = parsePerfReport(read("tsai-2019-pgd-lock-wrapped"), "t");
  assert.deepEqual(rows.map((r) => [r.line, r.childrenPct, r.selfPct, r.command, r.sharedObject, r.space, r.symbol, r.event]), [
    [6, 31.15, 0.03, "mbbsd", "[kernel.kallsyms]", "kernel", "entry_SYSCALL_64_after_hwframe", "cycles:ppp"],
    [8, 31.12, 0.02, "mbbsd", "[kernel.kallsyms]", "kernel", "do_syscall_64", "cycles:ppp"],
    [10, 28.12, 0.42, "mbbsd", "[kernel.kallsyms]", "kernel", "do_raw_spin_lock", "cycles:ppp"],
    [12, 27.7, 27.62, "mbbsd", "[kernel.kallsyms]", "kernel", "queued_spin_lock_slowpath", "cycles:ppp"],
  ]);
  // The expanded caller graph under the last row ("- 18.73% __libc_fork", …) is not a row.
  assert.ok(rows.every((r) => r.table === 0));
});
