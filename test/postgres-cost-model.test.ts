/**
 * The v2 patch-cost arithmetic: hook executions (nested acquires included)
 * from the patch's counters, ns per execution, and the hook-bench parser and
 * per-round analysis.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { patchCostModel } from "../src/postgres/cost-model.js";
import { analyseHookCost, meanCi, parseHookBenchLine, type HookCostSample } from "../src/postgres/hook-cost.js";
import { hookExecutions, perTransaction, type LockOpsRun } from "../src/postgres/lock-ops.js";
import { ParseError, UserError } from "../src/util/errors.js";

test("hook executions count every covered acquire twice (acquire and release hook), nested ones included", () => {
  // one LWLock hold with a nested LWLock and a spinlock and a buffer header lock inside: 4 acquires, 1 hold
  const c = { acquires_spinlock: 1, acquires_buffer_header: 1, acquires_wait_list: 0, acquires_lwlock: 2, holds_lwlock: 1 };
  assert.equal(hookExecutions(c), 8);
  assert.equal(hookExecutions({}), 0);
});

test("per transaction from (30 s − 10 s) pairs; a long run with fewer transactions is an error", () => {
  const mk = (seconds: number, tx: number, acq: number): LockOpsRun => ({ seconds, pair: 1, transactions: tx, counters: { acquires_lwlock: acq, acquires_spinlock: acq / 2, holds_lwlock: acq / 4 } });
  const p = perTransaction([mk(10, 100, 2000 + 100 * 20), mk(30, 300, 2000 + 300 * 20)], 10, 30);
  assert.equal(p.pairs, 1);
  assert.equal(p.mean.acquires_lwlock, 20);
  assert.equal(p.mean.acquires_spinlock, 10);
  assert.equal(p.mean.hook_executions, 60);
  assert.throws(() => perTransaction([mk(10, 300, 1), mk(30, 100, 2)], 10, 30), UserError);
  assert.throws(() => perTransaction([mk(10, 300, 1)], 10, 30), /need runs of 10 s and 30 s/);
});

test("cost model: executions × ns ÷ CPU ns, upper end from the CI", () => {
  const m = patchCostModel({ hookExecutionsPerTransaction: 50, nsPerHookExecution: { off: { mean: 0.2, ci: [0.1, 0.3] }, all: { mean: 2, ci: [1.5, 2.5] } }, cpuNsPerTransaction: 100_000 });
  assert.equal(m.off.nsPerTransaction, 10);
  assert.ok(Math.abs(m.off.pctUpper - 0.015) < 1e-12);
  assert.equal(m.all.nsPerTransaction, 100);
  assert.ok(Math.abs(m.all.pct - 0.1) < 1e-12);
  assert.throws(() => patchCostModel({ hookExecutionsPerTransaction: 1, nsPerHookExecution: { off: { mean: 0, ci: [0, 0] }, all: { mean: 0, ci: [0, 0] } }, cpuNsPerTransaction: 0 }), UserError);
});

test("hook-bench lines and per-round differences", () => {
  assert.deepEqual(parseHookBenchLine("all nested 1000 12.5000 8\n"), { arm: "all", pattern: "nested", iterations: 1000, ns: 12.5, executions: 8 });
  assert.throws(() => parseHookBenchLine("fast spin 1 1 2"), ParseError);
  const samples: HookCostSample[] = [];
  for (let r = 1; r <= 5; r++) {
    const drift = r * 3; // a shared machine: every arm of a round moves together
    for (const [arm, add] of [["none", 0], ["off", 1], ["all", 4]] as const) {
      samples.push({ round: r, arm, pattern: "spin", nsPerIteration: 10 + drift + add + (r % 2) * 0.2 });
      samples.push({ round: r, arm, pattern: "nested", nsPerIteration: 100 + drift + 4 * add });
    }
  }
  const a = analyseHookCost(samples);
  assert.ok(Math.abs(a.spin.off.mean - 0.5) < 1e-9, "1 ns per iteration over 2 executions");
  assert.ok(Math.abs(a.nested.all.mean - 2) < 1e-9, "16 ns per iteration over 8 executions");
  assert.ok(a.spin.all.ci[0] <= a.spin.all.mean && a.spin.all.mean <= a.spin.all.ci[1]);
  assert.throws(() => meanCi([1]), UserError);
});
