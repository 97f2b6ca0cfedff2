/**
 * The patch's hook code in the C harness (src/postgres/harness/): every
 * scenario passes on the current patch (18 and 15); the defects of the old
 * patch (kernel-patches/postgresql/v1/) show up as failing scenarios, and a
 * patch with the re-arm removed fails again. No kernel feature needed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseHarnessOutput, patchedTexts, runHarnessTexts, runHookHarness, runProbeHarness, spinDelayInventory, spinDelayLoops, underTestHeader, v1PatchFile } from "../src/postgres/harness.js";
import { patchFiles } from "../src/postgres/patch.js";
import { fetchDebianSource } from "../src/postgres/source.js";
import { ParseError } from "../src/util/errors.js";

/** Scenarios that hold on the old patch too (behaviour v2 must keep). */
const KEPT = [
  "spinlock: request set while held, cleared at release",
  "spinlock: a grant is given back with rseq_slice_yield at release",
  "acquires inside a grant leave the word alone; the end yields",
  "LWLockWakeup takes the wait list lock and releases it with its flags: balanced",
  "slice_extension = spinlock covers spinlocks only",
  "slice_extension = lwlock covers LWLocks only",
  "a change of the setting while an LWLock is held stays balanced",
];
const DISOWN = ["LWLockDisown of the last LWLock ends the hold", "after LWLockDisown a spinlock hold is its own"];

test("hook harness: every scenario passes on patch v2 (18); on v1 all but the kept-behaviour ones fail", async () => {
  const src = await fetchDebianSource("18");
  const v2 = await runHookHarness(src.dir, patchFiles("18")[0]!);
  assert.equal(v2.version, "v2");
  assert.equal(v2.scenarios.length, 26);
  assert.deepEqual(v2.scenarios.filter((s) => s.status !== "PASS"), []);
  // the glue came from the patched source: the hooks sit where the issue says
  assert.deepEqual(v2.glue.pg_LockBufHdr, ["SliceExtSpinAcquired(SLICE_EXT_KIND_BUFFER_HEADER);"]);
  assert.deepEqual(v2.glue.pg_UnlockBufHdr, ["SliceExtSpinReleased();"]);
  assert.deepEqual(v2.glue.pg_LWLockWaitListLock, ["SliceExtSpinAcquired(SLICE_EXT_KIND_WAIT_LIST);"]);
  assert.deepEqual(v2.glue.pg_LWLockWakeup, ["pg_LWLockWaitListLock();", "SliceExtSpinReleased();"]);
  assert.deepEqual(v2.glue.pg_LWLockDisown, ["SliceExtLWLockReleased(num_held_lwlocks);"]);

  const v1 = await runHookHarness(src.dir, v1PatchFile());
  assert.equal(v1.version, "v1");
  assert.deepEqual(v1.scenarios.map((s) => s.name), v2.scenarios.map((s) => s.name));
  const failing = v1.scenarios.filter((s) => s.status === "FAIL").map((s) => s.name);
  const expected = v2.scenarios.map((s) => s.name).filter((n) => !KEPT.includes(n));
  assert.deepEqual(failing, expected, "every defect scenario fails on v1");
  assert.equal(failing.length, 19);
  assert.deepEqual(v1.scenarios.filter((s) => s.status === "PASS").map((s) => s.name), KEPT);
});

