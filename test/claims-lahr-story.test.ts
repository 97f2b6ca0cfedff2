/**
 * One Lahr reading for notebook 06, the ledger and REPRODUCE (issue 28 item 6): notebook 06's account
 * of Spraul's arithmetic comes from the ledger's entries, and the perf-lock capture is read by a parser
 * that names the file and line of what it cannot find.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildLedger, claimValueName, findClaim, kernelLockShare, lahrLostTimeStory, lahrWays, lockStatisticsFindings } from "../src/claims/index.js";
import { machineCpus, readPerfLockCapture, recordSeconds } from "../src/parse/perf-lock-capture.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const ledger = buildLedger();
const close = (a: number, b: number, tol: number, what: string) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

test("lahrLostTimeStory: 1030 s is the 8-way run's wall time; the lost time by the tool's definition and as the rows read", () => {
  const s = lahrLostTimeStory();
  // The values it records are the ledger's, under the ledger's names.
  const known = new Map(ledger.flatMap((e) => Object.entries(e.values).map(([k, v]) => [claimValueName(e.id, k), v] as const)));
  for (const [name, value] of s.values) assert.equal(value, known.get(name), name);
  assert.deepEqual(s.values.map(([n]) => n), [
    "lahr-2001.run-lengths.run-length-s_8way",
    "lahr-2001.run-lengths.cpu-time-s",
    "lahr-2001.spraul-lost-time.tool-lost-s",
    "lahr-2001.spraul-lost-time.lost-per-acquisition-s",
    "lahr-2001.contention-high-lost-small.all-locks-share-of-cpu-pct",
  ]);
  // The old story (issue 28 item 6): "0.7 s … out of 1030 s of CPU time = 0.068 %", "busy 100 % of 129 s × 8 CPUs".
  assert.doesNotMatch(s.text, /0\.068|100 % of 129|1030 s of CPU time =/);
  assert.match(s.text, /gives 1032 s \[1020 s, 1043 s\] \(the once-per-tick timer_bh count: 1026 s\): his 1030 s is the run's wall time, ≈ 8,253 CPU-seconds on 8 CPUs, and ~129 s looks like 1030 \/ 8 = 128\.75/);
  assert.match(s.text, /SPIN × WAIT MEAN = 0\.678 s, the tool's own definition/);
  // 8-way lock rows, by hand: per spin 152659×2.1 + 147365×4.6 + 8829923×… µs; per acquisition 9.5561439 s (claims-threads).
  assert.match(s.text, /9\.56 s per acquisition — 0\.0199% and 0\.116% of the 8,253 CPU-seconds \(0\.93% of the wall time\)/);
  assert.match(s.text, /below 1% of the CPU time, as Spraul concluded \(lahr-2001\/contention-high-lost-small: recomputed\)/);
  assert.equal(findClaim(ledger, "lahr-2001/contention-high-lost-small").verdict, "recomputed");
});

test("lahrWays: run lengths from each table and both sums of lost time", () => {
  const w = lahrWays();
  assert.deepEqual(w.map((x) => [x.section, x.cpus, x.locks]), [["2way", 2, 4], ["4way", 4, 11], ["8way", 8, 3]]);
  const eight = w.find((x) => x.section === "8way")!;
  close(eight.runLengthS, 1031.5883130434781, 1e-9, "8-way run length");
  // io_request_lock 152659 × 2.1 + sem_ids 147365 × 4.6 + the third lock's SPIN × MEAN; TOTAL × MEAN 9.5561439 s.
  close(eight.perAcquisitionS, 9.5561439, 1e-9, "8-way per acquisition");
  assert.equal(eight.busiest.name, "io_request_lock");
  assert.equal(eight.mostContended.name, "sem_ids+0x24");
});

test("perf-lock capture: duration, CPUs and the share of CPU time in kernel lock waits", () => {
  const dir = join(repoRoot(), "test/fixtures/perf-lock");
  const c = readPerfLockCapture(dir, { caller: "p61-contention.txt", task: "p61-contention-threads.txt", script: "capture.sh", machine: "p61-machine.txt" });
  assert.equal(c.seconds, 3);
  assert.equal(c.cpus, 2);
  assert.ok(c.byCaller.entries.length > 5 && c.contentions > 0);
  const k = kernelLockShare(c);
  close(k.pct, (100 * c.totalWaitS) / 6, 1e-12, "share of 3 s × 2 CPUs");
  assert.equal(k.small, k.pct < 1);
  assert.match(k.text, /PostgreSQL's user-space spinlocks and LWLocks are not in this report/);
  assert.match(kernelLockShare({ seconds: 1, cpus: 1, totalWaitS: 0.5, contentions: 3 }).text, /\*\*50\.000 %\*\* of 1 s × 1 CPUs — above the 1 %/);
  assert.throws(() => recordSeconds("#!/bin/sh\nperf record -a\n", "capture.sh"), (e: unknown) => e instanceof ParseError && /^capture\.sh:3: expected a `perf lock record -a -o FILE -- sleep N` line/.test(e.message));
  assert.throws(() => machineCpus("kernel: 6.1\n", "m.txt"), (e: unknown) => e instanceof ParseError && /^m\.txt:2: expected an `nproc: N` line/.test(e.message));
  const f = lockStatisticsFindings({ story: lahrLostTimeStory(), perfLock: k, collected: [{ name: "a", pct: 0.5 }, { name: "b", pct: 2 }] });
  // The most contended lock taken ≥ 1,000 times: 8-way sem_ids+0x24, CON 36.38 % (4-way inet_wait_for_connect's 50 % is 1 of 2).
  assert.match(f, /^- In 2001 the kernel's spinlocks were contended \(CON up to 36\.38 % among the locks taken at least 1,000 times, 8-way `sem_ids\+0x24`\)/);
  assert.match(f, /0\.500 % \(a\) and 2\.000 % \(b\) of the CPU time \(not below 1 %\)/);
});
