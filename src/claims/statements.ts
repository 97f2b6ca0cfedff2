/**
 * The claims of the seed posts that carry no table of numbers: Rostedt's "10 or so"
 * preemptions, "raw spin locks … didn't make much difference", "more CPUs → bigger
 * difference" and the tick lengths; Sangappa's tick and 50 µs; Lu's "at least 56 cpus"
 * and "more threads → more severe"; Desnoyers' "demonstrates the need". The figures
 * they contain are read from the raw excerpts (never typed in); most verdicts are
 * "not checkable from the post", with what our runs say beside them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { citeLine } from "./cite.js";
import { claimEntry, type ClaimEntry } from "./entry.js";
import { fmt } from "./numbers.js";
import { readRecordJson, recordDir } from "./records.js";
import type { Verdict } from "./verdicts.js";

/** The collapsed text of a raw excerpt (mail quoting removed). */
export function rawText(source: string, file: string): string {
  const path = `data/published/${source}/${file}`;
  try {
    return readFileSync(join(repoRoot(), path), "utf8")
      .split(/\r?\n/)
      .map((l) => l.replace(/^\s*>\s?/, "").trim())
      .join(" ")
      .replace(/\s+/g, " ");
  } catch (err) {
    throw new UserError(`${path}: cannot read the raw excerpt (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** The numbers `re` captures in a raw excerpt, or a UserError naming the file and the pattern. */
export function numbersIn(source: string, file: string, re: RegExp): number[] {
  const m = re.exec(rawText(source, file));
  if (!m) throw new UserError(`data/published/${source}/${file}: expected text matching ${re}, found none`);
  return m.slice(1).map(Number);
}

/** The traced VM run of our patched server (grants and enforcement-timer intervals). */
const TRACE_RECORD = "slice-trace/20261130T051418Z";
interface TraceAnalysis {
  sliceNs: number[];
  tracepoints: { grants: number };
  hrtimer: { intervals: number; durationNs: { median: number } };
}

function rostedtStatements(): ClaimEntry[] {
  const src = "rostedt-2023";
  const [preemptions, minutes] = numbersIn(src, "claims.raw.txt", /(\d+) or so during a (\d+) minute run/) as [number, number];
  const cpus = numbersIn(src, "claims.raw.txt", /many more CPUs than (\d+)/)[0]!;
  const [ms1, hz1, ms2, hz2] = numbersIn(src, "tick.raw.txt", /\((\d+) ms with (\d+) HZ kernel config, to (\d+) ms with (\d+) HZ/) as [number, number, number, number];
  const trace = readRecordJson<TraceAnalysis>(TRACE_RECORD, "analysis.json");
  const tick1 = 1000 / hz1;
  const tick2 = 1000 / hz2;
  const ticksOk = tick1 === ms1 && tick2 === ms2;
  return [
    claimEntry({
      id: "rostedt-2023/preempted-in-spinlock-sections",
      source: src,
      claim: `"the time slice seldom landed when one of these spin locks were held. ${preemptions} or so during a ${minutes} minute run"`,
      cites: [citeLine(src, "claims.raw.txt", "I found that the time slice seldom landed when one of these spin locks were held.")],
      published: `~${preemptions} per ${minutes}-minute run (from trace_marker writes and sched_switch)`,
      recomputed: `${fmt(preemptions / minutes, 1)} per minute; the trace itself was not posted`,
      uncertainty: null,
      verdict: "not checkable",
      reason: `a count from a trace that is not in the post`,
      basis: `the count and run length as written (data/published/rostedt-2023/claims.raw.txt)`,
      reproduction: {
        status: "not yet reproduced",
        records: [recordDir(TRACE_RECORD)],
        note: `our traced run counts slice-extension grants (${trace.tracepoints.grants} in one run of the lock-table protocol) in a 2-vCPU VM under TCG, not preemptions inside PostgreSQL spinlock sections on bare metal`,
      },
      values: { preemptions, runMinutes: minutes, perMinute: preemptions / minutes, vmTraceGrants: trace.tracepoints.grants },
    }),
    claimEntry({
      id: "rostedt-2023/raw-spinlocks-alone",
      source: src,
      claim: `"I first applied the extend()/unextend() to only the raw spin locks but that didn't make much difference"`,
      cites: [citeLine(src, "claims.raw.txt", "I first applied the extend()/unextend() to only the raw spin locks but that didn't make much difference.")],
      published: "no figures (those runs were not posted)",
      recomputed: "nothing to recompute",
      uncertainty: null,
      verdict: "not checkable",
      reason: `the spinlock-only runs were not posted`,
      basis: `data/published/rostedt-2023/claims.raw.txt`,
      reproduction: { status: "not yet reproduced", records: [], note: `no record of ours separates marking spinlocks only from marking spinlocks and LWLocks` },
      values: {},
    }),
    claimEntry({
      id: "rostedt-2023/more-cpus-bigger-difference",
      source: src,
      claim: `"if this was implemented on a machine with many more CPUs than ${cpus}, it would make an even bigger difference"`,
      cites: [citeLine(src, "claims.raw.txt", "I can imagine that if this was implemented on a machine with many more CPUs than 8")],
      published: `one machine, ${cpus} CPUs`,
      recomputed: "a conjecture: one CPU count was measured",
      uncertainty: null,
      verdict: "not checkable",
      reason: `the post measures one machine, so a trend with the CPU count cannot be read from it`,
      basis: `data/published/rostedt-2023/claims.raw.txt, machine.raw.txt`,
      reproduction: { status: "not yet reproduced", records: [], note: `our machine has 2 CPUs; a CPU-count series needs bigger hosts` },
      values: { cpus },
    }),
    claimEntry({
      id: "rostedt-2023/tick-lengths",
      source: src,
      claim: `"This gives user space one more tick (${ms1} ms with ${hz1} HZ kernel config, to ${ms2} ms with ${hz2} HZ kernel config)"`,
      cites: [citeLine(src, "tick.raw.txt", "This gives user space one more tick")],
      published: `${ms1} ms at ${hz1} HZ, ${ms2} ms at ${hz2} HZ`,
      recomputed: `1000 / ${hz1} = ${fmt(tick1, 0)} ms, 1000 / ${hz2} = ${fmt(tick2, 0)} ms`,
      uncertainty: null,
      verdict: ticksOk ? "recomputed" : "not recomputed",
      reason: ticksOk ? `a tick lasts 1/HZ s` : `1/HZ does not give the stated lengths`,
      basis: `tick = 1 s / HZ`,
      values: { hzHigh: hz1, tickMsHigh: tick1, hzLow: hz2, tickMsLow: tick2 },
    }),
  ];
}

function sangappaStatements(): ClaimEntry[] {
  const src = "sangappa-2024";
  const ext = numbersIn(src, "cover-letter.raw.txt", /grants (\d+)us execution time extension/)[0]!;
  const hzMax = numbersIn("rostedt-2023", "tick.raw.txt", /\(\d+ ms with (\d+) HZ/)[0]!;
  const minTickUs = 1e6 / hzMax;
  const trace = readRecordJson<TraceAnalysis>(TRACE_RECORD, "analysis.json");
  const verdict: Verdict = minTickUs >= 1000 && ext < minTickUs ? "recomputed" : "not recomputed";
  return [
    claimEntry({
      id: "sangappa-2024/tick-vs-50us",
      source: src,
      claim: `"One extra tick can be a long time(about a millisec or more)"; Zijlstra's prototype "grants ${ext}us execution time extension only"`,
      cites: [citeLine(src, "cover-letter.raw.txt", "One extra tick can be a long time(about a millisec or more)."), citeLine(src, "cover-letter.raw.txt", `which grants ${ext}us execution time extension only.`)],
      published: `a tick ≈ 1 ms or more; extension ${ext} µs`,
      recomputed: `a tick is 1/HZ: ${fmt(minTickUs, 0)} µs at ${hzMax} HZ (the highest HZ of Rostedt's tick line), longer at lower HZ; ${ext} µs is ${fmt((100 * ext) / minTickUs, 1)}% of the shortest tick`,
      uncertainty: null,
      verdict,
      reason: verdict === "recomputed" ? `1/HZ is at least ${fmt(minTickUs, 0)} µs for HZ ≤ ${hzMax}, and ${ext} µs is a small fraction of it` : `the tick lengths do not support the statement`,
      basis: `tick = 1 s / HZ with HZ ≤ ${hzMax} (data/published/rostedt-2023/tick.raw.txt)`,
      reproduction: {
        // The record bears on the 50 µs (our kernel enforced that slice), but under plain TCG its timer
        // durations are host time: functional evidence, so the effect is not yet reproduced.
        status: "not yet reproduced",
        records: [recordDir(TRACE_RECORD)],
        note: `our traced VM run (plain TCG: guest time is host time, so durations are functional evidence) set slice_ext_nsec = ${fmt((trace.sliceNs[0] ?? NaN) / 1000, 0)} µs and its enforcement timer ran a median ${fmt(trace.hrtimer.durationNs.median / 1000, 1)} µs (${trace.hrtimer.intervals} intervals): the length is enforced, but not timed on real hardware`,
      },
      values: { extensionUs: ext, shortestTickUs: minTickUs, extensionShareOfTickPct: (100 * ext) / minTickUs, vmSliceUs: (trace.sliceNs[0] ?? NaN) / 1000, vmTimerMedianUs: trace.hrtimer.durationNs.median / 1000 },
    }),
  ];
}

