import { welchCore } from "./welch.js";
import { fTestFromMoments } from "./f-test.js";
import { moments, type Moments } from "./moments.js";

/** The three verdicts of a comparison of B against A. */
export type Verdict = "B higher" | "B lower" | "no significant difference";

/** A verdict with the p-value it rests on. */
export interface VerdictResult {
  verdict: Verdict;
  p: number;
}

/**
 * A rule that turns two samples into a verdict (used by leave-one-out). A rule
 * that depends on the samples only through their size, mean and variance also
 * carries `fromMoments`, which leave-one-out uses to drop a run in O(1).
 */
export type VerdictRule = ((a: readonly number[], b: readonly number[]) => VerdictResult) & {
  fromMoments?: (a: Moments, b: Moments) => VerdictResult;
};

/** A rule defined on moments, callable on samples too. */
function momentRule(fromMoments: (a: Moments, b: Moments) => VerdictResult): VerdictRule {
  const rule: VerdictRule = (a, b) => fromMoments(moments(a), moments(b));
  rule.fromMoments = fromMoments;
  return rule;
}

/** The default rule: Welch's two-sided p below alpha, direction from the sign of mean B − mean A. */
export function welchVerdict(alpha = 0.05): VerdictRule {
  return momentRule((a, b) => {
    const w = welchCore(a, b);
    if (w.p < alpha) return { verdict: w.difference > 0 ? "B higher" : "B lower", p: w.p };
    return { verdict: "no significant difference", p: w.p };
  });
}

/** The rule for spreads: the two-sided F-test at alpha, "B lower" when B's variance is the smaller. */
export function fTestVerdict(alpha = 0.05): VerdictRule {
  return momentRule((a, b) => {
    const f = fTestFromMoments(a, b);
    if (f.p < alpha) return { verdict: f.f < 1 ? "B lower" : "B higher", p: f.p };
    return { verdict: "no significant difference", p: f.p };
  });
}
