// The experiment drivers (src/study/drivers/) through `slicelab study run NAME`: every experiment
// study's plan (--dry-run), the one parameter parser's errors, and each driver run end to end on
// this host with its smallest settings into temporary directories (never data/). A driver that
// needs what this machine has not built (the baseline and patched PostgreSQL builds, the VM
// kernel) is skipped, and says why.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { readRecord, checkSums } from "../src/record/format.js";
import { installRoot } from "../src/postgres/build.js";
import { cachedKernel } from "../src/kernel/ensure.js";
import { chargeKitCpu } from "../src/bench/overhead.js";
import { loadStudy, studyNames } from "../src/study/study.js";
import { DRIVERS } from "../src/study/drivers/index.js";

const tmp = mkdtempSync(join(tmpdir(), "slicelab-drivers-"));
const cluster = `tdrivers${process.pid}`;
after(() => {
  rmSync(tmp, { recursive: true, force: true });
  rmSync(join(workDir(), "clusters", cluster), { recursive: true, force: true });
});

function slicelab(args: string[], timeout = 300_000) {
  return spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), ...args], { encoding: "utf8", timeout });
}

/** Runs a study into tmp/NAME (record) with --runs-dir tmp/runs; returns the record directory. */
function runStudy(name: string, params: string[], timeout = 300_000): string {
  const out = join(tmp, name);
  const r = slicelab(["study", "run", name, "--runs-dir", join(tmp, "runs"), "--out", out, ...params.flatMap((p) => ["--param", p])], timeout);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /record written/);
  const rec = readRecord(out);
  assert.equal(rec.study, name);
  assert.deepEqual(checkSums(out), []);
  assert.ok(existsSync(join(out, "report.html")));
  assert.deepEqual((rec.design as { experiment: string }).experiment, loadStudy(name).experiment);
  return out;
}

const experimentStudies = studyNames().filter((n) => loadStudy(n).driver === "experiment");

