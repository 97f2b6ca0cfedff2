/**
 * The lock statistics of our VM runs, as notebook 06 shows them: one /proc/lock_stat capture around
 * the micro-benchmark, the lockstat collector's per-workload snapshots, and Lahr's 2001 columns
 * (UTIL %, CON %) computed from those snapshots. The sentences the notebook prints are made here,
 * from the data, by rules with tests (test/analysis-lockstat-vm.test.ts).
 */
import type { LockClassRow, LockStatRunRow } from "../collect/tables.js";

const f = (x: number, d: number): string => x.toFixed(d);

/** What a /proc/lock_stat capture shows: its classes by contentions and by wait time. */
export interface CaptureSummary {
  classes: number;
  contended: number;
  contentions: number;
  acquisitions: number;
  waitUs: number;
  /** The classes, most contended first (topLockClasses order). */
  byContention: LockClassRow[];
  /** The contended classes, most wait first. */
  byWait: LockClassRow[];
}

/** Summarises the classes of a capture (all of them, as topLockClasses(ls, Infinity) gives them). */
export function captureSummary(all: LockClassRow[]): CaptureSummary {
  const contended = all.filter((x) => x.contentions > 0);
  return {
    classes: all.length,
    contended: contended.length,
    contentions: all.reduce((a, x) => a + x.contentions, 0),
    acquisitions: all.reduce((a, x) => a + x.acquisitions, 0),
    waitUs: all.reduce((a, x) => a + x.waittimeTotalUs, 0),
    byContention: all,
    byWait: [...contended].sort((a, b) => b.waittimeTotalUs - a.waittimeTotalUs || a.name.localeCompare(b.name)),
  };
}

/**
 * The part of the kernel a lock class belongs to, from its name and its top contention point, for
 * the classes a QEMU guest's micro-benchmark shows; null when the rule does not know it.
 *   9p transport: `&chan->lock` or a contention point in req_done/p9_ (net/9p/trans_virtio.c)
 *   run-queue lock: `&rq->__lock`, `&rq->lock`
 *   workqueues: `&pool->lock` or worker_thread
 *   wait queues: a name ending in wq/waitq/wait_table[…], or a contention point in *wait*
 */
export function kernelPartOf(c: Pick<LockClassRow, "name" | "topPoint">): string | null {
  const p = c.topPoint ?? "";
  if (/^&chan->lock$/.test(c.name) || /^(req_done|p9_)/.test(p)) return "the 9p transport";
  if (/^&rq->(__)?lock(\/\d+)?$/.test(c.name)) return "the run-queue lock";
  if (c.name === "&pool->lock" || /^worker_thread\b/.test(p)) return "workqueues";
  if (/(wq|waitq|wait_table\[i\])$/.test(c.name) || /wait/.test(p)) return "wait queues";
  return null;
}

/** The notebook's sentence on what a capture's wait time went to: the top `n` classes by wait, each with its share and part. */
export function captureWaitSentence(s: CaptureSummary, n = 3): string {
  if (s.byWait.length === 0) return "No class was contended in this capture.";
  const top = s.byWait.slice(0, n).map((c) => {
    const part = kernelPartOf(c);
    return `\`${c.name}\` (${f((100 * c.waittimeTotalUs) / s.waitUs, 1)} %${part ? `, ${part}` : ""})`;
  });
  const parts = [...new Set(s.byWait.slice(0, n).map(kernelPartOf).filter((x): x is string => x !== null))];
  return (
    `User-space locks such as the micro-benchmark's spinlock are not kernel lock classes and cannot appear. ` +
    `The most wait went to ${top.join(", ")}` +
    (parts.length > 0 ? `: ${parts.join(", ")}.` : ".")
  );
}

/** One lockstat snapshot (one workload of one run of one boot). */
export interface Snapshot {
  key: string;
  row: LockStatRunRow & { boot: string };
  classes: number;
  contended: number;
  contentions: number;
  acquisitions: number;
  waitUs: number;
  top: LockStatRunRow;
  topWait: LockStatRunRow;
}

