/**
 * What the collectors cost, two ways (studies collector-cost and collector-overhead):
 *
 *   collectorCost      each collector alone in a worker process (src/collect/cost.ts --worker)
 *                      while a pgbench -S workload keeps the server busy: its own CPU, its
 *                      children's, the server's for its backends, the bytes it writes and the
 *                      sampling it achieves; the bare worker ("none") is subtracted.
 *                      → out/direct-cost.json (the collectors' run directories under the work
 *                      directory, collect-cost/).
 *   collectorOverhead  pgbench -S runs with the collector off and on, interleaved in ABBA order
 *                      (off,on,on,off,…) so that a drift of the machine hits both arms alike.
 *                      → out/overhead.json (run directories under the work directory,
 *                      collect-overhead/).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { cpus as osCpus, loadavg } from "node:os";
import { join } from "node:path";
import { workDir } from "../../util/paths.js";
import { writeFileAtomic } from "../../util/fs.js";
import { hostInfo, kitInfo } from "../../record/provenance.js";
import { debianBinDir } from "../../postgres/binaries.js";
import { withCluster, type Cluster } from "../../postgres/cluster.js";
import { PG_USER } from "../../postgres/user.js";
import { COLLECTOR_NAMES, prepareCollectors, startCollectors, stopCollectors, type CollectorName } from "../../collect/index.js";
import { runWorker, summarizeCost, type CostWindow } from "../../collect/cost.js";
import { summarizeOverhead, type OverheadRun } from "../../collect/overhead.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";

/** pgbench against a cluster, its output (stdout and stderr) once it exits 0. */
function pgbench(bin: string, c: { socketDir: string; port: number }, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(join(bin, "pgbench"), ["-h", c.socketDir, "-p", String(c.port), "-U", PG_USER, ...args, "postgres"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`pgbench exit ${code}: ${out}`))));
  });
}

function tpsOf(out: string): number {
  const m = /^tps = ([\d.]+) \(without initial connection time\)$/m.exec(out);
  if (!m) throw new Error(`no tps line in pgbench output:\n${out}`);
  return Number(m[1]);
}

export async function collectorCost(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const seconds = p.num("seconds");
  const reps = p.int("reps");
  const pg = p.int("pg");
  let names: CollectorName[];
  const skipped: { name: string; reason: string }[] = [];
  if (p.list("collect") !== undefined) names = p.list("collect") as CollectorName[];
  else {
    const prep = await prepareCollectors([...COLLECTOR_NAMES]);
    names = prep.active.map((c) => c.name);
    skipped.push(...prep.skipped);
  }
  const bin = debianBinDir(pg);
  const dir = join(workDir(), "collect-cost");
  mkdirSync(dir, { recursive: true });
  const ncpu = osCpus().length;
  const windows: CostWindow[] = [];
  const started = new Date().toISOString();
  const loadBefore = loadavg();
  const clients = String(p.int("clients"));
  const workload = `pgbench -S -n -c ${clients} -j 2 (scale 10) running through every window, PostgreSQL ${pg}, autovacuum off`;
  await withCluster({ binDir: bin, name: "collect-cost", settings: { autovacuum: "off" } }, async (c) => {
    await pgbench(bin, c, ["-i", "-s", "10", "-q"]);
    const postmasterPid = Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const order: (CollectorName | "none")[] = ["none", ...names];
    for (let rep = 0; rep < reps; rep++) {
      // rotate the order so that no collector always follows the same one
      const k = rep % order.length;
      const round = [...order.slice(k), ...order.slice(0, k)];
      for (const name of round) {
        const bench = pgbench(bin, c, ["-S", "-n", "-c", clients, "-j", "2", "-T", String(Math.ceil(seconds) + 8)]);
        await new Promise((r) => setTimeout(r, 2000)); // clients connected
        const w = await runWorker([
          "--worker", name, "--rep", String(rep), "--seconds", String(seconds), "--dir", join(dir, `${name}-${rep}`),
          "--postmaster-pid", String(postmasterPid), "--psql", join(bin, "psql"), "--socket", c.socketDir, "--port", String(c.port), "--user", PG_USER,
        ]);
        await bench;
        windows.push(w);
        ctx.log(`${name} rep ${rep}: window ${w.windowS.toFixed(1)} s, cpu self ${w.selfCpuS.toFixed(3)} children ${w.childrenCpuS.toFixed(3)} server ${w.serverCpuS?.toFixed(3)} s, stop ${w.stopCpuS.toFixed(2)} s, ${w.bytesDuringRun} B`);
      }
    }
  });
  const summary = summarizeCost(windows, ncpu);
  const result = {
    method: "collector alone in a worker process during a running workload; CPU from /proc (see src/collect/cost.ts)",
    workload, cpus: ncpu, windowSeconds: seconds, reps,
    environment: { started, finished: new Date().toISOString(), load1Before: loadBefore[0], load1After: loadavg()[0], kernel: readFileSync("/proc/sys/kernel/osrelease", "utf8").trim(), host: hostInfo(), kit: kitInfo() },
    windows, summary, skipped,
  };
  writeFileAtomic(join(ctx.out, "direct-cost.json"), `${JSON.stringify(result, null, 2)}\n`);
  for (const s of summary) {
    const smp = s.sampling.find((x) => x !== null);
    ctx.log(
      `${s.collector.padEnd(13)} cpu ${s.cpuPerSecond.mean.toFixed(4)} s/s [${s.cpuPerSecond.min.toFixed(4)}, ${s.cpuPerSecond.max.toFixed(4)}] = ${s.machineSharePct.toFixed(2)} % of ${ncpu} CPUs; ` +
        `stop ${s.stopCpuS.toFixed(2)} s cpu; ${(s.bytesPerSecond / 1024).toFixed(1)} KiB/s${smp ? `; ${smp.what}: ${smp.achieved} (target ${smp.target})` : ""}`,
    );
  }
  for (const s of skipped) ctx.log(`${s.name}: skipped: ${s.reason}`);
  return { binDirs: [bin] };
}

