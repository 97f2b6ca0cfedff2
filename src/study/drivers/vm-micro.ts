/**
 * The micro-benchmark A/B inside the kit's VM (study vm-micro; also `slicelab vm micro`), its
 * results with provenance that says VM and TCG/KVM: raw/, provenance.json, runs.json,
 * comparison.json.
 *
 * The micro-benchmark A/B: one boot per kernel command line; inside, the kit's
 * own `slicelab micro run` alternates extension off/on (ABBA order, so a slow
 * drift of the guest does not fall on one arm) for `reps` pairs; each run's
 * JSON comes back through the shared directory. The comparison of throughput
 * on vs off uses the kit's statistics (Welch t, percentile bootstrap).
 */
import { existsSync, readFileSync, readdirSync, copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildMicro, type MicroRun } from "../../micro/driver.js";
import { compareSamples, type Comparison } from "../../stats/compare.js";
import { kitInfo, hostInfo } from "../../record/provenance.js";
import { UserError } from "../../util/errors.js";
import { freshRawDir, writeFileAtomic } from "../../util/fs.js";
import { repoRoot } from "../../util/paths.js";
import { sha256File } from "../../kernel/fetch.js";
import { runVm, type Accel, type VmResult } from "../../vm/qemu.js";
import { cachedKernel } from "../../kernel/ensure.js";
import { utcStamp } from "../../record/format.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";

export interface MicroAbOptions {
  kernel: string;
  /** Kernel version and config hash for provenance (from the build record). */
  kernelVersion: string;
  configSha256: string | null;
  cpus?: number;
  memMiB?: number;
  append?: string;
  /**
   * The VM's accelerator (default auto: KVM where it works, else plain TCG). Under plain TCG guest
   * time follows the host's wall clock, so on a loaded host a granted extension can outlast its slice
   * in guest instructions and be revoked; tcg-icount counts guest time in guest instructions.
   */
  accel?: Accel | "auto";
  reps?: number;
  threads?: number;
  hogs?: number;
  csNs?: number;
  durationS?: number;
  timeoutS?: number;
  /** Directory for the results (default data/runs/vm-micro/<stamp>). */
  outDir?: string;
  onConsole?: (s: string) => void;
}

export interface MicroAbRow {
  rep: number;
  order: number;
  extension: "off" | "on";
  throughputPerS: number | null;
  holdP99Ns: number | null;
  requests: number;
  grants: number;
  revoked: number;
  yields: number;
  workerInvoluntaryCtxSwitches: number | null;
  featureAvailable: boolean | null;
  featureError: string | null;
  sgrant: number | null;
}

export interface MicroAbResult {
  dir: string;
  vm: Pick<VmResult, "accel" | "accelReason" | "cpus" | "memMiB" | "append" | "exitStatus" | "bootToCommandS" | "totalS">;
  rows: MicroAbRow[];
  /** Throughput, A = off, B = on; null when either arm has fewer than 2 runs. */
  comparison: Comparison | null;
}

/** The ABBA order of `reps` off/on pairs. */
export function abbaOrder(reps: number): ("off" | "on")[] {
  const out: ("off" | "on")[] = [];
  for (let i = 0; i < reps; i++) out.push(...(i % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const)));
  return out;
}

function rowFrom(run: MicroRun, rep: number, order: number, ext: "off" | "on"): MicroAbRow {
  const r = run.results;
  const sgrant = run.kernelStats?.counters.sgrant ?? null;
  return {
    rep,
    order,
    extension: ext,
    throughputPerS: r ? r.throughputPerS : null,
    holdP99Ns: r?.holdNs ? r.holdNs.p99 : null,
    requests: r?.requests ?? 0,
    grants: r?.grants ?? 0,
    revoked: r?.revoked ?? 0,
    yields: r?.yields ?? 0,
    workerInvoluntaryCtxSwitches: r ? r.involuntaryCtxSwitches.workers : null,
    featureAvailable: run.feature.available,
    featureError: run.feature.error,
    sgrant,
  };
}

