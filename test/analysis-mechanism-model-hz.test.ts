// The model's HZ sweep (issue 26 item 6): the latest sweep record per HZ, the figure's points,
// full's share at each HZ against HZ 1000's (Newcombe interval), the sentence and the figure;
// and the sweep driver's kernel choice and HZ check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { hzContrasts, hzSweeps, hzValidationSentence, hzValidationTakeaway, newcombeDiff, validationPoints, type HzSweep } from "../src/analysis/mechanism-model-hz.js";
import { hzValidationPlot } from "../src/plot/mechanism.js";
import { sweepCells } from "../src/analysis/mechanism-model-sweep.js";
import { hzMismatch, sweepKernel } from "../src/study/drivers/mechanism-sweep.js";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";

const base = { pages: "4k", extension: "off", kernelRelease: "7.2.13", accel: "tcg-icount", grants: null, faultsUnderLock: 0, throughputPerS: 0, hogWorkPerS: 0, waitP99Ns: null, lostEvents: 0, deschedHolds: 0, kernelOther: 0, returnFault: 0, returnSyscall: 0, voluntary: 0, unclassified: 0, covered: 0, holds: 1000 };
// a touch every 4th of 2 µs sections, d = 2 µs: full's s = 500 / 2500 = 0.2
const row = (run: string, mode: string, k: number, ret: number) => ({ ...base, run, mode, faultEvery: 4, csNs: 2000, touchP50Ns: 2000, untouchedHoldP50Ns: 2000, kernelFault: k, returnInterrupt: ret });
const sweep = (hz: number, fullK: number, fullRet: number): HzSweep => ({ name: `mechanism-model-sweep/X${hz}`, hz, accel: "tcg-icount", cells: sweepCells([row("001", "full", fullK, fullRet), row("002", "lazy", 20, 80)], { hz }) });

test("newcombeDiff: the hybrid score interval of a difference of two shares", () => {
  // Newcombe (1998), example (method 10): 56/70 − 48/80 = 0.2000, 95 % 0.0524 to 0.3339
  const d = newcombeDiff(56, 70, 48, 80);
  assert.ok(Math.abs(d.diff - 0.2) < 1e-12);
  assert.ok(Math.abs(d.lo - 0.0524) < 5e-4 && Math.abs(d.hi - 0.3339) < 5e-4, `${d.lo} ${d.hi}`);
});

