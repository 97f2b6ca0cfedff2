/**
 * The diag build's armed-waits lines (issue 27 item 6): the format the diag
 * patch writes (checked against the patch text), sums and shares, and bad
 * lines named with file and line.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ARMED_WAIT_FIELDS, WAKEUP_FIELDS, armedWaitTotals, parseArmedWaits, parseWakeupStalls, wakeupStallTotals } from "../src/postgres/armed-waits.js";
import { diagPatchFiles } from "../src/postgres/patch.js";
import { ParseError } from "../src/util/errors.js";

test("parseArmedWaits: the diag patch's format; totals and armed shares", () => {
  // the diag patch writes exactly these fields, in this order
  const diag = readFileSync(diagPatchFiles("18")[0]!, "utf8");
  assert.ok(diag.includes(`"slicelab-armed-waits pid=%d type=%s ${ARMED_WAIT_FIELDS.map((f) => `${f}=%llu`).join(" ")}\\n"`), "format string in the diag patch");
  const text =
    "slicelab-armed-waits pid=10 type=client backend unmeasured_holds=3 spin_waits=8 armed_spin_waits=2 spin_sleeps=1 armed_spin_sleeps=1 lwlock_sleeps=5 armed_lwlock_sleeps=4 ended_holds=40 armed_wait_holds=5 spin_wait_grants=1 lwlock_wait_grants=2\n" +
    "slicelab-armed-waits pid=11 type=checkpointer unmeasured_holds=0 spin_waits=0 armed_spin_waits=0 spin_sleeps=0 armed_spin_sleeps=0 lwlock_sleeps=0 armed_lwlock_sleeps=0 ended_holds=10 armed_wait_holds=0 spin_wait_grants=0 lwlock_wait_grants=0\n";
  const lines = parseArmedWaits(text);
  assert.equal(lines[0]!.type, "client backend");
  const t = armedWaitTotals(lines);
  assert.equal(t.processes, 2);
  assert.equal(t.totals.spin_waits, 8);
  assert.equal(t.totals.ended_holds, 50);
  assert.equal(t.totals.lwlock_wait_grants, 2);
  assert.deepEqual(t.armedShare, { spinWaits: 0.25, spinSleeps: 1, lwlockSleeps: 0.8, holds: 0.1 });
  assert.deepEqual(armedWaitTotals([]).armedShare, { spinWaits: null, spinSleeps: null, lwlockSleeps: null, holds: null });
  // a line of the first v3 diag build (no hold fields) is read, and its hold totals are unknown, not 0
  const old = parseArmedWaits("slicelab-armed-waits pid=12 type=client backend unmeasured_holds=0 spin_waits=1 armed_spin_waits=0 spin_sleeps=0 armed_spin_sleeps=0 lwlock_sleeps=0 armed_lwlock_sleeps=0\n");
  assert.equal(old[0]!.counts.ended_holds, null);
  assert.equal(armedWaitTotals([...lines, ...old]).totals.armed_wait_holds, null);
  assert.equal(armedWaitTotals([...lines, ...old]).totals.spin_waits, 9);
});

test("parseArmedWaits: a foreign line or an armed count above its total is an error naming the line", () => {
  assert.throws(() => parseArmedWaits("\nslicelab-diag pid=1 type=x holds=1\n", "w.txt"), (e: unknown) => e instanceof ParseError && /w\.txt:2/.test(e.message));
  assert.throws(
    () => parseArmedWaits("slicelab-armed-waits pid=1 type=x unmeasured_holds=0 spin_waits=1 armed_spin_waits=2 spin_sleeps=0 armed_spin_sleeps=0 lwlock_sleeps=0 armed_lwlock_sleeps=0", "w.txt"),
    /armed_spin_waits ≤ spin_waits/,
  );
});

test("parseArmedWaits: more armed-wait holds than holds is an error", () => {
  assert.throws(
    () => parseArmedWaits("slicelab-armed-waits pid=1 type=x unmeasured_holds=0 spin_waits=0 armed_spin_waits=0 spin_sleeps=0 armed_spin_sleeps=0 lwlock_sleeps=0 armed_lwlock_sleeps=0 ended_holds=2 armed_wait_holds=3 spin_wait_grants=0 lwlock_wait_grants=0", "w.txt"),
    /w\.txt:1: expected armed_wait_holds ≤ ended_holds/,
  );
});

const WAKEUP = (pid: number, o: Partial<Record<(typeof WAKEUP_FIELDS)[number], number>>) =>
  `slicelab-wakeup-stalls pid=${pid} type=client backend ${WAKEUP_FIELDS.map((f) => `${f}=${o[f] ?? 0}`).join(" ")}`;

test("parseWakeupStalls: the diag patch's format; headers, stall lines, totals", () => {
  const diag = readFileSync(diagPatchFiles("18")[0]!, "utf8");
  assert.ok(diag.includes(`"slicelab-wakeup-stalls pid=%d type=%s ${WAKEUP_FIELDS.map((f) => `${f}=%${f === "logged" ? "d" : "llu"}`).join(" ")}\\n"`), "format string in the diag patch");
  assert.ok(diag.includes(`"stall %d %llu %llu %d\\n"`), "stall line format in the diag patch");
  const text = [
    WAKEUP(10, { wakeups: 10, waiters: 12, yields: 2, yield_waiters: 3, stall_ns: 9000, stall_max_ns: 6000, release_ns: 800, logged: 2 }),
    "stall 10 1000 7000 2",
    "stall 10 20000 23000 1",
    WAKEUP(11, { wakeups: 4, waiters: 4, release_ns: 400 }),
    "",
  ].join("\n");
  const f = parseWakeupStalls(text, "s.txt");
  assert.equal(f.processes.length, 2);
  assert.deepEqual(f.stalls[1], { pid: 10, startNs: 20000, endNs: 23000, waiters: 1 });
  const t = wakeupStallTotals(f);
  assert.equal(t.wakeups, 14);
  assert.equal(t.yields, 2);
  assert.equal(t.stall_max_ns, 6000, "the maximum of the processes' maxima, not their sum");
  assert.equal(t.meanStallNs, 4500);
  assert.equal(t.meanReleaseNs, 100);
  assert.equal(t.yieldShare, 2 / 14);
  assert.equal(wakeupStallTotals({ processes: [], stalls: [] }).meanStallNs, null);
});

test("parseWakeupStalls: missing, foreign or inconsistent lines are errors naming file and line", () => {
  const h = WAKEUP(10, { wakeups: 3, waiters: 3, yields: 2, stall_ns: 10, stall_max_ns: 6, logged: 2 });
  assert.throws(() => parseWakeupStalls(`${h}\nstall 10 1 2 1\n`, "s.txt"), /s\.txt:\d+: expected 1 more stall line\(s\) of pid 10/);
  assert.throws(() => parseWakeupStalls(`${h}\nstall 11 1 2 1\nstall 10 1 2 1\n`, "s.txt"), /s\.txt:2: expected "stall 10 START END WAITERS"/);
  assert.throws(() => parseWakeupStalls(`${h}\nstall 10 5 2 1\nstall 10 1 2 1\n`, "s.txt"), /s\.txt:2:/, "end before start");
  assert.throws(() => parseWakeupStalls(WAKEUP(1, { wakeups: 1, waiters: 1, yields: 2, logged: 2 }), "s.txt"), /s\.txt:1: expected yields ≤ wakeups/);
  assert.throws(() => parseWakeupStalls(WAKEUP(1, { wakeups: 2, waiters: 2, yields: 2, logged: 1 }), "s.txt"), /logged \+ lost = yields/);
  assert.throws(() => parseWakeupStalls("stall 1 1 2 1\n", "s.txt"), /s\.txt:1: expected slicelab-wakeup-stalls pid=N/);
});
