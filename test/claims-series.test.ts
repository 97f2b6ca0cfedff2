// The Rostedt-2023 claims re-asked of our own series (src/claims/series.ts, `slicelab claims --series`),
// on a temporary copy of the committed A/A series data/runs/rostedt-2023/20261130T011758Z.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";
import { buildLedger, noiseFloorVerdict, seriesClaims, VERDICTS, type ClaimEntry } from "../src/claims/index.js";

const root = repoRoot();
const NAME = "rostedt-2023/20261130T011758Z";
const tmp = mkdtempSync(join(tmpdir(), "slicelab-claims-series-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A fresh copy of the committed series under the temp directory (reading a series may rewrite results.csv). */
function copySeries(as: string): string {
  const dir = join(tmp, as);
  cpSync(join(root, "data", "runs", NAME), dir, { recursive: true });
  return dir;
}
const DIR = copySeries(NAME);

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [join(root, "bin", "slicelab.js"), "claims", ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};
const KEYS = ["id", "source", "claim", "cites", "published", "recomputed", "uncertainty", "verdict", "reason", "basis", "reproduction", "values"];
const rel = (actual: number | null, expected: number, tol: number, what: string) => {
  assert.ok(actual !== null, `${what}: null`);
  const err = Math.abs(actual - expected) / Math.abs(expected);
  assert.ok(err <= tol, `${what}: ${actual} vs ${expected} (relative error ${err.toExponential(2)} > ${tol})`);
};
const byId = (entries: ClaimEntry[], suffix: string) => {
  const e = entries.find((x) => x.id === `series:${NAME}:${suffix}`);
  assert.ok(e, `no entry series:${NAME}:${suffix} among ${entries.map((x) => x.id).join(", ")}`);
  return e;
};

// The tidy table, read here independently of src/: columns run,id,block,variant,workload,warmup,tps,…
const rows = readFileSync(join(DIR, "results.csv"), "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((l) => l.split(","))
  .map((c) => ({ run: Number(c[0]), block: Number(c[2]), variant: c[3]!, warmup: c[5] === "true", tps: Number(c[6]) }));
const tpsOf = (v: string, warm: boolean) => rows.filter((r) => r.variant === v && r.warmup === warm).map((r) => r.tps);
const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const sdev = (xs: number[]) => {
  const m = avg(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
};

const entries = seriesClaims(DIR);

test("four entries of the ledger's shape, ids series:<dirname>:…, source naming the directory, protocol and variants", () => {
  assert.deepEqual(
    entries.map((e) => e.id),
    ["difference", "smaller-std-dev", "first-run-cold", "noise-floor"].map((s) => `series:${NAME}:${s}`),
  );
  for (const e of entries) {
    assert.deepEqual(Object.keys(e), KEYS, e.id);
    assert.ok((VERDICTS as readonly string[]).includes(e.verdict), `${e.id}: ${e.verdict}`);
    assert.ok(e.reason.length > 0 && !e.reason.includes("\n"), `${e.id}: one-line reason`);
    assert.match(e.source, new RegExp(`${NAME} \\(protocol rostedt-2023, blocks design; variants A vs B; workload pgbench-select-only\\)$`));
    // The provenance line, read from series.json/provenance.json/the runs: shortened duration, design, load caveat.
    assert.match(e.basis, /protocol rostedt-2023; 20 s per run \(protocol: 300 s\); randomised blocks \(seed 20261130\); host AMD EPYC, 2 CPUs; 1-min load average [\d.]+ to [\d.]+ on 2 CPUs: the host ran other work/);
  }
});

// Expected values: SciPy 1.10.1 (Debian 12 python3-scipy, /usr/bin/python3) on results.csv of this series,
// measured (warmup=false) runs, A = variant A, B = variant B:
//   welch       scipy.stats.ttest_ind(B, A, equal_var=False)            t = 0.3917095366572678, p = 0.6982667408894271
//   mwu         scipy.stats.mannwhitneyu(A, B)                           U = 97.0, p = 0.5338294217441396
//   F-test      F = var(B)/var(A), p = 2·min(f.cdf, f.sf)(F, 14, 14)     F = 1.2180431738787023, p = 0.7172029959219568
//   BF          scipy.stats.levene(A, B, center="median")                W = 0.12480242727082894, p = 0.7265291018792002
//   paired      scipy.stats.ttest_rel(B, A) over the 15 blocks           t = 0.5140682132408371, p = 0.6152223002235571
//   half-width  t.ppf(0.975, 14)·sd(B−A)/√15 / mean(A)·100               6.432445316609371 %
//   MDE paired  brentq on nct.sf(tq, 14, δ/se) + nct.cdf(−tq, 14, δ/se) = 0.8, /mean(A)·100    9.037115287542473 %
//   MDE Welch   the same with the Welch–Satterthwaite df and se          11.427620927346657 %
//   Grubbs      G = max|x − mean|/sd over all 16 runs of a variant; critical from t.ppf(1 − 0.05/32, 14)
//               A: G = 2.198670192294149, B: G = 1.9006990595281856, critical 2.585676338829365
test("difference: Welch, Mann–Whitney, paired blocks agree with SciPy; the A/A series is not significant", () => {
  const e = byId(entries, "difference");
  const A = tpsOf("A", false);
  const B = tpsOf("B", false);
  assert.equal(A.length, 15);
  assert.equal(B.length, 15);
  rel(e.values.meanA!, avg(A), 1e-12, "mean A");
  rel(e.values.differencePct!, (100 * (avg(B) - avg(A))) / avg(A), 1e-10, "difference %");
  rel(e.values.welchT!, 0.3917095366572678, 1e-9, "Welch t");
  rel(e.values.welchP!, 0.6982667408894271, 1e-9, "Welch p");
  assert.equal(e.values.mannWhitneyU, 97);
  rel(e.values.mannWhitneyP!, 0.5338294217441396, 1e-9, "Mann–Whitney p");
  assert.equal(e.values.pairedBlocks, 15);
  rel(e.values.pairedT!, 0.5140682132408371, 1e-9, "paired t");
  rel(e.values.pairedP!, 0.6152223002235571, 1e-9, "paired p");
  assert.ok(e.values.bootstrapLoPct! < 0 && e.values.bootstrapHiPct! > 0, "bootstrap interval holds 0");
  assert.equal(e.values.leaveOneOutFlips, 0);
  assert.equal(e.values.pairedLeaveOneOutFlips, 0);
  assert.equal(e.verdict, "not significant");
  assert.match(e.reason, /paired block t p = 0\.615/);
  // Compared with Rostedt's published difference, recomputed from his posted runs.
  rel(e.values.publishedDifferencePct!, 0.24463199955053846, 1e-9, "Rostedt's difference");
  assert.match(e.published, /^Rostedt 2023: \+0\.245% /);
});

test("smaller std dev: F-test and Brown–Forsythe agree with SciPy; not significant", () => {
  const e = byId(entries, "smaller-std-dev");
  rel(e.values.sdRatio!, sdev(tpsOf("B", false)) / sdev(tpsOf("A", false)), 1e-12, "SD ratio");
  rel(e.values.fTestF!, 1.2180431738787023, 1e-12, "F");
  rel(e.values.fTestP!, 0.7172029959219568, 1e-9, "F-test p");
  rel(e.values.brownForsytheW!, 0.12480242727082894, 1e-9, "Brown–Forsythe W");
  rel(e.values.brownForsytheP!, 0.7265291018792002, 1e-9, "Brown–Forsythe p");
  assert.ok(e.values.bootstrapLo! < 1 && e.values.bootstrapHi! > 1, "bootstrap interval of the ratio holds 1");
  assert.equal(e.verdict, "not significant");
});

test("first run: the warm-up runs of this series are the fastest, not cold: not reproduced", () => {
  const e = byId(entries, "first-run-cold");
  for (const v of ["A", "B"] as const) {
    const warm = tpsOf(v, true);
    const kept = tpsOf(v, false);
    const all = rows.filter((r) => r.variant === v).map((r) => r.tps);
    assert.equal(warm.length, 1, `one warm-up run of ${v}`);
    assert.equal(e.values[`warmupRuns${v}`], 1);
    rel(e.values[`firstWarmupZ${v}`]!, (warm[0]! - avg(kept)) / sdev(kept), 1e-12, `z of ${v}'s warm-up`);
    assert.equal(e.values[`firstWarmupRank${v}`], 1 + all.filter((x) => x < warm[0]!).length, `rank of ${v}'s warm-up`);
    assert.ok(e.values[`firstWarmupZ${v}`]! > 0, `${v}'s warm-up is above its measured mean`);
  }
  rel(e.values.grubbsGA!, 2.198670192294149, 1e-12, "Grubbs G of A");
  rel(e.values.grubbsGB!, 1.9006990595281856, 1e-12, "Grubbs G of B");
  rel(e.values.grubbsCriticalA!, 2.585676338829365, 1e-8, "Grubbs critical");
  assert.equal(e.verdict, "not reproduced");
  assert.match(e.reason, /A and B: not below the measured runs/);
});

test("noise floor: paired half-width and minimum detectable effects agree with SciPy; far above Rostedt's +0.245%", () => {
  const e = byId(entries, "noise-floor");
  rel(e.values.halfWidthPct!, 6.432445316609371, 1e-9, "paired 95% CI half-width");
  rel(e.values.minimumDetectableEffectPct!, 9.037115287542473, 1e-6, "paired MDE");
  rel(e.values.welchMinimumDetectableEffectPct!, 11.427620927346657, 1e-6, "Welch MDE");
  rel(e.values.welchHalfWidthPct!, 8.065921651070967, 1e-9, "Welch half-width");
  assert.equal(e.values.durationSeconds, 20);
  assert.equal(e.values.cpus, 2);
  assert.ok(e.values.runsPerSideForPublished! > 1000, `runs needed: ${e.values.runsPerSideForPublished}`);
  assert.equal(e.verdict, "not checkable");
  // The rule itself, both ways.
  assert.equal(noiseFloorVerdict(0.2, 0.245), "consistent");
  assert.equal(noiseFloorVerdict(9.04, 0.245), "not checkable");
  assert.equal(noiseFloorVerdict(Number.NaN, 0.245), "not checkable");
});

test("a real difference is found: B's measured runs scaled by 1.3 in a copy → reproduced, and A/B swapped → not reproduced", () => {
  const dir = copySeries("scaled");
  for (const id of readdirSync(join(dir, "runs"))) {
    const f = join(dir, "runs", id, "result.json");
    const r = JSON.parse(readFileSync(f, "utf8")) as { variant: string; warmup: boolean; workloads: { tps: number }[] };
    if (r.variant !== "B" || r.warmup) continue;
    for (const w of r.workloads) w.tps *= 1.3;
    writeFileSync(f, JSON.stringify(r));
  }
  const up = seriesClaims(dir, { resamples: 2000 });
  const d = up.find((x) => x.id === "series:scaled:difference")!;
  assert.ok(d.values.differencePct! > 25, `${d.values.differencePct}`);
  assert.equal(d.verdict, "reproduced", d.reason);
  const swapped = seriesClaims(dir, { a: "B", b: "A", resamples: 2000 }).find((x) => x.id === "series:scaled:difference")!;
  assert.equal(swapped.verdict, "not reproduced", swapped.reason);
  assert.match(swapped.source, /variants B vs A/);
});

test("buildLedger({ series }) appends the series entries after the published ones", () => {
  const ledger = buildLedger({ series: [DIR], resamples: 2000 });
  const published = buildLedger({ resamples: 2000 });
  assert.deepEqual(ledger.slice(0, published.length), published);
  assert.deepEqual(
    ledger.slice(published.length).map((e) => [e.id, e.verdict]),
    seriesClaims(DIR, { resamples: 2000 }).map((e) => [e.id, e.verdict]),
  );
});

test("claims --series DIR --json: the series entries, keys in the fixed order, equal to seriesClaims(DIR)", () => {
  const r = run("--series", DIR, "--json");
  assert.equal(r.status, 0, r.stderr);
  const parsed = JSON.parse(r.stdout) as ClaimEntry[];
  assert.equal(parsed.length, 4);
  for (const e of parsed) assert.deepEqual(Object.keys(e), KEYS, e.id);
  assert.deepEqual(parsed, JSON.parse(JSON.stringify(entries)));
  const one = run("--series", DIR, "--a", "A", "--b", "B", "--id", `series:${NAME}:noise-floor`, "--json");
  assert.equal(one.status, 0, one.stderr);
  const e = JSON.parse(one.stdout) as ClaimEntry;
  assert.equal(e.id, `series:${NAME}:noise-floor`);
  assert.equal(e.verdict, "not checkable");
  const table = run("--series", DIR);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, new RegExp(`^series:${NAME}:difference\\s+not significant`, "m"));
});

test("claims --series: not a series, fewer than 2 variants, unknown variant → exit 2 naming the directory", () => {
  const expect2 = (args: string[], re: RegExp) => {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    assert.equal(r.stdout, "", "nothing printed on stdout");
  };
  const missing = join(tmp, "no-such-series");
  expect2(["--series", missing], new RegExp(`${missing}: expected a series directory .*found no such file or directory`));
  const empty = join(tmp, "empty");
  mkdirSync(empty);
  expect2(["--series", empty, "--json"], new RegExp(`${empty}: expected a series directory .*found a directory without series.json`));

  const one = copySeries("one-variant");
  const plan = JSON.parse(readFileSync(join(one, "series.json"), "utf8")) as { variants: unknown[] };
  plan.variants = plan.variants.slice(0, 1);
  writeFileSync(join(one, "series.json"), JSON.stringify(plan));
  expect2(["--series", one], new RegExp(`${one}/series.json: expected at least 2 variants to compare, found 1 \\(A\\)`));

  expect2(["--series", DIR, "--b", "C"], new RegExp(`${DIR}/series.json: --b C: expected one of the series' variants A, B, found "C"`));
  expect2(["--series", DIR, "--a", "B"], /expected two different variants for --a and --b, found "B" twice/);
  expect2(["--a", "A"], /--a selects from a series: expected --series DIR with it/);
  // The API throws the same UserError.
  assert.throws(() => seriesClaims(DIR, { a: "C" }), (err: unknown) => err instanceof UserError && err.exitCode === 2);
});
