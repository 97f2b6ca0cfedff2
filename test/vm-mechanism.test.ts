// The mechanism factorial's path end to end (skipped unless SLICELAB_E2E=1): one short boot of the
// cached 7.2 kernel under instruction-counted TCG, lazy and full switched at run time, 4 KB pages,
// extension off and on; every run must give a row whose counts are consistent with the trace.
// Functional assertions only (TCG).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cachedKernel } from "../src/kernel/ensure.js";
import { runMechanismInVm } from "../src/drivers/mechanism/index.js";
import { summariseCells } from "../src/analysis/mechanism.js";

const enabled = process.env.SLICELAB_E2E === "1";
const kernel = enabled ? cachedKernel() : undefined;
const skip = !enabled
  ? "set SLICELAB_E2E=1 (npm run test:e2e) to run the VM path"
  : !kernel
    ? "no cached slice-ext+vm kernel (slicelab kernel build)"
    : false;

test("mechanism run under tcg-icount: rows per run, mode switched at run time, every worker switch classified", { skip, timeout: 1800_000 }, async () => {
  const raw = mkdtempSync(join(tmpdir(), "mech-e2e-"));
  const r = await runMechanismInVm({
    kernel: kernel!.bzImage,
    accel: "tcg-icount",
    blocks: 1,
    modes: ["full", "lazy"],
    pages: ["4k"],
    extensions: ["off", "on"],
    durationS: 0.3,
    rawDir: raw,
  });
  assert.equal(r.vm.accel, "tcg-icount");
  assert.equal(r.vm.exitStatus, 0, JSON.stringify(r.guest));
  assert.deepEqual(r.failed, []);
  assert.equal(r.rows.length, 4);
  assert.deepEqual(readdirSync(join(raw, "runs")).sort(), ["001", "002", "003", "004"]);
  for (const row of r.rows) {
    assert.equal(row.modeActive, row.mode, "debugfs sched/preempt switched the mode");
    assert.match(row.kernelRelease, /^7\./);
    assert.ok(row.holds > 1000, `run ${row.run}: ${row.holds} holds`);
    assert.ok(row.freshPagesTouched > 0);
    assert.ok(row.faultsUnderLock >= row.freshPagesTouched, "each first touch is a fault");
    assert.equal(row.lostEvents, 0);
    assert.equal(row.switchesWithoutStack, 0, "the stacktrace trigger fired on every switch away from a worker");
    const classes = row.kernelFault + row.kernelOther + row.returnFault + row.returnInterrupt + row.returnSyscall + row.voluntary + row.unclassified;
    assert.equal(classes, row.deschedHolds);
    assert.equal(row.preemptMarkDisagree, 0, "R+ (preempted) agrees with the stack's in-kernel frames");
    if (row.extension === "off") assert.equal(row.covered, 0);
    else assert.ok(row.grants !== null && row.grants >= row.covered, "every covered hold had a kernel grant");
  }
  const cells = summariseCells(r.rows);
  assert.equal(cells.length, 4);
});
