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

test("involuntary switches per workload (notebook 06, issue 28 item 12): medians, range and the lock-table reading, words by the rule", async () => {
  const { involuntaryByWorkload, involuntarySentence, MOSTLY_VOLUNTARY_PCT } = await import("../src/analysis/lock-collected.js");
  const r = (series: string, workload: string, involuntaryPct: number, perTransaction: number, warmup = false) => ({ series, workload, warmup, involuntaryPct, perTransaction });
  const rows = [r("lt/1", "locktable", 0.5, 4), r("lt/1", "locktable", 0.3, 3.8), r("lt/1", "locktable", 9, 9, true), r("s/2", "sysbench", 15, 16), r("s/2", "sysbench", 29, 17), r("s/2", "sysbench", 14.9, 16.1)];
  const by = involuntaryByWorkload(rows);
  assert.deepEqual(by.map((w) => [w.key, w.runs, w.inv, w.min, w.max, w.perTx]), [["s/2/sysbench", 3, 15, 14.9, 29, 16.1], ["lt/1/locktable", 2, 0.4, 0.3, 0.5, 3.9]]);
  const s = involuntarySentence(by, "lt/1/locktable", 2);
  assert.equal(s, "Median share of involuntary switches over the measured runs: highest for **s/2/sysbench** (15.00 %, runs 14.90–29.00 %, 16.10 switches per transaction), lowest for **lt/1/locktable** (0.40 %). In the lock-table A/A series the backends were preempted in 0.40 % of their switches (median of 2 runs) with 2 CPU hogs competing for the CPUs: a backend gave up its CPU 3.9 times per transaction, almost always voluntarily (under 5 % involuntary). Which of the involuntary switches hit a lock holder these counts cannot tell; the slice-extension counters (next section; VM kernel) count that.");
  assert.equal(MOSTLY_VOLUNTARY_PCT, 5);
  assert.match(involuntarySentence(by, "s/2/sysbench", null), /preempted in 15\.00 % of their switches \(median of 3 runs\): a backend gave up its CPU 16\.1 times per transaction, often involuntarily \(5 % or more\)\./);
  assert.equal(involuntarySentence([], "x", null), "No measured run recorded context switches.");
});
