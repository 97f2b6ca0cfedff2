import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { readTpsFile } from "../src/cli/commands/compare.js";
import { UserError } from "../src/util/errors.js";
import { compareSamples, leaveOneOut, welchVerdict } from "../src/stats/index.js";

const dir = join(repoRoot(), "test", "fixtures", "compare");
const load = (name: string): number[] => readTpsFile(join(dir, `${name}.csv`));

test("compareSamples: Rostedt's runs — no significant difference in the means (Welch p ≈ 0.129)", () => {
  const c = compareSamples(load("rostedt-2023-unpatched"), load("rostedt-2023-patched"), {
    labels: ["unpatched", "patched"],
  });
  assert.deepEqual(Object.keys(c), [
    "labels", "alpha", "a", "b", "welch", "mannWhitney", "fTest", "brownForsythe",
    "bootstrap", "leaveOneOut", "power", "spread", "verdict", "reason",
  ]);
  assert.equal(c.verdict, "no significant difference");
  assert.match(c.reason, /^Welch p = 0\.1289 ≥ 0\.05: patched − unpatched = \+0\.245%/);
  assert.equal(c.leaveOneOut.fragile, false);
  assert.equal(c.leaveOneOut.drops.length, 30);
  // The F-test says the spreads differ (p ≈ 1.5e-4); the robust Brown–Forsythe test does not (p ≈ 0.27):
  // the unpatched SD is dominated by one low run (73124.96).
  assert.ok(c.fTest.p < 0.001);
  assert.equal(c.spread.verdict, "no significant difference in spread");
  assert.match(c.spread.reason, /Brown–Forsythe p = 0\.2724/);
  // Power: the observed 0.245% needs more runs per side than the 15 posted.
  const observed = c.power.runsNeeded[0]!;
  assert.ok(Math.abs(observed.effectPct - c.welch.differencePct) < 1e-12);
  assert.ok(observed.runsPerSide! > 15);
  assert.ok(c.power.minimumDetectableEffectPct > c.welch.differencePct);
  assert.deepEqual(
    c.power.runsNeeded.slice(1).map((r) => r.effectPct),
    [0.5, 1, 2],
  );
});

test("compareSamples: a fragile verdict names the runs that flip it", () => {
  const c = compareSamples(load("unequal-a"), load("unequal-b"));
  assert.equal(c.verdict, "no significant difference");
  assert.equal(c.leaveOneOut.fragile, true);
  assert.deepEqual(
    c.leaveOneOut.flips.map((f) => `${f.side}#${f.index + 1}=${f.value}`),
    ["A#3=2225.3", "A#5=2231.6", "A#11=2236.2", "B#3=2216.4"],
  );
  assert.match(c.reason, /fragile: dropping any of 4 single runs \(A #3, A #5, A #11, B #3\) changes it$/);
  // B's spread is smaller by both tests here (SD 3.4 vs 14.9).
  assert.equal(c.spread.verdict, "B less variable");
});

test("compareSamples: significant differences give a direction", () => {
  assert.equal(compareSamples(load("small-no-ties-a"), load("small-no-ties-b")).verdict, "B higher");
  assert.equal(compareSamples(load("small-no-ties-b"), load("small-no-ties-a")).verdict, "B lower");
});

test("compareSamples: same seed → identical output; alpha changes the verdict and the interval level", () => {
  const a = load("unequal-a");
  const b = load("unequal-b");
  assert.deepEqual(compareSamples(a, b, { seed: 5, resamples: 500 }), compareSamples(a, b, { seed: 5, resamples: 500 }));
  const loose = compareSamples(a, b, { alpha: 0.1, resamples: 500 });
  assert.equal(loose.verdict, "B higher");
  assert.equal(loose.welch.confidence, 0.9);
  assert.equal(loose.bootstrap.confidence, 0.9);
});

test("compareSamples: too few values or non-finite values are user errors naming the side", () => {
  assert.throws(() => compareSamples([1], [2, 3], { labels: ["base", "new"] }), (e: unknown) => {
    return e instanceof UserError && /^base: need at least 2 values/.test(e.message);
  });
  assert.throws(() => compareSamples([1, 2], [2, Infinity]), /B: value 2 is not a finite number/);
});

test("leaveOneOut takes a custom verdict rule", () => {
  // A rule that only looks at the means (no test): dropping B's single high value flips "B higher".
  const rule = (a: readonly number[], b: readonly number[]) => {
    const m = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    return { verdict: m(b) > m(a) ? ("B higher" as const) : ("no significant difference" as const), p: NaN };
  };
  const r = leaveOneOut([10, 10, 10], [9, 9, 14], rule);
  assert.equal(r.baseline, "B higher");
  assert.deepEqual(
    r.flips.map((f) => [f.side, f.index]),
    [["B", 2]],
  );
  // welchVerdict at a stricter alpha is a different rule.
  assert.equal(welchVerdict(0.001)(load("small-no-ties-a"), load("small-no-ties-b")).verdict, "no significant difference");
});
