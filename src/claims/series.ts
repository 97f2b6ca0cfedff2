/**
 * Rostedt 2023's quantitative claims re-asked of one of OUR series (a directory
 * written by `slicelab bench run`): is B − A "noticeable beyond the noise"? does B
 * have "a much smaller std dev"? is the first (warm-up) run cold and right to
 * discard? and how small a difference can the series resolve, compared with the
 * +0.245% Rostedt reported? Each answer is a ledger entry of the same shape as the
 * published ones (entry.ts), computed from the series' finished runs, never typed.
 */
import { type SeriesRow } from "../bench/series.js";
import { compareSamples, mean, sd, summary, type BootstrapResult, type Comparison } from "../stats/index.js";
import { claimEntry, type ClaimEntry } from "./entry.js";
import { rostedtInput } from "./inputs.js";
import { spreadTestValues } from "./spread.js";
import { ledgerOptions } from "./ledger.js";
import { fmt, fmtInterval, fmtP, fmtSignedPct } from "./numbers.js";
import { bootstrapExclusion, differenceValues, grubbs, rankFromLowest, rostedtComparison, seedCheckBootstraps, spreadAnalysis, type RostedtData, type RostedtOptions, type SeedCheckedExclusion } from "./rostedt.js";
import { effectVerdict, outlierVerdict, type Verdict } from "./verdicts.js";
import { type PairedAnalysis, pairedP, pairedMinimumDetectableEffectPct, pairedAnalysis } from "./series-paired.js";
import { seriesInput, type SeriesClaimsOptions, type SeriesInput } from "./series-input.js";
export { seriesInput, type SeriesClaimsOptions, type SeriesProvenance, type SeriesInput } from "./series-input.js";
export { type PairedAnalysis, pairedPower, pairedMinimumDetectableEffectPct, pairedAnalysis } from "./series-paired.js";

/**
 * The verdict of the noise-floor entry: `consistent` when the series' minimum
 * detectable effect (80% power, the design's own analysis) is at most |published
 * difference| — a difference of the published size would stand out of this series'
 * noise, so the series can check such a claim; `not checkable` when it is larger —
 * the series cannot tell a difference that small from its noise.
 */
export function noiseFloorVerdict(mdePct: number, publishedPct: number): Verdict {
  return Number.isFinite(mdePct) && mdePct <= Math.abs(publishedPct) ? "consistent" : "not checkable";
}

interface Context {
  s: SeriesInput;
  o: RostedtOptions;
  c: Comparison;
  boots: BootstrapResult[];
  paired: PairedAnalysis | null;
  rostedt: RostedtData;
  rc: Comparison;
  source: string;
  idPrefix: string;
  runsText: string;
}

const runLabel = (r: SeriesRow) => `run ${r.run} (${r.id})`;

