/**
 * The mechanism factorial (issue 14) in one boot of the 7.2 kernel, by default
 * under instruction-counted TCG (`--accel tcg-icount`): preemption mode
 * (full/lazy, switched at run time through debugfs sched/preempt) × pages
 * (4k, 4k pre-faulted, hugetlb) × extension (off/on), in randomised blocks
 * (every cell once per block, a seeded shuffle per block), each run with its
 * own seed and jittered section lengths.
 *
 * Each run: the micro-benchmark with --fault-in-cs and a hold log, while
 * tracefs records sched_switch with a stacktrace trigger on switches away from
 * the workers (and rseq_slice_grant/expire when the kernel has the slicelab
 * tracepoints); debugfs rseq/stats before and after. The guest gzips hold log
 * + trace into one holder trace per run (src/parse/holder-trace.ts). The host
 * reduces each run to one row; raw files stay in the work directory.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { buildMicro } from "../../micro/driver.js";
import { UserError } from "../../util/errors.js";
import { workDir } from "../../util/paths.js";
import { type Accel, type VmResult } from "../../vm/qemu.js";
import { bootPerBlock } from "../../vm/block-boots.js";
import { utcStamp } from "../../util/stamp.js";
import { defaultShape, planRuns, type MicroShape, type PlannedRun } from "./plan.js";
import { guestMechanismScript, type AttributionSetup } from "./guest-script.js";
import { readIf, rowFromRunDir } from "./reduce.js";
import { PAGE_LEVELS, type ExtLevel, type MechanismRow, type PageLevel, type PreemptMode } from "./row.js";

export interface MechanismOptions {
  kernel: string;
  kernelRelease?: string;
  accel?: Accel;
  cpus?: number;
  memMiB?: number;
  blocks: number;
  modes?: PreemptMode[];
  pages?: PageLevel[];
  extensions?: ExtLevel[];
  seed?: number;
  threads?: number;
  hogs?: number;
  csNs?: number;
  durationS?: number;
  faultEvery?: number;
  regionMiB?: number;
  jitterPct?: number;
  logMinNs?: number;
  innerLocks?: number;
  timeoutS?: number;
  /** Issue 26: trace what set each reschedule (see attributionSetup). */
  attribute?: boolean;
  /** Issue 26: debugfs sched/features words written once at boot (e.g. NO_HRTICK). */
  schedFeatures?: string[];
  /** Issue 26 known cases: micro-benchmark arguments appended to every run (e.g. --syscall-in-cs 65536). */
  extraMicroArgs?: string[];
  /** Raw run directory (default: workDir()/mechanism/STAMP). */
  rawDir?: string;
  /** A plan made elsewhere (the model sweep: runs of several shapes in one boot) instead of planRuns over the levels. */
  plan?: PlannedRun[];
  onConsole?: (s: string) => void;
}

export interface MechanismRun {
  rawDir: string;
  vm: Pick<VmResult, "accel" | "accelReason" | "cpus" | "memMiB" | "append" | "exitStatus" | "timedOut" | "bootToCommandS" | "totalS">;
  kernelRelease: string;
  /** The planner's levels, in the order it was given them: with blocks and seed they give the plan again. */
  levels: { modes: PreemptMode[]; pages: PageLevel[]; extensions: ExtLevel[] };
  plan: PlannedRun[];
  shape: MicroShape;
  rows: MechanismRow[];
  /** Planned runs that produced no row, with the reason. */
  failed: { run: string; reason: string }[];
  guest: { nrHugepages: string | null; configSha256: string | null; traceClock: string | null; preemptAtBoot: string | null; notes: string | null; hz?: number | null; schedFeatures?: string | null; attribution?: AttributionSetup | null };
  micro: { sourceSha256: string; static: boolean };
}

