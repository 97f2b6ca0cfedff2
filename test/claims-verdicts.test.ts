// The verdict rules and the printed-number helpers of src/claims, on small typed inputs
// whose expected verdicts are worked out by hand in the comments.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  VERDICTS,
  VERDICT_MEANINGS,
  decimalsOf,
  effectVerdict,
  figureVerdict,
  outlierVerdict,
  printedInterval,
  roundTo,
  roundedInterval,
  truncateTo,
  claimValueName,
  claimEntry,
} from "../src/claims/index.js";

test("the vocabulary is fixed and every verdict has a meaning", () => {
  assert.deepEqual([...VERDICTS], ["recomputed", "not recomputed", "reproduced", "not reproduced", "not yet reproduced", "not significant", "fragile", "consistent", "not checkable"]);
  for (const v of VERDICTS) assert.ok(VERDICT_MEANINGS[v].length > 20, v);
});

test("printed figures: decimals, rounding and truncation intervals", () => {
  assert.equal(decimalsOf("74527.7800"), 4);
  assert.equal(decimalsOf("182"), 0);
  assert.equal(decimalsOf("0.7"), 1);
  assert.throws(() => decimalsOf("182K"), RangeError);
  // 420.6304 printed with 4 decimals stands for [420.63035, 420.6305] (rounded or truncated).
  const iv = printedInterval(420.6304, 4);
  assert.ok(Math.abs(iv.lo - 420.63035) < 1e-9 && Math.abs(iv.hi - 420.6305) < 1e-9);
  const r = roundedInterval(44, 0);
  assert.deepEqual(r, { lo: 43.5, hi: 44.5 });
  assert.equal(roundTo(74710.0988662, 4), 74710.0989);
  assert.equal(truncateTo(74710.0988662, 4), 74710.0988);
  assert.equal(truncateTo(0.29, 2), 0.29);
});

test("figureVerdict: overlap of the printed interval with the recomputation", () => {
  // Posted arithmetic is "recomputed", never "reproduced" (issue 17): that word is for our own runs.
  // 420.6304969 truncates to the printed 420.6304: recomputed.
  assert.equal(figureVerdict(printedInterval(420.6304, 4), { lo: 420.6304969, hi: 420.6304969 }), "recomputed");
  // The population SD 406.3677 is far outside: not recomputed.
  assert.equal(figureVerdict(printedInterval(420.6304, 4), { lo: 406.3677, hi: 406.3677 }), "not recomputed");
  // 44% stated ([43.5, 44.5]) against 43.29–44.63% from the K-rounded inputs: recomputed.
  assert.equal(figureVerdict({ lo: 43.5, hi: 44.5 }, { lo: 43.29, hi: 44.63 }), "recomputed");
  // 0.7 s ([0.65, 0.75]) against 1.843–1.883 s: not recomputed.
  assert.equal(figureVerdict({ lo: 0.65, hi: 0.75 }, { lo: 1.843, hi: 1.883 }), "not recomputed");
});

