import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { cpus } from "node:os";
import { runMicro, type ExtensionMode, type MicroRun } from "../../micro/driver.js";
import { compareSamples, pairedMean, type Comparison } from "../../stats/index.js";
import { hostInfo, kernelInfo, kitInfo, loadAverage, postgresInfo } from "../../record/provenance.js";
import { clusterNameFor, measureWorkload, sliceExtensionSettings, workloadTiming } from "../../bench/series.js";
import { loadProtocol, resolveWorkloads, type ResolvedWorkload } from "../../bench/protocol.js";
import { clientVersions, toolCommand, type Clients } from "../../bench/tools.js";
import { balancedCycle, blockOrders, type OrderDesign } from "../../bench/overhead.js";
import { analyseCost, PATCH_GOAL_PCT, type CostAnalysis, type CostRow } from "../../bench/overhead-cost.js";
import { missingServerProgram } from "../../postgres/binaries.js";
import { buildPostgres } from "../../postgres/build.js";
import { fetchDebianSource } from "../../postgres/source.js";
import { startCluster, type Cluster } from "../../postgres/cluster.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";
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
 *            → out/{runs.jsonl,summary.json}
 *   pgbench  pgbench -S, designed to resolve the 0.5% goal: one running server
 *            per build (baseline and patched, built from the same source) for
 *            the whole measurement, the patched server's slice_extension
 *            switched off / all by ALTER SYSTEM + pg_reload_conf() (no
 *            restarts), short runs in blocks that hold every arm once in a
 *            balanced (Williams) order, one discarded warm-up block, and the
 *            paired analysis of ln(tps arm / tps baseline) within blocks
 *            (src/bench/overhead-cost.ts): ratio, 95% CI, PASS / FAIL /
 *            UNRESOLVED against cost ≤ 0.5%, and the blocks the observed
 *            spread needs.
 *            → out/: provenance.json, runs.jsonl, raw/, analysis.json
 *
 *   pgbench-concurrent  the arms at the SAME TIME, one cluster each (baseline, a second
 *            baseline cluster as the A/A control, patched off, patched all), pgbench -S -c 2 -j 1
 *            against each, rounds of 10 s, launch order shuffled per round: the host's changes of
 *            speed hit every arm of a round together, so the within-round ratio resolves what the
 *            run-by-run design cannot on a shared host; same analysis (rounds as blocks).
 *            → out/ (the same files)
 *
 *   pgbench-cpu  the same three arms, but measured as server CPU time per
 *            transaction (utime + stime of the backends, from the postmaster's
 *            cutime/cstime after they exited), which time stolen by other
 *            processes does not inflate; pgbench -S -t N, arms in random
 *            order in every round, baseline and patched clusters side by side.
 *            → out/{runs.jsonl,summary.json}
 *
 * Run: `slicelab study run patch-cost` (pgbench-concurrent), `patch-cost-sequential` (pgbench),
 * `patch-cost-micro` (micro), `patch-cost-cpu` (pgbench-cpu), each with `--param K=V` for the
 * parameters its driver declares (src/study/drivers/index.ts); the files go to the record's out/.
 */

export const BUSY_NOTE =
  "Measured on a 2-CPU machine shared with other helpers' compiles (kernel and PostgreSQL builds) running at the same time: see the load averages recorded with every run. Differences of a few ns or a fraction of a percent are at or below the noise of this machine.";

