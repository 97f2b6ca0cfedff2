/**
 * Spraul's arithmetic on our host series (notebook 06): reported kernel lock wait over the CPU time
 * of the measured runs, and the sentence on it, whose words follow the figures (tested in
 * test/analysis-lock-collected.test.ts).
 */
import { median } from "../stats/index.js";

export interface KernelLockTime {
  name: string;
  waitS: number;
  runSeconds: number;
  cpus: number;
  /** waitS / (runSeconds × cpus), in %. */
  pct: number;
}

/** Kernel lock wait as a share of the CPU time of the measured runs. */
export function kernelLockTime(name: string, rows: { id: string; workload: string; seconds: number; waitTotalNs: number }[], cpus: number): KernelLockTime {
  const waitS = rows.reduce((a, r) => a + r.waitTotalNs, 0) / 1e9;
  const runSeconds = [...new Map(rows.map((r) => [`${r.id}/${r.workload}`, r.seconds])).values()].reduce((a, x) => a + x, 0);
  return { name, waitS, runSeconds, cpus, pct: (100 * waitS) / (runSeconds * cpus) };
}

/**
 * The sentence after the per-series figures: the sites common to every series' top 3, and how large
 * the kernel's lock wait was: "below 1 %" only when every series' share is, else the largest share.
 */
export function kernelLockSentence(times: KernelLockTime[], topEverywhere: string[]): string {
  const max = Math.max(...times.map((t) => t.pct));
  const size =
    times.length === 0
      ? "No series with perf-lock output."
      : max < 1
        ? `In every series the kernel's own lock wait was below 1 % of the CPU time (at most ${max.toFixed(3)} %).`
        : `The kernel's own lock wait reached ${max.toFixed(3)} % of the CPU time in ${times.find((t) => t.pct === max)!.name}.`;
  return (
    `The sites among the top 3 of every series: ${topEverywhere.map((c) => `\`${c}\``).join(", ") || "none in common"}. ` +
    `${size} PostgreSQL's user-space locks are not kernel locks and do not appear in these tables.`
  );
}

/**
 * What the pg-waits comparison of synchronous_commit on and off shows, computed from the two shares
 * (LWLock + IO waits among the active backends seen): which way they differ, nothing about why.
 */
export function commitWaitReading(syncPct: number, asyncPct: number): string {
  if (!Number.isFinite(syncPct) || !Number.isFinite(asyncPct)) return "one of the two shares is missing.";
  const d = syncPct - asyncPct;
  if (Math.abs(d) < 1) return `the two shares differ by less than 1 point (${d.toFixed(1)}).`;
  return d > 0
    ? `${d.toFixed(1)} points fewer LWLock and I/O waits with \`off\` than with \`on\`.`
    : `${(-d).toFixed(1)} points more LWLock and I/O waits with \`off\` than with \`on\`.`;
}

/**
 * Whether a sampled series saw enough active backends to say anything about lock waits: fewer than
 * one active backend per sample for every four clients is taken as too sparse (the sampler shares the
 * CPUs with the workload, so short waits go unseen).
 */
export function samplingReading(activePerSample: number, clients: number): string {
  if (!(clients > 0)) return "";
  return activePerSample * 4 < clients
    ? `${activePerSample.toFixed(3)} active backends per sample for ${clients} clients is too sparse a sample to measure lock-table contention.`
    : `${activePerSample.toFixed(3)} active backends per sample for ${clients} clients.`;
}

/** A row of notebook 06's wait-type table: one wait event type of one series × workload × variant. */
export interface SeriesWaitRow {
  series: string;
  workload: string;
  variant: string;
  waitEventType: string;
  sharePct: number;
  active: number;
  samples: number;
}

/** The share (%) of one wait event type among a group's rows; 0 when absent. */
export function waitShare(rows: SeriesWaitRow[], type: string): number {
  return rows.find((r) => r.waitEventType === type)?.sharePct ?? 0;
}

/** Active backends seen per sample in a group (0 without rows). */
export function activePerSample(rows: SeriesWaitRow[]): number {
  return rows.length ? rows[0]!.active / rows[0]!.samples : 0;
}

/**
 * The smoke series' paragraph: LWLock + IO share with synchronous_commit on (SYNC) and off (ASYNC),
 * the events seen (EVENTS), and commitWaitReading's verdict. Returns the two shares for the notebook's values.
 */
