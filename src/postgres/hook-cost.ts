/**
 * What the patch's hooks cost per execution on this host: the hook code of
 * the patched source (the harness's glue, src/postgres/harness.ts) around a
 * real uncontended test-and-set lock, built with the hooks and with the glue
 * emptied (as unpatched). Rounds alternate the arms in random order; the
 * figure is the mean of per-round differences to the unhooked arm, divided
 * by the hook executions of the pattern, with a 95% t interval. The machine
 * is shared, so the record keeps the load before and after.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, hostname, loadavg, release, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ParseError, UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { mean, sd } from "../stats/summary.js";
import { tQuantile } from "../stats/distributions.js";
import { createRng } from "../stats/prng.js";
import { patchedTexts, underTestHeader } from "./harness.js";
import { patchFiles, patchHash } from "./patch.js";

const run = promisify(execFile);

export const HOOK_COST_ARMS = ["none", "off", "all"] as const;
export const HOOK_COST_PATTERNS = { spin: 2, nested: 8 } as const;
export type HookCostArm = (typeof HOOK_COST_ARMS)[number];
export type HookCostPattern = keyof typeof HOOK_COST_PATTERNS;

export interface HookCostSample {
  round: number;
  arm: HookCostArm;
  pattern: HookCostPattern;
  nsPerIteration: number;
}

export interface Interval {
  mean: number;
  ci: [number, number];
  n: number;
}

/** Mean and 95% t interval. */
export function meanCi(xs: readonly number[]): Interval {
  if (xs.length < 2) throw new UserError(`a confidence interval needs at least 2 values, found ${xs.length}`);
  const m = mean(xs);
  const h = tQuantile(0.975, xs.length - 1) * (sd(xs) / Math.sqrt(xs.length));
  return { mean: m, ci: [m - h, m + h], n: xs.length };
}

/** Parses one line of hook-bench output: `mode pattern iterations ns executions`. */
export function parseHookBenchLine(line: string, file = "<hook-bench>"): { arm: HookCostArm; pattern: HookCostPattern; iterations: number; ns: number; executions: number } {
  const m = /^(none|off|all) (spin|nested) (\d+) ([\d.]+) (\d+)$/.exec(line.trim());
  if (!m) throw new ParseError(file, 1, "MODE PATTERN ITERATIONS NS EXECUTIONS", JSON.stringify(line));
  return { arm: m[1] as HookCostArm, pattern: m[2] as HookCostPattern, iterations: Number(m[3]), ns: Number(m[4]), executions: Number(m[5]) };
}

/** Added ns per hook execution of each hooked arm, from per-round differences to `none`. */
export function analyseHookCost(samples: readonly HookCostSample[]): Record<HookCostPattern, Record<"off" | "all", Interval & { perIteration: Interval }>> {
  const out = {} as Record<HookCostPattern, Record<"off" | "all", Interval & { perIteration: Interval }>>;
  for (const pattern of Object.keys(HOOK_COST_PATTERNS) as HookCostPattern[]) {
    const rounds = [...new Set(samples.filter((s) => s.pattern === pattern).map((s) => s.round))];
    const arms = {} as Record<"off" | "all", Interval & { perIteration: Interval }>;
    for (const arm of ["off", "all"] as const) {
      const diffs: number[] = [];
      for (const r of rounds) {
        const a = samples.find((s) => s.round === r && s.pattern === pattern && s.arm === arm);
        const b = samples.find((s) => s.round === r && s.pattern === pattern && s.arm === "none");
        if (a && b) diffs.push(a.nsPerIteration - b.nsPerIteration);
      }
      const per = meanCi(diffs);
      const k = HOOK_COST_PATTERNS[pattern];
      arms[arm] = { ...meanCi(diffs.map((d) => d / k)), perIteration: per };
    }
    out[pattern] = arms;
  }
  return out;
}

/** The kit's commit when the record was made (kitInfo() of src/record/provenance.ts, which the measurement in src/drivers/hook-cost/ fills in). */
export interface RecordedKit {
  commit: string | null;
  dirty: boolean | null;
  node: string;
}

export interface HookCostRecord {
  kind: "slicelab-hook-cost";
  patch: { major: string; hash: string; file: string };
  method: string;
  rounds: number;
  iterations: number;
  compiler: string;
  cflags: string[];
  host: { hostname?: string; kernel: string; cpus: number; cpuModel: string; load1Before: number; load1After: number };
  /** The command line and the kit's commit (records made before 2026-12-02 lack them). */
  command?: string;
  kit?: RecordedKit;
  started: string;
  ended: string;
  /** Added ns per hook execution (and per pattern iteration) vs no hook code: mean, 95% CI, rounds. */
  addedNs: ReturnType<typeof analyseHookCost>;
  /** Unhooked ns per iteration, for scale. */
  noneNs: Record<HookCostPattern, Interval>;
  samples: HookCostSample[];
}
