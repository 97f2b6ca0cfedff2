/**
 * Figure helpers: each takes an Arquero table (columns documented on the helper)
 * and returns standalone SVG text; `svgToPng` rasterises for files.
 */
export { renderSvg, svgToPng, svgToPixels, normaliseIds, textWidth, wrapText, type FigureOptions, type PngOptions, type EvidenceBadge, type LegendItem } from "./render.js";
export { tpsRunsPlot, tpsRunsSummary, tpsRunsTakeaway, type TpsRunsOptions, type SideSummary } from "./tps-runs.js";
export { loadScatterPlot, loadScatterTakeaway, type LoadScatterOptions } from "./load-scatter.js";
export { runTimelinePlot, runTimelineTakeaway, type RunTimelineOptions } from "./run-timeline.js";
export { bootstrapPlot, bootstrapTakeaway, type BootstrapOptions } from "./bootstrap.js";
export { lockContentionPlot, lockContentionTakeaway, LOCK_CON_LABEL, type LockContentionOptions } from "./lock-contention.js";
export { perfSharesPlot, perfSharesTakeaway, type PerfSharesOptions } from "./perf-shares.js";
export { ecdfPlot, ecdfPoints, ecdfTakeaway, type EcdfOptions, type EcdfPoint } from "./ecdf.js";
export { eventsTimelinePlot, parseEventDate, type EventsTimelineOptions } from "./events-timeline.js";
export { meanInterval, type MeanInterval } from "./interval.js";
export { writeFigure } from "./files.js";
export * as style from "./style.js";
