/**
 * Passages whose integers are checked too (issue 28 item 11), with their entries: REPRODUCE §3's
 * "Why one CPU", "The kit's CPU: PASS" and "The earlier doubt is settled", and §8's PostgreSQL
 * paragraph. One part of the figure table (src/evidence/figure-table.ts), in its shapes (figure-types.ts); every value is computed from the records it names.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadMechanismGroups, pickMechanismGroups } from "../analysis/mechanism-records.js";
import type { PgFactorialRow } from "../analysis/mechanism-pg.js";
import type { FigureEntry as Entry, MeasuredRegion as Region, NotMeasured as Skip } from "./figure-types.js";
import { R, jsonField } from "./figure-readers.js";

const field = jsonField;
const read = (root: string, rel: string) => readFileSync(join(root, rel), "utf8");
const O = (stamp: string) => `data/runs/harness-overhead/20261130T${stamp}/analysis.json`;
const X = (dir: string) => `data/runs/harness-overhead/20261130T095746Z/${dir}/analysis.json`;
/** The four concurrent records of §3's table (both arms at the same time). */
const CONCURRENT = ["073633Z", "090350Z", "100040Z", "101918Z"].map(O);
const over = (paths: readonly string[], f: (t: string) => number, pick: "min" | "max") => (_t: string, root: string): number => {
  const xs = paths.map((p) => f(read(root, p)));
  return pick === "min" ? Math.min(...xs) : Math.max(...xs);
};
/** Mean over non-warm-up pairs of (kit started − hand started), ms, from runs.jsonl. */
const startOffsetMs = (text: string): number => {
  const by = new Map<number, { kit?: number; hand?: number }>();
  for (const line of text.trim().split("\n")) {
    const r = JSON.parse(line) as { pair: number; warmup: boolean; arm: string; started: string };
    if (r.warmup) continue;
    const p = by.get(r.pair) ?? {};
    p[r.arm as "kit" | "hand"] = Date.parse(r.started);
    by.set(r.pair, p);
  }
  const d = [...by.values()].filter((p) => p.kit !== undefined && p.hand !== undefined).map((p) => p.kit! - p.hand!);
  return d.reduce((a, x) => a + x, 0) / d.length;
};

const MECH = "data/runs/mechanism-2026";
const PG1 = `data/runs/mechanism-pg/20261201T224018Z/rows.json`;
const PG2 = `data/runs/mechanism-pg/20261201T231710Z/rows.json`;
const pgRows = (root: string): PgFactorialRow[] & { backendProcesses?: number }[] => {
  const g = pickMechanismGroups(loadMechanismGroups(join(root, MECH))).pg;
  if (!g) throw new Error(`no PostgreSQL group under ${MECH}`);
  return g.rows as PgFactorialRow[];
};
/** Per run with 4 KB pages (huge_pages=off), a quantity per backend process the run started; min or max over the pooled runs. */
const perBackend = (f: (r: PgFactorialRow) => number, pick: "min" | "max") => (_t: string, root: string): number => {
  const xs = pgRows(root)
    .filter((r) => r.hugePages === "off")
    .map((r) => f(r) / (r as unknown as { backendProcesses: number }).backendProcesses);
  return pick === "min" ? Math.min(...xs) : Math.max(...xs);
};
const pgRecordRuns = (rel: string, what: "rows" | "planned") => (t: string, root: string): number => {
  if (what === "rows") return (JSON.parse(t) as unknown[]).length;
  const rec = JSON.parse(read(root, rel.replace(/rows\.json$/, "record.json"))) as { design: { plannedRuns: number } };
  return rec.design.plannedRuns;
};

const AAJ = "data/runs/rostedt-2023/20261130T035419Z/results.jsonl";
const AA_FROM = "`data/runs/rostedt-2023/20261130T035419Z/`: the full `rostedt-2023` protocol";
const aaRuns = (t: string) => t.trim().split("\n").map((l) => JSON.parse(l) as { variant: string; started: string; ended: string; load1Before: number });
/** Minutes from the first run's start to the last run's end. */
const aaMinutes = (t: string) => {
  const r = aaRuns(t);
  return (Math.max(...r.map((x) => Date.parse(x.ended))) - Math.min(...r.map((x) => Date.parse(x.started)))) / 60000;
};
const WHY = "- Why one CPU. Three short runs";
const PASS = "- The kit's CPU: PASS.";
const DOUBT = "- The earlier doubt is settled.";
const PG = "- PostgreSQL 18 in the VM —";

