/**
 * Study rseq-stale-slice (issue 27, item 1): does a revoked slice-extension grant leave the
 * syscall work bit set, so that a syscall in the next section (request = 1) is killed when rseq
 * debugging is on? The reproducer (src/vm/rseq-stale-slice.c) runs in the kit's VM on the
 * unfixed 7.2 kernel and on the kernel with kernel-patches/linux/series/rseq-slice-stale-work.
 *
 * On the host, one boot per kernel × accelerator, each with `rseq_debug=1` on the command line:
 * the `cmdline` arm's runs come first (before anything writes debugfs), then debugfs rseq/debug
 * 0 / 1 / 1 with a syscall at request = 0 before the next request (`consume`), reps each.
 * With `study run --vm` the study runner has already booted the default kernel and this runs in
 * that guest: the running kernel only, debugfs arms only (its command line is the runner's).
 *
 * out/: raw/<boot>/ (each run's JSON line, exit status, stderr, rseq/debug before it; the
 * console), runs.json (one row per run), cells.json, verdict.json (src/vm/rseq-stale.ts
 * overallVerdict), provenance.json.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { cachedKernel, cachedPatchedKernel } from "../../kernel/ensure.js";
import { sha256File } from "../../kernel/fetch.js";
import { hostInfo, kitInfo } from "../../bench/provenance.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { runVm, type Accel } from "../../vm/qemu.js";
import {
  ARMS,
  bootScript,
  buildReproducer,
  cellsOf,
  overallVerdict,
  readBoot,
  staleSeriesDir,
  type Arm,
  type StaleRow,
} from "../../vm/rseq-stale.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";
import { staleSliceEnvelope } from "./vm-envelope.js";

const TIMING =
  "QEMU TCG: the guest CPU is emulated; counts (grants, revokes, kills) are evidence, times are not. Under tcg-icount guest time is counted in guest instructions; under plain tcg it follows the host's clock.";

export async function rseqStaleSlice(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  const reps = p.int("reps");
  const iterations = p.int("iterations");
  const timeoutS = p.int("timeout_s");
  const repro = await buildReproducer();
  const raw = join(ctx.out, "raw");
  mkdirSync(raw, { recursive: true });
  const rows: StaleRow[] = [];
  const boots: Record<string, unknown>[] = [];
  const inGuest = process.env.SLICELAB_VM === "1";

  if (inGuest) {
    // Already in the kit's VM (study run --vm): the running kernel, debugfs arms only.
    const arms = ((p.list("arms") ?? [...ARMS]) as Arm[]).filter((a) => a !== "cmdline");
    const dir = join(raw, "running");
    mkdirSync(dir, { recursive: true });
    const r = await execa("sh", ["-c", bootScript({ binary: repro.path, outDir: dir, arms, reps, iterations, timeoutS })], { reject: false, all: true });
    writeFileAtomic(join(dir, "script.log"), r.all ?? "");
    rows.push(...readBoot(dir, { boot: "running", kernel: "running", accel: "the study runner's", arms, reps }));
    boots.push({ boot: "running", kernel: readFileSync("/proc/sys/kernel/osrelease", "utf8").trim(), cmdline: readFileSync("/proc/cmdline", "utf8").trim(), arms, exitStatus: r.exitCode });
    ctx.log(`in the guest: ${rows.length} runs on the running kernel`);
  } else {
    const arms = (p.list("arms") ?? [...ARMS]) as Arm[];
    const kernels = (p.list("kernels") ?? ["unfixed", "fixed"]) as ("unfixed" | "fixed")[];
    const accels = (p.list("accels") ?? ["tcg-icount", "tcg"]) as Accel[];
    const images: Record<string, { bzImage: string; version: string; configSha256: string; tree: string }> = {};
    const unfixed = cachedKernel();
    if (kernels.includes("unfixed")) {
      if (!unfixed) throw new UserError("kernels: unfixed needs the kit's 7.2 kernel (slice-ext + vm) in the cache: run `slicelab prepare test`");
      images.unfixed = unfixed;
    }
    if (kernels.includes("fixed")) {
      const fixed = cachedPatchedKernel(staleSeriesDir());
      if (!fixed) throw new UserError(`kernels: fixed needs the kernel with ${staleSeriesDir()} applied in the cache: run \`slicelab prepare e2e\` (or pass --param kernels=unfixed)`);
      images.fixed = fixed;
    }
    for (const kernel of kernels) {
      for (const accel of accels) {
        const boot = `${kernel}-${accel}`;
        const dir = join(raw, boot);
        mkdirSync(dir, { recursive: true });
        const append = arms.includes("cmdline") ? "rseq_debug=1" : "";
        ctx.log(`boot ${boot}: ${images[kernel]!.bzImage}${append ? ` (${append})` : ""}`);
        const vm = await runVm({
          kernel: images[kernel]!.bzImage,
          cpus: p.int("cpus"),
          memMiB: p.int("mem_mib"),
          accel,
          append,
          outDir: dir,
          timeoutS: 120 + bootRuns(arms, reps) * (timeoutS + 5),
          command: ["sh", "-c", bootScript({ binary: repro.path, outDir: dir, arms, reps, iterations, timeoutS })],
        });
        copyFileSync(vm.consoleLog, join(dir, "console.log"));
        rmSync(join(dir, "exit-status"), { force: true });
        const got = readBoot(dir, { boot, kernel, accel, arms, reps });
        rows.push(...got);
        boots.push({
          boot,
          kernel,
          bzImage: images[kernel]!.bzImage,
          bzImageSha256: await sha256File(images[kernel]!.bzImage),
          kernelVersion: images[kernel]!.version,
          configSha256: images[kernel]!.configSha256,
          tree: images[kernel]!.tree,
          accel: vm.accel,
          cpus: vm.cpus,
          memMiB: vm.memMiB,
          append: vm.append,
          arms,
          exitStatus: vm.exitStatus,
          timedOut: vm.timedOut,
          bootToCommandS: vm.bootToCommandS,
          totalS: vm.totalS,
        });
        const k = got.filter((r) => r.outcome === "killed").length;
        const s = got.filter((r) => r.outcome === "survived").length;
        ctx.log(`boot ${boot}: ${got.length} runs, ${k} killed, ${s} survived, ${got.length - k - s} other; ${vm.totalS} s`);
        if (vm.exitStatus === null) throw new UserError(`boot ${boot}: the VM did not finish (timed out: ${vm.timedOut}); console ${vm.consoleLog}`);
      }
    }
  }
  const cells = cellsOf(rows);
  const verdict = overallVerdict(rows);
  writeFileAtomic(join(ctx.out, "runs.json"), `${JSON.stringify(rows, null, 2)}\n`);
  writeFileAtomic(join(ctx.out, "cells.json"), `${JSON.stringify(cells, null, 2)}\n`);
  writeFileAtomic(join(ctx.out, "verdict.json"), `${JSON.stringify({ ...verdict, rule: "src/vm/rseq-stale.ts overallVerdict" }, null, 2)}\n`);
  writeFileAtomic(
    join(ctx.out, "provenance.json"),
    `${JSON.stringify(
      {
        kind: "rseq stale slice work bit reproducer (issue 27, item 1) in the kit's VM",
        timingCaveat: TIMING,
        inGuest,
        boots,
        reproducer: { source: "src/vm/rseq-stale-slice.c", sourceSha256: repro.sourceSha256, static: repro.static, binary: repro.path },
        fixSeries: "kernel-patches/linux/series/rseq-slice-stale-work",
        params: { reps, iterations, timeoutS, cpus: p.int("cpus"), memMiB: p.int("mem_mib") },
        host: hostInfo(),
        kit: kitInfo(),
      },
      null,
      2,
    )}\n`,
  );
  ctx.log(`${verdict.verdict}: ${verdict.reason}`);
  // in the guest (study run --vm) the runner's own envelope is the guest's; from the host the boots say where it ran
  return { binDirs: [], ...(inGuest ? {} : { envelope: staleSliceEnvelope(ctx.out) }) };
}

/** Runs in one boot. */
export function bootRuns(arms: readonly string[], reps: number): number {
  return arms.length * reps;
}
