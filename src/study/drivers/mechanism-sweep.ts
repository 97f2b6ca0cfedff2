/**
 * The model's validation sweep (study mechanism-model-sweep, issue 26 item 6): in one boot of the
 * kit's kernel, the micro-benchmark with a first touch every f-th section and sections of L ns,
 * over f × L × mode (4 KB pages, extension off), in randomised blocks; each run also measures its
 * own first-touch duration and section length (lhp version 3). Per cell, the observed in-kernel
 * share of holder preemptions beside the model's prediction from the cell's own d and L
 * (src/analysis/mechanism-model.ts): out/model.json and out/rows.json.
 */
import { cachedKernel, defaultKernelImage, hzFragments } from "../../kernel/ensure.js";
import { readDotConfig } from "../../kernel/kconfig.js";
import { loadAverage, kitInfo, hostInfo } from "../../bench/provenance.js";
import { defaultShape, runMechanismInVm, type PlannedRun, type PreemptMode } from "../../drivers/mechanism/index.js";
import { blockedPlan } from "../../vm/blocked-plan.js";
import { rowsCsv, writeRunFiles } from "./mechanism-files.js";
import { sweepCells } from "../../analysis/mechanism-model-sweep.js";
import { consoleLines } from "./mechanism-micro.js";
import type { Accel } from "../../vm/qemu.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { join } from "node:path";
import { existsSync, readFileSync } from "node:fs";
import { readRecord, writeRecord, writeSums } from "../../record/format.js";
import type { DriverContext, DriverResult } from "./index.js";
import { mechanismEnvelope } from "./vm-envelope.js";

export async function mechanismSweep(ctx: DriverContext): Promise<DriverResult> {
  const p = ctx.params;
  const num = (k: string) => p[k] as number;
  const fs = (p.fault_every as string[]).map(Number);
  const ls = (p.cs_ns as string[]).map(Number);
  const modes = p.modes as PreemptMode[];
  const cells: { mode: PreemptMode; pages: "4k"; extension: "off"; shape: { faultEvery: number; csNs: number } }[] = [];
  for (const f of fs) for (const l of ls) for (const m of modes) cells.push({ mode: m, pages: "4k", extension: "off", shape: { faultEvery: f, csNs: l } });
  const plan: PlannedRun[] = blockedPlan(cells, num("blocks"), num("seed"));
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  const wantHz = Number(p.hz ?? "1000");
  const { rec, kernel } = sweepKernel(wantHz);
  const r = await runMechanismInVm({
    kernel, kernelRelease: rec?.version, accel: p.accel as Accel, cpus: 1, blocks: num("blocks"), modes, pages: ["4k"], extensions: ["off"],
    seed: num("seed"), durationS: num("duration"), regionMiB: num("region_mib"), plan, onConsole: consoleLines(ctx.log),
  });
  if (r.rows.length === 0) throw new UserError(`no run produced a row (VM exit ${r.vm.exitStatus ?? "none"}${r.vm.timedOut ? ", timed out" : ""}); raw files in ${r.rawDir}`);
  const byId = new Map(plan.map((x) => [x.id, x]));
  const rows = r.rows.map((row) => ({ ...row, faultEvery: byId.get(row.run)!.shape!.faultEvery!, csNs: byId.get(row.run)!.shape!.csNs! }));
  const hz = r.guest.hz ?? null;
  // The tick is the factor under test: a guest at another HZ than asked would mislabel the record.
  const hzProblem = hzMismatch(wantHz, hz);
  if (hzProblem) throw new UserError(`${hzProblem}; raw files in ${r.rawDir}`);
  writeRunFiles(ctx.out, rows, rowsCsv(rows), {
    what: "the model's validation sweep: first touch every f-th section × section length × mode, 4 KB pages, extension off, in the VM",
    evidence: p.accel === "kvm" ? "KVM guest" : "TCG functional evidence (icount: guest time in guest instructions): counts of where preemptions land; times are emulated",
    command: ["slicelab", "study", "run", "mechanism-model-sweep"],
    started, ended: new Date().toISOString(), loadStart, loadEnd: loadAverage(),
    design: { blocks: num("blocks"), seed: num("seed"), hz: wantHz, factors: { fault_every: fs.map(String), cs_ns: ls.map(String), mode: modes } },
    vm: r.vm, kernel: { release: r.kernelRelease, bzImage: kernel, build: rec ? { version: rec.version, bzImageSha256: rec.bzImageSha256, configSha256: rec.configSha256 } : null, guestConfigSha256: r.guest.configSha256, hz },
    guest: r.guest, shape: defaultShape({ durationS: num("duration"), regionMiB: num("region_mib") }), plan, failed: r.failed, micro: r.micro, rawDir: r.rawDir, kit: kitInfo(), host: hostInfo(),
  });
  writeFileAtomic(join(ctx.out, "model.json"), `${JSON.stringify({ hz, cells: sweepCells(rows, { hz: hz ?? wantHz }) }, null, 2)}\n`);
  ctx.log(`${rows.length} runs with a row, ${r.failed.length} without`);
  return { binDirs: [], envelope: mechanismEnvelope(ctx.out) };
}

