// Every measured figure of README.md and REPRODUCE.md is read back from the record under data/ it
// comes from (src/evidence/figures.ts: one table of (sentence, record, field)), and a measured-looking
// number in a measured-results passage without an entry fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIGURES, MEASURED_REGIONS, checkEntry, parseFigure, uncovered, type Doc } from "../src/evidence/figures.js";
import { repoRoot } from "../src/util/paths.js";

const root = repoRoot();
const docs = (): Record<Doc, string> => ({
  "README.md": readFileSync(join(root, "README.md"), "utf8"),
  "REPRODUCE.md": readFileSync(join(root, "REPRODUCE.md"), "utf8"),
});

test("every figure of the table is in its sentence and is what its record gives", () => {
  const d = docs();
  const problems = FIGURES.flatMap((e) => checkEntry(e, d, root));
  assert.deepEqual(problems, []);
  for (const e of FIGURES) assert.match(e.record, /^data\//, `${e.figure}: a record under data/`);
  assert.ok(FIGURES.length >= 30);
});

test("every measured-looking number of the measured passages has an entry", () => {
  assert.deepEqual(uncovered(docs()), []);
  assert.ok(MEASURED_REGIONS.length >= 17);
});

test("the §4, §5, §6 and §8 passages are measured regions: a number typed into each without an entry fails", () => {
  const d = docs();
  for (const [at, section] of [
    ["- ns per hook execution", "§4 v2"],
    ["- The idea: every change", "§4 pgbench"],
    ["These durations come from an emulated CPU", "§5"],
    ["- PostgreSQL's user-space locks", "§6"],
    ["Verdicts (notebook 07):", "§8"],
  ] as const) {
    assert.ok(d["REPRODUCE.md"].includes(at), `${section}: "${at}" not in REPRODUCE.md`);
    const typed = d["REPRODUCE.md"].replace(at, `A later run gave 12.34%. ${at}`);
    const u = uncovered({ ...d, "REPRODUCE.md": typed });
    assert.equal(u.length, 1, `${section}: ${u.join("\n")}`);
    assert.match(u[0]!, /12\.34% looks measured but has no entry/);
  }
});

test("the check fails on a figure typed without a record, and on a record that disagrees", () => {
  const d = docs();
  // A new measured sentence in a measured passage, with no entry.
  const added = d["REPRODUCE.md"].replace("- the drift itself:", "- a later run gave 1.28 and 0.909;\n- the drift itself:");
  const u = uncovered({ ...d, "REPRODUCE.md": added });
  assert.equal(u.length, 2, u.join("\n"));
  assert.match(u[0]!, /1\.28 looks measured but has no entry in src\/evidence\/figures\.ts$/);
  // A figure changed in the text: its entry no longer finds its sentence.
  const changed = d["REPRODUCE.md"].replace("**−2.59%**", "**−2.50%**");
  const e = FIGURES.find((x) => x.figure === "−2.59%")!;
  assert.match(checkEntry(e, { ...d, "REPRODUCE.md": changed }, root)[0]!, /expected the sentence "difference B − A −2\.59% \(p = 0\.215\)"/);
  // An entry pointing at the wrong field: the record's value rounds to another figure.
  const wrong = { ...e, field: "unpaired.halfWidthPct" };
  assert.match(checkEntry(wrong, d, root)[0]!, /expected −2\.59% from data\/runs\/rostedt-2023\/20261130T035419Z\/analysis\.json unpaired\.halfWidthPct = 16\.6\d+, which rounds to 16\.61$/);
  // The figures the issue named have no record and are gone.
  for (const gone of ["0.909", "1.28", "477 s", "4.8 MiB", "≈ 20 min", "about 3 on a quiet", "15 minutes earlier"]) {
    assert.ok(!d["REPRODUCE.md"].includes(gone) && !d["README.md"].includes(gone), gone);
  }
});

test("parseFigure reads signs, ± and decimals as written", () => {
  assert.deepEqual(parseFigure("−2.59%"), { value: -2.59, decimals: 2 });
  assert.deepEqual(parseFigure("±4.28%"), { value: 4.28, decimals: 2 });
  assert.deepEqual(parseFigure("+34.4%"), { value: 34.4, decimals: 1 });
  assert.deepEqual(parseFigure("p = 0.0015"), { value: 0.0015, decimals: 4 });
  assert.deepEqual(parseFigure("755 s"), { value: 755, decimals: 0 });
  // Small counts written as words.
  assert.deepEqual(parseFigure("three"), { value: 3, decimals: 0 });
  assert.deepEqual(parseFigure("one"), { value: 1, decimals: 0 });
  assert.throws(() => parseFigure("several"), /no number in "several"/);
});