export function commitWaitParagraph(sync: SeriesWaitRow[], asyn: SeriesWaitRow[], events: string[]): { text: string; syncPct: number; asyncPct: number } {
  const io = (rows: SeriesWaitRow[]) => waitShare(rows, "LWLock") + waitShare(rows, "IO");
  const syncPct = io(sync);
  const asyncPct = io(asyn);
  const parts = sync.filter((r) => r.waitEventType === "LWLock" || r.waitEventType === "IO").map((r) => `${r.waitEventType} ${r.sharePct.toFixed(1)} %`);
  const text =
    "In the smoke series' write workload (eviction, pgbench simple-update) with `synchronous_commit=on`, " +
    `${syncPct.toFixed(1)} % of the active backends seen were waiting on an LWLock or on I/O ` +
    `(${parts.join(", ")}; the events are ${events.join(", ")}); ` +
    `with \`off\`, ${asyncPct.toFixed(1)} %, and ${activePerSample(sync).toFixed(2)} vs ${activePerSample(asyn).toFixed(2)} active backends per sample: ` +
    commitWaitReading(syncPct, asyncPct);
  return { text, syncPct, asyncPct };
}

/** The lock-table series' paragraph from its A/A groups (CLIENTS clients); returns active backends per sample. */
export function lockTableSamplingParagraph(a: SeriesWaitRow[], b: SeriesWaitRow[], clients: number): { text: string; perSample: number } {
  const perSample = a.length && b.length ? (a[0]!.active + b[0]!.active) / (a[0]!.samples + b[0]!.samples) : 0;
  const text =
    `The lock-table workload (${clients} clients, 2 CPU hogs), sampled by a process that needs the same two CPUs: ` +
    `over ${(a[0]?.samples ?? 0) + (b[0]?.samples ?? 0)} samples of the measured A/A runs only ${perSample.toFixed(3)} active backends were seen per sample ` +
    `(LWLock share A ${waitShare(a, "LWLock").toFixed(1)} %, B ${waitShare(b, "LWLock").toFixed(1)} %, on ${a[0]?.active ?? 0} and ${b[0]?.active ?? 0} observations): ` +
    samplingReading(perSample, clients);
  return { text, perSample };
}

/** Per series/workload over the measured runs: median involuntary share of switches, its range, median switches per transaction. */
export interface InvoluntaryByWorkload {
  key: string;
  runs: number;
  inv: number;
  min: number;
  max: number;
  perTx: number;
}

/** Notebook 06's ctxsw summary (issue 28 item 12: the median was taken in the cell), highest median first. */
export function involuntaryByWorkload(rows: readonly { series: string; workload: string; warmup: boolean; involuntaryPct: number; perTransaction: number }[]): InvoluntaryByWorkload[] {
  return [...new Set(rows.map((r) => `${r.series}/${r.workload}`))]
    .map((key) => {
      const rs = rows.filter((r) => `${r.series}/${r.workload}` === key && !r.warmup);
      const inv = rs.map((r) => r.involuntaryPct);
      return { key, runs: rs.length, inv: median(inv), min: Math.min(...inv), max: Math.max(...inv), perTx: median(rs.map((r) => r.perTransaction)) };
    })
    .filter((w) => w.runs > 0)
    .sort((a, b) => b.inv - a.inv);
}

/** Below this median share of involuntary switches, "almost always voluntarily". */
export const MOSTLY_VOLUNTARY_PCT = 5;

/** The sentence under the ctxsw table: highest and lowest median, and the lock-table series' reading when it is there. */
export function involuntarySentence(by: readonly InvoluntaryByWorkload[], lockTableKey: string, hogs: number | null): string {
  if (by.length === 0) return "No measured run recorded context switches.";
  const f = (x: number, d = 2) => x.toFixed(d);
  const hi = by[0]!;
  const lo = by[by.length - 1]!;
  const ltw = by.find((w) => w.key === lockTableKey);
  return (
    `Median share of involuntary switches over the measured runs: highest for **${hi.key}** (${f(hi.inv)} %, runs ${f(hi.min)}–${f(hi.max)} %, ` +
    `${f(hi.perTx)} switches per transaction), lowest for **${lo.key}** (${f(lo.inv)} %). ` +
    (ltw
      ? `In the lock-table A/A series the backends were preempted in ${f(ltw.inv)} % of their switches (median of ${ltw.runs} runs)${hogs ? ` with ${hogs} CPU hogs competing for the CPUs` : ""}: ` +
        `a backend gave up its CPU ${f(ltw.perTx, 1)} times per transaction, ${ltw.inv < MOSTLY_VOLUNTARY_PCT ? `almost always voluntarily (under ${MOSTLY_VOLUNTARY_PCT} % involuntary)` : `often involuntarily (${MOSTLY_VOLUNTARY_PCT} % or more)`}. `
      : "") +
    `Which of the involuntary switches hit a lock holder these counts cannot tell; the slice-extension counters (next section; VM kernel) count that.`
  );
}
