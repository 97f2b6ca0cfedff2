// Issue 26 item 2, end to end (skipped unless SLICELAB_E2E=1): the known cases in one short boot
// each of the cached 7.2 kernel under instruction-counted TCG, with --attribute. Functional
// assertions only (emulated: icount).
//  1. a holder inside a long syscall (--syscall-in-cs, pre-faulted pages) under full: its
//     in-kernel preemptions are kernel-other (not a fault), and the requests were made in the syscall;
//  2. a section with no fault and no syscall (pre-faulted, no --syscall-in-cs): no in-kernel preemption;
//  3. a long fault (a 2 MB shmem THP first touch) under lazy with NO_HRTICK: an in-fault preemption
//     whose request is sched_tick's escalation of a lazy request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cachedKernel } from "../src/kernel/ensure.js";
import { runMechanismInVm, type MechanismRow } from "../src/drivers/mechanism/index.js";

const enabled = process.env.SLICELAB_E2E === "1";
const kernel = enabled ? cachedKernel() : undefined;
const skip = !enabled ? "set SLICELAB_E2E=1 (npm run test:e2e) to run the VM path" : !kernel ? "no cached slice-ext+vm kernel (slicelab kernel build)" : false;

const kernelCount = (r: MechanismRow) => r.kernelFault + r.kernelOther;

async function one(o: Partial<Parameters<typeof runMechanismInVm>[0]>): Promise<MechanismRow[]> {
  const r = await runMechanismInVm({
    kernel: kernel!.bzImage, accel: "tcg-icount", blocks: 1, extensions: ["off"], durationS: 0.3, faultEvery: 8, regionMiB: 96, attribute: true,
    rawDir: mkdtempSync(join(tmpdir(), "mech-known-")), ...o,
  });
  assert.deepEqual(r.failed, [], JSON.stringify(r.guest));
  for (const row of r.rows) assert.ok(row.attribution && row.attribution.requests > 0, `run ${row.run}: requests traced`);
  return r.rows;
}

test("known case 1: a holder in a long syscall under full is preempted in the kernel outside any fault", { skip, timeout: 1800_000 }, async () => {
  const [row] = await one({ modes: ["full"], pages: ["4k-prefault"], extraMicroArgs: ["--syscall-in-cs", "262144"] });
  assert.ok(row!.kernelOther > 0, JSON.stringify(row));
  assert.equal(row!.kernelFault, 0);
  assert.ok(row!.attribution!.where.inKernel.syscall > 0);
});

test("known case 2: no fault and no syscall in the section: every holder preemption is at the return", { skip, timeout: 1800_000 }, async () => {
  const rows = await one({ modes: ["full", "lazy"], pages: ["4k-prefault"] });
  for (const row of rows) {
    assert.equal(kernelCount(row), 0, `run ${row.run} (${row.mode})`);
    assert.ok(row.returnInterrupt > 0, `run ${row.run} (${row.mode})`);
  }
});

test("known case 3: a 2 MB first touch under lazy without the hrtick: sched_tick escalates the lazy request inside the fault", { skip, timeout: 1800_000 }, async () => {
  const [row] = await one({ modes: ["lazy"], pages: ["thp"], schedFeatures: ["NO_HRTICK"] });
  assert.match(row!.attribution!.schedFeatures ?? "", /NO_HRTICK/);
  assert.ok(row!.attribution!.causes.inKernel["tick-escalation"] > 0, JSON.stringify(row!.attribution));
  assert.equal(row!.attribution!.causes.inKernel.hrtick, 0);
});
