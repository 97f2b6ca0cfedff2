// The statistics of slicelab: one concern per file, re-exported here.
export { summary, mean, variance, sd, median, type Summary } from "./summary.js";
export { welchTTest, welchDf, welchCore, welchFromMoments, type WelchResult } from "./welch.js";
export { moments, momentsVariance, dropOne, type Moments } from "./moments.js";
export { mannWhitneyU, rankWithTies, uCounts, uExactSf, type MannWhitneyResult } from "./mann-whitney.js";
export { fTestVariances, fTestFromMoments, type FTestResult } from "./f-test.js";
export { brownForsythe, type BrownForsytheResult } from "./brown-forsythe.js";
export { createRng, createRngFromState, mulberry32, splitMix64, type Rng } from "./prng.js";
export {
  bootstrapCis,
  bootstrapReplicates,
  quantileSorted,
  DEFAULT_SEED,
  DEFAULT_RESAMPLES,
  type BootstrapOptions,
  type BootstrapReplicates,
  type BootstrapInterval,
  type BootstrapResult,
} from "./bootstrap.js";
export { welchVerdict, fTestVerdict, type Verdict, type VerdictResult, type VerdictRule } from "./verdict.js";
export { leaveOneOut, type LeaveOneOutDrop, type LeaveOneOutResult } from "./leave-one-out.js";
export { welchPower, runsNeeded, minimumDetectableEffectPct, pairedPower, pairedMinimumDetectableEffectPct, MAX_RUNS } from "./power.js";
export {
  compareSamples,
  formatP,
  type CompareOptions,
  type Comparison,
  type PowerResult,
  type RunsNeededRow,
  type SpreadVerdict,
} from "./compare.js";
export { tCdf, tTwoSidedP, tQuantile, fCdf, fSf, normalSf, normalQuantile, nctCdf } from "./distributions.js";
export { pairedMean, type PairedMean } from "./paired.js";
export { pearson } from "./correlation.js";
