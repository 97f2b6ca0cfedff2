import { test } from "node:test";
import assert from "node:assert/strict";
import { mannWhitneyU, rankWithTies, uCounts, uExactSf } from "../src/stats/index.js";

function binomial(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

test("uCounts: the null distribution of U counts every arrangement once and is symmetric", () => {
  for (const [m, n] of [
    [1, 1],
    [2, 3],
    [5, 6],
    [8, 8],
    [4, 12],
    [12, 4],
  ] as const) {
    const c = uCounts(m, n);
    assert.equal(c.length, m * n + 1);
    assert.equal(
      c.reduce((s, x) => s + x, 0n),
      binomial(m + n, m),
      `total for ${m},${n}`,
    );
    for (let u = 0; u <= m * n; u++) assert.equal(c[u], c[m * n - u], `symmetry at ${u} for ${m},${n}`);
    assert.ok(c.every((x) => x > 0n));
  }
  // Small case by hand: m = 2, n = 2 → arrangements of AABB have U = 0,1,2,2,3,4.
  assert.deepEqual(uCounts(2, 2), [1n, 1n, 2n, 1n, 1n]);
});

test("uExactSf: P(U ≥ u) from the counts", () => {
  assert.equal(uExactSf(0, 2, 2), 1);
  assert.equal(uExactSf(3, 2, 2), 2 / 6);
  assert.equal(uExactSf(4, 2, 2), 1 / 6);
});

test("rankWithTies: average ranks and the tie term Σ(t³ − t)", () => {
  const r = rankWithTies([10, 20, 20, 30, 20, 5]);
  assert.deepEqual(r.ranks, [2, 4, 4, 6, 4, 1]);
  assert.equal(r.tieTerm, 27 - 3);
});

test("mannWhitneyU: complete separation gives U = 0 and the exact minimum p", () => {
  const r = mannWhitneyU([1, 2, 3], [4, 5, 6]);
  assert.equal(r.method, "exact");
  assert.equal(r.u, 0);
  assert.equal(r.uB, 9);
  assert.equal(r.p, 2 / 20); // 2 × 1/C(6,3)
});

test("mannWhitneyU: swapping the samples swaps U_A and U_B and keeps p", () => {
  const a = [3.1, 4.7, 2.2, 5.9, 4.1, 3.3, 6.4, 2.8, 5.0];
  const b = [4.4, 6.6, 5.3, 7.1, 5.8, 6.1, 4.9, 7.7, 6.9, 5.5];
  const ab = mannWhitneyU(a, b);
  const ba = mannWhitneyU(b, a);
  assert.equal(ab.u, ba.uB);
  assert.equal(ab.p, ba.p);
  assert.equal(ab.method, "asymptotic");
});

test("uExactSf at larger sizes agrees with scipy.stats.mannwhitneyu(method='exact')", () => {
  // Reference: /usr/bin/python3 scripts/scipy-reference.py (scipy 1.10.1), field mannWhitney.exactP,
  // for the fixtures large-no-ties (9 vs 14, U_A = 17) and rostedt-2023 (15 vs 15, U_A = 69).
  const cases: [number, number, number, number][] = [
    [17, 9, 14, 0.0026554412070632287],
    [69, 15, 15, 0.07420449991722405],
  ];
  for (const [u, m, n, p] of cases) {
    const got = 2 * uExactSf(Math.max(u, m * n - u), m, n);
    assert.ok(Math.abs(got - p) / p < 1e-12, `${m}×${n}: ${got} vs ${p}`);
  }
});
