// The claims ledger of slicelab: one source post per file, the verdict rules in
// verdicts.ts, the assembly from data/published/ in ledger.ts. Re-exported here.
export { VERDICTS, VERDICT_MEANINGS, effectVerdict, figureVerdict, outlierVerdict, overlaps, type Verdict, type Interval, type EffectEvidence, type TestOutcome } from "./verdicts.js";
export { REPRODUCTION_STATUSES, type Reproduction, type ReproductionStatus } from "./entry.js";
export { citeLine } from "./cite.js";
export { dipietroClaims } from "./dipietro.js";
export { statementClaims } from "./statements.js";
export { SOURCES, SOURCE_TITLES, claimEntry, claimValueName, ledgerValueNames, type ClaimEntry, type ClaimValue, type SourceId, type EntrySource } from "./entry.js";
export { buildLedger, findClaim, ledgerOptions, LEDGER_DEFAULTS, type LedgerOptions } from "./ledger.js";
export { formatLedgerTable, formatClaim, wrap } from "./format.js";
export { rostedtInput, sangappaInput, lahrInput, luInput, printedResolution, testKey } from "./inputs.js";
export {
  rostedtClaims,
  rostedtComparison,
  oneSidedP,
  bootstrapExclusion,
  seedCheckBootstraps,
  fTestRule,
  grubbs,
  populationSd,
  postedRunNumber,
  printedAs,
  rankFromLowest,
  SEED_CHECKS,
  type RostedtData,
  type RostedtSide,
  type RostedtOptions,
  type PrintedFigure,
  type GrubbsResult,
  type SeedCheckedExclusion,
} from "./rostedt.js";
export { sangappaClaims, improvementPct, improvementBounds, type SangappaTest } from "./sangappa.js";
export {
  lahrClaims,
  conPct,
  conDefinitionCheck,
  runLengths,
  type RunLength,
  lockGroups,
  lostTime,
  waitMeanEvidence,
  printedTimeInterval,
  printedTimeResolutionUs,
  sectionLabel,
  SMALL_LOST_SHARE_PCT,
  type LahrData,
  type LockRow,
  type LostTime,
  type SpraulFigures,
  type WaitMeanEvidence,
} from "./lahr.js";
export { luClaims, ratioBounds, type LuData, type ProfileRow } from "./lu.js";
export { verdictText, mdEscape } from "./verdict-text.js";
export { waitMeanReading, perSpinExcess, lahrWays, lahrLostTimeStory, kernelLockShare, lockStatisticsFindings, type WaitMeanReading, type LahrWay } from "./lahr-reading.js";
export { decimalsOf, printedInterval, roundedInterval, roundTo, truncateTo, fmt, fmtP, fmtInterval, fmtInt, fmtSignedPct } from "./numbers.js";
export {
  seriesClaims,
  seriesInput,
  pairedAnalysis,
  pairedPower,
  pairedMinimumDetectableEffectPct,
  noiseFloorVerdict,
  type SeriesClaimsOptions,
  type SeriesInput,
  type SeriesProvenance,
  type PairedAnalysis,
} from "./series.js";
export { ledgerSummary, differenceClause, spreadClause, spraulClause } from "./summary.js";
