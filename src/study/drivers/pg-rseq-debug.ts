/**
 * Study pg-rseq-debug (issue 27, items 1 and 2 on PostgreSQL): the patched PostgreSQL 18 (v3, and
 * v2 as the control) under rseq debugging in the kit's VM, on the unfixed 7.2 kernel and on the
 * one with kernel-patches/linux/series/rseq-slice-stale-work; one boot per kernel with
 * `rseq_debug=1` on the command line, debugfs rseq/debug written before each run. Each run: a
 * fresh cluster at slice_extension = all, pgbench's TPC-B-like script with busy hogs, the patch's
 * counters and rseq/stats read in one statement before and after (src/vm/pg-rseq-debug.ts).
 *
 * out/: raw/<kernel>/ (the runs' files and the console), runs.json (one row per run, with the
 * cross-check of its counters: src/postgres/stats-cross-check.ts reconcile), verdict.json
 * (pgDebugVerdict), provenance.json (boots, servers, shape).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cachedKernel, cachedPatchedKernel } from "../../kernel/ensure.js";
import { sha256File } from "../../kernel/fetch.js";
import { hostInfo, kitInfo } from "../../bench/provenance.js";
import { buildPostgres, installRoot } from "../../postgres/build.js";
import { missingServerProgram } from "../../postgres/binaries.js";
import { patchHash } from "../../postgres/patch.js";
import { readPatchVersions } from "../../postgres/patch-version.js";
import { fetchDebianSource } from "../../postgres/source.js";
import { reconcile, reconcileLines } from "../../postgres/stats-cross-check.js";
import { ensurePgUser } from "../../postgres/user.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { guestPgDebugScript, pgDebugVerdict, readPgDebugBoot, type PgDebugArm, type PgDebugRow } from "../../vm/pg-rseq-debug.js";
import { runVm, type Accel } from "../../vm/qemu.js";
import { staleSeriesDir } from "../../vm/rseq-stale.js";
import { paramReader } from "../params.js";
import type { DriverContext, DriverResult } from "./index.js";
import { staleSliceEnvelope } from "./vm-envelope.js";

const TIMING = "QEMU TCG: the guest CPU is emulated; kills, grants, yields and the counters are evidence, times are not.";

/** An installed build of patch VERSION for MAJOR under the kit's install root, or undefined. */
export function installedPatchBuild(version: string, major: string, root = installRoot()): string | undefined {
  const hashes = readPatchVersions().filter((v) => v.version === version && v.major === major && !v.diag).map((v) => v.hash);
  if (!existsSync(root)) return undefined;
  const dir = readdirSync(root).sort().find((d) => hashes.some((h) => d.startsWith(`${major}.`) && d.includes(`-patched-${h}-`)) && existsSync(join(root, d, "bin", "postgres")));
  return dir === undefined ? undefined : join(root, dir, "bin");
}

/** "v3-debug1" → the arm's patch and debugfs value. */
export function parseArm(name: string, bins: Record<string, string>): PgDebugArm {
  const m = /^(v[23])-debug([01])$/.exec(name);
  if (!m) throw new UserError(`arms: expected v3-debug1, v3-debug0, v2-debug1 or v2-debug0, found ${JSON.stringify(name)}`);
  const bin = bins[m[1]!];
  if (bin === undefined) throw new UserError(`arms: ${name} needs a ${m[1]} build (pass --param ${m[1]}_bin=DIR)`);
  return { id: name, patch: m[1]!, bin, debug: Number(m[2]) as 0 | 1 };
}

