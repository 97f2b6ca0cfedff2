// Collectors in a benchmark series (`bench run … --collect`): real clusters, real perf, real /proc.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { parseActivityJson, summarizePgWaits, type PgWaitsSample } from "../src/collect/pg-waits.js";
import { ctxswRows, collectedSeriesDirs, type CtxswRow, lockContentionRows, topLocks, waitEventRows, waitTypeTable } from "../src/collect/tables.js";
import { parsePerfLockContention } from "../src/parse/perf-lock.js";
import { parsePerfReport } from "../src/parse/perf-report.js";
import { readRunResult, seriesRows, unfinishedRuns } from "../src/bench/series.js";

const prefix = `tcollect${process.pid}`;
const tmp = mkdtempSync(join(tmpdir(), "slicelab-collect-"));
after(() => {
  rmSync(tmp, { recursive: true, force: true });
  for (const d of readdirSync(join(workDir(), "clusters"))) if (d.startsWith(`${prefix}-`)) rmSync(join(workDir(), "clusters", d), { recursive: true, force: true });
});
const kit = join(repoRoot(), "bin", "slicelab.js");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Output {
  collector: string;
  files: string[];
  parsed: any;
  notes: string[];
}

test("bench run --collect with an unknown collector: exit 2, a clear message, nothing written", () => {
  const out = join(tmp, "bad");
  const r = spawnSync(process.execPath, [kit, "bench", "run", "smoke", "--collect", "pg-waits,lockmeter", "--out", out], { encoding: "utf8" });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--collect: unknown collector "lockmeter" \(known: lockstat, perf-lock, perf-profile, pg-waits, rseq-stats, ctxsw\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  assert.equal(existsSync(out), false);
  const twice = spawnSync(process.execPath, [kit, "bench", "run", "smoke", "--collect", "ctxsw,ctxsw", "--out", out], { encoding: "utf8" });
  assert.equal(twice.status, 2);
  assert.match(twice.stderr, /--collect: collector "ctxsw" named twice/);
});

test("bench run smoke --collect pg-waits,ctxsw,perf-profile: files under the run, parsed summaries in result.json", { timeout: 180_000 }, () => {
  const out = join(tmp, "smoke");
  const r = spawnSync(
    process.execPath,
    [kit, "bench", "run", "smoke", "--runs", "1", "--warmup", "0", "--seed", "5", "--collect", "pg-waits,ctxsw,perf-profile,lockstat,rseq-stats", "--cluster-prefix", prefix, "--out", out, "--json"],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.done, 1);
  assert.equal(summary.rows.length, 4);

  // Which collectors were on, which were skipped and why: in series.json, the provenance and the run.
  const plan = JSON.parse(readFileSync(join(out, "series.json"), "utf8"));
  assert.deepEqual(plan.collect, ["pg-waits", "ctxsw", "perf-profile", "lockstat", "rseq-stats"]);
  const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
  const run = readRunResult(out, "001-base");
  assert.ok(run?.collectors, "result.json records the collectors");
  assert.deepEqual(prov.sessions[0].collectors, run.collectors);
  const skippedNames = run.collectors.skipped.map((s) => s.name);
  for (const s of run.collectors.skipped) assert.ok(s.reason.length > 20, `${s.name} skipped without a real reason: ${s.reason}`);
  // On this host: no CONFIG_LOCK_STAT and no debugfs mount; elsewhere they may work, and then they must be on.
  if (!existsSync("/proc/lock_stat")) {
    assert.ok(skippedNames.includes("lockstat"));
    assert.match(run.collectors.skipped.find((s) => s.name === "lockstat")!.reason, /CONFIG_LOCK_STAT/);
  }
  if (!existsSync("/sys/kernel/debug/rseq/stats")) {
    assert.ok(skippedNames.includes("rseq-stats"));
    assert.match(run.collectors.skipped.find((s) => s.name === "rseq-stats")!.reason, /debugfs|rseq/);
  }
  assert.deepEqual([...run.collectors.on, ...skippedNames].sort(), [...plan.collect].sort());
  for (const name of ["pg-waits", "ctxsw", "perf-profile"]) assert.ok(run.collectors.on.includes(name as never), `${name} should work here`);

  let waitSamples = 0;
  let activeObservations = 0;
  let backendSwitches = 0;
  for (const w of run.workloads) {
    assert.ok(w.collect, `workload ${w.workload} has no collector outputs`);
    assert.equal(w.collect.dir, `collect/${w.workload}`);
    const dir = join(out, "runs", run.id, w.collect.dir);
    const outputs = w.collect.outputs as Output[];
    assert.deepEqual(outputs.map((o) => o.collector), run.collectors.on);
    for (const o of outputs) for (const f of o.files) assert.ok(existsSync(join(dir, f)), `${o.collector}: ${f} missing in ${dir}`);

    // pg-waits: the raw samples parse and agree with the summary in result.json.
    const pw = outputs.find((o) => o.collector === "pg-waits")!;
    const lines = readFileSync(join(dir, "pg-waits.jsonl"), "utf8").trim().split("\n");
    const samples = lines.map((l) => JSON.parse(l) as { t: number; rows: unknown });
    for (const s of samples) parseActivityJson(JSON.stringify(s.rows));
    assert.equal(pw.parsed.samples, samples.length);
    assert.equal(pw.parsed.failedSamples, 0, pw.notes.join("; "));
    waitSamples += pw.parsed.samples;
    activeObservations += (pw.parsed.byEvent as { count: number }[]).reduce((a, e) => a + e.count, 0);

    // ctxsw: the file is the parsed result, and the client backends switched.
    const cs = outputs.find((o) => o.collector === "ctxsw")!;
    assert.deepEqual(JSON.parse(readFileSync(join(dir, "ctxsw.json"), "utf8")), cs.parsed);
    const clients = (cs.parsed.byKind as { kind: string; processes: number; voluntary: number; nonvoluntary: number }[]).find((k) => k.kind === "client backend");
    // With CPU hogs on every CPU of a small machine the sampler itself can be starved through a
    // 2-second workload (seen once under extra load): only the hog-free workloads must show every client.
    if (w.hogs === 0) {
      assert.ok(clients && clients.processes >= 8, `${w.workload}: expected ≥ 8 client backends, found ${JSON.stringify(cs.parsed.byKind)}`);
    }
    backendSwitches += clients ? clients.voluntary + clients.nonvoluntary : 0;

    // perf-profile: the report parses again to the stored rows, and PostgreSQL shows up in it.
    const pp = outputs.find((o) => o.collector === "perf-profile")!;
    const text = readFileSync(join(dir, "perf-report.txt"), "utf8");
    const rows = parsePerfReport(text, join(dir, "perf-report.txt"));
    assert.ok(rows.length > 0);
    assert.equal(rows.length, (pp.parsed as unknown[]).length);
    assert.ok(rows.some((x) => x.command === "postgres"), `${w.workload}: no postgres samples in the profile`);
    assert.deepEqual(pp.notes, [], "perf record ended normally");
    assert.equal(existsSync(join(dir, "perf.data")), false, "the binary data file is not kept");
  }
  assert.ok(waitSamples > 0);
  assert.ok(activeObservations > 0, "pg-waits saw no active backend in any workload");
  assert.ok(backendSwitches > 0);

  // The tidy tables of src/collect/tables.ts agree with the run's outputs.
  assert.equal(waitEventRows(out).reduce((n, r) => n + r.count, 0), activeObservations);
  const cs = ctxswRows(out);
  assert.deepEqual(cs.map((r) => r.workload), run.workloads.map((w) => w.workload));
  assert.equal(cs.reduce((n, r) => n + r.voluntary + r.nonvoluntary, 0), backendSwitches);
  assert.equal(waitTypeTable(out).reduce((n, r) => n + r.count, 0), activeObservations, "with --warmup 0 the run is measured");
});

/** Processes whose environment carries the tag (the kit's children, perf included). */
function tagged(tag: string, except: number[] = []): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d) || except.includes(Number(d))) continue;
    try {
      if (!readFileSync(`/proc/${d}/environ`, "utf8").split("\0").includes(`SLICELAB_RUN_TAG=${tag}`)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      found.push({ pid: Number(d), cmd: readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ").trim() });
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

test("SIGINT while collectors record: no perf left, the run is not counted, resume completes the series", { timeout: 180_000 }, async () => {
  const tag = `collect-test-${process.pid}-${Date.now()}`;
  const protocol = join(tmp, "tiny-collect.json");
  writeFileSync(
    protocol,
    JSON.stringify({
      name: "tiny-collect",
      title: "collect sigint/resume test",
      runs: 2,
      warmup: 0,
      workloads: [{ from: join(repoRoot(), "protocols", "sangappa-2024-locktable.json"), params: { clients: 4, hogs: 1, threads: 1, duration: 4 } }],
    }),
  );
  const out = join(tmp, "sigint");
  const args = [kit, "bench", "run", protocol, "--seed", "1", "--collect", "perf-profile,ctxsw,pg-waits", "--cluster-prefix", prefix, "--out", out];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, SLICELAB_RUN_TAG: tag } });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const perfLog = join(out, "runs", "001-base", "collect", "locktable", "perf-record.log");
  let perf: { pid: number; cmd: string }[] = [];
  for (let i = 0; i < 600; i++) {
    perf = tagged(tag, [child.pid as number]).filter((p) => /^perf record/.test(p.cmd));
    if (existsSync(perfLog) && perf.length > 0) break;
    await sleep(50);
  }
  assert.ok(perf.length > 0, `perf record never started: ${stderr}`);
  await sleep(300);
  child.kill("SIGINT");
  const code = await new Promise((r) => child.on("exit", (c) => r(c)));
  assert.equal(code, 130, stderr);
  let left = tagged(tag);
  for (let i = 0; i < 30 && left.length > 0; i++) {
    await sleep(100);
    left = tagged(tag);
  }
  assert.deepEqual(left, [], "processes left behind");
  // The interrupted run wrote collector files but no result.json: it does not count.
  assert.ok(existsSync(perfLog));
  assert.deepEqual(unfinishedRuns(out), ["001-base"]);
  assert.deepEqual(seriesRows(out), []);

  // Resume without --collect: the stored collectors are used; both runs finish, one row each.
  const r = spawnSync(process.execPath, [kit, "bench", "run", protocol, "--cluster-prefix", prefix, "--out", out], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const rows = seriesRows(out);
  assert.deepEqual(rows.map((x) => x.id), ["001-base", "002-base"]);
  for (const id of ["001-base", "002-base"]) {
    const res = readRunResult(out, id)!;
    assert.deepEqual(res.collectors?.on, ["perf-profile", "ctxsw", "pg-waits"]);
    assert.deepEqual(res.workloads[0]!.collect!.outputs.map((o) => o.collector), ["perf-profile", "ctxsw", "pg-waits"]);
  }
  // Resuming with other collectors is refused (runs with and without a collector are never mixed).
  const other = spawnSync(process.execPath, [...args.slice(0, 4), "--collect", "ctxsw", "--cluster-prefix", prefix, "--out", out], { encoding: "utf8" });
  assert.equal(other.status, 2);
  assert.match(other.stderr, /series was started with --collect \["perf-profile","ctxsw","pg-waits"\], found \["ctxsw"\]/);
});

test("tables of the committed collected series agree with their raw collector files", () => {
  const dirs = collectedSeriesDirs(join(repoRoot(), "data", "runs"));
  const dir = dirs.find((d) => d.endsWith("sangappa-2024-locktable/20261130T021429Z"));
  assert.ok(dir, `data/runs/sangappa-2024-locktable/20261130T021429Z missing (found ${dirs.join(", ")})`);
  const rows = seriesRows(dir);
  assert.ok(rows.length >= 4);
  let measuredActive = 0;
  const waitTotals = new Map<string, number>();
  let lockWait = 0;
  for (const row of rows) {
    const cdir = join(dir, "runs", row.id, "collect", row.workload);
    // pg-waits: the summary recomputed from the raw samples equals the stored one.
    const samples = readFileSync(join(cdir, "pg-waits.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as PgWaitsSample);
    const stored = readRunResult(dir, row.id)!.workloads.find((w) => w.workload === row.workload)!.collect!.outputs.find((o) => o.collector === "pg-waits")!.parsed as { intervalMs: number; failedSamples: number };
    const again = summarizePgWaits(samples, stored.intervalMs, stored.failedSamples);
    assert.deepEqual(again, stored);
    if (!row.warmup) {
      for (const e of again.byEvent) {
        measuredActive += e.count;
        const t = e.waitEventType ?? "CPU";
        waitTotals.set(`${row.variant}/${t}`, (waitTotals.get(`${row.variant}/${t}`) ?? 0) + e.count);
      }
      // perf-lock: the report parsed again gives the same total wait.
      const p = parsePerfLockContention(readFileSync(join(cdir, "perf-lock-contention.txt"), "utf8"), "perf-lock-contention.txt");
      assert.ok(p.entries.length > 0);
      lockWait += p.entries.reduce((a, e) => a + (e.waitTotalNs ?? 0), 0);
    }
    // ctxsw: the table row is the file's client-backend sums.
    const file = JSON.parse(readFileSync(join(cdir, "ctxsw.json"), "utf8")) as { byKind: { kind: string; voluntary: number; nonvoluntary: number }[] };
    const cb = file.byKind.find((k) => k.kind === "client backend")!;
    const tr: CtxswRow = ctxswRows(dir).find((r) => r.id === row.id && r.workload === row.workload)!;
    assert.equal(tr.voluntary, cb.voluntary);
    assert.equal(tr.nonvoluntary, cb.nonvoluntary);
    assert.ok(tr.voluntary > 0);
  }
  const wt = waitTypeTable(dir);
  assert.equal(wt.reduce((a, r) => a + r.count, 0), measuredActive);
  for (const r of wt) assert.equal(r.count, waitTotals.get(`${r.variant}/${r.waitEventType}`));
  const all = topLocks(dir, { limit: Infinity });
  assert.equal(all.reduce((a, r) => a + r.waitTotalNs, 0), lockWait);
  assert.ok(Math.abs(all.reduce((a, r) => a + r.sharePct, 0) - 100) < 1e-9);
  assert.ok(all.every((r, i) => i === 0 || all[i - 1]!.waitTotalNs >= r.waitTotalNs), "sorted by total wait");
  assert.ok(lockContentionRows(dir).every((r) => r.caller !== "?"));
});