test("effectVerdict: each branch", () => {
  const base = { alpha: 0.05, estimateInClaimedDirection: true, leaveOneOutFlips: 0 };
  const tests = (...ps: number[]) => ps.map((p, i) => ({ name: `t${i}`, p }));
  // All tests and the interval find it, no single run matters.
  assert.equal(effectVerdict({ ...base, tests: tests(0.001, 0.01), intervalExcludesNoEffect: true }), "reproduced");
  // Same, but one left-out run flips the primary test.
  assert.equal(effectVerdict({ ...base, tests: tests(0.001, 0.01), intervalExcludesNoEffect: true, leaveOneOutFlips: 1 }), "fragile");
  // Nothing finds it (Rostedt's mean difference with a seed whose interval includes 0).
  assert.equal(effectVerdict({ ...base, tests: tests(0.129, 0.0745), intervalExcludesNoEffect: false }), "not significant");
  // An interval whose verdict depends on the seed: the answer depends on the seed, so fragile (issue 28
  // item 7: Rostedt's difference, bootstrap CI excluding 0 for 3 of 5 seeds while Welch does not).
  assert.equal(effectVerdict({ ...base, tests: tests(0.129, 0.0745), intervalExcludesNoEffect: "seed-dependent" }), "fragile");
  assert.equal(effectVerdict({ ...base, tests: tests(0.129, 0.0745), intervalExcludesNoEffect: "seed-dependent", evidence: "posted" }), "fragile");
  // …and it is no contradiction when the estimate points the other way but no test finds it.
  assert.equal(effectVerdict({ ...base, tests: tests(0.3, 0.4), intervalExcludesNoEffect: "seed-dependent", estimateInClaimedDirection: false }), "fragile");
  // …nor as excluding it when the tests find the effect.
  assert.equal(effectVerdict({ ...base, tests: tests(0.001, 0.002), intervalExcludesNoEffect: "seed-dependent" }), "fragile");
  // The F-test finds it, Brown–Forsythe does not (Rostedt's spread).
  assert.equal(effectVerdict({ ...base, tests: tests(0.00015, 0.27), intervalExcludesNoEffect: false }), "fragile");
  // Only the interval finds it.
  assert.equal(effectVerdict({ ...base, tests: tests(0.2, 0.3), intervalExcludesNoEffect: true }), "fragile");
  // Significant the other way.
  assert.equal(effectVerdict({ ...base, tests: tests(0.001, 0.001), intervalExcludesNoEffect: true, estimateInClaimedDirection: false }), "not reproduced");
  // The same outcomes on a source's posted runs use the words of recomputation.
  assert.equal(effectVerdict({ ...base, tests: tests(0.001, 0.01), intervalExcludesNoEffect: true, evidence: "posted" }), "recomputed");
  assert.equal(effectVerdict({ ...base, tests: tests(0.001, 0.001), intervalExcludesNoEffect: true, estimateInClaimedDirection: false, evidence: "posted" }), "not recomputed");
  assert.equal(effectVerdict({ ...base, tests: tests(0.129, 0.0745), intervalExcludesNoEffect: false, evidence: "posted" }), "not significant");
  // Not significant, but dropping one run makes it significant: the conclusion hinges on one run.
  assert.equal(effectVerdict({ ...base, tests: tests(0.06, 0.2), intervalExcludesNoEffect: false, leaveOneOutFlips: 2 }), "fragile");
});

test("outlierVerdict", () => {
  assert.equal(outlierVerdict(true, true), "consistent");
  assert.equal(outlierVerdict(true, false), "not reproduced");
  assert.equal(outlierVerdict(false, true), "not reproduced");
  assert.equal(outlierVerdict(false, true, "posted"), "not recomputed");
  assert.equal(outlierVerdict(true, true, "posted"), "consistent");
});

test("claimEntry keeps the key order and turns non-finite values into null", () => {
  const e = claimEntry({
    values: { a: 1, b: Number.NaN, c: Infinity, d: null },
    basis: "b",
    reason: "r",
    verdict: "consistent",
    uncertainty: null,
    recomputed: "x",
    published: "y",
    claim: "c",
    source: "lu-2023",
    id: "lu-2023/x",
  });
  assert.deepEqual(Object.keys(e), ["id", "source", "claim", "cites", "published", "recomputed", "uncertainty", "verdict", "reason", "basis", "reproduction", "values"]);
  assert.deepEqual(e.cites, []);
  assert.deepEqual(e.reproduction, { status: "not applicable", records: [], note: "" });
  assert.deepEqual(e.values, { a: 1, b: null, c: null, d: null });
  assert.equal(JSON.stringify(e.values), '{"a":1,"b":null,"c":null,"d":null}');
});

test("claimValueName makes names recordValue accepts", () => {
  assert.equal(claimValueName("rostedt-2023/smaller-std-dev", "fTestPWithoutOutlier"), "rostedt-2023.smaller-std-dev.f-test-p-without-outlier");
  assert.equal(claimValueName("lahr-2001/runqueue-lock-after-mq", "minConListed_4way"), "lahr-2001.runqueue-lock-after-mq.min-con-listed_4way");
  assert.equal(claimValueName("lu-2023/x", "verdict"), "lu-2023.x.verdict");
});
