/**
 * The mechanism factorial's plan: every cell (mode × pages × extension) once per block, shuffled
 * per block with a seeded RNG, each run with its own seed; the micro-benchmark's shape and the
 * options of one planned run.
 */
import { type MicroOptions } from "../../micro/driver.js";
import { blockedPlan, factorial, type PlanSlot } from "../../vm/blocked-plan.js";
import { UserError } from "../../util/errors.js";
import type { ExtLevel, PageLevel, PreemptMode } from "./row.js";

export interface Cell {
  mode: PreemptMode;
  pages: PageLevel;
  extension: ExtLevel;
}

export interface PlannedRun extends Cell, PlanSlot {
  /** The micro-benchmark's shape for this run where it differs from the boot's (the model sweep). */
  shape?: Partial<MicroShape>;
}

/** Every cell once per block, shuffled per block with a seeded RNG; seeds differ per run. */
export function planRuns(o: { blocks: number; modes: readonly PreemptMode[]; pages: readonly PageLevel[]; extensions: readonly ExtLevel[]; seed: number }): PlannedRun[] {
  if (!Number.isInteger(o.blocks) || o.blocks < 1) throw new UserError(`--blocks expects an integer ≥ 1, found ${o.blocks}`);
  const cells = factorial(o.modes, o.pages, o.extensions, (mode, pages, extension): Cell => ({ mode, pages, extension }), "--modes, --pages or --extensions");
  return blockedPlan(cells, o.blocks, o.seed);
}

export interface MicroShape {
  threads: number;
  hogs: number;
  csNs: number;
  durationS: number;
  faultEvery: number;
  regionMiB: number;
  jitterPct: number;
  logMinNs: number;
  /** Uncontended nested acquires in each hold (PostgreSQL takes buffer-header locks under buffer_strategy_lock): with the extension on they re-arm a request the kernel cleared (protocol v2). */
  innerLocks: number;
  /** Pin the micro-benchmark to this many CPUs (a bundle on a machine of any size; the VM's vCPU count does it there). */
  pinCpus?: number;
}

export function defaultShape(o: Partial<MicroShape> = {}): MicroShape {
  return {
    threads: o.threads ?? 2,
    hogs: o.hogs ?? 2,
    csNs: o.csNs ?? 2000,
    durationS: o.durationS ?? 1,
    faultEvery: o.faultEvery ?? 4,
    regionMiB: o.regionMiB ?? 384,
    jitterPct: o.jitterPct ?? 25,
    logMinNs: o.logMinNs ?? 10000,
    innerLocks: o.innerLocks ?? 2,
    ...(o.pinCpus === undefined ? {} : { pinCpus: o.pinCpus }),
  };
}

/** The micro-benchmark's options for one planned run. */
export function runMicroOptions(r: PlannedRun, boot: MicroShape): MicroOptions {
  const s = r.shape ? { ...boot, ...r.shape } : boot;
  return {
    threads: s.threads,
    hogs: s.hogs,
    csNs: s.csNs,
    durationS: s.durationS,
    extension: r.extension,
    faultInCs: { pages: r.pages === "hugetlb" ? "hugetlb" : r.pages === "thp" ? "thp" : "4k", faultEvery: s.faultEvery, regionMiB: s.regionMiB, prefault: r.pages === "4k-prefault" },
    jitterPct: s.jitterPct,
    innerLocks: s.innerLocks,
    seed: r.seed,
    holdLog: "/tmp/slicelab-holds.txt",
    logMinNs: s.logMinNs,
    ...(s.pinCpus === undefined ? {} : { pinCpus: s.pinCpus }),
  };
}
