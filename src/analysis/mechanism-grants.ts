/**
 * Issue 26 item 5: expected time-slice grants beside observed ones.
 *
 * What the counters count (Linux 7.2.13, include/linux/rseq_entry.h; the
 * PostgreSQL patch in kernel-patches/postgresql/):
 *  - a PostgreSQL "request" (v1 `requests`, v2 `holds_*`) is one hold with
 *    slice_ctrl.request set;
 *  - a kernel grant happens only in __rseq_grant_slice_extension, on the exit
 *    to user space from an interrupt or fault (state.enabled is masked with
 *    rseq.event.user_irq), with a reschedule pending and the request set;
 *    PostgreSQL counts it at release (v1 `grants`, v2 `granted_*`);
 *  - after any context switch the exit to user space zeroes slice_ctrl
 *    (rseq_slice_clear_user in the exit update paths), so a hold whose
 *    holder was switched out — preempted in the kernel, preempted at a
 *    return that could not grant, or asleep (an LWLock holder waiting for
 *    I/O) — finds its request cleared with no grant: v1 calls that
 *    `revoked` (it is not the kernel's revocation of a grant, which rseq/stats
 *    counts as `srevok`), v2 `dropped_without_grant`.
 * So grants + cleared-without-grant is the number of holds the scheduler
 * touched, and the chance that a reschedule falls inside a hold is
 * measured by (grants + cleared) / requests.
 *
 * Expected grants, two ways:
 *  - "if every touched hold were grantable": requests × that chance (=
 *    grants + cleared); observed / this is the share of touched holds the
 *    kernel could extend;
 *  - from hold time and reschedule rate: requests × (1 − e^{−ρ·h}), ρ the
 *    holder's reschedule rate per second on CPU and h the mean hold (for the
 *    micro-benchmark, both measured in the same runs).
 */

export interface GrantCounters {
  label: string;
  /** Holds with a request (PostgreSQL `requests` or the sum of `holds_*`). */
  requests: number;
  /** Grants seen at release. */
  grants: number;
  /** Requests found cleared without a grant (v1 `revoked`, v2 `dropped_without_grant`). */
  clearedWithoutGrant: number;
}

export interface GrantArithmetic extends GrantCounters {
  /** (grants + cleared) / requests: the measured chance that the scheduler switched the holder out (or granted) inside a hold. */
  touchedShare: number;
  /** requests × touchedShare: the grants if every touched hold had been grantable. */
  expectedIfAllGrantable: number;
  /** observed grants / expectedIfAllGrantable. */
  grantedShareOfTouched: number;
}

export function grantArithmetic(c: GrantCounters): GrantArithmetic {
  for (const k of ["requests", "grants", "clearedWithoutGrant"] as const) {
    if (!Number.isFinite(c[k]) || c[k] < 0) throw new RangeError(`${c.label}: ${k} must be a count ≥ 0, found ${c[k]}`);
  }
  if (c.grants + c.clearedWithoutGrant > c.requests) throw new RangeError(`${c.label}: grants + cleared (${c.grants + c.clearedWithoutGrant}) exceed the requests (${c.requests})`);
  const touched = c.grants + c.clearedWithoutGrant;
  return {
    ...c,
    touchedShare: c.requests > 0 ? touched / c.requests : NaN,
    expectedIfAllGrantable: touched,
    grantedShareOfTouched: touched > 0 ? c.grants / touched : NaN,
  };
}

/** requests × (1 − e^{−ρ h}): the expected holds in which at least one reschedule falls (Poisson reschedules at ρ per second on CPU). */
export function expectedFromRate(requests: number, meanHoldNs: number, reschedPerCpuS: number): number {
  if (!(requests >= 0) || !(meanHoldNs >= 0) || !(reschedPerCpuS >= 0)) throw new RangeError(`expectedFromRate: expected counts and rates ≥ 0, found ${requests}, ${meanHoldNs}, ${reschedPerCpuS}`);
  return requests * (1 - Math.exp(-reschedPerCpuS * meanHoldNs * 1e-9));
}

/** v1 counters of the vm-eviction records (`countersDelta` of each run's sliceExtension), summed per cell. */
export function v1Counters(label: string, deltas: readonly { requests: number; grants: number; revoked: number }[]): GrantCounters {
  return { label, requests: deltas.reduce((a, d) => a + d.requests, 0), grants: deltas.reduce((a, d) => a + d.grants, 0), clearedWithoutGrant: deltas.reduce((a, d) => a + d.revoked, 0) };
}

export interface V2Delta {
  holds_spinlock: number;
  holds_buffer_header: number;
  holds_wait_list: number;
  holds_lwlock: number;
  granted_yielded: number;
  granted_expired: number;
  dropped_without_grant: number;
}

