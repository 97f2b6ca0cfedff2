import type { Comparison } from "../stats/index.js";

/**
 * The figures every "smaller standard deviation" claim records (src/claims/rostedt.ts on the
 * posted runs, src/claims/series.ts on ours), in the ledger's order: the SD ratio, the F-test, the
 * Brown–Forsythe test, the bootstrap interval of the ratio and how many seeds exclude 1, and how
 * many single runs flip the F-test.
 */
export function spreadTestValues(
  c: Pick<Comparison, "fTest" | "brownForsythe">,
  ratio: number,
  boot: { lo: number; hi: number },
  interval: { seedsExcluding: number },
  loo: { flips: readonly unknown[] },
) {
  return {
    sdRatio: ratio,
    fTestF: c.fTest.f,
    fTestP: c.fTest.p,
    brownForsytheW: c.brownForsythe.w,
    brownForsytheP: c.brownForsythe.p,
    bootstrapLo: boot.lo,
    bootstrapHi: boot.hi,
    bootstrapSeedsExcludingOne: interval.seedsExcluding,
    leaveOneOutFlips: loo.flips.length,
  };
}
