/**
 * The model against the sweep at every recorded tick rate (issue 26 item 6): the latest
 * mechanism-model-sweep record per guest HZ, its cells recomputed from its rows (sweepCells), the
 * per-cell points of notebook 07's predicted-against-observed figure, and the test of the model's
 * claim that full's in-kernel share does not depend on HZ (pooled full-mode share at each HZ
 * against HZ 1000's, a Newcombe interval on the difference). The figure is hzValidationPlot in
 * src/plot/mechanism.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { listRecords } from "../record/format.js";
import { UserError } from "../util/errors.js";
import { fullShareFit, sweepCells, type SweepCell, type SweepRow } from "./mechanism-model-sweep.js";
import { wilson } from "./mechanism-model.js";

export interface HzSweep {
  /** "mechanism-model-sweep/STAMP". */
  name: string;
  hz: number;
  accel: string;
  cells: SweepCell[];
}

/** The latest sweep record per guest HZ under `runsRoot` (HZ from out/provenance.json), cells recomputed from out/rows.json; by HZ. */
export function hzSweeps(runsRoot: string, study = "mechanism-model-sweep"): HzSweep[] {
  const by = new Map<number, HzSweep>();
  for (const l of listRecords(runsRoot).filter((x) => x.record.study === study)) {
    const out = join(l.dir, "out");
    if (!existsSync(join(out, "rows.json")) || !existsSync(join(out, "provenance.json"))) continue;
    const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8")) as { kernel?: { hz?: number | null }; vm?: { accel?: string } };
    const hz = prov.kernel?.hz;
    if (typeof hz !== "number") throw new UserError(`${join(out, "provenance.json")}: expected kernel.hz (the guest's CONFIG_HZ), found ${JSON.stringify(hz)}`);
    const rows = JSON.parse(readFileSync(join(out, "rows.json"), "utf8")) as SweepRow[];
    const name = l.dir.split("/data/runs/")[1] ?? l.dir;
    const prev = by.get(hz);
    // stamps sort in time order: the later record of one HZ replaces the earlier
    if (!prev || prev.name < name) by.set(hz, { name, hz, accel: String(prov.vm?.accel ?? "unknown"), cells: sweepCells(rows, { hz }) });
  }
  return [...by.values()].sort((a, b) => a.hz - b.hz);
}

export interface ValidationPoint {
  hz: number;
  mode: string;
  faultEvery: number;
  csNs: number;
  predicted: number;
  observed: number;
  lo: number;
  hi: number;
  preemptions: number;
  agrees: boolean | null;
}

/** One point per cell and HZ: the model's prediction (φ = 0 under lazy: the source reading) and the observed share with its Wilson interval. */
export function validationPoints(sweeps: readonly HzSweep[]): ValidationPoint[] {
  return sweeps.flatMap((s) =>
    s.cells
      .filter((c) => Number.isFinite(c.predicted.mean) && Number.isFinite(c.observed.mean))
      .map((c) => ({ hz: s.hz, mode: c.mode, faultEvery: c.faultEvery, csNs: c.csNs, predicted: c.predicted.mean, observed: c.observed.mean, lo: c.observed.lo, hi: c.observed.hi, preemptions: c.kernel + c.atReturn, agrees: c.agrees })),
  );
}

/** Newcombe's hybrid score interval (95 %) of p1 − p2 from two Wilson intervals. */
export function newcombeDiff(k1: number, n1: number, k2: number, n2: number): { diff: number; lo: number; hi: number } {
  const a = wilson(k1, n1);
  const b = wilson(k2, n2);
  const d = a.mean - b.mean;
  return { diff: d, lo: d - Math.sqrt((a.mean - a.lo) ** 2 + (b.hi - b.mean) ** 2), hi: d + Math.sqrt((a.hi - a.mean) ** 2 + (b.mean - b.lo) ** 2) };
}

export interface HzContrast {
  hz: number;
  /** Pooled full-mode share at this HZ and at the reference HZ, over the (f, L) cells both have. */
  share: number;
  refShare: number;
  diff: number;
  lo: number;
  hi: number;
  cells: number;
}