export async function runMechanismInVm(o: MechanismOptions): Promise<MechanismRun> {
  const shape = defaultShape(o);
  const cpus = o.cpus ?? 1;
  if (shape.threads + shape.hogs <= cpus) throw new UserError(`--threads ${shape.threads} + --hogs ${shape.hogs} must exceed --cpus ${cpus}: the run must be oversubscribed`);
  const levels = { modes: [...(o.modes ?? ["full", "lazy"])], pages: [...(o.pages ?? PAGE_LEVELS)], extensions: [...(o.extensions ?? ["off", "on"])] };
  const plan = o.plan ?? planRuns({ blocks: o.blocks, ...levels, seed: o.seed ?? 1 });
  const micro = await buildMicro();
  const stamp = utcStamp();
  const rawDir = o.rawDir ?? join(workDir(), "mechanism", stamp);
  mkdirSync(rawDir, { recursive: true });
  if (readdirSync(rawDir).length > 0) throw new UserError(`${rawDir}: not empty; choose a new raw directory`);
  const attribution: AttributionSetup | undefined = o.attribute || o.schedFeatures?.length || o.extraMicroArgs?.length
    ? { schedFeatures: o.schedFeatures, extraMicroArgs: o.extraMicroArgs, thp: plan.some((r) => r.pages === "thp") }
    : undefined;
  // Issue 26 item 4: one boot per block, each with its own time limit, so a
  // slow host costs at most the rest of one block, and each run not reached
  // says which boot timed out. The per-run budget is from the factorial of
  // 20261201T215612Z: 21 runs of 0.5 s took 1,850 s of wall time under icount
  // (88 s each) against the old budget of 50 s a run (durationS * 40 + 30).
  const perRun = Math.round(90 + Math.max(...plan.map((r) => r.shape?.durationS ?? shape.durationS)) * 150 + (attribution ? 60 : 0));
  const { vm, notReached } = await bootPerBlock(plan, {
    rawDir,
    timeoutS: (runs) => o.timeoutS ?? Math.round(180 + runs.length * perRun),
    script: (runs) => guestMechanismScript({ lhp: micro.path, runs, shape, bufferKb: 16384, attribution }),
    vm: { kernel: o.kernel, accel: o.accel ?? "tcg-icount", cpus, memMiB: o.memMiB ?? 2048, append: "no_timer_check", onConsole: o.onConsole },
  });
  const kernelRelease = (readIf(join(rawDir, "uname-r")) ?? "").trim() || (o.kernelRelease ?? "unknown");
  const rows: MechanismRow[] = [];
  const failed: { run: string; reason: string }[] = [];
  for (const r of plan) {
    const d = join(rawDir, "runs", r.id);
    if (!existsSync(join(d, "status"))) {
      failed.push({ run: r.id, reason: notReached(r.id) });
      continue;
    }
    try {
      rows.push(rowFromRunDir(d, r, { kernelRelease, accel: vm.accel, durationS: shape.durationS }).row);
    } catch (err) {
      failed.push({ run: r.id, reason: (err as Error).message });
    }
  }
  return {
    rawDir,
    vm: { accel: vm.accel, accelReason: vm.accelReason, cpus: vm.cpus, memMiB: vm.memMiB, append: vm.append, exitStatus: vm.exitStatus, timedOut: vm.timedOut, bootToCommandS: vm.bootToCommandS, totalS: vm.totalS },
    kernelRelease,
    levels,
    plan,
    shape,
    rows,
    failed,
    guest: {
      nrHugepages: readIf(join(rawDir, "nr_hugepages"))?.trim() ?? null,
      configSha256: readIf(join(rawDir, "config-sha256"))?.trim() ?? null,
      hz: Number(readIf(join(rawDir, "hz"))?.trim()) || null,
      traceClock: readIf(join(rawDir, "trace_clock"))?.trim() ?? null,
      preemptAtBoot: readIf(join(rawDir, "preempt-at-boot"))?.trim() ?? null,
      notes: readIf(join(rawDir, "notes.txt"))?.trim() ?? null,
      schedFeatures: readIf(join(rawDir, "sched-features"))?.trim() ?? null,
      attribution: attribution ?? null,
    },
    micro: { sourceSha256: micro.sourceSha256, static: micro.static },
  };
}

/**
 * The same runs on this machine's kernel (no VM): for a kernel without the
 * extension and a mode that must not be changed (a shared host), so modes are
 * ["current"] and extensions ["off"]. Needs root and tracefs/debugfs mounted.
 */
export async function runMechanismOnHost(o: Omit<MechanismOptions, "kernel" | "accel" | "cpus" | "memMiB">): Promise<MechanismRun> {
  const shape = defaultShape(o);
  const levels = { modes: ["current"] as PreemptMode[], pages: [...(o.pages ?? (["4k", "4k-prefault"] as PageLevel[]))], extensions: [...(o.extensions ?? (["off"] as ExtLevel[]))] };
  const plan = planRuns({ blocks: o.blocks, ...levels, seed: o.seed ?? 1 });
  const micro = await buildMicro();
  const stamp = utcStamp();
  const rawDir = o.rawDir ?? join(workDir(), "mechanism", `host-${stamp}`);
  mkdirSync(rawDir, { recursive: true });
  if (readdirSync(rawDir).length > 0) throw new UserError(`${rawDir}: not empty; choose a new raw directory`);
  const script = guestMechanismScript({ lhp: micro.path, runs: plan, shape, bufferKb: 8192, host: true });
  const t0 = Date.now();
  const res = spawnSync("sh", ["-c", script], { env: { ...process.env, SLICELAB_VM_OUT: rawDir }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: (o.timeoutS ?? plan.length * (shape.durationS * 10 + 30)) * 1000 });
  const kernelRelease = (readIf(join(rawDir, "uname-r")) ?? "").trim() || "unknown";
  const rows: MechanismRow[] = [];
  const failed: { run: string; reason: string }[] = [];
  for (const r of plan) {
    const d = join(rawDir, "runs", r.id);
    if (!existsSync(join(d, "status"))) {
      failed.push({ run: r.id, reason: "not reached" });
      continue;
    }
    try {
      rows.push(rowFromRunDir(d, r, { kernelRelease, accel: "host", durationS: shape.durationS }).row);
    } catch (err) {
      failed.push({ run: r.id, reason: (err as Error).message });
    }
  }
  return {
    rawDir,
    vm: { accel: "host" as unknown as Accel, accelReason: "no VM: this machine's kernel", cpus: 0, memMiB: 0, append: "", exitStatus: res.status, timedOut: res.error !== undefined, bootToCommandS: 0, totalS: (Date.now() - t0) / 1000 },
    kernelRelease,
    levels,
    plan,
    shape,
    rows,
    failed,
    guest: {
      nrHugepages: null,
      configSha256: null,
      traceClock: readIf(join(rawDir, "trace_clock"))?.trim() ?? null,
      preemptAtBoot: readIf(join(rawDir, "preempt-at-boot"))?.trim() ?? null,
      notes: [readIf(join(rawDir, "notes.txt"))?.trim(), res.stderr?.trim()].filter((x) => x).join("\n") || null,
    },
    micro: { sourceSha256: micro.sourceSha256, static: micro.static },
  };
}
