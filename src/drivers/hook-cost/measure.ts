/**
 * The hook-cost and clear-cost measurements (studies/hook-cost.json; `slicelab postgres hook-cost`
 * and `postgres clear-cost`): each builds the harness's hook-bench from the patched source and runs
 * its arms in random order per round. The records' shapes, parsers and analyses are in
 * src/postgres/hook-cost.ts and clear-cost.ts; the loops, and the kit's provenance, here.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, hostname, loadavg, release, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { kitInfo } from "../../record/provenance.js";
import { UserError } from "../../util/errors.js";
import { repoRoot } from "../../util/paths.js";
import { createRng } from "../../stats/prng.js";
import { patchedTexts, underTestHeader } from "../../postgres/harness.js";
import { patchFiles, patchHash } from "../../postgres/patch.js";
import { analyseHookCost, HOOK_COST_ARMS, HOOK_COST_PATTERNS, meanCi, parseHookBenchLine, type HookCostPattern, type HookCostRecord, type HookCostSample } from "../../postgres/hook-cost.js";
import { analyseClearCost, parseClearLine, type ClearCostRecord, type ClearCostSample } from "../../postgres/clear-cost.js";

const run = promisify(execFile);

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

/** Builds hook-bench from PATCHFILE applied to SOURCE and measures ROUNDS rounds of the clear pattern. */
export async function measureClearCost(source: string, major: string, patchFile: string, opts: { rounds: number; iterations: number; seed?: number; log?: (l: string) => void }): Promise<ClearCostRecord> {
  if (opts.rounds < 2) throw new UserError(`clear-cost: --rounds must be at least 2 for an interval, found ${opts.rounds}`);
  const texts = await patchedTexts(source, patchFile);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-clearcost-"));
  const started = new Date().toISOString();
  const load1Before = loadavg()[0]!;
  try {
    const inc = join(dir, "inc");
    mkdirSync(inc);
    writeFileSync(join(inc, "under_test.h"), underTestHeader(texts).text);
    const bin = join(dir, "hook-bench");
    await run("gcc", ["-std=gnu11", "-O2", "-I", inc, "-o", bin, join(repoRoot(), "src", "postgres", "harness", "hook-bench.c")]);
    const compiler = (await run("gcc", ["--version"])).stdout.split("\n")[0]!;
    const rng = createRng(opts.seed ?? 17);
    const samples: ClearCostSample[] = [];
    for (let r = 1; r <= opts.rounds; r++) {
      const order: ("fake" | "real")[] = rng.next() < 0.5 ? ["fake", "real"] : ["real", "fake"];
      for (const sc of order) {
        const { stdout } = await run(bin, ["all", "clear", String(opts.iterations), sc]);
        const p = parseClearLine(stdout, bin);
        samples.push({ round: r, syscalls: sc, nsPerIteration: p.ns, realCallsPerIteration: p.realCalls });
      }
      if (r % 10 === 0) opts.log?.(`round ${r}/${opts.rounds}`);
    }
    const real = samples.filter((s) => s.syscalls === "real");
    return {
      kind: "slicelab-clear-cost",
      patch: { major, hash: patchHash(major), file: patchFile.split("/").slice(-3).join("/") },
      method:
        "hook code of the patched source (glue from src/postgres/harness.ts) in hook-bench's clear pattern: LWLockAcquire, the word cleared as by a switch, SpinLockAcquire (re-arm: one clear observed), SpinLockRelease, LWLockRelease; arms: rseq_slice_yield faked (no kernel entry) and real (system call 471); random arm order per round; ns per clear = mean of per-round differences real − fake, 95% t interval",
      rounds: opts.rounds,
      iterations: opts.iterations,
      compiler,
      host: { hostname: hostname(), kernel: release(), cpus: cpus().length, cpuModel: cpus()[0]?.model ?? "unknown", load1Before, load1After: loadavg()[0]! },
      command: `slicelab postgres clear-cost --version ${major} --rounds ${opts.rounds} --iterations ${opts.iterations}`,
      kit: kitInfo(),
      started,
      ended: new Date().toISOString(),
      realCallsPerClear: real.reduce((a, s) => a + s.realCallsPerIteration, 0) / real.length,
      nsPerClear: analyseClearCost(samples),
      fakeNs: meanCi(samples.filter((s) => s.syscalls === "fake").map((s) => s.nsPerIteration)),
      samples,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
