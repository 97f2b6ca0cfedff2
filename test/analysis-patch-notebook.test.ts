// Notebook 03's computations, moved out of its cells (src/analysis/patch-notebook.ts, issue 28 item 12),
// on the kit's patch series and the committed CPU-cost record.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cpuCostRows, patchFileCell, patchFileRows, sameFiles, withinGoal } from "../src/analysis/patch-notebook.js";
import { readPatchSeries } from "../src/postgres/patch.js";
import { repoRoot } from "../src/util/paths.js";

test("the file table of the 15 and 18 series: config.sgml 1 hunk +42 −0 in both, ipci.c 3 hunks +3 −0; a file a series does not touch is —", () => {
  const p15 = readPatchSeries("15")[0]!;
  const p18 = readPatchSeries("18")[0]!;
  const rows = patchFileRows(p15, p18);
  assert.deepEqual(rows.find((r) => r[0] === "doc/src/sgml/config.sgml"), ["doc/src/sgml/config.sgml", "1 hunk(s), +42 −0", "1 hunk(s), +42 −0"]);
  assert.deepEqual(rows.find((r) => r[0] === "src/backend/storage/ipc/ipci.c"), ["src/backend/storage/ipc/ipci.c", "3 hunk(s), +3 −0", "3 hunk(s), +3 −0"]);
  assert.equal(patchFileCell(p18, "no/such/file.c"), "—");
  const created = p18.files.filter((f) => f.created).map((f) => f.path);
  assert.ok(created.length > 0);
  assert.equal(sameFiles(p15, p18, created), true);
  assert.equal(sameFiles(p15, p18, [...created, "no/such/file.c"]), false);
});

test("the CPU-cost table (patch-cost/20261130T022242Z): unpatched 24.01 µs, off +11.04 % (−6.01 … +28.09), all +3.50 %, 10 rounds; the goal rule reads the interval's upper end", () => {
  const c = JSON.parse(readFileSync(join(repoRoot(), "data/runs/patch-cost/20261130T022242Z/summary.json"), "utf8"));
  assert.deepEqual(cpuCostRows(c), [
    ["unpatched", "24.01", "", "", 10],
    ["patched, slice_extension = off", "26.87", "+11.04%", "-6.01% … +28.09%", 10],
    ["patched, slice_extension = all", "24.40", "+3.50%", "-17.98% … +24.99%", 10],
  ]);
  assert.equal(withinGoal({ ci: [-1, 2] }, 2), true);
  assert.equal(withinGoal({ ci: [0.5, 2.01] }, 2), false);
});
