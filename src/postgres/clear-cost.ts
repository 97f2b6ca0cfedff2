/**
 * What v3's safety yield costs per observed clear (issue 27 item 1): the
 * patched hook code (the harness's glue, as in hook-cost.ts) runs a pattern
 * in which the kernel clears the word inside an LWLock hold and the next
 * covered acquire re-arms: one clear observed per iteration. The same binary
 * runs it with rseq_slice_yield faked (returns 0 without entering the kernel)
 * and real (the real system call 471); the cost per clear is the mean of the
 * per-round differences, with a 95% t interval. The binary also counts the
 * real calls per iteration, so the record shows the patch made exactly one
 * per clear (v2 makes none).
 *
 * On a host kernel without the feature, 471 is an unknown system call
 * (ENOSYS): the figure is the kernel entry and exit of a system call on this
 * host, which is what rseq_slice_yield(2) with no grant adds on Linux 7.2
 * (its body reads and clears one flag) — a lower bound there, and not
 * including the work a debug kernel does in rseq_syscall_enter_work().
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, hostname, loadavg, release, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ParseError, UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { createRng } from "../stats/prng.js";
import { patchedTexts, underTestHeader } from "./harness.js";
import { meanCi, type Interval, type RecordedKit } from "./hook-cost.js";
import { patchHash } from "./patch.js";

const run = promisify(execFile);

export interface ClearCostSample {
  round: number;
  syscalls: "fake" | "real";
  nsPerIteration: number;
  realCallsPerIteration: number;
}

/** One line of `hook-bench all clear N fake|real`: `all clear N NS 4 fake|real CALLS`. */
export function parseClearLine(line: string, file = "<hook-bench>"): { iterations: number; ns: number; syscalls: "fake" | "real"; realCalls: number } {
  const m = /^all clear (\d+) ([\d.]+) 4 (fake|real) ([\d.]+)$/.exec(line.trim());
  if (!m) throw new ParseError(file, 1, "all clear ITERATIONS NS 4 fake|real REAL_CALLS_PER_ITERATION", JSON.stringify(line));
  return { iterations: Number(m[1]), ns: Number(m[2]), syscalls: m[3] as "fake" | "real", realCalls: Number(m[4]) };
}

/** ns per clear: per-round real − fake, per iteration (one clear per iteration); a round missing an arm is an error. */
export function analyseClearCost(samples: readonly ClearCostSample[]): Interval {
  const rounds = [...new Set(samples.map((s) => s.round))];
  const diffs = rounds.map((r) => {
    const real = samples.find((s) => s.round === r && s.syscalls === "real");
    const fake = samples.find((s) => s.round === r && s.syscalls === "fake");
    if (!real || !fake) throw new UserError(`clear-cost: round ${r} lacks its ${real ? "fake" : "real"} arm`);
    return real.nsPerIteration - fake.nsPerIteration;
  });
  return meanCi(diffs);
}

export interface ClearCostRecord {
  kind: "slicelab-clear-cost";
  patch: { major: string; hash: string; file: string };
  method: string;
  rounds: number;
  iterations: number;
  compiler: string;
  host: { hostname?: string; kernel: string; cpus: number; cpuModel: string; load1Before: number; load1After: number };
  command: string;
  kit?: RecordedKit;
  started: string;
  ended: string;
  /** Real rseq_slice_yield calls per clear, from the binary's own count (mean over the real runs). */
  realCallsPerClear: number;
  /** Added ns per observed clear: mean, 95% CI, rounds. */
  nsPerClear: Interval;
  fakeNs: Interval;
  samples: ClearCostSample[];
}
