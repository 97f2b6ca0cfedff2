/**
 * Kernel-path benchmark: kernel build time with a cold ccache and with a warm
 * one, and VM boot-to-command time (under TCG here: emulated CPU, so boot time
 * is a usability figure, not a performance measurement of the kernel).
 *
 *   slicelab study run kernel-build [--param cold=true] [--param warm=true] [--param boots=N] [--param jobs=N]
 *
 * With neither cold nor warm only the boot time is measured (builds take tens
 * of minutes on 2 shared cores). Each build goes into a fresh scratch build
 * directory beside the cached one (same depth, so ccache's relative paths
 * match); --cold uses an empty, temporary ccache directory. The figures are
 * printed and written to the record's out/kernel-build.json with the
 * machine's CPU count and load averages at start and end (the machine is shared:
 * say so when quoting a number).
 */
import { cpus, loadavg } from "node:os";
import { mkdtempSync, rmSync, copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildKernel } from "../../kernel/build.js";
import { ensureKernel } from "../../kernel/ensure.js";
import { buildDirFor, DEFAULT_FRAGMENTS, fragmentPath } from "../../kernel/configure.js";
import { currentTree, kernelCacheDir } from "../../kernel/tree.js";
import { runVm } from "../../vm/qemu.js";
import { writeFileAtomic } from "../../util/fs.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";
import { utcStamp } from "../../record/format.js";
import { UserError } from "../../util/errors.js";

export async function kernelBuild(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const stamp = utcStamp();
  const load0 = loadavg();
  const main = await ensureKernel({ log: (s) => ctx.log(`bench-kernel: ${s}`) });
  const tree = currentTree();
  const mainDir = buildDirFor(tree, DEFAULT_FRAGMENTS.map(fragmentPath));
  const jobs = (ctx.params.jobs as number | undefined) ?? cpus().length;

  interface BuildFigure {
    kind: "cold" | "warm";
    seconds: number;
    ccacheHits: number | null;
    ccacheMisses: number | null;
    loadavgStart: number[];
  }
  const builds: BuildFigure[] = [];

  async function scratchBuild(kind: "cold" | "warm"): Promise<void> {
    const dir = join(kernelCacheDir(), "build", tree.debianVersion ?? tree.version, `bench-${kind}-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(mainDir, ".config"), join(dir, ".config"));
    const ccacheDir = kind === "cold" ? mkdtempSync(join(kernelCacheDir(), "ccache-cold-")) : undefined;
    const l = loadavg();
    try {
      ctx.log(`bench-kernel: ${kind} build in ${dir}${ccacheDir ? ` (empty ccache ${ccacheDir})` : ""}`);
      const rec = await buildKernel({ tree, buildDir: dir, jobs, ccacheDir });
      builds.push({ kind, seconds: rec.seconds, ccacheHits: rec.ccacheHits, ccacheMisses: rec.ccacheMisses, loadavgStart: l.map((x) => Math.round(x * 100) / 100) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      if (ccacheDir) rmSync(ccacheDir, { recursive: true, force: true });
    }
  }

  if (p.bool("cold")) await scratchBuild("cold");
  if (p.bool("warm")) await scratchBuild("warm");

  const boots: { accel: string; bootToCommandS: number | null; totalS: number }[] = [];
  let accelReason = "";
  for (let i = 0; i < p.int("boots"); i++) {
    const r = await runVm({ kernel: main.bzImage, cpus: 2, memMiB: 1024, timeoutS: 180, command: ["true"] });
    if (r.exitStatus !== 0) throw new UserError(`boot ${i + 1}: command did not run (console ${r.consoleLog})`);
    accelReason = r.accelReason;
    boots.push({ accel: r.accel, bootToCommandS: r.bootToCommandS, totalS: r.totalS });
  }
  const bootTimes = boots.map((b) => b.bootToCommandS ?? NaN).sort((a, b) => a - b);
  const median = bootTimes.length ? bootTimes[Math.floor((bootTimes.length - 1) / 2)]! : null;

  const record = {
    measured: stamp,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? "", loadavgStart: load0.map((x) => Math.round(x * 100) / 100), loadavgEnd: loadavg().map((x) => Math.round(x * 100) / 100) },
    kernel: { version: tree.version, debianVersion: tree.debianVersion ?? null, configSha256: main.configSha256, bzImageSha256: main.bzImageSha256 },
    lastBuildOfCachedKernel: { seconds: main.seconds, ccacheHits: main.ccacheHits, ccacheMisses: main.ccacheMisses, jobs: main.jobs },
    builds,
    boots: { accel: boots[0]?.accel ?? null, accelReason, runs: boots, medianBootToCommandS: median },
    note: "Shared 2-core machine: build times depend on the other jobs' load (see loadavg). Boot times under TCG are emulation times, not kernel performance.",
  };
  const out = join(ctx.out, "kernel-build.json");
  writeFileAtomic(out, `${JSON.stringify(record, null, 2)}\n`);

  const fmt = (s: number | null | undefined) => (s === null || s === undefined ? "—" : `${(s / 60).toFixed(1)} min (${s.toFixed(0)} s)`);
  ctx.log(`kernel ${tree.version} (${tree.debianVersion ?? tree.origin}), config ${main.configSha256.slice(0, 12)}, -j${jobs} on ${cpus().length} CPUs`);
  ctx.log(`  cached kernel's last build: ${fmt(main.seconds)}  ccache hits ${main.ccacheHits} / misses ${main.ccacheMisses}`);
  for (const b of builds) ctx.log(`  ${b.kind} ccache build:       ${fmt(b.seconds)}  ccache hits ${b.ccacheHits} / misses ${b.ccacheMisses}  (load ${b.loadavgStart.join(" ")})`);
  ctx.log(`  VM boot to command (${boots[0]?.accel.toUpperCase()}; ${accelReason}): median ${median?.toFixed(2)} s of ${boots.length} [${bootTimes.map((t) => t.toFixed(2)).join(", ")}]`);
  if (boots[0]?.accel === "tcg") ctx.log("  (TCG emulates the CPU: these are functional timings, not performance evidence)");
  ctx.log(`written ${out}`);
  return { binDirs: [] };
}