export const INTEGER_REGIONS: Region[] = [
  { doc: R, from: AA_FROM, to: "From `analysis.json`", integers: true },
  { doc: R, from: WHY, to: "- The kit's CPU, charged to the kit.", integers: true },
  { doc: R, from: PASS, to: "- The two pgbench processes are identical", integers: true },
  { doc: R, from: DOUBT, to: "## 4. Our PostgreSQL patch", integers: true },
  { doc: R, from: PG, to: "What icount cannot model:", integers: true },
];

const WHY_S = "concurrent and one-after-the-other pairs spread alike (11.3% and 11.4%)";
const ONE_S = "With everything on one CPU the spread fell to 2.15% (2 s) and 0.70% (10 s)";
const PASS_S = "On average 0.057–0.072% of one core, at most 0.333% (about 6–7 ms per 10 s run), goal < 1%";
const DOUBT_S1 = "On two CPUs all three point estimates lay below 1 (0.979, 0.991, 0.994)";
const DOUBT_S2 = "There the kit's pgbench started 31 ms after the hand's";
const DOUBT_S3 = "both arms now make the query and start 0.4–1.4 ms apart on average";
const DOUBT_S4 = "the ratio is 1.0005 ± 0.14% and 1.0008 ± 0.13%: the two pgbench differ by less than 0.1%, and with the kit's CPU charged to it the cost is at most 0.4%";
const PG_HOLDS = "With 4 KB pages the runs made 2,106–2,222 spin-style holds, and 8.0–11.2 minor faults under them, per backend process they started";
const pct = (path: string) => (t: string) => 100 * field(t, path);

