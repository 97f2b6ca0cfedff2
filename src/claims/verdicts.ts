/**
 * The verdict vocabulary of the claims ledger and the rules that choose a verdict.
 *
 * A verdict is never typed in by hand: every ledger entry gets it from one of the
 * decision functions below, applied to numbers recomputed from the posted data.
 * The vocabulary is small and fixed so that a reader can compare entries:
 *
 * | verdict              | meaning |
 * | -------------------- | ------- |
 * | `recomputed`         | The posted arithmetic holds: the published figure recomputes from the posted raw numbers within the precision it was printed with (or the rounding of its inputs); for a claimed effect: every test applied to the posted runs finds it at the chosen α, and leaving out any one run does not change that. Says nothing about whether the effect happens again. |
 * | `not recomputed`     | The recomputation from the posted numbers differs from the published figure beyond that precision, or the posted data contradict the claim (or the assumption its arithmetic rests on). |
 * | `reproduced`         | Our own runs (a record under data/runs/) show the effect: every test applied finds it at α and no single run changes that. |
 * | `not reproduced`     | Our own runs find the effect significant in the opposite direction. |
 * | `not yet reproduced` | The claim is about an effect the posts give no numbers to check, and our runs have not shown it yet: not run, or run only in a VM under TCG (functional evidence). |
 * | `not significant`    | The claimed effect is not distinguishable from the run-to-run noise: no test applied finds it at α, the bootstrap interval holds "no effect" for every seed tried, and no single run changes that (inconclusive, not "no effect"). |
 * | `fragile`            | Whether the effect is "found" depends on one run (leaving it out flips the primary test), on which test is used (a normal-theory test and its robust counterpart, or a test and the bootstrap interval, disagree) or on the bootstrap's seed (the interval excludes "no effect" for some seeds, not others). |
 * | `consistent`         | The posted numbers agree with the claim but cannot establish it: the claim is about a cause, or rests on an excerpt or a single measurement per side. |
 * | `not checkable`      | The posts do not contain what a check needs (e.g. one figure per side, no runs, no spread). |
 *
 * What our runs say about a claim of the posts is a separate field of each entry
 * (`reproduction`, src/claims/entry.ts), so a `recomputed` verdict is never read as a reproduction.
 */
import type { Interval } from "../stats/interval.js";

export const VERDICTS = [
  "recomputed",
  "not recomputed",
  "reproduced",
  "not reproduced",
  "not yet reproduced",
  "not significant",
  "fragile",
  "consistent",
  "not checkable",
] as const;

export type Verdict = (typeof VERDICTS)[number];

/** One sentence per verdict, for legends in tables, notebooks and the report. */
export const VERDICT_MEANINGS: Readonly<Record<Verdict, string>> = {
  recomputed:
    "the posted arithmetic holds: recomputed from the posted numbers within the printed precision; for an effect: every test applied to the posted runs finds it, whichever run is left out (not a reproduction)",
  "not recomputed":
    "the recomputation from the posted numbers differs beyond the printed precision, or the posted data contradict the claim or the assumption behind its arithmetic",
  reproduced: "our own runs (a record under data/runs/) show the effect: every test applied finds it, whichever run is left out",
  "not reproduced": "our own runs find the effect significant in the opposite direction",
  "not yet reproduced": "the posts give no numbers to check it and our runs have not shown it yet (not run, or only in a VM under TCG)",
  "not significant": "inconclusive: not distinguishable from the run-to-run noise by any test applied or by the bootstrap interval (for every seed tried), whichever single run is left out (not evidence of no effect)",
  fragile: "the conclusion depends on a single run, on the choice of test, or on the bootstrap's seed",
  consistent: "the posted numbers agree with the claim but cannot establish it (cause, excerpt, or one measurement per side)",
  "not checkable": "the posts lack what a check needs (e.g. one figure per side, no runs, no spread)",
};

/** An interval [lo, hi] of values (src/stats/interval.ts). */
export type { Interval } from "../stats/interval.js";

/** True when the two closed intervals share at least one point. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.lo <= b.hi && b.lo <= a.hi;
}

/** Whose numbers a verdict rests on: the posted ones (→ recomputed) or our own runs (→ reproduced). */
export type Evidence = "posted" | "ours";