test("every experiment driver has a study, and every experiment study prints its plan with --dry-run", () => {
  const used = new Set(experimentStudies.map((n) => loadStudy(n).experiment));
  for (const d of DRIVERS) assert.ok(used.has(d.name), `driver ${d.name} has no study file`);
  for (const n of ["harness-overhead", "patch-cost", "collector-cost"]) assert.ok(experimentStudies.includes(n), `${n} runs an experiment driver`);
  for (const n of experimentStudies) {
    const r = slicelab(["study", "run", n, "--dry-run", "--runs-dir", join(tmp, "runs")]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^study ${n}: `));
    assert.match(r.stdout, /^design: .*\(\d+ runs\)$/m);
    assert.match(r.stdout, /^estimate: /m);
    const j = JSON.parse(slicelab(["study", "run", n, "--dry-run", "--json", "--runs-dir", join(tmp, "runs")]).stdout);
    assert.ok(j.totalRuns > 0 && j.estimateSeconds > 0, n);
  }
  assert.ok(!existsSync(join(tmp, "runs")), "a dry run creates nothing");
  // The study file's parameters, then --param, through one parser.
  const j = JSON.parse(slicelab(["study", "show", "harness-overhead", "--json", "--param", "pairs=4"]).stdout);
  assert.equal(j.params.pairs, "4");
  assert.equal(j.params.concurrent, "true");
  assert.equal(j.totalRuns, 10);
});

test("bad parameters are refused before anything runs, naming the parameter, expected and found", () => {
  const cases: [string, string[], RegExp][] = [
    ["patch-cost", ["arms=baseline,foo"], /^slicelab study: --param arms: expected arms to be a comma-separated list of baseline, baseline2, off, on, found "baseline,foo"\n$/],
    ["patch-cost", ["arms=baseline,off,off"], /^slicelab study: --param arms: expected arms to be a comma-separated list/],
    ["patch-cost", ["arms=off,on"], /^slicelab study: arms: expected baseline and at least one other arm, each once, found off,on\n$/],
    ["harness-overhead", ["restart=true"], /^slicelab study: restart and concurrent: expected one of them, found both/],
    ["harness-overhead", ["cluster=Bad Name"], /^slicelab study: --param cluster: expected cluster to be a name of lower-case letters, digits and '-', found "Bad Name"\n$/],
    ["harness-overhead", ["pairs=1"], /^slicelab study: --param pairs: expected pairs to be a whole number ≥ 2, found "1"\n$/],
    ["collector-cost", ["nonsense=1"], /^slicelab study: --param nonsense: expected one of the parameters collect, reps, seconds, clients, pg, found "nonsense"\n$/],
  ];
  for (const [study, params, want] of cases) {
    const r = slicelab(["study", "run", study, "--runs-dir", join(tmp, "runs"), ...params.flatMap((p) => ["--param", p])]);
    assert.equal(r.status, 2, `${study} ${params.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, want);
  }
  assert.ok(!existsSync(join(tmp, "runs")));
});

test("harness-overhead: concurrent, pinned to one CPU, both arms, the server and the driver on that CPU, the two pgbench starting together", { timeout: 300_000 }, () => {
  const own = readFileSync("/proc/self/status", "utf8").match(/^Cpus_allowed_list:\s*(\d+)/m)![1]!;
  const rec = runStudy("harness-overhead", ["concurrent=true", `cpu=${own}`, "pairs=2", "duration=1", "clients=2", "threads=1", "scale=1", `cluster=${cluster}`]);
  const out = join(rec, "out");
  const a = JSON.parse(readFileSync(join(out, "analysis.json"), "utf8"));
  const p = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
  assert.equal(p.design.cpu.pinned, Number(own));
  assert.equal(p.design.cpu.cpusAllowed, own);
  assert.deepEqual(a.cpus, { pinned: Number(own), script: own, server: own });
  assert.equal(a.processAttributes.kit.cpusAllowed, own);
  assert.equal(a.processAttributes.hand.cpusAllowed, own);
  assert.deepEqual(a.processAttributes.differences, []);
  const rows = readFileSync(join(out, "runs.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((x) => `${x.pair}${x.arm}`).sort(), ["0hand", "0kit", "1hand", "1kit", "2hand", "2kit"]);
  assert.equal(readdirSync(join(out, "raw")).length, 6);
  assert.equal(a.pairs, 2);
  assert.ok(a.tpsRatio.startOffsetMs.maxAbs < 1000, JSON.stringify(a.tpsRatio.startOffsetMs));
  const w = a.tpsRatio.withKitCpu;
  assert.ok(a.kitCpu.maxPct > 0, "the kit's CPU was measured");
  assert.deepEqual(w, { ...chargeKitCpu(a.tpsRatio.ci95, a.kitCpu.maxPct, 0.99), note: w.note });
  // The record's verdict is the driver's, read from out/analysis.json by the study's rule.
  const env = readRecord(rec);
  assert.match(String((env.analysis as { verdict: string }).verdict), /PASS|FAIL|UNRESOLVED/);
  assert.match(String(env.postgres.version), /PostgreSQL|\d/);
});

test("patch-cost-micro: the three modes in every round, the paired ns added", { timeout: 300_000 }, () => {
  const rec = runStudy("patch-cost-micro", ["rounds=2", "duration=0.05"]);
  const s = JSON.parse(readFileSync(join(rec, "out", "summary.json"), "utf8"));
  const rows = readFileSync(join(rec, "out", "runs.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((r) => r.mode).sort(), ["none", "none", "off", "off", "simulate", "simulate"]);
  assert.equal(s.design.rounds, 2);
  for (const k of ["off", "simulate"]) {
    assert.equal(s.addedNs[k].n, 2);
    assert.ok(s.addedNs[k].ci[0] <= s.addedNs[k].mean && s.addedNs[k].mean <= s.addedNs[k].ci[1]);
  }
});

/** Finished baseline and patched PostgreSQL 18 builds in the cache, if any. */
function cachedBuilds(): { baseline: string; patched: string } | undefined {
  const root = installRoot();
  if (!existsSync(root)) return undefined;
  const done = readdirSync(root).filter((d) => d.startsWith("18.") && existsSync(join(root, d, "slicelab-build.json")) && existsSync(join(root, d, "bin", "postgres")));
  const b = done.find((d) => d.includes("-baseline"));
  const p = done.sort().reverse().find((d) => d.includes("-patched-"));
  return b && p ? { baseline: join(root, b, "bin"), patched: join(root, p, "bin") } : undefined;
}

const builds = cachedBuilds();
const noBuilds = builds ? false : `no finished baseline and patched PostgreSQL 18 builds under ${installRoot()} (\`slicelab postgres build\` makes them; the driver would build them, minutes)`;

test("patch-cost-concurrent, patch-cost-sequential, patch-cost-cpu with the cached builds", { timeout: 600_000, skip: noBuilds }, () => {
  const bins = [`baseline_bin=${builds!.baseline}`, `patched_bin=${builds!.patched}`];
  const c = runStudy("patch-cost", [...bins, "rounds=2", "warmup_rounds=0", "duration=1", "scale=1", "arms=baseline,off"]);
  const ca = JSON.parse(readFileSync(join(c, "out", "analysis.json"), "utf8"));
  assert.equal(ca.kind, "slicelab-patch-cost-concurrent-analysis");
  assert.deepEqual(ca.comparisons.map((x: { arm: string }) => x.arm), ["off"]);
  const s = runStudy("patch-cost-sequential", [...bins, "blocks=2", "warmup_blocks=0", "duration=1", "scale=1", "clients=1", "threads=1", "arms=baseline,on", "settle_ms=0"]);
  assert.equal(JSON.parse(readFileSync(join(s, "out", "analysis.json"), "utf8")).kind, "slicelab-patch-cost-pgbench-analysis");
  const u = runStudy("patch-cost-cpu", [...bins, "rounds=2", "transactions=200", "scale=1"]);
  assert.equal(JSON.parse(readFileSync(join(u, "out", "summary.json"), "utf8")).kind, "slicelab-patch-cost-cpu");
});

test("collector-cost and collector-overhead with one collector, one window / pair of 1 s", { timeout: 300_000 }, () => {
  const c = runStudy("collector-cost", ["collect=ctxsw", "reps=1", "seconds=1", "clients=1"]);
  const d = JSON.parse(readFileSync(join(c, "out", "direct-cost.json"), "utf8"));
  assert.deepEqual(d.windows.map((w: { collector: string }) => w.collector).sort(), ["ctxsw", "none"]);
  assert.deepEqual(d.summary.map((s: { collector: string }) => s.collector), ["ctxsw"]);
  const o = runStudy("collector-overhead", ["collect=ctxsw", "pairs=1", "seconds=1", "clients=1"]);
  const v = JSON.parse(readFileSync(join(o, "out", "overhead.json"), "utf8"));
  assert.deepEqual(v.runs.map((r: { on: boolean }) => r.on), [false, true]);
  assert.equal(v.summary[0].collector, "ctxsw");
});

const kernel = cachedKernel();
const noVm = kernel && existsSync(kernel.bzImage) && existsSync("/usr/bin/qemu-system-x86_64") ? false : "no finished VM kernel in the cache or no qemu-system-x86_64";

test("kernel-build (one boot) and vm-micro (one pair of 1 s runs) boot the kit's VM", { timeout: 600_000, skip: noVm }, () => {
  const k = runStudy("kernel-build", ["boots=1"], 300_000);
  const kb = JSON.parse(readFileSync(join(k, "out", "kernel-build.json"), "utf8"));
  assert.equal(kb.boots.runs.length, 1);
  assert.equal(kb.builds.length, 0);
  const m = runStudy("vm-micro", ["reps=1", "duration=1", "threads=2", "hogs=1"], 500_000);
  const rows = JSON.parse(readFileSync(join(m, "out", "runs.json"), "utf8"));
  assert.deepEqual(rows.map((r: { extension: string }) => r.extension), ["off", "on"]);
  assert.ok(existsSync(join(m, "out", "provenance.json")));
});
