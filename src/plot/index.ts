/**
 * Figure helpers: each takes an Arquero table (columns documented on the helper)
 * and returns standalone SVG text; `svgToPng` rasterises for files.
 */
export { renderSvg, svgToPng, svgToPixels, normaliseIds, textWidth, wrapText, type FigureOptions, type PngOptions, type EvidenceBadge, type LegendItem } from "./render.js";
export { tpsRunsPlot, tpsRunsSummary, type TpsRunsOptions, type SideSummary } from "./tps-runs.js";
export { runTimelinePlot, type RunTimelineOptions } from "./run-timeline.js";
export { bootstrapPlot, type BootstrapOptions } from "./bootstrap.js";
export { lockContentionPlot, LOCK_CON_LABEL, type LockContentionOptions } from "./lock-contention.js";
export { perfSharesPlot, perfSharesTakeaway, type PerfSharesOptions } from "./perf-shares.js";
export { ecdfPlot, ecdfPoints, ecdfTakeaway, type EcdfOptions, type EcdfPoint } from "./ecdf.js";
export { eventsTimelinePlot, parseEventDate, type EventsTimelineOptions } from "./events-timeline.js";
export { meanInterval, type MeanInterval } from "./interval.js";
export { writeFigure } from "./files.js";
export * as style from "./style.js";
