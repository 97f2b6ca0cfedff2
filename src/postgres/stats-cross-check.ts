/**
 * The patch's counters against the kernel's debugfs rseq/stats over the same
 * run (issue 27 item 2). Relations that must hold when the patched server is
 * the only user of slice extensions in the guest and every one of its
 * processes' counts reaches pg_stat_get_slice_extension():
 *   - every yield that returned 1 is a kernel s_yielded: granted_yielded = syield;
 *   - every grant the patch saw was a kernel grant: seen ≤ sgrant;
 *   - every kernel grant that reached user space was either seen by a hook or,
 *     once it ended, found as a cleared word (a revoked grant cannot be granted
 *     again before a hook writes the request, which counts the clear):
 *     sgrant − grants ended before user space ≤ seen + cleared_without_grant_seen.
 * A relation that fails says the counts do not reconcile (counts lost, e.g.
 * of processes without a slot, or other users of the feature).
 */
export interface PatchTotals {
  grantedYielded: number | null;
  /** granted_yielded + granted_seen_ended (v3) / granted_expired (v2). */
  seen: number;
  /** cleared_without_grant_seen (v3) / dropped_without_grant (v2). */
  cleared: number;
}

export interface KernelTotals {
  sgrant: number;
  syield: number;
  /** Grants that ended before the task returned to user space (a trace's expired/revoked-before-user), when known. */
  beforeUser?: number;
}

export interface Relation {
  name: string;
  holds: boolean | null;
  detail: string;
}

export function crossCheck(p: PatchTotals, k: KernelTotals): Relation[] {
  const reached = k.sgrant - (k.beforeUser ?? 0);
  return [
    {
      name: "granted_yielded = kernel syield",
      holds: p.grantedYielded === null ? null : p.grantedYielded === k.syield,
      detail: p.grantedYielded === null ? "the record has no granted_yielded" : `${p.grantedYielded} vs ${k.syield}`,
    },
    { name: "grants seen ≤ kernel sgrant", holds: p.seen <= k.sgrant, detail: `${p.seen} ≤ ${k.sgrant}` },
    {
      name: "kernel grants reaching user space ≤ seen + cleared",
      holds: reached <= p.seen + p.cleared,
      detail: `${reached} (${k.sgrant}${k.beforeUser ? ` − ${k.beforeUser} ended before user space` : ""}) ≤ ${p.seen} + ${p.cleared}`,
    },
  ];
}

/** Patch totals from a pg_stat_get_slice_extension() delta of either version. */
export function patchTotals(delta: Record<string, number>): PatchTotals {
  const ended = delta.granted_seen_ended ?? delta.granted_expired ?? 0;
  const y = delta.granted_yielded;
  return { grantedYielded: y ?? null, seen: (y ?? 0) + ended, cleared: delta.cleared_without_grant_seen ?? delta.dropped_without_grant ?? 0 };
}
