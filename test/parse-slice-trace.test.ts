// The slice-extension trace parser and analysis (src/parse/slice-trace.ts) on real
// captured traces: test/fixtures/slice-trace/ (excerpts of one traced run in the VM,
// origin in ORIGIN.md) and the full raw files of the recorded run under data/runs/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { analyseSliceTrace, detectSliceTrace, durationSummary, histogram, octaveEdges, parseSliceTrace, sliceTraceFormat } from "../src/parse/slice-trace.js";
import { diffRseqStats, parseRseqStats } from "../src/parse/rseq-stats.js";
import { crossCheck, guestTraceScript } from "../src/study/drivers/slice-trace.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const FIX = join(repoRoot(), "test", "fixtures", "slice-trace");
const REPORT = join(FIX, "trace-cmd-report.txt");
const TRACEFS = join(FIX, "tracefs.txt");
const RUN = join(repoRoot(), "data", "runs", "slice-trace/20261130T042909Z");

const text = (p: string) => readFileSync(p, "utf8");
const count = (t: string, needle: string) => t.split("\n").filter((l) => l.includes(needle)).length;

test("trace-cmd report -t: every event line is read, with nanosecond timestamps", () => {
  const t = text(REPORT);
  const tr = parseSliceTrace(t, REPORT);
  assert.equal(tr.resolutionNs, 1);
  assert.equal(tr.lostEvents, 0);
  assert.equal(tr.otherEvents, 0);
  // Every rseq_slice_* and hrtimer_* line becomes a record.
  assert.equal(tr.records.length, count(t, ": rseq_slice_") + count(t, ": hrtimer_"));
  assert.equal(tr.records.length, 111);
  const g = tr.records.find((r) => r.event.kind === "grant")!;
  // Line 20 of the file: " lhp-e965b127008-91    [001]    65.460315028: rseq_slice_grant:     pid=91 granted_ns=26314 slice_ns=50000"
  assert.equal(g.line, 20);
  assert.equal(g.comm, "lhp-e965b127008");
  assert.equal(g.tid, 91);
  assert.equal(g.cpu, 1);
  assert.equal(g.tsNs, 65_460_315_028);
  assert.deepEqual(g.event, { kind: "grant", pid: 91, grantedNs: 26314, sliceNs: 50000 });
  assert.equal(detectSliceTrace(t), true);
  assert.equal(detectSliceTrace("tps = 12.3 (without initial connection time)\n"), false);
});

test("grants and timer intervals of the excerpt, matched on the same run", () => {
  const a = analyseSliceTrace(parseSliceTrace(text(REPORT), REPORT));
  assert.deepEqual(a.sliceNs, [50000]);
  // Read off the excerpt by hand: 10 rseq_slice_grant, 9 late expiries, 1 revoke with no grant before it.
  assert.deepEqual(a.tracepoints.outcomes, { expired: 6, "expired-before-user": 9, "revoked-before-user": 1, yield: 4 });
  assert.equal(a.tracepoints.grants, 20);
  assert.equal(a.tracepoints.orphanEnds, 0);
  assert.deepEqual(a.hrtimer.outcomes, { cancelled: 4, expired: 6 });
  assert.equal(a.matching.matched, 10);
  assert.equal(a.matching.grantsWithoutTimer, 10);
  assert.equal(a.matching.timersWithoutGrant, 0);
  assert.deepEqual(a.matching.disagreements.map((d) => [d.pair, d.n]), [["expired/expired", 6], ["yield/cancelled", 4]]);

  // The first timer-armed grant (line 20): granted, the timer armed 17 ms later (the vCPU
  // was not running), fired 3.8 ms after that, expire over_ns=20978381, revoke held_ns=21192945.
  const first = a.grants.find((g) => g.line === 20)!;
  assert.equal(first.outcome, "expired");
  assert.equal(first.durationNs, 50000 + 20978381);
  assert.equal(first.clearedAfterNs, 21192945);
  const t0 = a.timers[first.timer!]!;
  assert.equal(t0.outcome, "expired");
  assert.equal(t0.durationNs, 65_481_147_438 - 65_477_359_965);
  assert.equal(t0.sinceDeadlineGrantNs, 65_481_147_438 - (65_460_214_264 - 50000));
  assert.equal(t0.grant, a.grants.indexOf(first));

  // A yield: rseq_slice_end held_ns=252775; the timer was cancelled in between.
  const y = a.grants.find((g) => g.outcome === "yield")!;
  assert.equal(y.durationNs, 252775);
  assert.equal(y.clearedAfterNs, null);
  assert.equal(a.timers[y.timer!]!.outcome, "cancelled");

  // A late expiry: no rseq_slice_grant, the duration is slice + over_ns, the revoke clears it.
  const late = a.grants[0]!;
  assert.equal(late.outcome, "expired-before-user");
  assert.equal(late.armTsNs, null);
  assert.equal(late.durationNs, 50000 + 36969);
  assert.equal(late.clearedAfterNs, 320255);

  const rb = a.grants.filter((g) => g.outcome === "revoked-before-user");
  assert.deepEqual(rb.map((g) => [g.pid, g.durationNs]), [[90, 1432507]]);

  // The `slicelab parse` format view: one record per grant, the timer's view beside it.
  const rows = sliceTraceFormat.parse(text(REPORT), REPORT) as Record<string, unknown>[];
  assert.equal(rows.length, 20);
  assert.deepEqual(rows.find((r) => r.line === 20), {
    file: REPORT, line: 20, pid: 91, cpu: 1, outcome: "expired", durationNs: 21028381, clearedAfterNs: 21192945, timerOutcome: "expired", timerDurationNs: 3787473,
  });

  // Per pid: pid 91 has 10 grants (5 timer-armed expiries + 1 yield + 4 late expiries).
  const p91 = a.perPid.find((p) => p.pid === 91)!;
  assert.equal(p91.grants, 10);
  assert.equal(p91.timerIntervals, 6);
  assert.equal(p91.comm, "lhp-e965b127008");
  // Histograms hold every duration once.
  const all = a.histograms.find((h) => h.method === "tracepoints" && h.outcome === "all")!;
  assert.equal(all.bins.reduce((s, b) => s + b.count, 0), 20);
  const hr = a.histograms.find((h) => h.method === "hrtimer" && h.outcome === "all")!;
  assert.equal(hr.bins.reduce((s, b) => s + b.count, 0), 10);
});