export async function runMicroAbInVm(o: MicroAbOptions): Promise<MicroAbResult> {
  const reps = o.reps ?? 5;
  const threads = o.threads ?? 4;
  const hogs = o.hogs ?? 4;
  const csNs = o.csNs ?? 2000;
  const durationS = o.durationS ?? 5;
  // Compile on the host: the guest sees the same cache through the shared root.
  const micro = await buildMicro();
  const dir = o.outDir ?? join(repoRoot(), "data", "runs", "vm-micro", utcStamp());
  const raw = freshRawDir(dir);
  const order = abbaOrder(reps);
  const cli = join(repoRoot(), "bin", "slicelab.js");
  const lines = order.map((ext, i) => {
    const rep = Math.floor(i / 2) + 1;
    const name = `r${String(rep).padStart(2, "0")}-${i}-${ext}.json`;
    return `node ${cli} micro run --threads ${threads} --hogs ${hogs} --cs-ns ${csNs} --duration ${durationS} --extension ${ext} --json > "$SLICELAB_VM_OUT/${name}" 2> "$SLICELAB_VM_OUT/${name}.err" || echo "micro run ${name} failed: $?"`;
  });
  const vmOut = raw;
  const vm = await runVm({
    kernel: o.kernel,
    cpus: o.cpus ?? 2,
    memMiB: o.memMiB ?? 2048,
    append: o.append,
    ...(o.accel ? { accel: o.accel } : {}),
    timeoutS: o.timeoutS ?? Math.max(600, order.length * (durationS * 4 + 60)),
    outDir: vmOut,
    command: ["sh", "-c", lines.join("\n")],
    onConsole: o.onConsole,
  });
  if (vm.exitStatus === null) throw new UserError(`the VM did not finish the micro-benchmark runs (timed out: ${vm.timedOut}); console: ${vm.consoleLog}`);
  const rows: MicroAbRow[] = [];
  for (const f of readdirSync(vmOut).filter((n) => /^r\d+-\d+-(on|off)\.json$/.test(n)).sort((a, b) => Number(a.split("-")[1]) - Number(b.split("-")[1]))) {
    const text = readFileSync(join(vmOut, f), "utf8");
    if (text.trim() === "") continue;
    const m = /^r(\d+)-(\d+)-(on|off)\.json$/.exec(f)!;
    rows.push(rowFrom(JSON.parse(text) as MicroRun, Number(m[1]), Number(m[2]), m[3] as "on" | "off"));
  }
  copyFileSync(vm.consoleLog, join(raw, "console.log"));
  rmSync(join(raw, "exit-status"), { force: true });
  const off = rows.filter((r) => r.extension === "off" && r.throughputPerS !== null).map((r) => r.throughputPerS!);
  const on = rows.filter((r) => r.extension === "on" && r.throughputPerS !== null).map((r) => r.throughputPerS!);
  const comparison = off.length >= 2 && on.length >= 2 ? compareSamples(off, on, { labels: ["extension off", "extension on"], seed: 1 }) : null;
  const provenance = {
    kind: "micro-benchmark A/B (extension off vs on) inside a QEMU guest",
    environment: {
      vm: true,
      accel: vm.accel,
      accelReason: vm.accelReason,
      timingCaveat:
        vm.accel !== "kvm"
          ? "TCG: the guest CPU is emulated by QEMU (instructions translated; timer interrupts, preemption points and atomics run at emulation speed and vCPU threads are scheduled by a busy host). Throughput here is functional evidence only, not performance evidence."
          : "KVM guest on a shared 2-core host: timings include host contention.",
      cpus: vm.cpus,
      memMiB: vm.memMiB,
      append: vm.append,
    },
    kernel: { version: o.kernelVersion, configSha256: o.configSha256, bzImageSha256: await sha256File(o.kernel), sliceExtension: rows.some((r) => r.featureAvailable === true) },
    protocol: { threads, hogs, csNs, durationS, reps, order: "ABBA pairs of off/on", microBinarySha256: micro.sourceSha256 },
    host: hostInfo(),
    kit: kitInfo(),
  };
  writeFileAtomic(join(dir, "provenance.json"), `${JSON.stringify(provenance, null, 2)}\n`);
  writeFileAtomic(join(dir, "runs.json"), `${JSON.stringify(rows, null, 2)}\n`);
  writeFileAtomic(join(dir, "comparison.json"), `${JSON.stringify(comparison, null, 2)}\n`);
  if (!existsSync(join(dir, "runs.json"))) throw new UserError(`${dir}: results not written`);
  return {
    dir,
    vm: { accel: vm.accel, accelReason: vm.accelReason, cpus: vm.cpus, memMiB: vm.memMiB, append: vm.append, exitStatus: vm.exitStatus, bootToCommandS: vm.bootToCommandS, totalS: vm.totalS },
    rows,
    comparison,
  };
}

/** The study driver: the A/B with the study's parameters, into the record's out/. */
export async function vmMicro(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const rec = cachedKernel();
  if (!rec) throw new UserError("no built kernel in the cache: run `slicelab kernel fetch && slicelab kernel configure && slicelab kernel build`");
  const r = await runMicroAbInVm({
    kernel: rec.bzImage,
    kernelVersion: rec.version,
    configSha256: rec.configSha256,
    cpus: p.int("cpus"),
    memMiB: p.int("mem_mib"),
    append: p.opt("append"),
    reps: p.int("reps"),
    threads: p.int("threads"),
    hogs: p.int("hogs"),
    csNs: p.int("cs_ns"),
    durationS: p.int("duration"),
    outDir: ctx.out,
  });
  ctx.log(`${r.rows.length} runs (${r.vm.accel.toUpperCase()}${r.vm.accel !== "kvm" ? ": emulated CPU, functional evidence only" : ""})`);
  if (r.comparison) ctx.log(`throughput on vs off: ${r.comparison.welch.differencePct.toFixed(1)} %; ${r.comparison.verdict}`);
  if (r.vm.exitStatus !== 0) throw new UserError(`the VM's command exited ${r.vm.exitStatus ?? "without a status"}`);
  return { binDirs: [] };
}