/** v2 counters (the dipietro-2026 series): requests are the holds of every kind; grants are granted_yielded + granted_expired. */
export function v2Counters(label: string, deltas: readonly V2Delta[]): GrantCounters {
  const s = (f: (d: V2Delta) => number) => deltas.reduce((a, d) => a + f(d), 0);
  return {
    label,
    requests: s((d) => d.holds_spinlock + d.holds_buffer_header + d.holds_wait_list + d.holds_lwlock),
    grants: s((d) => d.granted_yielded + d.granted_expired),
    clearedWithoutGrant: s((d) => d.dropped_without_grant),
  };
}

export interface MicroGrantRow {
  mode: string;
  pages: string;
  extension: string;
  holds: number;
  durationS: number;
  threads?: number;
  returnInterrupt: number;
  returnFault: number;
  kernelFault: number;
  kernelOther: number;
  returnSyscall: number;
  /** Kernel grants (rseq/stats sgrant delta). */
  grants: number | null;
}

export interface MicroGrantCell {
  mode: string;
  pages: string;
  /** Holds in the extension-on runs. */
  holdsOn: number;
  /** Grantable deschedulings (at the return from an interrupt or fault) per hold with the extension off. */
  grantablePerHoldOff: number;
  /** holdsOn × grantablePerHoldOff: the grants expected if the extension turned every grantable preemption into a grant. */
  expected: number;
  /** Kernel grants with the extension on. */
  observed: number;
}

/**
 * For the micro-benchmark factorial: the extension-off runs measure how many
 * holds per hold end in a grantable preemption (return-interrupt or
 * return-fault: the exits that can grant); the extension-on runs' kernel
 * grants are compared with holdsOn × that rate.
 */
export function microGrantCells(rows: readonly MicroGrantRow[]): MicroGrantCell[] {
  const keys = [...new Set(rows.map((r) => `${r.mode}/${r.pages}`))].sort();
  const out: MicroGrantCell[] = [];
  for (const k of keys) {
    const [mode, pages] = k.split("/") as [string, string];
    const off = rows.filter((r) => r.mode === mode && r.pages === pages && r.extension === "off");
    const on = rows.filter((r) => r.mode === mode && r.pages === pages && r.extension === "on" && r.grants !== null);
    if (off.length === 0 || on.length === 0) continue;
    const holdsOff = off.reduce((a, r) => a + r.holds, 0);
    const grantable = off.reduce((a, r) => a + r.returnInterrupt + r.returnFault, 0);
    const holdsOn = on.reduce((a, r) => a + r.holds, 0);
    const per = holdsOff > 0 ? grantable / holdsOff : NaN;
    out.push({ mode, pages, holdsOn, grantablePerHoldOff: per, expected: holdsOn * per, observed: on.reduce((a, r) => a + (r.grants ?? 0), 0) });
  }
  return out;
}

// ---- the two records of issue 26 item 5 ----

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError, UserError } from "../util/errors.js";

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new ParseError(file, 1, "a JSON result", (e as Error).message.slice(0, 120));
  }
}

interface ResultJson {
  warmup?: boolean;
  workloads?: { sliceExtension?: { countersDelta?: Record<string, number> } }[];
}

function seriesDeltas(runsDir: string, keep: (name: string) => boolean): Record<string, number>[] {
  if (!existsSync(runsDir)) throw new UserError(`${runsDir}: no such directory`);
  const out: Record<string, number>[] = [];
  for (const d of readdirSync(runsDir).sort()) {
    if (!keep(d)) continue;
    const f = join(runsDir, d, "result.json");
    const r = readJson(f) as ResultJson;
    if (r.warmup) continue;
    const c = r.workloads?.[0]?.sliceExtension?.countersDelta;
    if (!c) throw new ParseError(f, 1, "workloads[0].sliceExtension.countersDelta", "none");
    out.push(c);
  }
  return out;
}

/** vm-eviction/20261130T083130Z (the batch behind vm-eviction/20261130T000002Z): v1 counters of the measured extension-on runs (warm-ups left out, as the comparison does), per mode. */
export function evictionGrantCells(batchDir: string): GrantArithmetic[] {
  return ["full-7.2.13", "lazy-7.2.13"].map((m) => {
    const ds = seriesDeltas(join(batchDir, m, "vm", "series", "runs"), (d) => d.endsWith("-on"));
    return grantArithmetic(v1Counters(`${m.split("-")[0]} (v1, on)`, ds.map((d) => ({ requests: d.requests ?? NaN, grants: d.grants ?? NaN, revoked: d.revoked ?? NaN }))));
  });
}

/** dipietro-2026/20261201T223016Z: v2 counters of the extension-all runs, per mode. */
export function dipietroGrantCells(recordDir: string): GrantArithmetic[] {
  const runs = join(recordDir, "series", "runs");
  return ["full", "lazy"].map((m) => {
    const ds = seriesDeltas(runs, (d) => d.includes(`mode-${m}.`) && d.endsWith("extension-all"));
    return grantArithmetic(v2Counters(`${m} (v2, all)`, ds as unknown as V2Delta[]));
  });
}
