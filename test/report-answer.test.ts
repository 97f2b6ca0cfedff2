import { test } from "node:test";
import assert from "node:assert/strict";
import { computeAnswer, fmtCompact, isRealTimeExtensionRecord, loadAnswerInputs, type AnswerInputs } from "../src/report/answer.js";
import type { MechRecordGroup } from "../src/analysis/mechanism-records.js";
import { repoRoot } from "../src/util/paths.js";

function row(mode: string, pages: string, extension: string, i: number, o: Record<string, number>) {
  return {
    run: `r/${mode}-${pages}-${extension}-${i}`, mode, pages, extension, kernelRelease: "7.2.13", accel: "tcg-icount", holds: 10000,
    kernelFault: 0, kernelOther: 0, returnFault: 0, returnInterrupt: 0, returnSyscall: 0, voluntary: 0, unclassified: 0,
    covered: 0, grants: 0, faultsUnderLock: 0, throughputPerS: 1000, hogWorkPerS: 10, waitP99Ns: 1, lostEvents: 0, deschedHolds: 0, ...o,
  };
}
function group(rows: any[]): MechRecordGroup {
  return { name: "a + b", names: ["a", "b"], paths: ["data/runs/mechanism-2026/a", "data/runs/mechanism-2026/b"], kind: "micro-vm", kernelRelease: "7.2.13", accel: "tcg-icount", cpus: 1, prov: { plan: [], failed: [] }, rows };
}
const rows = [0, 1, 2].flatMap((i) => [
  // off: 3 in kernel (all in a fault) + 7 at the return per run → 30 %
  row("full", "4k", "off", i, { kernelFault: 3, returnInterrupt: 7, faultsUnderLock: 1250 }),
  // on: 1 in kernel, 1 at the return, 8 covered → covered 80 %
  row("full", "4k", "on", i, { kernelFault: 1, returnInterrupt: 1, covered: 8, faultsUnderLock: 1250 }),
  row("full", "hugetlb", "off", i, { faultsUnderLock: 3 }),
]);

test("computeAnswer: the in-kernel share, what the extension covers, what huge pages do, from the rows; emulated badge and what is missing", () => {
  const inp: AnswerInputs = {
    micro: group(rows), pg: null, recordsDir: "data/runs/mechanism-2026",
    throughput: { record: "data/runs/x", emulated: true, where: "QEMU TCG, 2 vCPUs", effects: [{ mode: "full", differencePct: 0.44, minimumDetectableEffectPct: 43.9 }] },
    realTime: [],
  };
  const a = computeAnswer(inp);
  assert.match(a.sentences[0]!, /^Inside the kernel: with 4 KB pages and the extension off, 30 % under full \(9 of 30\) of the lock-holder preemptions happened inside the kernel, 100 % of those in the page fault\.$/);
  assert.match(a.sentences[1]!, /grants covered 80 % \(full\)/);
  assert.match(a.sentences[1]!, /at the return to user space changed by −0\.60 \(full\)/);
  assert.match(a.sentences[2]!, /huge pages took faults under the lock 125\.0 → 0\.30 \(full\)/);
  assert.match(a.sentences.at(-1)!, /^Throughput: no repair shown — the only throughput runs are emulated \(QEMU TCG, 2 vCPUs\).*\+0\.4 % \(full\).*smaller than ±44 % \(full\)\.$/);
  assert.ok(!a.sentences.join(" ").includes("p ="), "no p-value on emulated throughput");
  assert.equal(a.badge.kind, "emulated");
  assert.match(a.badge.text, /TCG with instruction-counted time \(icount\), 1 vCPU, Linux 7\.2\.13/);
  assert.ok(a.missing.some((m) => /no 7\.x run in real time yet/.test(m)), a.missing.join("; "));
  assert.ok(a.missing.some((m) => /no PostgreSQL mechanism record/.test(m)));
  assert.deepEqual(a.records, ["data/runs/mechanism-2026/a", "data/runs/mechanism-2026/b", "data/runs/x"]);
  // A real-time record flips the badge and drops the "missing" line.
  const b = computeAnswer({ ...inp, realTime: ["data/runs/dipietro-2026/20270101T000000Z"] });
  assert.equal(b.badge.kind, "real time");
  assert.ok(!b.missing.some((m) => /real time/.test(m)));
});

test("isRealTimeExtensionRecord: a 7.x host or KVM guest with the extension; not TCG, not a failed KVM probe, not 6.x", () => {
  const rec = (environment: any, release: string, cpuModel: string, ext = "available (ok 0)") =>
    ({ environment, kernel: { release, sliceExtension: ext }, host: { cpuModel } }) as any;
  assert.equal(isRealTimeExtensionRecord(rec({ kind: "host", detail: "bare metal" }, "7.2.13", "AMD EPYC 9654")), true);
  assert.equal(isRealTimeExtensionRecord(rec({ kind: "vm", detail: "the kit's VM: QEMU KVM (--accel kvm), 8 vCPUs" }, "7.2.13", "AMD EPYC")), true);
  assert.equal(isRealTimeExtensionRecord(rec({ kind: "vm", detail: "the kit's VM: QEMU TCG (KVM probe failed: QEMU refused KVM)" }, "7.2.13", "QEMU TCG CPU version 2.5+")), false);
  assert.equal(isRealTimeExtensionRecord(rec({ kind: "host", detail: "on the host slicelab-vm" }, "7.2.13", "QEMU TCG CPU version 2.5+")), false);
  assert.equal(isRealTimeExtensionRecord(rec({ kind: "host", detail: "this machine" }, "6.18.0", "AMD EPYC")), false);
  assert.equal(isRealTimeExtensionRecord(rec({ kind: "host", detail: "this machine" }, "7.2.13", "AMD EPYC", "unavailable: EINVAL")), false);
});

test("fmtCompact: degenerate bounds dropped, n shown without an interval", () => {
  assert.equal(fmtCompact({ mean: 1, lo: 1, hi: 1, n: 5 }, 1), "1.0");
  assert.equal(fmtCompact({ mean: 0.28, lo: 0.24, hi: 0.32, n: 5 }, 0, 100), "28 (24–32)");
  assert.equal(fmtCompact({ mean: 2, lo: NaN, hi: NaN, n: 2 }, 2), "2.00 (n = 2)");
});

test("the answer from this repository's records: numbers with intervals, emulated, and no 7.x real-time run yet", async () => {
  const a = computeAnswer(await loadAnswerInputs(repoRoot()));
  assert.match(a.sentences[0]!, /^Inside the kernel: .*\d+ \(\d+–\d+\) % under full/);
  assert.ok(a.sentences.some((s) => /^The extension: with it on, grants covered \d+ \(\d+–\d+\) %/.test(s)));
  assert.ok(a.sentences.some((s) => /^Throughput: /.test(s)));
  assert.equal(a.badge.kind, "emulated", "no record of this repository ran 7.x in real time");
  assert.ok(a.records.length >= 3);
});
