// The benchmark runner: protocols (data), variants, design, series (run/resume), provenance, analysis.
export {
  loadProtocol,
  protocolNames,
  protocolPath,
  protocolsDir,
  resolveWorkloads,
  resolveParams,
  substitute,
  TOOLS,
  BUILTIN_PARAMS,
  type Protocol,
  type ProtocolFile,
  type ResolvedWorkload,
  type WorkloadSpec,
  type WorkloadRef,
  type ParamSpec,
  type SetupStep,
  type Tool,
  type Literal,
} from "./protocol.js";
export { parseVariant, parseVariants, variantRecord, type Variant } from "./variant.js";
export { planSeries, seededRandom, DESIGNS, type Design, type PlannedRun } from "./design.js";
export {
  runSeries,
  seriesRows,
  readRunResult,
  writeTidy,
  measureWorkload,
  clusterNameFor,
  unfinishedRuns,
  SERIES_FORMAT,
  type SeriesOptions,
  type SeriesPlan,
  type SeriesRow,
  type SeriesSummary,
  type RunResult,
  type WorkloadResult,
} from "./series.js";
export { analyzeSeries, type SeriesAnalysis, type IntervalPct } from "./analysis.js";
export { prepareSeriesCollect, runCollectRecord, collectContext, collectAround, postmasterPidOf, type SeriesCollect, type RunCollectRecord, type WorkloadCollect } from "./collect.js";
export { progressPrinter, formatDuration, type ProgressEvent } from "./progress.js";
export { hostInfo, kernelInfo, kernelConfig, configValue, probeSliceExtension, postgresInfo, kitInfo, loadAverage, type SliceExtensionProbe } from "../record/provenance.js";
export { spawnGroup, startHogs, type GroupChild } from "./procs.js";
export { toolCommand, parseToolOutput, clientVersions, type Clients, type ToolResult } from "./tools.js";