export const INTEGER_FIGURES: Entry[] = [
  // §3, our A/A series: the series itself.
  { doc: R, sentence: "16 runs per variant, the first block discarded", figure: "16 runs", record: AAJ, field: "rows of variant A (B has as many)", value: (t) => Math.min(...["A", "B"].map((v) => aaRuns(t).filter((r) => r.variant === v).length)) },
  { doc: R, sentence: "randomised blocks, 2 h 41 min (2026-11-30", figure: "2 h", record: AAJ, field: "whole hours from the first start to the last end", value: (t) => Math.floor(Math.round(aaMinutes(t)) / 60) },
  { doc: R, sentence: "randomised blocks, 2 h 41 min (2026-11-30", figure: "41 min", record: AAJ, field: "minutes beyond the hours, rounded", value: (t) => Math.round(aaMinutes(t)) % 60 },
  { doc: R, sentence: "load average before the runs up to 50", figure: "up to 50", record: AAJ, field: "max load1Before", value: (t) => Math.max(...aaRuns(t).map((r) => r.load1Before)) },
  // Why one CPU.
  { doc: R, sentence: "Three short runs (`data/runs/harness-overhead/20261130T095746Z/`, 2 s pairs)", figure: "Three", record: "data/runs/harness-overhead/20261130T095746Z/record.json", field: "the three analysis.json of the record's directories", value: (_t, root) => ["concurrent-2s", "sequential-2s", "concurrent-2s-cpu1"].filter((d) => read(root, X(d)).length > 0).length },
  { doc: R, sentence: WHY_S, figure: "(11.3%", record: X("concurrent-2s"), field: "tpsRatio.sdLogPerPair × 100", value: pct("tpsRatio.sdLogPerPair") },
  { doc: R, sentence: WHY_S, figure: "11.4%)", record: X("sequential-2s"), field: "tpsRatio.sdLogPerPair × 100", value: pct("tpsRatio.sdLogPerPair") },
  { doc: R, sentence: ONE_S, figure: "2.15%", record: X("concurrent-2s-cpu1"), field: "tpsRatio.sdLogPerPair × 100", value: pct("tpsRatio.sdLogPerPair") },
  { doc: R, sentence: ONE_S, figure: "0.70%", record: O("100040Z"), field: "tpsRatio.sdLogPerPair × 100", value: pct("tpsRatio.sdLogPerPair") },
  // The kit's CPU: PASS (the four concurrent records).
  { doc: R, sentence: PASS_S, figure: "0.057–", record: O("090350Z"), field: "min kitCpu.meanPct over the concurrent records", value: over(CONCURRENT, (t) => field(t, "kitCpu.meanPct"), "min"), alsoReads: CONCURRENT },
  { doc: R, sentence: PASS_S, figure: "–0.072%", record: O("101918Z"), field: "max kitCpu.meanPct over the concurrent records", value: over(CONCURRENT, (t) => field(t, "kitCpu.meanPct"), "max"), alsoReads: CONCURRENT },
  { doc: R, sentence: PASS_S, figure: "0.333%", record: O("101918Z"), field: "max kitCpu.maxPct over the concurrent records", value: over(CONCURRENT, (t) => field(t, "kitCpu.maxPct"), "max"), alsoReads: CONCURRENT },
  { doc: R, sentence: PASS_S, figure: "about 6–", record: O("090350Z"), field: "min kitCpu.msPerRun.mean over the concurrent records", value: over(CONCURRENT, (t) => field(t, "kitCpu.msPerRun.mean"), "min"), alsoReads: CONCURRENT },
  { doc: R, sentence: PASS_S, figure: "–7 ms", record: O("101918Z"), field: "max kitCpu.msPerRun.mean over the concurrent records", value: over(CONCURRENT, (t) => field(t, "kitCpu.msPerRun.mean"), "max"), alsoReads: CONCURRENT },
  // The earlier doubt is settled.
  { doc: R, sentence: DOUBT_S1, figure: "three", record: O("064107Z"), field: "the records on two CPUs (064107Z, 073633Z, 090350Z)", value: (_t, root) => [O("064107Z"), O("073633Z"), O("090350Z")].filter((p) => field(read(root, p), "tpsRatio.ratio") < 1).length },
  { doc: R, sentence: DOUBT_S1, figure: "(0.979", record: O("064107Z"), field: "tpsRatio.ratio" },
  { doc: R, sentence: DOUBT_S1, figure: "0.991,", record: O("073633Z"), field: "tpsRatio.ratio" },
  { doc: R, sentence: DOUBT_S1, figure: "0.994)", record: O("090350Z"), field: "tpsRatio.ratio" },
  { doc: R, sentence: DOUBT_S2, figure: "31 ms", record: "data/runs/harness-overhead/20261130T090350Z/runs.jsonl", field: "mean over pairs of kit started − hand started (ms)", value: startOffsetMs },
  { doc: R, sentence: DOUBT_S3, figure: "0.4–", record: O("101918Z"), field: "tpsRatio.startOffsetMs.mean", value: (t) => field(t, "tpsRatio.startOffsetMs.mean") },
  { doc: R, sentence: DOUBT_S3, figure: "–1.4 ms", record: O("100040Z"), field: "tpsRatio.startOffsetMs.mean", value: (t) => field(t, "tpsRatio.startOffsetMs.mean") },
  { doc: R, sentence: DOUBT_S4, figure: "1.0005 ±", record: O("100040Z"), field: "tpsRatio.ratio" },
  { doc: R, sentence: DOUBT_S4, figure: "± 0.14%", record: O("100040Z"), field: "tpsRatio.halfWidthPct", value: (t) => field(t, "tpsRatio.halfWidthPct") },
  { doc: R, sentence: DOUBT_S4, figure: "1.0008 ±", record: O("101918Z"), field: "tpsRatio.ratio" },
  { doc: R, sentence: DOUBT_S4, figure: "± 0.13%", record: O("101918Z"), field: "tpsRatio.halfWidthPct", value: (t) => field(t, "tpsRatio.halfWidthPct") },
  { doc: R, sentence: DOUBT_S4, figure: "less than 0.1%", record: O("101918Z"), field: "max |tpsRatio.ratio − 1| × 100 over the two pinned records (rounds to the bound)", value: over([O("100040Z"), O("101918Z")], (t) => 100 * Math.abs(field(t, "tpsRatio.ratio") - 1), "max"), alsoReads: [O("100040Z"), O("101918Z")] },
  { doc: R, sentence: DOUBT_S4, figure: "at most 0.4%", record: O("101918Z"), field: "max over the pinned records of (1 − ci95.0 × (1 − kitCpu.maxPct/100)) × 100", value: over([O("100040Z"), O("101918Z")], (t) => 100 * (1 - field(t, "tpsRatio.ci95.0") * (1 - field(t, "kitCpu.maxPct") / 100)), "max"), alsoReads: [O("100040Z"), O("101918Z")] },
  // §8, PostgreSQL 18 in the VM: the runs of each record and, pooled, what each backend took.
  { doc: R, sentence: "(10 of 24 planned runs before the guest's timeout)", figure: "(10 of", record: PG1, field: "rows", value: pgRecordRuns(PG1, "rows") },
  { doc: R, sentence: "(10 of 24 planned runs before the guest's timeout)", figure: "24 planned", record: PG1, field: "record.json design.plannedRuns", value: pgRecordRuns(PG1, "planned") },
  { doc: R, sentence: "(2 more blocks, 16 of 16 runs, another seed)", figure: "2 more blocks", record: PG2, field: "max block", value: (t) => Math.max(...(JSON.parse(t) as { block: number }[]).map((r) => r.block)) },
  { doc: R, sentence: "(2 more blocks, 16 of 16 runs, another seed)", figure: "16 of", record: PG2, field: "rows", value: pgRecordRuns(PG2, "rows") },
  { doc: R, sentence: "(2 more blocks, 16 of 16 runs, another seed)", figure: "of 16 runs", record: PG2, field: "record.json design.plannedRuns", value: pgRecordRuns(PG2, "planned") },
  { doc: R, sentence: PG_HOLDS, figure: "2,106–", record: PG1, field: "min over huge_pages=off runs of holds / backendProcesses (both records pooled)", value: perBackend((r) => r.holds, "min"), alsoReads: [PG1, PG2] },
  { doc: R, sentence: PG_HOLDS, figure: "–2,222", record: PG1, field: "max over huge_pages=off runs of holds / backendProcesses (both records pooled)", value: perBackend((r) => r.holds, "max"), alsoReads: [PG1, PG2] },
  { doc: R, sentence: PG_HOLDS, figure: "8.0–", record: PG2, field: "min over huge_pages=off runs of faultsUnderLock / backendProcesses (both records pooled)", value: perBackend((r) => r.faultsUnderLock, "min"), alsoReads: [PG1, PG2] },
  { doc: R, sentence: PG_HOLDS, figure: "–11.2", record: PG2, field: "max over huge_pages=off runs of faultsUnderLock / backendProcesses (both records pooled)", value: perBackend((r) => r.faultsUnderLock, "max"), alsoReads: [PG1, PG2] },
  { doc: R, sentence: "of the 548 reserved pages", figure: "548", record: PG1, field: "max hugePagesTotal over huge_pages=on runs (both records pooled)", value: (_t, root) => Math.max(...pgRows(root).filter((r) => r.hugePages === "on").map((r) => (r as unknown as { hugePagesTotal: number }).hugePagesTotal)), alsoReads: [PG1, PG2] },
];

