// The code once kept among the data, now under src/ (src/study/drivers/): each reproduces what
// its record keeps — lock-ops' summary.json, the vm-eviction batch's host-overlap.csv and the
// comparison record's summary.json and table.md — from the record's raw files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { currentPath, citationMap, rewriteText } from "../src/record/move.js";
import { studyNames } from "../src/study/study.js";
import { lockOpsSummaryText } from "../src/study/drivers/lock-ops.js";
import { hostOverlapCsv } from "../src/study/drivers/host-overlap.js";
import { evictionComparison } from "../src/study/drivers/eviction-comparison.js";

const root = repoRoot();
const runs = join(root, "data", "runs");
/** A record by its path before `slicelab record convert`, wherever it is now. */
const rec = (former: string) => join(root, currentPath(root, `data/runs/${former}`));

test("lockOpsSummary: the lock-ops version-1 record's summary.json, byte for byte", () => {
  const dir = rec("lock-ops-vm/20261130T074829Z");
  assert.equal(lockOpsSummaryText(dir), readFileSync(join(dir, "summary.json"), "utf8"));
});

test("hostOverlapCsv: the vm-eviction batch's host-overlap.csv, byte for byte", () => {
  const dir = rec("vm-eviction/20261130T080122Z");
  assert.equal(hostOverlapCsv(dir, ["none-6.1.176", "full-7.2.13", "lazy-7.2.13"]), readFileSync(join(dir, "host-overlap.csv"), "utf8"));
});

test("evictionComparison: the comparison record's summary.json and table.md (its slicelab compare commands name the records where they are now)", { timeout: 300_000 }, () => {
  const dir = rec("vm-eviction/20261130T000002Z");
  const out = mkdtempSync(join(tmpdir(), "slicelab-evc-"));
  try {
    if (!existsSync(join(root, "dist", "src", "cli", "main.js")) && !existsSync(join(root, "bin", "slicelab.js"))) throw new Error("bin/slicelab.js missing");
    const c = evictionComparison(root, dir, out);
    const moved = citationMap(runs, new Set(studyNames()));
    const committed = JSON.parse(rewriteText(readFileSync(join(dir, "summary.json"), "utf8"), moved));
    assert.deepEqual(JSON.parse(rewriteText(JSON.stringify(c.summary), moved)), committed);
    assert.equal(c.table, readFileSync(join(dir, "table.md"), "utf8"));
    // the same comparisons, one file each (their full outputs are compare's, whose outlier p-values moved in the last digits since)
    assert.deepEqual([...c.files.keys()].sort(), readdirSync(join(dir, "comparisons")).map((f) => `comparisons/${f}`).sort());
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
