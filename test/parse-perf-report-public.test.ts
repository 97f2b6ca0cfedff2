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
