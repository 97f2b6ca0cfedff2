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
  // Thousands separators (issue 28 item 11: "2,106–2,222 spin-style holds").
  assert.deepEqual(parseFigure("2,106–"), { value: 2106, decimals: 0 });
  assert.deepEqual(parseFigure("–8,253.5 s"), { value: 8253.5, decimals: 1 });
  // Small counts written as words.
  assert.deepEqual(parseFigure("three"), { value: 3, decimals: 0 });
  assert.deepEqual(parseFigure("one"), { value: 1, decimals: 0 });
  assert.throws(() => parseFigure("several"), /no number in "several"/);
});

test("integers are checked in the integer passages: §3's three paragraphs and §8's PostgreSQL paragraph (issue 28 item 11)", () => {
  const d = docs();
  const regions = MEASURED_REGIONS.filter((r) => r.integers);
  for (const from of ["`data/runs/rostedt-2023/20261130T035419Z/`: the full `rostedt-2023` protocol", "- Why one CPU. Three short runs", "- The kit's CPU: PASS.", "- The earlier doubt is settled.", "- PostgreSQL 18 in the VM —"]) {
    assert.ok(regions.some((r) => r.from === from), `an integer region starts at "${from}"`);
  }
  // An integer typed into each, without an entry, fails; a date or a version does not.
  for (const [at, typed] of [
    ["the first block discarded),", " 17 of them on one CPU,"],
    ["the spread came from.", " A fourth run gave 17 pairs."],
    ["goal < 1%.", " It took 250 ms."],
    ["each with an interval that contains 1.", " One pair of 12 was lost."],
    ["still pilot counts for the traced preemptions.", " About 150 holds per backend."],
  ] as const) {
    assert.equal(d["REPRODUCE.md"].split(at).length, 2, `"${at}" once in REPRODUCE.md`);
    const u = uncovered({ ...d, "REPRODUCE.md": d["REPRODUCE.md"].replace(at, `${at}${typed}`) });
    assert.equal(u.length, 1, u.join("\n"));
    assert.match(u[0]!, /(17|250|12|150) looks measured but has no entry/);
  }
  // "2 h 41 min" is checked: the A/A series ran from 03:54:19 to 06:35:01 (160.7 min, results.jsonl).
  const hm = FIGURES.filter((e) => e.sentence.startsWith("randomised blocks, 2 h 41 min")).map((e) => e.figure);
  assert.deepEqual(hm, ["2 h", "41 min"]);
  const dated = d["REPRODUCE.md"].replace("- **The earlier doubt is settled.**", "- **The earlier doubt is settled.** On 2026-11-30 at 09:52, on Linux 6.18.44,");
  assert.deepEqual(uncovered({ ...d, "REPRODUCE.md": dated }), []);
  // The two figures the issue named: "~150 spin-style holds, ~8 of them fault" is gone, replaced by the committed
  // rows' range per backend process (2,106–2,222 holds, 8.0–11.2 faults, both records), and the pooled figures
  // name every record they read.
  assert.ok(!d["REPRODUCE.md"].includes("~150 spin-style holds"));
  const pooled = FIGURES.filter((e) => e.figure === "2,106–" || e.figure === "–11.2");
  assert.equal(pooled.length, 2);
  for (const e of pooled) assert.deepEqual(e.alsoReads, ["data/runs/mechanism-pg/20261201T224018Z/rows.json", "data/runs/mechanism-pg/20261201T231710Z/rows.json"]);
  const f4626 = FIGURES.find((e) => e.figure === "4626.8")!;
  assert.deepEqual(f4626.alsoReads, ["data/runs/mechanism-pg/20261201T224018Z/rows.json", "data/runs/mechanism-pg/20261201T231710Z/rows.json"]);
  // A pooled entry whose second record is missing fails.
  const missing = { ...f4626, alsoReads: [...f4626.alsoReads!, "data/runs/mechanism-2026/pg-nope/rows.json"] };
  assert.match(checkEntry(missing, d, root)[0]!, /the record data\/runs\/mechanism-2026\/pg-nope\/rows\.json it pools is not in the repository/);
});
