import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { parsePerfReport, parsePerfReportFile, type PerfReportRow } from "../src/parse/perf-report.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const root = repoRoot();
const read = (rel: string): string => readFileSync(join(root, rel), "utf8");
const parse = (rel: string): PerfReportRow[] => parsePerfReport(read(rel), rel);
const F = "test/fixtures/perf";

test("perf report --no-children: Overhead, Command, Shared Object, symbol", () => {
  const rows = parse(`${F}/no-children.txt`);
  assert.equal(rows.length, 18);
  assert.deepEqual(rows[0], {
    file: `${F}/no-children.txt`,
    line: 12,
    table: 0,
    label: null,
    childrenPct: null,
    selfPct: 12.21,
    samples: null,
    command: "gzip",
    sharedObject: "gzip",
    space: "user",
    symbol: "0x0000000000004883",
    event: "cpu-clock:ppp",
  });
  const k = rows.find((r) => r.space === "kernel")!;
  assert.deepEqual([k.command, k.sharedObject, k.symbol, k.selfPct], ["dd", "[kernel.kallsyms]", "chacha_permute", 5.21]);
  // perf sorts by overhead, and the shares cannot exceed 100%.
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i]!.selfPct <= rows[i - 1]!.selfPct);
  assert.ok(rows.reduce((a, r) => a + r.selfPct, 0) <= 100);
});

test("perf report --children --sort dso,sym: no Command column, Children ≥ Self", () => {
  const rows = parse(`${F}/children-sort-dso-sym.txt`);
  assert.equal(rows.length, 24);
  assert.ok(rows.every((r) => r.command === null && r.childrenPct !== null && r.childrenPct >= r.selfPct));
  const sys = rows.find((r) => r.symbol === "do_syscall_64")!;
  assert.deepEqual([sys.childrenPct, sys.selfPct, sys.sharedObject, sys.space], [11.56, 0.16, "[kernel.kallsyms]", "kernel"]);
});

test("perf report with call graphs: call-graph lines are skipped, one table of 14 rows", () => {
  const rel = `${F}/children-callgraph.txt`;
  const rows = parse(rel);
  const twoPct = read(rel)
    .split("\n")
    .filter((l) => /^\s+\d+\.\d+%\s+\d+\.\d+%\s/.test(l)).length;
  assert.equal(rows.length, twoPct);
  assert.equal(rows.length, 14);
  assert.ok(rows.every((r) => r.table === 0 && r.command !== null));
  assert.deepEqual(
    rows.slice(2, 4).map((r) => [r.line, r.childrenPct, r.selfPct, r.command, r.symbol]),
    [
      [17, 9.61, 0, "dd", "entry_SYSCALL_64_after_hwframe"],
      [31, 9.61, 0, "dd", "do_syscall_64"],
    ],
  );
  // The Self share of a symbol is its Overhead in the --no-children report of the same recording.
  const flat = parse(`${F}/no-children.txt`);
  for (const r of rows.filter((x) => x.selfPct >= 1)) {
    const f = flat.find((x) => x.command === r.command && x.symbol === r.symbol && x.sharedObject === r.sharedObject);
    assert.ok(f, `${r.symbol} in no-children.txt`);
    assert.equal(f.selfPct, r.selfPct, r.symbol);
  }
});

test("Aaron Lu's quoted profile: two tables (before and after the commit), no Command column", () => {
  const rel = "data/published/lu-2023/profiles.raw.txt";
  const rows = parse(rel);
  assert.deepEqual(
    rows.map((r) => [r.table, r.line, r.childrenPct, r.selfPct, r.command, r.sharedObject, r.space, r.symbol]),
    [
      [0, 5, 7.3, 0.71, null, "[kernel.vmlinux]", "kernel", "__schedule"],
      [0, 6, 0.03, 0.03, null, "[kernel.vmlinux]", "kernel", "native_queued_spin_lock_slowpath"],
      [1, 10, 49.01, 0.87, null, "[kernel.vmlinux]", "kernel", "__schedule"],
      [1, 11, 43.2, 43.18, null, "[kernel.vmlinux]", "kernel", "native_queued_spin_lock_slowpath"],
    ],
  );
  assert.ok(rows.every((r) => r.event === null));
});

test("a row that disagrees with the header, or lacks its shared object, is a ParseError", () => {
  const rel = `${F}/no-children.txt`;
  const lines = read(rel).split("\n");
  const two = [...lines];
  two[13] = two[13]!.replace("6.03%", "6.03%     1.00%");
  assert.throws(
    () => parsePerfReport(two.join("\n"), rel),
    (e: unknown) => e instanceof ParseError && e.line === 14 && /:14: expected one percentage \(Overhead\) as the header says, found "/.test(e.message),
  );
  const noDso = [...lines];
  noDso[11] = "    12.21%  [.] 0x0000000000004883";
  assert.throws(
    () => parsePerfReport(noDso.join("\n"), rel),
    (e: unknown) => e instanceof ParseError && e.line === 12 && /expected a shared object before the \[k\]\/\[\.\] mark/.test(e.message),
  );
});

test("parsePerfReportFile and the CLI with format detection", () => {
  assert.equal(parsePerfReportFile(join(root, F, "no-children.txt")).length, 18);
  const cli = join(root, "bin/slicelab.js");
  const r = spawnSync(process.execPath, [cli, "parse", "auto", `${F}/children-sort-dso-sym.txt`, "--json"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { format: string; records: PerfReportRow[] };
  assert.equal(out.format, "perf-report");
  assert.equal(out.records.length, 24);
});
