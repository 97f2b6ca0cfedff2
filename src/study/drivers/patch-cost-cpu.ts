import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { compareSamples, pairedMean } from "../../stats/index.js";
import { hostInfo, kernelInfo, kitInfo, loadAverage, postgresInfo } from "../../record/provenance.js";
import { blockOrders } from "../../bench/overhead.js";
import { startCluster, type Cluster } from "../../postgres/cluster.js";
import { writeFileAtomic } from "../../util/fs.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";
import { BUSY_NOTE, brief, costBuilds } from "./patch-cost.js";

/** The patch-cost-cpu experiment: server CPU time per pgbench -S transaction, patched vs baseline (split from patch-cost.ts). */

/** utime+stime of the postmaster's reaped children (backends that exited), in clock ticks. */
function childTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state): cutime and cstime are fields 16 and 17
  return Number(fields[13]) + Number(fields[14]);
}

/** Client backends (as opposed to the server's own processes) still running under the postmaster. */
function clientBackends(pid: number): number {
  let n = 0;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  for (const c of children) {
    try {
      if (/^postgres: slicelab /.test(readFileSync(`/proc/${c}/cmdline`, "utf8").replace(/\0/g, " "))) n++;
    } catch {
      /* exited meanwhile */
    }
  }
  return n;
}

async function settle(pid: number): Promise<void> {
  for (let i = 0; i < 200 && clientBackends(pid) > 0; i++) await new Promise((r) => setTimeout(r, 50));
}

function postmasterPid(c: Cluster): number {
  return Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

export async function pgbenchCpu(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const rounds = p.int("rounds");
  const tx = p.int("transactions");
  const scale = p.int("scale");
  const seed = p.int("seed");
  const out = ctx.out;
  const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  const log = (l: string) => ctx.log(`patch-cost-cpu: ${l}`);
  const { baseBin, patchedBin } = await costBuilds(p.opt("baseline_bin"), p.opt("patched_bin"), log);
  const base = { binDir: baseBin };
  const patched = { binDir: patchedBin };
  const settings = { max_connections: 20 };
  const cb = await startCluster({ binDir: base.binDir, name: "cost-cpu-baseline", settings });
  const cp = await startCluster({ binDir: patched.binDir, name: "cost-cpu-patched", settings });
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  const rows: Record<string, unknown>[] = [];
  const arms = ["baseline", "off", "on"] as const;
  try {
    for (const c of [cb, cp]) {
      execFileSync(join(base.binDir, "pgbench"), ["-h", c.socketDir, "-p", String(c.port), "-U", "slicelab", "-i", "-s", String(scale), "-q", "postgres"], { stdio: "ignore" });
    }
    const orders = blockOrders([...arms], rounds + 1, "random", seed);
    for (let r = 0; r < rounds + 1; r++) {
      for (const arm of orders[r]!) {
        const c = arm === "baseline" ? cb : cp;
        if (arm !== "baseline") {
          await c.query(`ALTER SYSTEM SET slice_extension = '${arm === "on" ? "all" : "off"}'`);
          await c.query("SELECT pg_reload_conf()");
          const want = arm === "on" ? "all" : "off";
          for (let i = 0; i < 100 && (await c.query("SHOW slice_extension")) !== want; i++) await new Promise((res) => setTimeout(res, 100));
        }
        const pid = postmasterPid(c);
        await settle(pid);
        const before = childTicks(pid);
        const load1Before = loadAverage()[0];
        const t0 = Date.now();
        const outText = execFileSync(
          join(base.binDir, "pgbench"),
          ["-h", c.socketDir, "-p", String(c.port), "-U", "slicelab", "-S", "-n", "-c", "2", "-j", "2", "-t", String(Math.round(tx / 2)), "postgres"],
          { encoding: "utf8" },
        );
        const seconds = (Date.now() - t0) / 1000;
        await settle(pid);
        const ticks = childTicks(pid) - before;
        const tps = Number(/tps = ([\d.]+)/.exec(outText)?.[1] ?? NaN);
        rows.push({
          round: r,
          warmup: r === 0,
          arm,
          transactions: tx,
          cpuTicks: ticks,
          cpuUsPerTransaction: ((ticks / ticksPerSecond) * 1e6) / tx,
          tps,
          seconds,
          load1Before,
          load1After: loadAverage()[0],
        });
      }
      log(`round ${r + 1}/${rounds + 1}${r === 0 ? " (warm-up)" : ""}`);
    }
  } finally {
    await cb.stop();
    await cp.stop();
  }
  const measured = rows.filter((x) => !x.warmup);
  const by = (a: string) => measured.filter((x) => x.arm === a).map((x) => x.cpuUsPerTransaction as number);
  const pairedPct = (a: string) => {
    const base = new Map(measured.filter((x) => x.arm === "baseline").map((x) => [x.round, x.cpuUsPerTransaction as number]));
    return pairedMean(measured.filter((x) => x.arm === a).map((x) => ((x.cpuUsPerTransaction as number) / base.get(x.round as number)! - 1) * 100));
  };
  const summary = {
    kind: "slicelab-patch-cost-cpu",
    question: "server CPU time per pgbench -S transaction: patched (slice_extension off / all) vs unpatched, same source; more CPU per transaction means fewer tps on a CPU-bound server",
    goalPct: 0.5,
    command: `pgbench -S -n -c 2 -j 2 -t ${Math.round(tx / 2)} (scale ${scale}); CPU = Δ(cutime + cstime) of the postmaster (its exited backends), ${ticksPerSecond} ticks/s`,
    design: { rounds, warmupRounds: 1, seed, order: "the three arms shuffled in every round (seeded xoshiro128**); baseline and patched clusters run side by side; the patched arm's setting changed by ALTER SYSTEM + reload" },
    provenance: {
      started,
      ended: new Date().toISOString(),
      host: hostInfo(),
      kernel: kernelInfo(),
      kit: kitInfo(),
      builds: { baseline: postgresInfo(base.binDir), patched: postgresInfo(patched.binDir) },
      loadAverageStart: loadStart,
      loadAverageEnd: loadAverage(),
      note: `${BUSY_NOTE} CPU time per transaction is not inflated by time the backends waited for a CPU, but caches shared with other processes still add noise. With no kernel support, slice_extension = all takes the same code path as off after the one-time probe.`,
    },
    cpuUsPerTransaction: Object.fromEntries(arms.map((a) => [a, { mean: by(a).reduce((x, y) => x + y, 0) / by(a).length, n: by(a).length }])),
    pairedPct: { off: pairedPct("off"), on: pairedPct("on") },
    twoSample: {
      offVsBaseline: brief(compareSamples(by("baseline"), by("off"), { labels: ["baseline", "patched, off"] })),
      onVsBaseline: brief(compareSamples(by("baseline"), by("on"), { labels: ["baseline", "patched, all"] })),
    },
  };
  writeFileAtomic(join(out, "runs.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileAtomic(join(out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  ctx.log(JSON.stringify(summary.pairedPct, null, 2));
  return { binDirs: [baseBin, patchedBin] };
}