function luStatements(slowpathSelfAfterPct: number): ClaimEntry[] {
  const src = "lu-2023";
  const cpus = numbersIn(src, "cpus-needed.raw.txt", /at least (\d+) cpus/)[0]!;
  const threads = numbersIn(src, "profiles.raw.txt", /nr_threads set to (\d+)/)[0]!;
  const [, , hostCpus] = numbersIn(src, "profiles.raw.txt", /(\d+)sockets\/(\d+)core\/(\d+)cpu/) as [number, number, number];
  return [
    claimEntry({
      id: "lu-2023/cpus-needed",
      source: src,
      claim: `"You may need a machine that has at least ${cpus} cpus to see this, I didn't try on other machines."`,
      cites: [citeLine(src, "cpus-needed.raw.txt", "You may need a machine that has at least 56 cpus to see this")],
      published: `≥ ${cpus} CPUs; profiled on ${hostCpus} CPUs with ${threads} threads`,
      recomputed: `one machine (${hostCpus} CPUs) was profiled, so no threshold can be read from the post`,
      uncertainty: null,
      verdict: "not checkable",
      reason: `a guess from one machine, as the post says ("I didn't try on other machines")`,
      basis: `data/published/lu-2023/cpus-needed.raw.txt, profiles.raw.txt`,
      reproduction: { status: "not yet reproduced", records: [], note: `our machine has 2 CPUs, below the ${cpus} the post names` },
      values: { cpusNeeded: cpus, threads, hostCpus },
    }),
    claimEntry({
      id: "lu-2023/more-threads-more-severe",
      source: src,
      claim: `"if I used more thread number, the contention would be more severe"`,
      cites: [citeLine(src, "profiles.raw.txt", "if I used more thread number, the contention would be more severe")],
      published: `one profile, nr_threads = ${threads}`,
      recomputed: "one thread count was profiled",
      uncertainty: null,
      verdict: "not checkable",
      reason: `no profile at another thread count is posted`,
      basis: `data/published/lu-2023/profiles.raw.txt`,
      reproduction: { status: "not yet reproduced", records: [], note: `not run here (2 CPUs)` },
      values: { threads },
    }),
    claimEntry({
      id: "lu-2023/desnoyers-demonstrates-need",
      source: src,
      claim: `Desnoyers: "I suspect that your workload demonstrates the need for at least one of those optimizations."`,
      cites: [citeLine(src, "desnoyers.raw.txt", "I suspect that your workload demonstrates the need for at least one of those optimizations.")],
      published: "no figure",
      recomputed: `after the commit ${fmt(slowpathSelfAfterPct, 2)}% of all samples are in the spinlock slow path itself (lu-2023/rq-lock-contention)`,
      uncertainty: null,
      verdict: slowpathSelfAfterPct > 10 ? "consistent" : "not recomputed",
      reason: `the profile agrees that a lock taken on context switch became a bottleneck; that the optimizations he names would remove it is not shown in the thread's excerpt`,
      basis: `lu-2023/rq-lock-contention's figures`,
      reproduction: { status: "not yet reproduced", records: [], note: `not run here (2 CPUs)` },
      values: { slowpathSelfAfterPct },
    }),
  ];
}

/** The statement entries of each source, to be placed after that source's table entries. */
export function statementClaims(slowpathSelfAfterPct: number): { rostedt: ClaimEntry[]; sangappa: ClaimEntry[]; lu: ClaimEntry[] } {
  return { rostedt: rostedtStatements(), sangappa: sangappaStatements(), lu: luStatements(slowpathSelfAfterPct) };
}
