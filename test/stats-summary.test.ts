import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { readTpsFile } from "../src/cli/commands/compare.js";
import { mean, median, summary, variance } from "../src/stats/index.js";

const dir = join(repoRoot(), "test", "fixtures", "compare");

/** Rostedt's figures as printed: 4 decimals, cut off (not rounded), see the next test. */
function printed(x: number): string {
  return (Math.trunc(x * 1e4) / 1e4).toFixed(4);
}

test("summary() of Rostedt's posted runs reproduces his printed Average and Std Dev", () => {
  // The post prints, for the 15 runs without / with the patch:
  //   Average: 74527.7800  Std Dev: 420.6304   and   Average: 74710.0988  Std Dev: 136.7250
  const without = summary(readTpsFile(join(dir, "rostedt-2023-unpatched.csv")));
  const withPatch = summary(readTpsFile(join(dir, "rostedt-2023-patched.csv")));
  assert.equal(without.n, 15);
  assert.equal(withPatch.n, 15);
  assert.equal(printed(without.mean), "74527.7800");
  assert.equal(printed(without.sd), "420.6304");
  assert.equal(printed(withPatch.mean), "74710.0988");
  assert.equal(printed(withPatch.sd), "136.7250");
  // His tool cut the digits instead of rounding them: rounding would print 420.6305 and 74710.0989.
  assert.equal(without.sd.toFixed(4), "420.6305");
  assert.equal(withPatch.mean.toFixed(4), "74710.0989");
  // And it is the sample SD (n − 1), as NumPy computes it independently: numpy.std(x, ddof=1) =
  // 420.6304969004874 and numpy.var(x, ddof=1) = 176930.01492275094, while the population SD
  // (ddof=0) is 406.36766676812215, which an implementation dividing by n would return.
  assert.ok(Math.abs(without.sd - 420.6304969004874) < 1e-9, String(without.sd));
  assert.ok(Math.abs(variance(readTpsFile(join(dir, "rostedt-2023-unpatched.csv"))) - 176930.01492275094) < 1e-6);
  assert.ok(Math.abs(without.sd - 406.36766676812215) > 1);
});

test("median of odd and even samples, min/max, CV", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  const s = summary([2, 4, 4, 4, 5, 5, 7, 9]);
  assert.equal(s.mean, 5);
  assert.equal(s.sd, Math.sqrt(32 / 7));
  assert.equal(s.min, 2);
  assert.equal(s.max, 9);
  assert.equal(s.cv, Math.sqrt(32 / 7) / 5);
});

test("variance is exact for large offsets (no cancellation in the squares)", () => {
  // 1e9 + {1, 2, 3}: the variance is 1; a one-pass Σx² − n·mean² formula would lose it.
  assert.equal(variance([1e9 + 1, 1e9 + 2, 1e9 + 3]), 1);
  assert.equal(mean([1e9 + 1, 1e9 + 2, 1e9 + 3]), 1e9 + 2);
});

test("summary rejects values that are not finite numbers; SD of one value is NaN", () => {
  assert.throws(() => summary([1, NaN]), /finite number/);
  assert.ok(Number.isNaN(summary([5]).sd));
});