function differenceEntry(x: Context): ClaimEntry {
  const { s, o, c, paired, rc } = x;
  const boot = c.bootstrap.meanDiffPct;
  const loo = c.leaveOneOut;
  const interval: SeedCheckedExclusion = bootstrapExclusion(x.boots, "meanDiffPct", 0);
  const blocksDesign = s.provenance.design === "blocks" && paired !== null;
  const tests = [
    { name: "Welch t", p: c.welch.p },
    { name: "Mann–Whitney U", p: c.mannWhitney.p },
    ...(blocksDesign ? [{ name: "the paired block t", p: paired.p }] : []),
  ];
  const flips = loo.flips.length + (blocksDesign ? paired.leaveOneOutFlips.length : 0);
  const verdict = effectVerdict({
    alpha: o.alpha,
    tests,
    estimateInClaimedDirection: c.welch.difference > 0,
    intervalExcludesNoEffect: interval.excludes,
    leaveOneOutFlips: flips,
  });
  const conf = `${fmt(100 * c.bootstrap.confidence, 0)}%`;
  const pairedText = blocksDesign ? `, paired block t p = ${fmtP(paired.p)} (${paired.blocks} blocks, ${conf} CI ${fmtInterval({ lo: paired.ciPct[0], hi: paired.ciPct[1] }, 2, "%")})` : "";
  const testsText = `Welch p = ${fmtP(c.welch.p)}, Mann–Whitney p = ${fmtP(c.mannWhitney.p)}${pairedText}, bootstrap ${conf} CI ${fmtInterval(boot, 2, "%")}`;
  const pRange = (ps: number[]) => `${fmtP(Math.min(...ps))} to ${fmtP(Math.max(...ps))}`;
  const byRun = (f: { side: "A" | "B"; index: number }) => runLabel((f.side === "A" ? s.runsA : s.runsB)[f.index]!);
  const flipsText = [
    ...loo.flips.map(byRun),
    ...(blocksDesign ? paired.leaveOneOutFlips.map((b) => `block ${b} (paired t)`) : []),
  ].join(", ");
  const reasons: Record<Verdict, string> = {
    reproduced: `${testsText}; no single run changes that`,
    "not significant":
      `${testsText}: ${s.b} − ${s.a} = ${fmtSignedPct(c.welch.differencePct, 2)} is not distinguishable from this series' run-to-run noise (inconclusive, not evidence of no effect); ` +
      `no single left-out run makes Welch significant (p from ${pRange(loo.drops.map((d) => d.p))})` +
      (blocksDesign && paired.leaveOneOutFlips.length === 0 ? ` nor any left-out block the paired test (p from ${fmtP(paired.leaveOneOutMinP)} to ${fmtP(paired.leaveOneOutMaxP)})` : ""),
    fragile:
      flips > 0
        ? `${testsText}; leaving out ${flipsText} changes the verdict`
        : `${testsText}: the tests disagree (${tests.map((t) => `${t.name} ${t.p < o.alpha ? "finds" : "does not find"} it`).join(", ")}; the bootstrap interval ${interval.excludes === true ? "excludes" : interval.excludes === false ? "contains" : `sits at`} 0${interval.excludes === "seed-dependent" ? `: it excludes 0 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds, so the answer depends on the seed` : ""})`,
    "not reproduced": `${testsText}: ${s.b} is significantly below ${s.a}, against the claimed direction`,
    consistent: testsText,
    "not checkable": testsText,
    recomputed: testsText,
    "not recomputed": testsText,
    "not yet reproduced": testsText,
  };
  return claimEntry({
    id: `${x.idPrefix}:difference`,
    source: x.source,
    claim: `Rostedt's "noticeable beyond the noise", asked of ${s.b} vs ${s.a}: is the difference of mean tps beyond this series' run-to-run noise?`,
    published: `Rostedt 2023: ${fmtSignedPct(rc.welch.differencePct, 3)} (Welch p = ${fmtP(rc.welch.p)}, ${rc.a.n} + ${rc.b.n} runs)`,
    recomputed:
      `${fmtSignedPct(c.welch.differencePct, 3)} (${fmt(c.welch.difference, 2)} tps; ${s.a} ${fmt(c.a.mean, 2)}, ${s.b} ${fmt(c.b.mean, 2)}); ` +
      `Welch t = ${fmt(c.welch.t, 3)}, df = ${fmt(c.welch.df, 1)}, p = ${fmtP(c.welch.p)}; Mann–Whitney U = ${fmt(c.mannWhitney.u, 0)}, p = ${fmtP(c.mannWhitney.p)}` +
      (paired ? `; paired over ${paired.blocks} blocks ${fmtSignedPct(paired.meanDiffPct, 3)}, t = ${fmt(paired.t, 3)}, df = ${paired.df}, p = ${fmtP(paired.p)}` : ""),
    uncertainty:
      `bootstrap ${conf} CI ${fmtInterval(boot, 3, "%")} (seed ${c.bootstrap.seed}, ${c.bootstrap.resamples} resamples; excludes 0 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds); ` +
      `Welch ${conf} CI ${fmtInterval({ lo: c.welch.ciPct[0], hi: c.welch.ciPct[1] }, 3, "%")}` +
      (paired ? `; paired ${conf} CI ${fmtInterval({ lo: paired.ciPct[0], hi: paired.ciPct[1] }, 3, "%")}${blocksDesign ? "" : " (sequential design: the pairs did not run side by side, shown only for comparison)"}` : ""),
    verdict,
    reason: reasons[verdict],
    basis:
      `${x.runsText}; α = ${o.alpha}; tests: ${tests.map((t) => t.name).join(", ")} and the seeded bootstrap; leave-one-out re-runs Welch without each run` +
      (blocksDesign ? " and the paired t without each block" : "") +
      `; ${s.provenance.line}`,
    values: {
      meanA: c.a.mean,
      meanB: c.b.mean,
      ...differenceValues(c, interval),
      pairedBlocks: paired?.blocks ?? null,
      pairedDiffPct: paired?.meanDiffPct ?? null,
      pairedT: paired?.t ?? null,
      pairedP: paired?.p ?? null,
      pairedCiLoPct: paired?.ciPct[0] ?? null,
      pairedCiHiPct: paired?.ciPct[1] ?? null,
      pairedLeaveOneOutFlips: paired?.leaveOneOutFlips.length ?? null,
      publishedDifferencePct: rc.welch.differencePct,
    },
  });
}

