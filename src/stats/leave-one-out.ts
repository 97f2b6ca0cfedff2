import { welchVerdict, type Verdict, type VerdictRule } from "./verdict.js";

/** The verdict after dropping one run. */
export interface LeaveOneOutDrop {
  side: "A" | "B";
  /** 0-based position of the dropped run in its sample. */
  index: number;
  value: number;
  verdict: Verdict;
  p: number;
}

/** Leave-one-out sensitivity of a verdict. */
export interface LeaveOneOutResult {
  /** Verdict and p with all runs. */
  baseline: Verdict;
  baselineP: number;
  /** Every single-run drop, A's runs first, then B's, in sample order. */
  drops: LeaveOneOutDrop[];
  /** The drops whose verdict differs from the baseline. */
  flips: LeaveOneOutDrop[];
  /** True when at least one single dropped run changes the verdict. */
  fragile: boolean;
}

/**
 * Drops each run in turn (from A, then from B), recomputes the verdict with
 * `rule` (default: Welch p < 0.05 and the sign of the difference) and reports
 * which single runs flip it. A side is only dropped from while it keeps at least
 * two runs.
 */
export function leaveOneOut(
  a: readonly number[],
  b: readonly number[],
  rule: VerdictRule = welchVerdict(0.05),
): LeaveOneOutResult {
  const base = rule(a, b);
  const drops: LeaveOneOutDrop[] = [];
  const sides: ["A" | "B", readonly number[]][] = [
    ["A", a],
    ["B", b],
  ];
  for (const [side, xs] of sides) {
    if (xs.length < 3) continue;
    for (let i = 0; i < xs.length; i++) {
      const rest = xs.filter((_, j) => j !== i);
      const r = side === "A" ? rule(rest, b) : rule(a, rest);
      drops.push({ side, index: i, value: xs[i]!, verdict: r.verdict, p: r.p });
    }
  }
  const flips = drops.filter((d) => d.verdict !== base.verdict);
  return { baseline: base.verdict, baselineP: base.p, drops, flips, fragile: flips.length > 0 };
}
