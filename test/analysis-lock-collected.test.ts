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

import { activePerSample, commitWaitParagraph, lockTableSamplingParagraph, waitShare, type SeriesWaitRow } from "../src/analysis/lock-collected.js";

const row = (variant: string, waitEventType: string, sharePct: number, active = 40, samples = 20): SeriesWaitRow => ({ series: "s", workload: "eviction", variant, waitEventType, sharePct, active, samples });

test("commitWaitParagraph: LWLock + IO shares of both settings, the events, and the reading that follows them", () => {
  const sync = [row("sync", "LWLock", 30), row("sync", "IO", 12.5), row("sync", "CPU", 57.5)];
  const asyn = [row("async", "LWLock", 5, 30, 20), row("async", "CPU", 95, 30, 20)];
  const p = commitWaitParagraph(sync, asyn, ["WALWrite", "WalSync"]);
  assert.equal(p.syncPct, 42.5);
  assert.equal(p.asyncPct, 5);
  assert.match(p.text, /42\.5 % of the active backends seen/);
  assert.match(p.text, /\(LWLock 30\.0 %, IO 12\.5 %; the events are WALWrite, WalSync\)/);
  assert.match(p.text, /2\.00 vs 1\.50 active backends per sample/);
  assert.match(p.text, /37\.5 points fewer LWLock and I\/O waits with `off`/);
  assert.equal(waitShare(asyn, "IO"), 0);
  assert.equal(activePerSample([]), 0);
});

test("lockTableSamplingParagraph: active backends per sample over both arms, too sparse below one per four clients", () => {
  const a = [{ ...row("A", "LWLock", 10, 3, 100), workload: "locktable" }];
  const b = [{ ...row("B", "LWLock", 20, 1, 100), workload: "locktable" }];
  const p = lockTableSamplingParagraph(a, b, 8);
  assert.equal(p.perSample, 0.02);
  assert.match(p.text, /over 200 samples/);
  assert.match(p.text, /LWLock share A 10\.0 %, B 20\.0 %, on 3 and 1 observations/);
  assert.match(p.text, /too sparse/);
});
