import { welchTTest } from "./welch.js";

/** The three verdicts of a comparison of B against A. */
export type Verdict = "B higher" | "B lower" | "no significant difference";

/** A verdict with the p-value it rests on. */
export interface VerdictResult {
  verdict: Verdict;
  p: number;
}

/** A rule that turns two samples into a verdict (used by leave-one-out). */
export type VerdictRule = (a: readonly number[], b: readonly number[]) => VerdictResult;

/** The default rule: Welch's two-sided p below alpha, direction from the sign of mean B − mean A. */
export function welchVerdict(alpha = 0.05): VerdictRule {
  return (a, b) => {
    const w = welchTTest(a, b, alpha);
    if (w.p < alpha) return { verdict: w.difference > 0 ? "B higher" : "B lower", p: w.p };
    return { verdict: "no significant difference", p: w.p };
  };
}
