// lockstat and rseq-stats collectors: their checks on this machine, and their start/stop plumbing
// against stand-in files (the host kernel has neither CONFIG_LOCK_STAT nor debugfs mounted).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { createLockstatCollector } from "../src/collect/lockstat.js";
import { createRseqStatsCollector, debugfsMounted } from "../src/collect/rseq-stats.js";
import type { LockStat } from "../src/parse/proc-lock-stat.js";

const tmp = (name: string) => {
  const d = join(workDir(), "test-tmp", name);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  return d;
};

test("lockstat check on this machine", async () => {
  const r = await createLockstatCollector().check();
  if (existsSync("/proc/lock_stat")) assert.equal(r.ok, true, r.reason);
  else assert.deepEqual(r, { ok: false, reason: "no /proc/lock_stat: the running kernel was built without CONFIG_LOCK_STAT (boot a kernel with kernel-patches/linux/lockstat.config)" });
});

test("lockstat: clears and switches on at start, snapshots and restores at stop (stand-in files)", async () => {
  const d = tmp("collect-lockstat");
  const statPath = join(d, "lock_stat");
  const switchPath = join(d, "switch");
  writeFileSync(statPath, "stale\n");
  writeFileSync(switchPath, "0\n");
  const c = createLockstatCollector({ statPath, switchPath });
  assert.deepEqual(await c.check(), { ok: true });
  const runDir = join(d, "run");
  mkdirSync(runDir);
  await c.start({ runDir });
  assert.equal(readFileSync(statPath, "utf8"), "0\n"); // the kernel clears on "0"
  assert.equal(readFileSync(switchPath, "utf8"), "1\n");
  // what the kernel would show after the run: the documentation's capture
  writeFileSync(statPath, readFileSync(join(repoRoot(), "test/fixtures/proc-lock-stat/doc-example.txt")));
  const out = await c.stop({ runDir });
  assert.equal(readFileSync(switchPath, "utf8"), "0\n"); // restored
  assert.deepEqual(out.files, ["lock_stat.txt"]);
  assert.equal((out.parsed as LockStat).classes.length, 4);
  assert.equal(readFileSync(join(runDir, "lock_stat.txt"), "utf8"), readFileSync(statPath, "utf8"));
});

test("rseq-stats check on this machine", async () => {
  const r = await createRseqStatsCollector().check();
  if (!debugfsMounted("/sys/kernel/debug")) assert.equal(r.reason, "debugfs is not mounted at /sys/kernel/debug (as root: mount -t debugfs none /sys/kernel/debug)");
  else if (!existsSync("/sys/kernel/debug/rseq/stats")) assert.equal(r.ok, false);
  else assert.equal(r.ok, true, r.reason);
});

test("rseq-stats: before/after snapshots and their difference (stand-in debugfs)", async () => {
  const d = tmp("collect-rseq");
  const debugfs = join(d, "debug");
  mkdirSync(join(debugfs, "rseq"), { recursive: true });
  const mountsPath = join(d, "mounts");
  writeFileSync(mountsPath, `none ${debugfs} debugfs rw,relatime 0 0\n`);
  const render = (v: Record<string, number>) => Object.entries(v).map(([k, n]) => `${`${k}:`.padEnd(8)}${String(n).padStart(16)}\n`).join("");
  const base = { exit: 1000, signal: 1, slowp: 2, fastp: 990, ids: 50, cs: 10, clear: 10, fixup: 0, sgrant: 5, sexpir: 1, srevok: 0, syield: 4, sabort: 0 };
  writeFileSync(join(debugfs, "rseq", "stats"), render(base));
  const c = createRseqStatsCollector({ debugfs, mountsPath });
  assert.deepEqual(await c.check(), { ok: true });
  const runDir = join(d, "run");
  mkdirSync(runDir);
  await c.start({ runDir });
  writeFileSync(join(debugfs, "rseq", "stats"), render({ ...base, exit: 5000, fastp: 4900, sgrant: 105, sexpir: 11, syield: 90, sabort: 4 }));
  const out = await c.stop({ runDir });
  const p = out.parsed as { diff: Record<string, number>; sliceExtension: boolean };
  assert.equal(p.sliceExtension, true);
  assert.deepEqual([p.diff.exit, p.diff.sgrant, p.diff.sexpir, p.diff.syield, p.diff.sabort, p.diff.srevok], [4000, 100, 10, 86, 4, 0]);
  assert.deepEqual(out.files, ["rseq-stats.before.txt", "rseq-stats.after.txt"]);
  assert.match(readFileSync(join(runDir, "rseq-stats.before.txt"), "utf8"), /^exit:\s+1000$/m);
  // no debugfs mount → skipped with the mount command
  writeFileSync(mountsPath, "proc /proc proc rw 0 0\n");
  assert.match((await c.check()).reason!, /debugfs is not mounted at .*mount -t debugfs none/);
});
