// The mechanism factorial's plan and guest script (no VM): randomised blocks, per-run seeds,
// the micro's arguments per cell, and a script /bin/sh accepts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { activePreemptMode, defaultShape, guestMechanismScript, planRuns, runMicroOptions, PAGE_LEVELS } from "../src/drivers/mechanism/index.js";
import { microArgs } from "../src/micro/driver.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import type { ExtLevel, PageLevel, PreemptMode } from "../src/drivers/mechanism/index.js";

test("planRuns: every cell once per block, shuffled per block, seeded, distinct seeds", () => {
  const o = { blocks: 4, modes: ["full", "lazy"] as const, pages: PAGE_LEVELS, extensions: ["off", "on"] as const, seed: 3 };
  const p = planRuns({ ...o, modes: [...o.modes], extensions: [...o.extensions] });
  assert.equal(p.length, 4 * 12);
  for (let b = 1; b <= 4; b++) {
    const keys = p.filter((r) => r.block === b).map((r) => `${r.mode}/${r.pages}/${r.extension}`);
    assert.equal(new Set(keys).size, 12, `block ${b} holds every cell once`);
  }
  const orders = [1, 2, 3, 4].map((b) => p.filter((r) => r.block === b).map((r) => `${r.mode}/${r.pages}/${r.extension}`).join(" "));
  assert.ok(new Set(orders).size > 1, "blocks are not all in the same order");
  assert.deepEqual(planRuns({ ...o, modes: [...o.modes], extensions: [...o.extensions] }), p, "same seed, same plan");
  assert.notDeepEqual(planRuns({ ...o, modes: [...o.modes], extensions: [...o.extensions], seed: 4 }), p);
  assert.ok(new Set(p.map((r) => r.seed)).size > 40, "seeds vary between runs");
  assert.deepEqual(p.map((r) => r.id), p.map((_, i) => String(i + 1).padStart(3, "0")));
  assert.throws(() => planRuns({ ...o, modes: [...o.modes], extensions: [...o.extensions], blocks: 0 }), /--blocks expects an integer ≥ 1/);
});

test("runMicroOptions: pages level → --pages/--prefault, jitter and seed passed, hold log on", () => {
  const s = defaultShape();
  const [r] = planRuns({ blocks: 1, modes: ["lazy"], pages: ["4k-prefault"], extensions: ["on"], seed: 1 });
  const args = microArgs(runMicroOptions(r!, s));
  assert.deepEqual(args.slice(args.indexOf("--fault-in-cs"), args.indexOf("--fault-in-cs") + 3), ["--fault-in-cs", "--pages", "4k"]);
  assert.ok(args.includes("--prefault"));
  assert.equal(args[args.indexOf("--extension") + 1], "on");
  assert.equal(args[args.indexOf("--seed") + 1], String(r!.seed));
  assert.equal(args[args.indexOf("--jitter-pct") + 1], "25");
  const [h] = planRuns({ blocks: 1, modes: ["full"], pages: ["hugetlb"], extensions: ["off"], seed: 1 });
  const ha = microArgs(runMicroOptions(h!, s));
  assert.equal(ha[ha.indexOf("--pages") + 1], "hugetlb");
  assert.ok(!ha.includes("--prefault"));
});

test("guestMechanismScript: valid sh, one run line per planned run, same environment in every arm", () => {
  const plan = planRuns({ blocks: 2, modes: ["full", "lazy"], pages: ["4k"], extensions: ["off", "on"], seed: 1 });
  const script = guestMechanismScript({ lhp: "/cache/micro/lhp-x", runs: plan, shape: defaultShape(), bufferKb: 1024 });
  const sh = spawnSync("sh", ["-n", "-c", script], { encoding: "utf8" });
  assert.equal(sh.status, 0, sh.stderr);
  const runLines = script.split("\n").filter((l) => /^run \d{3} /.test(l));
  assert.equal(runLines.length, plan.length);
  assert.match(script, /stacktrace if prev_comm ~ "lhp-w\*"/);
  assert.match(script, /echo mono > \$T\/trace_clock/);
  assert.equal((script.match(/env GLIBC_TUNABLES=glibc.pthread.rseq=0 /g) ?? []).length, 1, "one launch line, shared by every arm");
});

