/**
 * The mechanism factorial as a study driver (study mechanism-micro): `slicelab study run
 * mechanism-micro` (and `slicelab mechanism run`, its alias) boots the kit's 7.2 kernel once per
 * block and runs the plan of `planRuns` (src/drivers/mechanism/), or with host=true the same runs
 * on this machine's kernel, then writes the mechanism record's files into out/: rows.json,
 * rows.csv, provenance.json, cells.json, predictions.json and answer.txt. The runner writes the
 * envelope. The same plan, made resumable and bounded by a budget, is what `slicelab bundle` ships.
 */
import { cachedKernel, defaultKernelImage } from "../../kernel/ensure.js";
import { loadAverage } from "../../record/provenance.js";
import { runMechanismInVm, runMechanismOnHost, type ExtLevel, type MechanismRun, type PageLevel, type PreemptMode } from "../../drivers/mechanism/index.js";
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

/** The command line that makes the same runs again: the study and every parameter as the driver got it. */
export function driverCommand(p: DriverContext["params"], study: string): string[] {
  const pass = Object.entries(p).filter(([, v]) => v !== undefined).flatMap(([k, v]) => ["--param", `${k}=${Array.isArray(v) ? v.join(",") : String(v)}`]);
  return ["slicelab", "study", "run", study, ...pass];
}

export async function mechanismMicro(ctx: DriverContext): Promise<DriverResult> {
  const p = ctx.params;
  const num = (k: string) => p[k] as number;
  const str = (k: string) => (typeof p[k] === "string" && p[k] !== "" ? (p[k] as string) : undefined);
  const words = (k: string, sep: RegExp) => str(k)?.split(sep).map((x) => x.trim()).filter((x) => x !== "");
  const host = p.host === true;
  const rec = host || str("kernel") ? undefined : cachedKernel();
  const kernel = host ? "(host)" : (str("kernel") ?? defaultKernelImage());
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  const levels = { modes: p.modes as PreemptMode[], pages: p.pages as PageLevel[], extensions: p.extensions as ExtLevel[] };
  const common = {
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
    timeoutS: p.timeout === undefined ? undefined : num("timeout"),
    onConsole: consoleLines(ctx.log),
  };
  const r: MechanismRun = host
    ? await runMechanismOnHost({ ...common, modes: undefined })
    : await runMechanismInVm({
        ...common,
        kernel,
        kernelRelease: rec?.version,
        accel: p.accel as Accel,
        cpus: num("cpus"),
        memMiB: num("mem"),
        attribute: p.attribute === true,
        schedFeatures: words("sched_features", /,/),
        extraMicroArgs: words("micro_args", /\s+/),
      });
  if (r.rows.length === 0) {
    throw new UserError(`no run produced a row (${host ? "host" : "VM"} exit ${r.vm.exitStatus ?? "none"}${r.vm.timedOut ? ", timed out" : ""}; ${r.guest.notes ?? ""} ${r.failed.slice(0, 3).map((f) => `${f.run}: ${f.reason}`).join("; ")}); raw files in ${r.rawDir}`);
  }
  writeMicroFiles(ctx.out, r, {
    command: driverCommand(p, "mechanism-micro"),
    started,
    ended: new Date().toISOString(),
    loadStart,
    loadEnd: loadAverage(),
    design: { blocks: num("blocks"), seed: num("seed"), factors: { mode: r.levels.modes, pages: r.levels.pages, extension: r.levels.extensions } },
  }, { host, accel: host ? "host" : String(p.accel), kernel, rec });
  ctx.log(`${r.rows.length} runs with a row, ${r.failed.length} without (${r.failed.map((f) => `${f.run}: ${f.reason}`).join("; ") || "none"})`);
  // on this machine's kernel the runner's own envelope (this host, its kernel) is the true one
  return { binDirs: [], envelope: host ? undefined : mechanismEnvelope(ctx.out) };
}
