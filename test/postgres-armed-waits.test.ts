/**
 * The diag build's armed-waits lines (issue 27 item 6): the format the diag
 * patch writes (checked against the patch text), sums and shares, and bad
 * lines named with file and line.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ARMED_WAIT_FIELDS, armedWaitTotals, parseArmedWaits } from "../src/postgres/armed-waits.js";
import { diagPatchFiles } from "../src/postgres/patch.js";
import { ParseError } from "../src/util/errors.js";

test("parseArmedWaits: the diag patch's format; totals and armed shares", () => {
  // the diag patch writes exactly these fields, in this order
  const diag = readFileSync(diagPatchFiles("18")[0]!, "utf8");
  assert.ok(diag.includes(`"slicelab-armed-waits pid=%d type=%s ${ARMED_WAIT_FIELDS.map((f) => `${f}=%llu`).join(" ")}\\n"`), "format string in the diag patch");
  const text =
    "slicelab-armed-waits pid=10 type=client backend unmeasured_holds=3 spin_waits=8 armed_spin_waits=2 spin_sleeps=1 armed_spin_sleeps=1 lwlock_sleeps=5 armed_lwlock_sleeps=4\n" +
    "slicelab-armed-waits pid=11 type=checkpointer unmeasured_holds=0 spin_waits=0 armed_spin_waits=0 spin_sleeps=0 armed_spin_sleeps=0 lwlock_sleeps=0 armed_lwlock_sleeps=0\n";
  const lines = parseArmedWaits(text);
  assert.equal(lines[0]!.type, "client backend");
  const t = armedWaitTotals(lines);
  assert.equal(t.processes, 2);
  assert.equal(t.totals.spin_waits, 8);
  assert.deepEqual(t.armedShare, { spinWaits: 0.25, spinSleeps: 1, lwlockSleeps: 0.8 });
  assert.deepEqual(armedWaitTotals([]).armedShare, { spinWaits: null, spinSleeps: null, lwlockSleeps: null });
});

test("parseArmedWaits: a foreign line or an armed count above its total is an error naming the line", () => {
  assert.throws(() => parseArmedWaits("\nslicelab-diag pid=1 type=x holds=1\n", "w.txt"), (e: unknown) => e instanceof ParseError && /w\.txt:2/.test(e.message));
  assert.throws(
    () => parseArmedWaits("slicelab-armed-waits pid=1 type=x unmeasured_holds=0 spin_waits=1 armed_spin_waits=2 spin_sleeps=0 armed_spin_sleeps=0 lwlock_sleeps=0 armed_lwlock_sleeps=0", "w.txt"),
    /armed_spin_waits ≤ spin_waits/,
  );
});
