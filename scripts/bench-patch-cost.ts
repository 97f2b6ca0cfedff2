/**
 * What the time-slice-extension patch costs where it cannot help (a kernel
 * without the feature), measured two ways and recorded under data/runs/:
 *
 *   micro    the micro-benchmark's ns per uncontended critical section, one
 *            thread, no work inside or outside: --extension none (no hook
 *            code, like unpatched PostgreSQL), off (hooks that find the
 *            switch off) and simulate (the request/clear/granted-check
 *            protocol on an unregistered area); the three modes in a random
 *            order in every round, and the per-round differences to "none".
 *            → data/runs/micro-cost/{runs.jsonl,summary.json}
 *   pgbench  pgbench -S through the kit's harness (protocol rostedt-2023 with
 *            small parameters), randomised blocks of baseline / patched with
 *            slice_extension = off / patched with slice_extension = all.
 *            → data/runs/patch-cost-pgbench/ (series) + analysis.json
 *
 *   pgbench-cpu  the same three arms, but measured as server CPU time per
 *            transaction (utime + stime of the backends, from the postmaster's
 *            cutime/cstime after they exited), which time stolen by other
 *            processes does not inflate; pgbench -S -t N, arms in random
 *            order in every round, baseline and patched clusters side by side.
 *            → data/runs/patch-cost-cpu/{runs.jsonl,summary.json}
 *
 * usage: node dist/scripts/bench-patch-cost.js micro [--rounds N] [--duration S] [--seed N]
 *        node dist/scripts/bench-patch-cost.js pgbench [--runs N] [--duration S] [--clients N] [--scale N]
 *        node dist/scripts/bench-patch-cost.js pgbench-cpu [--rounds N] [--transactions N] [--scale N]
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { runMicro, type ExtensionMode, type MicroRun } from "../src/micro/driver.js";
import { compareSamples, createRng, tQuantile, type Comparison } from "../src/stats/index.js";
import { hostInfo, kernelInfo, kitInfo, loadAverage, postgresInfo } from "../src/bench/provenance.js";
import { runSeries } from "../src/bench/series.js";
import { parseVariant } from "../src/bench/variant.js";
import { buildPostgres } from "../src/postgres/build.js";
import { fetchDebianSource } from "../src/postgres/source.js";
import { startCluster, type Cluster } from "../src/postgres/cluster.js";
import { writeFileAtomic } from "../src/util/fs.js";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { repoRoot } from "../src/util/paths.js";

const BUSY_NOTE =
  "Measured on a 2-CPU machine shared with other helpers' compiles (kernel and PostgreSQL builds) running at the same time: see the load averages recorded with every run. Differences of a few ns or a fraction of a percent are at or below the noise of this machine.";

/** Mean, SD and two-sided CI of the mean of paired differences. */
function paired(d: number[], alpha = 0.05): { n: number; mean: number; median: number; sd: number; ci: [number, number] } {
  const n = d.length;
  const mean = d.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const sorted = [...d].sort((a, b) => a - b);
  const median = n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  const h = tQuantile(1 - alpha / 2, n - 1) * (sd / Math.sqrt(n));
  return { n, mean, median, sd, ci: [mean - h, mean + h] };
}

function brief(c: Comparison): Record<string, unknown> {
  return {
    a: { n: c.a.n, mean: c.a.mean, sd: c.a.sd },
    b: { n: c.b.n, mean: c.b.mean, sd: c.b.sd },
    differencePct: c.welch.differencePct,
    ciPct: c.welch.ciPct,
    p: c.welch.p,
    bootstrapMeanDiffPct: c.bootstrap.meanDiffPct,
    minimumDetectableEffectPct: c.power.minimumDetectableEffectPct,
    verdict: c.verdict,
    reason: c.reason,
  };
}

