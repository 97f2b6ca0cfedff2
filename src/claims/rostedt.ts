/**
 * Claims of Rostedt 2023 ("Re: [POC][RFC][PATCH v2] sched: Extended Scheduler Time
 * Slice", pgbench -c 100 -T 300 -j 8 -S -n, runs per side with the first discarded):
 * the printed Average / Std Dev, "noticeable beyond the noise", "the standard
 * deviation was much smaller", the discarded cold first run, and the overlap of the
 * two ranges after the slow kernel options were removed.
 */
import { brownForsythe, fTestVariances, mean, sd, summary, type BootstrapResult, type Comparison } from "../stats/index.js";
import { claimEntry, type ClaimEntry } from "./entry.js";
import { spreadTestValues } from "./spread.js";
import { fmt, fmtInterval, fmtP, fmtSignedPct, printedInterval, roundTo } from "./numbers.js";
import { effectVerdict, figureVerdict, outlierVerdict, type Verdict } from "./verdicts.js";
import { postedRunNumber, oneSidedP, populationSd, printedAs, grubbs, rankFromLowest, seedCheckBootstraps, bootstrapExclusion, spreadAnalysis, disagreementText, rostedtComparison, type RostedtData, type RostedtOptions, type SeedCheckedExclusion } from "./rostedt-analysis.js";
export { postedRunNumber, oneSidedP, populationSd, printedAs, grubbs, rankFromLowest, SEED_CHECKS, seedCheckBootstraps, bootstrapExclusion, spreadAnalysis, rostedtComparison, fTestRule, type PrintedFigure, type RostedtSide, type RostedtData, type RostedtOptions, type GrubbsResult, type SeedCheckedExclusion } from "./rostedt-analysis.js";

function statEntries(d: RostedtData): ClaimEntry[] {
  const out: ClaimEntry[] = [];
  for (const [key, side] of [
    ["unpatched", d.unpatched],
    ["patched", d.patched],
  ] as const) {
    const m = mean(side.runs);
    const n = side.runs.length;
    const pa = side.reportedAverage;
    const verdictM = figureVerdict(printedInterval(pa.value, pa.decimals), { lo: m, hi: m });
    const howM = printedAs(m, pa);
    out.push(
      claimEntry({
        id: `rostedt-2023/average-${key}`,
        source: "rostedt-2023",
        claim: `"Average" tps ${side.label} over the ${n} kept runs`,
        published: `Average: ${fmt(pa.value, pa.decimals)}`,
        recomputed: `${fmt(m, 6)} (mean of the ${n} posted runs)`,
        uncertainty: null,
        verdict: verdictM,
        reason:
          verdictM === "recomputed"
            ? `the mean of the ${n} runs, ${howM} to ${pa.decimals} decimals, is the printed figure` +
              (howM === "truncated" ? ` (rounding would print ${fmt(roundTo(m, pa.decimals), pa.decimals)})` : "")
            : `the mean of the ${n} runs is ${fmt(m, pa.decimals + 2)}, not ${fmt(pa.value, pa.decimals)} (off by ${fmt(m - pa.value, pa.decimals + 2)})`,
        basis: `arithmetic mean of the ${n} "tps = … (without initial connection time)" lines after the first run, ${side.label}`,
        values: { n: side.runs.length, published: pa.value, recomputed: m, difference: m - pa.value },
      }),
    );
    const s = sd(side.runs);
    const ps = populationSd(side.runs);
    const p = side.reportedStdDev;
    const pubIv = printedInterval(p.value, p.decimals);
    const verdictS = figureVerdict(pubIv, { lo: s, hi: s });
    const popMatches = figureVerdict(pubIv, { lo: ps, hi: ps }) === "recomputed";
    const howS = printedAs(s, p);
    out.push(
      claimEntry({
        id: `rostedt-2023/std-dev-${key}`,
        source: "rostedt-2023",
        claim: `"Std Dev" of tps ${side.label} over the ${n} kept runs`,
        published: `Std Dev: ${fmt(p.value, p.decimals)}`,
        recomputed: `${fmt(s, 6)} (sample SD, divisor n − 1); population SD (divisor n) ${fmt(ps, 4)}`,
        uncertainty: null,
        verdict: verdictS,
        reason:
          verdictS === "recomputed"
            ? `the sample SD (n − 1), ${howS} to ${p.decimals} decimals, is the printed figure` +
              (howS === "truncated" ? ` (rounding would print ${fmt(roundTo(s, p.decimals), p.decimals)})` : "") +
              `; the population SD would be ${fmt(ps, p.decimals)}`
            : popMatches
              ? `the printed figure is the population SD (divisor n), ${fmt(ps, p.decimals)}; the sample SD is ${fmt(s, p.decimals)}`
              : `neither the sample SD ${fmt(s, p.decimals)} nor the population SD ${fmt(ps, p.decimals)} gives ${fmt(p.value, p.decimals)}`,
        basis: `standard deviation of the same ${n} runs, ${side.label}; both n − 1 and n divisors tried`,
        values: { n: side.runs.length, published: p.value, sampleSd: s, populationSd: ps },
      }),
    );
  }
  return out;
}

