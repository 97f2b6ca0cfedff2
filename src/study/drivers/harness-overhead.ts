// The harness's own cost (issue 3, "Done means"): the same pgbench command run
//   kit   through the kit's measuring code (src/bench/series.ts measureWorkload, the function
//         `slicelab bench run` calls for every run: process group in a session of its own, raw
//         output file, load averages, slice-extension query, parsing), and
//   hand  by a shell in a session of its own, as from a terminal:
//         `setsid -w /bin/sh -c 'exec pgbench … > FILE 2>&1'`, after the same settings query the
//         kit makes before a run (so that with concurrent=true both pgbench start together),
// against ONE running cluster, in pairs whose order alternates kit,hand / hand,kit (ABBA), after one
// discarded warm-up pair. Both arms get the same argv (toolCommand), environment, stdin (/dev/null)
// and server state; during the warm-up pair the script reads both pgbench processes' attributes
// from /proc (nice, autogroup, cgroup, affinity, session, environment, limits, fds) and records every
// difference. With restart=true both arms restart the cluster before each run (as `bench run` does).
//
// It prints and records
//   - tps kit / by hand: geometric mean of the per-pair ratios, 95% t interval from the paired log
//     differences, and PASS / FAIL / UNRESOLVED against the goal ≥ 0.99 (UNRESOLVED when the
//     interval contains 0.99), with the number of pairs the observed spread would need;
//   - the kit's own CPU time (user + system of this Node process) per kit run, in % of one core
//     over the run's wall time (the whole measureWorkload call, so it includes the kit's work just
//     before and after pgbench): PASS when every run is below 1%.
//
// With concurrent=true the two arms of every measured pair run AT THE SAME TIME against the cluster
// (launch order alternating), so that the host's changes of speed, which on a shared machine move
// tps by 10-30% between consecutive 10 s runs, hit both arms together: the ratio then measures
// only what differs between the two ways of running pgbench (the warm-up pair, which reads the
// process attributes, still runs one arm after the other).
//
// Run: `slicelab study run harness-overhead [--param pairs=N] [--param duration=S] [--param clients=N]
//   [--param threads=N] [--param scale=N] [--param restart=true | --param concurrent=true] [--param cpu=N]
//   [--param cluster=NAME]` (the parameters: src/study/drivers/index.ts; cluster: the cluster's name
//   under the work directory, default overhead-rostedt-2023-HASH).
//
// With cpu=N the driver first pins itself, all its threads, and so everything it starts (the
// cluster, both pgbench, psql), to CPU N (`taskset -a -p -c N`). On this 2-CPU host the placement
// of some 36 tasks on two CPUs, decided afresh in every run, moved one pgbench's tps against the
// other's by 8-11% per pair; on one CPU that spread fell to about 2%. It is also the harsher test:
// every cycle the kit spends is taken from the CPU pgbench and the server run on.
// Record: the study record's out/: provenance.json, runs.jsonl, analysis.json, raw/ (every pgbench
// output). Run it on a quiet machine: see REPRODUCE.md.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, relative } from "node:path";
import { debianBinDir } from "../../postgres/binaries.js";
import { addShutdownHook, startCluster, type Cluster } from "../../postgres/cluster.js";
import { loadProtocol, resolveWorkloads } from "../../bench/protocol.js";
import { measureWorkload, clusterNameFor, sliceExtensionSettings, workloadTiming, type WorkloadTiming } from "../../bench/series.js";
import { clientVersions, parseToolOutput, toolCommand } from "../../bench/tools.js";
import { hostInfo, kernelInfo, kitInfo, loadAverage, postgresInfo } from "../../record/provenance.js";
import {
  balancedCycle,
  cpuShare,
  cpuVerdict,
  chargeKitCpu,
  goalVerdict,
  orderEffect,
  pairedRatio,
  resolutionPlan,
} from "../../bench/overhead.js";
import { attributeDifferences, cpusAllowed, findDescendant, processAttributes, type ProcessAttributes } from "../../bench/overhead-probe.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";

const GOAL_RATIO = 0.99;
const GOAL_CPU_PCT = 1;

