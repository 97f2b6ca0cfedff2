/** The sentences notebook 03 prints about the patch-v2 records come from the records' numbers. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSentence, harnessSentence, hookCostLoadSentence, hookCostSentence, latestRecord, readCheckRecords, readVmCheckRecords, vmCheckSentence } from "../src/postgres/v2-report.js";
import type { VmCheckRecord } from "../src/postgres/check-vm.js";
import type { CheckRecord } from "../src/postgres/check.js";
import type { HarnessRun } from "../src/postgres/harness.js";
import type { HookCostRecord } from "../src/postgres/hook-cost.js";

test("harness sentence counts v1 failures that v2 fixes", () => {
  const mk = (st: ("PASS" | "FAIL")[]): HarnessRun => ({ patch: "p", version: "v2", glue: {}, scenarios: st.map((s, i) => ({ name: `s${i}`, status: s, why: "" })), passed: st.filter((s) => s === "PASS").length, failed: st.filter((s) => s === "FAIL").length, skipped: 0 });
  assert.equal(harnessSentence(mk(["PASS", "FAIL", "FAIL"]), mk(["PASS", "PASS", "PASS"])), "The hook harness runs 3 scenarios of what the kernel does to slice_ctrl: 2 fail on patch v1 and none on v2 (2 of v1's failures pass on v2; 1 hold on both).");
  assert.match(harnessSentence(mk(["FAIL", "FAIL"]), mk(["PASS", "FAIL"])), /and 1 on v2 \(1 of v1's failures/);
});

test("make-check sentence says FAILED when a test failed; records are read by stamp", () => {
  const r = { kind: "slicelab-pg-check", version: "18.6", patch: { hash: "abc" }, setting: "all", host: { kernel: "6.18", cpus: 2, load1Before: 1, load1After: 2 }, exitCode: 0, regress: { verdict: "All 3 tests passed.", total: 3, failed: 0, passed: 3 }, checkSeconds: 10, buildSeconds: 5, serverSaid: null } as unknown as CheckRecord;
  assert.match(checkSentence(r), /make check passed \(All 3 tests passed\.\) in 10 s/);
  assert.match(checkSentence({ ...r, exitCode: 2 }), /make check FAILED/);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-v2rep-"));
  try {
    for (const [stamp, major] of [["20261201T180000Z", "pg18"], ["20261201T190000Z", "pg15"], ["junk", "pg18"]] as const) {
      mkdirSync(join(dir, "pg-check", stamp, major), { recursive: true });
      writeFileSync(join(dir, "pg-check", stamp, major, "summary.json"), JSON.stringify({ ...r, version: major }));
    }
    assert.deepEqual(readCheckRecords(dir).map((x) => x.version), ["pg18", "pg15"]);
    // a VM record beside them is read only as one
    mkdirSync(join(dir, "pg-check", "20261201T190000Z", "vm-pg18"), { recursive: true });
    writeFileSync(join(dir, "pg-check", "20261201T190000Z", "vm-pg18", "summary.json"), JSON.stringify({ kind: "slicelab-pg-check-vm", version: "vm" }));
    assert.deepEqual(readCheckRecords(dir).map((x) => x.version), ["pg18", "pg15"]);
    assert.deepEqual(readVmCheckRecords(dir).map((x) => x.version), ["vm"]);
    mkdirSync(join(dir, "patch-cost", "20261201T180000Z"), { recursive: true });
    mkdirSync(join(dir, "patch-cost", "20261201T190000Z"), { recursive: true });
    writeFileSync(join(dir, "patch-cost", "20261201T180000Z", "summary.json"), JSON.stringify({ n: 1 }));
    assert.equal(latestRecord<{ n: number }>(dir, "patch-cost")?.n, 1, "a stamp without summary.json is skipped");
    assert.equal(latestRecord(dir, "nothing"), undefined);
    // records of another kind in the same study directory are passed over when a kind is asked for
    assert.equal(latestRecord<{ n: number }>(dir, "patch-cost", "no-such-kind"), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("hook-cost sentence flags intervals entirely below zero as layout effects", () => {
  const iv = (m: number, lo: number, hi: number) => ({ mean: m, ci: [lo, hi] as [number, number], n: 10, perIteration: { mean: m, ci: [lo, hi] as [number, number], n: 10 } });
  const rec = { rounds: 10, host: { load1Before: 1, load1After: 1, cpus: 2 }, addedNs: { spin: { off: iv(-3, -5, -1), all: iv(5, 3, 7) }, nested: { off: iv(1, 0, 2), all: iv(3, 2, 4) } } } as unknown as HookCostRecord;
  assert.match(hookCostSentence(rec), /code layout/);
  const ok = { ...rec, addedNs: { ...rec.addedNs, spin: { off: iv(0.1, -0.5, 0.7), all: iv(5, 3, 7) } } } as unknown as HookCostRecord;
  assert.doesNotMatch(hookCostSentence(ok), /code layout/);
});

test("hook-cost load sentence: loaded or not follows the higher load per CPU, with the unhooked iteration's time", () => {
  const r = (before: number, after: number) => ({ host: { load1Before: before, load1After: after, cpus: 2 }, noneNs: { spin: { mean: 12.07 } } }) as unknown as HookCostRecord;
  assert.match(hookCostLoadSentence(r(21.9, 22.4)), /loose, and a rerun on a quiet machine/);
  assert.match(hookCostLoadSentence(r(21.9, 22.4)), /11\.20 per CPU/);
  assert.match(hookCostLoadSentence(r(1.63, 2.32)), /had a CPU most of the time/);
  assert.match(hookCostLoadSentence(r(1.63, 2.32)), /1\.16 per CPU; the unhooked spinlock iteration took 12\.1 ns/);
  assert.match(hookCostLoadSentence(r(1, 3.2)), /loose/, "the end's load counts too");
});

test("VM make-check sentence: scope, TCG caveat, probe, server line and the kernel's grants come from the record", () => {
  const r = {
    kind: "slicelab-pg-check-vm", version: "18.6", patch: { hash: "e19f5bec8d7b", version: "v2" }, setting: "all",
    schedule: { groups: 2, groupsInSchedule: 28, tests: 21, widest: 20 }, checkSeconds: 312.4, exitCode: 0, timedOut: false,
    vm: { accel: "tcg", cpus: 2 }, kernel: { version: "7.2.13", release: "7.2.13", preempt: "none voluntary (full) lazy" },
    probe: { sliceExtensionUsable: true }, serverSaid: "LOG: time slice extensions enabled, using its own rseq area",
    rseqStatsDelta: { sgrant: 57, syield: 50, sexpir: 3 }, regress: { verdict: "All 21 tests passed.", total: 21, failed: 0, passed: 21 },
  } as unknown as VmCheckRecord;
  const s = vmCheckSentence(r);
  assert.match(s, /the first 2 of 28 groups of the parallel schedule \(21 tests, up to 20 at once\) passed \(All 21 tests passed\.\) in 312\.4 s of guest time \(TCG/);
  assert.match(s, /preempt full\)/);
  assert.match(s, /extension usable and the server logged "LOG: time slice extensions enabled/);
  assert.match(s, /the kernel made 57 grants while it ran \(rseq\/stats sgrant, 50 yields, 3 expiries\)/);
  const bad = vmCheckSentence({ ...r, exitCode: null, timedOut: true, regress: null, probe: { sliceExtensionUsable: false }, rseqStatsDelta: null, schedule: { ...r.schedule, groups: 28 } } as unknown as VmCheckRecord);
  assert.match(bad, /the whole parallel schedule \(21 tests\) did not finish \(timed out\) \(no verdict\)/);
  assert.match(bad, /NOT usable/);
  assert.match(bad, /rseq\/stats was not readable/);
});

import { seriesCellCounters } from "../src/postgres/v2-report.js";
import { repoRoot } from "../src/util/paths.js";

test("seriesCellCounters on the committed v2 mode × extension record: off cells request nothing, all cells count v2 holds", () => {
  const cells = seriesCellCounters(join(repoRoot(), "data/runs/dipietro-2026/20261201T223016Z"));
  assert.equal(cells.length, 4);
  for (const c of cells) {
    assert.equal(c.patch, "v2", c.cell);
    assert.ok(c.runs >= 2 && c.meanTps > 0, c.cell);
    if (c.cell.endsWith("extension-off")) assert.equal(c.counters.pgHolds, 0, c.cell);
    else {
      assert.ok(c.counters.pgHolds! > 0, c.cell);
      // every outermost hold is also an acquire
      assert.ok(c.counters.pgAcquires! >= c.counters.pgHolds!, c.cell);
    }
  }
});
