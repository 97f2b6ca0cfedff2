// The VM lock-statistics analysis of notebook 06 (src/analysis/lockstat-vm.ts), on the real
// /proc/lock_stat capture from the 7.2.13 LOCK_STAT kernel and on small hand-made snapshots.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseProcLockStat } from "../src/parse/proc-lock-stat.js";
import { topLockClasses, type LockStatRunRow } from "../src/collect/tables.js";
import {
  acquisitionsOnlyGrow,
  captureSummary,
  captureWaitSentence,
  kernelPartOf,
  lahrColumns,
  rangesDisjoint,
  snapshotSentence,
  snapshots,
  waitShareRanges,
} from "../src/analysis/lockstat-vm.js";
import { repoRoot } from "../src/util/paths.js";

const fixture = join(repoRoot(), "test/fixtures/proc-lock-stat/vm-7.2.13-micro.txt");

test("captureSummary of the real capture: 182 classes, 13 contended, wait ranked", () => {
  const s = captureSummary(topLockClasses(parseProcLockStat(readFileSync(fixture, "utf8"), fixture), Infinity));
  assert.equal(s.classes, 182);
  assert.equal(s.contended, 13);
  assert.equal(s.byContention[0]!.name, "&rcu_state.gp_wq");
  assert.equal(s.byWait.length, 13);
  for (let i = 1; i < s.byWait.length; i++) assert.ok(s.byWait[i - 1]!.waittimeTotalUs >= s.byWait[i]!.waittimeTotalUs);
  assert.equal(s.contentions, s.byContention.reduce((a, x) => a + x.contentions, 0));
  const sentence = captureWaitSentence(s);
  assert.match(sentence, /^User-space locks such as the micro-benchmark's spinlock are not kernel lock classes and cannot appear\. The most wait went to `&rcu_state\.gp_wq` \(\d+\.\d %, wait queues\), /);
});

test("kernelPartOf names the part only where the name or the contention point says so", () => {
  assert.equal(kernelPartOf({ name: "&chan->lock", topPoint: "req_done+0x38/0xc0" }), "the 9p transport");
  assert.equal(kernelPartOf({ name: "&x->lock", topPoint: "p9_client_rpc+0x1" }), "the 9p transport");
  assert.equal(kernelPartOf({ name: "&rq->__lock", topPoint: "raw_spin_rq_lock_nested+0x1d/0x30" }), "the run-queue lock");
  assert.equal(kernelPartOf({ name: "&pool->lock", topPoint: "worker_thread+0xd0/0x360" }), "workqueues");
  assert.equal(kernelPartOf({ name: "&req->wq", topPoint: "finish_wait+0x46/0x90" }), "wait queues");
  assert.equal(kernelPartOf({ name: "&mm->mmap_lock", topPoint: "lock_mm_and_find_vma+0x1" }), null);
});

test("captureWaitSentence follows the data: no 9p transport when none of the top classes is one", () => {
  const row = (name: string, wait: number, topPoint: string | null) => ({ name, contentions: 1, acquisitions: 10, waittimeTotalUs: wait, holdtimeTotalUs: 1, topPoint });
  const s = captureSummary([row("&mm->mmap_lock", 30, "x+0x1"), row("&rq->__lock", 10, null)]);
  assert.equal(
    captureWaitSentence(s),
    "User-space locks such as the micro-benchmark's spinlock are not kernel lock classes and cannot appear. The most wait went to `&mm->mmap_lock` (75.0 %), `&rq->__lock` (25.0 %, the run-queue lock): the run-queue lock.",
  );
  const nine = captureSummary([row("&chan->lock", 90, "req_done+0x38/0xc0"), row("&rq->__lock", 10, null)]);
  assert.match(captureWaitSentence(nine), /`&chan->lock` \(90\.0 %, the 9p transport\).*: the 9p transport, the run-queue lock\.$/);
  assert.equal(captureWaitSentence(captureSummary([{ ...row("a", 0, null), contentions: 0 }])), "No class was contended in this capture.");
});

const snapRow = (boot: string, id: string, name: string, o: Partial<LockStatRunRow>): LockStatRunRow & { boot: string } => ({
  boot, id, run: 1, variant: "on", warmup: false, workload: "w", seconds: 10, name, contentions: 0, acquisitions: 0, waittimeTotalUs: 0, holdtimeTotalUs: 0, topPoint: null, ...o,
});

test("snapshots, wait shares per boot, and the sentence from them", () => {
  const rows = [
    snapRow("b1", "001", "&rq->__lock", { contentions: 5, acquisitions: 100, waittimeTotalUs: 200_000, holdtimeTotalUs: 1_000_000 }),
    snapRow("b1", "001", "&x", { contentions: 1, acquisitions: 50, waittimeTotalUs: 0 }),
    snapRow("b1", "002", "&rq->__lock", { contentions: 2, acquisitions: 40, waittimeTotalUs: 400_000, holdtimeTotalUs: 500_000 }),
    snapRow("b2", "001", "&rq->__lock", { contentions: 9, acquisitions: 90, waittimeTotalUs: 3_000_000, holdtimeTotalUs: 0 }),
  ];
  const s = snapshots(rows);
  assert.deepEqual(s.map((x) => [x.key, x.classes, x.contentions, x.acquisitions, x.waitUs]), [
    ["b1/001/w", 2, 6, 150, 200_000],
    ["b1/002/w", 1, 2, 40, 400_000],
    ["b2/001/w", 1, 9, 90, 3_000_000],
  ]);
  // 0.2 s of wait over 10 s × 2 vCPUs = 1 %; 0.4 s = 2 %; 3 s = 15 %.
  const ranges = waitShareRanges(s, 2);
  assert.deepEqual(ranges, [{ boot: "b1", min: 1, max: 2 }, { boot: "b2", min: 15, max: 15 }]);
  assert.equal(rangesDisjoint(ranges), true);
  assert.equal(rangesDisjoint([{ min: 1, max: 5 }, { min: 4, max: 6 }]), false);
  assert.equal(acquisitionsOnlyGrow([{ boot: "b1", acquisitions: 150 }, { boot: "b1", acquisitions: 40 }, { boot: "b2", acquisitions: 90 }]), false);
  assert.equal(acquisitionsOnlyGrow([{ boot: "b1", acquisitions: 10 }, { boot: "b1", acquisitions: 40 }]), true);
  const text = snapshotSentence(s, ranges, false, 2);
  assert.match(text, /^3 snapshots from the lockstat collector; the most contended class was `&rq->__lock` \(3 of 3\)\. The acquisitions do not only grow/);
  assert.match(text, /b1 1\.00–2\.00 %, b2 15\.00–15\.00 %\. The boots' ranges do not overlap: the share differs more between boots than between the workloads of one boot\.$/);
  assert.match(snapshotSentence(s, [{ boot: "b1", min: 1, max: 5 }, { boot: "b2", min: 4, max: 6 }], true, 2), /check that the collector cleared the statistics\. .*The boots' ranges overlap\.$/);
  // Lahr's columns: hold 1.5 s over 20 s of snapshots = 7.5 % UTIL, 7 of 140 = 5 % CON.
  const cols = lahrColumns(rows.filter((r) => r.boot === "b1"));
  assert.deepEqual(cols[0], { lock: "&rq->__lock", util: 7.5, con: 5 });
  assert.deepEqual(cols[1], { lock: "&x", util: 0, con: 2 });
});
