import { test } from "node:test";
import assert from "node:assert/strict";
import { commitWaitReading, kernelLockSentence, kernelLockTime, samplingReading } from "../src/analysis/lock-collected.js";

test("kernelLockTime: wait over run seconds × CPUs, each workload's seconds counted once", () => {
  // 0.2 s + 0.2 s of wait over (10 + 10) s × 2 CPUs = 1 %.
  const t = kernelLockTime("s", [
    { id: "001", workload: "w", seconds: 10, waitTotalNs: 1e8 },
    { id: "001", workload: "w", seconds: 10, waitTotalNs: 1e8 },
    { id: "002", workload: "w", seconds: 10, waitTotalNs: 2e8 },
  ], 2);
  assert.deepEqual(t, { name: "s", waitS: 0.4, runSeconds: 20, cpus: 2, pct: 1 });
});

test("kernelLockSentence says 'below 1 %' only when every series is", () => {
  const small = [{ name: "a", waitS: 0, runSeconds: 1, cpus: 2, pct: 0.05 }, { name: "b", waitS: 0, runSeconds: 1, cpus: 2, pct: 0.2 }];
  assert.equal(kernelLockSentence(small, ["x"]), "The sites among the top 3 of every series: `x`. In every series the kernel's own lock wait was below 1 % of the CPU time (at most 0.200 %). PostgreSQL's user-space locks are not kernel locks and do not appear in these tables.");
  const big = [...small, { name: "c", waitS: 0, runSeconds: 1, cpus: 2, pct: 3.5 }];
  assert.match(kernelLockSentence(big, []), /none in common\. The kernel's own lock wait reached 3\.500 % of the CPU time in c\./);
  assert.doesNotMatch(kernelLockSentence(big, []), /below 1 %/);
});

test("commitWaitReading follows the sign and size of the difference, and says nothing of causes", () => {
  assert.equal(commitWaitReading(40, 10), "30.0 points fewer LWLock and I/O waits with `off` than with `on`.");
  assert.equal(commitWaitReading(10, 25.5), "15.5 points more LWLock and I/O waits with `off` than with `on`.");
  assert.equal(commitWaitReading(10, 10.4), "the two shares differ by less than 1 point (-0.4).");
  assert.equal(commitWaitReading(Number.NaN, 3), "one of the two shares is missing.");
});

test("samplingReading calls a sample too sparse below one active backend per four clients", () => {
  assert.match(samplingReading(0.05, 8), /^0\.050 active backends per sample for 8 clients is too sparse/);
  assert.equal(samplingReading(2, 8), "2.000 active backends per sample for 8 clients.");
  assert.equal(samplingReading(1.99, 8).includes("too sparse"), true);
  assert.equal(samplingReading(1, 0), "");
});
