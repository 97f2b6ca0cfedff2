/**
 * The patched PostgreSQL under rseq debugging (issue 27, items 1 and 2 on PostgreSQL): the guest
 * script, the parsers, a run's outcome, the record's verdict and the counters' reconciliation,
 * on fixed inputs (the VM runs are `slicelab study run pg-rseq-debug`; their record is read by
 * test/postgres-stats-cross-check.test.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installedPatchBuild, parseArm, pgDebugEnvelope } from "../src/study/drivers/pg-rseq-debug.js";
import { repoRoot } from "../src/util/paths.js";
import { guestPgDebugScript, parseSnap, parseStatsText, pgDebugOutcome, pgDebugVerdict, readPgDebugBoot, type PgDebugArm, type PgDebugRow } from "../src/vm/pg-rseq-debug.js";
import { ParseError, UserError } from "../src/util/errors.js";

const ARMS: PgDebugArm[] = [
  { id: "v3-debug1", patch: "v3", bin: "/opt/pg v3/bin", debug: 1 },
  { id: "v2-debug1", patch: "v2", bin: "/opt/pg2/bin", debug: 1 },
];
const SHAPE = { clients: 4, hogs: 2, durationS: 30, scale: 1 };

test("guestPgDebugScript: valid sh, one run per arm with its rseq/debug value and bin, both snapshots in one statement", () => {
  const s = guestPgDebugScript({ user: "slicelab", arms: ARMS, shape: SHAPE });
  const r = spawnSync("sh", ["-n"], { input: s, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(s, /^run v3-debug1 1 '\/opt\/pg v3\/bin'$/m);
  assert.match(s, /^run v2-debug1 1 '?\/opt\/pg2\/bin'?$/m);
  assert.match(s, /echo \$dbg > \$D\/rseq\/debug/);
  assert.match(s, /pg_stat_get_slice_extension\(\) s/);
  assert.match(s, /pg_read_file\(.*\/sys\/kernel\/debug\/rseq\/stats/);
  assert.match(s, /pgbench -h \$P -p 54398 -U postgres -n -c 4 -j 1 -T 30 postgres/);
  // the snapshot before pgbench, after the hogs started; the whole-run reads outside initdb and stop
  assert.ok(s.indexOf("snap $B before") < s.indexOf("-T 30") && s.indexOf("-T 30") < s.indexOf("snap $B after"));
  assert.ok(s.indexOf("rseq-stats-whole-before") < s.indexOf("initdb -D") && s.indexOf("pg_ctl -D $P/data -w -t 600 -m fast stop") < s.indexOf("rseq-stats-whole-after"));
  assert.throws(() => guestPgDebugScript({ user: "u", arms: [], shape: SHAPE }), UserError);
  assert.throws(() => guestPgDebugScript({ user: "u", arms: [{ ...ARMS[0]!, id: "a;b" }], shape: SHAPE }), UserError);
});

const STATS = (g: number, y: number, r: number) => `exit: 10\nsgrant: ${g}\nsexpir: 1\nsrevok: ${r}\nsyield: ${y}\nsabort: 0\n`;

test("parseSnap and parseStatsText: the statement's JSON line; bad input names the file and line", () => {
  const s = parseSnap(JSON.stringify({ patch: { granted_yielded: 3, status: "x" }, rseqStats: STATS(5, 3, 1) }) + "\n", "snap.json");
  assert.deepEqual(s.patch, { granted_yielded: 3 });
  assert.equal(s.rseqStats!.sgrant, 5);
  assert.equal(parseSnap(JSON.stringify({ patch: { a: 1 } }), "f").rseqStats, null);
  assert.throws(() => parseSnap("", "f"), ParseError);
  assert.throws(() => parseSnap("{no", "f"), (e: unknown) => e instanceof ParseError && /f/.test(e.message) && /invalid JSON/.test(e.message));
  assert.throws(() => parseSnap(JSON.stringify({ patch: {} }), "f"), ParseError);
  assert.throws(() => parseStatsText("sgrant: 1\nbogus line\n", "stats"), (e: unknown) => e instanceof ParseError && /stats:2/.test(e.message));
});

const base = (o: Partial<Omit<PgDebugRow, "outcome" | "reason">> = {}): Omit<PgDebugRow, "outcome" | "reason"> => ({
  id: "v3-debug1",
  patch: "v3",
  rseqDebug: 1,
  status: "done",
  sliceExtensionStatus: "enabled (rseq area: own, 64 bytes)",
  pgbenchStatus: 0,
  transactions: 100,
  killedLines: [],
  patchDelta: { granted_yielded: 1 },
  kernelDelta: { sgrant: 4, srevok: 2, syield: 1 },
  kernelDeltaShell: null,
  kernelDeltaWhole: null,
  ...o,
});

test("pgDebugOutcome: a signal line is killed; no revoke is not exercised; a failed pgbench without a kill is an error", () => {
  assert.equal(pgDebugOutcome(base()).outcome, "survived");
  const k = pgDebugOutcome(base({ killedLines: ["LOG:  client backend (PID 7) was terminated by signal 11: Segmentation fault"], pgbenchStatus: 2 }));
  assert.equal(k.outcome, "killed");
  assert.match(k.reason, /signal 11/);
  assert.equal(pgDebugOutcome(base({ kernelDelta: { sgrant: 4, srevok: 0, syield: 4 } })).outcome, "not exercised");
  assert.equal(pgDebugOutcome(base({ sliceExtensionStatus: "unavailable: EINVAL (errno 22)" })).outcome, "not exercised");
  assert.equal(pgDebugOutcome(base({ pgbenchStatus: 1 })).outcome, "error");
  assert.equal(pgDebugOutcome(base({ status: "start-failed" })).outcome, "error");
  assert.equal(pgDebugOutcome(base({ patchDelta: null })).outcome, "error");
});

test("pgDebugVerdict: any killed v3 debugging-on run is the finding; safe needs an exercised survivor", () => {
  const row = (o: Partial<PgDebugRow>, kernel = "unfixed") => ({ ...base(), outcome: "survived" as const, reason: "r", kernel, ...o });
  assert.equal(pgDebugVerdict([row({}), row({ patch: "v2", id: "v2-debug1", outcome: "killed" })]).verdict, "v3 safe under rseq debugging");
  assert.equal(pgDebugVerdict([row({}), row({ outcome: "killed" }, "fixed")]).verdict, "v3 KILLED under rseq debugging");
  assert.equal(pgDebugVerdict([row({ outcome: "not exercised" })]).verdict, "not shown");
  assert.equal(pgDebugVerdict([row({ rseqDebug: 0 })]).verdict, "not shown");
});

test("readPgDebugBoot: a boot directory's runs (killed lines, both windows), arms not reached are errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "pgdbg-"));
  try {
    const R = join(dir, "runs", "v3-debug1");
    mkdirSync(R, { recursive: true });
    const f = (n: string, t: string) => writeFileSync(join(R, n), t);
    f("status", "done\n");
    f("rseq-debug", "1\n");
    f("slice_extension_status", "enabled (rseq area: own, 64 bytes)\n");
    f("pgbench-status", "0\n");
    f("pgbench.txt", "number of transactions actually processed: 321\n");
    f("server.log", "LOG:  database system is ready\n");
    f("snap-before.json", JSON.stringify({ patch: { granted_yielded: 2, clear_yields: 5 }, rseqStats: STATS(10, 2, 3) }) + "\n");
    f("snap-after.json", JSON.stringify({ patch: { granted_yielded: 5, clear_yields: 9 }, rseqStats: STATS(17, 5, 6) }) + "\n");
    f("rseq-stats-before.txt", STATS(9, 2, 3));
    f("rseq-stats-after.txt", STATS(18, 5, 6));
    f("rseq-stats-whole-before.txt", STATS(0, 0, 0));
    f("rseq-stats-whole-after.txt", STATS(30, 9, 8));
    const [a, b] = readPgDebugBoot(dir, ARMS);
    assert.equal(a!.outcome, "survived", a!.reason);
    assert.equal(a!.transactions, 321);
    assert.deepEqual(a!.patchDelta, { granted_yielded: 3, clear_yields: 4 });
    assert.equal(a!.kernelDelta!.sgrant, 7);
    assert.equal(a!.kernelDeltaShell!.sgrant, 9);
    assert.equal(a!.kernelDeltaWhole!.syield, 9);
    assert.equal(b!.outcome, "error");
    assert.equal(b!.status, "not reached");
    f("server.log", "LOG:  client backend (PID 12) was terminated by signal 11: Segmentation fault\n");
    assert.equal(readPgDebugBoot(dir, ARMS)[0]!.outcome, "killed");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("parseArm and installedPatchBuild: arms name a version and a debugfs value; builds found by their patch hash", () => {
  assert.deepEqual(parseArm("v3-debug0", { v3: "/b" }), { id: "v3-debug0", patch: "v3", bin: "/b", debug: 0 });
  assert.throws(() => parseArm("v2-debug1", { v3: "/b" }), /v2_bin/);
  assert.throws(() => parseArm("v4-debug1", { v3: "/b" }), UserError);
  const root = mkdtempSync(join(tmpdir(), "pginst-"));
  try {
    assert.equal(installedPatchBuild("v2", "18", root), undefined);
    mkdirSync(join(root, "18.6-patched-e19f5bec8d7b-3ca8dcc828d0", "bin"), { recursive: true });
    assert.equal(installedPatchBuild("v2", "18", root), undefined, "no postgres binary in it");
    writeFileSync(join(root, "18.6-patched-e19f5bec8d7b-3ca8dcc828d0", "bin", "postgres"), "");
    assert.equal(installedPatchBuild("v2", "18", root), join(root, "18.6-patched-e19f5bec8d7b-3ca8dcc828d0", "bin"));
    assert.equal(installedPatchBuild("v2", "15", root), undefined);
    assert.equal(installedPatchBuild("v3", "18", root), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("pgDebugEnvelope: grants per run from runs.json, the guests' preemption mode only where a boot read it", () => {
  const rec = join(repoRoot(), "data/runs/pg-rseq-debug/20261204T215627Z/out");
  const e = pgDebugEnvelope(rec);
  assert.match(e.sliceExtension!, /granted extensions in 6 of 6 runs/);
  assert.equal(e.preemptMode, undefined, "that record's boots did not read sched/preempt");
  assert.equal((e.environment as { kind: string }).kind, "vm");
  const dir = mkdtempSync(join(tmpdir(), "pgdbg-env-"));
  try {
    cpSync(rec, join(dir, "out"), { recursive: true });
    writeFileSync(join(dir, "out", "raw", "unfixed", "preempt"), "none voluntary full (lazy)\n");
    assert.match(pgDebugEnvelope(join(dir, "out")).preemptMode!, /^none voluntary full \(lazy\) \(debugfs sched\/preempt/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
