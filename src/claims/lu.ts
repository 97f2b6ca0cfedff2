/**
 * Claims of Lu 2023 ("rq lock contention due to commit af7f588d8f73", quoted in
 * Desnoyers' reply): two `perf report` rows before and after the commit on a
 * 2-socket 112-core / 224-CPU Sapphire Rapids running sysbench oltp_read_only
 * against PostgreSQL with 56 threads.
 */
import { claimEntry, type ClaimEntry } from "./entry.js";
import { fmt, fmtInterval, roundedInterval } from "./numbers.js";
import type { Interval, Verdict } from "./verdicts.js";

/** One profile row (Children and Self in % of samples) as posted. */
export interface ProfileRow {
  symbol: string;
  childrenPct: number;
  selfPct: number;
}

/** The two profiles. */
export interface LuData {
  before: ProfileRow[];
  after: ProfileRow[];
  /** Digits after the decimal point of the printed percentages (2 for "7.30%"). */
  decimals: number;
  /** The commit between the two profiles. */
  commit: string;
}

/** Ratio after/before with the range the rounding of both figures allows. */
export function ratioBounds(before: number, after: number, decimals: number): { ratio: number; bounds: Interval } {
  const b = roundedInterval(before, decimals);
  const a = roundedInterval(after, decimals);
  return { ratio: after / before, bounds: { lo: a.lo / b.hi, hi: a.hi / b.lo } };
}

function row(rows: readonly ProfileRow[], symbol: string, which: string): ProfileRow {
  const r = rows.find((x) => x.symbol === symbol);
  if (!r) throw new RangeError(`no perf row for ${symbol} in the ${which} profile`);
  return r;
}

/** Profile-internal checks: Self can never exceed Children. */
function selfWithinChildren(rows: readonly ProfileRow[]): boolean {
  return rows.every((r) => r.selfPct <= r.childrenPct);
}

function shareEntry(d: LuData, symbol: string, key: string): ClaimEntry {
  const b = row(d.before, symbol, "before");
  const a = row(d.after, symbol, "after");
  const ch = ratioBounds(b.childrenPct, a.childrenPct, d.decimals);
  const se = ratioBounds(b.selfPct, a.selfPct, d.decimals);
  const ok = selfWithinChildren([a, b]);
  const verdict: Verdict = ok ? "consistent" : "not recomputed";
  const inCalleesBefore = b.childrenPct - b.selfPct;
  const inCalleesAfter = a.childrenPct - a.selfPct;
  const selfShareAfter = (100 * a.selfPct) / a.childrenPct;
  const where =
    selfShareAfter > 50
      ? `${fmt(selfShareAfter, 2)}% of its inclusive samples after are in the function itself (Self ${fmt(a.selfPct, d.decimals)} of Children ${fmt(a.childrenPct, d.decimals)}): time spent spinning, not in callees`
      : `the growth is in its callees: Children − Self ${fmt(inCalleesBefore, d.decimals)} → ${fmt(inCalleesAfter, d.decimals)} points while Self moves ${fmt(b.selfPct, d.decimals)} → ${fmt(a.selfPct, d.decimals)}`;
  return claimEntry({
    id: `lu-2023/${key}`,
    source: "lu-2023",
    claim: `perf profile before/after commit ${d.commit}: ${symbol}`,
    published: `Children ${fmt(b.childrenPct, d.decimals)}% → ${fmt(a.childrenPct, d.decimals)}%, Self ${fmt(b.selfPct, d.decimals)}% → ${fmt(a.selfPct, d.decimals)}%`,
    recomputed: `Children ×${fmt(ch.ratio, ch.ratio >= 100 ? 0 : 2)} (+${fmt(a.childrenPct - b.childrenPct, d.decimals)} points), Self ×${fmt(se.ratio, se.ratio >= 100 ? 0 : 2)} (+${fmt(a.selfPct - b.selfPct, d.decimals)} points)`,
    uncertainty:
      `rounding of the printed shares only: Children ratio ${fmtInterval(ch.bounds, ch.ratio >= 100 ? 0 : 3)}, Self ratio ${fmtInterval(se.bounds, se.ratio >= 100 ? 0 : 3)}; ` +
      `one profile per kernel, no repeat, so no sampling uncertainty can be given`,
    verdict,
    reason: ok
      ? `the printed shares are internally consistent (Self ≤ Children); ${where}; a single profile per kernel cannot show run-to-run variation`
      : `a Self share exceeds its Children share, which a perf profile cannot produce`,
    basis: `the two perf report rows per profile (Children = inclusive, Self = exclusive % of samples)`,
    values: {
      childrenBefore: b.childrenPct,
      childrenAfter: a.childrenPct,
      selfBefore: b.selfPct,
      selfAfter: a.selfPct,
      childrenRatio: ch.ratio,
      childrenRatioLo: ch.bounds.lo,
      childrenRatioHi: ch.bounds.hi,
      selfRatio: se.ratio,
      childrenPointsAdded: a.childrenPct - b.childrenPct,
      selfShareOfChildrenAfterPct: selfShareAfter,
    },
  });
}

