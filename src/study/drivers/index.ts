import { COLLECTOR_NAMES } from "../../collect/index.js";
import { UserError } from "../../util/errors.js";
import type { ParamSpec, Params } from "../params.js";
import type { RecordEnvelope } from "../../record/format.js";

/**
 * The kit's measurement experiments as study drivers (`"driver": "experiment"` in a study file):
 * each declares its parameters once (src/study/params.ts parses the study file's and the command
 * line's), says how many runs and seconds a plan takes, and runs into the record's `out/`
 * directory, writing the files its records have always held. `slicelab study run NAME` calls them
 * in-process; the envelope, stamps and analysis are the runner's (src/study/run.ts, analyze.ts).
 * The specs here load nothing heavy: the implementation is imported when a study runs.
 */

export interface DriverContext {
  /** The record's out/ directory (created). */
  out: string;
  params: Params;
  log: (line: string) => void;
}

export interface DriverResult {
  /** PostgreSQL bin directories the experiment used (for the record's envelope). */
  binDirs: string[];
  /**
   * Where the experiment really ran, when not on this machine's kernel: a driver that boots the
   * kit's VM says so (the VM, its accelerator, emulated timing) and names the guest's kernel, and
   * the envelope takes these instead of the host's.
   */
  envelope?: { environment: RecordEnvelope["environment"]; kernelRelease: string; configSha256?: string; preemptMode?: string; sliceExtension?: string };
}

export interface DriverPlan {
  runs: number;
  seconds: number;
  /** The design in a line, for the plan. */
  text: string;
}

export interface DriverSpec {
  name: string;
  summary: string;
  params: ParamSpec[];
  /** Checks across parameters (one line naming the parameters), before anything runs. */
  validate?: (p: Params) => void;
  plan: (p: Params) => DriverPlan;
  /** The file under out/ whose verdicts the study's "script" rule reads. */
  verdictFile: string;
  /** The experiment boots the kit's VM itself (the plan checks for QEMU and the kernel image). */
  bootsVm?: boolean;
  /** It needs the baseline and patched PostgreSQL 18 builds (built when not given). */
  needsBuilds?: boolean;
  load: () => Promise<{ run: (ctx: DriverContext) => Promise<DriverResult> }>;
}

const n = (p: Params, k: string) => p[k] as number;

const POSTGRES_BIN_PARAMS: ParamSpec[] = [
  { name: "baseline_bin", kind: "string", doc: "bin directory of the unpatched build (default: built from Debian's PostgreSQL 18 source)" },
  { name: "patched_bin", kind: "string", doc: "bin directory of the patched build (default: built from the same source)" },
];

const CLUSTER_NAME = { pattern: /^[a-z][a-z0-9-]{0,62}$/, patternText: "a name of lower-case letters, digits and '-'" };