function spreadEntry(x: Context): ClaimEntry {
  const { s, o, c, rc } = x;
  const A = s.runsA.map((r) => r.tps);
  const B = s.runsB.map((r) => r.tps);
  const { ratio, boot, loo, tests, interval } = spreadAnalysis(A, B, c, o.alpha, x.boots);
  const verdict = effectVerdict({
    alpha: o.alpha,
    tests,
    estimateInClaimedDirection: ratio < 1,
    intervalExcludesNoEffect: interval.excludes,
    leaveOneOutFlips: loo.flips.length,
  });
  const conf = `${fmt(100 * c.bootstrap.confidence, 0)}%`;
  const core = `SD ratio ${s.b}/${s.a} ${fmt(ratio, 3)}; F-test p = ${fmtP(c.fTest.p)}, Brown–Forsythe p = ${fmtP(c.brownForsythe.p)}, bootstrap ${conf} CI of the ratio ${fmtInterval(boot, 3)}`;
  const flipsText = loo.flips.map((f) => runLabel((f.side === "A" ? s.runsA : s.runsB)[f.index]!)).join(", ");
  const reasons: Record<Verdict, string> = {
    reproduced: `${core}; no single run changes the F-test's verdict`,
    fragile:
      loo.flips.length > 0
        ? `${core}; leaving out ${flipsText} changes the F-test's verdict`
        : `${core}: the tests disagree (${tests.map((t) => `${t.name} ${t.p < o.alpha ? "finds" : "does not find"} it`).join(", ")}; the interval ${interval.excludes === true ? "excludes" : interval.excludes === false ? "contains" : "sits at"} 1${interval.excludes === "seed-dependent" ? `: it excludes 1 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds, so the answer depends on the seed` : ""})`,
    "not significant": `${core}: no test separates the spreads of ${s.a} and ${s.b}`,
    "not reproduced": `${core}: ${s.b} varies significantly more than ${s.a}`,
    consistent: core,
    "not checkable": core,
    recomputed: core,
    "not recomputed": core,
    "not yet reproduced": core,
  };
  const rRatio = rc.b.sd / rc.a.sd;
  return claimEntry({
    id: `${x.idPrefix}:smaller-std-dev`,
    source: x.source,
    claim: `Rostedt's "the standard deviation was much smaller", asked of ${s.b} vs ${s.a}: does ${s.b} vary less from run to run?`,
    published: `Rostedt 2023: SD ratio patched/unpatched ${fmt(rRatio, 3)} (Std Dev ${fmt(rc.a.sd, 2)} → ${fmt(rc.b.sd, 2)}; F-test p = ${fmtP(rc.fTest.p)}, Brown–Forsythe p = ${fmtP(rc.brownForsythe.p)})`,
    recomputed:
      `SD ratio ${s.b}/${s.a} ${fmt(ratio, 3)} (SD ${fmt(c.a.sd, 2)} → ${fmt(c.b.sd, 2)} tps, CV ${fmt(100 * c.a.cv, 2)}% and ${fmt(100 * c.b.cv, 2)}%); ` +
      `F = ${fmt(c.fTest.f, 4)}, p = ${fmtP(c.fTest.p)}; Brown–Forsythe W = ${fmt(c.brownForsythe.w, 3)}, p = ${fmtP(c.brownForsythe.p)}`,
    uncertainty: `bootstrap ${conf} CI of the SD ratio ${fmtInterval(boot, 3)} (seed ${c.bootstrap.seed}, ${c.bootstrap.resamples} resamples; excludes 1 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds)`,
    verdict,
    reason: reasons[verdict],
    basis: `${x.runsText}; α = ${o.alpha}; the F-test assumes normal data, Brown–Forsythe (Levene on |x − median|) is the robust check; leave-one-out re-runs the F-test without each run; ${s.provenance.line}`,
    values: {
      sdA: c.a.sd,
      sdB: c.b.sd,
      cvA: c.a.cv,
      cvB: c.b.cv,
      ...spreadTestValues(c, ratio, boot, interval, loo),
      publishedSdRatio: rRatio,
    },
  });
}

