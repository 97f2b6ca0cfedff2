/**
 * The randomised complete block design of the mechanism runs (src/drivers/mechanism/ for the
 * micro-benchmark, src/drivers/mechanism-pg/ for PostgreSQL): every cell of the factorial once per
 * block, in an order shuffled afresh per block, and a seed per run, all from one seeded stream.
 */
import { createRng, shuffledBlocks } from "../stats/prng.js";
import { UserError } from "../util/errors.js";

/** A cell's place in the plan: run id ("001", …), block (1-based), position in the boot (0-based), its seed. */
export interface PlanSlot {
  id: string;
  block: number;
  /** Position in the boot (0-based). */
  order: number;
  seed: number;
}

/**
 * The product of the factors' levels, in the order given (the first factor varies slowest);
 * `what` names the options for the error when a factor has no level.
 */
export function factorial<A, B, C, R>(as: readonly A[], bs: readonly B[], cs: readonly C[], cell: (a: A, b: B, c: C) => R, what: string): R[] {
  const cells: R[] = [];
  for (const a of as) for (const b of bs) for (const c of cs) cells.push(cell(a, b, c));
  if (cells.length === 0) throw new UserError(`the factorial has no cells (empty ${what})`);
  return cells;
}

/** Every cell once per block, shuffled per block by a xoshiro128** stream seeded with `seed`; a seed per run from the same stream. */
export function blockedPlan<C extends object>(cells: readonly C[], blocks: number, seed: number): (C & PlanSlot)[] {
  if (!Number.isInteger(blocks) || blocks < 1) throw new UserError(`--blocks expects an integer ≥ 1, found ${blocks}`);
  const rng = createRng(seed);
  const out: (C & PlanSlot)[] = [];
  let b = 0;
  for (const block of shuffledBlocks(cells, blocks, rng)) {
    for (const c of block) {
      const n = out.length;
      out.push({ ...c, id: String(n + 1).padStart(3, "0"), block: b + 1, order: n, seed: 1 + rng.index(1_000_000) });
    }
    b++;
  }
  return out;
}
