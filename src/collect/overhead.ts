/**
 * Measures what a collector costs the benchmark: pgbench -S runs with the collector off and on,
 * interleaved in ABBA order (off,on,on,off,…) so that a drift of the machine hits both arms alike.
 * Run: node dist/src/collect/overhead.js [--collect a,b] [--pairs N] [--seconds S] [--clients C]
 * Writes workDir()/collect-overhead/overhead.json and prints a table.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { workDir } from "../util/paths.js";
import { writeFileAtomic } from "../util/fs.js";
import { debianBinDir } from "../postgres/binaries.js";
import { withCluster, type Cluster } from "../postgres/cluster.js";
import { PG_USER } from "../postgres/user.js";
import { parseCollectList, prepareCollectors, startCollectors, stopCollectors, type CollectorName } from "./index.js";

export interface OverheadRun {
  collector: CollectorName;
  pair: number;
  on: boolean;
  tps: number;
}

export interface OverheadSummary {
  collector: CollectorName;
  pairs: number;
  tpsOffMean: number;
  tpsOnMean: number;
  /** (off − on) / off of the means, in percent: positive = the collector costs throughput. */
  overheadPct: number;
  /** The same per pair, to show the spread. */
  pairOverheadPct: number[];
}

export function summarizeOverhead(runs: OverheadRun[]): OverheadSummary[] {
  const names = [...new Set(runs.map((r) => r.collector))];
  return names.map((collector) => {
    const rs = runs.filter((r) => r.collector === collector);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const off = rs.filter((r) => !r.on).map((r) => r.tps);
    const on = rs.filter((r) => r.on).map((r) => r.tps);
    const pairs = [...new Set(rs.map((r) => r.pair))].sort((a, b) => a - b);
    const pairOverheadPct = pairs.map((p) => {
      const o = rs.find((r) => r.pair === p && !r.on)!.tps;
      const n = rs.find((r) => r.pair === p && r.on)!.tps;
      return (100 * (o - n)) / o;
    });
    return { collector, pairs: pairs.length, tpsOffMean: mean(off), tpsOnMean: mean(on), overheadPct: (100 * (mean(off) - mean(on))) / mean(off), pairOverheadPct };
  });
}

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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      collect: { type: "string", default: "perf-lock,perf-profile,pg-waits,ctxsw" },
      pairs: { type: "string", default: "3" },
      seconds: { type: "string", default: "8" },
      clients: { type: "string", default: "4" },
    },
  });
  const names = parseCollectList(values.collect);
  const pairs = Number(values.pairs);
  const bin = debianBinDir(15);
  const dir = join(workDir(), "collect-overhead");
  mkdirSync(dir, { recursive: true });
  const runs: OverheadRun[] = [];
  const skipped: { name: string; reason: string }[] = [];
  await withCluster({ binDir: bin, name: "collect-overhead" }, async (c: Cluster) => {
    await pgbench(bin, c, ["-i", "-s", "10", "-q"]);
    const postmasterPid = Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const bench = async () => tpsOf(await pgbench(bin, c, ["-S", "-n", "-c", values.clients!, "-j", "2", "-T", values.seconds!]));
    await bench(); // warm-up, not counted
    for (const name of names) {
      const prep = await prepareCollectors([name]);
      skipped.push(...prep.skipped);
      if (prep.active.length === 0) continue;
      for (let p = 0; p < pairs; p++) {
        const order = p % 2 === 0 ? [false, true] : [true, false];
        for (const on of order) {
          let tps: number;
          if (on) {
            const ctx = { runDir: join(dir, `${name}-${p}`), query: (sql: string) => c.query(sql), postmasterPid };
            await startCollectors(prep.active, ctx);
            tps = await bench();
            await stopCollectors(prep.active, ctx);
          } else tps = await bench();
          runs.push({ collector: name, pair: p, on, tps });
          process.stderr.write(`${name} pair ${p} ${on ? "on " : "off"} tps ${tps}\n`);
        }
      }
    }
  });
  const summary = summarizeOverhead(runs);
  const result = { workload: `pgbench -S -n -c ${values.clients} -j 2 -T ${values.seconds} (scale 10), PostgreSQL 15`, runs, summary, skipped };
  writeFileAtomic(join(dir, "overhead.json"), `${JSON.stringify(result, null, 2)}\n`);
  for (const s of summary) {
    process.stdout.write(`${s.collector.padEnd(13)} off ${s.tpsOffMean.toFixed(0).padStart(7)}  on ${s.tpsOnMean.toFixed(0).padStart(7)}  overhead ${s.overheadPct.toFixed(1).padStart(5)}%  pairs ${s.pairOverheadPct.map((x) => x.toFixed(1)).join(" ")}\n`);
  }
  for (const s of skipped) process.stdout.write(`${s.name}: skipped: ${s.reason}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
