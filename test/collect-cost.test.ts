// The direct-cost measurement of the collectors (src/collect/cost.ts): /proc parsing on real
// processes, perf's sample line from a real recording, the arithmetic of the summary, and one real
// worker window (ctxsw watching real processes). No timing is asserted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { USER_HZ, bytesUnder, intervalStats, parseProcStatTimes, perfCapturedSamples, summarizeCost, type CostWindow } from "../src/collect/cost.js";

test("parseProcStatTimes: this process, and a command whose name holds ') ' and spaces", async () => {
  // Burn some CPU, then read /proc/self/stat and process.cpuUsage() (getrusage: an independent source) together.
  for (const t0 = Date.now(); Date.now() - t0 < 300; );
  const usage = process.cpuUsage();
  const me = parseProcStatTimes(readFileSync("/proc/self/stat", "utf8"));
  assert.equal(me.ppid, process.ppid);
  assert.ok(me.utime / USER_HZ >= 0.1, `utime ${me.utime} ticks after 300 ms of busy loop`);
  assert.ok(Math.abs(me.utime / USER_HZ - usage.user / 1e6) < 0.05, `utime ${me.utime / USER_HZ} s vs getrusage ${usage.user / 1e6} s`);
  assert.ok(Math.abs(me.stime / USER_HZ - usage.system / 1e6) < 0.05, `stime ${me.stime / USER_HZ} s vs getrusage ${usage.system / 1e6} s`);
  const d = join(workDir(), "test-tmp", "collect-cost-stat");
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  const odd = join(d, "a) b (c");
  copyFileSync("/bin/sleep", odd);
  const p = spawn(odd, ["5"], { stdio: "ignore" });
  try {
    await new Promise((r) => setTimeout(r, 200));
    const s = parseProcStatTimes(readFileSync(`/proc/${p.pid}/stat`, "utf8"));
    assert.equal(s.ppid, process.pid);
    assert.equal(s.cutime, 0);
  } finally {
    p.kill();
  }
  assert.throws(() => parseProcStatTimes("no parenthesis here"), /expected a \/proc\/PID\/stat line/);
});

test("perfCapturedSamples reads perf's summary line of a real recording", () => {
  const log = readFileSync(join(repoRoot(), "data/runs/sangappa-2024-locktable/20261130T021429Z/runs/007-B/collect/locktable/perf-lock.log"), "utf8");
  assert.deepEqual(perfCapturedSamples(log), { mb: 20.077, samples: 114340 });
  assert.equal(perfCapturedSamples("[ perf record: Woken up 10 times to write data ]\n"), null);
});

test("intervalStats: gaps between sample times", () => {
  assert.equal(intervalStats([5]), null);
  const s = intervalStats([0, 100, 210, 300, 700])!;
  assert.equal(s.count, 5);
  assert.equal(s.meanMs, 175);
  assert.equal(s.maxMs, 400);
  assert.equal(s.p95Ms, 400);
});

test("summarizeCost subtracts the bare worker's means and scales to the window", () => {
  const w = (collector: CostWindow["collector"], rep: number, self: number, children: number, server: number, windowS = 10): CostWindow => ({
    collector, rep, windowS, selfCpuS: self, childrenCpuS: children, serverCpuS: server, stopCpuS: 0.5, stopWallS: 1, bytesDuringRun: 1000 * windowS, bytesKept: 500, sampling: null, notes: [],
  });
  const windows = [w("none", 0, 0.02, 0, 0.01), w("none", 1, 0.04, 0, 0.03), w("pg-waits", 0, 0.13, 0.2, 0.2), w("pg-waits", 1, 0.23, 0.4, 0.2, 20)];
  const [s] = summarizeCost(windows, 2);
  assert.equal(s!.collector, "pg-waits");
  assert.equal(s!.reps, 2);
  // baseline per second: self 0.003, server 0.002; window 0: 0.013+0.02+0.02 = 0.053 → 0.048; window 1 (20 s): 0.0115+0.02+0.01 = 0.0415 → 0.0365
  assert.ok(Math.abs(s!.cpuPerSecond.max - 0.048) < 1e-9, String(s!.cpuPerSecond.max));
  assert.ok(Math.abs(s!.cpuPerSecond.min - 0.0365) < 1e-9, String(s!.cpuPerSecond.min));
  assert.ok(Math.abs(s!.machineSharePct - (100 * (0.048 + 0.0365)) / 2 / 2) < 1e-9);
  assert.ok(Math.abs(s!.serverPerSecond! - (0.015 - 0.002)) < 1e-9);
  assert.equal(s!.bytesPerSecond, 1000);
});

test("bytesUnder sums the files of a directory tree", () => {
  const d = join(workDir(), "test-tmp", "collect-cost-bytes");
  rmSync(d, { recursive: true, force: true });
  mkdirSync(join(d, "sub"), { recursive: true });
  writeFileSync(join(d, "a"), "12345");
  writeFileSync(join(d, "sub", "b"), "123");
  assert.equal(bytesUnder(d), 8);
  assert.equal(bytesUnder(join(d, "missing")), 0);
});

test("a real worker window: ctxsw watching the children of a shell", () => {
  const d = join(workDir(), "test-tmp", "collect-cost-worker");
  // The "server" CPU of a window is what the postmaster's exited children used (cutime + cstime):
  // here a child that spins for 0.5 s inside the window and exits, beside two sleeping ones. It
  // starts 2 s after the shell and the window lasts 4 s, so it is reaped inside the window even when
  // a loaded machine takes a second or more to start the worker (with a 0.1 s delay and a 1 s window
  // it could exit before the worker's first reading, and the test failed under load).
  const parent = spawn("sh", ["-c", "(sleep 2; timeout 0.5 sh -c 'while :; do :; done') & sleep 30 & sleep 30 & wait"], { stdio: "ignore", detached: true });
  try {
    const r = spawnSync(process.execPath, [join(repoRoot(), "dist/src/collect/cost.js"), "--worker", "ctxsw", "--seconds", "4", "--dir", d, "--postmaster-pid", String(parent.pid)], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const w = JSON.parse(r.stdout) as CostWindow;
    assert.equal(w.collector, "ctxsw");
    assert.ok(w.windowS >= 4);
    // Above nothing, and at most the 0.5 s the child could spin (a reading of the wrong process, of
    // live instead of exited children, or of ticks as seconds, fails here).
    assert.ok(w.serverCpuS !== null && w.serverCpuS > 0.02, `server CPU ${w.serverCpuS} s with a child that spun for 0.5 s`);
    assert.ok(w.serverCpuS <= 0.5 + 0.05, `server CPU ${w.serverCpuS} s > the child's 0.5 s`);
    assert.equal(w.sampling!.what, "/proc scans of the PostgreSQL processes");
    assert.ok(w.sampling!.count >= 2, JSON.stringify(w.sampling));
    const ctxsw = JSON.parse(readFileSync(join(d, "ctxsw.json"), "utf8")) as { processes: { kind: string }[] };
    assert.ok(ctxsw.processes.length >= 2, JSON.stringify(ctxsw.processes));
    assert.ok(w.bytesKept > 0);
    const bad = spawnSync(process.execPath, [join(repoRoot(), "dist/src/collect/cost.js"), "--worker", "nonsense", "--seconds", "1", "--dir", d], { encoding: "utf8" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--worker: unknown collector "nonsense"/);
  } finally {
    process.kill(-parent.pid!, "SIGTERM"); // the shell's own process group: it and its two sleeps
  }
});