function firstRunEntry(d: RostedtData, alpha: number): ClaimEntry {
  const sides = [d.unpatched, d.patched].map((side) => {
    const s = summary(side.runs);
    const all = [side.first, ...side.runs];
    const z = (side.first - s.mean) / s.sd;
    const g = grubbs(all, alpha);
    return {
      side,
      z,
      rank: rankFromLowest(side.first, all),
      n: all.length,
      belowPct: (100 * (side.first - s.mean)) / s.mean,
      grubbs: g,
      flagged: g.outlier && g.index === 0,
      // The lowest of the kept runs, and how far below their mean it is, for comparison.
      keptMin: s.min,
      keptMinZ: (s.min - s.mean) / s.sd,
    };
  });
  const isExtreme = sides.every((x) => x.rank === 1);
  const flagged = sides.every((x) => x.flagged);
  const verdict = outlierVerdict(isExtreme, flagged, "posted");
  const [u, p] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const part = (x: typeof u) =>
    `${x.side.label}: ${fmt(x.side.first, 2)} tps, ${fmt(x.z, 2)} SD (${fmtSignedPct(x.belowPct, 2)}) from the mean of the ${x.n - 1} kept runs, rank ${x.rank} of ${x.n}`;
  const grubbsText = (x: typeof u) =>
    `G = ${fmt(x.grubbs.g, 2)} vs critical ${fmt(x.grubbs.critical, 2)} (n = ${x.grubbs.n}, α = ${alpha}), most extreme = ${x.grubbs.index === 0 ? "the first run" : `run ${x.grubbs.index}`}`;
  return claimEntry({
    id: "rostedt-2023/first-run-cold",
    source: "rostedt-2023",
    claim: `"I threw out the first run as it had horrible numbers probably due to everything in cold cache" (both sides)`,
    published: `first runs ${fmt(u.side.first, 6)} (${u.side.label}) and ${fmt(p.side.first, 6)} (${p.side.label})`,
    recomputed: `${part(u)}; ${part(p)}`,
    uncertainty: `Grubbs' test on all runs of each side: ${u.side.label} ${grubbsText(u)}; ${p.side.label} ${grubbsText(p)}`,
    verdict,
    reason:
      verdict === "consistent"
        ? `on both sides the first run is the lowest of its ${u.n} runs and a Grubbs outlier, as a cold start would give; the cause (cold cache) is not in the data. ` +
          `Among the kept ${u.side.label} runs, the lowest (${fmt(u.keptMin, 2)}) is itself ${fmt(u.keptMinZ, 2)} SD from their mean`
        : `the first run is not ${isExtreme ? "an outlier by Grubbs' test" : "the lowest run"} on ${sides.filter((x) => !(x.rank === 1 && x.flagged)).map((x) => x.side.label).join(" and ")}`,
    basis: "z = (first − mean of the kept runs)/SD of the kept runs; rank among all runs of the side from the lowest; Grubbs on all runs of the side",
    values: {
      unpatchedFirst: u.side.first,
      unpatchedZ: u.z,
      unpatchedRank: u.rank,
      unpatchedGrubbsG: u.grubbs.g,
      unpatchedGrubbsCritical: u.grubbs.critical,
      patchedFirst: p.side.first,
      patchedZ: p.z,
      patchedRank: p.rank,
      patchedGrubbsG: p.grubbs.g,
      patchedGrubbsCritical: p.grubbs.critical,
      unpatchedKeptMinZ: u.keptMinZ,
    },
  });
}