function rqLockEntry(d: LuData): ClaimEntry {
  const sb = row(d.before, "__schedule", "before");
  const sa = row(d.after, "__schedule", "after");
  const lb = row(d.before, "native_queued_spin_lock_slowpath", "before");
  const la = row(d.after, "native_queued_spin_lock_slowpath", "after");
  // Growth of __schedule's callees (Children − Self) against the growth of the slowpath's own samples.
  const calleeGrowth = sa.childrenPct - sa.selfPct - (sb.childrenPct - sb.selfPct);
  const slowGrowth = la.selfPct - lb.selfPct;
  const maxUnderSchedule = Math.min(100, (100 * calleeGrowth) / slowGrowth);
  const share = la.selfPct;
  const verdict: Verdict = calleeGrowth > 0 && slowGrowth > 0 ? "consistent" : "not recomputed";
  return claimEntry({
    id: "lu-2023/rq-lock-contention",
    source: "lu-2023",
    claim: `"rq's lock became very heavily contended" after commit ${d.commit}`,
    published: `native_queued_spin_lock_slowpath Self ${fmt(lb.selfPct, d.decimals)}% → ${fmt(la.selfPct, d.decimals)}%; __schedule Children ${fmt(sb.childrenPct, d.decimals)}% → ${fmt(sa.childrenPct, d.decimals)}%`,
    recomputed:
      `${fmt(share, d.decimals)}% of all samples spin in the queued-spinlock slow path after the commit; ` +
      `__schedule's callees grew by ${fmt(calleeGrowth, d.decimals)} points, the slow path's own samples by ${fmt(slowGrowth, d.decimals)}: ` +
      `at most ${fmt(maxUnderSchedule, 1)}% of the new slow-path samples can lie under __schedule`,
    uncertainty: `±${fmt(0.5 * 10 ** -d.decimals, d.decimals + 1)} points per printed share; one profile per kernel`,
    verdict,
    reason:
      verdict === "consistent"
        ? `the growth of __schedule's callees nearly matches the slow path's growth, as contention on a lock taken in __schedule (the rq lock) would give; the excerpt has no call graph of the slow path's callers, so which lock is not shown`
        : `the rows do not show the slow path growing under __schedule`,
    basis: `Children − Self of __schedule (samples in its callees) before and after, against Self of native_queued_spin_lock_slowpath before and after`,
    values: {
      slowpathSelfAfterPct: share,
      scheduleCalleeGrowthPoints: calleeGrowth,
      slowpathSelfGrowthPoints: slowGrowth,
      maxShareUnderSchedulePct: maxUnderSchedule,
    },
  });
}

/** All Lu entries, in ledger order. */
export function luClaims(d: LuData): ClaimEntry[] {
  return [
    shareEntry(d, "__schedule", "schedule-share"),
    shareEntry(d, "native_queued_spin_lock_slowpath", "slowpath-share"),
    rqLockEntry(d),
  ];
}
