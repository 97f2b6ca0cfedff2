/**
 * Readings of the patch-cost records (scripts/bench-patch-cost.ts, analysis.json) that notebook 03
 * prints: the sentence on a run-after-run (blocks) design without an A/A arm is chosen by the data
 * (test/analysis-patch-cost.test.ts), not written whatever the sign or size of the difference.
 */

/** One comparison of an analysis.json: cost = (1 − tps ratio) in %, with its 95% interval. */
export interface CostComparison {
  arm: string;
  reference: string;
  costPct: number;
  costCiPct: [number, number];
  verdict?: string | null;
  sdLogPerPair: number;
}

const pct = (x: number): string => `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;

/** "+1.23% (95% CI … ): VERDICT" as notebook 03 prints a comparison. */
export function sayCost(c: CostComparison | undefined): string {
  return c ? `${pct(c.costPct)} (95% CI ${pct(c.costCiPct[0])} … ${pct(c.costCiPct[1])}${c.verdict ? `: ${c.verdict}` : ""})` : "not measured";
}

/**
 * What the switch-off comparison of a design without an A/A arm allows one to say:
 *   interval wholly below 0 (the patched server faster): the switch-off path only adds work, so a
 *     gain is a difference between the two servers, not the patch;
 *   wholly above 0 (slower): a cost or the servers' own difference, which the design cannot separate;
 *   containing 0: not resolved.
 * `onVsOff` (all against off on the same server) is quoted as the comparison free of that doubt.
 */
export function blocksCostReading(off: CostComparison, onVsOff: CostComparison | undefined): string {
  const [lo, hi] = off.costCiPct;
  const same = `all against off on the same server reads ${sayCost(onVsOff)}`;
  if (hi < 0) {
    return `The patched server with the switch off ran faster than the unpatched one (cost ${pct(off.costPct)}, 95% CI wholly below zero). The switch-off path only adds instructions, so a gain comes from the two servers (their binaries' code layout or memory placement, for example), not from the patch; ${same}. This design has no A/A arm to measure the servers' own difference.`;
  }
  if (lo > 0) {
    return `The patched server with the switch off ran slower than the unpatched one (cost ${pct(off.costPct)}, 95% CI wholly above zero); without an A/A arm this design cannot tell the patch's cost from the two servers' own difference; ${same}.`;
  }
  return `The switch-off interval contains zero (cost ${pct(off.costPct)}): this design does not resolve the cost here; ${same}.`;
}