/** Groups the collector's rows (one per class) into snapshots, in the order of first appearance. */
export function snapshots<R extends LockStatRunRow & { boot: string }>(rows: R[]): Snapshot[] {
  const keyOf = (r: R) => `${r.boot}/${r.id}/${r.workload}`;
  return [...new Set(rows.map(keyOf))].map((key) => {
    const rs = rows.filter((r) => keyOf(r) === key);
    return {
      key,
      row: rs[0]!,
      classes: rs.length,
      contended: rs.filter((x) => x.contentions > 0).length,
      contentions: rs.reduce((a, x) => a + x.contentions, 0),
      acquisitions: rs.reduce((a, x) => a + x.acquisitions, 0),
      waitUs: rs.reduce((a, x) => a + x.waittimeTotalUs, 0),
      top: rs[0]!,
      topWait: [...rs].sort((a, b) => b.waittimeTotalUs - a.waittimeTotalUs)[0]!,
    };
  });
}

/** Kernel lock wait as a share of the workload's time × vCPUs (Spraul's arithmetic), in %, per snapshot. */
export function waitSharePct(s: Snapshot, vcpus: number): number {
  return (100 * s.waitUs) / 1e6 / (s.row.seconds * vcpus);
}

/** The range of waitSharePct per boot, in the order the boots first appear. */
export function waitShareRanges(snaps: Snapshot[], vcpus: number): { boot: string; min: number; max: number }[] {
  return [...new Set(snaps.map((s) => s.row.boot))].map((boot) => {
    const xs = snaps.filter((s) => s.row.boot === boot).map((s) => waitSharePct(s, vcpus));
    return { boot, min: Math.min(...xs), max: Math.max(...xs) };
  });
}

/** True when no two ranges overlap. */
export function rangesDisjoint(ranges: { min: number; max: number }[]): boolean {
  return ranges.every((r, i) => ranges.every((q, j) => i === j || r.max < q.min || q.max < r.min));
}

/**
 * True when, within each boot, every snapshot in time order has more acquisitions than the one
 * before: what cumulative (never cleared) counters would show.
 */
export function acquisitionsOnlyGrow(inTime: { boot: string; acquisitions: number }[]): boolean {
  return inTime.every((t, k) => k === 0 || t.boot !== inTime[k - 1]!.boot || t.acquisitions > inTime[k - 1]!.acquisitions);
}

/** The notebook's sentence on the snapshots. */
export function snapshotSentence(snaps: Snapshot[], ranges: { boot: string; min: number; max: number }[], grows: boolean, vcpus: number): string {
  const topNames = [...new Set(snaps.map((s) => s.top.name))];
  return (
    `${snaps.length} snapshots from the lockstat collector; the most contended class was ` +
    `${topNames.map((n) => `\`${n}\` (${snaps.filter((s) => s.top.name === n).length} of ${snaps.length})`).join(", ")}. ` +
    (grows
      ? `The acquisitions grow from every snapshot to the next in time order: check that the collector cleared the statistics. `
      : `The acquisitions do not only grow from one snapshot to the next (in time order), as cumulative counters would: the collector cleared them before each workload. `) +
    `Spraul's arithmetic on these snapshots (kernel lock wait over each workload's time × ${vcpus} vCPUs; emulated CPUs, so the proportion, not the milliseconds, is the point): ` +
    ranges.map((r) => `${r.boot} ${f(r.min, 2)}–${f(r.max, 2)} %`).join(", ") +
    `. ` +
    (ranges.length > 1 && rangesDisjoint(ranges)
      ? `The boots' ranges do not overlap: the share differs more between boots than between the workloads of one boot.`
      : ranges.length > 1
        ? `The boots' ranges overlap.`
        : "")
  );
}

/** Lahr's columns from measured snapshots, summed per class: UTIL % (hold time / run time) and CON % (contentions / acquisitions), most contended first. */
export function lahrColumns(measured: LockStatRunRow[], limit = 10): { lock: string; util: number; con: number }[] {
  const byClass = new Map<string, { name: string; contentions: number; acquisitions: number; holdUs: number; seconds: number }>();
  for (const r of measured) {
    const g = byClass.get(r.name) ?? { name: r.name, contentions: 0, acquisitions: 0, holdUs: 0, seconds: 0 };
    g.contentions += r.contentions;
    g.acquisitions += r.acquisitions;
    g.holdUs += r.holdtimeTotalUs;
    g.seconds += r.seconds;
    byClass.set(r.name, g);
  }
  return [...byClass.values()]
    .sort((a, b) => b.contentions - a.contentions || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((c) => ({ lock: c.name, util: (100 * c.holdUs) / 1e6 / c.seconds, con: c.acquisitions > 0 ? (100 * c.contentions) / c.acquisitions : 0 }));
}
