/**
 * `slicelab prepare test|e2e`: everything the test suites need that takes minutes to make, made
 * once, up front, with a progress line and the time of each step — so that no test and no notebook
 * cell starts a build (they run under the build guard, src/util/build-guard.ts), and no test depends
 * on which test file happened to build something first.
 *
 *   test  the slice-extension kernel (slice-ext + vm), the VM probe, PostgreSQL 15 and 18 sources,
 *         PostgreSQL 18 unpatched and patched
 *   e2e   all of `test`, plus the tracepoint kernel (kernel-patches/linux/series/slicelab applied) and
 *         the rseq fix kernel (kernel-patches/linux/series/rseq-slice-stale-work applied)
 *   hz    the slice-extension kernel and the same at HZ 100 and 250 (kernel-patches/linux/hz100.config,
 *         hz250.config): what the model's HZ sweep boots (`study run mechanism-model-sweep --param hz=N`);
 *         no test needs them, so neither `test` nor `e2e` builds them
 *
 * Each step reports "cached" or what it built and how long it took; `--json` gives the same as a
 * record (what `scripts/test.sh --record` keeps).
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureKernel, ensurePatchedTree, hzFragments } from "../kernel/ensure.js";
import { buildRecordPath } from "../kernel/build.js";
import { buildPostgres } from "../postgres/build.js";
import { prepareCheckTree } from "../postgres/check-vm.js";
import { fetchDebianSource } from "../postgres/source.js";
import { buildProbe } from "../vm/probe.js";
import { staleSeriesDir } from "../vm/rseq-stale.js";
import { UserError } from "../util/errors.js";
import { cacheDir, repoRoot } from "../util/paths.js";

export const PREPARE_TARGETS = ["test", "e2e", "hz"] as const;
export type PrepareTarget = (typeof PREPARE_TARGETS)[number];

export interface StepResult {
  step: string;
  /** "cached": nothing was made; "made": this run made it. */
  status: "cached" | "made";
  seconds: number;
  detail: string;
}

interface Step {
  name: string;
  targets: PrepareTarget[];
  /** Makes (or finds) the artefact; returns a line about it and its path (made iff written during the step). */
  run(log: (s: string) => void): Promise<{ detail: string; path: string }>;
}

/** Whether `path` was written at or after `t0` (ms): the step made it rather than found it. */
function writtenSince(path: string, t0: number): boolean {
  return existsSync(path) && statSync(path).mtimeMs >= t0 - 1000;
}

/** Counts compiled objects in make's output and says so at most once a minute. */
export function makeProgress(what: string, log: (s: string) => void, now: () => number = Date.now, everyMs = 60_000): (line: string) => void {
  const start = now();
  let objects = 0;
  let last = start;
  return (line: string) => {
    if (/^\s*(CC|AS|LD|AR|HOSTCC)\s/.test(line)) objects++;
    const t = now();
    if (t - last >= everyMs) {
      last = t;
      log(`${what}: ${objects} objects so far, ${Math.round((t - start) / 1000)} s`);
    }
  };
}

function kernelSteps(): Step[] {
  return [
    {
      name: "kernel (slice-ext + vm)",
      targets: ["test", "e2e", "hz"],
      async run(log) {
        const rec = await ensureKernel({ log, onLine: makeProgress("make", log) });
        return { detail: `${rec.version}, ${rec.seconds} s build`, path: buildRecordPath(rec.buildDir) };
      },
    },
    {
      name: "VM probe (src/vm/slice-probe.c)",
      targets: ["test", "e2e"],
      async run() {
        const bin = await buildProbe();
        return { detail: bin, path: bin };
      },
    },
    {
      name: "tracepoint kernel (series slicelab, slice-ext + vm)",
      targets: ["e2e"],
      async run(log) {
        const tree = await ensurePatchedTree({ log });
        const rec = await ensureKernel({ tree, log, onLine: makeProgress("make", log) });
        return { detail: `${rec.version} + ${tree.patchSeries?.split("/").pop() ?? "series"}, ${rec.seconds} s build`, path: buildRecordPath(rec.buildDir) };
      },
    },
    {
      name: "rseq fix kernel (series rseq-slice-stale-work, slice-ext + vm)",
      targets: ["e2e"],
      async run(log) {
        const tree = await ensurePatchedTree({ seriesDir: staleSeriesDir(), log });
        const rec = await ensureKernel({ tree, log, onLine: makeProgress("make", log) });
        return { detail: `${rec.version} + ${tree.patchSeries?.split("/").pop() ?? "series"}, ${rec.seconds} s build`, path: buildRecordPath(rec.buildDir) };
      },
    },
    ...[100, 250].map((hz): Step => ({
      name: `kernel at HZ ${hz} (slice-ext + vm + hz${hz})`,
      targets: ["hz"],
      async run(log) {
        // After the default kernel: with ccache, only the files that use HZ compile again.
        const rec = await ensureKernel({ fragments: hzFragments(hz), log, onLine: makeProgress("make", log) });
        return { detail: `${rec.version} HZ ${hz}, ${rec.seconds} s build${rec.ccacheHits !== null ? ` (ccache hits ${rec.ccacheHits}, misses ${rec.ccacheMisses})` : ""}`, path: buildRecordPath(rec.buildDir) };
      },
    })),
  ];
}

