// Ctrl-C (SIGINT) during a measurement stops pgbench, the CPU hogs and the cluster: no process is left.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";

const prefix = `tsigint${process.pid}`;
const tag = `sigint-test-${process.pid}-${Date.now()}`;
const tmp = mkdtempSync(join(tmpdir(), "slicelab-sigint-"));
after(() => {
  rmSync(tmp, { recursive: true, force: true });
  if (existsSync(join(workDir(), "clusters"))) for (const d of readdirSync(join(workDir(), "clusters"))) if (d.startsWith(`${prefix}-`)) rmSync(join(workDir(), "clusters", d), { recursive: true, force: true });
});

/** Processes (other than `except`) whose environment carries our tag: the kit's children and grandchildren. */
function tagged(except: number[] = []): { pid: number; cmd: string; exe: string }[] {
  const found: { pid: number; cmd: string; exe: string }[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d) || except.includes(Number(d))) continue;
    try {
      if (!readFileSync(`/proc/${d}/environ`, "utf8").split("\0").includes(`SLICELAB_RUN_TAG=${tag}`)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue; // exited, not yet reaped by PID 1
      let exe = "";
      try {
        exe = basename(readlinkSync(`/proc/${d}/exe`));
      } catch {
        /* no access or gone */
      }
      found.push({ pid: Number(d), cmd: readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ").trim(), exe });
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("SIGINT mid-run leaves no pgbench, hog or PostgreSQL process behind", { timeout: 120_000 }, async () => {
  const protocol = join(tmp, "tiny-sigint.json");
  writeFileSync(
    protocol,
    JSON.stringify({
      name: "tiny-sigint",
      title: "sigint test",
      runs: 1,
      warmup: 0,
      workloads: [{ from: join(repoRoot(), "protocols", "sangappa-2024-locktable.json"), params: { clients: 4, hogs: 3, threads: 1, duration: 60 } }],
    }),
  );
  const out = join(tmp, "series");
  const child = spawn(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "bench", "run", protocol, "--cluster-prefix", prefix, "--out", out], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, SLICELAB_RUN_TAG: tag },
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  // Wait until pgbench, the hogs and the server are all running.
  // The server is told apart by its executable (pgbench's path also holds "postgres").
  const isServer = (p: { exe: string }) => p.exe === "postgres";
  const isPgbench = (p: { exe: string; cmd: string }) => p.exe === "pgbench" && p.cmd.includes("-T 60");
  const isHog = (p: { cmd: string }) => p.cmd.startsWith("/bin/sh -c");
  let procs: { pid: number; cmd: string; exe: string }[] = [];
  // What was ever seen while waiting (so a timeout names what was missing, not what has ended since).
  let everPgbench = false;
  let everServer = false;
  let mostHogs = 0;
  for (let i = 0; i < 600; i++) {
    procs = tagged([child.pid as number]);
    everPgbench ||= procs.some(isPgbench);
    everServer ||= procs.some(isServer);
    mostHogs = Math.max(mostHogs, procs.filter(isHog).length);
    if (procs.some(isPgbench) && procs.filter(isHog).length >= 4 && procs.some(isServer)) break; // the hog leader + 3 busy loops
    await sleep(100);
  }
  // Everything the test then expects to be stopped was really running, all at once.
  assert.ok(everPgbench, `pgbench never started: ${stderr}`);
  assert.ok(everServer, `no server process seen: ${JSON.stringify(procs)}`);
  assert.ok(mostHogs >= 4, `the hogs never all started (at most ${mostHogs} hog processes seen): ${JSON.stringify(procs)}`);
  assert.ok(procs.some(isPgbench) && procs.filter(isHog).length >= 4 && procs.some(isServer), `pgbench, the hogs and the server were never running together: ${JSON.stringify(procs)}`);
  const seen = procs.filter((p) => isPgbench(p) || isHog(p) || isServer(p)).map((p) => p.pid);
  await sleep(500);
  child.kill("SIGINT");
  const code = await new Promise((r) => child.on("exit", (c) => r(c)));
  assert.equal(code, 130, stderr);
  assert.match(stderr, /SIGINT: stopping benchmark processes and clusters/);
  let left = tagged();
  for (let i = 0; i < 20 && left.length > 0; i++) {
    await sleep(100);
    left = tagged();
  }
  assert.deepEqual(left, [], "processes left behind");
  for (const pid of seen) assert.ok(!existsSync(`/proc/${pid}`) || /\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8")), `process ${pid} is still running`);
  const cdir = join(workDir(), "clusters");
  const mine = readdirSync(cdir).filter((d) => d.startsWith(`${prefix}-`));
  assert.equal(mine.length, 1);
  assert.equal(existsSync(join(cdir, mine[0] as string, "data", "postmaster.pid")), false, "the cluster was stopped");
  assert.equal(readdirSync(join(out, "runs")).filter((d) => existsSync(join(out, "runs", d, "result.json"))).length, 0, "no result for the interrupted run");
});
