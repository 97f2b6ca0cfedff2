import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { readTpsFile } from "../src/cli/commands/compare.js";
import {
  bootstrapReplicates,
  createRng,
  dropOne,
  fTestVerdict,
  leaveOneOut,
  mean,
  moments,
  sd,
  variance,
  welchVerdict,
  type VerdictRule,
} from "../src/stats/index.js";
import { parseTimes, scalingEnvelope, scalingVerdict, syntheticSides, type ScalingResult } from "../src/bench/compare-scaling.js";
import { validateRecord } from "../src/record/format.js";

const dir = join(repoRoot(), "test", "fixtures", "compare");
const load = (name: string): number[] => readTpsFile(join(dir, `${name}.csv`));
const PAIRS = [
  ["rostedt-2023-unpatched", "rostedt-2023-patched"],
  ["unequal-a", "unequal-b"],
  ["ties-a", "ties-b"],
  ["small-no-ties-a", "small-no-ties-b"],
  ["large-no-ties-a", "large-no-ties-b"],
] as const;

/** The same rule without its moments shortcut: leave-one-out must recompute from the n − 1 runs. */
function slow(rule: VerdictRule): VerdictRule {
  return (a, b) => rule(a, b);
}

function relClose(x: number, y: number, rel: number, what: string): void {
  const err = Math.abs(x - y) / Math.max(Math.abs(y), Number.MIN_VALUE);
  assert.ok(err <= rel, `${what}: ${x} vs ${y} (relative error ${err.toExponential(2)})`);
}

test("dropOne: the moments without one run match the moments of the remaining runs", () => {
  const xs = load("rostedt-2023-unpatched");
  const m = moments(xs);
  xs.forEach((x, i) => {
    const rest = xs.filter((_, j) => j !== i);
    const d = dropOne(m, x);
    assert.equal(d.n, rest.length);
    relClose(d.mean, mean(rest), 1e-15, `mean without #${i + 1}`);
    relClose(d.m2 / (d.n - 1), variance(rest), 1e-11, `variance without #${i + 1}`);
  });
  // Dropping the only different value of an otherwise constant sample: the downdate leaves a rounding
  // residue (never negative); leaveOneOut then sums the remaining runs again and finds exactly 0.
  const c = dropOne(moments([5, 5, 5, 5.1]), 5.1);
  assert.ok(c.m2 >= 0 && c.m2 < 1e-14);
  const loo = leaveOneOut([5, 5, 5, 5.1], [5, 5, 5, 5], welchVerdict(0.05));
  const ref = leaveOneOut([5, 5, 5, 5.1], [5, 5, 5, 5], slow(welchVerdict(0.05)));
  assert.deepEqual(loo.drops.map((d) => d.verdict), ref.drops.map((d) => d.verdict));
  loo.drops.forEach((d, i) => relClose(d.p, ref.drops[i]!.p, 1e-12, `drop ${i}`));
  assert.equal(loo.drops[3]!.p, 1, "A without 5.1 equals B exactly: p = 1 as the full recomputation says");
});

for (const [name, ruleOf] of [
  ["Welch", welchVerdict],
  ["F-test", fTestVerdict],
] as const) {
  test(`leaveOneOut (${name}): the closed form gives the verdicts and p-values of recomputing every drop`, () => {
    for (const [fa, fb] of PAIRS) {
      const a = load(fa);
      const b = load(fb);
      const fast = leaveOneOut(a, b, ruleOf(0.05));
      const ref = leaveOneOut(a, b, slow(ruleOf(0.05)));
      assert.equal(fast.baseline, ref.baseline);
      assert.equal(fast.drops.length, ref.drops.length);
      fast.drops.forEach((d, i) => {
        const r = ref.drops[i]!;
        assert.equal(d.side, r.side);
        assert.equal(d.index, r.index);
        assert.equal(d.verdict, r.verdict, `${fa}/${fb} drop ${d.side}#${d.index + 1}`);
        relClose(d.p, r.p, 1e-8, `${fa}/${fb} drop ${d.side}#${d.index + 1}`);
      });
      assert.deepEqual(
        fast.flips.map((f) => `${f.side}${f.index}`),
        ref.flips.map((f) => `${f.side}${f.index}`),
      );
    }
  });
}

test("leaveOneOut: a rule with a moments form is not called on the n − 1 remaining runs", () => {
  const { a, b } = syntheticSides(2000);
  const inner = welchVerdict(0.05);
  let arrayCalls = 0;
  let momentCalls = 0;
  const counted: VerdictRule = (x, y) => {
    arrayCalls++;
    return inner(x, y);
  };
  counted.fromMoments = (x, y) => {
    momentCalls++;
    return inner.fromMoments!(x, y);
  };
  const loo = leaveOneOut(a, b, counted);
  assert.equal(loo.drops.length, 4000);
  assert.equal(arrayCalls, 1, "only the baseline is computed from the samples");
  assert.equal(momentCalls, 4000);
});