function postgresSteps(): Step[] {
  const steps: Step[] = [];
  for (const major of ["15", "18"]) {
    steps.push({
      name: `PostgreSQL ${major} source`,
      targets: ["test", "e2e"],
      async run(log) {
        const src = await fetchDebianSource(major, log);
        return { detail: `${src.version}, ${src.dir}`, path: src.dir };
      },
    });
  }
  for (const variant of ["baseline", "patched"] as const) {
    steps.push({
      name: `PostgreSQL 18 ${variant}`,
      targets: ["test", "e2e"],
      async run(log) {
        const src = await fetchDebianSource("18");
        const b = await buildPostgres(src, variant, { log });
        return { detail: `${b.record.version}, ${b.record.buildSeconds} s build, ${b.prefix}`, path: join(b.prefix, "slicelab-build.json") };
      },
    });
  }
  steps.push({
    name: "PostgreSQL 15 patched",
    targets: ["test", "e2e"],
    async run(log) {
      const src = await fetchDebianSource("15");
      const b = await buildPostgres(src, "patched", { log });
      return { detail: `${b.record.version}, ${b.record.buildSeconds} s build, ${b.prefix}`, path: join(b.prefix, "slicelab-build.json") };
    },
  });
  steps.push({
    name: "PostgreSQL 18 make-check tree (postgres check --vm)",
    targets: ["e2e"],
    async run(log) {
      const src = await fetchDebianSource("18");
      const t = await prepareCheckTree(src, { log });
      return { detail: `${src.version}, ${t.reused ? "reused" : `${t.buildSeconds} s build`}, ${t.tree}`, path: t.tree };
    },
  });
  return steps;
}

export function prepareSteps(target: PrepareTarget): string[] {
  return [...kernelSteps(), ...postgresSteps()].filter((s) => s.targets.includes(target)).map((s) => s.name);
}

export function parseTarget(word: string | undefined): PrepareTarget {
  if (word !== undefined && (PREPARE_TARGETS as readonly string[]).includes(word)) return word as PrepareTarget;
  throw new UserError(`slicelab prepare: expected test, e2e or hz, found ${word === undefined ? "nothing" : JSON.stringify(word)}`);
}

/**
 * Paths the builds cannot take: kbuild refuses a source or output directory with spaces or colons,
 * and PostgreSQL's makefiles split an installation prefix with spaces. Returns the reason, or null.
 */
export function unbuildablePath(what: string, path: string, env: string): string | null {
  if (!/[\s:]/.test(path)) return null;
  return `${what} ${JSON.stringify(path)} contains a space or a colon, which the kernel's build (kbuild) and PostgreSQL's makefiles cannot take: ${env}`;
}

/** Runs the target's steps in order; each step's line says what it made or that it was cached. */
export async function prepare(target: PrepareTarget, log: (s: string) => void = () => {}): Promise<StepResult[]> {
  const why =
    unbuildablePath("the cache", cacheDir(), "set SLICELAB_CACHE to a directory without one (everything else may stay where it is)") ??
    unbuildablePath("the clone", repoRoot(), "the kernel configuration reads its fragments from the clone: clone into a path without one");
  if (why) throw new UserError(`slicelab prepare: ${why}`);
  const out: StepResult[] = [];
  for (const s of [...kernelSteps(), ...postgresSteps()].filter((x) => x.targets.includes(target))) {
    const t0 = Date.now();
    log(`${s.name}: …`);
    const { detail, path } = await s.run((l) => log(`${s.name}: ${l}`));
    const made = writtenSince(path, t0);
    const r: StepResult = { step: s.name, status: made ? "made" : "cached", seconds: Math.round((Date.now() - t0) / 100) / 10, detail };
    log(`${s.name}: ${r.status === "cached" ? "cached" : "made"} in ${r.seconds} s (${detail})`);
    out.push(r);
  }
  return out;
}

/** True when `dir` holds nothing the kit made (no kernel tree, no build): a cold cache. */
export function cacheIsCold(dir: string): boolean {
  return !existsSync(join(dir, "kernel", "current.json")) && !existsSync(join(dir, "postgres"));
}
