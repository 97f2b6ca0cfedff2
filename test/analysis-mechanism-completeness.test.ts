// Issue 26 item 4: per cell of a pooled mechanism group, planned runs, rows, lost runs with their
// reasons, and whether the design's runs per cell are reached; on synthetic records and on the
// committed icount factorial that lost 15 runs and was topped up by two blocks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cellCompleteness, completenessSentence, readCompletenessRecords, type CompletenessRecord } from "../src/analysis/mechanism-completeness.js";
import { loadMechanismGroups, pickMechanismGroups } from "../src/analysis/mechanism-records.js";
import { repoRoot } from "../src/util/paths.js";

const plan = (ids: [string, string][]) => ids.map(([id, mode]) => ({ id, mode, pages: "4k", extension: "off" }));

test("cellCompleteness: the design's count is the most one record planned; later blocks top a short cell up", () => {
  const a: CompletenessRecord = {
    name: "A",
    plan: plan([["001", "full"], ["002", "lazy"], ["003", "full"], ["004", "lazy"], ["005", "full"], ["006", "lazy"]]),
    rows: [{ run: "001" }, { run: "002" }, { run: "003" }, { run: "004" }].map((r, i) => ({ ...r, mode: i % 2 ? "lazy" : "full" })),
    failed: [{ run: "005", reason: "not reached (the guest timed out)" }],
  };
  const short = cellCompleteness([a]);
  assert.deepEqual(short.map((c) => [c.cell, c.planned, c.design, c.rows, c.complete]), [["full · 4k · ext off", 3, 3, 2, false], ["lazy · 4k · ext off", 3, 3, 2, false]]);
  assert.deepEqual(short[0]!.lost, ["A/005: not reached (the guest timed out)"]);
  assert.deepEqual(short[1]!.lost, ["A/006: no row and no stated reason"]);
  assert.match(completenessSentence(short, "g"), /^g: 4 of 6 planned runs have a row; 2 without one \(1 without a stated reason\)\. 2 of 2 cells are short of their design's runs: full · 4k · ext off \(2 of 3\), lazy · 4k · ext off \(2 of 3\)\.$/);
  const b: CompletenessRecord = { name: "B", plan: plan([["001", "full"], ["002", "lazy"]]), rows: [{ run: "001", mode: "full" }, { run: "002", mode: "lazy" }], failed: [] };
  const pooled = cellCompleteness([a, b]);
  assert.deepEqual(pooled.map((c) => [c.planned, c.design, c.rows, c.complete]), [[4, 3, 3, true], [4, 3, 3, true]]);
  assert.deepEqual(pooled[0]!.byRecord, ["A 2/3", "B 1/1"]);
  assert.match(completenessSentence(pooled, "g"), /every one of the 2 cells has at least its design's runs per cell \(the most one record planned for it: 3; fewest rows in a cell: 3\)/);
  assert.throws(() => cellCompleteness([{ ...b, failed: [{ run: "009", reason: "x" }] }]), /B: failed run 009 is not in the plan/);
  assert.throws(() => cellCompleteness([{ ...b, rows: [{ run: "010" }] }]), /B: row of run 010 is not in the plan/);
});

test("the committed icount factorial: every cell of the pooled group has its design's runs, every lost run a reason", (t) => {
  const root = join(repoRoot(), "data", "runs", "mechanism-2026");
  if (!existsSync(join(root, "20261201T215612Z", "provenance.json"))) return t.skip("the factorial record mechanism-2026/20261201T215612Z is not in this checkout");
  const { vm } = pickMechanismGroups(loadMechanismGroups(root));
  assert.ok(vm, "the icount factorial group");
  const cells = cellCompleteness(readCompletenessRecords(root, vm.names));
  assert.equal(cells.length, 12, "mode × pages (4k, 4k-prefault, hugetlb) × extension");
  const lost = cells.flatMap((c) => c.lost);
  assert.equal(lost.length, vm.prov.failed.length);
  assert.ok(lost.every((l) => !l.endsWith("no row and no stated reason")), lost.join("; "));
  for (const c of cells) assert.ok(c.complete, `${c.cell}: ${c.rows} rows of ${c.design} (${c.byRecord.join(", ")})`);
});

test("the committed PostgreSQL factorial: cells by mode × huge_pages × extension, each with its design's runs", (t) => {
  const root = join(repoRoot(), "data", "runs", "mechanism-2026");
  const { pg } = pickMechanismGroups(loadMechanismGroups(root));
  if (!pg) return t.skip("no PostgreSQL mechanism record in this checkout");
  const cells = cellCompleteness(readCompletenessRecords(repoRoot(), pg.paths));
  assert.deepEqual(cells.map((c) => c.cell), ["full · huge_pages off · ext off", "full · huge_pages off · ext on", "full · huge_pages on · ext off", "full · huge_pages on · ext on", "lazy · huge_pages off · ext off", "lazy · huge_pages off · ext on", "lazy · huge_pages on · ext off", "lazy · huge_pages on · ext on"]);
  assert.equal(cells.flatMap((c) => c.lost).length, pg.prov.failed.length);
  assert.ok(cells.flatMap((c) => c.lost).every((l) => !l.endsWith("no row and no stated reason")));
});