test("bootstrapReplicates: bit-identical to resampling with rng.index() and mean()/sd() on arrays", () => {
  const a = load("unequal-a");
  const b = load("unequal-b");
  const got = bootstrapReplicates(a, b, { seed: 42, resamples: 500 });
  const rng = createRng(42);
  const ra = new Array<number>(a.length);
  const rb = new Array<number>(b.length);
  for (let r = 0; r < 500; r++) {
    for (let i = 0; i < a.length; i++) ra[i] = a[rng.index(a.length)]!;
    for (let i = 0; i < b.length; i++) rb[i] = b[rng.index(b.length)]!;
    const mA = mean(ra);
    assert.equal(got.meanDiffPct[r], (100 * (mean(rb) - mA)) / mA, `meanDiffPct[${r}]`);
    assert.equal(got.sdRatio[r], sd(rb) / sd(ra), `sdRatio[${r}]`);
  }
});

test("Rng.indices: the same numbers as successive index() calls, and the stream continues after it", () => {
  const r1 = createRng(9);
  const r2 = createRng(9);
  const out = new Int32Array(1000);
  r1.indices(37, out);
  for (let i = 0; i < out.length; i++) assert.equal(out[i], r2.index(37), `index ${i}`);
  assert.equal(r1.nextUint32(), r2.nextUint32());
});

test("compare-scaling: synthetic sides are seeded and `times` output is read as user + sys of the children", () => {
  const x = syntheticSides(50);
  const y = syntheticSides(50);
  assert.deepEqual(x, y);
  assert.ok(Math.abs(mean(x.b) / mean(x.a) - 1.0014) < 0.003);
  assert.equal(parseTimes("0m0.010s 0m0.002s\n0m1.250s 0m0.125s\n"), 1.375);
  assert.equal(parseTimes("1m2.000s 0m0.500s\n"), 62.5);
  assert.equal(parseTimes("garbage"), null);
});

function scalingResult(over: Partial<ScalingResult>): ScalingResult {
  return {
    kind: "compare-scaling",
    command: "slicelab compare A.csv B.csv --resamples 10000 --json (fresh node process per measurement)",
    sizes: [1000, 10000],
    resamples: 10000,
    repeats: 3,
    rows: [],
    ratio10kOver1kWall: 3.4,
    ratio10kOver1kCpu: 3.3,
    time10kS: 1.72,
    goals: { ratioMax: 4, time10kMaxS: 2, note: "" },
    parts: { runsPerSide: 10000, seconds: {} },
    loadAverageBefore: [0.2, 0.1, 0.1],
    loadAverageAfter: [0.4, 0.2, 0.1],
    host: { hostname: "h", cpuModel: "AMD EPYC", cpus: 2, memoryBytes: 1 << 30, governor: null },
    kit: { commit: "0123456789abcdef0123456789abcdef01234567", dirty: false, node: "v20" },
    startedAt: "2026-12-02T06:18:31.000Z",
    ...over,
  };
}

test("scalingVerdict: each goal met or not from the record's figures, and whether the machine was quiet", () => {
  const q = scalingVerdict(scalingResult({}));
  assert.equal(q.verdict, "both goals met");
  assert.equal(q.quiet, true);
  assert.match(q.reason, /ratio 10,000\/1,000 runs 3.4 \(goal ≤ 4: met\); 2 × 10,000 runs with 10000 resamples 1.72 s \(goal < 2 s: met\); on a quiet machine/);
  const loaded = scalingVerdict(scalingResult({ loadAverageBefore: [3.11, 2, 1], loadAverageAfter: [3.35, 2, 1] }));
  assert.equal(loaded.quiet, false);
  assert.match(loaded.reason, /a loaded machine \(1-minute load 3.11 before, 3.35 after, 2 CPUs\): load only slows/);
  const slow = scalingVerdict(scalingResult({ time10kS: 4.317, ratio10kOver1kWall: 4.483, loadAverageBefore: [1.34, 1, 1], loadAverageAfter: [2.04, 1, 1] }));
  assert.equal(slow.verdict, "neither goal met");
  assert.match(slow.reason, /4.317 s \(goal < 2 s: not met\).*not settled for a quiet machine/);
  assert.equal(scalingVerdict(scalingResult({ time10kS: 2.0 })).verdict, "one goal met", "2.0 s is not under 2 s");
  assert.equal(scalingVerdict(scalingResult({ ratio10kOver1kWall: null })).verdict, "not measured");
});

test("scalingEnvelope: a valid record.json; records made before argv/endedAt say so instead of guessing", () => {
  const env = scalingEnvelope(scalingResult({ argv: ["node", "dist/src/bench/compare-scaling.js", "--record", "data/runs/compare-scaling"], endedAt: "2026-12-02T06:19:00.000Z", kernelRelease: "6.18.0" }), ["result.json"]);
  const text = JSON.stringify(env, null, 2);
  validateRecord(JSON.parse(text), "record.json", text);
  assert.deepEqual(env.command, ["node", "dist/src/bench/compare-scaling.js", "--record", "data/runs/compare-scaling"]);
  assert.equal(env.ended, "2026-12-02T06:19:00.000Z");
  assert.match(String(env.concurrent), /^1-minute load average 0.2 before and 0.4 after/);
  assert.deepEqual(env.analysis, { verdict: "both goals met", reason: scalingVerdict(scalingResult({})).reason, file: "result.json" });
  const old = scalingEnvelope(scalingResult({}), ["result.json"]);
  validateRecord(JSON.parse(JSON.stringify(old)), "record.json", JSON.stringify(old));
  assert.deepEqual(old.command, { unknown: "not recorded by compare-scaling before 2026-12-02" });
  assert.deepEqual(old.ended, { unknown: "not recorded by compare-scaling before 2026-12-02" });
});
