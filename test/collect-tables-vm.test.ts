// Tidy tables of the VM views of notebook 06 (src/collect/tables.ts): lock_stat top classes from
// the kernel documentation's capture, and the collected VM series committed under data/runs/sangappa-2024-locktable/20261130T075623Z.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { parseProcLockStat } from "../src/parse/proc-lock-stat.js";
import { collectedVmSeriesDirs, ctxswRows, lockStatRunRows, pgCounterCells, pgCounterColumns, pgRequestsWritten, rseqSliceRows, topLockClasses, type RseqSliceRow } from "../src/collect/tables.js";

const root = repoRoot();

test("topLockClasses: the documentation's capture, read and write rows of a class summed", () => {
  const ls = parseProcLockStat(readFileSync(join(root, "test/fixtures/proc-lock-stat/doc-example.txt"), "utf8"), "doc-example.txt");
  const top = topLockClasses(ls, 3);
  assert.deepEqual(top.map((c) => [c.name, c.contentions]), [["&rq->lock", 13128], ["&rq->lock/1", 11488], ["&mm->mmap_sem", 184]]);
  assert.equal(top[0]!.topPoint, "task_rq_lock+0x43/0x75");
  assert.equal(top[1]!.topPoint, "double_rq_lock+0x4f/0x54");
  assert.ok(Math.abs(top[2]!.waittimeTotalUs - (16371.53 + 325629.52)) < 1e-6);
  assert.equal(topLockClasses(ls).length, 4);
});

test("pgCounterColumns: v1's setting counters and v2's function columns, each named by patch version", () => {
  const v1 = pgCounterColumns({ requests: 6600, spinlock: 10, lwlock: 6590, grants: 145, yields: 140, revoked: 6500 });
  assert.deepEqual([v1.pgPatch, v1.pgRequests, v1.pgGrants, v1.pgYields, v1.pgRevoked, v1.pgHolds, v1.pgGrantedYielded], ["v1", 6600, 145, 140, 6500, null, null]);
  const v2 = pgCounterColumns({
    acquires_spinlock: 5, acquires_buffer_header: 7, acquires_wait_list: 11, acquires_lwlock: 13,
    holds_spinlock: 1, holds_buffer_header: 2, holds_wait_list: 3, holds_lwlock: 4,
    rearmed: 9, granted_yielded: 6, granted_expired: 2, dropped_without_grant: 8,
  });
  assert.deepEqual(
    [v2.pgPatch, v2.pgAcquires, v2.pgHolds, v2.pgRearmed, v2.pgGrantedYielded, v2.pgGrantedExpired, v2.pgDroppedWithoutGrant, v2.pgRequests, v2.pgRevoked],
    ["v2", 36, 10, 9, 6, 2, 8, null, null],
  );
  assert.equal(pgCounterColumns({}).pgPatch, null);
  // the notebook's cells: requests written (v2: holds + re-arms), grants (v2: yielded + expired), yields, lost requests
  const cells = (c: ReturnType<typeof pgCounterColumns>) => pgCounterCells({ ...c } as RseqSliceRow);
  assert.deepEqual(cells(v1), ["v1", 6600, 145, 140, 6500]);
  assert.deepEqual(cells(v2), ["v2", 19, 8, 6, 8]);
  assert.deepEqual(cells(pgCounterColumns(null)), ["-", "-", "-", "-", "-"]);
  assert.equal(pgRequestsWritten(v2), 19);
  assert.equal(pgRequestsWritten(v1), 6600);
  assert.equal(pgCounterColumns(null).pgHolds, null);
});

/** Requests written and grants seen at release, whichever patch version reported them. */
function pgRequestsAndGrants(r: RseqSliceRow): { requests: number | null; grants: number | null } {
  if (r.pgPatch === "v2") return { requests: r.pgHolds! + r.pgRearmed!, grants: r.pgGrantedYielded! + r.pgGrantedExpired! };
  return { requests: r.pgRequests, grants: r.pgGrants };
}

const vmSeries = collectedVmSeriesDirs(join(root, "data/runs"));

test("collected VM series: rseq-stats rows per run and workload, extension off requests nothing", { skip: vmSeries.length === 0 ? "no data/runs/sangappa-2024-locktable/20261130T075623Z/ (a folder per boot, each with its series) committed" : false }, () => {
  for (const dir of vmSeries) {
    const rows = rseqSliceRows(dir);
    assert.ok(rows.length > 0, `${dir}: no rseq-stats output`);
    for (const r of rows) {
      for (const k of ["sgrant", "sexpir", "srevok", "syield", "sabort"] as const) assert.ok(Number.isInteger(r[k]) && r[k] >= 0, `${dir} ${r.id}: ${k} ${r[k]}`);
      // Two independent counters: the kernel (debugfs rseq/stats) grants no more than PostgreSQL
      // (the patch's own counters) requested, and the patch sees no more grants than the kernel made.
      const { requests, grants } = pgRequestsAndGrants(r);
      assert.ok(r.pgPatch !== null && requests !== null && grants !== null, `${dir} ${r.id}: the patch's counters were recorded`);
      assert.ok(r.sgrant <= requests, `${dir} ${r.id} ${r.workload}: kernel grants ${r.sgrant} > PostgreSQL requests ${requests}`);
      assert.ok(grants <= r.sgrant, `${dir} ${r.id} ${r.workload}: PostgreSQL saw ${grants} grants, the kernel made ${r.sgrant}`);
      // every grant ends one way: expired, revoked, yielded or aborted by another syscall; the
      // kernel counts the end when it happens, so a window can hold ends of grants made before it
      if (r.variant === "off") {
        assert.equal(requests, 0, `${dir} ${r.id} ${r.workload}: slice_extension=off made requests`);
        // nothing else in the guest requests extensions: no request, no grant
        assert.equal(r.sgrant, 0, `${dir} ${r.id} ${r.workload}: grants with slice_extension=off`);
      } else if (r.variant === "on") {
        assert.ok(r.sgrant > 0, `${dir} ${r.id} ${r.workload}: no kernel grant with slice_extension=all`);
      }
    }
    const on = rows.filter((r) => r.variant === "on");
    assert.ok(on.some((r) => (pgRequestsAndGrants(r).requests ?? 0) > 0), `${dir}: no run with slice_extension=all requested an extension`);
    const cs = ctxswRows(dir);
    assert.equal(cs.length, rows.length, `${dir}: ctxsw and rseq-stats ran around the same workloads`);
    const kernelTxt = readFileSync(join(dir, "..", "kernel.txt"), "utf8");
    const lock = lockStatRunRows(dir);
    if (/^lock_stat: present/m.test(kernelTxt)) assert.ok(lock.length > 0, `${dir}: lock_stat kernel but no lockstat output`);
    else assert.equal(lock.length, 0);
    assert.ok(existsSync(join(dir, "provenance.json")));
  }
});
