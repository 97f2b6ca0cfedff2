// pg-waits and ctxsw around a real pgbench run on a throw-away PostgreSQL 15 cluster.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { workDir } from "../src/util/paths.js";
import { debianBinDir } from "../src/postgres/binaries.js";
import { withCluster } from "../src/postgres/cluster.js";
import { PG_USER } from "../src/postgres/user.js";
import { prepareCollectors, startCollectors, stopCollectors } from "../src/collect/index.js";
import { parseActivityJson, summarizePgWaits, type PgWaitsSummary } from "../src/collect/pg-waits.js";
import { backendKind, createCtxswCollector, parseStatusSwitches, type CtxswResult } from "../src/collect/ctxsw.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

const bin = debianBinDir(15);

function pgbench(c: { socketDir: string; port: number }, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(join(bin, "pgbench"), ["-h", c.socketDir, "-p", String(c.port), "-U", PG_USER, ...args, "postgres"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    p.on("exit", (code) => resolve({ code, out }));
  });
}

test("helpers: activity JSON, wait summary, /proc status, process titles", () => {
  const rows = parseActivityJson(' [[101, "client backend", "active", "LWLock", "BufferContent"], [102, "client backend", "active", null, null], [103, "client backend", "idle", "Client", "ClientRead"], [104, "checkpointer", null, "Activity", "CheckpointerMain"]]\n');
  const s = summarizePgWaits([{ t: 0, rows }, { t: 100, rows: rows.slice(1) }], 100);
  assert.equal(s.samples, 2);
  assert.equal(s.activeBackendsMean, 1.5);
  assert.deepEqual(s.byEvent.map((e) => [e.event, e.count]), [["CPU", 2], ["LWLock:BufferContent", 1]]);
  assert.throws(() => parseActivityJson("(0 rows)"));
  // Five 10 ms sleeps of the main thread are five voluntary switches at least; the thread's count is
  // at most the whole process's (getrusage, an independent source).
  const before = parseStatusSwitches(readFileSync("/proc/self/status", "utf8"))!;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 5; i++) Atomics.wait(cell, 0, 0, 10);
  const after = parseStatusSwitches(readFileSync("/proc/self/status", "utf8"))!;
  assert.ok(after.voluntary - before.voluntary >= 5, `voluntary ${before.voluntary} → ${after.voluntary}`);
  assert.ok(after.voluntary <= process.resourceUsage().voluntaryContextSwitches, "thread count ≤ process count");
  assert.equal(backendKind("postgres: slicelab postgres 127.0.0.1(41234) SELECT\0\0"), "client backend");
  assert.equal(backendKind("postgres: checkpointer "), "checkpointer");
  assert.equal(backendKind("postgres: logical replication launcher "), "logical replication launcher");
});

test("ctxsw: a backend first seen before it set its title (the postmaster's command line) is classified once it has one", async () => {
  // A fake /proc: pid 101 is sampled between fork and its first process title, as happens under load
  // (seen: a 2 s sysbench workload at a load of 4–6 counted fewer than its 8 client backends).
  const root = mkdtempSync(join(tmpdir(), "slicelab-ctxsw-"));
  try {
    const put = (pid: string, cmdline: string, vol: number, nonvol: number) => {
      mkdirSync(join(root, pid), { recursive: true });
      writeFileSync(join(root, pid, "status"), `Name:\tpostgres\nvoluntary_ctxt_switches:\t${vol}\nnonvoluntary_ctxt_switches:\t${nonvol}\n`);
      writeFileSync(join(root, pid, "cmdline"), cmdline);
    };
    put("self", "node\0", 1, 1);
    put("101", "/usr/lib/postgresql/15/bin/postgres\0-D\0/data\0", 0, 0);
    put("102", "postgres: checkpointer \0", 5, 1);
    const c = createCtxswCollector({ intervalMs: 10, procRoot: root });
    assert.deepEqual(await c.check(), { ok: true });
    const runDir = join(root, "run");
    mkdirSync(runDir);
    const ctx = { runDir, query: async () => "", pids: async () => [101, 102] };
    await c.start(ctx);
    put("101", "postgres: slicelab bench [local] SELECT\0\0", 40, 3);
    put("102", "postgres: checkpointer \0", 9, 1);
    await new Promise((r) => setTimeout(r, 50));
    put("102", "postgres: slicelab bench [local] idle\0", 9, 1); // a kind once known is kept
    const out = await c.stop(ctx);
    const r = out.parsed as CtxswResult;
    assert.deepEqual(r.byKind, [
      { kind: "checkpointer", processes: 1, voluntary: 4, nonvoluntary: 0 },
      { kind: "client backend", processes: 1, voluntary: 40, nonvoluntary: 3 },
    ]);
    assert.deepEqual(JSON.parse(readFileSync(join(runDir, "ctxsw.json"), "utf8")), r);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("pg-waits and ctxsw during pgbench -S with 4 clients", { skip: !existsSync(join(bin, "pgbench")) && `no ${bin}/pgbench` }, async () => {
  await withCluster({ binDir: bin, name: "h7-collect-test" }, async (c) => {
    const init = await pgbench(c, ["-i", "-s", "1", "-q"]);
    assert.equal(init.code, 0, init.out);
    const postmasterPid = Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const { active, skipped } = await prepareCollectors(["pg-waits", "ctxsw"]);
    assert.deepEqual(skipped, []);
    const runDir = join(workDir(), "test-tmp", "collect-pg");
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
    const ctx = { runDir, query: (sql: string) => c.query(sql), postmasterPid };
    await startCollectors(active, ctx);
    const run = await pgbench(c, ["-S", "-n", "-c", "4", "-j", "2", "-T", "3"]);
    const outs = await stopCollectors(active, ctx);
    assert.equal(run.code, 0, run.out);
    const waits = outs[0]!.parsed as PgWaitsSummary;
    const sw = outs[1]!.parsed as CtxswResult;
    // ~3 s at 100 ms: at least a handful of samples even on a loaded machine
    assert.ok(waits.samples >= 5, `samples ${waits.samples}`);
    assert.equal(waits.failedSamples, 0);
    assert.ok(waits.activeBackendsMean > 0 && waits.activeBackendsMean <= 4, `active ${waits.activeBackendsMean}`);
    assert.ok(Math.abs(waits.byEvent.reduce((s, e) => s + e.share, 0) - 1) < 1e-9);
    assert.equal(readFileSync(join(runDir, "pg-waits.jsonl"), "utf8").trim().split("\n").length, waits.samples);
    // the 4 client backends of the run were seen and switched context (pgbench waits on each reply)
    const clients = sw.processes.filter((p) => p.kind === "client backend");
    assert.ok(clients.length >= 4, JSON.stringify(sw.byKind));
    const k = sw.byKind.find((b) => b.kind === "client backend")!;
    assert.ok(k.voluntary > 100, `voluntary ${k.voluntary}`);
    assert.ok(sw.byKind.some((b) => b.kind === "checkpointer"));
    assert.ok(existsSync(join(runDir, "ctxsw.json")));
  });
});