export const INTEGER_NOT_MEASURED: Skip[] = [
  { doc: R, sentence: "same busy 2-vCPU machine", figure: "2-vCPU", why: "the machine's CPU count (provenance.json)" },
  { doc: R, sentence: "Three short runs (`data/runs/harness-overhead/20261130T095746Z/`, 2 s pairs)", figure: "2 s", why: "the run length the explorations were given (a setting)" },
  { doc: R, sentence: "These are two pgbench with two threads each and 16 backends", figure: "16", why: "the protocol's clients (pgbench -c 8 in each of two arms), a setting" },
  { doc: R, sentence: ONE_S, figure: "(2 s)", why: "a run length (a setting)" },
  { doc: R, sentence: ONE_S, figure: "(10 s)", why: "a run length (a setting)" },
  { doc: R, sentence: "One CPU is also the harsher test", figure: "One", why: "not a number of the records" },
  { doc: R, sentence: PASS_S, figure: "10 s run", why: "the run length (a setting)" },
  { doc: R, sentence: PASS_S, figure: "< 1%", why: "the goal" },
  { doc: R, sentence: DOUBT_S1, figure: "below 1 (", why: "the ratio of no difference" },
  { doc: R, sentence: "each with an interval that contains 1.", figure: "1.", why: "the ratio of no difference" },
  { doc: R, sentence: "PostgreSQL 18 in the VM", figure: "18", why: "the PostgreSQL version" },
  { doc: R, sentence: "`tcg-icount`, 1 vCPU, 3072 MiB, `shared_buffers` = 1GB, 2 s runs", figure: "1 vCPU", why: "the guest's configuration (provenance.json)" },
  { doc: R, sentence: "`tcg-icount`, 1 vCPU, 3072 MiB, `shared_buffers` = 1GB, 2 s runs", figure: "3072", why: "the guest's memory (a setting)" },
  { doc: R, sentence: "`tcg-icount`, 1 vCPU, 3072 MiB, `shared_buffers` = 1GB, 2 s runs", figure: "2 s", why: "the run length (a setting)" },
  { doc: R, sentence: "`tcg-icount`, 1 vCPU, 3072 MiB, `shared_buffers` = 1GB, 2 s runs", figure: "1GB", why: "shared_buffers (a setting)" },
  { doc: R, sentence: "another seed), pooled by notebook 07 (same kernel", figure: "07", why: "a notebook's number" },
  { doc: R, sentence: "in the records; notebook 07 shows the table", figure: "07", why: "a notebook's number" },
  { doc: R, sentence: "With 4 KB pages the runs made", figure: "4 KB", why: "the page size" },
  { doc: R, sentence: "(both extension arms pooled, 95 % t over runs)", figure: "95", why: "the confidence level" },
];
