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

/**
 * Version 3's counters against rseq/stats over the same window (one statement reads both), each
 * relation with the code it follows from (Linux 7.2.13 kernel/rseq.c, include/linux/rseq_entry.h;
 * the patch's slice_ext.c). `holds` is null where the input lacks a counter.
 *   1. granted_yielded = syield: sys_rseq_slice_yield returns `yielded`, which only
 *      rseq_syscall_enter_work sets, in the same branch that does rseq_stat_inc(s_yielded)
 *      (granted and no sched_switch); SliceExtRelinquish counts granted_yielded iff the call returned 1.
 *      The clear yields (slice_ext_after_clear) are made with the word at zero and no grant: the
 *      entry work returns at `if (!ctrl.granted)` (or never runs), so they never count as syield.
 *   2. granted_yielded + granted_seen_ended ≤ sgrant: the patch counts a grant only where it reads
 *      `granted` in the word, which only __rseq_grant_slice_extension sets (and counts s_granted).
 *   3. sgrant ≤ granted_yielded + granted_seen_ended + cleared_without_grant_seen: a grant ends at a
 *      syscall (put_user(0) in rseq_syscall_enter_work), at a revoke (__rseq_grant_slice_extension's
 *      clear, or rseq_set_ids after a switch), and the kernel grants only on request = 1, which the
 *      patch writes again only after counting the word it found (SliceExtRearm, or a new hold after
 *      SliceExtRelinquish): so each grant is counted once, by the yield, as seen and ended, or as a
 *      cleared word; clears after a switch without a grant add to the right-hand side only.
 *   4. syield + sabort + srevok ≤ sgrant: the kernel's own ends of a grant (a grant can also end
 *      uncounted: at syscall entry after a switch, rseq_syscall_enter_work's sched_switch branch).
 *   5. srevok ≤ clear_yields + granted_seen_ended: each revoke leaves SYSCALL_RSEQ_SLICE set
 *      (only syscall entry clears it); v3 consumes it with one yield when it finds the cleared word,
 *      or with the release's yield when it read `granted` just before the revoke (counted as seen
 *      and ended) — what keeps rseq debugging from killing the backend.
 *   6. clear_yields ≤ cleared_without_grant_seen + granted_seen_ended (the patch's own books: every
 *      clear yield follows one of those counts; a yield that returned 0 counts as seen and ended).
 */
export interface ReconcileRelation {
  name: string;
  lhs: number | null;
  rhs: number | null;
  op: "=" | "≤";
  holds: boolean | null;
}

export function reconcile(patchCounters: Record<string, number>, kernel: Record<string, number>): ReconcileRelation[] {
  // version 2's names for the same counts (granted_expired, dropped_without_grant); it has no clear_yields
  const patch: Record<string, number> = { ...patchCounters };
  if (patch.granted_seen_ended === undefined && patch.granted_expired !== undefined) patch.granted_seen_ended = patch.granted_expired;
  if (patch.cleared_without_grant_seen === undefined && patch.dropped_without_grant !== undefined) patch.cleared_without_grant_seen = patch.dropped_without_grant;
  const g = (o: Record<string, number>, ...ks: string[]): number | null => {
    let s = 0;
    for (const k of ks) {
      if (typeof o[k] !== "number") return null;
      s += o[k]!;
    }
    return s;
  };
  const rel = (name: string, op: "=" | "≤", lhs: number | null, rhs: number | null): ReconcileRelation => ({
    name,
    op,
    lhs,
    rhs,
    holds: lhs === null || rhs === null ? null : op === "=" ? lhs === rhs : lhs <= rhs,
  });
  return [
    rel("granted_yielded = syield", "=", g(patch, "granted_yielded"), g(kernel, "syield")),
    rel("granted_yielded + granted_seen_ended ≤ sgrant", "≤", g(patch, "granted_yielded", "granted_seen_ended"), g(kernel, "sgrant")),
    rel("sgrant ≤ granted_yielded + granted_seen_ended + cleared_without_grant_seen", "≤", g(kernel, "sgrant"), g(patch, "granted_yielded", "granted_seen_ended", "cleared_without_grant_seen")),
    rel("syield + sabort + srevok ≤ sgrant", "≤", g(kernel, "syield", "sabort", "srevok"), g(kernel, "sgrant")),
    rel("srevok ≤ clear_yields + granted_seen_ended", "≤", g(kernel, "srevok"), g(patch, "clear_yields", "granted_seen_ended")),
    rel("clear_yields ≤ cleared_without_grant_seen + granted_seen_ended", "≤", g(patch, "clear_yields"), g(patch, "cleared_without_grant_seen", "granted_seen_ended")),
  ];
}

/** One line per relation: "granted_yielded = syield: 19 = 19 holds". */
export function reconcileLines(rs: readonly ReconcileRelation[]): string[] {
  return rs.map((r) => `${r.name}: ${r.lhs ?? "—"} ${r.op} ${r.rhs ?? "—"} ${r.holds === null ? "not decidable (a counter is missing)" : r.holds ? "holds" : "FAILS"}`);
}