async function micro(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { rounds: { type: "string" }, duration: { type: "string" }, seed: { type: "string" }, out: { type: "string" } },
  });
  const rounds = Number(values.rounds ?? 30);
  const duration = Number(values.duration ?? 1);
  const seed = Number(values.seed ?? 20261130);
  const out = values.out ?? join(repoRoot(), "data", "runs", "micro-cost");
  const rng = createRng(seed);
  const modes: ExtensionMode[] = ["none", "off", "simulate"];
  const rows: Record<string, unknown>[] = [];
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  let first: MicroRun | undefined;
  for (let r = 0; r < rounds; r++) {
    const order = [...modes];
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.index(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const mode of order) {
      const load1Before = loadAverage()[0];
      const run = await runMicro({ threads: 1, hogs: 0, csNs: 0, thinkNs: 0, durationS: duration, extension: mode, holdTimes: false });
      first ??= run;
      const x = run.results!;
      rows.push({
        round: r,
        position: order.indexOf(mode),
        mode,
        cpuNsPerIteration: x.cpuNsPerIteration,
        wallNsPerIteration: x.nsPerIteration,
        criticalSections: x.criticalSections,
        elapsedS: x.elapsedS,
        requests: x.requests,
        involuntaryCtxSwitches: x.involuntaryCtxSwitches.workers,
        load1Before,
        load1After: loadAverage()[0],
      });
    }
    process.stderr.write(`micro-cost: round ${r + 1}/${rounds}\n`);
  }
  const by = (m: string) => rows.filter((x) => x.mode === m).map((x) => x.cpuNsPerIteration as number);
  const diffs = (m: string) => {
    const base = new Map(rows.filter((x) => x.mode === "none").map((x) => [x.round, x.cpuNsPerIteration as number]));
    return rows.filter((x) => x.mode === m).map((x) => (x.cpuNsPerIteration as number) - base.get(x.round as number)!);
  };
  const summary = {
    kind: "slicelab-micro-cost",
    question: "ns added per uncontended critical section by the patch's hooks, switch off and (user-space part of) on",
    goalNs: 2,
    command: "lhp --threads 1 --hogs 0 --cs-ns 0 --think-ns 0 --no-hold-times --duration D --extension none|off|simulate",
    design: { rounds, durationS: duration, seed, order: "the three modes shuffled in every round (seeded xoshiro128**)" },
    metric: "thread CPU time per lock/unlock iteration (CLOCK_THREAD_CPUTIME_ID / iterations): leaves out the time the thread was preempted, which on this busy machine dominates wall-clock figures (wallNsPerIteration in runs.jsonl)",
    provenance: {
      started,
      ended: new Date().toISOString(),
      host: hostInfo(),
      kernel: kernelInfo(),
      kit: kitInfo(),
      binary: first?.binary ?? null,
      loadAverageStart: loadStart,
      loadAverageEnd: loadAverage(),
      note: BUSY_NOTE,
    },
    cpuNsPerIteration: Object.fromEntries(modes.map((m) => [m, { mean: by(m).reduce((a, b) => a + b, 0) / rounds, values: rounds }])),
    addedNs: {
      off: paired(diffs("off")),
      simulate: paired(diffs("simulate")),
    },
    twoSample: {
      offVsNone: brief(compareSamples(by("none"), by("off"), { labels: ["none", "off"] })),
      simulateVsNone: brief(compareSamples(by("none"), by("simulate"), { labels: ["none", "simulate"] })),
    },
  };
  writeFileAtomic(join(out, "runs.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileAtomic(join(out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(summary.addedNs, null, 2)}\n`);
}

async function pgbench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string" },
      duration: { type: "string" },
      clients: { type: "string" },
      scale: { type: "string" },
      out: { type: "string" },
      "max-runs": { type: "string" },
    },
  });
  const out = values.out ?? join(repoRoot(), "data", "runs", "patch-cost-pgbench");
  const src = await fetchDebianSource("18");
  const log = (l: string) => process.stderr.write(`patch-cost: ${l}\n`);
  const base = await buildPostgres(src, "baseline", { log });
  const patched = await buildPostgres(src, "patched", { log });
  const variants = [
    parseVariant(`baseline=bin=${base.binDir}`),
    parseVariant(`off=bin=${patched.binDir},setting:slice_extension=off`),
    parseVariant(`on=bin=${patched.binDir},setting:slice_extension=all`),
  ];
  const summary = await runSeries({
    protocol: "rostedt-2023",
    variants,
    outDir: out,
    params: {
      scale: values.scale ?? "10",
      clients: values.clients ?? "2",
      threads: "2",
      duration: values.duration ?? "20",
    },
    runs: Number(values.runs ?? 10),
    warmup: 1,
    design: "blocks",
    clientBinDir: base.binDir,
    clusterPrefix: "cost",
    maxRuns: values["max-runs"] === undefined ? undefined : Number(values["max-runs"]),
    log,
    progress: (e) => {
      if (e.kind === "start") log(`run ${e.k + 1}/${e.total}: ${e.id}`);
    },
  });
  const rows = summary.rows.filter((r) => !r.warmup);
  const tps = (v: string) => rows.filter((r) => r.variant === v).map((r) => r.tps);
  if (summary.done < summary.total) {
    log(`${summary.done}/${summary.total} runs done; run again to resume`);
    return;
  }
  const analysis = {
    kind: "slicelab-patch-cost-pgbench",
    question: "tps cost of the patch on a kernel without the feature: patched (slice_extension off / all) vs unpatched, same source",
    goalPct: 0.5,
    series: out,
    builds: { baseline: postgresInfo(base.binDir), patched: postgresInfo(patched.binDir) },
    kernelHasFeature: kernelInfo().sliceExtensionPrctl,
    note: `${BUSY_NOTE} With no kernel support, slice_extension = all takes the same code path as off after the one-time probe; the arm shows that the probe and the setting change nothing.`,
    offVsBaseline: brief(compareSamples(tps("baseline"), tps("off"), { labels: ["baseline", "patched, off"] })),
    onVsBaseline: brief(compareSamples(tps("baseline"), tps("on"), { labels: ["baseline", "patched, all"] })),
  };
  writeFileAtomic(join(out, "analysis.json"), `${JSON.stringify(analysis, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify({ off: analysis.offVsBaseline, on: analysis.onVsBaseline }, null, 2)}\n`);
}

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