/** Which variants' warm-up runs look cold (all below the measured runs and a Grubbs outlier among them) and which do not. */
function describeCold(sides: { v: string; warm: SeriesRow[]; warmRuns: { rank: number; flagged: boolean }[] }[]): string {
  const lowest = (side: (typeof sides)[number]) => side.warmRuns.every((w) => w.rank <= side.warm.length);
  const cold = sides.filter((side) => lowest(side) && side.warmRuns.some((w) => w.flagged)).map((side) => side.v);
  const lowOnly = sides.filter((side) => lowest(side) && !side.warmRuns.some((w) => w.flagged)).map((side) => side.v);
  const not = sides.filter((side) => !lowest(side)).map((side) => side.v);
  const parts: string[] = [];
  if (cold.length) parts.push(`${cold.join(" and ")}: lowest and a Grubbs outlier (cold)`);
  if (lowOnly.length) parts.push(`${lowOnly.join(" and ")}: lowest but not a Grubbs outlier`);
  if (not.length) parts.push(`${not.join(" and ")}: not below the measured runs`);
  return parts.join("; ");
}

function firstRunEntry(x: Context): ClaimEntry {
  const { s, o, rostedt } = x;
  const sides = [
    { v: s.a, warm: s.warmupA, runs: s.runsA },
    { v: s.b, warm: s.warmupB, runs: s.runsB },
  ].map((side) => {
    const kept = side.runs.map((r) => r.tps);
    const sm = summary(kept);
    const all = [...side.warm, ...side.runs].sort((p, q) => p.run - q.run);
    const tps = all.map((r) => r.tps);
    const g = all.length >= 3 ? grubbs(tps, o.alpha) : null;
    const warm = side.warm.map((r) => ({
      row: r,
      z: (r.tps - sm.mean) / sm.sd,
      pct: (100 * (r.tps - sm.mean)) / sm.mean,
      rank: rankFromLowest(r.tps, tps),
      flagged: g !== null && g.outlier && all[g.index]!.run === r.run,
    }));
    return { ...side, sm, all, g, warmRuns: warm };
  });
  const rz = [rostedt.unpatched, rostedt.patched].map((side) => (side.first - mean(side.runs)) / sd(side.runs));
  const published = `Rostedt 2023: first runs ${fmt(rostedt.unpatched.first, 2)} and ${fmt(rostedt.patched.first, 2)} tps, ${fmt(rz[0]!, 1)} and ${fmt(rz[1]!, 1)} SD from the kept runs' means ("horrible numbers … cold cache"), discarded`;
  const warmCount = sides.reduce((k, side) => k + side.warm.length, 0);
  let verdict: Verdict;
  let reason: string;
  if (warmCount === 0) {
    verdict = "not checkable";
    reason = "the series has no warm-up runs (series.json warmup = 0): nothing to compare with the measured runs";
  } else {
    // Cold = every warm-up run is below every measured run of its variant, and Grubbs flags one of them.
    const isLowest = sides.every((side) => side.warmRuns.every((w) => w.rank <= side.warm.length));
    const flagged = sides.every((side) => side.warm.length === 0 || side.warmRuns.some((w) => w.flagged));
    verdict = outlierVerdict(isLowest, flagged);
    const warmText = sides
      .filter((side) => side.warm.length)
      .map((side) => side.warmRuns.map((w) => `${side.v} ${runLabel(w.row)} ${fmt(w.row.tps, 2)} tps, ${fmt(w.z, 2)} SD (${fmtSignedPct(w.pct, 1)}), rank ${w.rank} of ${side.all.length}`).join("; "))
      .join("; ");
    reason =
      verdict === "consistent"
        ? `${warmText}: each warm-up run is the lowest of its variant and a Grubbs outlier, as a cold start would give`
        : `${warmText}: ${describeCold(sides.filter((side) => side.warm.length > 0))}, so this series does not show a cold first run on every variant`;
  }
  const grubbsText = sides
    .map((side) => (side.g ? `${side.v}: G = ${fmt(side.g.g, 2)} vs critical ${fmt(side.g.critical, 2)} (n = ${side.g.n}), most extreme ${runLabel(side.all[side.g.index]!)}` : `${side.v}: fewer than 3 runs`))
    .join("; ");
  const w0 = (i: number) => sides[i]!.warmRuns[0];
  return claimEntry({
    id: `${x.idPrefix}:first-run-cold`,
    source: x.source,
    claim: `Rostedt's "I threw out the first run as it had horrible numbers probably due to everything in cold cache", asked of this series' warm-up runs: are they cold outliers below the measured runs?`,
    published,
    recomputed:
      warmCount === 0
        ? "no warm-up runs"
        : sides
            .map((side) => `${side.v}: warm-up ${side.warmRuns.map((w) => `${fmt(w.row.tps, 2)} (z = ${fmt(w.z, 2)}, rank ${w.rank} of ${side.all.length})`).join(", ") || "none"} vs measured mean ${fmt(side.sm.mean, 2)}, SD ${fmt(side.sm.sd, 2)}, min ${fmt(side.sm.min, 2)}`)
            .join("; "),
    uncertainty: `Grubbs' test on all runs of each variant, α = ${o.alpha}: ${grubbsText}`,
    verdict,
    reason,
    basis: `z = (warm-up − mean of the measured runs)/SD of the measured runs of the same variant; rank among all runs of the variant from the lowest; Grubbs on all runs of the variant; ${s.provenance.line}`,
    values: {
      warmupRunsA: s.warmupA.length,
      warmupRunsB: s.warmupB.length,
      firstWarmupTpsA: w0(0)?.row.tps ?? null,
      firstWarmupZA: w0(0)?.z ?? null,
      firstWarmupRankA: w0(0)?.rank ?? null,
      firstWarmupTpsB: w0(1)?.row.tps ?? null,
      firstWarmupZB: w0(1)?.z ?? null,
      firstWarmupRankB: w0(1)?.rank ?? null,
      grubbsGA: sides[0]!.g?.g ?? null,
      grubbsCriticalA: sides[0]!.g?.critical ?? null,
      grubbsGB: sides[1]!.g?.g ?? null,
      grubbsCriticalB: sides[1]!.g?.critical ?? null,
      publishedFirstZUnpatched: rz[0]!,
      publishedFirstZPatched: rz[1]!,
    },
  });
}

