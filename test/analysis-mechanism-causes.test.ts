/**
 * Issue 26: the cause table, the H1/H2 verdict, failure reasons and the grant
 * arithmetic, on rows built for each case (Wilson intervals against
 * hand-computed values).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { causeTable, causeTableRows, dominantCause, failureReasons, hrtickOf, hypothesisVerdict, wilson, type AttributedRow } from "../src/analysis/mechanism-causes.js";
import { expectedFromRate, grantArithmetic, microGrantCells, v1Counters, v2Counters } from "../src/analysis/mechanism-grants.js";
import { RESCHED_CAUSES, type CauseCounts, type ReschedCause } from "../src/parse/holder-trace.js";

test("wilson: hand-computed 95 % score intervals, bounded to [0, 1], defined at 0 and n", () => {
  // k = 0, n = 10: upper = z²/(n+z²) = 3.8415/13.8415
  const z = wilson(0, 10);
  assert.equal(z.lo, 0);
  assert.ok(Math.abs(z.hi - 3.841459 / 13.841459) < 1e-5, String(z.hi));
  const h = wilson(5, 10);
  assert.ok(Math.abs(h.lo - 0.2366) < 1e-3 && Math.abs(h.hi - 0.7634) < 1e-3, JSON.stringify(h));
  assert.equal(wilson(10, 10).hi, 1);
  assert.ok(Number.isNaN(wilson(0, 0).p));
  assert.throws(() => wilson(3, 2), /0 ≤ k ≤ n/);
});

function counts(inKernel: Partial<Record<ReschedCause, number>>, atReturn: Partial<Record<ReschedCause, number>>): CauseCounts {
  const z = (o: Partial<Record<ReschedCause, number>>) => Object.fromEntries(RESCHED_CAUSES.map((c) => [c, o[c] ?? 0])) as Record<ReschedCause, number>;
  return { inKernel: z(inKernel), atReturn: z(atReturn) };
}
const r = (mode: string, run: string, c: CauseCounts, features = "GENTLE_FAIR_SLEEPERS HRTICK HRTICK_DL"): AttributedRow => ({ run, mode, pages: "4k", extension: "off", holds: 10000, attribution: { causes: c, schedFeatures: features } });

test("causeTable pools runs per cell and hrtick setting; shares and per-1,000 rates carry Wilson intervals", () => {
  const rows = [
    r("lazy", "1", counts({ hrtick: 8, "tick-escalation": 2 }, { tick: 30 })),
    r("lazy", "2", counts({ hrtick: 12 }, { tick: 20 })),
    r("lazy", "3", counts({ "tick-escalation": 5 }, { tick: 40 }), "NO_HRTICK"),
    { run: "4", mode: "lazy", pages: "4k", extension: "off", holds: 5000, attribution: null },
  ];
  const t = causeTable(rows);
  const hr = t.find((c) => c.hrtick === "HRTICK" && c.where === "inKernel" && c.cause === "hrtick")!;
  assert.equal(hr.runs, 2);
  assert.equal(hr.count, 20);
  assert.equal(hr.holds, 20000);
  assert.deepEqual([hr.share.k, hr.share.n], [20, 22]);
  assert.ok(Math.abs(hr.per1000.p - 1) < 1e-12);
  assert.ok(hr.per1000.lo > 0 && hr.per1000.hi > 1);
  const no = t.filter((c) => c.hrtick === "NO_HRTICK" && c.where === "inKernel");
  assert.equal(no.find((c) => c.cause === "tick-escalation")!.count, 5);
  assert.equal(no.find((c) => c.cause === "hrtick")!.count, 0);
  assert.equal(dominantCause(t, { mode: "lazy", pages: "4k", extension: "off", hrtick: "HRTICK" })!.cause, "hrtick");
  const table = causeTableRows(t);
  assert.equal(table.length, 4);
  const k = table.find((x) => x.feature === "HRTICK" && x.preemption === "in kernel")!;
  assert.equal(k.total, 22);
  assert.match(String(k.hrtick), /^20 \(91 \[\d+, \d+\] %; 1\.00 \/1k holds\)$/);
  assert.match(String(k.tick), /^0 \[0, \d+\] %$/);
  assert.equal(hrtickOf("A NO_HRTICK B"), "NO_HRTICK");
  assert.equal(hrtickOf(null), "?");
});

test("hypothesisVerdict: H1 when lazy keeps in-kernel preemptions, H2 when they move out, naming the deciding function", () => {
  const h1 = causeTable([r("lazy", "1", counts({ hrtick: 28 }, { tick: 72 })), r("full", "2", counts({ hrtick: 30 }, { tick: 70 }))]);
  const v1 = hypothesisVerdict(h1, { label: "emulated (icount)" });
  assert.equal(v1.supported, "H1");
  assert.match(v1.sentence, /28 % \[\d+, \d+\] \(28 of 100\) under lazy/);
  assert.match(v1.sentence, /hrtick/);
  assert.match(v1.sentence, /fair\.c:6656/);
  const h2 = causeTable([r("lazy", "1", counts({ "tick-escalation": 2 }, { tick: 98 })), r("full", "2", counts({ tick: 30 }, { tick: 70 }))]);
  assert.equal(hypothesisVerdict(h2, { label: "x" }).supported, "H2");
  assert.match(hypothesisVerdict(h2, { label: "x" }).sentence, /core\.c:5811-5812/);
  assert.equal(hypothesisVerdict([], { label: "x" }).supported, "not tested");
});

test("failureReasons groups the runs without a row by reason; a failed run outside the plan is an error", () => {
  const plan = ["001", "002", "003", "004"].map((id) => ({ id }));
  const g = failureReasons(plan, [
    { run: "003", reason: "not reached (the guest timed out)" },
    { run: "004", reason: "not reached (the guest timed out)" },
    { run: "002", reason: "/x/runs/002: run 002 ended with status 1: boom" },
  ]);
  assert.deepEqual(g.map((x) => [x.count, x.runs.join(",")]), [[2, "003,004"], [1, "002"]]);
  assert.equal(g[0]!.ofPlanned, 4);
  assert.match(g[1]!.reason, /run N ended with status 1/);
  assert.throws(() => failureReasons(plan, [{ run: "009", reason: "x" }]), /not in the plan/);
});

test("grantArithmetic: touched holds = grants + cleared; observed grants against that and against a rate model", () => {
  const a = grantArithmetic(v1Counters("full/all", [{ requests: 1000, grants: 2, revoked: 18 }, { requests: 1000, grants: 3, revoked: 7 }]));
  assert.equal(a.requests, 2000);
  assert.equal(a.expectedIfAllGrantable, 30);
  assert.equal(a.touchedShare, 30 / 2000);
  assert.equal(a.grantedShareOfTouched, 5 / 30);
  const b = v2Counters("v2", [{ holds_spinlock: 1, holds_buffer_header: 2, holds_wait_list: 3, holds_lwlock: 4, granted_yielded: 1, granted_expired: 1, dropped_without_grant: 5 }]);
  assert.deepEqual([b.requests, b.grants, b.clearedWithoutGrant], [10, 2, 5]);
  assert.throws(() => grantArithmetic({ label: "bad", requests: 1, grants: 2, clearedWithoutGrant: 0 }), /exceed/);
  // 1e6 holds of 2 µs, 1,000 reschedules per second on CPU: 1e6 × (1 − e^{−0.002}) ≈ 1998
  assert.ok(Math.abs(expectedFromRate(1e6, 2000, 1000) - 1e6 * (1 - Math.exp(-0.002))) < 1e-6);
  const cells = microGrantCells([
    { mode: "full", pages: "4k", extension: "off", holds: 1000, durationS: 1, returnInterrupt: 8, returnFault: 2, kernelFault: 5, kernelOther: 0, returnSyscall: 0, grants: null },
    { mode: "full", pages: "4k", extension: "on", holds: 2000, durationS: 1, returnInterrupt: 1, returnFault: 0, kernelFault: 5, kernelOther: 0, returnSyscall: 0, grants: 15 },
  ]);
  assert.deepEqual(cells.map((c) => [c.expected, c.observed]), [[20, 15]]);
});

test("the item-5 records: the loaders give the counters the records' own tables show (warm-ups left out)", async () => {
  const { evictionGrantCells, dipietroGrantCells } = await import("../src/analysis/mechanism-grants.js");
  const { repoRoot } = await import("../src/util/paths.js");
  const { join } = await import("node:path");
  const ev = evictionGrantCells(join(repoRoot(), "data/runs/vm-eviction/20261130T083130Z"));
  // vm-eviction/20261130T000002Z/table.md: full 1221966 requests, 145 grants, 6503 revoked; lazy 1511179, 82, 6442
  assert.deepEqual(ev.map((c) => [c.requests, c.grants, c.clearedWithoutGrant]), [[1221966, 145, 6503], [1511179, 82, 6442]]);
  const dp = dipietroGrantCells(join(repoRoot(), "data/runs/dipietro-2026/20261201T223016Z"));
  assert.equal(dp[0]!.requests, 108020);
  assert.equal(dp[0]!.grants, 2);
  assert.equal(dp[0]!.clearedWithoutGrant, 1067);
  assert.ok(dp[0]!.grantedShareOfTouched < 0.01);
});

test("knownCaseChecks: pass, fail and no run for each known case", async () => {
  const { knownCaseChecks } = await import("../src/analysis/mechanism-causes.js");
  const base = { run: "1", pages: "4k-prefault", extension: "off", holds: 1000, kernelFault: 0, kernelOther: 0, returnFault: 0, returnInterrupt: 0, returnSyscall: 0 };
  const w = (inKernel: Record<string, number>) => ({ inKernel: { user: 0, fault: 0, syscall: 0, kernel: 0, unknown: 0, ...inKernel }, atReturn: { user: 0, fault: 0, syscall: 0, kernel: 0, unknown: 0 } });
  const good = knownCaseChecks({
    syscall: [{ ...base, mode: "full", kernelOther: 12, attribution: { causes: counts({ hrtick: 12 }, {}), where: w({ syscall: 12 }) } }],
    quiet: [{ ...base, mode: "full", returnInterrupt: 30 }, { ...base, mode: "lazy", returnInterrupt: 25 }],
    longFault: [{ ...base, mode: "lazy", pages: "thp", kernelFault: 3, attribution: { causes: counts({ "tick-escalation": 3 }, {}), schedFeatures: "NO_HRTICK" } }],
  });
  assert.deepEqual(good.map((c) => c.pass), [true, true, true]);
  const bad = knownCaseChecks({
    syscall: [{ ...base, mode: "full", kernelOther: 12, kernelFault: 1, attribution: { causes: counts({}, {}), where: w({ syscall: 12 }) } }],
    quiet: [{ ...base, mode: "lazy", kernelFault: 1, returnInterrupt: 25 }],
    longFault: [{ ...base, mode: "lazy", pages: "thp", kernelFault: 3, attribution: { causes: counts({ hrtick: 3 }, {}), schedFeatures: "NO_HRTICK" } }],
  });
  assert.deepEqual(bad.map((c) => c.pass), [false, false, false]);
  assert.deepEqual(knownCaseChecks({ syscall: [], quiet: [], longFault: [] }).map((c) => c.pass), [null, null, null]);
});
