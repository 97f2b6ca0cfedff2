/**
 * The mechanism factorial as a study driver (study mechanism-micro): `slicelab study run
 * mechanism-micro` boots the kit's 7.2 kernel once and runs the plan of `planRuns` (the same runs
 * `slicelab mechanism run` makes), then writes the mechanism record's files into out/: rows.json,
 * rows.csv, provenance.json, cells.json, predictions.json and answer.txt. The runner writes the
 * envelope. The same plan, made resumable and bounded by a budget, is what `slicelab bundle` ships.
 */
import { cachedKernel, defaultKernelImage } from "../../kernel/ensure.js";
import { loadAverage } from "../../bench/provenance.js";
import { runMechanismInVm, type ExtLevel, type PageLevel, type PreemptMode } from "../../drivers/mechanism/index.js";
import { writeMicroFiles } from "./mechanism-files.js";
import type { Accel } from "../../vm/qemu.js";
import { UserError } from "../../util/errors.js";
import type { DriverContext, DriverResult } from "./index.js";
import { mechanismEnvelope } from "./vm-envelope.js";

/** The VM's console arrives in chunks of any size: log it a whole line at a time. */
export function consoleLines(log: (line: string) => void): (chunk: string) => void {
  let buf = "";
  return (chunk) => {
    buf += chunk;
    const lines = buf.split(/\r?\n/);
    buf = lines.pop() ?? "";
    for (const l of lines) if (l.trim() !== "") log(l);
  };
}

export async function mechanismMicro(ctx: DriverContext): Promise<DriverResult> {
  const p = ctx.params;
  const num = (k: string) => p[k] as number;
  const rec = cachedKernel();
  const kernel = defaultKernelImage();
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  const levels = { modes: p.modes as PreemptMode[], pages: p.pages as PageLevel[], extensions: p.extensions as ExtLevel[] };
  const r = await runMechanismInVm({
    kernel,
    kernelRelease: rec?.version,
    accel: p.accel as Accel,
    cpus: num("cpus"),
    blocks: num("blocks"),
    ...levels,
    seed: num("seed"),
    threads: num("threads"),
    hogs: num("hogs"),
    csNs: num("cs_ns"),
    durationS: num("duration"),
    faultEvery: num("fault_every"),
    regionMiB: num("region_mib"),
    jitterPct: num("jitter_pct"),
    onConsole: consoleLines(ctx.log),
  });
  if (r.rows.length === 0) throw new UserError(`no run produced a row (VM exit ${r.vm.exitStatus ?? "none"}${r.vm.timedOut ? ", timed out" : ""}); raw files in ${r.rawDir}`);
  writeMicroFiles(ctx.out, r, {
    command: ["slicelab", "study", "run", "mechanism-micro"],
    started,
    ended: new Date().toISOString(),
    loadStart,
    loadEnd: loadAverage(),
    design: { blocks: num("blocks"), seed: num("seed"), factors: { mode: r.levels.modes, pages: r.levels.pages, extension: r.levels.extensions } },
  }, { host: false, accel: String(p.accel), kernel, rec });
  ctx.log(`${r.rows.length} runs with a row, ${r.failed.length} without (${r.failed.map((f) => `${f.run}: ${f.reason}`).join("; ") || "none"})`);
  return { binDirs: [], envelope: mechanismEnvelope(ctx.out) };
}
