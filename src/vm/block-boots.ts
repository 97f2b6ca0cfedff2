/**
 * One VM boot per block of a randomised block plan (the mechanism runners, micro and PostgreSQL):
 * each boot gets its own time limit, a boot that cannot start or that times out costs its own block
 * only, and every run that no boot reached says which boot and why. Each boot's exit status is kept
 * under its block (runVm refuses a shared directory that already holds one).
 */
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import type { PlanSlot } from "./blocked-plan.js";
import { runVm, type VmOptions, type VmResult } from "./qemu.js";

interface BlockBoot {
  block: number;
  timedOut: boolean;
  timeoutS: number;
  error?: string;
}

export interface BlockBoots {
  /** The boots as one: the first boot's fields, timed out if any was, the total time, the first non-zero exit. */
  vm: VmResult;
  /** Why a run without a status was not reached. */
  notReached: (runId: string) => string;
}

export async function bootPerBlock<R extends PlanSlot>(
  plan: readonly R[],
  o: { rawDir: string; timeoutS: (runs: R[]) => number; script: (runs: R[]) => string; vm: Omit<VmOptions, "timeoutS" | "outDir" | "command"> },
): Promise<BlockBoots> {
  const blocks = [...new Set(plan.map((r) => r.block))].sort((a, b) => a - b);
  const boots: VmResult[] = [];
  const bootOf = new Map<string, BlockBoot>();
  for (const b of blocks) {
    const runs = plan.filter((r) => r.block === b);
    const timeoutS = o.timeoutS(runs);
    let v: VmResult;
    try {
      v = await runVm({ ...o.vm, timeoutS, outDir: o.rawDir, command: ["sh", "-c", o.script(runs)] });
    } catch (err) {
      // a boot that cannot start costs its own block only; its runs say why
      for (const r of runs) bootOf.set(r.id, { block: b, timedOut: false, timeoutS, error: (err as Error).message });
      continue;
    }
    if (existsSync(join(o.rawDir, "exit-status"))) renameSync(join(o.rawDir, "exit-status"), join(o.rawDir, `exit-status.block-${b}`));
    boots.push(v);
    for (const r of runs) bootOf.set(r.id, { block: b, timedOut: v.timedOut, timeoutS });
  }
  if (boots.length === 0) throw new UserError(`no boot of the ${blocks.length} blocks started: ${[...bootOf.values()][0]?.error ?? "unknown"}`);
  const vm = { ...boots[0]!, timedOut: boots.some((v) => v.timedOut), totalS: boots.reduce((a, v) => a + v.totalS, 0), exitStatus: boots.find((v) => v.exitStatus !== 0)?.exitStatus ?? boots[0]!.exitStatus };
  const notReached = (id: string) => {
    const b = bootOf.get(id);
    return b?.error ? `not reached (the boot of block ${b.block} did not start: ${b.error})` : b?.timedOut ? `not reached (the boot of block ${b.block} timed out after ${b.timeoutS} s)` : "not reached (the guest ended before it)";
  };
  return { vm, notReached };
}
