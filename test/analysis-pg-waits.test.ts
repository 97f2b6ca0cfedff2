/**
 * Where v3 can hurt (issue 27 item 6), from rows: armed-wait cells, the
 * LWLockWakeup stall cells, stalls matched against a trace, and the two
 * sentences (chosen by the data: a stall-free run says so).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { armedWaitSentence, hasWaitCounters, matchStallsToTrace, summariseStallMatches, summariseWaitCells, waitCellTable, wakeupStallSentence, type PgWaitRow } from "../src/analysis/pg-waits.js";

const row = (o: Partial<PgWaitRow>): PgWaitRow => ({
  run: "001", mode: "full", hugePages: "off", extension: "on", accel: "tcg-icount", sliceSetting: "all", grants: 10,
  endedHolds: 100, armedWaitHolds: 5, spinWaits: 20, armedSpinWaits: 4, lwlockSleeps: 8, armedLwlockSleeps: 2, spinWaitGrants: 1, lwlockWaitGrants: 1,
  wakeups: 50, wakeupYields: 0, wakeupYieldWaiters: 0, wakeupStallNs: 0, wakeupStallMaxNs: 0, wakeupReleaseNs: 5000, ...o,
});

test("summariseWaitCells: sums per cell and setting, shares over runs; rows without the counters are left out", () => {
  const rows = [
    row({ run: "a" }),
    row({ run: "b", endedHolds: 300, armedWaitHolds: 15, grants: 30, spinWaitGrants: 0, lwlockWaitGrants: 0 }),
    row({ run: "c", extension: "off", sliceSetting: "off", grants: 0, armedWaitHolds: 0, spinWaitGrants: 0, lwlockWaitGrants: 0 }),
    row({ run: "d", sliceSetting: "spinlock", wakeups: 40, wakeupYields: 4, wakeupYieldWaiters: 5, wakeupStallNs: 40_000, wakeupStallMaxNs: 25_000, wakeupReleaseNs: 3600 }),
    { run: "old", mode: "full", hugePages: "off", extension: "on", accel: "tcg-icount", grants: 3 },
  ];
  assert.equal(hasWaitCounters(rows[4]!), false);
  const cells = summariseWaitCells(rows);
  assert.deepEqual(cells.map((c) => `${c.extension}/${c.setting}:${c.runs}`), ["on/all:2", "off/off:1", "on/spinlock:1"]);
  const all = cells[0]!;
  assert.equal(all.endedHolds, 400);
  assert.equal(all.armedWaitHolds, 20);
  assert.equal(all.armedWaitHoldShare.mean, 0.05);
  assert.equal(all.waitGrants, 2);
  assert.equal(all.kernelGrants, 40);
  assert.equal(all.waitGrantShare.mean, 0.05);
  assert.equal(all.meanStallNs, null);
  assert.equal(all.meanReleaseNs, 100);
  const sp = cells[2]!;
  assert.equal(sp.meanStallNs, 10_000);
  assert.equal(sp.maxStallNs, 25_000);
  assert.equal(sp.meanReleaseNs, 100, "3600 ns over the 36 wakeups that did not yield");
  const t = waitCellTable(cells);
  assert.match(String(t[2]!["stall mean / max (emulated)"]), /^10 µs \/ 25 µs$/);
  assert.equal(t[0]!["stall mean / max (emulated)"], "—");
  assert.equal(t[0]!["with an armed wait"], "20 (5 %)");
});

test("armedWaitSentence: from the cells with a request protocol; says when no grant went to a waiter", () => {
  const s = armedWaitSentence(summariseWaitCells([row({}), row({ run: "b" })]), "v3 in the VM");
  assert.match(s!, /^v3 in the VM: over 2 runs with slice_extension = all, 10 of 200 request holds \(5 %\) had a wait/);
  assert.match(s!, /4 of the kernel's 20 grants \(20 %\) were seen by a process while it waited/);
  const none = armedWaitSentence(summariseWaitCells([row({ spinWaitGrants: 0, lwlockWaitGrants: 0 })]), "x");
  assert.match(none!, /none went to a waiter/);
  assert.equal(armedWaitSentence(summariseWaitCells([row({ sliceSetting: "spinlock" })]), "x"), null);
  // a tiny share keeps two significant digits, one run is "1 run"
  assert.match(armedWaitSentence(summariseWaitCells([row({ endedHolds: 767_568, armedWaitHolds: 4 })]), "x")!, /^x: over 1 run with slice_extension = all, 4 of 767,568 request holds \(0\.00052 %\)/);
});

test("matchStallsToTrace: the waker's switch out inside the stall and its switch back in", () => {
  const stalls = [
    { pid: 7, startNs: 1_000_000, endNs: 1_050_000, waiters: 2 },
    { pid: 7, startNs: 2_000_000, endNs: 2_010_000, waiters: 1 },
    { pid: 8, startNs: 3_000_000, endNs: 3_001_000, waiters: 1 },
  ];
  const sw = [
    { tsNs: 1_001_000, prevPid: 7, nextPid: 9, stack: ["__schedule", "do_syscall_64", "__x64_sys_rseq_slice_yield"] },
    { tsNs: 1_049_000, prevPid: 9, nextPid: 7, stack: null },
    { tsNs: 2_004_000, prevPid: 7, nextPid: 9, stack: ["__schedule", "irqentry_exit"] },
    { tsNs: 2_009_000, prevPid: 9, nextPid: 7, stack: null },
    { tsNs: 5_000_000, prevPid: 8, nextPid: 9, stack: null },
  ];
  const m = matchStallsToTrace(stalls, sw);
  assert.deepEqual(m.map((x) => [x.outNs, x.inNs, x.offCpuNs, x.viaYield]), [
    [1_001_000, 1_049_000, 48_000, true],
    [2_004_000, 2_009_000, 5_000, false],
    [null, null, null, null],
  ]);
  const s = summariseStallMatches(m);
  assert.deepEqual([s.stalls, s.matched, s.viaYield, s.waiters, s.maxStallNs, s.medianOffCpuNs, s.maxOffCpuNs], [3, 2, 1, 4, 50_000, 26_500, 48_000]);
  assert.equal(s.medianStallNs, 10_000);
});

test("wakeupStallSentence: counts, waiters left asleep, the trace's view; a run without yields says so", () => {
  const cells = summariseWaitCells([row({ sliceSetting: "spinlock", wakeups: 40, wakeupYields: 4, wakeupYieldWaiters: 5, wakeupStallNs: 40_000, wakeupStallMaxNs: 25_000 })]);
  const s = wakeupStallSentence(cells, { stalls: 4, matched: 3, viaYield: 3, medianStallNs: 9000, p90StallNs: 20000, maxStallNs: 25000, medianOffCpuNs: 8000, maxOffCpuNs: 24000, waiters: 5 }, "v3");
  assert.match(s!, /yielded a grant in 4 of 40 wakeups with dequeued waiters \(10 %\); 5 dequeued waiters stayed asleep meanwhile, for a mean 10 µs \(maximum 25 µs\) of emulated guest time/);
  assert.match(s!, /inside 3 of the 4 logged stalls \(3 through rseq_slice_yield\), off the CPU for a median 8 µs \(maximum 24 µs\)/);
  assert.match(wakeupStallSentence(summariseWaitCells([row({ sliceSetting: "spinlock" })]), null, "v3")!, /no stall in these runs/);
  assert.equal(wakeupStallSentence(summariseWaitCells([row({})]), null, "v3"), null);
});

test("pgVersionTable: the cells of two patch versions side by side; a cell one version lacks shows —; accelLabel says emulated", async () => {
  const { pgVersionTable, accelLabel } = await import("../src/analysis/mechanism-pg.js");
  const base = {
    kernelRelease: "7.2.13", accel: "tcg-icount", hugePagesStatus: "off", hugePagesTaken: 0, holds: 1_000_000, faultedHolds: 1, faultsUnderLock: 2,
    preemptedHolds: 3, faultedPreemptedHolds: 0, grantedHolds: 0, faultedGrantedHolds: 0, deschedHolds: 1, kernelFault: 1, kernelOther: 0, returnFault: 0,
    returnInterrupt: 2, returnSyscall: 0, grants: 4, tpsLoad: 10, tpsConnect: 1,
  };
  const v2 = [{ ...base, run: "a", mode: "full", hugePages: "off", extension: "on", grants: null }, { ...base, run: "b", mode: "full", hugePages: "off", extension: "off" }];
  const v3 = [{ ...base, run: "c", mode: "full", hugePages: "off", extension: "on", faultsUnderLock: 8 }];
  const t = pgVersionTable([{ version: "v2", accel: "tcg-icount", rows: v2 }, { version: "v3", accel: "tcg-icount", rows: v3 }]);
  assert.deepEqual(t.map((r) => r.cell), ["full/off/off", "full/off/on"]);
  const on = t[1]!;
  assert.equal(on["v2 runs"], 1);
  assert.equal(on["v2 kernel grants"], "not recorded");
  assert.equal(on["v3 kernel grants"], 4);
  assert.match(String(on["v3 faults /M"]), /^8(\.0)? \(n = 1/);
  assert.equal(on["v3 traced in kernel / at return"], "1 / 2");
  assert.equal(t[0]!["v3 runs"], 0);
  assert.equal(t[0]!["v3 faults /M"], "—");
  assert.match(accelLabel("tcg-icount"), /^emulated \(QEMU TCG, icount/);
  assert.match(accelLabel("tcg"), /^emulated \(plain QEMU TCG\)/);
});

test("readStallTraces: pools the stalls of the records' stall-trace.json; none gives null; a bad file is named", async () => {
  const { readStallTraces } = await import("../src/analysis/pg-waits.js");
  const { mkdtempSync, writeFileSync, mkdirSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const root = mkdtempSync(join(tmpdir(), "stall-tr-"));
  const a = join(root, "a");
  const b = join(root, "b");
  mkdirSync(a);
  mkdirSync(b);
  assert.equal(readStallTraces([a, b]), null);
  const st = (pid: number, ns: number, off: number | null) => ({ pid, startNs: 0, endNs: ns, waiters: 1, stallNs: ns, outNs: off === null ? null : 1, inNs: off === null ? null : 1 + off, offCpuNs: off, viaYield: off !== null });
  writeFileSync(join(a, "stall-trace.json"), JSON.stringify({ runs: [{ run: "001", stalls: [st(1, 5000, 4000), st(1, 9000, null)] }] }));
  const r = readStallTraces([a, b])!;
  assert.deepEqual([r.summary.stalls, r.summary.matched, r.summary.viaYield, r.summary.maxStallNs, r.summary.medianOffCpuNs], [2, 1, 1, 9000, 4000]);
  writeFileSync(join(b, "stall-trace.json"), JSON.stringify({ stalls: [] }));
  assert.throws(() => readStallTraces([a, b]), /b\/stall-trace\.json: expected \{"runs"/);
});
