/**
 * Issue 26 item 2: the classifier and the reschedule attribution on trace
 * excerpts whose answer is known (cut by test/fixtures/holder-trace/excerpt.mjs
 * from the raw traces of the records named in test/fixtures/holder-trace/README.md;
 * emulated: QEMU TCG with icount, Linux 7.2.13):
 *   known-syscall-full.txt   a holder in a 256 KB read of /dev/zero under full
 *   known-quiet-lazy.txt     no fault and no syscall in the section, lazy
 *   known-thp-lazy-nohrtick.txt  a 2 MB first touch under lazy with NO_HRTICK
 *   known-4k-lazy-hrtick.txt     the factorial's 4 KB cell under lazy, default features
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { attributeDeschedulings, parseHolderTrace, type Attribution } from "../src/parse/holder-trace.js";

const dir = join(repoRoot(), "test", "fixtures", "holder-trace");
function load(name: string, mode: string): Attribution[] | string {
  const f = join(dir, name);
  if (!existsSync(f)) return `${f} not committed (no run of this known case was recorded)`;
  return attributeDeschedulings(parseHolderTrace(readFileSync(f, "utf8"), f), mode);
}

test("known case: a holder in a long syscall under full is preempted in the kernel, not in a fault, by requests made in the syscall", (t) => {
  const a = load("known-syscall-full.txt", "full");
  if (typeof a === "string") return t.skip(a);
  const k = a.filter((x) => x.cls.startsWith("kernel"));
  assert.ok(k.length > 0, "some in-kernel preemption");
  assert.ok(k.every((x) => x.cls === "kernel-other"), JSON.stringify(k.map((x) => x.cls)));
  assert.ok(k.every((x) => x.where === "syscall"), JSON.stringify(k.map((x) => x.where)));
  assert.ok(a.every((x) => x.cls !== "kernel-fault" && x.cls !== "return-fault"));
});

test("known case: with no fault and no syscall in the section, every preemption is at the return from an interrupt", (t) => {
  const a = load("known-quiet-lazy.txt", "lazy");
  if (typeof a === "string") return t.skip(a);
  assert.ok(a.length > 0);
  assert.deepEqual([...new Set(a.map((x) => x.cls))], ["return-interrupt"]);
  assert.ok(a.every((x) => x.where === "user" || x.where === "unknown"), JSON.stringify(a.map((x) => x.where)));
});

test("known case: a 2 MB first touch under lazy without the hrtick is preempted inside the fault by sched_tick's escalation", (t) => {
  const a = load("known-thp-lazy-nohrtick.txt", "lazy");
  if (typeof a === "string") return t.skip(a);
  const esc = a.filter((x) => x.cls === "kernel-fault" && x.cause === "tick-escalation");
  assert.ok(esc.length > 0, JSON.stringify(a.map((x) => [x.cls, x.cause])));
  assert.ok(esc.every((x) => x.bit === "full" && x.where === "fault" && x.lazyOrigin !== null));
  assert.ok(a.every((x) => x.cause !== "hrtick"));
});

test("the factorial's lazy 4 KB cell with default features: in-fault preemptions are set by the hrtick, a full request", (t) => {
  const a = load("known-4k-lazy-hrtick.txt", "lazy");
  if (typeof a === "string") return t.skip(a);
  const kf = a.filter((x) => x.cls === "kernel-fault");
  assert.ok(kf.length > 0);
  assert.ok(kf.every((x) => x.cause === "hrtick" && x.bit === "full"), JSON.stringify(kf.map((x) => [x.cause, x.bit])));
});
