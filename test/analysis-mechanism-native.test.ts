// The real-time records in notebook 07 (issue 25/26): the committed imported record read back,
// its cells and sentence recomputed from its rows, and the April 2026 range's extremes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { april2026Range, nativeCells, nativeRecords, nativeSentence, nativeTable } from "../src/analysis/mechanism-native.js";
import { kernelOf, returnOf } from "../src/analysis/mechanism.js";

test("nativeRecords finds the committed real-time record; its cells and sentence come from its rows", (t) => {
  const recs = nativeRecords(join(repoRoot(), "data", "runs"));
  if (recs.length === 0) return t.skip("no real-time record committed yet");
  const n = recs[0]!;
  const cells = nativeCells(n.rows);
  const c4 = cells.find((c) => c.pages === "4k")!;
  const rows4 = n.rows.filter((r) => r.pages === "4k" && r.traced);
  assert.equal(c4.preempted, rows4.reduce((a, r) => a + kernelOf(r) + returnOf(r), 0));
  assert.equal(c4.runs, rows4.length);
  assert.ok(c4.touchP50Ns > cells.find((c) => c.pages === "4k-prefault")!.touchP50Ns * 5, "a first-touch fault takes far longer than a store to a pre-faulted page");
  const s = nativeSentence(n);
  assert.match(s, /^Real time on /);
  assert.match(s, new RegExp(`${c4.inKernel} of ${c4.preempted} holder preemptions happened inside the kernel`));
  assert.match(s, /HZ 250/);
  assert.equal(nativeTable(cells).length, cells.length);
});

test("april2026Range: the closed form's extremes over the stated ranges", () => {
  const r = april2026Range({ holdsPerFault: [200, 300], faultNs: [1000, 4000], sectionNs: [100, 2000], hz: [100, 1000] });
  assert.ok(Math.abs(r.full.hi - 20 / 120) < 1e-12, `full upper ${r.full.hi}`);
  assert.ok(Math.abs(r.full.lo - (1000 / 300) / (2000 + 1000 / 300)) < 1e-12);
  assert.equal(r.lazy.hi, 0, "µs faults are never escalated by a tick of 1–10 ms");
  assert.match(r.sentence, /a range, not a point/);
  assert.match(r.sentence, /not named in the sources/);
  const r2 = april2026Range({ holdsPerFault: [200, 300], faultNs: [1000, 4000], sectionNs: [100, 2000], hz: [100, 1000], fullShare: [0, 0.9] });
  assert.ok(Math.abs(r2.lazy.hi - 0.9 * 20 / 120) < 1e-12, "lazy's ceiling: φ times full's");
  assert.match(r2.sentence, /0\.00–0\.90 of its requests acting as full ones: 0 by the source reading/);
});

test("vmRecordLines and april2026FromRecords read the committed records", async (t) => {
  const { vmRecordLines, april2026FromRecords } = await import("../src/analysis/mechanism-native.js");
  const lines = vmRecordLines(join(repoRoot(), "data", "runs"));
  if (lines.length === 0) return t.skip("no mechanism-micro VM record committed");
  for (const l of lines) assert.match(l, /^`mechanism-micro\/\d{8}T\d{6}Z` \(\d+ vCPUs, (tcg-icount|tcg|kvm); guest idle /);
  assert.ok(lines.some((l) => /\(2 vCPUs, tcg;/.test(l)), "the plain-TCG 2-vCPU record");
  const a = april2026FromRecords(join(repoRoot(), "data", "runs"), 0.5);
  assert.match(a, /^For the April 2026 setting the model gives a range/);
  assert.match(a, /0\.00–0\.50 of its requests acting as full ones/);
});