export const DRIVERS: readonly DriverSpec[] = [
  {
    name: "harness-overhead",
    summary: "the same pgbench -S through the kit's measuring code and by hand, against one cluster, in ABBA pairs",
    params: [
      { name: "pairs", kind: "int", default: 40, min: 2, doc: "measured pairs (after one warm-up pair)" },
      { name: "duration", kind: "int", default: 10, min: 1, doc: "seconds per pgbench run" },
      { name: "clients", kind: "int", default: 8, min: 1, doc: "pgbench -c" },
      { name: "threads", kind: "int", default: 2, min: 1, doc: "pgbench -j" },
      { name: "scale", kind: "int", default: 10, min: 1, doc: "pgbench -i -s" },
      { name: "cluster", kind: "string", ...CLUSTER_NAME, doc: "the cluster's name under the work directory (default overhead-rostedt-2023-HASH)" },
      { name: "restart", kind: "bool", default: false, doc: "restart the cluster before every run in both arms" },
      { name: "concurrent", kind: "bool", default: false, doc: "both arms of a pair at the same time" },
      { name: "cpu", kind: "int", min: 0, doc: "pin the process and everything it starts to this CPU" },
    ],
    validate: (p) => {
      if (p.restart && p.concurrent) throw new UserError("restart and concurrent: expected one of them, found both (concurrent arms share one running cluster)");
    },
    plan: (p) => ({
      runs: 2 * (n(p, "pairs") + 1),
      seconds: (n(p, "pairs") + 1) * (p.concurrent ? 1 : 2) * (n(p, "duration") + 1) + 15,
      text: `${n(p, "pairs")} pairs (+1 warm-up) of ${n(p, "duration")} s, ${p.concurrent ? "both arms at the same time" : "ABBA, one arm after the other"}${p.restart ? ", cluster restarted before every run" : ""}${p.cpu === undefined ? "" : `, pinned to CPU ${String(p.cpu)}`}`,
    }),
    verdictFile: "analysis.json",
    load: () => import("./harness-overhead.js"),
  },
  {
    name: "patch-cost-concurrent",
    summary: "pgbench -S against baseline, an A/A baseline, patched off and patched all, all at once, in rounds",
    params: [
      { name: "rounds", kind: "int", default: 40, min: 2, doc: "measured rounds" },
      { name: "warmup_rounds", kind: "int", default: 1, min: 0, doc: "discarded rounds first" },
      { name: "duration", kind: "int", default: 10, min: 1, doc: "seconds per round" },
      { name: "clients", kind: "int", default: 2, min: 1, doc: "pgbench -c per arm" },
      { name: "scale", kind: "int", default: 10, min: 1, doc: "pgbench -i -s" },
      { name: "arms", kind: "list", default: ["baseline", "baseline2", "off", "on"], choices: ["baseline", "baseline2", "off", "on"], doc: "arms (baseline and at least one other)" },
      { name: "seed", kind: "int", default: 20261130, min: 0, doc: "seed of the launch orders" },
      ...POSTGRES_BIN_PARAMS,
    ],
    validate: (p) => {
      const arms = p.arms as string[];
      if (!arms.includes("baseline") || arms.length < 2) throw new UserError(`arms: expected baseline and at least one other arm, each once, found ${arms.join(",")}`);
    },
    plan: (p) => ({
      runs: (n(p, "rounds") + n(p, "warmup_rounds")) * (p.arms as string[]).length,
      seconds: (n(p, "rounds") + n(p, "warmup_rounds")) * (n(p, "duration") + 1) + 30,
      text: `${n(p, "rounds")} rounds (+${n(p, "warmup_rounds")} warm-up) of ${n(p, "duration")} s, arms ${(p.arms as string[]).join(", ")} at the same time, launch order shuffled (seed ${n(p, "seed")})`,
    }),
    verdictFile: "analysis.json",
    needsBuilds: true,
    load: () => import("./patch-cost.js").then((m) => ({ run: m.pgbenchConcurrent })),
  },
  {
    name: "patch-cost-sequential",
    summary: "pgbench -S, baseline vs patched off / all, one arm after another in balanced blocks, servers kept running",
    params: [
      { name: "blocks", kind: "int", default: 48, min: 2, doc: "measured blocks" },
      { name: "warmup_blocks", kind: "int", default: 1, min: 0, doc: "discarded blocks first" },
      { name: "duration", kind: "int", default: 10, min: 1, doc: "seconds per run" },
      { name: "clients", kind: "int", min: 1, doc: "pgbench -c (default 2 × CPUs)" },
      { name: "threads", kind: "int", min: 1, doc: "pgbench -j (default CPUs)" },
      { name: "scale", kind: "int", default: 10, min: 1, doc: "pgbench -i -s" },
      { name: "arms", kind: "list", default: ["baseline", "off", "on"], choices: ["baseline", "off", "on"], doc: "arms (baseline and at least one of off, on)" },
      { name: "order", kind: "enum", default: "balanced", choices: ["balanced", "random"], doc: "Williams order or shuffled per block" },
      { name: "seed", kind: "int", default: 20261130, min: 0, doc: "seed of the random order" },
      { name: "settle_ms", kind: "int", default: 500, min: 0, doc: "pause before each run" },
      ...POSTGRES_BIN_PARAMS,
    ],
    validate: (p) => {
      const arms = p.arms as string[];
      if (!arms.includes("baseline") || arms.length < 2) throw new UserError(`arms: expected baseline and at least one of off, on, found ${arms.join(",")}`);
    },
    plan: (p) => ({
      runs: (n(p, "blocks") + n(p, "warmup_blocks")) * (p.arms as string[]).length,
      seconds: (n(p, "blocks") + n(p, "warmup_blocks")) * (p.arms as string[]).length * (n(p, "duration") + 1 + n(p, "settle_ms") / 1000) + 30,
      text: `${n(p, "blocks")} blocks (+${n(p, "warmup_blocks")} warm-up) of ${(p.arms as string[]).join(", ")}, ${n(p, "duration")} s runs, ${String(p.order)} order`,
    }),
    verdictFile: "analysis.json",
    needsBuilds: true,
    load: () => import("./patch-cost.js").then((m) => ({ run: m.pgbench })),
  },
  {
    name: "patch-cost-micro",
    summary: "the micro-benchmark's CPU ns per uncontended critical section, extension none / off / simulate, shuffled per round",
    params: [
      { name: "rounds", kind: "int", default: 30, min: 2, doc: "rounds (each runs the three modes)" },
      { name: "duration", kind: "number", default: 1, above: 0, doc: "seconds per run" },
      { name: "seed", kind: "int", default: 20261130, min: 0, doc: "seed of the orders" },
    ],
    plan: (p) => ({ runs: 3 * n(p, "rounds"), seconds: 3 * n(p, "rounds") * (n(p, "duration") + 0.2) + 10, text: `${n(p, "rounds")} rounds × none, off, simulate of ${n(p, "duration")} s, one thread` }),
    verdictFile: "summary.json",
    load: () => import("./patch-cost.js").then((m) => ({ run: m.micro })),
  },
  {
    name: "patch-cost-cpu",
    summary: "server CPU time per pgbench -S transaction, baseline vs patched off / all, shuffled per round",
    params: [
      { name: "rounds", kind: "int", default: 10, min: 2, doc: "measured rounds (after one warm-up round; the two-sample comparison needs 2)" },
      { name: "transactions", kind: "int", default: 50000, min: 2, doc: "transactions per run" },
      { name: "scale", kind: "int", default: 10, min: 1, doc: "pgbench -i -s" },
      { name: "seed", kind: "int", default: 20261130, min: 0, doc: "seed of the orders" },
      ...POSTGRES_BIN_PARAMS,
    ],
    plan: (p) => ({ runs: 3 * (n(p, "rounds") + 1), seconds: 3 * (n(p, "rounds") + 1) * (n(p, "transactions") / 20000 + 1) + 30, text: `${n(p, "rounds")} rounds (+1 warm-up) × baseline, off, on of ${n(p, "transactions")} transactions` }),
    verdictFile: "summary.json",
    needsBuilds: true,
    load: () => import("./patch-cost-cpu.js").then((m) => ({ run: m.pgbenchCpu })),
  },
  {
    name: "collector-cost",
    summary: "each collector alone in a worker process while pgbench -S runs: its CPU, bytes and sampling",
    params: [
      { name: "collect", kind: "list", choices: COLLECTOR_NAMES, doc: "collectors (default: those whose checks pass)" },
      { name: "reps", kind: "int", default: 3, min: 1, doc: "windows per collector" },
      { name: "seconds", kind: "number", default: 10, above: 0, doc: "seconds per window" },
      { name: "clients", kind: "int", default: 4, min: 1, doc: "pgbench -c" },
      { name: "pg", kind: "int", default: 15, min: 10, doc: "the Debian PostgreSQL major version" },
    ],
    plan: (p) => {
      const k = ((p.collect as string[] | undefined)?.length ?? 4) + 1;
      return { runs: k * n(p, "reps"), seconds: k * n(p, "reps") * (Math.ceil(n(p, "seconds")) + 10) + 20, text: `${n(p, "reps")} windows of ${n(p, "seconds")} s for none and each of ${(p.collect as string[] | undefined)?.join(", ") ?? "the usable collectors"}` };
    },
    verdictFile: "direct-cost.json",
    load: () => import("./collector-cost.js").then((m) => ({ run: m.collectorCost })),
  },
  {
    name: "collector-overhead",
    summary: "pgbench -S with each collector off and on, ABBA pairs: the throughput difference",
    params: [
      { name: "collect", kind: "list", default: ["perf-lock", "perf-profile", "pg-waits", "ctxsw"], choices: COLLECTOR_NAMES, doc: "collectors" },
      { name: "pairs", kind: "int", default: 3, min: 1, doc: "off/on pairs per collector" },
      { name: "seconds", kind: "int", default: 8, min: 1, doc: "seconds per pgbench run" },
      { name: "clients", kind: "int", default: 4, min: 1, doc: "pgbench -c" },
    ],
    plan: (p) => ({ runs: 2 * n(p, "pairs") * (p.collect as string[]).length + 1, seconds: (2 * n(p, "pairs") * (p.collect as string[]).length + 1) * (n(p, "seconds") + 1) + 20, text: `${n(p, "pairs")} off/on pairs of ${n(p, "seconds")} s for each of ${(p.collect as string[]).join(", ")}` }),
    verdictFile: "overhead.json",
    load: () => import("./collector-cost.js").then((m) => ({ run: m.collectorOverhead })),
  },
  {
    name: "kernel-build",
    summary: "kernel build time with a cold and a warm ccache, and the VM's boot-to-command time",
    params: [
      { name: "cold", kind: "bool", default: false, doc: "a scratch build with an empty ccache (tens of minutes)" },
      { name: "warm", kind: "bool", default: false, doc: "a scratch build with the warm ccache" },
      { name: "boots", kind: "int", default: 3, min: 1, doc: "VM boots to time" },
      { name: "jobs", kind: "int", min: 1, doc: "make -j (default: CPUs)" },
    ],
    plan: (p) => ({ runs: n(p, "boots") + (p.cold ? 1 : 0) + (p.warm ? 1 : 0), seconds: n(p, "boots") * 40 + (p.cold ? 1200 : 0) + (p.warm ? 120 : 0), text: `${n(p, "boots")} boots${p.cold ? ", a cold-ccache build" : ""}${p.warm ? ", a warm-ccache build" : ""}` }),
    verdictFile: "kernel-build.json",
    bootsVm: true,
    load: () => import("./kernel-build.js").then((m) => ({ run: m.kernelBuild })),
  },
  {
    name: "mechanism-micro",
    summary: "the mechanism factorial: where lock holders are preempted (in a fault, elsewhere in the kernel, at the return), mode × pages × extension in randomised blocks, one VM boot",
    params: [
      { name: "blocks", kind: "int", default: 3, min: 1, doc: "randomised blocks (every cell once per block)" },
      { name: "modes", kind: "list", default: ["full", "lazy"], choices: ["full", "lazy", "none"], doc: "preemption modes (debugfs sched/preempt, switched per run)" },
      { name: "pages", kind: "list", default: ["4k", "4k-prefault", "hugetlb"], choices: ["4k", "4k-prefault", "hugetlb", "thp"], doc: "the region's pages (thp: shmem THP set to advise, each first touch a 2 MB fault)" },
      { name: "extensions", kind: "list", default: ["off", "on"], choices: ["off", "on"], doc: "the micro-benchmark's extension arms" },
      { name: "seed", kind: "int", default: 1, min: 0, doc: "the plan's seed (each run has its own, derived from it)" },
      { name: "threads", kind: "int", default: 2, min: 1, doc: "worker threads" },
      { name: "hogs", kind: "int", default: 2, min: 0, doc: "CPU hogs" },
      { name: "cs_ns", kind: "int", default: 2000, min: 0, doc: "critical-section length (ns)" },
      { name: "duration", kind: "number", default: 1, above: 0, doc: "seconds per run (guest time)" },
      { name: "fault_every", kind: "int", default: 4, min: 1, doc: "a first touch every Kth section" },
      { name: "region_mib", kind: "int", default: 384, min: 2, doc: "the region of fresh pages" },
      { name: "jitter_pct", kind: "int", default: 25, min: 0, doc: "section and think lengths ± this %" },
      { name: "cpus", kind: "int", default: 1, min: 1, doc: "vCPUs" },
      { name: "pin_cpus", kind: "int", default: 1, min: 1, doc: "in a bundle: the CPUs of the machine the micro-benchmark is pinned to" },
      { name: "accel", kind: "enum", default: "tcg-icount", choices: ["tcg-icount", "tcg", "kvm"], doc: "the VM's accelerator" },
      { name: "mem", kind: "int", default: 2048, min: 256, doc: "the VM's memory (MiB)" },
      { name: "kernel", kind: "string", doc: "the guest's bzImage (default: the kit's cached 7.2 kernel; a 6.x one for the none level)" },
      { name: "timeout", kind: "int", min: 1, doc: "seconds per boot (default: from the block's runs)" },
      { name: "attribute", kind: "bool", default: false, doc: "issue 26: also trace every __resched_curr with its stack, wakeups, timer interrupts and user faults (the cause of each holder descheduling)" },
      { name: "sched_features", kind: "string", pattern: /^(NO_)?[A-Z_]+(,(NO_)?[A-Z_]+)*$/, patternText: "debugfs sched/features words such as NO_HRTICK, comma-separated", doc: "debugfs sched/features words written once at boot" },
      { name: "micro_args", kind: "string", doc: "micro-benchmark arguments appended to every run (the known cases, e.g. --syscall-in-cs 65536)" },
      { name: "host", kind: "bool", default: false, doc: "the same runs on this machine's kernel instead of a VM (root; tracefs and debugfs mounted): the mode as it is, extension off unless asked" },
    ],
    validate: (p) => {
      if (p.host && n(p, "cpus") !== 1) throw new UserError("host: the runs use this machine's CPUs; cpus does not apply");
      if (!p.host && n(p, "threads") + n(p, "hogs") <= n(p, "cpus")) throw new UserError(`threads ${n(p, "threads")} + hogs ${n(p, "hogs")}: expected more than cpus ${n(p, "cpus")} (the runs must be oversubscribed)`);
    },
    plan: (p) => {
      const cells = (p.host ? 1 : (p.modes as string[]).length) * (p.pages as string[]).length * (p.extensions as string[]).length;
      const runs = n(p, "blocks") * cells;
      return {
        runs,
        seconds: (p.host ? 0 : 120) + runs * (n(p, "duration") * (p.host ? 1 : 40) + 30),
        text: p.host ? `${n(p, "blocks")} randomised blocks × pages ${(p.pages as string[]).join(",")} × extension ${(p.extensions as string[]).join(",")} on this machine's kernel (its preemption mode as it is) = ${n(p, "blocks") * (p.pages as string[]).length * (p.extensions as string[]).length} runs of ${n(p, "duration")} s` : `${n(p, "blocks")} randomised blocks × ${cells} cells (mode ${(p.modes as string[]).join(",")} × pages ${(p.pages as string[]).join(",")} × extension ${(p.extensions as string[]).join(",")}; seed ${n(p, "seed")}) = ${runs} runs of ${n(p, "duration")} s, micro-benchmark ${n(p, "threads")} threads + ${n(p, "hogs")} hogs, ${n(p, "cs_ns")} ns sections ±${n(p, "jitter_pct")} %, a first touch every ${n(p, "fault_every")}th, in one ${String(p.accel)} boot with ${n(p, "cpus")} vCPU`,
      };
    },
    verdictFile: "predictions.json",
    bootsVm: true,
    load: () => import("./mechanism-micro.js").then((m) => ({ run: m.mechanismMicro })),
  },
  {
    name: "mechanism-pg",
    summary: "the mechanism factorial on PostgreSQL 18 (the diag build): faults and involuntary switches inside spin-style lock holds, where the traced preempted holders were, grants, huge pages held; mode × huge_pages × slice_extension, one VM boot per block",
    params: [
      { name: "blocks", kind: "int", default: 3, min: 1, doc: "randomised blocks (every cell once per block)" },
      { name: "modes", kind: "list", default: ["full", "lazy"], choices: ["full", "lazy"], doc: "preemption modes (debugfs sched/preempt, switched per run)" },
      { name: "huge_pages", kind: "list", default: ["off", "on"], choices: ["off", "on"], doc: "the server's huge_pages (on: reserved from shared_memory_size_in_huge_pages)" },
      { name: "extensions", kind: "list", default: ["off", "on"], choices: ["off", "on"], doc: "the server's slice_extension" },
      { name: "seed", kind: "int", default: 1, min: 0, doc: "the plan's seed" },
      { name: "duration", kind: "number", default: 2, above: 0, doc: "seconds of pgbench per run (guest time)" },
      { name: "shared_buffers", kind: "string", default: "1GB", pattern: /^\d+(kB|MB|GB)$/, patternText: "a size such as 512MB or 1GB", doc: "shared_buffers (large against the VM's memory)" },
      { name: "scale", kind: "int", default: 2, min: 1, doc: "pgbench -i -s" },
      { name: "clients", kind: "int", default: 3, min: 1, doc: "persistent select-only sessions (the load)" },
      { name: "connect_clients", kind: "int", default: 2, min: 0, doc: "sessions connecting for every transaction (pgbench -C: new backends)" },
      { name: "bin", kind: "string", doc: "bin directory of a diagnostic build (default: `slicelab postgres build --variant diag`, built when missing)" },
      { name: "on_setting", kind: "enum", default: "all", choices: ["all", "spinlock", "lwlock"], doc: "slice_extension in the runs whose extension is on (spinlock shows the LWLockWakeup stall)" },
      { name: "mem", kind: "int", default: 3072, min: 512, doc: "the VM's memory (MiB)" },
      { name: "accel", kind: "enum", default: "tcg-icount", choices: ["tcg-icount", "tcg", "kvm"], doc: "the VM's accelerator" },
      { name: "kernel", kind: "string", doc: "the guest's bzImage (default: the kit's cached 7.2 kernel)" },
      { name: "timeout", kind: "int", min: 1, doc: "seconds per boot (default: from the block's runs)" },
    ],
    plan: (p) => {
      const cells = (p.modes as string[]).length * (p.huge_pages as string[]).length * (p.extensions as string[]).length;
      const runs = n(p, "blocks") * cells;
      return {
        runs,
        seconds: 120 + runs * (n(p, "duration") * 40 + 120),
        text: `${n(p, "blocks")} randomised blocks × ${cells} cells (mode ${(p.modes as string[]).join(",")} × huge_pages ${(p.huge_pages as string[]).join(",")} × extension ${(p.extensions as string[]).join(",")}; seed ${n(p, "seed")}) = ${runs} runs of ${n(p, "duration")} s, each a fresh server (shared_buffers ${String(p.shared_buffers)}, scale ${n(p, "scale")}, ${n(p, "clients")} sessions + ${n(p, "connect_clients")} connecting per transaction), in ${String(p.accel)} boots with 1 vCPU, ${n(p, "mem")} MiB`,
      };
    },
    verdictFile: "cells.json",
    bootsVm: true,
    load: () => import("./mechanism-pg.js").then((m) => ({ run: m.mechanismPg })),
  },
  {
    name: "mechanism-sweep",
    summary: "the holder-preemption model's validation: a first touch every f-th section × section length × mode, 4 KB pages, extension off, one VM boot; observed in-kernel share beside the model's",
    params: [
      { name: "blocks", kind: "int", default: 2, min: 1, doc: "randomised blocks" },
      { name: "fault_every", kind: "list", default: ["1", "4", "8", "32"], choices: ["1", "2", "4", "8", "16", "32", "64"], doc: "a first touch every f-th section" },
      { name: "cs_ns", kind: "list", default: ["1000", "2000", "10000"], choices: ["500", "1000", "2000", "5000", "10000", "20000"], doc: "section lengths (ns)" },
      { name: "modes", kind: "list", default: ["full", "lazy"], choices: ["full", "lazy"], doc: "preemption modes" },
      { name: "seed", kind: "int", default: 26, min: 0, doc: "the plan's seed" },
      { name: "duration", kind: "number", default: 1, above: 0, doc: "seconds per run (guest time)" },
      { name: "region_mib", kind: "int", default: 512, min: 2, doc: "the region of fresh pages" },
      { name: "accel", kind: "enum", default: "tcg-icount", choices: ["tcg-icount", "tcg"], doc: "the VM's accelerator" },
      { name: "hz", kind: "enum", default: "1000", choices: ["100", "250", "1000"], doc: "the guest kernel's tick rate: 1000 is the kit's kernel, 100 and 250 the same built with hz100/hz250.config (`slicelab prepare hz`)" },
    ],
    plan: (p) => {
      const cells = (p.fault_every as string[]).length * (p.cs_ns as string[]).length * (p.modes as string[]).length;
      const runs = n(p, "blocks") * cells;
      return { runs, seconds: 120 + runs * (n(p, "duration") * 40 + 30), text: `${n(p, "blocks")} randomised blocks × ${cells} cells (fault every ${(p.fault_every as string[]).join(",")} × sections ${(p.cs_ns as string[]).join(",")} ns × mode ${(p.modes as string[]).join(",")}; 4 KB pages, extension off) = ${runs} runs of ${n(p, "duration")} s in one ${String(p.accel)} boot, 1 vCPU, HZ ${String(p.hz ?? "1000")}` };
    },
    verdictFile: "model.json",
    bootsVm: true,
    load: () => import("./mechanism-sweep.js").then((m) => ({ run: m.mechanismSweep })),
  },
  {
    name: "vm-micro",
    summary: "the micro-benchmark's extension off/on A/B inside the kit's VM, ABBA pairs",
    params: [
      { name: "reps", kind: "int", default: 5, min: 1, doc: "off/on pairs" },
      { name: "threads", kind: "int", default: 4, min: 1, doc: "worker threads" },
      { name: "hogs", kind: "int", default: 4, min: 0, doc: "CPU hogs" },
      { name: "cs_ns", kind: "int", default: 2000, min: 0, doc: "critical-section length (ns)" },
      { name: "duration", kind: "int", default: 5, min: 1, doc: "seconds per run" },
      { name: "cpus", kind: "int", default: 2, min: 1, doc: "vCPUs" },
      { name: "mem_mib", kind: "int", default: 2048, min: 256, doc: "guest memory (MiB)" },
      { name: "append", kind: "string", doc: "extra kernel command line" },
    ],
    plan: (p) => ({ runs: 2 * n(p, "reps"), seconds: 40 + 2 * n(p, "reps") * (n(p, "duration") * 2 + 5), text: `${n(p, "reps")} ABBA pairs of off/on, ${n(p, "threads")} threads, ${n(p, "hogs")} hogs, ${n(p, "cs_ns")} ns critical sections, ${n(p, "duration")} s, ${n(p, "cpus")} vCPUs` }),
    verdictFile: "comparison.json",
    bootsVm: true,
    load: () => import("./vm-micro.js").then((m) => ({ run: m.vmMicro })),
  },
  {
    name: "rseq-stale-slice",
    summary: "a revoked slice grant's stale syscall work bit: the reproducer in the VM, rseq debugging on/off, unfixed and fixed 7.2 kernel",
    params: [
      { name: "reps", kind: "int", default: 20, min: 1, doc: "runs per arm per boot" },
      { name: "iterations", kind: "int", default: 200, min: 1, doc: "grant → revoke → request → getppid cycles per run" },
      { name: "timeout_s", kind: "int", default: 60, min: 1, doc: "seconds before a run counts as hung" },
      { name: "kernels", kind: "list", default: ["unfixed", "fixed"], choices: ["unfixed", "fixed"], doc: "kernels to boot (fixed: series rseq-slice-stale-work, built by `slicelab prepare e2e`)" },
      { name: "accels", kind: "list", default: ["tcg-icount", "tcg"], choices: ["tcg-icount", "tcg"], doc: "QEMU accelerators, one boot each per kernel" },
      { name: "arms", kind: "list", default: ["cmdline", "debug0", "debug1", "debug1-consume"], choices: ["cmdline", "debug0", "debug1", "debug1-consume"], doc: "cmdline: rseq_debug=1 at boot; debugN: debugfs rseq/debug = N; debug1-consume: a syscall at request 0 after each revoke" },
      { name: "cpus", kind: "int", default: 1, min: 1, doc: "vCPUs" },
      { name: "mem_mib", kind: "int", default: 1024, min: 256, doc: "guest memory (MiB)" },
    ],
    plan: (p) => {
      const boots = process.env.SLICELAB_VM === "1" ? 1 : (p.kernels as string[]).length * (p.accels as string[]).length;
      const runs = boots * (p.arms as string[]).length * n(p, "reps");
      return { runs, seconds: boots * 40 + runs * (1 + n(p, "iterations") / 200), text: `${boots} boot(s) × ${(p.arms as string[]).join(", ")} × ${n(p, "reps")} runs of ${n(p, "iterations")} iterations` };
    },
    verdictFile: "verdict.json",
    bootsVm: true,
    load: () => import("./rseq-stale-slice.js").then((m) => ({ run: m.rseqStaleSlice })),
  },
  {
    name: "pg-rseq-debug",
    summary: "the patched PostgreSQL 18 (v3; v2 as the control) under rseq debugging in the VM, unfixed and fixed 7.2 kernel: backends killed or not, and the patch's counters against rseq/stats over the same window",
    params: [
      { name: "arms", kind: "list", default: ["v3-debug1", "v2-debug1", "v3-debug0"], choices: ["v3-debug1", "v3-debug0", "v2-debug1", "v2-debug0"], doc: "runs per boot, in order: the patch version and debugfs rseq/debug before the server starts" },
      { name: "kernels", kind: "list", default: ["unfixed", "fixed"], choices: ["unfixed", "fixed"], doc: "kernels to boot, rseq_debug=1 on each command line (fixed: series rseq-slice-stale-work, built by `slicelab prepare e2e`)" },
      { name: "accel", kind: "enum", default: "tcg", choices: ["tcg", "tcg-icount"], doc: "QEMU accelerator" },
      { name: "cpus", kind: "int", default: 2, min: 1, doc: "vCPUs" },
      { name: "mem_mib", kind: "int", default: 2048, min: 512, doc: "guest memory (MiB)" },
      { name: "clients", kind: "int", default: 4, min: 1, doc: "pgbench -c" },
      { name: "hogs", kind: "int", default: 2, min: 0, doc: "busy loops beside pgbench" },
      { name: "duration", kind: "int", default: 30, min: 1, doc: "pgbench -T (seconds)" },
      { name: "scale", kind: "int", default: 1, min: 1, doc: "pgbench -i -s" },
      { name: "run_overhead_s", kind: "int", default: 240, min: 10, doc: "seconds allowed per run besides pgbench (initdb, start, pgbench -i, stop) in the boot's time limit" },
      { name: "v3_bin", kind: "string", doc: "bin directory of the v3 build (default: the kit's patched PostgreSQL 18 build)" },
      { name: "v2_bin", kind: "string", doc: "bin directory of a v2 build (default: an installed v2 build under the work directory; v2 arms need one)" },
    ],
    plan: (p) => {
      const boots = (p.kernels as string[]).length;
      const runs = boots * (p.arms as string[]).length;
      return { runs, seconds: boots * 60 + runs * (n(p, "duration") + 90), text: `${boots} boot(s) with rseq_debug=1 × runs ${(p.arms as string[]).join(", ")}, pgbench TPC-B-like ${n(p, "duration")} s with ${n(p, "hogs")} hogs` };
    },
    verdictFile: "verdict.json",
    bootsVm: true,
    load: () => import("./pg-rseq-debug.js").then((m) => ({ run: m.pgRseqDebug })),
  },
];

export function driverNames(): string[] {
  return DRIVERS.map((d) => d.name);
}

export function driverSpec(name: string): DriverSpec | undefined {
  return DRIVERS.find((d) => d.name === name);
}
