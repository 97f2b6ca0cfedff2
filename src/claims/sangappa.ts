/**
 * Claims of Sangappa 2024 ("[RFC PATCH 0/4] Scheduler time slice extension",
 * Message-ID <20241113000126.967713-1-prakash.sangappa@oracle.com>): two tests, one
 * figure per side each, printed in thousands ("182K SQL exec/sec") with the stated
 * improvement rounded to a whole percent.
 */
import { claimEntry, type ClaimEntry } from "./entry.js";
import { fmt, fmtInt, fmtInterval, fmtSignedPct, roundedInterval } from "./numbers.js";
import { figureVerdict, singleFigureVerdict, type Interval } from "./verdicts.js";

/** One of Sangappa's tests as posted. */
export interface SangappaTest {
  /** Short stable key used in claim ids, e.g. "lock-table", "swingbench". */
  key: string;
  /** The test's name in the post. */
  name: string;
  /** Throughput without / with the extension, in `unit` (182000 for "182K"). */
  without: number;
  with: number;
  /** The figures as printed ("182K"). */
  withoutPrinted: string;
  withPrinted: string;
  /** Value of one unit in the last printed place (1000 for "182K"): the figures are ±½ of it. */
  resolution: number;
  /** Unit, e.g. "SQL exec/sec". */
  unit: string;
  /** The improvement the post states, in % (44 for "44% improvement"). */
  statedImprovementPct: number;
  /** Digits after the decimal point of the stated improvement (0 for "44%"). */
  statedDecimals: number;
  /** Measurements behind each figure (1: a single figure per side, nothing about repetition is posted). */
  runsPerSide: number;
}

/** Improvement in % of `without`: 100·(with − without)/without. */
export function improvementPct(without: number, withExt: number): number {
  return (100 * (withExt - without)) / without;
}

/**
 * The range of improvements the rounded figures allow: both figures may be off by
 * half a unit in the last printed place, so the ratio ranges from
 * (with − h)/(without + h) to (with + h)/(without − h).
 */
export function improvementBounds(t: Pick<SangappaTest, "without" | "with" | "resolution">): Interval {
  const h = t.resolution / 2;
  return { lo: improvementPct(t.without + h, t.with - h), hi: improvementPct(t.without - h, t.with + h) };
}

/**
 * One entry per stated improvement, plus one for "This clearly shows there is benefit".
 * `extensionUs`: the extension the post used (50 µs), for the claim text.
 */
export function sangappaClaims(tests: readonly SangappaTest[], extensionUs: number): ClaimEntry[] {
  const out: ClaimEntry[] = [];
  for (const t of tests) {
    const exact = improvementPct(t.without, t.with);
    const bounds = improvementBounds(t);
    const stated = roundedInterval(t.statedImprovementPct, t.statedDecimals);
    const verdict = figureVerdict(stated, bounds);
    const statedText = `${fmt(t.statedImprovementPct, t.statedDecimals)}%`;
    out.push(
      claimEntry({
        id: `sangappa-2024/${t.key}-improvement`,
        source: "sangappa-2024",
        claim: `${t.name}: "${statedText} improvement" with the ${extensionUs} µs time-slice extension`,
        published: `${t.withoutPrinted} → ${t.withPrinted} ${t.unit}; ${statedText}`,
        recomputed: `${fmt(exact, 2)}% (${t.withPrinted}/${t.withoutPrinted} − 1)`,
        uncertainty:
          `rounding of the printed figures only: ${fmtInterval(bounds, 2, "%")}; ` +
          `no statistical uncertainty can be computed from one figure per side`,
        verdict,
        reason:
          verdict === "recomputed"
            ? `the stated ${statedText} (i.e. ${fmtInterval(stated, t.statedDecimals + 1, "%")}) lies within what the rounded figures allow, ${fmtInterval(bounds, 2, "%")}`
            : `the stated ${statedText} is outside what the rounded figures allow, ${fmtInterval(bounds, 2, "%")}`,
        basis: `(with − without)/without from the two printed figures, each taken as ±${fmtInt(t.resolution / 2)} ${t.unit} (half its last printed unit)`,
        values: {
          without: t.without,
          with: t.with,
          statedPct: t.statedImprovementPct,
          recomputedPct: exact,
          boundLoPct: bounds.lo,
          boundHiPct: bounds.hi,
        },
      }),
    );
  }
  const runs = Math.min(...tests.map((t) => t.runsPerSide));
  const verdict = singleFigureVerdict(runs) ?? "consistent";
  out.push(
    claimEntry({
      id: "sangappa-2024/clearly-shows-benefit",
      source: "sangappa-2024",
      claim: `"This clearly shows there is benefit." (both tests)`,
      published: tests.map((t) => `${t.name}: ${t.withoutPrinted} → ${t.withPrinted}`).join("; "),
      recomputed: tests.map((t) => `${t.name} ${fmtSignedPct(improvementPct(t.without, t.with), 1)}`).join(", "),
      uncertainty: null,
      verdict,
      reason:
        verdict === "not checkable"
          ? `one figure per side (${runs} measurement posted), no spread or repetition: the gain cannot be set against run-to-run noise`
          : `${runs} measurements per side posted`,
      basis: "the post gives one throughput per configuration and test; Swingbench is proprietary and the lock-table test is not published",
      values: { runsPerSide: runs },
    }),
  );
  return out;
}
