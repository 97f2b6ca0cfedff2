// The traced run end to end (skipped unless SLICELAB_E2E=1): a kernel built from our
// tracepoint series boots in the VM, the micro-benchmark runs with the extension on
// while tracefs records our rseq_slice_* events and the enforcement timer's hrtimer
// events, and the host's analysis reconciles them with the kernel's rseq/stats.
// Under TCG nothing here is a performance measurement; the assertions are functional.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { patchedKernelBuilds, runSliceTraceInVm } from "../src/vm/trace.js";
import { workDir } from "../src/util/paths.js";

const enabled = process.env.SLICELAB_E2E === "1";
const skip = enabled ? false : "set SLICELAB_E2E=1 (npm run test:e2e) to boot the patched kernel and trace a run";

test("traced micro-benchmark run: every grant the kernel counted is in the trace, both methods see the timer-armed ones", { skip, timeout: 3600_000 }, async () => {
  const builds = patchedKernelBuilds();
  assert.ok(builds.length > 0, "no kernel built from kernel-patches/linux/series/slicelab: slicelab kernel patch, configure --tree, build --tree");
  const out = mkdtempSync(join(workDir(), "vm-trace-e2e-"));
  try {
    const r = await runSliceTraceInVm({ kernel: builds[0]!.bzImage, build: builds[0], durationS: 3, sliceNsec: 50000, outDir: out });
    assert.equal(r.vm.exitStatus, 0);
    assert.ok(r.analysis.tracepoints.grants > 0, JSON.stringify(r.analysis.tracepoints));
    for (const c of r.crossCheck) assert.equal(c.trace, c.stats, `${c.counter}: trace ${c.trace} vs rseq/stats ${c.stats}`);
    // Each timer interval belongs to a grant the tracepoints saw.
    assert.equal(r.analysis.matching.timersWithoutGrant, 0);
    assert.equal(r.analysis.matching.matched, r.analysis.hrtimer.intervals - (r.analysis.hrtimer.outcomes.open ?? 0));
    const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
    assert.equal(prov.environment.vm, true);
    assert.equal(prov.environment.accel, r.vm.accel);
    assert.equal(prov.kernel.sliceExtNsec, 50000);
    assert.ok(existsSync(join(out, "raw", "trace-tracefs.txt")));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