function noiseFloorEntry(x: Context): ClaimEntry {
  const { s, o, c, paired, rc } = x;
  const publishedPct = rc.welch.differencePct;
  const blocksDesign = s.provenance.design === "blocks" && paired !== null;
  const welchHalf = (c.welch.ciPct[1] - c.welch.ciPct[0]) / 2;
  const half = blocksDesign ? paired.halfWidthPct : welchHalf;
  const mde = blocksDesign ? paired.minimumDetectableEffectPct : c.power.minimumDetectableEffectPct;
  const verdict = noiseFloorVerdict(mde, publishedPct);
  const conf = `${fmt(100 * (1 - o.alpha), 0)}%`;
  const pw = `${fmt(100 * c.power.power, 0)}%`;
  const needed = c.power.runsNeeded.find((r) => r.effectPct === Math.abs(publishedPct));
  const rostedtHalf = (rc.welch.ciPct[1] - rc.welch.ciPct[0]) / 2;
  const analysis = blocksDesign ? `the paired block analysis (${paired.blocks} blocks)` : `Welch (${c.a.n} + ${c.b.n} runs${s.provenance.design === "sequential" ? ", the sequential design's analysis" : ", too few complete blocks for a paired analysis"})`;
  const runsNeededText = needed?.runsPerSide != null ? `${needed.runsPerSide} runs per side` : "more than a million runs per side";
  return claimEntry({
    id: `${x.idPrefix}:noise-floor`,
    source: x.source,
    claim: `the noise floor of this series: how small a difference of mean tps it can resolve, against the ${fmtSignedPct(publishedPct, 3)} Rostedt reported as "beyond the noise"`,
    published: `Rostedt 2023: difference ${fmtSignedPct(publishedPct, 3)}; his ${rc.a.n} + ${rc.b.n} runs give a Welch ${conf} CI half-width of ${fmt(rostedtHalf, 3)}% and detect ${fmt(rc.power.minimumDetectableEffectPct, 3)}% at ${pw} power`,
    recomputed:
      `${conf} CI half-width of ${s.b} − ${s.a}: ${fmt(half, 3)}% by ${analysis}; minimum detectable effect at ${pw} power ${fmt(mde, 3)}%` +
      (blocksDesign ? `; unpaired Welch on the same runs: half-width ${fmt(welchHalf, 3)}%, detectable ${fmt(c.power.minimumDetectableEffectPct, 3)}%` : "") +
      `; Welch at this noise needs ${runsNeededText} to detect ${fmtSignedPct(Math.abs(publishedPct), 3)}`,
    uncertainty: null,
    verdict,
    reason:
      verdict === "consistent"
        ? `a difference of ${fmtSignedPct(Math.abs(publishedPct), 3)} is above this series' ${fmt(mde, 3)}% detectable at ${pw} power: a series like this one can check Rostedt's claim`
        : `this series detects ${fmt(mde, 3)}% at ${pw} power, ${fmt(mde / Math.abs(publishedPct), 1)}× Rostedt's ${fmtSignedPct(Math.abs(publishedPct), 3)}: a difference that small is within its noise (Welch at this noise needs ${runsNeededText})`,
    basis:
      `${x.runsText}; CI and power from ${blocksDesign ? "the paired t over blocks (noncentral t, df = blocks − 1, SD of the within-block differences)" : "Welch (noncentral t, Welch–Satterthwaite df, the observed SDs)"}; differences in % of ${s.a}'s measured mean; Rostedt's figures from his posted runs (data/published/rostedt-2023); ${s.provenance.line}`,
    values: {
      halfWidthPct: half,
      minimumDetectableEffectPct: mde,
      welchHalfWidthPct: welchHalf,
      welchMinimumDetectableEffectPct: c.power.minimumDetectableEffectPct,
      pairedHalfWidthPct: paired?.halfWidthPct ?? null,
      pairedMinimumDetectableEffectPct: paired?.minimumDetectableEffectPct ?? null,
      halfWidthRatioUnpairedToPaired: paired ? welchHalf / paired.halfWidthPct : null,
      runsPerSideForPublished: needed?.runsPerSide ?? null,
      publishedDifferencePct: publishedPct,
      publishedHalfWidthPct: rostedtHalf,
      publishedMinimumDetectableEffectPct: rc.power.minimumDetectableEffectPct,
      durationSeconds: s.provenance.duration,
      maxLoad1: s.provenance.maxLoad1,
      cpus: s.provenance.cpus,
    },
  });
}

