// The harness's own cost. Runs the same pgbench command alternately through the
// kit's measuring code (src/bench/series.ts measureWorkload: process group, raw
// output file, load averages, parsing) and by hand (`setsid -w sh -c "pgbench … > file 2>&1"`,
// a shell in a session of its own as in a terminal),
// interleaved on one running cluster, and prints
//   - the tps ratio kit / by hand (goal ≥ 0.99), per pair and overall, and
//   - the kit's own CPU time (user + system of this Node process) during each
//     kit-run pgbench, in % of one core (goal < 1%).
// usage: node dist/scripts/bench-overhead.js [--pairs N] [--duration S] [--clients N] [--threads N] [--scale N] [--json]
// This is a benchmark, not a test: on a shared machine the tps ratio carries the machine's noise.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { debianBinDir } from "../src/postgres/binaries.js";
import { startCluster } from "../src/postgres/cluster.js";
import { PG_USER } from "../src/postgres/user.js";
import { loadProtocol, resolveWorkloads } from "../src/bench/protocol.js";
import { measureWorkload, clusterNameFor } from "../src/bench/series.js";
import { parsePgbenchFile } from "../src/parse/pgbench.js";
import { mean, sd, tQuantile } from "../src/stats/index.js";
import { workDir } from "../src/util/paths.js";

const { values } = parseArgs({
  options: {
    pairs: { type: "string", default: "5" },
    duration: { type: "string", default: "10" },
    clients: { type: "string", default: "8" },
    threads: { type: "string", default: "2" },
    scale: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
});
const pairs = Number(values.pairs);
const binDir = debianBinDir();
const clients = { binDir };
// The workload is rostedt-2023's select-only pgbench, made small by parameters.
const [w] = resolveWorkloads(loadProtocol("rostedt-2023"), cpus().length, {
  duration: values.duration as string,
  clients: values.clients as string,
  threads: values.threads as string,
  scale: values.scale as string,
});
if (!w) throw new Error("rostedt-2023 has no workload");
const out = join(workDir(), "overhead", new Date().toISOString().replace(/[:.]/g, "-"));
mkdirSync(out, { recursive: true });
const log = (s: string) => {
  if (!values.json) process.stderr.write(`${s}\n`);
};

const cluster = await startCluster({ binDir, name: clusterNameFor("overhead", "rostedt-2023", binDir), settings: w.settings });
const rows: { pair: number; order: string; kitTps: number; handTps: number; kitCpuPct: number; kitSeconds: number }[] = [];
try {
  const db = w.database;
  const exists = (await cluster.query(`SELECT count(*) FROM pg_database WHERE datname = '${db}'`)) === "1";
  if (!exists) {
    await cluster.query(`CREATE DATABASE "${db}"`);
    const init = spawnSync(join(binDir, "pgbench"), ["-h", cluster.socketDir, "-p", String(cluster.port), "-U", PG_USER, ...(w.setup[0]?.args ?? []), db], { encoding: "utf8" });
    if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
  }
  const handCommand = [join(binDir, "pgbench"), "-h", cluster.socketDir, "-p", String(cluster.port), "-U", PG_USER, ...w.args, db].join(" ");
  log(`cluster log ${cluster.logFile}; by hand: ${handCommand}`);
  const kit = async (i: number) => {
    const file = join(out, `kit-${i}.out`);
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const m = await measureWorkload(cluster, w, clients, file);
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    return { tps: m.tps, cpuPct: ((c.user + c.system) / 1e6 / wall) * 100, seconds: wall };
  };
  const hand = (i: number) => {
    const file = join(out, `hand-${i}.out`);
    // As from a terminal: a shell in its own session. (With CONFIG_SCHED_AUTOGROUP, a session is a
    // scheduling group; the kit also runs pgbench in a session of its own.)
    const r = spawnSync("setsid", ["-w", "/bin/sh", "-c", `${handCommand} > ${file} 2>&1`]);
    if (r.status !== 0) throw new Error(`by-hand pgbench failed (exit ${r.status}), see ${file}`);
    return (parsePgbenchFile(file)[0] as { tps: number }).tps;
  };
  for (let i = 1; i <= pairs; i++) {
    const kitFirst = i % 2 === 1;
    let k: Awaited<ReturnType<typeof kit>>;
    let h: number;
    if (kitFirst) {
      k = await kit(i);
      h = hand(i);
    } else {
      h = hand(i);
      k = await kit(i);
    }
    rows.push({ pair: i, order: kitFirst ? "kit,hand" : "hand,kit", kitTps: k.tps, handTps: h, kitCpuPct: k.cpuPct, kitSeconds: k.seconds });
    log(`pair ${i}/${pairs} (${kitFirst ? "kit first" : "hand first"}): kit ${k.tps.toFixed(1)} tps, hand ${h.toFixed(1)} tps, ratio ${(k.tps / h).toFixed(4)}, kit CPU ${k.cpuPct.toFixed(3)}% of one core`);
  }
} finally {
  await cluster.stop();
}
const ratios = rows.map((r) => r.kitTps / r.handTps);
const result = {
  pairs,
  command: w.args,
  duration: Number(values.duration),
  loadAverageAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
  ratioOfMeans: mean(rows.map((r) => r.kitTps)) / mean(rows.map((r) => r.handTps)),
  meanPairRatio: mean(ratios),
  sdPairRatio: ratios.length > 1 ? sd(ratios) : null,
  /** 95% t interval of the mean per-pair ratio. */
  pairRatioCi95: ratios.length > 1 ? [-1, 1].map((s) => mean(ratios) + s * tQuantile(0.975, ratios.length - 1) * (sd(ratios) / Math.sqrt(ratios.length))) : null,
  kitCpuPctOfOneCore: { mean: mean(rows.map((r) => r.kitCpuPct)), max: Math.max(...rows.map((r) => r.kitCpuPct)) },
  goals: { ratio: ">= 0.99", kitCpu: "< 1% of one core" },
  rawDir: out,
  rows,
};
if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  process.stdout.write(
    `tps kit / by hand: ${result.ratioOfMeans.toFixed(4)} (ratio of means over ${pairs} interleaved pairs; per-pair mean ${result.meanPairRatio.toFixed(4)} ± sd ${result.sdPairRatio?.toFixed(4) ?? "n/a"}, 95% CI ${result.pairRatioCi95 ? result.pairRatioCi95.map((x) => x.toFixed(4)).join("–") : "n/a"}) — goal ≥ 0.99\n` +
      `kit CPU during pgbench: mean ${result.kitCpuPctOfOneCore.mean.toFixed(3)}%, max ${result.kitCpuPctOfOneCore.max.toFixed(3)}% of one core — goal < 1%\n` +
      `load average at the end: ${result.loadAverageAtEnd.join(" ")} on ${cpus().length} CPUs; raw output in ${out}\n`,
  );
}
