/**
 * The cost of v3's yield after an observed kernel clear (issue 27 item 1):
 * hook-bench's clear pattern makes exactly one real rseq_slice_yield per
 * clear with v3 and none with v2; the analysis takes per-round differences;
 * bad lines are errors naming the file.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { analyseClearCost, parseClearLine } from "../src/postgres/clear-cost.js";
import { measureClearCost } from "../src/drivers/hook-cost/measure.js";
import { v2PatchFile } from "../src/postgres/harness.js";
import { patchFiles } from "../src/postgres/patch.js";
import { fetchDebianSource } from "../src/postgres/source.js";
import { ParseError, UserError } from "../src/util/errors.js";

test("parseClearLine and analyseClearCost: per-round real − fake; a missing arm or a bad line is an error", () => {
  assert.deepEqual(parseClearLine("all clear 1000 412.5000 4 real 1.0000\n"), { iterations: 1000, ns: 412.5, syscalls: "real", realCalls: 1 });
  assert.throws(() => parseClearLine("all spin 1000 4.0 2", "bench out"), (e: unknown) => e instanceof ParseError && /bench out:1/.test(e.message));
  const r = analyseClearCost([
    { round: 1, syscalls: "fake", nsPerIteration: 10, realCallsPerIteration: 0 },
    { round: 1, syscalls: "real", nsPerIteration: 110, realCallsPerIteration: 1 },
    { round: 2, syscalls: "real", nsPerIteration: 130, realCallsPerIteration: 1 },
    { round: 2, syscalls: "fake", nsPerIteration: 10, realCallsPerIteration: 0 },
  ]);
  assert.equal(r.mean, 110);
  assert.equal(r.n, 2);
  assert.ok(r.ci[0] < 110 && r.ci[1] > 110);
  assert.throws(() => analyseClearCost([{ round: 1, syscalls: "fake", nsPerIteration: 1, realCallsPerIteration: 0 }]), UserError);
});

test("clear-cost: v3 makes one real system call per observed clear, v2 none (a short run; the figure itself is a recorded run's)", async () => {
  const src = await fetchDebianSource("18");
  const v3 = await measureClearCost(src.dir, "18", patchFiles("18")[0]!, { rounds: 2, iterations: 20000 });
  assert.equal(v3.realCallsPerClear, 1);
  assert.equal(v3.samples.length, 4);
  assert.equal(v3.nsPerClear.n, 2);
  const v2 = await measureClearCost(src.dir, "18", v2PatchFile("18"), { rounds: 2, iterations: 20000 });
  assert.equal(v2.realCallsPerClear, 0, "v2 re-arms after a clear without a system call (the stale work stays)");
  await assert.rejects(measureClearCost(src.dir, "18", patchFiles("18")[0]!, { rounds: 1, iterations: 10 }), /at least 2/);
});

test("a v3 counter delta is read under its renamed columns by the collect tables and lock-ops (no silent zeros)", async () => {
  const { pgCounterColumns } = await import("../src/collect/tables.js");
  const { countersOfRow } = await import("../src/postgres/lock-ops.js");
  const v3 = { acquires_spinlock: 5, holds_spinlock: 4, rearmed: 2, granted_yielded: 1, granted_seen_ended: 3, cleared_without_grant_seen: 7, clear_yields: 9, holds_reset: 0 };
  const cols = pgCounterColumns(v3);
  assert.equal(cols.pgGrantedExpired, 3);
  assert.equal(cols.pgDroppedWithoutGrant, 7);
  // a v2 row: its names are read into v3's keys; v3-only columns stay absent
  const row = countersOfRow({ granted_expired: 2, dropped_without_grant: 6, rearmed: 1 });
  assert.equal(row.granted_seen_ended, 2);
  assert.equal(row.cleared_without_grant_seen, 6);
  assert.equal(row.clear_yields, undefined);
  assert.equal(countersOfRow(v3).clear_yields, 9);
});
