/**
 * A dated list of events on a time axis: one row per event, a dot at its date and
 * its label beside it. Used for the history in notebook 00.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { INK, MUTED, SIZE } from "./style.js";
import { column, optionalColumn, type Table } from "./table.js";

export type EventsTimelineOptions = FigureOptions;

/** Parses "YYYY", "YYYY-MM" or "YYYY-MM-DD" as a UTC date (start of the period). */
export function parseEventDate(text: string): Date {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(text);
  if (!m) throw new Error(`parseEventDate: expected YYYY, YYYY-MM or YYYY-MM-DD, found ${JSON.stringify(text)}`);
  return new Date(Date.UTC(Number(m[1]), m[2] ? Number(m[2]) - 1 : 0, m[3] ? Number(m[3]) : 1));
}

/**
 * Input columns:
 * - `date` (string): "YYYY", "YYYY-MM" or "YYYY-MM-DD".
 * - `label` (string): the text shown beside the dot.
 * - `approximate` (boolean, optional): true when the date is only known to the
 *   month or year or is inferred; drawn as a hollow dot.
 *
 * Rows are drawn top to bottom in date order (ties keep row order).
 * Marks (class on their <g>): `sl-event` (filled circles), `sl-approximate-event` (hollow), `sl-event-label`.
 */
export function eventsTimelinePlot(table: Table, options: EventsTimelineOptions = {}): string {
  const H = "eventsTimelinePlot";
  const date = column(H, table, "date", "string");
  const label = column(H, table, "label", "string");
  const approx = optionalColumn(H, table, "approximate", "boolean") ?? date.map(() => false);
  const rows = date
    .map((d, i) => ({ t: parseEventDate(d), label: label[i]!, approximate: approx[i]!, order: i, row: 0 }))
    .sort((a, b) => a.t.getTime() - b.t.getTime() || a.order - b.order);
  rows.forEach((r, i) => (r.row = i));
  const t0 = rows[0]!.t.getTime();
  const t1 = rows.at(-1)!.t.getTime();
  const mid = (t0 + t1) / 2;
  const pad = Math.max((t1 - t0) * 0.03, 86_400_000 * 60);
  const early = rows.filter((r) => r.t.getTime() <= mid);
  const late = rows.filter((r) => r.t.getTime() > mid);

  return renderSvg({
    width: options.width ?? SIZE.width,
    height: options.height ?? 50 + rows.length * SIZE.rowHeight,
    ariaLabel: options.ariaLabel ?? "timeline",
    title: options.title,
    badge: options.badge,
    takeaway: options.takeaway,
    marginLeft: 20,
    marginRight: 20,
    x: { type: "utc", domain: [new Date(t0 - pad), new Date(t1 + pad)], label: null, grid: true },
    y: { axis: null, domain: rows.map((r) => r.row), padding: 0.4 },
    marks: [
      Plot.dot(rows.filter((r) => !r.approximate), { x: "t", y: "row", fill: INK, r: 4, className: "sl-event" }),
      Plot.dot(rows.filter((r) => r.approximate), { x: "t", y: "row", stroke: INK, fill: "white", r: 4, strokeWidth: 1.5, className: "sl-approximate-event" }),
      Plot.text(early, { x: "t", y: "row", text: "label", dx: 8, textAnchor: "start", fill: INK, className: "sl-event-label" }),
      Plot.text(late, { x: "t", y: "row", text: "label", dx: -8, textAnchor: "end", fill: INK, className: "sl-event-label" }),
      Plot.ruleY(rows, { y: "row", stroke: MUTED, strokeOpacity: 0.15 }),
    ],
  });
}
