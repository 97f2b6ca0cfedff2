// perf-lock and perf-profile collectors with the real perf of this machine, around real workloads
// (sysbench threads: pthread mutexes → futex hash-bucket spinlocks in the kernel; sysbench cpu).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
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
  // Run sysbench asynchronously so that its thread ids can be read while it runs: Debian's perf 6.1 often
  // cannot resolve the threads' names in the by-task report and prints ":TID" instead of "sysbench".
  const child = spawn("sysbench", ["threads", "--threads=16", "--thread-locks=2", "--time=2", "run"], { stdio: "ignore" });
  const tids = new Set<number>();
  const sampler = setInterval(() => {
    try {
      for (const t of readdirSync(`/proc/${child.pid}/task`)) tids.add(Number(t));
    } catch {
      // the process has ended
    }
  }, 100);
  const status = await new Promise<number | null>((res) => child.on("exit", (code) => res(code)));
  clearInterval(sampler);
  assert.equal(status, 0, "sysbench threads run");
  assert.ok(tids.size > 1, `sysbench's threads were seen (${tids.size})`);
  const out = await perfLock.stop({ runDir: dir });
  const p = out.parsed as { byCaller: PerfLockContention; byTask: PerfLockContention };
  assert.equal(p.byCaller.mode, "caller");
  assert.equal(p.byTask.mode, "task");
  assert.ok(p.byCaller.entries.length > 0, readFileSync(join(dir, "perf-lock-contention.txt"), "utf8"));
  assert.ok(
    p.byTask.entries.some((e) => e.comm === "sysbench" || (e.pid !== null && tids.has(e.pid))),
    `sysbench threads contended in the kernel (tids ${[...tids].slice(0, 5).join(",")}…; by task: ${JSON.stringify(p.byTask.entries.slice(0, 5).map((e) => [e.pid, e.comm]))})`,
  );
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
