/**
 * REPRODUCE §5: the figures of the PostgreSQL bundle's real-time record on this machine (slicelab
 * bundle dipietro-2026-metal, run.sh, slicelab import).
 */
import type { FigureEntry } from "./figure-types.js";
import { R, csvRows, json } from "./figure-readers.js";

/** §5: the figures of the PostgreSQL bundle's record (data/runs/dipietro-2026-metal/20261204T221945Z). */
export function pgBundleFigures(): FigureEntry[] {
  const d = "data/runs/dipietro-2026-metal/20261204T221945Z";
  const loads = (t: string) => csvRows(t).flatMap((r) => [Number(r.load1Before), Number(r.load1After)]);
  const tps = (build: string, f: (xs: number[]) => number) => (t: string) => f(csvRows(t).filter((r) => r.variant!.startsWith(`build-${build}.`)).map((r) => Number(r.tps)));
  const minOf = (xs: number[]) => Math.min(...xs);
  const maxOf = (xs: number[]) => Math.max(...xs);
  const s1 = "10 of 10 runs in 21.5 min";
  const s2 = "the 1-minute load average was 19.6–34.0 around the runs (steal 0.16 %)";
  const s3 = "tps ranged from 995 to 1655 unpatched and from 1001 to 1768 patched";
  const s4 = "patched − unpatched +26.1 % (95% CI −19.5 to +71.7, 4 blocks): UNRESOLVED, with a half-width (±45.6 %)";
  return [
    { doc: R, sentence: s1, figure: "21.5", record: `${d}/record.json`, field: "(ended − started) in minutes", value: (t) => { const r = json(t) as { started: string; ended: string }; return (Date.parse(r.ended) - Date.parse(r.started)) / 60000; } },
    { doc: R, sentence: s2, figure: "19.6", record: `${d}/series/results.csv`, field: "min of load1Before, load1After", value: (t) => minOf(loads(t)) },
    { doc: R, sentence: s2, figure: "34.0", record: `${d}/series/results.csv`, field: "max of load1Before, load1After", value: (t) => maxOf(loads(t)) },
    { doc: R, sentence: s2, figure: "0.16", record: `${d}/provenance.json`, field: "machine.stealPct" },
    { doc: R, sentence: s3, figure: "995", record: `${d}/series/results.csv`, field: "min tps, baseline", value: tps("baseline", minOf) },
    { doc: R, sentence: s3, figure: "1655", record: `${d}/series/results.csv`, field: "max tps, baseline", value: tps("baseline", maxOf) },
    { doc: R, sentence: s3, figure: "1001", record: `${d}/series/results.csv`, field: "min tps, patched", value: tps("patched", minOf) },
    { doc: R, sentence: s3, figure: "1768", record: `${d}/series/results.csv`, field: "max tps, patched", value: tps("patched", maxOf) },
    { doc: R, sentence: s4, figure: "+26.1", record: `${d}/analysis.json`, field: "contrasts.0.meanDiffPct" },
    { doc: R, sentence: s4, figure: "−19.5", record: `${d}/analysis.json`, field: "contrasts.0.ciPct.0" },
    { doc: R, sentence: s4, figure: "+71.7", record: `${d}/analysis.json`, field: "contrasts.0.ciPct.1" },
    { doc: R, sentence: s4, figure: "4 blocks", record: `${d}/analysis.json`, field: "contrasts.0.n" },
    { doc: R, sentence: s4, figure: "±45.6", record: `${d}/analysis.json`, field: "contrasts.0.halfWidthPct" },
  ];
}
