/**
 * Lockmeter utilisation vs contention, one panel per CPU count: a lock that is busy
 * (high UTIL) and fought over (high CON) sits top right. Same lock, same colour in
 * every panel.
 */
import * as Plot from "@observablehq/plot";
import { renderSvg, type FigureOptions } from "./render.js";
import { CATEGORY_COLORS, MUTED } from "./style.js";
import { column, distinct, domainOf, type Table } from "./table.js";

export interface LockContentionOptions extends FigureOptions {
  /** Order of the locks for colours; default: by highest utilisation, then name. */
  locks?: string[];
  /** Locks whose UTIL (in %) reaches this are labelled by name; default 1. */
  labelUtilAbove?: number;
  /** Locks whose CON (in %) reaches this are labelled by name; default 20. */
  labelConAbove?: number;
  /**
   * Name the labelled locks in a colour legend under the title instead of beside their dots (names beside
   * nearby dots overlap); the other locks are drawn grey as "other locks".
   */
  legend?: boolean;
}

/**
 * Input columns (lock rows only, not their caller rows):
 * - `cpus` (number): CPU count of the run (2, 4, 8 for Lahr 2001).
 * - `lock` (string): the lock's name, e.g. "runqueue_lock".
 * - `util` (number): UTIL, % of the run's time the lock was held.
 * - `con` (number): CON, lockmeter's contention: (SPIN + REJECT) / TOTAL in % — acquisitions that
 *   spun plus trylocks that were rejected (src/parse/lockmeter.ts; `conPct` in src/claims/lahr.ts).
 *
 * Marks (class on their <g>): `sl-lock` (one circle per row), `sl-lock-label`.
 */
/** The x axis: what lockmeter's CON is (checked against the published rows by test/plot-figures.test.ts). */
export const LOCK_CON_LABEL = "CON: (SPIN + REJECT) / TOTAL, % of acquisitions";

export function lockContentionPlot(table: Table, options: LockContentionOptions = {}): string {
  const H = "lockContentionPlot";
  const cpus = column(H, table, "cpus", "number");
  const lock = column(H, table, "lock", "string");
  const util = column(H, table, "util", "number");
  const con = column(H, table, "con", "number");
  const rows = lock.map((l, i) => ({ cpus: cpus[i]!, lock: l, util: util[i]!, con: con[i]!, way: `${cpus[i]}-way` }));
  const byUtil = distinct(
    [...rows].sort((a, b) => b.util - a.util || a.lock.localeCompare(b.lock)).map((r) => r.lock),
  );
  const locks = domainOf(H, "lock", lock, options.locks ?? byUtil);
  const ways = distinct([...cpus].sort((a, b) => a - b)).map((c) => `${c}-way`);
  const utilBar = options.labelUtilAbove ?? 1;
  const conBar = options.labelConAbove ?? 20;
  const labelled = rows.filter((r) => r.util >= utilBar || r.con >= conBar);
  const maxUtil = Math.max(...util, 1);
  const named = distinct(labelled.map((r) => r.lock));
  const OTHER = "other locks";
  const legendLocks = options.legend ? [...named, ...(rows.some((r) => !named.includes(r.lock)) ? [OTHER] : [])] : [];
  const legendColors = legendLocks.map((l, i) => (l === OTHER ? MUTED : CATEGORY_COLORS[i % CATEGORY_COLORS.length]!));
  const drawn = options.legend ? rows.map((r) => ({ ...r, lock: named.includes(r.lock) ? r.lock : OTHER })) : rows;
  const maxCon = Math.max(...con, 1);

  return renderSvg({
    width: options.width,
    height: options.height ?? 380,
    ariaLabel: options.ariaLabel ?? "lock utilisation vs contention",
    title: options.title,
    badge: options.badge,
    takeaway: options.takeaway ?? lockContentionTakeaway(rows),
    marginRight: 20,
    marginTop: 40,
    marginBottom: 40,
    fx: { domain: ways, label: null },
    x: { label: LOCK_CON_LABEL, domain: [0, maxCon * 1.1], nice: true, grid: true },
    y: { label: "UTIL: time held (%)", domain: [0, maxUtil * 1.1], nice: true, grid: true },
    color: options.legend ? { domain: legendLocks, range: legendColors } : { domain: locks, range: [...CATEGORY_COLORS] },
    marks: [
      Plot.frame({ stroke: "#dddddd" }),
      Plot.dot(drawn, { fx: "way", x: "con", y: "util", fill: "lock", r: 4, className: "sl-lock" }),
      Plot.text(options.legend ? [] : labelled, {
        fx: "way",
        x: "con",
        y: "util",
        text: "lock",
        fill: "lock",
        dy: -8,
        fontSize: 9,
        className: "sl-lock-label",
      }),
    ],
  }, { legend: options.legend ? legendLocks.map((l, i) => ({ label: l, color: legendColors[i]! })) : undefined });
}

/** One line for a UTIL/CON figure: the most held and the most contended lock, with its run. */
export function lockContentionTakeaway(rows: readonly { lock: string; util: number; con: number; way: string }[]): string {
  if (rows.length === 0) return "No locks.";
  const u = [...rows].sort((a, b) => b.util - a.util)[0]!;
  const c = [...rows].sort((a, b) => b.con - a.con)[0]!;
  return `Most held: ${u.lock}, UTIL ${u.util.toFixed(2)} % (${u.way}); most contended: ${c.lock}, CON ${c.con.toFixed(2)} % (${c.way}).`;
}