test("hook harness: patch v2 for 15 passes; the LWLockDisown scenarios are skipped because 15 has none", async () => {
  const src = await fetchDebianSource("15");
  assert.doesNotMatch(readFileSync(join(src.dir, "src/backend/storage/lmgr/lwlock.c"), "utf8"), /^LWLockDisown\(/m);
  const r = await runHookHarness(src.dir, patchFiles("15")[0]!);
  assert.deepEqual(r.scenarios.filter((s) => s.status === "FAIL"), []);
  assert.deepEqual(r.scenarios.filter((s) => s.status === "SKIP").map((s) => s.name), DISOWN);
  assert.equal(r.passed, 24);
});

test("hook harness: v2 with the re-arm taken out, or with LockBufHdr unhooked, fails the scenarios that need them", async () => {
  const src = await fetchDebianSource("18");
  const texts = await patchedTexts(src.dir, patchFiles("18")[0]!);
  const h = "src/include/storage/slice_ext.h";
  assert.ok(texts[h]!.includes("SliceExtRearm();"));
  const noRearm = await runHarnessTexts({ ...texts, [h]: texts[h]!.replace("SliceExtRearm();", "(void) 0;") }, "v2 without re-arm");
  const failed = noRearm.scenarios.filter((s) => s.status === "FAIL").map((s) => s.name);
  assert.ok(failed.includes("second LWLock after a sleep re-arms"), failed.join("; "));
  assert.ok(failed.includes("ten switches inside one LWLock hold: every spinlock re-arms"));
  assert.ok(!failed.includes("LockBufHdr (BM_LOCKED) is covered"));
  const b = "src/backend/storage/buffer/bufmgr.c";
  const noBuf = await runHarnessTexts({ ...texts, [b]: texts[b]!.replace("SliceExtSpinAcquired(SLICE_EXT_KIND_BUFFER_HEADER);", "") }, "v2 without LockBufHdr hook");
  const f2 = noBuf.scenarios.filter((s) => s.status === "FAIL").map((s) => s.name);
  assert.ok(f2.includes("LockBufHdr (BM_LOCKED) is covered"), f2.join("; "));
});

/** Which glue entry point covers each perform_spin_delay loop that holds a lock. */
const COVERS: Record<string, string> = { s_lock: "pg_SpinLockAcquire", LockBufHdr: "pg_LockBufHdr", LWLockWaitListLock: "pg_LWLockWaitListLock" };

test("inventory: every perform_spin_delay lock loop in 15 and 18 is covered by v2, or named in the patch with why not; v1 misses two", async () => {
  for (const major of ["15", "18"]) {
    const src = await fetchDebianSource(major);
    const loops = spinDelayInventory(src.dir);
    assert.deepEqual(Object.keys(loops).sort(), ["LWLockWaitListLock", "LockBufHdr", "WaitBufHdrUnlocked", "s_lock"], `${major}: ${JSON.stringify(loops)}`);
    const patchText = readFileSync(patchFiles(major)[0]!, "utf8");
    const glue = underTestHeader(await patchedTexts(src.dir, patchFiles(major)[0]!)).glue;
    for (const [fn, entry] of Object.entries(COVERS)) {
      assert.ok(glue[entry]!.some((c) => c.startsWith("SliceExtSpinAcquired(")), `${major}: ${fn} covered through ${entry}`);
      assert.ok(patchText.includes(fn === "s_lock" ? "SpinLockAcquire (S_LOCK" : fn), `${major}: the patch names ${fn}`);
    }
    // the one left: it waits for the lock without taking it, and the patch says so
    assert.match(patchText, /WaitBufHdrUnlocked[^.]*waits\s+for\s+a\s+buffer\s+header\s+lock\s+without\s+taking\s+it/);
    if (major === "18") {
      const v1 = underTestHeader(await patchedTexts(src.dir, v1PatchFile())).glue;
      assert.deepEqual(v1.pg_LockBufHdr, []);
      assert.deepEqual(v1.pg_LWLockWaitListLock, []);
    }
  }
  // the scanner itself: a loop inside a function, a prototype and a comment do not count
  assert.deepEqual(spinDelayLoops("static void f(void);\nvoid\ng(void)\n{\n\t/* perform_spin_delay(x) */\n\tperform_spin_delay(&d);\n}\nvoid\nh(void)\n{\n}\n"), ["g"]);
});

test("probe harness: the real errno by name and number (ENOTSUPP 524 on a 7.x kernel without the option); v1 said \"succeeded … 33 < 33\"", async () => {
  const src = await fetchDebianSource("18");
  for (const major of ["18", "15"]) {
    const s = major === "18" ? src : await fetchDebianSource("15");
    const cases = Object.fromEntries((await runProbeHarness(await patchedTexts(s.dir, patchFiles(major)[0]!))).map((c) => [c.name, c]));
    assert.match(cases["linux-6.x"]!.status, /prctl\(PR_RSEQ_SLICE_EXTENSION_GET\) failed: EINVAL \(errno 22\)/);
    assert.match(cases["linux-7.x-without-option"]!.status, /failed: ENOTSUPP \(errno 524\): the kernel was built without the option/);
    assert.doesNotMatch(cases["linux-7.x-without-option"]!.status, /succeeded|33 < 33/);
    assert.match(cases["glibc-short-registration"]!.status, /GLIBC_TUNABLES=glibc\.pthread\.rseq=0 so that it registers its own$/, "the whole advice, not cut off");
    assert.match(cases["own-area-set-enotsupp"]!.status, /PR_RSEQ_SLICE_EXTENSION_SET\) failed: ENOTSUPP \(errno 524\)/);
    assert.equal(cases["own-area-enabled"]!.status, "enabled (rseq area: its own, 64 bytes)");
    assert.deepEqual(Object.values(cases).map((c) => c.enabled), [false, false, false, false, true]);
  }
  const v1 = Object.fromEntries((await runProbeHarness(await patchedTexts(src.dir, v1PatchFile()))).map((c) => [c.name, c]));
  assert.match(v1["linux-7.x-without-option"]!.status, /succeeded, AT_RSEQ_FEATURE_SIZE 33 < 33/, "the v1 defect the issue names");
  assert.doesNotMatch(v1["glibc-short-registration"]!.status, /registers its own$/, "v1 cut the advice off at 200 bytes");
});

test("harness output: unknown lines and a summary that disagrees are errors naming the line", () => {
  assert.deepEqual(parseHarnessOutput("PASS a: x\nFAIL b -- why\nSKIP c -- n/a\nsummary passed=1 failed=1 skipped=1\n").scenarios.map((s) => s.status), ["PASS", "FAIL", "SKIP"]);
  assert.throws(() => parseHarnessOutput("PASS a\nOK b\nsummary passed=1 failed=0 skipped=0\n", "out"), (e: unknown) => e instanceof ParseError && /out:2/.test(e.message));
  assert.throws(() => parseHarnessOutput("PASS a\nsummary passed=2 failed=0 skipped=0\n", "out"), ParseError);
  assert.throws(() => parseHarnessOutput("PASS a\n", "out"), /final summary line/);
});