/**
 * The figures every "difference beyond the noise" entry records (published and series ledgers alike),
 * in a fixed key order: Welch, Mann–Whitney, the seeded bootstrap and leave-one-out.
 */
export function differenceValues(c: Comparison, interval: SeedCheckedExclusion): Record<string, number> {
  return {
    differenceTps: c.welch.difference,
    differencePct: c.welch.differencePct,
    welchT: c.welch.t,
    welchDf: c.welch.df,
    welchP: c.welch.p,
    welchCiLoPct: c.welch.ciPct[0],
    welchCiHiPct: c.welch.ciPct[1],
    mannWhitneyU: c.mannWhitney.u,
    mannWhitneyP: c.mannWhitney.p,
    bootstrapLoPct: c.bootstrap.meanDiffPct.lo,
    bootstrapHiPct: c.bootstrap.meanDiffPct.hi,
    bootstrapSeedsExcludingZero: interval.seedsExcluding,
    leaveOneOutFlips: c.leaveOneOut.flips.length,
  };
}

function differenceEntry(d: RostedtData, c: Comparison, o: RostedtOptions, boots: readonly BootstrapResult[]): ClaimEntry {
  const boot = c.bootstrap.meanDiffPct;
  const loo = c.leaveOneOut;
  const tests = [
    { name: "Welch t", p: c.welch.p },
    { name: "Mann–Whitney U", p: c.mannWhitney.p },
  ];
  const interval = bootstrapExclusion(boots, "meanDiffPct", 0);
  const verdict: Verdict = effectVerdict({
    alpha: o.alpha,
    tests,
    estimateInClaimedDirection: c.welch.difference > 0,
    intervalExcludesNoEffect: interval.excludes,
    leaveOneOutFlips: loo.flips.length,
    evidence: "posted",
  });
  // His claim has a direction (patched faster): the one-sided p-values in that direction.
  const welchOneSided = oneSidedP(c.welch.p, c.welch.difference > 0);
  const mwOneSided = oneSidedP(c.mannWhitney.p, c.mannWhitney.uB > c.mannWhitney.u);
  const oneSidedSig = [welchOneSided < o.alpha, mwOneSided < o.alpha];
  const oneSidedText =
    `one-sided in the claimed direction (patched faster): Welch p = ${fmtP(welchOneSided)}, Mann–Whitney p = ${fmtP(mwOneSided)}` +
    (oneSidedSig[0] === oneSidedSig[1]
      ? oneSidedSig[0]
        ? ` (both below α = ${o.alpha})`
        : ` (neither below α = ${o.alpha})`
      : ` (${oneSidedSig[1] ? "only Mann–Whitney" : "only Welch"} below α = ${o.alpha}: the tests disagree)`);
  const welchCi = fmtInterval({ lo: c.welch.ciPct[0], hi: c.welch.ciPct[1] }, 2, "%");
  const minDrop = loo.drops.reduce((best, x) => (x.p < best.p ? x : best), loo.drops[0]!);
  const maxDrop = loo.drops.reduce((best, x) => (x.p > best.p ? x : best), loo.drops[0]!);
  const sideLabel = (s: "A" | "B") => (s === "A" ? d.unpatched.label : d.patched.label);
  const observed = c.power.runsNeeded[0]!;
  const conf = `${fmt(100 * c.bootstrap.confidence, 0)}%`;
  const testsText = `two-sided: Welch p = ${fmtP(c.welch.p)}, Mann–Whitney p = ${fmtP(c.mannWhitney.p)}, bootstrap ${conf} CI ${fmtInterval(boot, 3, "%")}`;
  const seedNote =
    interval.excludes === "seed-dependent"
      ? `; the bootstrap interval's end sits at 0 (it excludes 0 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds)`
      : "";
  const flipsText = loo.flips.map((f) => `${sideLabel(f.side)} run ${postedRunNumber(f.index)} (${fmt(f.value, 2)})`).join(", ");
  let reason: string;
  if (verdict === "recomputed") reason = `${testsText}; ${oneSidedText}; no single run changes that`;
  else if (verdict === "not significant")
    reason =
      `inconclusive: ${testsText}, so the ${fmtSignedPct(c.welch.differencePct, 3)} difference is not distinguishable from the run-to-run noise, ` +
      `which is not evidence of no effect: the Welch ${conf} CI ${welchCi} holds both 0 and gains up to ${fmt(c.welch.ciPct[1], 2)}% (${fmt(c.welch.ciPct[1] / c.welch.differencePct, 1)}× the estimate)${seedNote}; ` +
      `${oneSidedText}; no single left-out run makes two-sided Welch significant (p from ${fmtP(minDrop.p)} to ${fmtP(maxDrop.p)}); ` +
      `${c.a.n === c.b.n ? `${c.a.n} runs per side` : `${c.a.n} and ${c.b.n} runs`} detect ${fmt(c.power.minimumDetectableEffectPct, 2)}% at ${fmt(100 * c.power.power, 0)}% power`;
  else if (verdict === "fragile")
    reason =
      loo.flips.length > 0
        ? `${testsText}; ${oneSidedText}; leaving out ${flipsText} changes Welch's verdict`
        : `${testsText}: ${disagreementText(tests, o.alpha, interval)}, so whether the ${fmtSignedPct(c.welch.differencePct, 3)} difference is beyond the run-to-run noise depends on the analysis; ` +
          `the Welch ${conf} CI ${welchCi} holds both 0 and gains up to ${fmt(c.welch.ciPct[1], 2)}% (${fmt(c.welch.ciPct[1] / c.welch.differencePct, 1)}× the estimate); ` +
          `${oneSidedText}; no single left-out run makes two-sided Welch significant (p from ${fmtP(minDrop.p)} to ${fmtP(maxDrop.p)}); ` +
          `${c.a.n === c.b.n ? `${c.a.n} runs per side` : `${c.a.n} and ${c.b.n} runs`} detect ${fmt(c.power.minimumDetectableEffectPct, 2)}% at ${fmt(100 * c.power.power, 0)}% power`;
  else reason = `${testsText}: the difference points the other way`;
  return claimEntry({
    id: "rostedt-2023/difference-beyond-noise",
    source: "rostedt-2023",
    claim: `"it definitely made a difference. Not a huge one, but it was noticeable beyond the noise" (patched vs unpatched mean tps)`,
    published: `Average ${fmt(d.unpatched.reportedAverage.value, d.unpatched.reportedAverage.decimals)} → ${fmt(d.patched.reportedAverage.value, d.patched.reportedAverage.decimals)}`,
    recomputed: `${fmtSignedPct(c.welch.differencePct, 3)} (${fmt(c.welch.difference, 2)} tps); Welch t = ${fmt(c.welch.t, 3)}, df = ${fmt(c.welch.df, 1)}, p = ${fmtP(c.welch.p)}; Mann–Whitney U = ${fmt(c.mannWhitney.u, 0)}, p = ${fmtP(c.mannWhitney.p)}`,
    uncertainty: `bootstrap ${conf} CI of the difference ${fmtInterval(boot, 3, "%")} (seed ${c.bootstrap.seed}, ${c.bootstrap.resamples} resamples; excludes 0 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds); Welch ${conf} CI ${fmtInterval({ lo: c.welch.ciPct[0], hi: c.welch.ciPct[1] }, 3, "%")}`,
    verdict,
    reason,
    basis:
      `${c.a.n === c.b.n ? `the ${c.a.n} kept runs per side` : `the ${c.a.n} and ${c.b.n} kept runs`}; α = ${o.alpha}; the verdict uses the two-sided tests (the one-sided p-values are reported beside them, halving the two-sided p in the estimate's direction); leave-one-out drops each of the ${c.a.n + c.b.n} runs in turn and re-runs Welch; ` +
      `power from the observed SDs: ${observed.runsPerSide ?? `more than a million`} runs per side would detect the observed ${fmt(observed.effectPct, 3)}% at ${fmt(100 * c.power.power, 0)}% power`,
    values: {
      ...differenceValues(c, interval),
      welchOneSidedP: welchOneSided,
      mannWhitneyOneSidedP: mwOneSided,
      leaveOneOutMinP: minDrop.p,
      leaveOneOutMaxP: maxDrop.p,
      minimumDetectableEffectPct: c.power.minimumDetectableEffectPct,
      runsNeededForObserved: observed.runsPerSide,
    },
  });
}

