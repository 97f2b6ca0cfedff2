import { welchVerdict, type Verdict, type VerdictRule } from "./verdict.js";
import { dropOne, moments, type Moments } from "./moments.js";

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
 * The moments of `xs` without run i: the O(1) downdate, unless it lost most of
 * M2 to cancellation (the dropped run carried nearly all the spread; at most a
 * few runs can), in which case the remaining runs are summed again.
 */
function without(xs: readonly number[], m: Moments, i: number): Moments {
  const d = dropOne(m, xs[i]!);
  if (d.m2 >= 1e-8 * m.m2) return d;
  return moments(xs.filter((_, j) => j !== i));
}

/**
 * Drops each run in turn (from A, then from B), recomputes the verdict with
 * `rule` (default: Welch p < 0.05 and the sign of the difference) and reports
 * which single runs flip it. A side is only dropped from while it keeps at least
 * two runs. A rule with `fromMoments` (Welch, the F-test) is evaluated on the
 * moments with one run removed, O(1) per drop; any other rule on the n − 1
 * remaining runs, O(n) per drop.
 */
export function leaveOneOut(
  a: readonly number[],
  b: readonly number[],
  rule: VerdictRule = welchVerdict(0.05),
): LeaveOneOutResult {
  const base = rule(a, b);
  const drops: LeaveOneOutDrop[] = [];
  const fast = rule.fromMoments;
  const ma = fast ? moments(a) : null;
  const mb = fast ? moments(b) : null;
  const sides: ["A" | "B", readonly number[]][] = [
    ["A", a],
    ["B", b],
  ];
  for (const [side, xs] of sides) {
    if (xs.length < 3) continue;
    for (let i = 0; i < xs.length; i++) {
      let r;
      if (fast) {
        r = side === "A" ? fast(without(a, ma!, i), mb!) : fast(ma!, without(b, mb!, i));
      } else {
        const rest = xs.filter((_, j) => j !== i);
        r = side === "A" ? rule(rest, b) : rule(a, rest);
      }
      drops.push({ side, index: i, value: xs[i]!, verdict: r.verdict, p: r.p });
    }
  }
  const flips = drops.filter((d) => d.verdict !== base.verdict);
  return { baseline: base.verdict, baselineP: base.p, drops, flips, fragile: flips.length > 0 };
}
