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
import { kitInfo, type KitInfo } from "../bench/provenance.js";
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
  kit?: KitInfo;
  started: string;
  ended: string;
  /** Added ns per hook execution (and per pattern iteration) vs no hook code: mean, 95% CI, rounds. */
  addedNs: ReturnType<typeof analyseHookCost>;
  /** Unhooked ns per iteration, for scale. */
  noneNs: Record<HookCostPattern, Interval>;
  samples: HookCostSample[];
}

const CFLAGS = ["-std=gnu11", "-O2"];

/** Builds the two binaries from the patched source at SOURCE and runs ROUNDS rounds. */
export async function measureHookCost(source: string, major: string, opts: { rounds: number; iterations: number; seed?: number; log?: (l: string) => void }): Promise<HookCostRecord> {
  const say = opts.log ?? (() => {});
  const texts = await patchedTexts(source, patchFiles(major)[0]!);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-hookcost-"));
  const started = new Date().toISOString();
  const load1Before = loadavg()[0]!;
  try {
    const bins: Record<"hooked" | "none", string> = { hooked: join(dir, "hooked"), none: join(dir, "none") };
    for (const [name, empty] of [["hooked", false], ["none", true]] as const) {
      const d = join(dir, name + "-inc");
      (await import("node:fs")).mkdirSync(d);
      writeFileSync(join(d, "under_test.h"), underTestHeader(texts, { emptyGlue: empty }).text);
      await run("gcc", [...CFLAGS, "-I", d, "-o", bins[name], join(repoRoot(), "src", "postgres", "harness", "hook-bench.c")]);
    }
    const compiler = (await run("gcc", ["--version"])).stdout.split("\n")[0]!;
    const rng = createRng(opts.seed ?? 13);
    const samples: HookCostSample[] = [];
    for (let r = 1; r <= opts.rounds; r++) {
      const cells = (Object.keys(HOOK_COST_PATTERNS) as HookCostPattern[]).flatMap((p) => HOOK_COST_ARMS.map((a) => ({ a, p })));
      for (let i = cells.length - 1; i > 0; i--) {
        const j = Math.floor(rng.next() * (i + 1));
        [cells[i], cells[j]] = [cells[j]!, cells[i]!];
      }
      for (const { a, p } of cells) {
        const bin = a === "none" ? bins.none : bins.hooked;
        const { stdout } = await run(bin, [a === "none" ? "off" : a, p, String(opts.iterations)]);
        const parsed = parseHookBenchLine(stdout, bin);
        samples.push({ round: r, arm: a, pattern: p, nsPerIteration: parsed.ns });
      }
      if (r % 10 === 0) say(`round ${r}/${opts.rounds}`);
    }
    const cpuModel = cpus()[0]?.model ?? "unknown";
    return {
      kind: "slicelab-hook-cost",
      patch: { major, hash: patchHash(major), file: patchFiles(major)[0]!.split("/").slice(-3).join("/") },
      method:
        "hook code of the patched source (glue from src/postgres/harness.ts) around a real uncontended test-and-set lock; arms none (glue emptied), off (switch off), all (full request protocol and counters on a fake rseq area no kernel touches); random arm order per round; added ns = mean of per-round differences to none, per hook execution (spin: 2, nested: 8 per iteration), 95% t interval",
      rounds: opts.rounds,
      iterations: opts.iterations,
      compiler,
      cflags: CFLAGS,
      host: { hostname: hostname(), kernel: release(), cpus: cpus().length, cpuModel, load1Before, load1After: loadavg()[0]! },
      command: `slicelab postgres hook-cost --version ${major} --rounds ${opts.rounds} --iterations ${opts.iterations}`,
      kit: kitInfo(),
      started,
      ended: new Date().toISOString(),
      addedNs: analyseHookCost(samples),
      noneNs: {
        spin: meanCi(samples.filter((s) => s.arm === "none" && s.pattern === "spin").map((s) => s.nsPerIteration)),
        nested: meanCi(samples.filter((s) => s.arm === "none" && s.pattern === "nested").map((s) => s.nsPerIteration)),
      },
      samples,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
