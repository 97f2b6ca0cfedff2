/**
 * A mechanism run leaves a complete record: `slicelab mechanism run` (micro
 * and --pg) writes record.json (study mechanism-2026) beside its rows, from a
 * simulated guest's result (no VM); `mechanism analyse DIR` rewrites it from
 * provenance.json, keeping what an older, hand-derived envelope knew.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeMicroRecord, writePgRecord } from "../src/study/drivers/mechanism-files.js";
import { readRecord, isUnknown, listRecords } from "../src/record/format.js";
import { planRuns, defaultShape, type MechanismRow, type MechanismRun } from "../src/drivers/mechanism/index.js";
import { planPgRuns, defaultPgShape, type PgMechanismRow, type PgMechanismRun } from "../src/drivers/mechanism-pg/run.js";
import { repoRoot } from "../src/util/paths.js";

const VM = { accel: "tcg-icount" as const, accelReason: "--accel tcg-icount", cpus: 1, memMiB: 2048, append: "no_timer_check", exitStatus: 0, timedOut: false, bootToCommandS: 9, totalS: 60 };
const GUEST = { configSha256: "a".repeat(64), traceClock: "global", preemptAtBoot: "none voluntary full (lazy)", notes: null };
const CTX = (command: string[]) => ({ command, started: "2026-12-02T01:00:00.000Z", ended: "2026-12-02T01:05:00.000Z", loadStart: [1, 2, 3] as [number, number, number], loadEnd: [2, 2, 2] as [number, number, number] });

function microRun(): MechanismRun {
  const plan = planRuns({ blocks: 1, modes: ["full", "lazy"], pages: ["4k"], extensions: ["off", "on"], seed: 9 });
  const rows = plan.map((p, i) => ({
    run: p.id, block: p.block, order: p.order, seed: p.seed, mode: p.mode, modeActive: p.mode, kernelRelease: "7.2.13", accel: "tcg-icount", pages: p.pages,
    hugeKiBMapped: 0, extension: p.extension, durationS: 0.5, holds: 1000 + i, holdsLogged: 3, logLost: 0, deschedHolds: 2, kernelFault: 1, kernelOther: 0,
    returnFault: 0, returnInterrupt: 1, returnSyscall: 0, voluntary: 0, unclassified: 0, covered: p.extension === "on" ? 1 : 0,
    grants: p.extension === "on" ? 5 : 0, expired: 0, revoked: 0, yields: 0, grantsInDeschedHolds: 0, faultsUnderLock: 10, freshPagesTouched: 10,
    regionExhausted: false, throughputPerS: 100, hogWorkPerS: 10, holdP99Ns: 3000, waitP99Ns: 1000, waitP999Ns: 2000, dropped: 0, rearmed: 0,
    lostEvents: 0, switchesWithoutStack: 0, preemptMarkDisagree: 0,
  })) as MechanismRow[];
  return {
    rawDir: "/nonexistent/raw", vm: VM, kernelRelease: "7.2.13", levels: { modes: ["full", "lazy"], pages: ["4k"], extensions: ["off", "on"] }, plan: [...plan, { ...plan[0]!, id: "005", order: 4 }], shape: defaultShape({ durationS: 0.5 }), rows,
    failed: [{ run: "005", reason: "not reached (the guest timed out)" }], guest: { nrHugepages: "64", ...GUEST }, micro: { sourceSha256: "b".repeat(64), static: true },
  };
}

function pgRun(): PgMechanismRun {
  const plan = planPgRuns({ blocks: 1, modes: ["lazy"], hugePages: ["off", "on"], extensions: ["on"], seed: 4 });
  const rows = plan.map((p) => ({
    run: p.id, block: p.block, order: p.order, seed: p.seed, mode: p.mode, modeActive: p.mode, kernelRelease: "7.2.13", accel: "tcg-icount", hugePages: p.hugePages,
    hugePagesStatus: p.hugePages, hugePagesTaken: p.hugePages === "on" ? 540 : 0, hugePagesTotal: 600, extension: p.extension,
    sliceExtensionStatus: "enabled (rseq area: its own, 64 bytes)", durationS: 2, holds: 200000, faultedHolds: 10, faultsUnderLock: 12, preemptedHolds: 100,
    faultedPreemptedHolds: 1, grantedHolds: 5, faultedGrantedHolds: 0, backendProcesses: 8, deschedHolds: 2, kernelFault: 1, kernelOther: 0, returnFault: 0,
    returnInterrupt: 1, returnSyscall: 0, voluntary: 0, unclassified: 0, logLost: 0, lostEvents: 0, grants: 7, expired: 0, revoked: 0, yields: 3,
    tpsLoad: 100, tpsConnect: 5, transactionsLoad: 200, transactionsConnect: 10,
  })) as unknown as PgMechanismRow[];
  return {
    rawDir: "/nonexistent/raw", vm: { ...VM, memMiB: 3072 }, kernelRelease: "7.2.13", levels: { modes: ["lazy"], hugePages: ["off", "on"], extensions: ["on"] }, onSetting: "all", plan, shape: defaultPgShape({ durationS: 2 }), rows, failed: [], seedSeconds: 3,
    guest: { nrHugepages: "600", sharedMemoryHugePages: "540", meminfoBoot: null, ...GUEST },
  };
}

test("writeMicroRecord: a run's directory is a complete record (record.json, study mechanism-2026, the VM, design, command)", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "mech-rec-")), "20261202T010000Z");
  const command = ["slicelab", "mechanism", "run", "--accel", "tcg-icount", "--blocks", "1", "--seed", "9"];
  writeMicroRecord(dir, microRun(), { ...CTX(command), design: { blocks: 1, seed: 9, factors: { mode: ["full", "lazy"], pages: ["4k"], extension: ["off", "on"] } } }, {
    host: false, accel: "tcg-icount", kernel: "/k/bzImage", rec: { version: "7.2.13", bzImageSha256: "c".repeat(64), configSha256: "d".repeat(64) },
  });
  assert.ok(existsSync(join(dir, "record.json")), "the runner wrote record.json");
  const r = readRecord(dir);
  assert.equal(r.study, "mechanism-2026");
  assert.deepEqual(r.environment, { kind: "vm", detail: "the kit's VM: QEMU TCG-ICOUNT (--accel tcg-icount), 1 vCPU, 2048 MiB, boot line no_timer_check (provenance.json)" });
  assert.deepEqual(r.command, command);
  assert.match(r.title, /micro-benchmark.*Linux 7\.2\.13, QEMU tcg-icount\), 4 of 5 planned runs/);
  const d = r.design as Record<string, unknown>;
  assert.equal(d.blocks, 1);
  assert.equal(d.seed, 9);
  assert.equal(d.failedRuns, 1);
  assert.equal(r.kernel.configSha256, "d".repeat(64), "the build's config hash before the guest's");
  assert.match(String(r.kernel.preemptMode), /^full, lazy \(a factor/);
  assert.equal(r.kernel.sliceExtension, "available: the kernel granted extensions in 2 of 2 extension-on runs (rseq/stats, rows.json grants)");
  assert.ok(isUnknown(r.postgres.version));
  assert.equal(r.started, "2026-12-02T01:00:00.000Z");
  assert.match(String(r.concurrent), /load average 1 2 3 at the start, 2 2 2 at the end/);
  assert.deepEqual(r.files, ["answer.txt", "cells.json", "predictions.json", "provenance.json", "rows.csv", "rows.json"]);
  assert.deepEqual(r.derivedFrom, []);
  assert.ok(r.notes.some((n) => /TCG functional evidence/.test(n)));
  assert.ok(r.notes.some((n) => /1 planned runs produced no row: 005/.test(n)));
  assert.equal(listRecords(join(dir, "..")).length, 1, "the record index finds it");
  rmSync(join(dir, ".."), { recursive: true, force: true });
});

test("writePgRecord: the --pg run's record.json names the server build and the huge_pages factor", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "mech-rec-")), "pg-20261202T010000Z");
  const command = ["slicelab", "mechanism", "run", "--pg", "--blocks", "1"];
  writePgRecord(dir, pgRun(), { ...CTX(command), design: { blocks: 1, seed: 4, factors: { mode: ["lazy"], huge_pages: ["off", "on"], extension: ["on"] } } }, {
    accel: "tcg-icount", kernel: "/k/bzImage", bin: "/x/install/18.1-diag/bin", build: { version: "18.1", variant: "diag", patch: { files: [], sha256: [], hash: "e".repeat(12) } },
  });
  const r = readRecord(dir);
  assert.equal(r.study, "mechanism-2026");
  assert.equal(r.environment && (r.environment as { kind: string }).kind, "vm");
  assert.match(r.title, /PostgreSQL 18 \(diag build\).*2 of 2 planned runs/);
  assert.deepEqual((r.design as Record<string, unknown>).factors, { mode: ["lazy"], huge_pages: ["off", "on"], extension: ["on"] });
  assert.equal(r.postgres.version, "18.1");
  assert.equal(r.postgres.build, "kit diag build /x/install/18.1-diag/bin");
  assert.equal(r.postgres.patch, "eeeeeeeeeeee");
  assert.equal(r.kernel.sliceExtension, "the server's slice_extension_status: enabled (rseq area: its own, 64 bytes) (rows.json)");
  assert.equal(r.kernel.configSha256, "a".repeat(64), "no build record: the guest's config hash");
  assert.deepEqual(r.files, ["answer.txt", "cells.json", "provenance.json", "rows.csv", "rows.json"]);
  rmSync(join(dir, ".."), { recursive: true, force: true });
});

test("mechanism analyse DIR writes record.json, and over a hand-derived one keeps its command and notes but fixes where it ran", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "mech-rec-")), "20261201T000000Z");
  writeMicroRecord(dir, microRun(), { ...CTX(["x"]), design: { blocks: 1, seed: 9, factors: {} } }, { host: false, accel: "tcg-icount", kernel: "/k" });
  // an older record: provenance without command/times (as the runner wrote before), a derived envelope with the wrong environment
  const prov = JSON.parse(readFileSync(join(dir, "provenance.json"), "utf8"));
  for (const k of ["command", "started", "ended", "loadStart", "loadEnd", "design"]) delete prov[k];
  writeFileSync(join(dir, "provenance.json"), JSON.stringify(prov));
  rmSync(join(dir, "record.json"));
  const cli = (args: string[]) => spawnSync(process.execPath, [join(repoRoot(), "bin/slicelab.js"), ...args], { encoding: "utf8" });
  let res = cli(["mechanism", "analyse", dir]);
  assert.equal(res.status, 0, res.stderr);
  assert.ok(existsSync(join(dir, "record.json")), "analyse wrote record.json");
  let r = readRecord(dir);
  assert.ok(isUnknown(r.command));
  assert.deepEqual(r.derivedFrom, ["provenance.json", "rows.json"]);
  assert.equal((r.design as Record<string, unknown>).blocks, 1, "blocks from the plan");
  assert.match(r.title, /^Mechanism factorial \(micro-benchmark/);
  const old = { ...r, title: "the pilot, 2 more blocks", environment: { kind: "host", detail: "on the host vm (provenance.json)" }, command: "slicelab mechanism run --blocks 2", notes: ["envelope derived by `slicelab record convert` from the directory's own files", "run at nice 5 beside a build"] };
  writeFileSync(join(dir, "record.json"), JSON.stringify(old));
  res = cli(["mechanism", "analyse", dir]);
  assert.equal(res.status, 0, res.stderr);
  r = readRecord(dir);
  assert.equal((r.environment as { kind: string }).kind, "vm");
  assert.equal(r.command, "slicelab mechanism run --blocks 2");
  assert.equal(r.title, "the pilot, 2 more blocks");
  assert.ok(r.notes.includes("run at nice 5 beside a build"));
  assert.ok(!r.notes.some((n) => /^envelope derived by/.test(n)));
  rmSync(join(dir, ".."), { recursive: true, force: true });
});
