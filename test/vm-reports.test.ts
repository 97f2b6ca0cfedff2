// Notebook 02's readings (src/vm/probe-report.ts, src/vm/trace-report.ts): the probe's two boots and
// the traced run's two timing methods, from a probe report and from committed trace records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseProbeOutput } from "../src/vm/probe.js";
import { probeComparisonRows, probeFindings, probeSpinTable } from "../src/vm/probe-report.js";
import { disagreementRows, grantDurationRows, traceMethodNumbers, traceMethodParagraph } from "../src/vm/trace-report.js";
import { readSliceTraceRun } from "../src/study/drivers/slice-trace.js";
import { repoRoot } from "../src/util/paths.js";

const onText = `kernel_release=7.2.13
online_cpus=2
auxv_rseq_feature_size=33
glibc_rseq_size=0
rseq_registration=own:64
slice_ext_nsec=5000
slice_ext_nsec_after=20000
prctl_get_before=0
prctl_set=ok
prctl_get_after=1
flag_slice_ext_available=1
flag_slice_ext_enabled=1
spin_threads=4
spin_threads_failed=0
spin_requests=1000
spin_granted_seen=7
spin_yields=6
spin_revoked_seen=2
stats_before_sgrant=10
stats_after_sgrant=19
stats_before_srevok=1
stats_after_srevok=3
`;
const offText = "kernel_release=7.2.13\nauxv_rseq_feature_size=33\nglibc_rseq_size=0\nprctl_get_before=EINVAL\nprctl_set=EINVAL\n";

test("probe report: rows per boot, the spin table with rseq/stats deltas, the findings follow the reports", () => {
  const on = parseProbeOutput(onText, "on");
  const off = parseProbeOutput(offText, "off");
  const rows = probeComparisonRows(on, off);
  assert.deepEqual(rows.find((r) => r[0] === "prctl SET enable"), ["prctl SET enable", "ok", "EINVAL"]);
  const t = probeSpinTable(on, 4, 2);
  assert.match(t.header[0]!, /4 threads, 2 vCPUs, slice_ext_nsec set to 20000/);
  assert.deepEqual(t.rows.find((r) => r[0] === "rseq/stats sgrant (after − before)"), ["rseq/stats sgrant (after − before)", 9]);
  assert.throws(() => probeSpinTable(off, 4, 2), /no spin loop/);
  const f = probeFindings({ on, off, accel: "tcg", accelReason: "no /dev/kvm", bootToCommandS: 9.1, tree: { version: "7.2.13", debianPackage: "linux-source-7.2", debianVersion: "7.2.13-1" }, requestedOptions: 12 });
  assert.match(f[1]!, /\*\*TCG\*\* \(no \/dev\/kvm\).*9\.1 s.*emulated/);
  assert.match(f[2]!, /\*\*usable\*\* \(prctl SET ok, GET 1\) with the probe's own own:64 rseq area; with `rseq_slice_ext=0` SET returned EINVAL/);
  assert.match(f[3]!, /granted \*\*9\*\* extensions .* for 1000 requests; 2 were revoked/);
  const notUsable = probeFindings({ on: off, off, accel: "kvm", accelReason: "probe", bootToCommandS: 1, tree: { version: "7.2.13" }, requestedOptions: 1 });
  assert.match(notUsable[2]!, /\*\*not usable\*\*/);
  assert.doesNotMatch(notUsable[1]!, /emulated/);
});

test("trace report: duration rows of both methods, disagreements, and the paragraph's numbers from the records", () => {
  const runs = join(repoRoot(), "data", "runs");
  const dir = join(runs, "slice-trace/20261130T043540Z");
  const tr = readSliceTraceRun(dir);
  const r5 = readSliceTraceRun(join(runs, "slice-trace/20261130T042623Z"));
  const ta = tr.analysis as any;
  const grants = JSON.parse(readFileSync(join(dir, "grants.json"), "utf8"));
  const timers = JSON.parse(readFileSync(join(dir, "timers.json"), "utf8"));
  const rows = grantDurationRows(grants, timers);
  assert.equal(rows.filter((r) => r.side === "tracepoints").length, grants.filter((g: any) => g.durationNs !== null).length);
  assert.equal(rows.filter((r) => r.side === "hrtimer").length, timers.filter((t: any) => t.durationNs !== null).length);
  assert.equal(disagreementRows(ta).length, ta.matching.disagreements.length);
  const n = traceMethodNumbers(ta, r5.analysis as any);
  assert.equal(n.unseen, ta.matching.grantsWithoutTimer);
  const p = traceMethodParagraph(ta, r5.analysis as any, r5.provenance as any, "data/runs/x");
  assert.ok(p.startsWith(`Of **${ta.tracepoints.grants}** grants the hrtimer method sees **${ta.hrtimer.intervals}**`), p.slice(0, 80));
  assert.match(p, new RegExp(`${n.expiredBeforeUser5} of ${n.grants5} grants expired before user space`));
});