function spreadEntry(d: RostedtData, c: Comparison, o: RostedtOptions, boots: readonly BootstrapResult[]): ClaimEntry {
  const a = d.unpatched.runs;
  const b = d.patched.runs;
  const { ratio, boot, loo, tests, interval } = spreadAnalysis(a, b, c, o.alpha, boots);
  const verdict = effectVerdict({
    alpha: o.alpha,
    tests,
    estimateInClaimedDirection: ratio < 1,
    intervalExcludesNoEffect: interval.excludes,
    leaveOneOutFlips: loo.flips.length,
    evidence: "posted",
  });
  // The unpatched run farthest from its mean, and the spread tests without it.
  const m = mean(a);
  let k = 0;
  for (let i = 1; i < a.length; i++) if (Math.abs(a[i]! - m) > Math.abs(a[k]! - m)) k = i;
  const aWithout = a.filter((_, i) => i !== k);
  const fWithout = fTestVariances(aWithout, b);
  const bfWithout = brownForsythe(aWithout, b);
  const ratioWithout = sd(b) / sd(aWithout);
  const outlierZ = (a[k]! - m) / sd(a);
  const conf = `${fmt(100 * c.bootstrap.confidence, 0)}%`;
  const flipsText = loo.flips.map((f) => `${f.side === "A" ? d.unpatched.label : d.patched.label} run ${postedRunNumber(f.index)} (${fmt(f.value, 2)})`).join(", ");
  const core =
    `F-test p = ${fmtP(c.fTest.p)}, Brown–Forsythe p = ${fmtP(c.brownForsythe.p)}, bootstrap ${conf} CI of the SD ratio ${fmtInterval(boot, 3)}`;
  const reasons: Record<Verdict, string> = {
    recomputed: `${core}; no single run changes the F-test's verdict`,
    reproduced: core,
    "not yet reproduced": core,
    "not recomputed": `${core}: the patched side varies more`,
    fragile:
      `${core}: ${disagreementText(tests, o.alpha, interval)}` +
      (loo.flips.length > 0 ? `; leaving out ${flipsText} makes the F-test ${c.fTest.p < o.alpha ? "non-significant" : "significant"}` : ""),
    "not significant": `${core}: no test separates the spreads`,
    "not reproduced": `${core}: the patched side varies more`,
    consistent: core,
    "not checkable": core,
  };
  return claimEntry({
    id: "rostedt-2023/smaller-std-dev",
    source: "rostedt-2023",
    claim: `"with the patch, the standard deviation was much smaller than without the patch"`,
    published: `Std Dev ${fmt(d.unpatched.reportedStdDev.value, d.unpatched.reportedStdDev.decimals)} → ${fmt(d.patched.reportedStdDev.value, d.patched.reportedStdDev.decimals)}`,
    recomputed:
      `SD ratio patched/unpatched ${fmt(ratio, 3)}; F = ${fmt(c.fTest.f, 4)}, p = ${fmtP(c.fTest.p)}; Brown–Forsythe W = ${fmt(c.brownForsythe.w, 3)}, p = ${fmtP(c.brownForsythe.p)}. ` +
      `Without unpatched run ${postedRunNumber(k)} (${fmt(a[k]!, 2)}, ${fmt(outlierZ, 2)} SD from the kept runs' mean): SD ratio ${fmt(ratioWithout, 3)}, F-test p = ${fmtP(fWithout.p)}, Brown–Forsythe p = ${fmtP(bfWithout.p)}`,
    uncertainty: `bootstrap ${conf} CI of the SD ratio ${fmtInterval(boot, 3)} (seed ${c.bootstrap.seed}, ${c.bootstrap.resamples} resamples; excludes 1 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds)`,
    verdict,
    reason: reasons[verdict],
    basis:
      `${c.a.n === c.b.n ? `the ${c.a.n} kept runs per side` : `the ${c.a.n} and ${c.b.n} kept runs`}; runs numbered in the post's order (the discarded first run is run 1); α = ${o.alpha}; the F-test assumes normal data and is driven by one low unpatched run; ` +
      `Brown–Forsythe (Levene on |x − median|) is the robust check; leave-one-out re-runs the F-test without each run`,
    values: {
      ...spreadTestValues(c, ratio, boot, interval, loo),
      outlierRun: postedRunNumber(k),
      outlierTps: a[k]!,
      outlierZ,
      sdRatioWithoutOutlier: ratioWithout,
      fTestPWithoutOutlier: fWithout.p,
      brownForsythePWithoutOutlier: bfWithout.p,
    },
  });
}