test("activePreemptMode reads the bracketed word of debugfs sched/preempt", () => {
  assert.equal(activePreemptMode("full (lazy)\n", "f"), "lazy");
  assert.equal(activePreemptMode("none voluntary (full) lazy\n", "f"), "full");
  assert.throws(() => activePreemptMode("full lazy\n", "/x/preempt"), /\/x\/preempt: expected the active mode in parentheses/);
});

test("mechanism run --modes: none is a level (for a 6.x reference kernel); anything else is a UserError naming the levels", async () => {
  const { join } = await import("node:path");
  const { repoRoot } = await import("../src/util/paths.js");
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin/slicelab.js"), "mechanism", "run", "--modes", "none,voluntary"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--modes: expected a comma list of full, lazy, none, found "voluntary"/);
  assert.doesNotMatch(r.stderr, /found "none"/);
});

test("planRuns gives again the plan of committed records from their command lines (run, block, position and seed of every row)", () => {
  // Records made before 2026-12-02 07:20 list the design's levels in the order they first appear in the
  // shuffled plan, not in the order the planner was given them; the command line has that order
  // (with the defaults of \`slicelab mechanism run\` for what it leaves out). Newer records list the
  // planner's own levels (MechanismRun.levels).
  const opt = (argv: string[], name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i < 0 ? undefined : argv[i + 1];
  };
  for (const dir of ["20261202T010208Z", "20261202T020227Z"]) {
    const base = join(repoRoot(), "data", "runs", "mechanism-2026", dir);
    const argv = JSON.parse(readFileSync(join(base, "record.json"), "utf8")).command as string[];
    const rows = JSON.parse(readFileSync(join(base, "rows.json"), "utf8")) as { run: string; block: number; order: number; seed: number; mode: string; pages: string; extension: string }[];
    const plan = planRuns({
      blocks: Number(opt(argv, "blocks") ?? 3),
      modes: (opt(argv, "modes") ?? "full,lazy").split(",") as PreemptMode[],
      pages: (opt(argv, "pages")?.split(",") ?? [...PAGE_LEVELS]) as PageLevel[],
      extensions: (opt(argv, "extensions") ?? "off,on").split(",") as ExtLevel[],
      seed: Number(opt(argv, "seed") ?? 1),
    });
    assert.equal(plan.length, rows.length, dir);
    for (const r of rows) {
      const p = plan.find((q) => q.id === r.run);
      assert.deepEqual(p && [p.block, p.order, p.seed, p.mode, p.pages, p.extension], [r.block, r.order, r.seed, r.mode, r.pages, r.extension], `${dir} run ${r.run}`);
    }
  }
});

test("guestMechanismScript with attribution (issue 26): valid sh, function tracer on __resched_curr with stacks, events, features, extra micro args", () => {
  const plan = planRuns({ blocks: 1, modes: ["lazy"], pages: ["thp"], extensions: ["off"], seed: 1 });
  const script = guestMechanismScript({ lhp: "/cache/micro/lhp-x", runs: plan, shape: defaultShape(), bufferKb: 1024, attribution: { schedFeatures: ["NO_HRTICK"], extraMicroArgs: ["--syscall-in-cs", "65536"], thp: true } });
  const sh = spawnSync("sh", ["-n", "-c", script], { encoding: "utf8" });
  assert.equal(sh.status, 0, sh.stderr);
  assert.match(script, /echo __resched_curr > \$T\/set_ftrace_filter/);
  assert.match(script, /echo 1 > \$T\/options\/func_stack_trace/);
  assert.match(script, /echo NO_HRTICK > \$D\/sched\/features/);
  assert.match(script, /shmem_enabled/);
  assert.match(script, /irq_vectors\/local_timer_entry/);
  const run = script.split("\n").find((l) => /^run 001 /.test(l))!;
  assert.match(run, /--pages thp .*--syscall-in-cs 65536$/);
  assert.throws(() => guestMechanismScript({ lhp: "x", runs: plan, shape: defaultShape(), bufferKb: 1, attribution: { schedFeatures: ["HRTICK; rm -rf /"] } }), /--sched-features/);
  // without attribution nothing of it is in the script
  assert.doesNotMatch(guestMechanismScript({ lhp: "x", runs: plan, shape: defaultShape(), bufferKb: 1 }), /set_ftrace_filter/);
});
