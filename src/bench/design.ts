import { UserError } from "../util/errors.js";
import { mulberry32, mulberry32Indices, shuffledBlocks } from "../stats/prng.js";

/**
 * The order of runs in a series.
 *  - "blocks" (default): randomised complete blocks. Block b holds one run of
 *    every variant in an order drawn from a seeded generator (A B | B A | A B …),
 *    so slow drifts of the machine (thermal state, other users' load) hit every
 *    variant alike and can be taken out by pairing runs within a block.
 *  - "sequential": every run of the first variant, then every run of the next,
 *    as in Rostedt 2023 (16 runs unpatched, reboot, 16 runs patched).
 * Warm-up runs are the first `warmup` blocks (block design) or the first `warmup`
 * runs of each variant (sequential design); they are run and kept but flagged.
 */
export type Design = "blocks" | "sequential";
export const DESIGNS: Design[] = ["blocks", "sequential"];

export interface PlannedRun {
  /** Position in the series, 1-based. */
  index: number;
  /** Block number (block design) or repetition number (sequential), 1-based. */
  block: number;
  variant: string;
  warmup: boolean;
  /** Directory name of the run: NNN-VARIANT. */
  id: string;
}

/**
 * The generator `slicelab bench run` shuffles its blocks with: mulberry32 (src/stats/prng.ts). The
 * plans of every series recorded so far were drawn with it from their seed, so resume and the
 * plan checks re-derive them only with this generator.
 */
export const seededRandom = mulberry32;

export function planSeries(variants: string[], runs: number, warmup: number, design: Design, seed: number): PlannedRun[] {
  if (variants.length === 0) throw new UserError("a series needs at least one variant");
  if (!Number.isInteger(runs) || runs < 1) throw new UserError(`runs: expected an integer ≥ 1, found ${runs}`);
  if (!Number.isInteger(warmup) || warmup < 0 || warmup >= runs) {
    throw new UserError(`warmup: expected an integer from 0 to ${runs - 1} (runs − 1), found ${warmup}`);
  }
  const out: PlannedRun[] = [];
  const push = (block: number, variant: string) => {
    const index = out.length + 1;
    out.push({ index, block, variant, warmup: block <= warmup, id: `${String(index).padStart(3, "0")}-${variant}` });
  };
  if (design === "sequential") {
    for (const v of variants) for (let r = 1; r <= runs; r++) push(r, v);
    return out;
  }
  let b = 0;
  for (const order of shuffledBlocks(variants, runs, mulberry32Indices(seed))) {
    b++;
    for (const v of order) push(b, v);
  }
  return out;
}
