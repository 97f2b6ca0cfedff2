/**
 * The mechanism factorial on PostgreSQL 18 as a study driver (study mechanism-pg): `slicelab study
 * run mechanism-pg` (and `slicelab mechanism run --pg`, its alias) builds or takes the diagnostic
 * server build, boots the kit's 7.2 kernel once per block and runs mode × huge_pages × extension
 * (src/drivers/mechanism-pg/), each run a fresh server; writes rows.json, rows.csv, provenance.json,
 * cells.json and answer.txt into out/. The runner writes the envelope.
 */
import { cachedKernel, defaultKernelImage } from "../../kernel/ensure.js";
import { loadAverage } from "../../record/provenance.js";
import { ensureDiagBin, runPgMechanismInVm, type HugeLevel, type OnSetting } from "../../drivers/mechanism-pg/run.js";
import type { ExtLevel, PreemptMode } from "../../drivers/mechanism/index.js";
import type { Accel } from "../../vm/qemu.js";
import { UserError } from "../../util/errors.js";
import type { DriverContext, DriverResult } from "./index.js";
import { writePgFiles } from "./mechanism-files.js";
import { consoleLines, driverCommand } from "./mechanism-micro.js";
import { mechanismEnvelope } from "./vm-envelope.js";

export async function mechanismPg(ctx: DriverContext): Promise<DriverResult> {
  const p = ctx.params;
  const num = (k: string) => p[k] as number;
  const str = (k: string) => (typeof p[k] === "string" && p[k] !== "" ? (p[k] as string) : undefined);
  const rec = str("kernel") ? undefined : cachedKernel();
  const kernel = str("kernel") ?? defaultKernelImage();
  const { bin, user, build } = await ensureDiagBin(str("bin"));
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  const r = await runPgMechanismInVm({
    kernel,
    kernelRelease: rec?.version,
    bin,
    user,
    accel: p.accel as Accel,
    memMiB: num("mem"),
    blocks: num("blocks"),
    modes: p.modes as PreemptMode[],
    hugePages: p.huge_pages as HugeLevel[],
    extensions: p.extensions as ExtLevel[],
    seed: num("seed"),
    shape: { sharedBuffers: str("shared_buffers"), scale: num("scale"), clients: num("clients"), connectClients: num("connect_clients"), durationS: num("duration") },
    timeoutS: p.timeout === undefined ? undefined : num("timeout"),
    onSetting: p.on_setting as OnSetting,
    onConsole: consoleLines(ctx.log),
  });
  if (r.rows.length === 0) {
    throw new UserError(`no run produced a row (VM exit ${r.vm.exitStatus ?? "none"}${r.vm.timedOut ? ", timed out" : ""}; ${r.guest.notes ?? ""} ${r.failed.slice(0, 3).map((f) => `${f.run}: ${f.reason}`).join("; ")}); raw files in ${r.rawDir}`);
  }
  writePgFiles(ctx.out, r, {
    command: driverCommand(p, "mechanism-pg"),
    started,
    ended: new Date().toISOString(),
    loadStart,
    loadEnd: loadAverage(),
    design: { blocks: num("blocks"), seed: num("seed"), factors: { mode: r.levels.modes, huge_pages: r.levels.hugePages, extension: r.levels.extensions } },
  }, { accel: String(p.accel), kernel, rec, bin, build });
  ctx.log(`${r.rows.length} runs with a row, ${r.failed.length} without (${r.failed.map((f) => `${f.run}: ${f.reason}`).join("; ") || "none"})`);
  return { binDirs: [bin], envelope: mechanismEnvelope(ctx.out) };
}
