/**
 * The summary of the collector-overhead study (src/study/drivers/collector-cost.ts): pgbench -S
 * runs with the collector off and on in ABBA pairs; per collector the means and each pair's
 * difference. Run: `slicelab study run collector-overhead`.
 */
import type { CollectorName } from "./index.js";

export interface OverheadRun {
  collector: CollectorName;
  pair: number;
  on: boolean;
  tps: number;
}

export interface OverheadSummary {
  collector: CollectorName;
  pairs: number;
  tpsOffMean: number;
  tpsOnMean: number;
  /** (off − on) / off of the means, in percent: positive = the collector costs throughput. */
  overheadPct: number;
  /** The same per pair, to show the spread. */
  pairOverheadPct: number[];
}

export function summarizeOverhead(runs: OverheadRun[]): OverheadSummary[] {
  const names = [...new Set(runs.map((r) => r.collector))];
  return names.map((collector) => {
    const rs = runs.filter((r) => r.collector === collector);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const off = rs.filter((r) => !r.on).map((r) => r.tps);
    const on = rs.filter((r) => r.on).map((r) => r.tps);
    const pairs = [...new Set(rs.map((r) => r.pair))].sort((a, b) => a - b);
    const pairOverheadPct = pairs.map((p) => {
      const o = rs.find((r) => r.pair === p && !r.on)!.tps;
      const n = rs.find((r) => r.pair === p && r.on)!.tps;
      return (100 * (o - n)) / o;
    });
    return { collector, pairs: pairs.length, tpsOffMean: mean(off), tpsOnMean: mean(on), overheadPct: (100 * (mean(off) - mean(on))) / mean(off), pairOverheadPct };
  });
}