function overlapEntry(d: RostedtData): ClaimEntry {
  const worstPatched = Math.min(...d.patched.runs);
  const bestUnpatched = Math.max(...d.unpatched.runs);
  const unpatchedAbove = d.unpatched.runs.filter((x) => x > worstPatched).length;
  const patchedBelow = d.patched.runs.filter((x) => x < bestUnpatched).length;
  // The claim: after the rerun, "the worse performance with the patch was better than the
  // best performance without it" was no longer the case, i.e. the ranges overlap.
  const overlap = worstPatched <= bestUnpatched;
  const verdict: Verdict = overlap ? "recomputed" : "not recomputed";
  return claimEntry({
    id: "rostedt-2023/ranges-overlap",
    source: "rostedt-2023",
    claim: `"with the slower kernel, the worse performance with the patch was better than the best performance without it … After removing the slowdown, that was no longer the case"`,
    published: "no figures (the slower-kernel runs were not posted)",
    recomputed: `worst patched run ${fmt(worstPatched, 2)} vs best unpatched run ${fmt(bestUnpatched, 2)}; ${unpatchedAbove} of ${d.unpatched.runs.length} unpatched runs beat the worst patched run, ${patchedBelow} of ${d.patched.runs.length} patched runs fall below the best unpatched run`,
    uncertainty: null,
    verdict,
    reason: overlap
      ? `the posted runs overlap: the best unpatched run is ${fmt(bestUnpatched - worstPatched, 2)} tps above the worst patched run; the slower-kernel statement cannot be checked (those runs were not posted)`
      : `the worst patched run is above the best unpatched run, so the ranges still do not overlap`,
    basis: `min of the ${d.patched.runs.length} kept patched runs against max of the ${d.unpatched.runs.length} kept unpatched runs`,
    values: { worstPatched, bestUnpatched, unpatchedAboveWorstPatched: unpatchedAbove, patchedBelowBestUnpatched: patchedBelow },
  });
}

/** All Rostedt entries, in ledger order. */
export function rostedtClaims(d: RostedtData, o: RostedtOptions): ClaimEntry[] {
  const c = rostedtComparison(d, o);
  const boots = seedCheckBootstraps(d.unpatched.runs, d.patched.runs, o, c.bootstrap);
  return [...statEntries(d), differenceEntry(d, c, o, boots), spreadEntry(d, c, o, boots), firstRunEntry(d, o.alpha), overlapEntry(d)];
}
