import { test } from "node:test";
import assert from "node:assert/strict";
import { minimumDetectableEffectPct, runsNeeded, welchPower } from "../src/stats/index.js";

// Noise of Rostedt's runs (sample SDs of the 15 runs per side, see stats-scipy.test.ts).
const sdA = 420.6304969004874;
const sdB = 136.72504941945695;
const meanA = 74527.7800676;

test("runsNeeded and minimumDetectableEffectPct are consistent with each other", () => {
  for (const effect of [0.3, 0.5, 1]) {
    const n = runsNeeded(sdA, sdB, meanA, effect);
    assert.ok(minimumDetectableEffectPct(sdA, sdB, n, n, meanA) <= effect, `n=${n} detects ${effect}%`);
    assert.ok(minimumDetectableEffectPct(sdA, sdB, n - 1, n - 1, meanA) > effect, `n=${n - 1} does not`);
  }
});

test("power grows with the runs and the effect; zero effect gives power alpha", () => {
  const d = meanA * 0.005;
  let last = 0;
  for (const n of [3, 5, 10, 20, 40]) {
    const p = welchPower(sdA, sdB, n, n, d);
    assert.ok(p > last);
    last = p;
  }
  assert.ok(welchPower(sdA, sdB, 15, 15, 2 * d) > welchPower(sdA, sdB, 15, 15, d));
  // t_crit comes from @stdlib, the tail from jStat's central t (ncp = 0): they agree to ~2e-11.
  assert.ok(Math.abs(welchPower(sdA, sdB, 15, 15, 0) - 0.05) < 1e-9);
  // Stricter alpha or higher target power needs more runs.
  assert.ok(runsNeeded(sdA, sdB, meanA, 0.5, 0.01) > runsNeeded(sdA, sdB, meanA, 0.5, 0.05));
  assert.ok(runsNeeded(sdA, sdB, meanA, 0.5, 0.05, 0.9) > runsNeeded(sdA, sdB, meanA, 0.5, 0.05, 0.8));
});

test("degenerate inputs: no effect, no noise, too few runs", () => {
  assert.equal(runsNeeded(sdA, sdB, meanA, 0), Infinity);
  assert.equal(runsNeeded(0, 0, meanA, 0.1), 2);
  assert.equal(minimumDetectableEffectPct(0, 0, 5, 5, meanA), 0);
  assert.ok(Number.isNaN(minimumDetectableEffectPct(sdA, sdB, 1, 5, meanA)));
  // A negative effect is the same detection problem as a positive one.
  assert.equal(runsNeeded(sdA, sdB, meanA, -0.5), runsNeeded(sdA, sdB, meanA, 0.5));
});