/** Quotes a word for /bin/sh. */
const shq = (s: string) => (/^[A-Za-z0-9_./=:,+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

interface Row extends WorkloadTiming {
  pair: number;
  warmup: boolean;
  position: number;
  arm: "kit" | "hand";
  /** Kit arm: CPU of this Node process during the measureWorkload call. */
  kitCpuMs?: number;
  kitCpuPct?: number;
  raw: string;
}

export async function run(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const values = { concurrent: p.bool("concurrent"), restart: p.bool("restart"), duration: String(p.int("duration")) };
  const pairs = p.int("pairs");
  const cpuParam = ctx.params.cpu as number | undefined;
  const pinned = cpuParam === undefined ? undefined : pinToCpu(String(cpuParam));
  const log = ctx.log;
  if (pairs % balancedCycle(2) !== 0) log(`note: pairs=${pairs} is odd: one more kit-first than hand-first pair`);
  const binDir = debianBinDir();
  const clients = { binDir };
  const name = p.opt("cluster") ?? clusterNameFor("overhead", "rostedt-2023", binDir);
  // The workload is rostedt-2023's select-only pgbench, made small by parameters.
  const [w] = resolveWorkloads(loadProtocol("rostedt-2023"), cpus().length, {
    duration: values.duration,
    clients: String(p.int("clients")),
    threads: String(p.int("threads")),
    scale: String(p.int("scale")),
  });
  if (!w) throw new UserError("protocols/rostedt-2023.json: expected a workload, found none");
  const out = ctx.out;
  const rawDir = join(out, "raw");
  mkdirSync(rawDir, { recursive: true });
  const started = new Date().toISOString();
  const provenance = {
    kind: "slicelab-harness-overhead",
    started,
    host: hostInfo(),
    kernel: kernelInfo(),
    postgres: postgresInfo(binDir),
    clients: { binDir, versions: clientVersions(clients) },
    kit: kitInfo(),
    loadAverageStart: loadAverage(),
    design: {
      pairs,
      warmupPairs: 1,
      order: values.concurrent
        ? "both arms of a pair at the same time against the one cluster, launch order kit,hand then hand,kit alternating (position = launch order); pair 0 is a discarded warm-up run one arm after the other (it reads the process attributes)"
        : "kit,hand then hand,kit, alternating (ABBA); pair 0 is a discarded warm-up",
      concurrent: values.concurrent,
      restartBeforeEveryRun: values.restart,
      cpu: pinned === undefined ? { pinned: null, cpusAllowed: cpusAllowed() } : { pinned, cpusAllowed: cpusAllowed(), how: "taskset -a -p -c N on this process before anything starts; children inherit it" },
      workload: { protocol: "rostedt-2023", args: w.args, database: w.database, settings: w.settings, params: w.params },
    },
  };
  writeFileAtomic(join(out, "provenance.json"), `${JSON.stringify(provenance, null, 2)}\n`);
  log(`record: ${out}`);
  if (provenance.loadAverageStart[0] > cpus().length / 2) {
    log(`warning: load average ${provenance.loadAverageStart[0]} on ${cpus().length} CPUs: this machine is not quiet, expect a wide interval`);
  }

  let cluster: Cluster = await startCluster({ binDir, name, settings: w.settings });
  const rows: Row[] = [];
  const probes: Partial<Record<"kit" | "hand", ProcessAttributes | string>> = {};
  const pgbenchPath = join(binDir, "pgbench");
  let serverCpus = "";
  try {
    serverCpus = serverCpusAllowed(cluster);
    log(`cluster ${name}: log ${cluster.logFile}; server on CPUs ${serverCpus}`);
    const db = w.database;
    const exists = (await cluster.query(`SELECT count(*) FROM pg_database WHERE datname = '${db}'`)) === "1";
    if (!exists) {
      await cluster.query(`CREATE DATABASE "${db}"`);
      const init = toolCommand("pgbench", clients, cluster, db, w.setup[0]?.args ?? []);
      log(`initialising ${db}: ${init.args.join(" ")}`);
      const r = spawnSync(init.file, init.args, { encoding: "utf8" });
      if (r.status !== 0) throw new UserError(`pgbench -i for ${db} failed (exit ${r.status}): ${r.stderr}`);
    }
    const fresh = async () => {
      if (!values.restart) return;
      const port = cluster.port; // the same port again, so that both arms' argv stay identical
      await cluster.stop("fast");
      cluster = await startCluster({ binDir, name, settings: w.settings, port });
    };
    const probe = async (arm: "kit" | "hand") => {
      const pid = await findDescendant(process.pid, pgbenchPath, 5000);
      try {
        probes[arm] = pid === undefined ? "pgbench not found among this process's descendants" : processAttributes(pid);
      } catch (err) {
        probes[arm] = `pgbench ${pid} exited before it could be read: ${(err as Error).message}`;
      }
    };
    const kit = async (file: string, withProbe: boolean) => {
      await fresh();
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const run = measureWorkload(cluster, w, clients, file);
      if (withProbe) await probe("kit");
      const m = await run;
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const c = process.cpuUsage(c0);
      const cpuMs = (c.user + c.system) / 1000;
      return { ...workloadTiming(m), kitCpuMs: cpuMs, kitCpuPct: (cpuMs / 1000 / wall) * 100 };
    };
    const hand = async (file: string, withProbe: boolean) => {
      await fresh();
      // The same argv as the kit's, typed into a shell in a session of its own; `exec` so that
      // pgbench itself (like the kit's) leads its session.
      const cmd = toolCommand(w.tool, clients, cluster, w.database, w.args);
      // The settings check the kit makes before every run (one psql query), made here too: it
      // lies outside either pgbench's measured window, and with concurrent=true it makes both
      // pgbench start together instead of the kit's ~30 ms later (session 3's records).
      await sliceExtensionSettings(cluster, w.database);
      const line = `exec ${[cmd.file, ...cmd.args].map(shq).join(" ")} > ${shq(file)} 2>&1`;
      const load1Before = loadAverage()[0];
      const t0 = Date.now();
      const child = spawn("setsid", ["-w", "/bin/sh", "-c", line], { stdio: "ignore", env: process.env });
      const removeHook = addShutdownHook(() => {
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, "SIGTERM");
          } catch {
            /* gone */
          }
        }
      });
      const done = new Promise<number | null>((res, rej) => {
        child.on("error", (e) => rej(new UserError(`cannot run setsid (Debian package util-linux): ${e.message}`)));
        child.on("exit", (code) => res(code));
      });
      if (withProbe) await probe("hand");
      const code = await done;
      removeHook();
      const t1 = Date.now();
      if (code !== 0) throw new UserError(`by-hand pgbench exited with ${code}; output ${file}`);
      const tps = parseToolOutput(w.tool, readFileSync(file, "utf8"), file).tps;
      return { tps, started: new Date(t0).toISOString(), ended: new Date(t1).toISOString(), seconds: (t1 - t0) / 1000, load1Before, load1After: loadAverage()[0] };
    };
    for (let i = 0; i <= pairs; i++) {
      const warmup = i === 0;
      const order: ("kit" | "hand")[] = i % 2 === 0 ? ["kit", "hand"] : ["hand", "kit"];
      const got: Partial<Record<"kit" | "hand", number>> = {};
      const file = (arm: "kit" | "hand") => join(rawDir, `${String(i).padStart(3, "0")}-${arm}.out`);
      const runArm = (arm: "kit" | "hand") => (arm === "kit" ? kit(file(arm), warmup) : hand(file(arm), warmup));
      if (values.concurrent && !warmup) {
        const rs = await Promise.all(order.map(runArm));
        for (const [position, arm] of order.entries()) {
          got[arm] = rs[position]!.tps;
          rows.push({ pair: i, warmup, position, arm, ...rs[position]!, raw: relative(out, file(arm)) });
        }
      } else {
        for (const [position, arm] of order.entries()) {
          const r = await runArm(arm);
          got[arm] = r.tps;
          rows.push({ pair: i, warmup, position, arm, ...r, raw: relative(out, file(arm)) });
        }
      }
      writeFileAtomic(join(out, "runs.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      log(`pair ${i}/${pairs}${warmup ? " (warm-up)" : ""} ${order.join(",")}: kit ${got.kit!.toFixed(1)} tps, hand ${got.hand!.toFixed(1)} tps, ratio ${(got.kit! / got.hand!).toFixed(4)}, load ${loadAverage()[0]}`);
    }
  } finally {
    await cluster.stop();
  }

  const measured = rows.filter((r) => !r.warmup);
  const byPair = new Map<number, { kit?: Row; hand?: Row }>();
  for (const r of measured) byPair.set(r.pair, { ...byPair.get(r.pair), [r.arm]: r });
  const paired = [...byPair.values()].map((p) => ({ a: p.hand!.tps, b: p.kit!.tps, kitFirst: p.kit!.position === 0 }));
  const ratio = pairedRatio(paired, 0.05, "kit/hand tps");
  const cpu = cpuShare(measured.filter((r) => r.arm === "kit").map((r) => r.kitCpuPct!));
  const kitCpuMs = measured.filter((r) => r.arm === "kit").map((r) => r.kitCpuMs!);
  const plan = resolutionPlan(ratio, GOAL_RATIO);
  // Concurrent arms share the CPUs, so whatever CPU the kit takes slows the by-hand pgbench as much
  // as its own: the ratio cannot see it. Charge it to the kit: a pgbench run under the kit gets at
  // most (1 − the kit's largest per-run share of one core) of the CPU it would otherwise have, so the
  // interval's lower end is multiplied by that (the upper end stays: the true cost may be nil).
  const withKitCpu = values.concurrent
    ? (() => {
        const charged = chargeKitCpu(ratio.ci, cpu.maxPct, GOAL_RATIO);
        return {
          verdict: charged.verdict,
          reason: charged.reason,
          ci95: charged.ci95,
          factor: charged.factor,
          note: "the concurrent interval with its lower end multiplied by (1 − max kit CPU share of one core): concurrent arms share the CPU, so the ratio itself does not see the kit's CPU",
        };
      })()
    : undefined;
  // Wall time of a pair, first start to last end (one run's time with concurrent=true, two without).
  const pairSeconds =
    [...byPair.values()].reduce((s, p) => s + (Math.max(Date.parse(p.kit!.ended), Date.parse(p.hand!.ended)) - Math.min(Date.parse(p.kit!.started), Date.parse(p.hand!.started))) / 1000, 0) /
    byPair.size;
  // How far apart the two pgbench started (kit − hand, ms): with concurrent=true both should start together.
  const offsets = [...byPair.values()].map((p) => Date.parse(p.kit!.started) - Date.parse(p.hand!.started));
  const startOffsetMs = {
    mean: offsets.reduce((s, x) => s + x, 0) / offsets.length,
    maxAbs: Math.max(...offsets.map(Math.abs)),
  };
  const kitProbe = probes.kit;
  const handProbe = probes.hand;
  const differences =
    typeof kitProbe === "object" && typeof handProbe === "object" ? attributeDifferences(kitProbe, handProbe) : `not compared: ${String(kitProbe)} / ${String(handProbe)}`;
  const analysis = {
    kind: "slicelab-harness-overhead-analysis",
    record: out,
    started,
    ended: new Date().toISOString(),
    loadAverageEnd: loadAverage(),
    pairs: ratio.n,
    tpsRatio: {
      goal: `kit / hand ≥ ${GOAL_RATIO}`,
      ...goalVerdict(ratio.ci, GOAL_RATIO, "higher"),
      ratio: ratio.ratio,
      ci95: ratio.ci,
      halfWidthPct: ratio.halfWidthPct,
      p: ratio.p,
      sdLogPerPair: ratio.sdLog,
      ratioOfMeans: ratio.ratioOfMeans,
      meanTps: { kit: paired.reduce((s, p) => s + p.b, 0) / paired.length, hand: paired.reduce((s, p) => s + p.a, 0) / paired.length },
      order: orderEffect(paired, paired.map((p) => p.kitFirst)),
      ...(values.concurrent ? { startOffsetMs: { ...startOffsetMs, note: "pgbench start, kit minus hand, per pair" } } : {}),
      ...(withKitCpu ? { withKitCpu } : {}),
      pairsNeeded: {
        ...plan,
        secondsPerPair: pairSeconds,
        note: "pairsAtEstimate: pairs whose 95% interval would fit between this estimate and the goal; pairsIfNoEffect80: pairs for 80% power to show ≥ goal if kit and hand were equal",
      },
    },
    kitCpu: {
      goal: `< ${GOAL_CPU_PCT}% of one core during a pgbench run`,
      ...cpuVerdict(cpu, GOAL_CPU_PCT),
      ...cpu,
      msPerRun: { mean: kitCpuMs.reduce((s, x) => s + x, 0) / kitCpuMs.length, max: Math.max(...kitCpuMs) },
      measuredOver: values.concurrent
        ? "the whole measureWorkload call (psql query for the slice-extension settings, spawn, wait, parse), which with --concurrent also counts this process's work for the by-hand arm running at the same time: an upper bound of the kit's CPU during pgbench"
        : "the whole measureWorkload call (psql query for the slice-extension settings, spawn, wait, parse): an upper bound of the CPU during pgbench itself",
    },
    cpus: { pinned: pinned ?? null, script: cpusAllowed(), server: serverCpus },
    processAttributes: { kit: kitProbe ?? null, hand: handProbe ?? null, differences },
  };
  writeFileAtomic(join(out, "analysis.json"), `${JSON.stringify(analysis, null, 2)}\n`);
  const t = analysis.tpsRatio;
  const f4 = (x: number) => x.toFixed(4);
  const diffText = Array.isArray(differences)
    ? differences.length === 0
      ? "none"
      : differences.map((d) => `${d.key}: kit ${JSON.stringify(d.a)} / hand ${JSON.stringify(d.b)}`).join("; ")
    : differences;
  log(
    `tps kit / by hand: ${f4(t.ratio)}, 95% CI ${f4(t.ci95[0])}–${f4(t.ci95[1])} (±${t.halfWidthPct.toFixed(2)}%, ${ratio.n} ${values.concurrent ? "concurrent " : ""}pairs of ${values.duration} s, per-pair sd ${(ratio.sdLog * 100).toFixed(2)}%) — goal ≥ ${GOAL_RATIO}: ${t.verdict} (${t.reason})\n` +
      (withKitCpu
        ? `  with the kit's CPU charged to the kit (concurrent arms share the CPU): ${f4(withKitCpu.ci95[0])}–${f4(withKitCpu.ci95[1])} — goal ≥ ${GOAL_RATIO}: ${withKitCpu.verdict}\n`
        : "") +
      `  order: kit first ${f4(t.order.bFirst.ratio)} (${t.order.bFirst.n} pairs), hand first ${f4(t.order.aFirst.ratio)} (${t.order.aFirst.n}), p = ${t.order.p.toPrecision(3)}\n` +
      (values.concurrent ? `  pgbench starts, kit − hand: mean ${startOffsetMs.mean.toFixed(1)} ms, at most ${startOffsetMs.maxAbs.toFixed(0)} ms apart\n` : "") +
      `  pairs needed at this spread: ${t.pairsNeeded.pairsAtEstimate} to resolve this estimate, ${t.pairsNeeded.pairsIfNoEffect80} for 80% power if kit = hand (≈ ${pairSeconds.toFixed(1)} s per pair)\n` +
      `kit CPU per run: mean ${cpu.meanPct.toFixed(3)}%, max ${cpu.maxPct.toFixed(3)}% of one core (${analysis.kitCpu.msPerRun.mean.toFixed(1)} ms per run) — goal < ${GOAL_CPU_PCT}%: ${analysis.kitCpu.verdict}\n` +
      `CPUs: ${pinned === undefined ? "not pinned" : `everything pinned to CPU ${pinned}`}\n` +
      `pgbench process attributes, kit vs hand: ${diffText === "none" ? "identical" : diffText}\n` +
      `load average at the end: ${analysis.loadAverageEnd.join(" ")} on ${cpus().length} CPUs; record ${out}`,
  );
  return { binDirs: [binDir] };
}

/** Pins this process (every thread) to one CPU; returns the CPU number. */
function pinToCpu(text: string): number {
  const allowed = parseCpuList(cpusAllowed());
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!allowed.includes(n)) throw new UserError(`cpu: expected one of this process's CPUs (${cpusAllowed()}), found "${text}"`);
  const r = spawnSync("taskset", ["-a", "-p", "-c", String(n), String(process.pid)], { encoding: "utf8" });
  if (r.error) throw new UserError(`cpu: cannot run taskset (Debian package util-linux): ${r.error.message}`);
  if (r.status !== 0) throw new UserError(`cpu: taskset exited with ${r.status}: ${r.stderr.trim()}`);
  if (cpusAllowed() !== String(n)) throw new UserError(`cpu: after taskset this process may run on CPUs ${cpusAllowed()}, expected only ${n}`);
  return n;
}

/** "0-2,5" → [0, 1, 2, 5]. */
function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.split(",").filter(Boolean)) {
    const [a, b] = part.split("-").map(Number);
    for (let c = a!; c <= (b ?? a!); c++) out.push(c);
  }
  return out;
}

/** The postmaster's CPU list, read from /proc through postmaster.pid. */
function serverCpusAllowed(cluster: Cluster): string {
  try {
    return cpusAllowed(Number(readFileSync(join(cluster.dataDir, "postmaster.pid"), "utf8").split("\n")[0]));
  } catch (err) {
    return `unknown (${(err as Error).message})`;
  }
}