test("hzContrasts and the sentence: full's share at another HZ against HZ 1000's; an effect is named as one the model lacks", () => {
  const same = [sweep(100, 20, 80), sweep(1000, 21, 79)];
  const c = hzContrasts(same);
  assert.equal(c.length, 1);
  assert.equal(c[0]!.hz, 100);
  assert.equal(c[0]!.cells, 1);
  assert.ok(Math.abs(c[0]!.diff - (0.2 - 0.21)) < 1e-12);
  assert.ok(c[0]!.lo < 0 && c[0]!.hi > 0);
  const s = hzValidationSentence(same);
  assert.match(s, /^Emulated \(QEMU TCG with instruction-counted time, 1 vCPU; lazy predicted with no full-acting requests, the source reading\): HZ 100 \(`mechanism-model-sweep\/X100`\): the prediction inside the observed 95 % interval under full 1 of 1 cells, under lazy 0 of 1 cells; lazy's fitted share of full-acting requests 1\.00; HZ 1000/);
  assert.match(s, /full's pooled in-kernel share at HZ 100 20\.0 % against 21\.0 % at HZ 1000 over 1 cells \(−1\.0 points, 95 % −\d+\.\d to \+\d+\.\d: no HZ effect detected, as the model says\)\. Not recorded: HZ 250\.$/);
  const moved = hzValidationSentence([sweep(100, 60, 40), sweep(1000, 20, 80)]);
  assert.match(moved, /at HZ 100 60\.0 % against 20\.0 % .*: an HZ effect the model does not have\)/);
  assert.match(hzValidationSentence([sweep(1000, 20, 80)]), /is not tested: only one tick rate is recorded\. Not recorded: HZ 100 and 250\.$/);
  assert.deepEqual(hzContrasts([sweep(100, 1, 1)]), [], "no HZ 1000 record: nothing to compare with");
  assert.equal(hzValidationSentence([]), "No sweep record yet (`slicelab study run mechanism-model-sweep`).");
});

test("validationPoints, the takeaway and the figure: one point per cell and HZ, badge, legend per mode and HZ", () => {
  const pts = validationPoints([sweep(100, 20, 80), sweep(1000, 21, 79)]);
  assert.equal(pts.length, 4);
  const f100 = pts.find((p) => p.hz === 100 && p.mode === "full")!;
  assert.ok(Math.abs(f100.predicted - 0.2) < 1e-12 && Math.abs(f100.observed - 0.2) < 1e-12 && f100.lo < 0.2 && f100.hi > 0.2);
  assert.equal(f100.preemptions, 100);
  assert.equal(hzValidationTakeaway(pts), "full: 2 of 2 cells on the prediction (within the 95 % interval); lazy: 0 of 2 cells on the prediction (within the 95 % interval); HZ 100, 1000.");
  const svg = hzValidationPlot(pts);
  assert.match(svg, /<g class="sl-badge"[^>]*>.*EMULATED \(ICOUNT\)/);
  assert.match(svg, /class="sl-title"[^>]*>The model against the emulator/);
  assert.equal((svg.match(/class="sl-legend-item"/g) ?? []).length, 4, "full and lazy at each of the two HZ");
  assert.match(svg, /full, HZ 100 \(circle\)/);
  assert.match(svg, /lazy, HZ 1000 \(square\)/);
  assert.match(svg, /class="sl-takeaway"/);
  assert.equal(hzValidationTakeaway([]), "No cells.");
});

test("hzSweeps on the committed records: the HZ 1000 sweep, recomputed from its rows", (t) => {
  const s = hzSweeps(join(repoRoot(), "data", "runs"));
  const k = s.find((x) => x.hz === 1000);
  if (!k) return t.skip("no HZ 1000 mechanism-model-sweep record in this checkout");
  assert.equal(k.cells.length, 24, "4 fault rates × 3 section lengths × 2 modes");
  assert.deepEqual(s.map((x) => x.hz), [...s.map((x) => x.hz)].sort((a, b) => a - b));
  const full = k.cells.filter((c) => c.mode === "full" && c.agrees !== null);
  assert.ok(full.filter((c) => c.agrees).length >= full.length - 2, "full's closed form holds in nearly every cell");
});

test("the sweep driver: the kernel per HZ (an error naming `slicelab prepare hz` when it is missing) and the guest's HZ check", () => {
  assert.equal(hzMismatch(100, 100), null);
  assert.equal(hzMismatch(100, 1000), "the guest kernel has CONFIG_HZ=1000, expected 100 (not the kernel built for HZ 100)");
  assert.match(hzMismatch(250, null)!, /the guest kernel's CONFIG_HZ was not readable, expected 250/);
  assert.match(hzMismatch(250, 100, "the build")!, /^the build has CONFIG_HZ=100/);
  assert.throws(() => sweepKernel(300), /HZ 300: expected one of 100, 250, 1000/);
  for (const hz of [100, 250]) {
    let r: ReturnType<typeof sweepKernel> | undefined;
    try {
      r = sweepKernel(hz);
    } catch (e) {
      assert.ok(e instanceof UserError);
      assert.match(e.message, new RegExp(`no kernel built at HZ ${hz} in the cache: run \`slicelab prepare hz\``));
      continue;
    }
    assert.ok(r.kernel.endsWith("bzImage") && r.rec?.buildDir.endsWith(`+hz${hz}`), JSON.stringify(r));
  }
});