export async function collectorOverhead(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const names = p.list("collect") as CollectorName[];
  const pairs = p.int("pairs");
  const seconds = String(p.int("seconds"));
  const clients = String(p.int("clients"));
  const bin = debianBinDir(15);
  const dir = join(workDir(), "collect-overhead");
  mkdirSync(dir, { recursive: true });
  const runs: OverheadRun[] = [];
  const skipped: { name: string; reason: string }[] = [];
  await withCluster({ binDir: bin, name: "collect-overhead" }, async (c: Cluster) => {
    await pgbench(bin, c, ["-i", "-s", "10", "-q"]);
    const postmasterPid = Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const bench = async () => tpsOf(await pgbench(bin, c, ["-S", "-n", "-c", clients, "-j", "2", "-T", seconds]));
    await bench(); // warm-up, not counted
    for (const name of names) {
      const prep = await prepareCollectors([name]);
      skipped.push(...prep.skipped);
      if (prep.active.length === 0) continue;
      for (let pair = 0; pair < pairs; pair++) {
        const order = pair % 2 === 0 ? [false, true] : [true, false];
        for (const on of order) {
          let tps: number;
          if (on) {
            const cc = { runDir: join(dir, `${name}-${pair}`), query: (sql: string) => c.query(sql), postmasterPid };
            await startCollectors(prep.active, cc);
            tps = await bench();
            await stopCollectors(prep.active, cc);
          } else tps = await bench();
          runs.push({ collector: name, pair, on, tps });
          ctx.log(`${name} pair ${pair} ${on ? "on " : "off"} tps ${tps}`);
        }
      }
    }
  });
  const summary = summarizeOverhead(runs);
  const result = { workload: `pgbench -S -n -c ${clients} -j 2 -T ${seconds} (scale 10), PostgreSQL 15`, runs, summary, skipped };
  writeFileAtomic(join(ctx.out, "overhead.json"), `${JSON.stringify(result, null, 2)}\n`);
  for (const s of summary) {
    ctx.log(`${s.collector.padEnd(13)} off ${s.tpsOffMean.toFixed(0).padStart(7)}  on ${s.tpsOnMean.toFixed(0).padStart(7)}  overhead ${s.overheadPct.toFixed(1).padStart(5)}%  pairs ${s.pairOverheadPct.map((x) => x.toFixed(1)).join(" ")}`);
  }
  for (const s of skipped) ctx.log(`${s.name}: skipped: ${s.reason}`);
  return { binDirs: [bin] };
}
