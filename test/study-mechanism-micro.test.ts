// The mechanism factorial is a study (issue 24): `study run mechanism-micro --vm --dry-run` prints
// the factorial's plan (the driver boots the VM itself, so --vm changes nothing), and the driver's
// plan is the planner's: blocks × cells runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { driverSpec } from "../src/study/drivers/index.js";
import { planRuns } from "../src/drivers/mechanism/index.js";

test("study run mechanism-micro --vm --dry-run prints the factorial's plan", () => {
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin/slicelab.js"), "study", "run", "mechanism-micro", "--vm", "--dry-run", "--param", "blocks=4"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /design: 4 randomised blocks × 12 cells \(mode full,lazy × pages 4k,4k-prefault,hugetlb × extension off,on; seed 1\) = 48 runs of 1 s/);
  assert.match(r.stdout, /preemption mode: mode is switched inside the experiment's own VM guest/);
  assert.doesNotMatch(r.stdout + r.stderr, /no "vm" section/);
});

test("the mechanism-micro driver's plan counts what planRuns plans", () => {
  const spec = driverSpec("mechanism-micro")!;
  const p = { blocks: 2, modes: ["full", "lazy"], pages: ["4k", "hugetlb"], extensions: ["off"], seed: 1, threads: 2, hogs: 2, cs_ns: 2000, duration: 1, fault_every: 4, region_mib: 384, jitter_pct: 25, cpus: 1, pin_cpus: 1, accel: "tcg-icount" };
  assert.equal(spec.plan(p).runs, planRuns({ blocks: 2, modes: ["full", "lazy"], pages: ["4k", "hugetlb"], extensions: ["off"], seed: 1 }).length);
  assert.throws(() => spec.validate!({ ...p, threads: 1, hogs: 0 }), /threads 1 \+ hogs 0: expected more than cpus 1/);
});

test("consoleLines logs whole lines whatever the chunks", async () => {
  const { consoleLines } = await import("../src/study/drivers/mechanism-micro.js");
  const got: string[] = [];
  const f = consoleLines((l) => got.push(l));
  for (const c of ["slice", "lab: run 0", "01 done\nslicelab: run 002", " done\n", "\n"]) f(c);
  assert.deepEqual(got, ["slicelab: run 001 done", "slicelab: run 002 done"]);
});