/** The kernel the sweep boots at a tick rate: the kit's (HZ 1000) or the hz<N> build of `slicelab prepare hz`. */
export function sweepKernel(hz: number): { rec: ReturnType<typeof cachedKernel>; kernel: string } {
  if (hz === 1000) return { rec: cachedKernel(), kernel: defaultKernelImage() };
  const frags = hzFragments(hz);
  const rec = cachedKernel(frags);
  if (!rec) throw new UserError(`no kernel built at HZ ${hz} in the cache: run \`slicelab prepare hz\` (or \`slicelab kernel configure ${frags.map((f) => `--fragment ${f}`).join(" ")}\` and \`kernel build\` with the same fragments)`);
  // Before a boot of many minutes: the build's own .config must say this HZ.
  const cfg = join(rec.buildDir, ".config");
  const built = existsSync(cfg) ? Number(readDotConfig(readFileSync(cfg, "utf8"), cfg).get("HZ") ?? NaN) : NaN;
  const problem = hzMismatch(hz, Number.isFinite(built) ? built : null, "the build");
  if (problem) throw new UserError(`${cfg}: ${problem}`);
  return { rec, kernel: rec.bzImage };
}

/** Why a kernel's CONFIG_HZ (the guest's from /proc/config.gz, or a build's .config) does not fit the sweep's asked tick rate, or null. */
export function hzMismatch(asked: number, found: number | null | undefined, what = "the guest kernel"): string | null {
  if (found === null || found === undefined) return `${what}'s CONFIG_HZ was not readable, expected ${asked}: the HZ sweep cannot label this record`;
  return found === asked ? null : `${what} has CONFIG_HZ=${found}, expected ${asked} (not the kernel built for HZ ${asked})`;
}

/** Recomputes DIR/out/model.json (a mechanism-model-sweep record) from its rows.json and the guest's HZ in provenance.json. */
export function rewriteSweepModel(dir: string): { hz: number | null; cells: ReturnType<typeof sweepCells> } {
  const out = existsSync(join(dir, "out", "rows.json")) ? join(dir, "out") : dir;
  const rp = join(out, "rows.json");
  if (!existsSync(rp)) throw new UserError(`${rp}: missing (expected a mechanism-model-sweep record directory)`);
  const rows = JSON.parse(readFileSync(rp, "utf8")) as Parameters<typeof sweepCells>[0];
  if (!Array.isArray(rows) || rows.some((r) => typeof (r as { faultEvery?: unknown }).faultEvery !== "number")) throw new UserError(`${rp}: expected the sweep's rows (each with faultEvery and csNs)`);
  const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8")) as { kernel?: { hz?: number | null } };
  const hz = prov.kernel?.hz ?? null;
  const model = { hz, cells: sweepCells(rows, { hz: hz ?? 1000 }) };
  writeFileAtomic(join(out, "model.json"), `${JSON.stringify(model, null, 2)}\n`);
  if (existsSync(join(dir, "record.json"))) {
    const rec = readRecord(dir);
    const note = "out/model.json is recomputed from out/rows.json by `slicelab model DIR` (the analysis may change; the runs do not)";
    if (!rec.notes.includes(note)) rec.notes.push(note);
    writeRecord(dir, rec);
    if (existsSync(join(dir, "SHA256SUMS"))) writeSums(dir);
  }
  return model;
}
