// perf-lock and perf-profile collectors with the real perf of this machine, around real workloads
// (sysbench threads: pthread mutexes → futex hash-bucket spinlocks in the kernel; sysbench cpu).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { workDir } from "../src/util/paths.js";
import { createPerfLockCollector } from "../src/collect/perf-lock.js";
import { createPerfProfileCollector } from "../src/collect/perf-profile.js";
import type { PerfLockContention } from "../src/parse/perf-lock.js";
import type { PerfReportRow } from "../src/parse/perf-report.js";

const runDir = (name: string) => {
  const d = join(workDir(), "test-tmp", name);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  return d;
};
const sysbench = (...args: string[]) => spawnSync("sysbench", args, { encoding: "utf8" });

const perfLock = createPerfLockCollector();
const lockCheck = await perfLock.check();

test("perf-lock: records contention during a run and parses both reports", { skip: !lockCheck.ok && lockCheck.reason }, async () => {
  const dir = runDir("collect-perf-lock");
  await perfLock.start({ runDir: dir });
  const sb = sysbench("threads", "--threads=16", "--thread-locks=2", "--time=2", "run");
  assert.equal(sb.status, 0, sb.stderr);
  const out = await perfLock.stop({ runDir: dir });
  const p = out.parsed as { byCaller: PerfLockContention; byTask: PerfLockContention };
  assert.equal(p.byCaller.mode, "caller");
  assert.equal(p.byTask.mode, "task");
  assert.ok(p.byCaller.entries.length > 0, readFileSync(join(dir, "perf-lock-contention.txt"), "utf8"));
  assert.ok(p.byTask.entries.some((e) => e.comm === "sysbench"), "sysbench threads contended in the kernel");
  assert.ok(!existsSync(join(dir, "perf-lock.data")), "the binary data file is removed");
  for (const f of out.files) assert.ok(existsSync(join(dir, f)), f);
});

const perfProfile = createPerfProfileCollector();
const profCheck = await perfProfile.check();

test("perf-profile: a system-wide profile of a CPU-bound run shows the workload", { skip: !profCheck.ok && profCheck.reason }, async () => {
  const dir = runDir("collect-perf-profile");
  await perfProfile.start({ runDir: dir });
  const sb = sysbench("cpu", "--threads=2", "--time=2", "run");
  assert.equal(sb.status, 0, sb.stderr);
  const out = await perfProfile.stop({ runDir: dir });
  const rows = out.parsed as PerfReportRow[];
  assert.ok(rows.length > 0);
  // the machine is shared: the workload's share depends on the load, but it must be in the profile
  assert.ok(rows.some((r) => r.command === "sysbench" && r.selfPct > 0), "sysbench in the profile");
  assert.ok(rows.every((r) => r.childrenPct === null || r.childrenPct >= r.selfPct));
  assert.ok(!existsSync(join(dir, "perf.data")));
});
