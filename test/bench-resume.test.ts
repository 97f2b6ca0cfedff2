// A series killed in the middle resumes without repeating finished runs or duplicating rows.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";

const prefix = `tresume${process.pid}`;
const tmp = mkdtempSync(join(tmpdir(), "slicelab-resume-"));
const out = join(tmp, "series");
after(() => {
  rmSync(tmp, { recursive: true, force: true });
  for (const d of readdirSync(join(workDir(), "clusters"))) if (d.startsWith(`${prefix}-`)) rmSync(join(workDir(), "clusters", d), { recursive: true, force: true });
});

// A tiny protocol: rostedt-2023's workload on scale 1 for 2 s, 3 runs.
const protocol = join(tmp, "tiny-resume.json");
writeFileSync(
  protocol,
  JSON.stringify({
    name: "tiny-resume",
    title: "resume test",
    runs: 3,
    warmup: 1,
    workloads: [{ from: join(repoRoot(), "protocols", "rostedt-2023.json"), params: { scale: 1, clients: 4, threads: 1, duration: 2 } }],
  }),
);
const cli = join(repoRoot(), "bin", "slicelab.js");
const args = ["bench", "run", protocol, "--variant", "A=default", "--variant", "B=setting:application_name=b", "--seed", "11", "--cluster-prefix", prefix, "--out", out];

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

test("kill mid-series (SIGKILL, then SIGTERM), resume: finished runs kept, no duplicate rows", { timeout: 300_000 }, async () => {
  // 1. Start, and kill the kit outright while run 2 is in progress.
  const child = spawn(process.execPath, [cli, ...args], { stdio: "ignore" });
  const firstResult = () => readdirSync(join(out, "runs")).find((d) => existsSync(join(out, "runs", d, "result.json")));
  for (let i = 0; i < 1200 && !(existsSync(join(out, "runs")) && readdirSync(join(out, "runs")).length >= 2); i++) await sleep(100);
  await sleep(1200); // inside run 2's measurement
  child.kill("SIGKILL");
  await new Promise((r) => child.on("exit", r));
  const done1 = firstResult();
  assert.ok(done1, "run 1 finished before the kill");
  const r1 = readFileSync(join(out, "runs", done1, "result.json"), "utf8");
  const runDirs = readdirSync(join(out, "runs"));
  const partial = runDirs.filter((d) => !existsSync(join(out, "runs", d, "result.json")));
  assert.equal(partial.length, 1, `one interrupted run without result: ${runDirs.join(" ")}`);
  const csv1 = readFileSync(join(out, "results.csv"), "utf8").trim().split("\n");
  assert.equal(csv1.length, 2, "the tidy table holds the finished run only");

  // 2. Resume (the postmaster left by the killed kit is stopped and reused), then stop with SIGTERM mid-run.
  const child2 = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let err2 = "";
  child2.stderr?.setEncoding("utf8").on("data", (d: string) => (err2 += d));
  for (let i = 0; i < 1200 && readdirSync(join(out, "runs")).filter((d) => existsSync(join(out, "runs", d, "result.json"))).length < 2; i++) await sleep(100);
  await sleep(1500);
  child2.kill("SIGTERM");
  const code2 = await new Promise((r) => child2.on("exit", (c) => r(c)));
  assert.equal(code2, 143, err2);
  assert.match(err2, /SIGTERM: stopping benchmark processes and clusters/);

  // 3. Resume to the end.
  const r3 = spawnSync(process.execPath, [cli, ...args, "--json"], { encoding: "utf8" });
  assert.equal(r3.status, 0, r3.stderr);
  const summary = JSON.parse(r3.stdout);
  assert.equal(summary.total, 6);
  assert.equal(summary.done, 6);
  assert.ok(summary.ranNow >= 1 && summary.ranNow <= 4, `ran ${summary.ranNow} now`);
  assert.equal(readFileSync(join(out, "runs", done1, "result.json"), "utf8"), r1, "a finished run is never repeated");
  const csv = readFileSync(join(out, "results.csv"), "utf8").trim().split("\n").slice(1);
  assert.equal(csv.length, 6);
  assert.equal(new Set(csv.map((l) => l.split(",")[0])).size, 6, "one row per run");
  assert.equal(readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n").length, 6);
  const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
  assert.equal(prov.sessions.length, 3);

  // 4. Resuming a finished series runs nothing; changed options are refused.
  const r4 = spawnSync(process.execPath, [cli, ...args, "--json"], { encoding: "utf8" });
  assert.equal(JSON.parse(r4.stdout).ranNow, 0);
  const r5 = spawnSync(process.execPath, [cli, ...args.slice(0, -2), "--out", out, "--seed", "12"], { encoding: "utf8" });
  assert.equal(r5.status, 2);
  assert.match(r5.stderr, /series\.json: this series was started with seed 11, found 12 now/);
});