export async function pgRseqDebug(ctx: DriverContext): Promise<DriverResult> {
  const p = paramReader(ctx.params);
  if (process.env.SLICELAB_VM === "1") throw new UserError("pg-rseq-debug boots the VM itself (one boot per kernel, rseq_debug=1 on its command line): run it without --vm");
  const armNames = p.list("arms") ?? [];
  const kernels = (p.list("kernels") ?? ["unfixed", "fixed"]) as ("unfixed" | "fixed")[];
  const bins: Record<string, string> = {};
  bins.v3 = p.opt("v3_bin") ?? (await buildPostgres(await fetchDebianSource("18"), "patched", { log: ctx.log })).binDir;
  const v2 = p.opt("v2_bin") ?? installedPatchBuild("v2", "18");
  if (v2 !== undefined) bins.v2 = v2;
  for (const [v, b] of Object.entries(bins)) {
    const miss = missingServerProgram(b) ?? (["pgbench", "psql"].find((x) => !existsSync(join(b, x))));
    if (miss !== undefined) throw new UserError(`${v}_bin ${b}: expected a PostgreSQL bin directory, found no ${miss} in it`);
  }
  const arms = armNames.map((a) => parseArm(a, bins));
  const shape = { clients: p.int("clients"), hogs: p.int("hogs"), durationS: p.int("duration"), scale: p.int("scale") };
  const user = await ensurePgUser();
  const images: Record<string, { bzImage: string; version: string; configSha256: string; tree: string }> = {};
  if (kernels.includes("unfixed")) {
    const k = cachedKernel();
    if (!k) throw new UserError("kernels: unfixed needs the kit's 7.2 kernel (slice-ext + vm) in the cache: run `slicelab prepare test`");
    images.unfixed = k;
  }
  if (kernels.includes("fixed")) {
    const k = cachedPatchedKernel(staleSeriesDir());
    if (!k) throw new UserError(`kernels: fixed needs the kernel with ${staleSeriesDir()} applied in the cache: run \`slicelab prepare e2e\` (or pass --param kernels=unfixed)`);
    images.fixed = k;
  }
  const accel = p.str("accel") as Accel;
  const raw = join(ctx.out, "raw");
  const rows: (PgDebugRow & { kernel: string; reconcile: string[] | null })[] = [];
  const boots: Record<string, unknown>[] = [];
  for (const kernel of kernels) {
    const dir = join(raw, kernel);
    mkdirSync(dir, { recursive: true });
    ctx.log(`boot ${kernel}: ${images[kernel]!.bzImage} (rseq_debug=1, ${accel}), arms ${armNames.join(", ")}`);
    const vm = await runVm({
      kernel: images[kernel]!.bzImage,
      cpus: p.int("cpus"),
      memMiB: p.int("mem_mib"),
      accel,
      append: "rseq_debug=1",
      outDir: dir,
      timeoutS: 300 + arms.length * (shape.durationS + p.int("run_overhead_s")),
      command: ["sh", "-c", guestPgDebugScript({ user: user.user, arms, shape })],
    });
    copyFileSync(vm.consoleLog, join(dir, "console.log"));
    rmSync(join(dir, "exit-status"), { force: true });
    for (const r of readPgDebugBoot(dir, arms)) {
      const k = r.kernelDelta ?? r.kernelDeltaShell;
      rows.push({ ...r, kernel, reconcile: r.patchDelta && k ? reconcileLines(reconcile(r.patchDelta, k)) : null });
      ctx.log(`${kernel}/${r.id}: ${r.outcome} — ${r.reason}`);
    }
    boots.push({
      boot: kernel,
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
      arms: armNames,
      exitStatus: vm.exitStatus,
      timedOut: vm.timedOut,
      bootToCommandS: vm.bootToCommandS,
      totalS: vm.totalS,
    });
    if (vm.exitStatus === null) throw new UserError(`boot ${kernel}: the VM did not finish (timed out: ${vm.timedOut}); console ${vm.consoleLog}`);
  }
  const verdict = pgDebugVerdict(rows);
  writeFileAtomic(join(ctx.out, "runs.json"), `${JSON.stringify(rows, null, 2)}\n`);
  writeFileAtomic(join(ctx.out, "verdict.json"), `${JSON.stringify({ ...verdict, rule: "src/vm/pg-rseq-debug.ts pgDebugVerdict" }, null, 2)}\n`);
  writeFileAtomic(
    join(ctx.out, "provenance.json"),
    `${JSON.stringify(
      {
        kind: "the patched PostgreSQL 18 under rseq debugging in the kit's VM (issue 27, items 1 and 2)",
        timingCaveat: TIMING,
        boots,
        servers: Object.fromEntries(Object.entries(bins).map(([v, b]) => [v, { bin: b }])),
        v3PatchHash: patchHash("18"),
        shape,
        workload: `pgbench -n (TPC-B-like) -c ${shape.clients} -j 1 -T ${shape.durationS}, scale ${shape.scale}, ${shape.hogs} busy hogs, slice_extension = all, GLIBC_TUNABLES=glibc.pthread.rseq=0`,
        host: hostInfo(),
        kit: kitInfo(),
      },
      null,
      2,
    )}\n`,
  );
  ctx.log(`${verdict.verdict}: ${verdict.reason}`);
  return { binDirs: Object.values(bins), envelope: pgDebugEnvelope(ctx.out) };
}

/** The record's envelope from out/: the boots (staleSliceEnvelope's reading), the guests' preemption mode and the grants per run. */
export function pgDebugEnvelope(out: string): NonNullable<DriverResult["envelope"]> {
  const env = staleSliceEnvelope(out);
  const rows = JSON.parse(readFileSync(join(out, "runs.json"), "utf8")) as (PgDebugRow & { kernel: string })[];
  const granted = rows.filter((r) => ((r.kernelDelta ?? r.kernelDeltaShell)?.sgrant ?? 0) > 0).length;
  const modes = [...new Set(readdirSync(join(out, "raw")).map((b) => join(out, "raw", b, "preempt")).filter((f) => existsSync(f)).map((f) => readFileSync(f, "utf8").trim()))];
  return {
    ...env,
    preemptMode: modes.length ? `${modes.join("; ")} (debugfs sched/preempt in the guest at boot, out/raw/<kernel>/preempt)` : undefined,
    sliceExtension: `available in the guest: the kernel granted extensions in ${granted} of ${rows.length} runs (out/runs.json kernelDelta.sgrant)`,
  };
}