test("the tracefs printing of the same buffers gives the same grants (µs timestamps)", () => {
  const a = analyseSliceTrace(parseSliceTrace(text(REPORT), REPORT));
  const tf = parseSliceTrace(text(TRACEFS), TRACEFS);
  assert.equal(tf.resolutionNs, 1000);
  const b = analyseSliceTrace(tf);
  assert.deepEqual(b.tracepoints.outcomes, a.tracepoints.outcomes);
  // The kernel's own durations are fields, identical in both printers.
  assert.deepEqual(b.grants.map((g) => g.durationNs), a.grants.map((g) => g.durationNs));
  // Timer durations come from timestamps: equal within the µs rounding of both ends.
  assert.equal(b.timers.length, a.timers.length);
  b.timers.forEach((t, i) => assert.ok(Math.abs(t.durationNs! - a.timers[i]!.durationNs!) <= 1000, `timer ${i}: ${t.durationNs} vs ${a.timers[i]!.durationNs}`));
  // tracefs hashes the pointers: different strings, same pairing.
  assert.notEqual(b.timers[0]!.hrtimer, a.timers[0]!.hrtimer);
  assert.deepEqual(b.timers.map((t) => t.outcome), a.timers.map((t) => t.outcome));
});

test("malformed input: ParseError with FILE:LINE, exit 2 from the CLI, nothing printed on stdout", async () => {
  const t = text(REPORT);
  const bad = t.replace("granted_ns=26314", "granted_ns=x");
  assert.throws(
    () => parseSliceTrace(bad, "bad.txt"),
    (e: unknown) => e instanceof ParseError && e.exitCode === 2 && e.message === `bad.txt:20: expected rseq_slice_grant with an integer field granted_ns=, found granted_ns="x"`,
  );
  const lines = t.split("\n");
  lines.splice(5, 0, "this is not a trace line");
  assert.throws(() => parseSliceTrace(lines.join("\n"), "junk.txt"), (e: unknown) => e instanceof ParseError && e.message.startsWith(`junk.txt:6: expected a trace event line`));
  assert.throws(() => parseSliceTrace(t.replace("sched=1", "sched=2"), "f.txt"), (e: unknown) => e instanceof ParseError && /^f\.txt:\d+: expected rseq_slice_revoke with sched=0 or sched=1, found sched=2$/.test(e.message));
  // Out of time order (two lines swapped).
  const sw = t.split("\n");
  [sw[20], sw[21]] = [sw[21]!, sw[20]!];
  assert.throws(() => parseSliceTrace(sw.join("\n"), "o.txt"), (e: unknown) => e instanceof ParseError && e.message.startsWith("o.txt:22: expected events in time order"));

  const dir = mkdtempSync(join(tmpdir(), "slicelab-trace-"));
  try {
    const f = join(dir, "bad.txt");
    writeFileSync(f, bad);
    const r = await execa("node", [join(repoRoot(), "bin", "slicelab.js"), "vm", "trace", "--from", f], { reject: false });
    assert.equal(r.exitCode, 2);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:20: expected rseq_slice_grant with an integer field granted_ns=`));
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    const ok = await execa("node", [join(repoRoot(), "bin", "slicelab.js"), "vm", "trace", "--from", REPORT, "--json"], { reject: false });
    assert.equal(ok.exitCode, 0);
    assert.equal(JSON.parse(ok.stdout).tracepoints.grants, 20);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("histogram bins and duration summary", () => {
  const e = octaveEdges(8, 10); // 256, 512, 1024
  const h = histogram([0, 255, 256, 511, 512, 1023, 1024, 1e9], e);
  assert.deepEqual(h.map((b) => [b.loNs, b.hiNs, b.count]), [[0, 256, 2], [256, 512, 2], [512, 1024, 2], [1024, null, 2]]);
  const s = durationSummary([4, 1, 3, 2]);
  assert.equal(s.n, 4);
  assert.equal(s.median, 2.5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 4);
  assert.equal(s.p25, 1.75);
  assert.equal(durationSummary([]).median, null);
});

test("the recorded run: trace events reconcile with the kernel's rseq/stats counters", { skip: existsSync(RUN) ? false : `${RUN} not present` }, () => {
  const raw = join(RUN, "raw");
  const a = analyseSliceTrace(parseSliceTrace(text(join(raw, "trace.txt")), join(raw, "trace.txt")), { sliceNs: Number(text(join(raw, "slice_ext_nsec")).trim()) });
  const d = diffRseqStats(parseRseqStats(text(join(raw, "rseq-stats-before.txt")), "before"), parseRseqStats(text(join(raw, "rseq-stats-after.txt")), "after"));
  const checks = crossCheck(a, d);
  assert.deepEqual(checks.map((c) => c.counter), ["sgrant", "sexpir", "srevok", "syield", "sabort"]);
  for (const c of checks) assert.equal(c.trace, c.stats, `${c.counter}: trace ${c.trace} vs rseq/stats ${c.stats}`);
  assert.ok(a.tracepoints.grants > 0);
});

test("the guest script is valid sh and enables all four tracepoints", async () => {
  const s = guestTraceScript({ workload: "true", sliceNsec: 50000, bufferKb: 1024 });
  const r = await execa("sh", ["-n", "-c", s], { reject: false });
  assert.equal(r.exitCode, 0, r.stderr);
  for (const e of ["rseq_slice_grant", "rseq_slice_expire", "rseq_slice_end", "rseq_slice_revoke"]) assert.ok(s.includes(e));
  assert.match(s, /function\.function == rseq_slice_expired/);
  assert.match(s, /echo 50000 > \$D\/rseq\/slice_ext_nsec/);
});

// The only public trace found with an rseq event (test/fixtures/slice-trace/public/, source in its .source.json):
// Steven Rostedt's tracefs excerpt on LKML, 2025-11-06. Mainline has no slice-extension tracepoint, so it holds
// none; it has mainline's rseq_update and syscall events, which print without a colon after the name.
test("public tracefs excerpt (Rostedt, LKML 2025-11-06): other events are counted by name, none is a slice event", () => {
  const p = join(FIX, "public", "rostedt-2025-11-06-tracefs-rt-exit-path.txt");
  const t = text(p);
  const tr = parseSliceTrace(t, p);
  assert.equal(tr.records.length, 0);
  assert.equal(tr.otherEvents, 23);
  assert.deepEqual(tr.otherEventNames, {
    lock_release: 7,
    irq_enable: 3,
    lock_acquire: 6,
    sys_exit: 1,
    sys_epoll_wait: 1,
    irq_disable: 3,
    rseq_update: 1,
    x86_fpu_regs_activated: 1,
  });
  assert.equal(tr.resolutionNs, 1000);
  assert.equal(tr.lostEvents, 0);
  assert.equal(detectSliceTrace(t), false);
  assert.equal(analyseSliceTrace(tr).grants.length, 0);
  // the syscall-exit line is an event line; a broken one is still an error naming the line
  assert.throws(() => parseSliceTrace(t.replace("sys_epoll_wait -> 0x1", "sys_epoll_wait -> ?"), p), (e: unknown) => e instanceof ParseError && e.line === 11);
  // a syscall-entry line (`sys_NAME(args)`) is read the same way
  const enter = " systemd-journal-435     [006] .....    63.884920: sys_epoll_wait(epfd: 7, events: 7ffd2c1e9a40, maxevents: 4, timeout: ffffffff)\n";
  assert.deepEqual(parseSliceTrace(enter + t, p).otherEventNames.sys_epoll_wait, 2);
});