/**
 * The Rostedt-2023 claims re-asked of a series directory: entries
 * `series:<dirname>:difference`, `:smaller-std-dev`, `:first-run-cold`, `:noise-floor`.
 * Throws UserError (exit 2) when `dir` is not a series, has fewer than two variants,
 * or `a`/`b` name a variant it does not have.
 */

export function seriesClaims(dir: string, opts: SeriesClaimsOptions = {}): ClaimEntry[] {
  const o = ledgerOptions({ seed: opts.seed, resamples: opts.resamples, alpha: opts.alpha });
  const s = seriesInput(dir, opts);
  const A = s.runsA.map((r) => r.tps);
  const B = s.runsB.map((r) => r.tps);
  const rostedt = rostedtInput();
  const rc = rostedtComparison(rostedt, o);
  const c = compareSamples(A, B, {
    seed: o.seed,
    resamples: o.resamples,
    alpha: o.alpha,
    labels: [s.a, s.b],
    effectsPct: [Math.abs(rc.welch.differencePct)],
  });
  const x: Context = {
    s,
    o,
    c,
    boots: seedCheckBootstraps(A, B, o, c.bootstrap),
    paired: pairedAnalysis(s, o.alpha, c.power.power),
    rostedt,
    rc,
    source: `${s.shown} (protocol ${s.provenance.protocol}, ${s.provenance.design} design; variants ${s.a} vs ${s.b}; workload ${s.workload})`,
    idPrefix: `series:${s.name}`,
    runsText:
      `the ${s.runsA.length} measured runs of ${s.a} and ${s.runsB.length} of ${s.b} (warm-up runs excluded: ${s.warmupA.length} and ${s.warmupB.length})` +
      (s.pairs.length ? `, ${s.pairs.length} complete blocks` : ""),
  };
  // Our own series: the record is the series directory, and the entry's verdict is its reproduction status.
  return [differenceEntry(x), spreadEntry(x), firstRunEntry(x), noiseFloorEntry(x)].map((e) => ({
    ...e,
    reproduction: {
      status: e.verdict === "reproduced" ? "reproduced" : e.verdict === "not reproduced" ? "not reproduced" : "not yet reproduced",
      records: [s.shown],
      note: "our own series: this entry's verdict",
    },
  }));
}
