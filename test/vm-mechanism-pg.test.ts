/**
 * The PostgreSQL mechanism factorial without a VM: the plan, the guest script,
 * the diag counters and meminfo parsers, one run directory reduced to its row
 * (a synthetic run with a hold preempted inside a page fault), the cell
 * summaries and the answer; and the diagnostic patch: it applies on top of the
 * v2 series and adds code only under #ifdef SLICELAB_DIAG.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, cpSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { guestPgScript, parseDiagCounters, parseHugeMeminfo, pgWaitFields, writePgWaitEvidence, planPgRuns, rowFromPgRunDir, defaultPgShape, type PgMechanismRow } from "../src/drivers/mechanism-pg/run.js";
import { pgAnswerSentence, pgEffect, summarisePgCells, pgFactorialTable } from "../src/analysis/mechanism-pg.js";
import { parseHolderTrace } from "../src/parse/holder-trace.js";
import { diagPatchFiles, patchFiles } from "../src/postgres/patch.js";
import { ParseError, UserError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

test("planPgRuns: every cell once per block, seeded, a seed per run", () => {
  const p = planPgRuns({ blocks: 3, modes: ["full", "lazy"], hugePages: ["off", "on"], extensions: ["off", "on"], seed: 5 });
  assert.equal(p.length, 24);
  for (const b of [1, 2, 3]) {
    const cells = p.filter((r) => r.block === b).map((r) => `${r.mode}/${r.hugePages}/${r.extension}`);
    assert.equal(new Set(cells).size, 8);
  }
  assert.deepEqual(planPgRuns({ blocks: 3, modes: ["full", "lazy"], hugePages: ["off", "on"], extensions: ["off", "on"], seed: 5 }), p);
  assert.notDeepEqual(p.filter((r) => r.block === 1).map((r) => r.mode + r.hugePages + r.extension), p.filter((r) => r.block === 2).map((r) => r.mode + r.hugePages + r.extension));
  assert.throws(() => planPgRuns({ blocks: 0, modes: ["full"], hugePages: ["off"], extensions: ["off"], seed: 1 }), UserError);
});

test("guestPgScript: a fresh server per run with huge_pages and slice_extension (on → all), meminfo and huge_pages_status recorded", () => {
  const runs = planPgRuns({ blocks: 1, modes: ["lazy"], hugePages: ["on"], extensions: ["on"], seed: 1 });
  const s = guestPgScript({ bin: "/opt/pg/bin", user: "slicelab", runs, shape: defaultPgShape(), bufferKb: 1024 });
  assert.match(s, new RegExp(`^run 001 lazy on all ${runs[0]!.seed}$`, "m"));
  assert.match(s, /-c huge_pages=\$hp -c slice_extension=\$ext/);
  assert.match(s, /shared_memory_size_in_huge_pages/);
  assert.match(s, /SHOW huge_pages_status/);
  assert.match(s, /meminfo-start\.txt/);
  assert.match(s, /shared_buffers = 1GB/);
  const seeded = guestPgScript({ bin: "/opt/pg/bin", user: "slicelab", runs, shape: defaultPgShape(), bufferKb: 1024, seed: "/w/seed/data" });
  assert.match(seeded, /cp -a \/w\/seed\/data \$PGDATA/);
  assert.doesNotMatch(seeded, /initdb/);
  assert.match(s, /pgbench .* -S -C -c 2 -j 1 -T 2 /);
  // the header the script writes is one the holder-trace parser accepts
  const header = /echo "(# slicelab-lhp hold log v1:[^"]*)"/.exec(s)![1]!;
  const t = parseHolderTrace(`${header}\n# worker 7 tid 7 holds 3 logged 0 lost 0\n# slicelab-lhp trace follows\n`, "x");
  assert.equal(t.minLogNs, 0);
  // the v3 diag build's wait files are cleared before and copied after every run; the setting is recorded
  assert.match(s, /rm -f [^\n]*slicelab-armed-waits\.txt [^\n]*slicelab-wakeup-stalls\.txt/);
  assert.match(s, /cp \$PGDATA\/slicelab-armed-waits\.txt "\$R\/armed-waits\.txt"/);
  assert.match(s, /cp \$PGDATA\/slicelab-wakeup-stalls\.txt "\$R\/wakeup-stalls\.txt"/);
  assert.match(s, /echo \$ext > "\$R\/slice_extension"/);
});

test("guestPgScript: --on-setting spinlock makes the on runs slice_extension = spinlock; off stays off", () => {
  const runs = planPgRuns({ blocks: 1, modes: ["full"], hugePages: ["off"], extensions: ["off", "on"], seed: 2 });
  const s = guestPgScript({ bin: "/b", user: "u", runs, shape: defaultPgShape(), bufferKb: 1024, onSetting: "spinlock" });
  const on = runs.find((r) => r.extension === "on")!;
  const off = runs.find((r) => r.extension === "off")!;
  assert.match(s, new RegExp(`^run ${on.id} full off spinlock ${on.seed}$`, "m"));
  assert.match(s, new RegExp(`^run ${off.id} full off off ${off.seed}$`, "m"));
  assert.doesNotMatch(s, /^run .* all /m);
});

test("pgWaitFields: the armed-wait and wakeup sums of a run directory; nulls without the files, zero wakeups when only the wakeup file is absent", () => {
  const dir = mkdtempSync(join(tmpdir(), "mech-pg-waits-"));
  assert.equal(pgWaitFields(dir).endedHolds, null);
  assert.equal(pgWaitFields(dir).wakeups, null);
  writeFileSync(join(dir, "slice_extension"), "spinlock\n");
  writeFileSync(join(dir, "armed-waits.txt"),
    "slicelab-armed-waits pid=5 type=client backend unmeasured_holds=0 spin_waits=9 armed_spin_waits=3 spin_sleeps=1 armed_spin_sleeps=0 lwlock_sleeps=4 armed_lwlock_sleeps=1 ended_holds=70 armed_wait_holds=4 spin_wait_grants=2 lwlock_wait_grants=1\n");
  const a = pgWaitFields(dir);
  assert.deepEqual([a.sliceSetting, a.endedHolds, a.armedWaitHolds, a.armedSpinWaits, a.spinWaitGrants, a.lwlockWaitGrants, a.wakeups, a.wakeupYields], ["spinlock", 70, 4, 3, 2, 1, 0, 0]);
  writeFileSync(join(dir, "wakeup-stalls.txt"),
    "slicelab-wakeup-stalls pid=5 type=client backend wakeups=6 waiters=7 yields=1 yield_waiters=2 stall_ns=30000 stall_max_ns=30000 release_ns=500 logged=1 lost=0\nstall 5 100 30100 2\n");
  const b = pgWaitFields(dir);
  assert.deepEqual([b.wakeups, b.wakeupYields, b.wakeupYieldWaiters, b.wakeupStallNs, b.wakeupStallMaxNs, b.wakeupReleaseNs], [6, 1, 2, 30000, 30000, 500]);
  writeFileSync(join(dir, "wakeup-stalls.txt"), "stall 5 100 30100 2\n");
  assert.throws(() => pgWaitFields(dir), (e: unknown) => e instanceof ParseError && /wakeup-stalls\.txt:1/.test(e.message));
  rmSync(dir, { recursive: true, force: true });
});

const DIAG = [
  "slicelab-diag pid=100 type=postmaster holds=50 faulted=0 faults=0 preempted=1 faulted_preempted=0 granted=0 faulted_granted=0",
  "slicelab-diag pid=101 type=client backend holds=1000 faulted=4 faults=5 preempted=3 faulted_preempted=1 granted=2 faulted_granted=1",
  "slicelab-diag pid=102 type=client backend holds=2000 faulted=6 faults=6 preempted=2 faulted_preempted=0 granted=1 faulted_granted=0",
  "",
].join("\n");

test("parseDiagCounters sums the processes and the client backends apart; bad lines are named", () => {
  const d = parseDiagCounters(DIAG, "diag.txt");
  assert.equal(d.processes, 3);
  assert.equal(d.holds, 3050);
  assert.equal(d.faults, 11);
  assert.equal(d.faulted, 10);
  assert.equal(d.preempted, 6);
  assert.equal(d.faultedPreempted, 1);
  assert.equal(d.backends.processes, 2);
  assert.equal(d.backends.holds, 3000);
  assert.throws(() => parseDiagCounters("slicelab-diag pid=1 holds=3\n", "d.txt"), (e: unknown) => e instanceof ParseError && /d\.txt:1: expected slicelab-diag pid=N type=T/.test(e.message));
  assert.throws(
    () => parseDiagCounters(`${DIAG}slicelab-diag pid=9 type=x holds=1 faulted=2 faults=2 preempted=0 faulted_preempted=0 granted=0 faulted_granted=0\n`, "d.txt"),
    (e: unknown) => e instanceof ParseError && /d\.txt:4: expected sub-counts/.test(e.message),
  );
});

const MEMINFO = "AnonHugePages:         0 kB\nHugePages_Total:     560\nHugePages_Free:      540\nHugePages_Rsvd:      500\nHugePages_Surp:        0\nHugepagesize:       2048 kB\nHugetlb:         1146880 kB\n";

test("parseHugeMeminfo reads the HugePages lines; a missing one is named", () => {
  assert.deepEqual(parseHugeMeminfo(MEMINFO, "m"), { total: 560, free: 540, rsvd: 500, surp: 0, pageKiB: 2048 });
  assert.throws(() => parseHugeMeminfo("HugePages_Total: 1\n", "m.txt"), /m\.txt:1: expected a line "HugePages_Free: N"/);
});

const PGBENCH = (clients: number, tps: number, conn: boolean) => `pgbench (18.6)
transaction type: <builtin: select only>
scaling factor: 4
query mode: simple
number of clients: ${clients}
number of threads: 1
maximum number of tries: 1
duration: 15 s
number of transactions actually processed: ${Math.round(tps * 15)}
number of failed transactions: 0 (0.000%)
latency average = 10.000 ms
${conn ? "average connection time = 50.000 ms\n" : "initial connection time = 5.000 ms\n"}tps = ${tps.toFixed(6)} (${conn ? "including reconnection times" : "without initial connection time"})
`;

function syntheticRun(dir: string, o: { kernelFault: boolean }): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "status"), "0\n");
  writeFileSync(join(dir, "preempt"), "full (lazy)\n");
  writeFileSync(join(dir, "diag.txt"), DIAG);
  writeFileSync(join(dir, "meminfo-start.txt"), MEMINFO);
  writeFileSync(join(dir, "huge_pages_status"), "on\n");
  writeFileSync(join(dir, "slice_extension_status"), "enabled\n");
  writeFileSync(join(dir, "pgbench-load.txt"), PGBENCH(3, 200, false));
  writeFileSync(join(dir, "pgbench-connect.txt"), PGBENCH(2, 4, true));
  const stack = o.kernelFault
    ? [" => __schedule+0x1/0x2", " => preempt_schedule_irq+0x1/0x2", " => irqentry_exit+0x1/0x2", " => shmem_get_folio_gfp+0x1/0x2", " => __handle_mm_fault+0x1/0x2", " => handle_mm_fault+0x1/0x2", " => exc_page_fault+0x1/0x2", " => asm_exc_page_fault+0x1/0x2"]
    : [" => __schedule+0x1/0x2", " => schedule+0x1/0x2", " => irqentry_exit_to_user_mode+0x1/0x2", " => asm_sysvec_apic_timer_interrupt+0x1/0x2"];
  const trace = [
    "# slicelab-lhp hold log v1: postgres diag build, holds >= 0 ns with an involuntary switch",
    "# worker 101 tid 101 holds 1000 logged 1 lost 0",
    "101 1000000000 1000200000 4",
    "# worker 102 tid 102 holds 2000 logged 0 lost 0",
    "# slicelab-lhp trace follows",
    "# tracer: nop",
    `        postgres-101     [000] d..2.     1.000050: sched_switch: prev_comm=postgres prev_pid=101 prev_prio=120 prev_state=${o.kernelFault ? "R+" : "R"} ==> next_comm=postgres next_pid=102 next_prio=120`,
    "        postgres-101     [000] d..2.     1.000050: <stack trace>",
    ...stack,
    "        postgres-102     [000] d..2.     1.000150: sched_switch: prev_comm=postgres prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=postgres next_pid=101 next_prio=120",
    "",
  ].join("\n");
  writeFileSync(join(dir, "holder-trace.txt.gz"), gzipSync(trace));
}

test("rowFromPgRunDir: diag counters, the traced class of the preempted hold, huge pages held, tps", () => {
  const root = mkdtempSync(join(tmpdir(), "mech-pg-"));
  const plan = planPgRuns({ blocks: 1, modes: ["lazy"], hugePages: ["on"], extensions: ["on"], seed: 1 })[0]!;
  syntheticRun(join(root, "a"), { kernelFault: true });
  const row = rowFromPgRunDir(join(root, "a"), plan, { kernelRelease: "7.2.13", accel: "tcg-icount", durationS: 15 });
  assert.equal(row.modeActive, "lazy");
  assert.equal(row.holds, 3050);
  assert.equal(row.faultsUnderLock, 11);
  assert.equal(row.backendProcesses, 2);
  assert.equal(row.deschedHolds, 1);
  assert.equal(row.kernelFault, 1);
  assert.equal(row.returnInterrupt, 0);
  assert.equal(row.hugePagesTaken, 560 - 540 + 500);
  assert.equal(row.hugePagesStatus, "on");
  assert.equal(row.tpsLoad, 200);
  assert.equal(row.tpsConnect, 4);
  assert.equal(row.grants, null, "no rseq stats files: unknown, not 0");
  syntheticRun(join(root, "b"), { kernelFault: false });
  const r2 = rowFromPgRunDir(join(root, "b"), plan, { kernelRelease: "7.2.13", accel: "tcg-icount", durationS: 15 });
  assert.equal(r2.kernelFault, 0);
  assert.equal(r2.returnInterrupt, 1);
  writeFileSync(join(root, "b", "status"), "start-failed\n");
  assert.throws(() => rowFromPgRunDir(join(root, "b"), plan, { kernelRelease: "7.2.13", accel: "tcg-icount", durationS: 15 }), /run 001 ended with status start-failed/);
  rmSync(root, { recursive: true, force: true });
});

function row(o: Partial<PgMechanismRow>): PgMechanismRow {
  return {
    run: "001", block: 1, order: 0, seed: 1, mode: "full", modeActive: "full", kernelRelease: "7.2.13", accel: "tcg-icount", hugePages: "off",
    hugePagesStatus: "off", hugePagesTaken: 0, hugePagesTotal: 560, extension: "off", sliceExtensionStatus: "", durationS: 15, holds: 1_000_000,
    faultedHolds: 0, faultsUnderLock: 0, preemptedHolds: 0, faultedPreemptedHolds: 0, grantedHolds: 0, faultedGrantedHolds: 0, backendProcesses: 10,
    deschedHolds: 0, kernelFault: 0, kernelOther: 0, returnFault: 0, returnInterrupt: 0, returnSyscall: 0, voluntary: 0, unclassified: 0, logLost: 0,
    lostEvents: 0, grants: null, expired: null, revoked: null, yields: null, tpsLoad: 100, tpsConnect: 3, transactionsLoad: 1500, transactionsConnect: 45,
    ...o,
  };
}

test("summarisePgCells and the answer: rates per million holds with intervals, in-kernel share, huge pages really held", () => {
  const rows = [
    row({ run: "1", faultsUnderLock: 100, faultedHolds: 90, kernelFault: 3, returnInterrupt: 1 }),
    row({ run: "2", faultsUnderLock: 120, faultedHolds: 100, kernelFault: 1, returnInterrupt: 1 }),
    row({ run: "3", hugePages: "on", hugePagesStatus: "on", hugePagesTaken: 530, faultsUnderLock: 2 }),
    row({ run: "4", hugePages: "on", hugePagesStatus: "on", hugePagesTaken: 520, faultsUnderLock: 4 }),
  ];
  const cells = summarisePgCells(rows);
  assert.equal(cells.length, 2);
  const off = cells.find((c) => c.hugePages === "off")!;
  assert.equal(off.rates.faults.mean, 110);
  // Two runs of a count: no interval (countInterval), never one reaching below zero.
  assert.ok(Number.isNaN(off.rates.faults.lo) && Number.isNaN(off.rates.faults.hi), JSON.stringify(off.rates.faults));
  assert.equal(off.inKernelShare.mean, 4 / 6);
  const on = cells.find((c) => c.hugePages === "on")!;
  assert.equal(on.hugePagesOnRuns, 2);
  assert.equal(on.hugePagesTakenMin, 520);
  const d = pgEffect(rows, { mode: "full", hugePages: "off", extension: "off" }, { mode: "full", hugePages: "on", extension: "off" }, "faults");
  assert.equal(d.mean, 3 - 110);
  const a = pgAnswerSentence(rows, cells);
  assert.match(a, /full: 110\.0 \(.+\) minor faults per million spin-style holds with 4 KB pages; 3\.0 \(.+\) with huge_pages=on \(huge_pages_status on in 2 of 2 runs, ≥ 520 huge pages held\)/);
  assert.match(a, /of 6 traced holder preemptions 4 \(67 %\) were inside the kernel \(4 in a page fault\) and 2 at the return/);
  assert.match(a, /TCG functional evidence/);
  assert.equal(pgFactorialTable(cells).length, 2);
  assert.equal(pgAnswerSentence([]), "No PostgreSQL runs recorded.");
});

test("the diagnostic patch: a separate file, code only under #ifdef SLICELAB_DIAG", () => {
  const files = diagPatchFiles("18");
  assert.equal(files.length, 1);
  assert.ok(!patchFiles("18").some((f) => f.includes("/diag/")), "the benchmark series does not include it");
  const text = readFileSync(files[0]!, "utf8");
  let depth = 0;
  let inDiag = false;
  for (const l of text.split("\n")) {
    if (l.startsWith("@@")) continue;
    if (!l.startsWith("+") || l.startsWith("+++")) continue;
    const c = l.slice(1);
    if (/^#ifdef SLICELAB_DIAG/.test(c)) {
      assert.equal(inDiag, false);
      inDiag = true;
      depth = 0;
      continue;
    }
    if (inDiag && /^#if/.test(c)) depth++;
    if (inDiag && /^#endif/.test(c)) {
      if (depth === 0) inDiag = false;
      else depth--;
      continue;
    }
    if (!inDiag) assert.match(c, /^\s*$/, `added line outside #ifdef SLICELAB_DIAG: ${JSON.stringify(c)}`);
  }
  assert.equal(inDiag, false, "every #ifdef SLICELAB_DIAG is closed");
});

const PG_SRC = join(process.env.SLICELAB_CACHE ?? join(process.env.HOME ?? "/root", ".cache", "slicelab"), "postgres", "src", "postgresql-18_18.6-3");

test("the diagnostic patch applies without fuzz on top of the series the kit builds (v3)", { skip: existsSync(join(PG_SRC, "src")) ? false : `no PostgreSQL 18 source at ${PG_SRC} (slicelab postgres fetch --version 18)` }, () => {
  const tree = mkdtempSync(join(tmpdir(), "diag-apply-"));
  cpSync(join(PG_SRC, "src", "include", "storage"), join(tree, "src", "include", "storage"), { recursive: true });
  mkdirSync(join(tree, "src", "backend", "storage"), { recursive: true });
  cpSync(join(PG_SRC, "src", "backend", "storage"), join(tree, "src", "backend", "storage"), { recursive: true });
  cpSync(join(PG_SRC, "src", "backend", "utils"), join(tree, "src", "backend", "utils"), { recursive: true });
  cpSync(join(PG_SRC, "src", "include", "catalog"), join(tree, "src", "include", "catalog"), { recursive: true });
  // v3 also documents the setting and grants its functions in the catalog's SQL
  cpSync(join(PG_SRC, "src", "backend", "catalog"), join(tree, "src", "backend", "catalog"), { recursive: true });
  cpSync(join(PG_SRC, "doc", "src", "sgml"), join(tree, "doc", "src", "sgml"), { recursive: true });
  for (const p of [...patchFiles("18"), ...diagPatchFiles("18")]) {
    const r = spawnSync("patch", ["-p1", "--batch", "--forward", "--fuzz=0", "-i", p], { cwd: tree, encoding: "utf8" });
    assert.equal(r.status, 0, `${p}: ${r.stdout}${r.stderr}`);
  }
  const c = readFileSync(join(tree, "src", "backend", "storage", "lmgr", "slice_ext.c"), "utf8");
  assert.match(c, /SliceExtDiagReleased/);
  rmSync(tree, { recursive: true, force: true });
  assert.ok(repoRoot());
});

test("accelContrast compares the cells two sets of micro rows share, and says when they share none", async () => {
  const { accelContrast } = await import("../src/analysis/mechanism.js");
  const base = { run: "x", mode: "lazy", pages: "4k", extension: "off", kernelRelease: "7.2.13", accel: "tcg-icount", holds: 1000, deschedHolds: 10, kernelFault: 3, kernelOther: 0, returnFault: 0, returnInterrupt: 7, returnSyscall: 0, voluntary: 0, unclassified: 0, covered: 0, grants: null, faultsUnderLock: 100, throughputPerS: 1, hogWorkPerS: 1, waitP99Ns: null, lostEvents: 0 };
  const a = [base, { ...base, kernelFault: 5, returnInterrupt: 5 }];
  const b = [{ ...base, accel: "tcg", deschedHolds: 2, kernelFault: 0, returnInterrupt: 2 }, { ...base, accel: "tcg", deschedHolds: 4, kernelFault: 0, returnInterrupt: 4 }];
  const s = accelContrast(a, b, "icount", "plain TCG");
  assert.match(s, /^icount vs plain TCG — lazy\/4k\/off \(2 vs 2 runs\): 10\.00 \(n = 2: too few runs for an interval\) vs 3\.00 \(n = 2: too few runs for an interval\)/);
  assert.match(s, /in-kernel share 40 \(.*\) % vs 0 \(.*\) %/);
  assert.equal(accelContrast(a, [{ ...base, mode: "full" }], "A", "B"), "No cell is in both A and B.");
});

test("loadMechanismGroups pools micro records of one shape, kernel and accel; keeps PostgreSQL, host and other kernels apart", async () => {
  const { loadMechanismGroups, pickMechanismGroups, describeMicroGroup } = await import("../src/analysis/mechanism-records.js");
  const root = mkdtempSync(join(tmpdir(), "mech-groups-"));
  const shape = { threads: 2, hogs: 2, csNs: 2000, durationS: 0.5, faultEvery: 8, regionMiB: 96, jitterPct: 25, innerLocks: 2 };
  const put = (name: string, rows: object[], prov: object) => {
    mkdirSync(join(root, name));
    writeFileSync(join(root, name, "rows.json"), JSON.stringify(rows));
    writeFileSync(join(root, name, "provenance.json"), JSON.stringify(prov));
  };
  const vm72 = (accel: string) => ({ vm: { accel, cpus: 1 }, kernel: { release: "7.2.13" }, shape, plan: [{}], failed: [] });
  put("20260101T000000Z", [{ run: "001", mode: "full" }], vm72("tcg-icount"));
  put("20260101T010000Z", [{ run: "001", mode: "lazy" }, { run: "002", mode: "lazy" }], vm72("tcg-icount"));
  put("20260101T020000Z", [{ run: "001", mode: "lazy" }], vm72("tcg"));
  put("20260101T030000Z", [{ run: "001", mode: "none" }], { ...vm72("tcg-icount"), kernel: { release: "6.1.176" } });
  put("20260101T040000Z", [{ run: "001", mode: "none" }], { ...vm72("tcg"), kernel: { release: "6.1.177" } });
  put("host-20260101T000000Z", [{ run: "001", mode: "none" }], { vm: { accel: "host", cpus: 0 }, kernel: { release: "6.18.44" }, shape: { ...shape, durationS: 1 }, plan: [], failed: [] });
  put("pg-20260101T000000Z", [{ run: "001", mode: "full", hugePages: "off" }], { vm: { accel: "tcg-icount", cpus: 1 }, kernel: { release: "7.2.13" }, shape: { sharedBuffers: "1GB" }, plan: [], failed: [] });
  const groups = loadMechanismGroups(root);
  assert.equal(groups.length, 6);
  const p = pickMechanismGroups(groups);
  assert.equal(p.vm!.name, "20260101T000000Z + 20260101T010000Z");
  assert.deepEqual(p.vm!.rows.map((r) => r.run), ["20260101T000000Z/001", "20260101T010000Z/001", "20260101T010000Z/002"]);
  assert.equal(p.vm!.prov.plan.length, 2);
  assert.equal(p.tcg.length, 1, "a 6.x plain-TCG record is not a contrast of the 7.x factorial");
  assert.equal(p.tcg[0]!.name, "20260101T020000Z");
  assert.equal(p.noneVm!.kernelRelease, "6.1.176");
  assert.equal(p.host!.kind, "micro-host");
  assert.equal(p.pg!.kind, "pg");
  assert.equal(p.rows.length, 4, "the 7.x factorial plus the 6.x VM none reference (not the host one)");
  assert.match(describeMicroGroup(p.noneVm!), /Linux 6\.1\.176, QEMU accel `tcg-icount`, 1 vCPU/);
  writeFileSync(join(root, "pg-20260101T000000Z", "rows.json"), "{");
  assert.throws(() => loadMechanismGroups(root), /pg-20260101T000000Z\/rows\.json: not readable JSON/);
  rmSync(root, { recursive: true, force: true });
});

test("pgPooledRate and pgTraced pool the runs of a partial cell", async () => {
  const { pgPooledRate, pgTraced } = await import("../src/analysis/mechanism-pg.js");
  const rows = [
    row({ run: "1", extension: "off", faultsUnderLock: 100, kernelFault: 2, returnInterrupt: 1 }),
    row({ run: "2", extension: "on", faultsUnderLock: 200, kernelFault: 1 }),
    row({ run: "3", hugePages: "on", faultsUnderLock: 1, returnFault: 1 }),
    row({ run: "4", mode: "lazy", faultsUnderLock: 7 }),
  ];
  const i = pgPooledRate(rows, { mode: "full", hugePages: "off" }, "faults");
  assert.equal(i.mean, 150);
  assert.equal(i.n, 2);
  assert.ok(i.lo < 150 && i.hi > 150);
  assert.equal(pgPooledRate(rows, { mode: "full", hugePages: "on" }, "faults").n, 1);
  assert.deepEqual(pgTraced(rows, { mode: "full" }), { runs: 3, kernel: 3, kernelFault: 3, atReturn: 2, returnFault: 1 });
});

test("writePgWaitEvidence: copies the wait files into the record and matches each stall with the run's trace", () => {
  const root = mkdtempSync(join(tmpdir(), "mech-pg-ev-"));
  const raw = join(root, "raw");
  const rec = join(root, "rec");
  mkdirSync(rec);
  assert.throws(() => writePgWaitEvidence(rec), (e: unknown) => e instanceof UserError && /provenance\.json: no such file/.test(e.message));
  writeFileSync(join(rec, "provenance.json"), JSON.stringify({ rawDir: raw }));
  assert.throws(() => writePgWaitEvidence(rec), (e: unknown) => e instanceof UserError && /has no runs\/ directory/.test(e.message));
  const d = join(raw, "runs", "001");
  syntheticRun(d, { kernelFault: false });
  writeFileSync(join(d, "slice_extension"), "spinlock\n");
  writeFileSync(join(d, "wakeup-stalls.txt"),
    "slicelab-wakeup-stalls pid=101 type=client backend wakeups=3 waiters=3 yields=1 yield_waiters=1 stall_ns=110000 stall_max_ns=110000 release_ns=20 logged=1 lost=0\nstall 101 1000040000 1000150000 1\n");
  mkdirSync(join(raw, "runs", "002"), { recursive: true });
  const runs = writePgWaitEvidence(rec);
  assert.equal(runs.length, 1);
  assert.equal(runs[0]!.setting, "spinlock");
  // the synthetic trace: 101 switched out at 1.000050 s, back in at 1.000150 s
  assert.deepEqual([runs[0]!.summary.matched, runs[0]!.stalls[0]!.outNs, runs[0]!.stalls[0]!.offCpuNs, runs[0]!.stalls[0]!.viaYield], [1, 1_000_050_000, 100_000, false]);
  assert.ok(existsSync(join(rec, "wakeup-stalls-001.txt")));
  assert.equal(JSON.parse(readFileSync(join(rec, "stall-trace.json"), "utf8")).runs.length, 1);
  rmSync(root, { recursive: true, force: true });
});
