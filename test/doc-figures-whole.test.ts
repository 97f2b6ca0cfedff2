// Issue 28 item 11, the rest of REPRODUCE.md: every measured-looking number outside the measured regions
// of src/evidence/figures.ts is traced to a record or marked as not a measurement (src/evidence/figures-whole.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { WHOLE_FIGURES, WHOLE_INT_REGIONS, WHOLE_NOT_MEASURED, unregioned } from "../src/evidence/figures-whole.js";
import { entryValue } from "../src/evidence/figures.js";
import { repoRoot } from "../src/util/paths.js";

const root = repoRoot();
const docs = () => ({ "README.md": readFileSync(join(root, "README.md"), "utf8"), "REPRODUCE.md": readFileSync(join(root, "REPRODUCE.md"), "utf8") });

test("no measured-looking number of REPRODUCE.md is left outside every check", () => {
  assert.deepEqual(unregioned(docs(), root), []);
  assert.ok(WHOLE_NOT_MEASURED.length >= 30 && WHOLE_FIGURES.length === 7);
});

test("the Lahr readings of §1 are what the ledger computes from the excerpt: 1031.6 s (about 1030), 8252.7 s, 129, 0.678 s, 1.863 s; Sangappa's +55%", () => {
  const v = (figure: string) => entryValue(WHOLE_FIGURES.find((e) => e.figure === figure)!, root);
  assert.equal(v("about 1030 s"), 1030);
  assert.equal(v("about 8,250 s"), 8250);
  assert.equal(v("\"129 s"), 129);
  assert.equal(v("like 1030"), 1030);
  assert.ok(Math.abs(v("0.7 seconds") - 0.677879) < 1e-9);
  assert.ok(Math.abs(v("1.86 s") - 1.8631748) < 1e-9);
  assert.equal(v("+55%"), 55);
});

test("a number typed anywhere in REPRODUCE.md without an entry fails, a changed figure fails, integers of the Lahr passage are checked", () => {
  const d = docs();
  assert.equal(WHOLE_INT_REGIONS.length, 1);
  for (const [at, typed, figure] of [
    ["which gives about 1.86 s.", " It took 3.25 s.", "3.25"],
    ["Change it with `--param scale=N`.", " About 12% of it was cached.", "12%"],
    ["looks like 1030 / 8.", " It had 17 locks.", "17"],
  ] as const) {
    assert.equal(d["REPRODUCE.md"].split(at).length, 2, `"${at}" once in REPRODUCE.md`);
    const u = unregioned({ ...d, "REPRODUCE.md": d["REPRODUCE.md"].replace(at, `${at}${typed}`) }, root);
    assert.equal(u.length, 1, u.join("\n"));
    assert.ok(u[0]!.includes(`: ${figure} looks measured but no entry traces it`), u[0]);
  }
  const changed = unregioned({ ...d, "REPRODUCE.md": d["REPRODUCE.md"].replace("about 1.86 s", "about 1.96 s") }, root);
  assert.match(changed.join("\n"), /expected the sentence "which gives about 1\.86 s\.", found no such words/);
  // The untraced "10–30%" of §3 is gone: the spread is the table's per-pair sd column.
  assert.ok(!d["REPRODUCE.md"].includes("10–30%"));
});