export function brief(c: Comparison): Record<string, unknown> {
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

export async function micro(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const rounds = p.int("rounds");
  const duration = p.num("duration");
  const seed = p.int("seed");
  const out = ctx.out;
  const modes: ExtensionMode[] = ["none", "off", "simulate"];
  const orders = blockOrders(modes, rounds, "random", seed) as ExtensionMode[][];
  const rows: Record<string, unknown>[] = [];
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  let first: MicroRun | undefined;
  for (let r = 0; r < rounds; r++) {
    const order = orders[r]!;
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
    ctx.log(`patch-cost/20261130T014521Z: round ${r + 1}/${rounds}`);
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
      off: pairedMean(diffs("off")),
      simulate: pairedMean(diffs("simulate")),
    },
    twoSample: {
      offVsNone: brief(compareSamples(by("none"), by("off"), { labels: ["none", "off"] })),
      simulateVsNone: brief(compareSamples(by("none"), by("simulate"), { labels: ["none", "simulate"] })),
    },
  };
  writeFileAtomic(join(out, "runs.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileAtomic(join(out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  ctx.log(JSON.stringify(summary.addedNs, null, 2));
  return { binDirs: [] };
}

/** slice_extension value of each patched arm. */
const ARM_SETTING: Record<string, string | undefined> = { baseline: undefined, off: "off", on: "all" };

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Sets slice_extension on a running patched server with ALTER SYSTEM + reload; returns once a new session sees it. */
async function switchSliceExtension(c: Cluster, db: string, value: string): Promise<void> {
  if ((await c.query("SHOW slice_extension", db)) === value) return;
  await c.query(`ALTER SYSTEM SET slice_extension = '${value}'`);
  await c.query("SELECT pg_reload_conf()");
  for (let i = 0; i < 200; i++) {
    if ((await c.query("SHOW slice_extension", db)) === value) return;
    await sleep(50);
  }
  throw new UserError(`cluster ${c.name}: slice_extension did not become '${value}' within 10 s of pg_reload_conf(); log ${c.logFile}`);
}

/** Creates and fills the workload's database once (pgbench -i with the protocol's setup arguments). */
async function ensurePgbenchDb(c: Cluster, w: ResolvedWorkload, clientBin: string, log: (l: string) => void): Promise<string> {
  const db = w.database;
  const exists = (await c.query(`SELECT count(*) FROM pg_database WHERE datname = '${db}'`)) === "1";
  const filled = exists && (await c.query("SELECT count(*) FROM pg_class WHERE relname = 'pgbench_accounts'", db)) === "1";
  if (!filled) {
    if (!exists) await c.query(`CREATE DATABASE "${db}"`);
    const cmd = toolCommand("pgbench", { binDir: clientBin }, c, db, w.setup[0]?.args ?? []);
    log(`initialising ${c.name}/${db}: pgbench ${(w.setup[0]?.args ?? []).join(" ")}`);
    const r = spawnSync(cmd.file, cmd.args, { encoding: "utf8" });
    if (r.status !== 0) throw new UserError(`pgbench -i in cluster ${c.name} failed (exit ${r.status}): ${r.stderr.trim()}`);
  }
  return c.query("SELECT count(*) FROM pgbench_accounts", db);
}

/** The baseline and patched bin directories: as given, or built from Debian's PostgreSQL 18 source. */
export async function costBuilds(baseline: string | undefined, patched: string | undefined, log: (l: string) => void): Promise<{ baseBin: string; patchedBin: string }> {
  if (baseline === undefined || patched === undefined) {
    const src = await fetchDebianSource("18");
    baseline ??= (await buildPostgres(src, "baseline", { log })).binDir;
    patched ??= (await buildPostgres(src, "patched", { log })).binDir;
  }
  for (const [opt, b] of [["--baseline-bin", baseline], ["--patched-bin", patched]] as const) {
    const missing = missingServerProgram(b);
    if (missing !== undefined) throw new UserError(`${opt} ${b}: expected a PostgreSQL bin directory, found no ${missing} in it`);
  }
  return { baseBin: baseline, patchedBin: patched };
}

/** What every pgbench cost record says about where and with what it ran. */
function costProvenance(kind: string, started: string, baseBin: string, patchedBin: string, clients: Clients) {
  return {
    kind,
    started,
    host: hostInfo(),
    kernel: kernelInfo(),
    kit: kitInfo(),
    builds: { baseline: postgresInfo(baseBin), patched: postgresInfo(patchedBin) },
    clients: { binDir: clients.binDir, versions: clientVersions(clients) },
    loadAverageStart: loadAverage(),
  };
}

/** One line of a cost record's runs.jsonl from a measured run. */
function costRow(block: number, warmup: boolean, position: number, arm: string, setting: string | null, m: Awaited<ReturnType<typeof measureWorkload>>, raw: string): CostRow {
  return {
    block,
    warmup,
    position,
    arm,
    setting,
    ...workloadTiming(m),
    raw,
    sliceExtension: m.sliceExtension ?? null,
  };
}

/** One line per comparison of a patch-cost analysis, and what the observed spread would need. */
function printCost(comparisons: CostAnalysis["comparisons"], unit: "blocks" | "rounds", log: (l: string) => void): void {
  for (const c of comparisons) {
    const f4 = (x: number) => x.toFixed(4);
    log(
      `${c.arm} / ${c.reference}: ${f4(c.ratio)}, 95% CI ${f4(c.ci95[0])}–${f4(c.ci95[1])} (cost ${c.costPct.toFixed(2)}%, CI ${c.costCiPct[0].toFixed(2)}–${c.costCiPct[1].toFixed(2)}%; ${c.pairs} ${unit}, per-${unit.slice(0, -1)} sd ${(c.sdLogPerPair * 100).toFixed(2)}%)` +
        (c.verdict ? ` — goal cost ≤ ${PATCH_GOAL_PCT}%: ${c.verdict} (${c.reason})` : "") +
        `\n  ${unit} needed at this spread: ${c.pairsNeeded.pairsIfNoEffect80} for 80% power if the cost were 0 (≈ ${c.pairsNeeded.minutesIfNoEffect80.toFixed(0)} min), ${c.pairsNeeded.pairsAtEstimate} to resolve this estimate; unpaired half-width would be ±${c.unpairedHalfWidthPct.toFixed(2)}%`,
    );
  }
}

/**
 * pgbench -S, baseline vs patched (switch off / on), designed to resolve 0.5%:
 * one running server per binary for the whole measurement (no restarts), the
 * patched server's switch flipped with ALTER SYSTEM + pg_reload_conf(), short
 * runs in blocks holding every arm once in a balanced (Williams) order, and the
 * paired analysis of ln(tps arm / tps baseline) within blocks.
 */
export async function pgbench(ctx: DriverContext): Promise<DriverResult> {
  const ncpu = cpus().length;
  const p = paramReader(ctx.params);
  const blocks = p.int("blocks");
  const warmupBlocks = p.int("warmup_blocks");
  const settleMs = p.int("settle_ms");
  const seed = p.int("seed");
  const arms = p.list("arms")!;
  const design = p.str("order") as OrderDesign;
  const log = (l: string) => ctx.log(`patch-cost: ${l}`);
  if (blocks % balancedCycle(arms.length) !== 0 && design === "balanced") {
    log(`note: blocks=${blocks} is not a multiple of ${balancedCycle(arms.length)}: the balanced order is complete only for whole cycles`);
  }

  const { baseBin, patchedBin } = await costBuilds(p.opt("baseline_bin"), p.opt("patched_bin"), log);
  const [w] = resolveWorkloads(loadProtocol("rostedt-2023"), ncpu, {
    scale: String(p.int("scale")),
    clients: String(ctx.params.clients ?? 2 * ncpu),
    threads: String(ctx.params.threads ?? ncpu),
    duration: String(p.int("duration")),
  });
  if (!w) throw new UserError("protocols/rostedt-2023.json: expected a workload, found none");
  const clients: Clients = { binDir: baseBin };
  const out = ctx.out;
  const rawDir = join(out, "raw");
  mkdirSync(rawDir, { recursive: true });
  const orders = blockOrders(arms, blocks, design, seed);
  const started = new Date().toISOString();
  const provenance = {
    ...costProvenance("slicelab-patch-cost-pgbench", started, baseBin, patchedBin, clients),
    design: {
      arms: Object.fromEntries(arms.map((a) => [a, a === "baseline" ? "baseline build" : `patched build, slice_extension = ${ARM_SETTING[a]}`])),
      blocks,
      warmupBlocks,
      order: design === "balanced" ? "Williams sequences in turn (every arm equally often in every position and after every other arm)" : `shuffled per block, seed ${seed}`,
      seed,
      settleMs,
      servers: "one running server per build for the whole measurement (no restarts); slice_extension switched by ALTER SYSTEM + pg_reload_conf()",
      workload: { protocol: "rostedt-2023", args: w.args, database: w.database, settings: w.settings, params: w.params },
      plannedOrder: orders,
    },
  };
  writeFileAtomic(join(out, "provenance.json"), `${JSON.stringify(provenance, null, 2)}\n`);
  log(`record: ${out}`);
  if (provenance.loadAverageStart[0] > ncpu / 2) {
    log(`warning: load average ${provenance.loadAverageStart[0]} on ${ncpu} CPUs: this machine is not quiet, expect a wide interval`);
  }

  const cb = await startCluster({ binDir: baseBin, name: clusterNameFor("patchcost", "rostedt-2023", baseBin), settings: w.settings });
  let cp: Cluster | undefined;
  const rows: CostRow[] = [];
  try {
    cp = await startCluster({ binDir: patchedBin, name: clusterNameFor("patchcost", "rostedt-2023", patchedBin), settings: w.settings });
    log(`clusters: ${cb.logFile}, ${cp.logFile}`);
    const counts = [await ensurePgbenchDb(cb, w, baseBin, log), await ensurePgbenchDb(cp, w, baseBin, log)];
    if (counts[0] !== counts[1]) throw new UserError(`pgbench_accounts: expected the same row count in both clusters, found ${counts.join(" and ")}`);
    if ((await sliceExtensionSettings(cb, w.database)).slice_extension !== undefined) {
      throw new UserError(`--baseline-bin ${baseBin}: expected a server without the slice_extension setting, found one (is it the patched build?)`);
    }
    if ((await sliceExtensionSettings(cp, w.database)).slice_extension === undefined) {
      throw new UserError(`--patched-bin ${patchedBin}: expected a server with our patch's slice_extension setting, found none`);
    }
    const plan = [...Array.from({ length: warmupBlocks }, (_, i) => ({ block: -warmupBlocks + i, order: orders[0]! })), ...orders.map((order, block) => ({ block, order }))];
    for (const { block, order } of plan) {
      const warmup = block < 0;
      const t0 = Date.now();
      for (const [position, arm] of order.entries()) {
        const setting = ARM_SETTING[arm];
        const c = setting === undefined ? cb : cp;
        if (setting !== undefined) await switchSliceExtension(cp, w.database, setting);
        await sleep(settleMs);
        const rawName = `${warmup ? `w${-block}` : String(block).padStart(3, "0")}-${arm}.out`;
        const m = await measureWorkload(c, w, clients, join(rawDir, rawName));
        const seen = m.sliceExtension?.setting ?? null;
        if (seen !== (setting ?? null)) throw new UserError(`block ${block} arm ${arm}: expected slice_extension ${setting ?? "(absent)"}, the server reported ${seen ?? "(absent)"}`);
        rows.push(costRow(block, warmup, position, arm, setting ?? null, m, `raw/${rawName}`));
        writeFileAtomic(join(out, "runs.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      }
      const these = rows.filter((r) => r.block === block);
      const base = these.find((r) => r.arm === "baseline")!.tps;
      log(
        `block ${warmup ? `warm-up ${-block}` : `${block + 1}/${blocks}`} (${order.join(",")}, ${((Date.now() - t0) / 1000).toFixed(1)} s): ` +
          these.map((r) => `${r.arm} ${r.tps.toFixed(1)}${r.arm === "baseline" ? "" : ` (${((r.tps / base - 1) * 100).toFixed(2)}%)`}`).join(", ") +
          `, load ${loadAverage()[0]}`,
      );
    }
  } finally {
    if (cp) {
      try {
        await cp.query("ALTER SYSTEM RESET slice_extension");
        await cp.query("SELECT pg_reload_conf()");
      } catch {
        /* the server may be gone; the setting is reset at the next start of a series anyway */
      }
      await cp.stop();
    }
    await cb.stop();
  }
  const analysis = { kind: "slicelab-patch-cost-pgbench-analysis", record: out, started, ended: new Date().toISOString(), loadAverageEnd: loadAverage(), ...analyseCost(rows, arms) };
  writeFileAtomic(join(out, "analysis.json"), `${JSON.stringify(analysis, null, 2)}\n`);
  printCost(analysis.comparisons, "blocks", ctx.log);
  ctx.log(`load average at the end: ${analysis.loadAverageEnd.join(" ")} on ${ncpu} CPUs; record ${out}`);
  return { binDirs: [baseBin, patchedBin] };
}

/**
 * pgbench -S with the arms running AT THE SAME TIME, one cluster per arm: baseline, a second
 * baseline cluster (the A/A control "baseline2"), patched with slice_extension off and patched
 * with all. On a shared host whose speed changes from second to second (here: ±15-30% between
 * consecutive 10 s runs, which no interleaving at run granularity can pair away), every
 * slowdown hits all arms of a round together, and the scheduler shares the CPUs between them
 * fairly, so tps(arm) / tps(baseline) within a round is the inverse ratio of CPU work per
 * transaction. The A/A arm measures what the design itself contributes (cluster placement,
 * launch order, scheduler fairness): its interval is the floor for every other arm.
 */
export async function pgbenchConcurrent(ctx: DriverContext): Promise<DriverResult> {
  const ncpu = cpus().length;
  const p = paramReader(ctx.params);
  const rounds = p.int("rounds");
  const warmupRounds = p.int("warmup_rounds");
  const seed = p.int("seed");
  const setting: Record<string, string | undefined> = { ...ARM_SETTING, baseline2: undefined };
  const arms = p.list("arms")!;
  const log = (l: string) => ctx.log(`patch-cost: ${l}`);
  const { baseBin, patchedBin } = await costBuilds(p.opt("baseline_bin"), p.opt("patched_bin"), log);
  const [w] = resolveWorkloads(loadProtocol("rostedt-2023"), ncpu, {
    scale: String(p.int("scale")),
    clients: String(p.int("clients")),
    threads: "1",
    duration: String(p.int("duration")),
  });
  if (!w) throw new UserError("protocols/rostedt-2023.json: expected a workload, found none");
  const clients: Clients = { binDir: baseBin };
  const binOf = (arm: string) => (setting[arm] === undefined ? baseBin! : patchedBin!);
  const out = ctx.out;
  const rawDir = join(out, "raw");
  mkdirSync(rawDir, { recursive: true });
  const launchOrders = blockOrders(arms, warmupRounds + rounds, "random", seed);
  const started = new Date().toISOString();
  const provenance = {
    ...costProvenance("slicelab-patch-cost-concurrent", started, baseBin, patchedBin, clients),
    design: {
      arms: Object.fromEntries(
        arms.map((a) => [a, setting[a] === undefined ? `baseline build${a === "baseline2" ? ", a second cluster (A/A control)" : ""}` : `patched build, slice_extension = ${setting[a]}`]),
      ),
      rounds,
      warmupRounds,
      concurrency: "every round runs one pgbench per arm at the same time, each against its own cluster; the clusters run for the whole measurement",
      launchOrder: `shuffled per round, seed ${seed} (position = launch order)`,
      seed,
      workload: { protocol: "rostedt-2023", args: w.args, database: w.database, settings: w.settings, params: w.params },
      plannedLaunchOrder: launchOrders,
    },
  };
  writeFileAtomic(join(out, "provenance.json"), `${JSON.stringify(provenance, null, 2)}\n`);
  log(`record: ${out}`);
  const clusters = new Map<string, Cluster>();
  const rows: CostRow[] = [];
  try {
    for (const a of arms) {
      const s = setting[a];
      const c = await startCluster({
        binDir: binOf(a),
        name: clusterNameFor(`pcc${a}`, "rostedt-2023", binOf(a)),
        settings: { ...w.settings, ...(s === undefined ? {} : { slice_extension: s }) },
      });
      clusters.set(a, c);
      log(`cluster ${a}: ${c.logFile}`);
    }
    const counts = new Set<string>();
    for (const a of arms) counts.add(await ensurePgbenchDb(clusters.get(a)!, w, baseBin, log));
    if (counts.size !== 1) throw new UserError(`pgbench_accounts: expected the same row count in every cluster, found ${[...counts].join(", ")}`);
    for (const a of arms) {
      const has = (await sliceExtensionSettings(clusters.get(a)!, w.database)).slice_extension;
      if ((has === undefined) !== (setting[a] === undefined)) {
        throw new UserError(`arm ${a}: expected a server ${setting[a] === undefined ? "without" : "with"} the slice_extension setting, found ${has === undefined ? "none" : has}`);
      }
    }
    for (const [i, order] of launchOrders.entries()) {
      const block = i - warmupRounds;
      const warmup = block < 0;
      const t0 = Date.now();
      const tag = warmup ? `w${-block}` : String(block).padStart(3, "0");
      const measured = await Promise.all(order.map((arm) => measureWorkload(clusters.get(arm)!, w, clients, join(rawDir, `${tag}-${arm}.out`))));
      for (const [position, arm] of order.entries()) {
        const m = measured[position]!;
        const seen = m.sliceExtension?.setting ?? null;
        if (seen !== (setting[arm] ?? null)) throw new UserError(`round ${block} arm ${arm}: expected slice_extension ${setting[arm] ?? "(absent)"}, the server reported ${seen ?? "(absent)"}`);
        rows.push(costRow(block, warmup, position, arm, setting[arm] ?? null, m, `raw/${tag}-${arm}.out`));
      }
      writeFileAtomic(join(out, "runs.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      const these = rows.filter((r) => r.block === block);
      const base = these.find((r) => r.arm === "baseline")!.tps;
      log(
        `round ${warmup ? `warm-up ${-block}` : `${block + 1}/${rounds}`} (${((Date.now() - t0) / 1000).toFixed(1)} s): ` +
          arms.map((a) => these.find((r) => r.arm === a)!).map((r) => `${r.arm} ${r.tps.toFixed(1)}${r.arm === "baseline" ? "" : ` (${((r.tps / base - 1) * 100).toFixed(2)}%)`}`).join(", ") +
          `, load ${loadAverage()[0]}`,
      );
    }
  } finally {
    for (const c of clusters.values()) await c.stop();
  }
  const analysis = {
    kind: "slicelab-patch-cost-concurrent-analysis",
    record: out,
    started,
    ended: new Date().toISOString(),
    loadAverageEnd: loadAverage(),
    ...analyseCost(rows, arms),
  };
  writeFileAtomic(join(out, "analysis.json"), `${JSON.stringify(analysis, null, 2)}\n`);
  printCost(analysis.comparisons, "rounds", ctx.log);
  ctx.log(`load average at the end: ${analysis.loadAverageEnd.join(" ")} on ${ncpu} CPUs; record ${out}`);
  return { binDirs: [baseBin, patchedBin] };
}

// patch-cost-cpu (server CPU time per transaction) is drivers/patch-cost-cpu.ts.
