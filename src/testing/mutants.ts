/**
 * Mutation checks for the assertions that replaced vacuous ones (issue 18, item 4): each mutation
 * breaks the compiled implementation the way the old assertion could not see, and the test that now
 * guards it must fail against the broken copy.
 *
 *   node dist/src/testing/mutants.js                  # every mutation; exit 1 if one survives
 *   node dist/src/testing/mutants.js NAME… [--baseline] [--list]
 *
 * A mutation is applied to a copy of dist/ (and bin/) in a temporary directory whose other entries
 * (package.json, src, data, test, protocols, node_modules, …) are symlinks into the repository, so
 * repoRoot() of the copy is the copy and spawned programs (bin/slicelab.js, dist/src/collect/cost.js)
 * run the mutant too. Nothing in the working tree is written; the temporary directory is removed.
 * `--baseline` also runs each test on the unmutated copy, which must pass. Results are printed as a
 * markdown table (mutation, test, result), the one DEVELOPERS.md quotes.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../util/paths.js";
import { UserError } from "../util/errors.js";

export interface Mutation {
  name: string;
  /** What the broken implementation does (and why the old assertion passed on it). */
  what: string;
  /** A compiled file under dist/. */
  file: string;
  /** Exact text of the compiled file (must occur once) and its replacement. */
  find: string;
  replace: string;
  /** The compiled test file and the name (regular expression) of the test that must fail. */
  test: string;
  testName: string;
}

export const MUTATIONS: Mutation[] = [
  {
    name: "proc-stat-utime-field",
    what: "parseProcStatTimes reads utime from field 13 (cmajflt) instead of 14: a small count that is ≥ 0",
    file: "dist/src/collect/cost.js",
    find: "utime: num(14)",
    replace: "utime: num(13)",
    test: "dist/test/collect-cost.test.js",
    testName: "parseProcStatTimes: this process",
  },
  {
    name: "server-cpu-live-not-exited",
    what: "a window's server CPU from the postmaster's own utime + stime instead of its exited children's (cutime + cstime): ≈ 0, which is ≥ 0",
    file: "dist/src/collect/cost.js",
    find: "serverS = (pm.cutime + pm.cstime) / USER_HZ;",
    replace: "serverS = (pm.utime + pm.stime) / USER_HZ;",
    test: "dist/test/collect-cost.test.js",
    testName: "a real worker window",
  },
  {
    name: "status-voluntary-is-nonvoluntary",
    what: "parseStatusSwitches returns the nonvoluntary count as voluntary: ≥ 0, but it does not grow by five sleeps",
    file: "dist/src/collect/ctxsw.js",
    find: "voluntary: Number(v[1])",
    replace: "voluntary: Number(n[1])",
    test: "dist/test/collect-pg.test.js",
    testName: "helpers: activity JSON",
  },
  {
    name: "micro-involuntary-unfilled",
    what: "the micro-benchmark's involuntary switch counts are never filled in (0 and 0): ≥ 0",
    file: "dist/src/micro/driver.js",
    find: "    return o;\n}",
    replace: "    if (o.results) o.results.involuntaryCtxSwitches = { workers: 0, hogs: 0 };\n    return o;\n}",
    test: "dist/test/micro-lhp.test.js",
    testName: "micro run --extension off: JSON",
  },
  {
    name: "rseq-rows-pg-grants-are-requests",
    what: "rseqSliceRows reports PostgreSQL's requests as its grants: every kernel counter still ≥ 0",
    file: "dist/src/collect/tables.js",
    find: "pgGrants: delta.grants ?? 0",
    replace: "pgGrants: delta.requests ?? 0",
    test: "dist/test/collect-tables-vm.test.js",
    testName: "collected VM series: rseq-stats rows",
  },
  {
    name: "charge-kit-cpu-percent-as-fraction",
    what: "chargeKitCpu charges a tenth of the kit's CPU share (÷ 1000 instead of ÷ 100); the old check re-implemented the formula inside an end-to-end run only",
    file: "dist/src/bench/overhead.js",
    find: "const factor = 1 - maxKitCpuPct / 100;",
    replace: "const factor = 1 - maxKitCpuPct / 1000;",
    test: "dist/test/bench-overhead.test.js",
    testName: "chargeKitCpu: the lower end",
  },
  {
    name: "variance-population",
    what: "variance divides by n instead of n − 1: the old test only checked that the population SD prints differently, on its own arithmetic",
    file: "dist/src/stats/summary.js",
    find: "return sumSquaredDeviations(xs, mean(xs)) / (n - 1);",
    replace: "return sumSquaredDeviations(xs, mean(xs)) / n;",
    test: "dist/test/stats-summary.test.js",
    testName: "summary\\(\\) of Rostedt's posted runs",
  },
  {
    name: "hogs-never-start",
    what: "startHogs' hogs exit at once instead of spinning: the old SIGINT test found 'no hog left' because none was running",
    file: "dist/src/bench/procs.js",
    find: "do (while :; do :; done) & i=",
    replace: "do (:) & i=",
    test: "dist/test/bench-sigint.test.js",
    testName: "SIGINT mid-run",
  },
];

/** The outcome of one mutation. */
export interface MutantResult {
  name: string;
  test: string;
  testName: string;
  /** "killed" (the test failed on the mutant), "survived" (it passed), or why it could not run. */
  result: "killed" | "survived" | "not applied" | "skipped";
  /** With --baseline: the test's result on the unmutated copy. */
  baseline?: "passed" | "failed";
  detail: string;
}

