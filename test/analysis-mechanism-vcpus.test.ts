// Notebook 07's vCPU table (issue 26 item 7): per record and mode, the main cell's holder
// preemptions, in-kernel share (Wilson), holds per run, guest idle and the host's load at the start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAtStartOf, vcpuRecords, vcpuRows, vcpuSentence, vcpuTable } from "../src/analysis/mechanism-vcpus.js";
import { repoRoot } from "../src/util/paths.js";

const base = { kernelRelease: "7.2.13", accel: "tcg", grants: null, faultsUnderLock: 0, throughputPerS: 0, hogWorkPerS: 0, waitP99Ns: null, lostEvents: 0, deschedHolds: 0, returnFault: 0, returnSyscall: 0, voluntary: 0, unclassified: 0, covered: 0 };

test("vcpuRows: only 4 KB, extension-off runs; pooled counts per mode; idle range; the table and the sentence", () => {
  const rows = [
    { ...base, run: "001", mode: "full", pages: "4k", extension: "off", holds: 1000, kernelFault: 3, kernelOther: 1, returnInterrupt: 4, idlePct: 80 },
    { ...base, run: "002", mode: "full", pages: "4k", extension: "off", holds: 3000, kernelFault: 1, kernelOther: 0, returnInterrupt: 7, idlePct: 90 },
    { ...base, run: "003", mode: "full", pages: "hugetlb", extension: "off", holds: 5000, kernelFault: 50, kernelOther: 0, returnInterrupt: 0, idlePct: 10 },
    { ...base, run: "004", mode: "lazy", pages: "4k", extension: "on", holds: 5000, kernelFault: 50, kernelOther: 0, returnInterrupt: 0, idlePct: 10 },
  ];
  const v = vcpuRows("mechanism-micro/X", 4, "tcg", rows, 22.5);
  assert.equal(v.length, 1, "lazy has no 4k/off run");
  assert.equal(v[0]!.preemptions, 16);
  assert.equal(v[0]!.inKernel, 5);
  assert.ok(Math.abs(v[0]!.share.mean - 5 / 16) < 1e-12);
  assert.equal(v[0]!.holdsPerRun, 2000);
  assert.deepEqual([v[0]!.idleMin, v[0]!.idleMax], [80, 90]);
  const t = vcpuTable(v)[0]!;
  assert.equal(t.accel, "plain TCG");
  assert.equal(t["in kernel (95 %)"], `31 % (${(100 * v[0]!.share.lo).toFixed(0)} %–${(100 * v[0]!.share.hi).toFixed(0)} %), 5`);
  assert.equal(t["guest idle"], "80–90 %");
  assert.equal(t["host load at start"], 22.5);
  assert.match(vcpuSentence(v), /^Emulated .*: 4 vCPUs under plain TCG: 16 holder preemptions, in the kernel full 31 % \(\d+ %–\d+ %\), guest idle 80–90 %\.$/);
  assert.match(vcpuSentence([]), /^No multi-vCPU record yet/);
  assert.equal(loadAtStartOf("at the start: load 22.53 14.98 8.11, qemu"), 22.53);
  assert.equal(loadAtStartOf(undefined), null);
});

test("vcpuRecords on the committed records: 2 and 4 vCPUs under icount and plain TCG, both modes", (t) => {
  const v = vcpuRecords(join(repoRoot(), "data", "runs"));
  if (v.length === 0) return t.skip("no mechanism-micro VM record in this checkout");
  const kinds = new Set(v.map((r) => `${r.cpus} ${r.accel}`));
  for (const k of ["2 tcg-icount", "2 tcg", "4 tcg-icount", "4 tcg"]) assert.ok(kinds.has(k), `${k} missing: ${[...kinds].join(", ")}`);
  for (const r of v) assert.ok(r.preemptions > 0 && r.inKernel <= r.preemptions, JSON.stringify(r));
});