async function pgbenchCpu(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { rounds: { type: "string" }, transactions: { type: "string" }, scale: { type: "string" }, seed: { type: "string" }, out: { type: "string" } },
  });
  const rounds = Number(values.rounds ?? 10);
  const tx = Number(values.transactions ?? 50000);
  const scale = Number(values.scale ?? 10);
  const seed = Number(values.seed ?? 20261130);
  const out = values.out ?? join(repoRoot(), "data", "runs", "patch-cost-cpu");
  const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  const src = await fetchDebianSource("18");
  const log = (l: string) => process.stderr.write(`patch-cost-cpu: ${l}\n`);
  const base = await buildPostgres(src, "baseline", { log });
  const patched = await buildPostgres(src, "patched", { log });
  const settings = { max_connections: 20 };
  const cb = await startCluster({ binDir: base.binDir, name: "cost-cpu-baseline", settings });
  const cp = await startCluster({ binDir: patched.binDir, name: "cost-cpu-patched", settings });
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  const rows: Record<string, unknown>[] = [];
  const arms = ["baseline", "off", "on"] as const;
  try {
    for (const c of [cb, cp]) {
      execFileSync(join(base.binDir, "pgbench"), ["-h", "127.0.0.1", "-p", String(c.port), "-U", "slicelab", "-i", "-s", String(scale), "-q", "postgres"], { stdio: "ignore" });
    }
    const rng = createRng(seed);
    for (let r = 0; r < rounds + 1; r++) {
      const order = [...arms];
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.index(i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      for (const arm of order) {
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
          ["-h", "127.0.0.1", "-p", String(c.port), "-U", "slicelab", "-S", "-n", "-c", "2", "-j", "2", "-t", String(Math.round(tx / 2)), "postgres"],
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
    return paired(measured.filter((x) => x.arm === a).map((x) => ((x.cpuUsPerTransaction as number) / base.get(x.round as number)! - 1) * 100));
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
  process.stdout.write(`${JSON.stringify(summary.pairedPct, null, 2)}\n`);
}

const [what, ...rest] = process.argv.slice(2);
if (what === "micro") await micro(rest);
else if (what === "pgbench") await pgbench(rest);
else if (what === "pgbench-cpu") await pgbenchCpu(rest);
else {
  process.stderr.write("usage: node dist/scripts/bench-patch-cost.js micro|pgbench [options] (see the comment at the top of scripts/bench-patch-cost.ts)\n");
  process.exit(2);
}