/** A copy of the repository for a mutant: dist/ and bin/ copied, everything else symlinked. */
export function mutantTree(root: string = repoRoot()): string {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-mutant-"));
  for (const e of readdirSync(root)) {
    if (e === ".git" || e === ".work") continue;
    if (e === "dist" || e === "bin") cpSync(join(root, e), join(dir, e), { recursive: true });
    else symlinkSync(join(root, e), join(dir, e));
  }
  return dir;
}

/** Applies a mutation to a tree made by mutantTree; throws when its text no longer occurs exactly once. */
export function applyMutation(tree: string, m: Mutation): void {
  const path = join(tree, m.file);
  const text = readFileSync(path, "utf8");
  const n = text.split(m.find).length - 1;
  if (n !== 1) throw new UserError(`mutation ${m.name}: expected the text ${JSON.stringify(m.find)} once in ${m.file}, found it ${n} times (rebuild, or update src/testing/mutants.ts)`);
  writeFileSync(path, text.replace(m.find, m.replace));
}

interface TestRun {
  code: number | null;
  passed: number;
  failed: number;
  skipped: number;
  out: string;
}

function runTest(tree: string, m: Mutation): TestRun {
  // Run from inside a test, node:test's context variable would make the child report to the parent
  // runner instead of printing TAP: drop it.
  const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
  const r = spawnSync(process.execPath, ["--test", "--test-concurrency=1", "--test-reporter=tap", `--test-name-pattern=${m.testName}`, join(tree, m.test)], {
    cwd: tree,
    encoding: "utf8",
    timeout: 300_000,
    // The real work directory: PostgreSQL builds and clusters are found where the tests look for them.
    env: { ...env, SLICELAB_WORK: process.env.SLICELAB_WORK ?? join(repoRoot(), ".work") },
  });
  const count = (k: string) => Number(new RegExp(`^# ${k} (\\d+)$`, "m").exec(r.stdout ?? "")?.[1] ?? 0);
  return { code: r.status, passed: count("pass"), failed: count("fail"), skipped: count("skipped"), out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** The first failing assertion's message of a TAP run, shortened. */
function firstFailure(out: string): string {
  const m = /^not ok \d+ - (.*)$[\s\S]*?error: ([^\n]*(?:\n {4}[^\n]*){0,2})/m.exec(out);
  return m ? `${m[1]}: ${m[2]!.replace(/\s+/g, " ").slice(0, 160)}` : "";
}

/** Runs one mutation (and optionally the baseline) in fresh trees; never touches the working tree. */
export function runMutation(m: Mutation, options: { baseline?: boolean; root?: string } = {}): MutantResult {
  const base = { name: m.name, test: m.test.replace(/^dist\//, "").replace(/\.js$/, ".ts"), testName: m.testName };
  let baseline: MutantResult["baseline"];
  if (options.baseline) {
    const t = mutantTree(options.root);
    try {
      const r = runTest(t, m);
      baseline = r.code === 0 && r.passed > 0 ? "passed" : "failed";
    } finally {
      rmSync(t, { recursive: true, force: true });
    }
  }
  const tree = mutantTree(options.root);
  try {
    try {
      applyMutation(tree, m);
    } catch (e) {
      return { ...base, result: "not applied", baseline, detail: e instanceof Error ? e.message : String(e) };
    }
    const r = runTest(tree, m);
    if (r.failed > 0) return { ...base, result: "killed", baseline, detail: firstFailure(r.out) };
    if (r.passed === 0) return { ...base, result: "skipped", baseline, detail: `the test did not run (${r.skipped} skipped): nothing was checked` };
    return { ...base, result: "survived", baseline, detail: `the test passed against the mutant` };
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/** The markdown table of results. */
export function mutantTable(results: MutantResult[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const withBase = results.some((r) => r.baseline);
  return [
    `| mutation | what it breaks | test | result${withBase ? " | unmutated" : ""} |`,
    `| --- | --- | --- | ---${withBase ? " | ---" : ""} |`,
    ...results.map((r) => {
      const m = MUTATIONS.find((x) => x.name === r.name);
      return `| \`${r.name}\` | ${cell(m?.what ?? "")} | \`${r.test}\`: ${cell(r.testName.replace(/\\/g, ""))} | ${r.result}${r.detail && r.result !== "killed" ? ` (${cell(r.detail)})` : ""}${withBase ? ` | ${r.baseline ?? ""}` : ""} |`;
    }),
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--list")) {
    for (const m of MUTATIONS) process.stdout.write(`${m.name}\t${m.test}\t${m.what}\n`);
    return 0;
  }
  const names = argv.filter((a) => !a.startsWith("--"));
  for (const n of names) if (!MUTATIONS.some((m) => m.name === n)) throw new UserError(`no mutation named "${n}" (slicelab mutations: ${MUTATIONS.map((m) => m.name).join(", ")})`);
  const chosen = names.length ? MUTATIONS.filter((m) => names.includes(m.name)) : MUTATIONS;
  const results: MutantResult[] = [];
  for (const m of chosen) {
    const r = runMutation(m, { baseline: argv.includes("--baseline") });
    process.stderr.write(`${m.name}: ${r.result}${r.detail ? ` — ${r.detail}` : ""}\n`);
    results.push(r);
  }
  process.stdout.write(`${mutantTable(results)}\n`);
  return results.every((r) => r.result === "killed" && r.baseline !== "failed") ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      if (err instanceof UserError) {
        process.stderr.write(`mutants: ${err.message}\n`);
        process.exit(2);
      }
      throw err;
    },
  );
}