/** The verdict words of an agreeing / contradicting outcome for each kind of evidence. */
function agreeWord(evidence: Evidence): Verdict {
  return evidence === "posted" ? "recomputed" : "reproduced";
}
function contradictWord(evidence: Evidence): Verdict {
  return evidence === "posted" ? "not recomputed" : "not reproduced";
}

/**
 * A published figure against its recomputation: `recomputed` when the interval of
 * values the printed figure can stand for (its rounding or truncation) overlaps the
 * interval the recomputation can take (exact inputs give a zero-width interval;
 * rounded inputs give the range their rounding allows), else `not recomputed`.
 */
export function figureVerdict(published: Interval, recomputed: Interval): Verdict {
  return overlaps(published, recomputed) ? "recomputed" : "not recomputed";
}

/** One statistical test as the verdict rules see it. */
export interface TestOutcome {
  /** Name shown in reasons, e.g. "Welch t". */
  name: string;
  /** Two-sided p-value. */
  p: number;
}

/** The evidence about a claimed effect (a difference of means or a ratio of spreads). */
export interface EffectEvidence {
  /** Significance level, e.g. 0.05. */
  alpha: number;
  /** The tests applied; the first is the primary test that leave-one-out re-runs. */
  tests: TestOutcome[];
  /** Whether the estimate points the way the claim says (e.g. patched mean higher). */
  estimateInClaimedDirection: boolean;
  /**
   * Whether the bootstrap interval excludes "no effect" (0 % difference, SD ratio 1):
   * "seed-dependent" when re-running the bootstrap with other seeds changes the answer
   * (an endpoint at the no-effect value within Monte Carlo error): the conclusion then
   * depends on the seed, which makes the verdict `fragile` whatever the tests say.
   */
  intervalExcludesNoEffect: boolean | "seed-dependent";
  /** Number of runs whose omission flips the primary test's significance at alpha. */
  leaveOneOutFlips: number;
  /** The posted runs of a source (verdict words recomputed / not recomputed) or our own (default). */
  evidence?: Evidence;
}

/**
 * Verdict of a claimed effect:
 * - `not reproduced` (posted runs: `not recomputed`) when a test finds the effect significant in the opposite direction;
 * - `fragile` when the tests (or the bootstrap interval) disagree, when the interval's verdict
 *   depends on the bootstrap seed, or when leaving out one run flips the primary test;
 * - `reproduced` (posted runs: `recomputed`) when every test and the interval find it and no single run matters;
 * - `not significant` when none does (the interval holds "no effect" for every seed) and no single run matters.
 */
export function effectVerdict(e: EffectEvidence): Verdict {
  const significant = e.tests.map((t) => t.p < e.alpha);
  const found = significant.some(Boolean) || e.intervalExcludesNoEffect === true;
  // A seed-dependent interval finds the effect for some seeds and not for others: the answer then
  // depends on the seed, so with no test finding it the verdict is `fragile`, not `not significant`.
  const anySignificant = found || e.intervalExcludesNoEffect === "seed-dependent";
  const allSignificant = significant.every(Boolean) && e.intervalExcludesNoEffect === true;
  const ev = e.evidence ?? "ours";
  if (found && !e.estimateInClaimedDirection) return contradictWord(ev);
  if (e.leaveOneOutFlips > 0) return "fragile";
  if (allSignificant) return agreeWord(ev);
  if (!anySignificant) return "not significant";
  return "fragile";
}

/**
 * Verdict of "a run is an outlier / unusual" claims about a measurement that was
 * discarded: `consistent` when the run is the extreme of its series in the stated
 * direction and an outlier test flags it (the cause the post gives cannot be checked
 * from tps alone), `not reproduced` (posted runs: `not recomputed`) otherwise.
 */
export function outlierVerdict(isExtreme: boolean, flaggedByTest: boolean, evidence: Evidence = "ours"): Verdict {
  return isExtreme && flaggedByTest ? "consistent" : contradictWord(evidence);
}

/**
 * Verdict of a claim that rests on single figures per side: a spread needs at
 * least two runs per side, so fewer is `not checkable`.
 */
export function singleFigureVerdict(runsPerSide: number): Verdict | null {
  return runsPerSide < 2 ? "not checkable" : null;
}