/** full's pooled in-kernel share at each HZ against the reference HZ's (default 1000), over the cells both recorded. */
export function hzContrasts(sweeps: readonly HzSweep[], refHz = 1000): HzContrast[] {
  const ref = sweeps.find((s) => s.hz === refHz);
  if (!ref) return [];
  const key = (c: SweepCell) => `${c.faultEvery}|${c.csNs}`;
  const refFull = new Map(ref.cells.filter((c) => c.mode === "full").map((c) => [key(c), c]));
  return sweeps
    .filter((s) => s.hz !== refHz)
    .map((s) => {
      const both = s.cells.filter((c) => c.mode === "full" && refFull.has(key(c)));
      const k1 = both.reduce((a, c) => a + c.kernel, 0);
      const n1 = both.reduce((a, c) => a + c.kernel + c.atReturn, 0);
      const rs = both.map((c) => refFull.get(key(c))!);
      const k2 = rs.reduce((a, c) => a + c.kernel, 0);
      const n2 = rs.reduce((a, c) => a + c.kernel + c.atReturn, 0);
      const d = newcombeDiff(k1, n1, k2, n2);
      return { hz: s.hz, share: n1 ? k1 / n1 : NaN, refShare: n2 ? k2 / n2 : NaN, ...d, cells: both.length };
    });
}

const pc = (x: number) => `${(100 * x).toFixed(1)} %`;
const pp = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`;

/** What the validation shows at every recorded HZ, per mode, and whether full's share moved with HZ; labelled emulated. */
export function hzValidationSentence(sweeps: readonly HzSweep[], want: readonly number[] = [100, 250, 1000]): string {
  if (sweeps.length === 0) return "No sweep record yet (`slicelab study run mechanism-model-sweep`).";
  const accel = [...new Set(sweeps.map((s) => s.accel))].join(", ");
  const per = sweeps.map((s) => {
    const bits = ["full", "lazy"].flatMap((m) => {
      const cs = s.cells.filter((c) => c.mode === m && c.agrees !== null);
      return cs.length ? [`${m} ${cs.filter((c) => c.agrees).length} of ${cs.length} cells`] : [];
    });
    const phi = fullShareFit(s.cells);
    return `HZ ${s.hz} (\`${s.name}\`): the prediction inside the observed 95 % interval under ${bits.join(", under ")}${phi === null ? "" : `; lazy's fitted share of full-acting requests ${phi.toFixed(2)}`}`;
  });
  const missing = want.filter((h) => !sweeps.some((s) => s.hz === h));
  const cs = hzContrasts(sweeps);
  const hzText = cs.length === 0
    ? "Whether full's in-kernel share depends on HZ is not tested: only one tick rate is recorded."
    : cs.map((c) => `full's pooled in-kernel share at HZ ${c.hz} ${pc(c.share)} against ${pc(c.refShare)} at HZ 1000 over ${c.cells} cells (${pp(c.diff)} points, 95 % ${pp(c.lo)} to ${pp(c.hi)}: ${c.lo <= 0 && c.hi >= 0 ? "no HZ effect detected, as the model says" : "an HZ effect the model does not have"})`).join("; ") + ".";
  return `Emulated (QEMU ${accel === "tcg-icount" ? "TCG with instruction-counted time" : accel}, 1 vCPU; lazy predicted with no full-acting requests, the source reading): ${per.join("; ")}. ${hzText}${missing.length ? ` Not recorded: HZ ${missing.join(" and ")}.` : ""}`;
}

/** The figure's one-line takeaway, from the points. */
export function hzValidationTakeaway(points: readonly ValidationPoint[]): string {
  if (points.length === 0) return "No cells.";
  const hzs = [...new Set(points.map((p) => p.hz))].sort((a, b) => a - b);
  const part = (m: string) => {
    const ps = points.filter((p) => p.mode === m && p.agrees !== null);
    return ps.length ? `${m}: ${ps.filter((p) => p.agrees).length} of ${ps.length} cells on the prediction (within the 95 % interval)` : null;
  };
  return `${[part("full"), part("lazy")].filter(Boolean).join("; ")}; HZ ${hzs.join(", ")}.`;
}
