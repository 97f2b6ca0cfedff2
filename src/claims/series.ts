/**
 * Rostedt 2023's quantitative claims re-asked of one of OUR series (a directory
 * written by `slicelab bench run`): is B − A "noticeable beyond the noise"? does B
 * have "a much smaller std dev"? is the first (warm-up) run cold and right to
 * discard? and how small a difference can the series resolve, compared with the
 * +0.245% Rostedt reported? Each answer is a ledger entry of the same shape as the
 * published ones (entry.ts), computed from the series' finished runs, never typed.
 */
import { tryReadJson } from "../util/json.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { seriesRows, type SeriesRow } from "../bench/series.js";
import {
  compareSamples,
  leaveOneOut,
  mean,
  nctCdf,
  sd,
  summary,
  tQuantile,
  tTwoSidedP,
  type BootstrapResult,
  type Comparison,
} from "../stats/index.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { claimEntry, type ClaimEntry } from "./entry.js";
import { spreadTestValues } from "./spread.js";
import { rostedtInput } from "./inputs.js";
import { ledgerOptions, type LedgerOptions } from "./ledger.js";
import { fmt, fmtInterval, fmtP, fmtSignedPct } from "./numbers.js";
import {
  bootstrapExclusion,
  differenceValues,
  fTestRule,
  grubbs,
  rankFromLowest,
  rostedtComparison,
  seedCheckBootstraps,
  spreadAnalysis,
  type RostedtData,
  type RostedtOptions,
  type SeedCheckedExclusion,
} from "./rostedt.js";
import { effectVerdict, outlierVerdict, type Verdict } from "./verdicts.js";

/** Which variants and workload of a series to compare, and the ledger's statistical options. */
export interface SeriesClaimsOptions extends LedgerOptions {
  /** Variant A (default: the first variant series.json declares). */
  a?: string;
  /** Variant B (default: the second declared variant). */
  b?: string;
  /** Workload (default: the first one series.json declares). */
  workload?: string;
}

/** What provenance.json and series.json say about how the series was made. */
export interface SeriesProvenance {
  protocol: string;
  design: "blocks" | "sequential";
  seed: number | null;
  /** Seconds per run as the series ran it (the workload's `duration` parameter), or null when it has none. */
  duration: number | null;
  /** The protocol's own duration, when the series overrode it. */
  protocolDuration: number | null;
  deviations: string[];
  cpus: number | null;
  cpuModel: string | null;
  /** Highest 1-minute load average recorded before or after a run of the compared variants, and at session starts. */
  maxLoad1: number | null;
  minLoad1: number | null;
  /** One line: protocol, duration, design, host and the load caveat. */
  line: string;
}

/** A series read for the claims: the measured and warm-up runs of A and B. */
export interface SeriesInput {
  /** The directory as given. */
  dir: string;
  /** Its last path component (used in ids). */
  name: string;
  /** The directory relative to the repository when inside it, else absolute (used in `source`). */
  shown: string;
  variants: string[];
  a: string;
  b: string;
  workload: string;
  /** Measured (non-warm-up) runs in run order. */
  runsA: SeriesRow[];
  runsB: SeriesRow[];
  /** Warm-up runs in run order. */
  warmupA: SeriesRow[];
  warmupB: SeriesRow[];
  /** Blocks in which both A and B have a measured run: [A run, B run]. */
  pairs: [SeriesRow, SeriesRow][];
  provenance: SeriesProvenance;
}

interface PlanFile {
  protocol?: { name?: string };
  design?: string;
  seed?: number;
  cpus?: number;
  variants?: { name?: unknown }[];
  workloads?: { name?: string; params?: Record<string, unknown> }[];
}

interface ProvenanceFile {
  series?: { deviationsFromProtocol?: string[] };
  sessions?: { host?: { cpus?: number; cpuModel?: string }; loadAverage?: number[] }[];
}

function readJsonFile<T>(file: string, what: string): T {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UserError(`${file}: expected ${what}, found it unreadable (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UserError(`${file}: expected ${what} (JSON), found text that does not parse as JSON`);
  }
}

/** The series' directory, checked: a directory holding series.json. */
function checkSeriesDir(dir: string): void {
  const what = "a series directory (with series.json, as `slicelab bench run … --out DIR` writes)";
  if (!existsSync(dir)) throw new UserError(`${dir}: expected ${what}, found no such file or directory`);
  if (!statSync(dir).isDirectory()) throw new UserError(`${dir}: expected ${what}, found a file`);
  if (!existsSync(join(dir, "series.json"))) throw new UserError(`${dir}: expected ${what}, found a directory without series.json`);
}

function durationOf(params: Record<string, unknown> | undefined): number | null {
  const d = params?.["duration"];
  const n = typeof d === "number" ? d : typeof d === "string" ? Number(d) : NaN;
  return Number.isFinite(n) ? n : null;
}

function provenanceOf(dir: string, plan: PlanFile, workload: string, rows: SeriesRow[]): SeriesProvenance {
  const provFile = join(dir, "provenance.json");
  const prov = existsSync(provFile) ? readJsonFile<ProvenanceFile>(provFile, "the series' provenance") : {};
  const deviations = prov.series?.deviationsFromProtocol ?? [];
  const w = (plan.workloads ?? []).find((x) => x.name === workload);
  const duration = durationOf(w?.params);
  // "--param duration=20 (protocol: 300)" is how the runner records an override.
  const dev = deviations.map((d) => /^--param duration=\S+ \(protocol: ([\d.]+)\)$/.exec(d)).find((m) => m !== null);
  const protocolDuration = dev ? Number(dev[1]) : null;
  const sessions = prov.sessions ?? [];
  const host = sessions.find((s) => s.host)?.host;
  const cpus = host?.cpus ?? plan.cpus ?? null;
  const loads = [
    ...rows.flatMap((r) => [r.load1Before, r.load1After]),
    ...sessions.map((s) => s.loadAverage?.[0]).filter((x): x is number => typeof x === "number"),
  ].filter((x) => Number.isFinite(x));
  const maxLoad1 = loads.length ? Math.max(...loads) : null;
  const minLoad1 = loads.length ? Math.min(...loads) : null;
  const protocol = plan.protocol?.name ?? "(unnamed protocol)";
  const design = plan.design === "sequential" ? "sequential" : "blocks";
  const parts = [
    `protocol ${protocol}`,
    duration === null ? "duration not recorded" : `${fmt(duration, 0)} s per run${protocolDuration !== null ? ` (protocol: ${fmt(protocolDuration, 0)} s)` : ""}`,
    design === "blocks" ? `randomised blocks (seed ${plan.seed ?? "not recorded"})` : "sequential design (all A, then all B)",
  ];
  const other = deviations.filter((d) => !/^--param duration=/.test(d));
  if (other.length) parts.push(`other departures: ${other.join("; ")}`);
  parts.push(host ? `host ${host.cpuModel ?? "?"}, ${host.cpus ?? "?"} CPUs` : "host not recorded (no provenance.json)");
  if (maxLoad1 !== null && minLoad1 !== null) {
    const loaded = cpus !== null && maxLoad1 > cpus;
    parts.push(
      `1-min load average ${fmt(minLoad1, 2)} to ${fmt(maxLoad1, 2)}${cpus !== null ? ` on ${cpus} CPUs` : ""}` +
        (loaded ? ": the host ran other work, so the noise here includes it" : ""),
    );
  }
  return {
    protocol,
    design,
    seed: plan.seed ?? null,
    duration,
    protocolDuration,
    deviations,
    cpus,
    cpuModel: host?.cpuModel ?? null,
    maxLoad1,
    minLoad1,
    line: parts.join("; "),
  };
}

/** Reads and checks a series directory for the claims (UserError, exit 2, when it cannot be used). */
export function seriesInput(dir: string, opts: SeriesClaimsOptions = {}): SeriesInput {
  checkSeriesDir(dir);
  const file = join(dir, "series.json");
  const plan = readJsonFile<PlanFile>(file, "a series plan");
  const variants = (plan.variants ?? []).map((v) => v.name).filter((n): n is string => typeof n === "string");
  if (variants.length < 2) {
    throw new UserError(`${file}: expected at least 2 variants to compare, found ${variants.length}${variants.length ? ` (${variants.join(", ")})` : ""}`);
  }
  const a = opts.a ?? variants[0]!;
  const b = opts.b ?? variants[1]!;
  for (const [opt, v] of [
    ["--a", a],
    ["--b", b],
  ] as const) {
    if (!variants.includes(v)) throw new UserError(`${file}: ${opt} ${v}: expected one of the series' variants ${variants.join(", ")}, found "${v}"`);
  }
  if (a === b) throw new UserError(`${file}: expected two different variants for --a and --b, found "${a}" twice`);
  const workloads = (plan.workloads ?? []).map((w) => w.name).filter((n): n is string => typeof n === "string");
  const workload = opts.workload ?? workloads[0];
  if (workload === undefined || !workloads.includes(workload)) {
    throw new UserError(`${file}: expected a workload among ${workloads.join(", ") || "(none declared)"}, found ${String(opts.workload)}`);
  }
  const rows = seriesRows(dir).filter((r) => r.workload === workload && (r.variant === a || r.variant === b));
  const of = (v: string, warm: boolean) => rows.filter((r) => r.variant === v && r.warmup === warm);
  const runsA = of(a, false);
  const runsB = of(b, false);
  if (runsA.length < 2 || runsB.length < 2) {
    throw new UserError(`${dir}: expected at least 2 finished measured runs of each variant, found ${a}: ${runsA.length}, ${b}: ${runsB.length}`);
  }
  const byBlock = new Map<number, { a?: SeriesRow; b?: SeriesRow }>();
  for (const r of [...runsA, ...runsB]) {
    const e = byBlock.get(r.block) ?? {};
    if (r.variant === a) e.a = r;
    else e.b = r;
    byBlock.set(r.block, e);
  }
  const pairs = [...byBlock.entries()]
    .sort(([x], [y]) => x - y)
    .flatMap(([, e]) => (e.a && e.b ? [[e.a, e.b] as [SeriesRow, SeriesRow]] : []));
  const abs = resolve(dir);
  const rel = relative(repoRoot(), abs);
  return {
    dir,
    // a record at data/runs/STUDY/STAMP is named STUDY/STAMP (its envelope's study), one made before the one layout by its directory
    name: recordName(abs),
    shown: rel.startsWith("..") || rel === "" ? abs : rel,
    variants,
    a,
    b,
    workload,
    runsA,
    runsB,
    warmupA: of(a, true),
    warmupB: of(b, true),
    pairs,
    provenance: provenanceOf(dir, plan, workload, rows),
  };
}

/** The paired (randomised-block) analysis: d = B − A within each block, in % of A's measured mean. */
export interface PairedAnalysis {
  blocks: number;
  meanDiffPct: number;
  t: number;
  df: number;
  p: number;
  ciPct: [number, number];
  halfWidthPct: number;
  /** Smallest true difference (% of A's mean) the paired t-test detects with `power` at the observed SD of d. */
  minimumDetectableEffectPct: number;
  /** Blocks whose omission flips the paired test's significance at alpha. */
  leaveOneOutFlips: number[];
  leaveOneOutMinP: number;
  leaveOneOutMaxP: number;
}

function pairedP(d: readonly number[]): { t: number; p: number; se: number } {
  const se = sd(d) / Math.sqrt(d.length);
  const t = mean(d) / se;
  return { t, p: tTwoSidedP(t, d.length - 1), se };
}

/**
 * Power of the two-sided paired t-test (df = n − 1) to detect a true mean difference
 * `delta` when the within-block differences have SD `sdD`: noncentral t with
 * noncentrality delta / (sdD/√n).
 */
export function pairedPower(sdD: number, n: number, delta: number, alpha = 0.05): number {
  const df = n - 1;
  const ncp = Math.abs(delta) / (sdD / Math.sqrt(n));
  const tc = tQuantile(1 - alpha / 2, df);
  return Math.min(1, Math.max(0, 1 - nctCdf(tc, df, ncp) + nctCdf(-tc, df, ncp)));
}

/** Smallest true difference, in % of meanA, the paired t-test detects with `power` (bisection to 1e-12 relative). */
export function pairedMinimumDetectableEffectPct(sdD: number, n: number, meanA: number, alpha = 0.05, power = 0.8): number {
  if (n < 2) return NaN;
  if (sdD === 0) return 0;
  let lo = 0;
  let hi = sdD / Math.sqrt(n);
  while (pairedPower(sdD, n, hi, alpha) < power) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1e-12 * hi) {
    const mid = (lo + hi) / 2;
    if (pairedPower(sdD, n, mid, alpha) >= power) hi = mid;
    else lo = mid;
  }
  return (100 * (lo + hi)) / 2 / Math.abs(meanA);
}

/** The paired analysis of the blocks of a series (null with fewer than 2 complete blocks). */
export function pairedAnalysis(s: SeriesInput, alpha: number, power = 0.8): PairedAnalysis | null {
  if (s.pairs.length < 2) return null;
  const meanA = mean(s.runsA.map((r) => r.tps));
  const d = s.pairs.map(([x, y]) => y.tps - x.tps);
  const n = d.length;
  const { t, p, se } = pairedP(d);
  const tq = tQuantile(1 - alpha / 2, n - 1);
  const pct = (x: number) => (100 * x) / meanA;
  const md = mean(d);
  const drops = n > 2 ? d.map((_, i) => ({ block: s.pairs[i]![0].block, p: pairedP(d.filter((__, j) => j !== i)).p })) : [];
  return {
    blocks: n,
    meanDiffPct: pct(md),
    t,
    df: n - 1,
    p,
    ciPct: [pct(md - tq * se), pct(md + tq * se)],
    halfWidthPct: pct(tq * se),
    minimumDetectableEffectPct: pairedMinimumDetectableEffectPct(sd(d), n, meanA, alpha, power),
    leaveOneOutFlips: drops.filter((x) => x.p < alpha !== p < alpha).map((x) => x.block),
    leaveOneOutMinP: drops.length ? Math.min(...drops.map((x) => x.p)) : NaN,
    leaveOneOutMaxP: drops.length ? Math.max(...drops.map((x) => x.p)) : NaN,
  };
}

/**
 * The verdict of the noise-floor entry: `consistent` when the series' minimum
 * detectable effect (80% power, the design's own analysis) is at most |published
 * difference| — a difference of the published size would stand out of this series'
 * noise, so the series can check such a claim; `not checkable` when it is larger —
 * the series cannot tell a difference that small from its noise.
 */
export function noiseFloorVerdict(mdePct: number, publishedPct: number): Verdict {
  return Number.isFinite(mdePct) && mdePct <= Math.abs(publishedPct) ? "consistent" : "not checkable";
}

interface Context {
  s: SeriesInput;
  o: RostedtOptions;
  c: Comparison;
  boots: BootstrapResult[];
  paired: PairedAnalysis | null;
  rostedt: RostedtData;
  rc: Comparison;
  source: string;
  idPrefix: string;
  runsText: string;
}

const runLabel = (r: SeriesRow) => `run ${r.run} (${r.id})`;

function differenceEntry(x: Context): ClaimEntry {
  const { s, o, c, paired, rc } = x;
  const boot = c.bootstrap.meanDiffPct;
  const loo = c.leaveOneOut;
  const interval: SeedCheckedExclusion = bootstrapExclusion(x.boots, "meanDiffPct", 0);
  const blocksDesign = s.provenance.design === "blocks" && paired !== null;
  const tests = [
    { name: "Welch t", p: c.welch.p },
    { name: "Mann–Whitney U", p: c.mannWhitney.p },
    ...(blocksDesign ? [{ name: "the paired block t", p: paired.p }] : []),
  ];
  const flips = loo.flips.length + (blocksDesign ? paired.leaveOneOutFlips.length : 0);
  const verdict = effectVerdict({
    alpha: o.alpha,
    tests,
    estimateInClaimedDirection: c.welch.difference > 0,
    intervalExcludesNoEffect: interval.excludes,
    leaveOneOutFlips: flips,
  });
  const conf = `${fmt(100 * c.bootstrap.confidence, 0)}%`;
  const pairedText = blocksDesign ? `, paired block t p = ${fmtP(paired.p)} (${paired.blocks} blocks, ${conf} CI ${fmtInterval({ lo: paired.ciPct[0], hi: paired.ciPct[1] }, 2, "%")})` : "";
  const testsText = `Welch p = ${fmtP(c.welch.p)}, Mann–Whitney p = ${fmtP(c.mannWhitney.p)}${pairedText}, bootstrap ${conf} CI ${fmtInterval(boot, 2, "%")}`;
  const pRange = (ps: number[]) => `${fmtP(Math.min(...ps))} to ${fmtP(Math.max(...ps))}`;
  const byRun = (f: { side: "A" | "B"; index: number }) => runLabel((f.side === "A" ? s.runsA : s.runsB)[f.index]!);
  const flipsText = [
    ...loo.flips.map(byRun),
    ...(blocksDesign ? paired.leaveOneOutFlips.map((b) => `block ${b} (paired t)`) : []),
  ].join(", ");
  const reasons: Record<Verdict, string> = {
    reproduced: `${testsText}; no single run changes that`,
    "not significant":
      `${testsText}: ${s.b} − ${s.a} = ${fmtSignedPct(c.welch.differencePct, 2)} is not distinguishable from this series' run-to-run noise (inconclusive, not evidence of no effect); ` +
      `no single left-out run makes Welch significant (p from ${pRange(loo.drops.map((d) => d.p))})` +
      (blocksDesign && paired.leaveOneOutFlips.length === 0 ? ` nor any left-out block the paired test (p from ${fmtP(paired.leaveOneOutMinP)} to ${fmtP(paired.leaveOneOutMaxP)})` : ""),
    fragile:
      flips > 0
        ? `${testsText}; leaving out ${flipsText} changes the verdict`
        : `${testsText}: the tests disagree (${tests.map((t) => `${t.name} ${t.p < o.alpha ? "finds" : "does not find"} it`).join(", ")}; the bootstrap interval ${interval.excludes === true ? "excludes" : interval.excludes === false ? "contains" : `sits at`} 0${interval.excludes === "seed-dependent" ? `: it excludes 0 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds, so the answer depends on the seed` : ""})`,
    "not reproduced": `${testsText}: ${s.b} is significantly below ${s.a}, against the claimed direction`,
    consistent: testsText,
    "not checkable": testsText,
    recomputed: testsText,
    "not recomputed": testsText,
    "not yet reproduced": testsText,
  };
  return claimEntry({
    id: `${x.idPrefix}:difference`,
    source: x.source,
    claim: `Rostedt's "noticeable beyond the noise", asked of ${s.b} vs ${s.a}: is the difference of mean tps beyond this series' run-to-run noise?`,
    published: `Rostedt 2023: ${fmtSignedPct(rc.welch.differencePct, 3)} (Welch p = ${fmtP(rc.welch.p)}, ${rc.a.n} + ${rc.b.n} runs)`,
    recomputed:
      `${fmtSignedPct(c.welch.differencePct, 3)} (${fmt(c.welch.difference, 2)} tps; ${s.a} ${fmt(c.a.mean, 2)}, ${s.b} ${fmt(c.b.mean, 2)}); ` +
      `Welch t = ${fmt(c.welch.t, 3)}, df = ${fmt(c.welch.df, 1)}, p = ${fmtP(c.welch.p)}; Mann–Whitney U = ${fmt(c.mannWhitney.u, 0)}, p = ${fmtP(c.mannWhitney.p)}` +
      (paired ? `; paired over ${paired.blocks} blocks ${fmtSignedPct(paired.meanDiffPct, 3)}, t = ${fmt(paired.t, 3)}, df = ${paired.df}, p = ${fmtP(paired.p)}` : ""),
    uncertainty:
      `bootstrap ${conf} CI ${fmtInterval(boot, 3, "%")} (seed ${c.bootstrap.seed}, ${c.bootstrap.resamples} resamples; excludes 0 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds); ` +
      `Welch ${conf} CI ${fmtInterval({ lo: c.welch.ciPct[0], hi: c.welch.ciPct[1] }, 3, "%")}` +
      (paired ? `; paired ${conf} CI ${fmtInterval({ lo: paired.ciPct[0], hi: paired.ciPct[1] }, 3, "%")}${blocksDesign ? "" : " (sequential design: the pairs did not run side by side, shown only for comparison)"}` : ""),
    verdict,
    reason: reasons[verdict],
    basis:
      `${x.runsText}; α = ${o.alpha}; tests: ${tests.map((t) => t.name).join(", ")} and the seeded bootstrap; leave-one-out re-runs Welch without each run` +
      (blocksDesign ? " and the paired t without each block" : "") +
      `; ${s.provenance.line}`,
    values: {
      meanA: c.a.mean,
      meanB: c.b.mean,
      ...differenceValues(c, interval),
      pairedBlocks: paired?.blocks ?? null,
      pairedDiffPct: paired?.meanDiffPct ?? null,
      pairedT: paired?.t ?? null,
      pairedP: paired?.p ?? null,
      pairedCiLoPct: paired?.ciPct[0] ?? null,
      pairedCiHiPct: paired?.ciPct[1] ?? null,
      pairedLeaveOneOutFlips: paired?.leaveOneOutFlips.length ?? null,
      publishedDifferencePct: rc.welch.differencePct,
    },
  });
}

function spreadEntry(x: Context): ClaimEntry {
  const { s, o, c, rc } = x;
  const A = s.runsA.map((r) => r.tps);
  const B = s.runsB.map((r) => r.tps);
  const { ratio, boot, loo, tests, interval } = spreadAnalysis(A, B, c, o.alpha, x.boots);
  const verdict = effectVerdict({
    alpha: o.alpha,
    tests,
    estimateInClaimedDirection: ratio < 1,
    intervalExcludesNoEffect: interval.excludes,
    leaveOneOutFlips: loo.flips.length,
  });
  const conf = `${fmt(100 * c.bootstrap.confidence, 0)}%`;
  const core = `SD ratio ${s.b}/${s.a} ${fmt(ratio, 3)}; F-test p = ${fmtP(c.fTest.p)}, Brown–Forsythe p = ${fmtP(c.brownForsythe.p)}, bootstrap ${conf} CI of the ratio ${fmtInterval(boot, 3)}`;
  const flipsText = loo.flips.map((f) => runLabel((f.side === "A" ? s.runsA : s.runsB)[f.index]!)).join(", ");
  const reasons: Record<Verdict, string> = {
    reproduced: `${core}; no single run changes the F-test's verdict`,
    fragile:
      loo.flips.length > 0
        ? `${core}; leaving out ${flipsText} changes the F-test's verdict`
        : `${core}: the tests disagree (${tests.map((t) => `${t.name} ${t.p < o.alpha ? "finds" : "does not find"} it`).join(", ")}; the interval ${interval.excludes === true ? "excludes" : interval.excludes === false ? "contains" : "sits at"} 1${interval.excludes === "seed-dependent" ? `: it excludes 1 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds, so the answer depends on the seed` : ""})`,
    "not significant": `${core}: no test separates the spreads of ${s.a} and ${s.b}`,
    "not reproduced": `${core}: ${s.b} varies significantly more than ${s.a}`,
    consistent: core,
    "not checkable": core,
    recomputed: core,
    "not recomputed": core,
    "not yet reproduced": core,
  };
  const rRatio = rc.b.sd / rc.a.sd;
  return claimEntry({
    id: `${x.idPrefix}:smaller-std-dev`,
    source: x.source,
    claim: `Rostedt's "the standard deviation was much smaller", asked of ${s.b} vs ${s.a}: does ${s.b} vary less from run to run?`,
    published: `Rostedt 2023: SD ratio patched/unpatched ${fmt(rRatio, 3)} (Std Dev ${fmt(rc.a.sd, 2)} → ${fmt(rc.b.sd, 2)}; F-test p = ${fmtP(rc.fTest.p)}, Brown–Forsythe p = ${fmtP(rc.brownForsythe.p)})`,
    recomputed:
      `SD ratio ${s.b}/${s.a} ${fmt(ratio, 3)} (SD ${fmt(c.a.sd, 2)} → ${fmt(c.b.sd, 2)} tps, CV ${fmt(100 * c.a.cv, 2)}% and ${fmt(100 * c.b.cv, 2)}%); ` +
      `F = ${fmt(c.fTest.f, 4)}, p = ${fmtP(c.fTest.p)}; Brown–Forsythe W = ${fmt(c.brownForsythe.w, 3)}, p = ${fmtP(c.brownForsythe.p)}`,
    uncertainty: `bootstrap ${conf} CI of the SD ratio ${fmtInterval(boot, 3)} (seed ${c.bootstrap.seed}, ${c.bootstrap.resamples} resamples; excludes 1 for ${interval.seedsExcluding} of ${interval.seedsTried} seeds)`,
    verdict,
    reason: reasons[verdict],
    basis: `${x.runsText}; α = ${o.alpha}; the F-test assumes normal data, Brown–Forsythe (Levene on |x − median|) is the robust check; leave-one-out re-runs the F-test without each run; ${s.provenance.line}`,
    values: {
      sdA: c.a.sd,
      sdB: c.b.sd,
      cvA: c.a.cv,
      cvB: c.b.cv,
      ...spreadTestValues(c, ratio, boot, interval, loo),
      publishedSdRatio: rRatio,
    },
  });
}

/** Which variants' warm-up runs look cold (all below the measured runs and a Grubbs outlier among them) and which do not. */
function describeCold(sides: { v: string; warm: SeriesRow[]; warmRuns: { rank: number; flagged: boolean }[] }[]): string {
  const lowest = (side: (typeof sides)[number]) => side.warmRuns.every((w) => w.rank <= side.warm.length);
  const cold = sides.filter((side) => lowest(side) && side.warmRuns.some((w) => w.flagged)).map((side) => side.v);
  const lowOnly = sides.filter((side) => lowest(side) && !side.warmRuns.some((w) => w.flagged)).map((side) => side.v);
  const not = sides.filter((side) => !lowest(side)).map((side) => side.v);
  const parts: string[] = [];
  if (cold.length) parts.push(`${cold.join(" and ")}: lowest and a Grubbs outlier (cold)`);
  if (lowOnly.length) parts.push(`${lowOnly.join(" and ")}: lowest but not a Grubbs outlier`);
  if (not.length) parts.push(`${not.join(" and ")}: not below the measured runs`);
  return parts.join("; ");
}

function firstRunEntry(x: Context): ClaimEntry {
  const { s, o, rostedt } = x;
  const sides = [
    { v: s.a, warm: s.warmupA, runs: s.runsA },
    { v: s.b, warm: s.warmupB, runs: s.runsB },
  ].map((side) => {
    const kept = side.runs.map((r) => r.tps);
    const sm = summary(kept);
    const all = [...side.warm, ...side.runs].sort((p, q) => p.run - q.run);
    const tps = all.map((r) => r.tps);
    const g = all.length >= 3 ? grubbs(tps, o.alpha) : null;
    const warm = side.warm.map((r) => ({
      row: r,
      z: (r.tps - sm.mean) / sm.sd,
      pct: (100 * (r.tps - sm.mean)) / sm.mean,
      rank: rankFromLowest(r.tps, tps),
      flagged: g !== null && g.outlier && all[g.index]!.run === r.run,
    }));
    return { ...side, sm, all, g, warmRuns: warm };
  });
  const rz = [rostedt.unpatched, rostedt.patched].map((side) => (side.first - mean(side.runs)) / sd(side.runs));
  const published = `Rostedt 2023: first runs ${fmt(rostedt.unpatched.first, 2)} and ${fmt(rostedt.patched.first, 2)} tps, ${fmt(rz[0]!, 1)} and ${fmt(rz[1]!, 1)} SD from the kept runs' means ("horrible numbers … cold cache"), discarded`;
  const warmCount = sides.reduce((k, side) => k + side.warm.length, 0);
  let verdict: Verdict;
  let reason: string;
  if (warmCount === 0) {
    verdict = "not checkable";
    reason = "the series has no warm-up runs (series.json warmup = 0): nothing to compare with the measured runs";
  } else {
    // Cold = every warm-up run is below every measured run of its variant, and Grubbs flags one of them.
    const isLowest = sides.every((side) => side.warmRuns.every((w) => w.rank <= side.warm.length));
    const flagged = sides.every((side) => side.warm.length === 0 || side.warmRuns.some((w) => w.flagged));
    verdict = outlierVerdict(isLowest, flagged);
    const warmText = sides
      .filter((side) => side.warm.length)
      .map((side) => side.warmRuns.map((w) => `${side.v} ${runLabel(w.row)} ${fmt(w.row.tps, 2)} tps, ${fmt(w.z, 2)} SD (${fmtSignedPct(w.pct, 1)}), rank ${w.rank} of ${side.all.length}`).join("; "))
      .join("; ");
    reason =
      verdict === "consistent"
        ? `${warmText}: each warm-up run is the lowest of its variant and a Grubbs outlier, as a cold start would give`
        : `${warmText}: ${describeCold(sides.filter((side) => side.warm.length > 0))}, so this series does not show a cold first run on every variant`;
  }
  const grubbsText = sides
    .map((side) => (side.g ? `${side.v}: G = ${fmt(side.g.g, 2)} vs critical ${fmt(side.g.critical, 2)} (n = ${side.g.n}), most extreme ${runLabel(side.all[side.g.index]!)}` : `${side.v}: fewer than 3 runs`))
    .join("; ");
  const w0 = (i: number) => sides[i]!.warmRuns[0];
  return claimEntry({
    id: `${x.idPrefix}:first-run-cold`,
    source: x.source,
    claim: `Rostedt's "I threw out the first run as it had horrible numbers probably due to everything in cold cache", asked of this series' warm-up runs: are they cold outliers below the measured runs?`,
    published,
    recomputed:
      warmCount === 0
        ? "no warm-up runs"
        : sides
            .map((side) => `${side.v}: warm-up ${side.warmRuns.map((w) => `${fmt(w.row.tps, 2)} (z = ${fmt(w.z, 2)}, rank ${w.rank} of ${side.all.length})`).join(", ") || "none"} vs measured mean ${fmt(side.sm.mean, 2)}, SD ${fmt(side.sm.sd, 2)}, min ${fmt(side.sm.min, 2)}`)
            .join("; "),
    uncertainty: `Grubbs' test on all runs of each variant, α = ${o.alpha}: ${grubbsText}`,
    verdict,
    reason,
    basis: `z = (warm-up − mean of the measured runs)/SD of the measured runs of the same variant; rank among all runs of the variant from the lowest; Grubbs on all runs of the variant; ${s.provenance.line}`,
    values: {
      warmupRunsA: s.warmupA.length,
      warmupRunsB: s.warmupB.length,
      firstWarmupTpsA: w0(0)?.row.tps ?? null,
      firstWarmupZA: w0(0)?.z ?? null,
      firstWarmupRankA: w0(0)?.rank ?? null,
      firstWarmupTpsB: w0(1)?.row.tps ?? null,
      firstWarmupZB: w0(1)?.z ?? null,
      firstWarmupRankB: w0(1)?.rank ?? null,
      grubbsGA: sides[0]!.g?.g ?? null,
      grubbsCriticalA: sides[0]!.g?.critical ?? null,
      grubbsGB: sides[1]!.g?.g ?? null,
      grubbsCriticalB: sides[1]!.g?.critical ?? null,
      publishedFirstZUnpatched: rz[0]!,
      publishedFirstZPatched: rz[1]!,
    },
  });
}

function noiseFloorEntry(x: Context): ClaimEntry {
  const { s, o, c, paired, rc } = x;
  const publishedPct = rc.welch.differencePct;
  const blocksDesign = s.provenance.design === "blocks" && paired !== null;
  const welchHalf = (c.welch.ciPct[1] - c.welch.ciPct[0]) / 2;
  const half = blocksDesign ? paired.halfWidthPct : welchHalf;
  const mde = blocksDesign ? paired.minimumDetectableEffectPct : c.power.minimumDetectableEffectPct;
  const verdict = noiseFloorVerdict(mde, publishedPct);
  const conf = `${fmt(100 * (1 - o.alpha), 0)}%`;
  const pw = `${fmt(100 * c.power.power, 0)}%`;
  const needed = c.power.runsNeeded.find((r) => r.effectPct === Math.abs(publishedPct));
  const rostedtHalf = (rc.welch.ciPct[1] - rc.welch.ciPct[0]) / 2;
  const analysis = blocksDesign ? `the paired block analysis (${paired.blocks} blocks)` : `Welch (${c.a.n} + ${c.b.n} runs${s.provenance.design === "sequential" ? ", the sequential design's analysis" : ", too few complete blocks for a paired analysis"})`;
  const runsNeededText = needed?.runsPerSide != null ? `${needed.runsPerSide} runs per side` : "more than a million runs per side";
  return claimEntry({
    id: `${x.idPrefix}:noise-floor`,
    source: x.source,
    claim: `the noise floor of this series: how small a difference of mean tps it can resolve, against the ${fmtSignedPct(publishedPct, 3)} Rostedt reported as "beyond the noise"`,
    published: `Rostedt 2023: difference ${fmtSignedPct(publishedPct, 3)}; his ${rc.a.n} + ${rc.b.n} runs give a Welch ${conf} CI half-width of ${fmt(rostedtHalf, 3)}% and detect ${fmt(rc.power.minimumDetectableEffectPct, 3)}% at ${pw} power`,
    recomputed:
      `${conf} CI half-width of ${s.b} − ${s.a}: ${fmt(half, 3)}% by ${analysis}; minimum detectable effect at ${pw} power ${fmt(mde, 3)}%` +
      (blocksDesign ? `; unpaired Welch on the same runs: half-width ${fmt(welchHalf, 3)}%, detectable ${fmt(c.power.minimumDetectableEffectPct, 3)}%` : "") +
      `; Welch at this noise needs ${runsNeededText} to detect ${fmtSignedPct(Math.abs(publishedPct), 3)}`,
    uncertainty: null,
    verdict,
    reason:
      verdict === "consistent"
        ? `a difference of ${fmtSignedPct(Math.abs(publishedPct), 3)} is above this series' ${fmt(mde, 3)}% detectable at ${pw} power: a series like this one can check Rostedt's claim`
        : `this series detects ${fmt(mde, 3)}% at ${pw} power, ${fmt(mde / Math.abs(publishedPct), 1)}× Rostedt's ${fmtSignedPct(Math.abs(publishedPct), 3)}: a difference that small is within its noise (Welch at this noise needs ${runsNeededText})`,
    basis:
      `${x.runsText}; CI and power from ${blocksDesign ? "the paired t over blocks (noncentral t, df = blocks − 1, SD of the within-block differences)" : "Welch (noncentral t, Welch–Satterthwaite df, the observed SDs)"}; differences in % of ${s.a}'s measured mean; Rostedt's figures from his posted runs (data/published/rostedt-2023); ${s.provenance.line}`,
    values: {
      halfWidthPct: half,
      minimumDetectableEffectPct: mde,
      welchHalfWidthPct: welchHalf,
      welchMinimumDetectableEffectPct: c.power.minimumDetectableEffectPct,
      pairedHalfWidthPct: paired?.halfWidthPct ?? null,
      pairedMinimumDetectableEffectPct: paired?.minimumDetectableEffectPct ?? null,
      halfWidthRatioUnpairedToPaired: paired ? welchHalf / paired.halfWidthPct : null,
      runsPerSideForPublished: needed?.runsPerSide ?? null,
      publishedDifferencePct: publishedPct,
      publishedHalfWidthPct: rostedtHalf,
      publishedMinimumDetectableEffectPct: rc.power.minimumDetectableEffectPct,
      durationSeconds: s.provenance.duration,
      maxLoad1: s.provenance.maxLoad1,
      cpus: s.provenance.cpus,
    },
  });
}

/**
 * The Rostedt-2023 claims re-asked of a series directory: entries
 * `series:<dirname>:difference`, `:smaller-std-dev`, `:first-run-cold`, `:noise-floor`.
 * Throws UserError (exit 2) when `dir` is not a series, has fewer than two variants,
 * or `a`/`b` name a variant it does not have.
 */
/** STUDY/STAMP for a record directory named by its stamp (the study from its record.json), else the directory's name. */
function recordName(abs: string): string {
  const study = (tryReadJson<{ study?: unknown }>(join(abs, "record.json")) ?? {}).study;
  return typeof study === "string" && /^\d{8}T\d{6}Z$/.test(basename(abs)) ? `${study}/${basename(abs)}` : basename(abs);
}

export function seriesClaims(dir: string, opts: SeriesClaimsOptions = {}): ClaimEntry[] {
  const o = ledgerOptions({ seed: opts.seed, resamples: opts.resamples, alpha: opts.alpha });
  const s = seriesInput(dir, opts);
  const A = s.runsA.map((r) => r.tps);
  const B = s.runsB.map((r) => r.tps);
  const rostedt = rostedtInput();
  const rc = rostedtComparison(rostedt, o);
  const c = compareSamples(A, B, {
    seed: o.seed,
    resamples: o.resamples,
    alpha: o.alpha,
    labels: [s.a, s.b],
    effectsPct: [Math.abs(rc.welch.differencePct)],
  });
  const x: Context = {
    s,
    o,
    c,
    boots: seedCheckBootstraps(A, B, o, c.bootstrap),
    paired: pairedAnalysis(s, o.alpha, c.power.power),
    rostedt,
    rc,
    source: `${s.shown} (protocol ${s.provenance.protocol}, ${s.provenance.design} design; variants ${s.a} vs ${s.b}; workload ${s.workload})`,
    idPrefix: `series:${s.name}`,
    runsText:
      `the ${s.runsA.length} measured runs of ${s.a} and ${s.runsB.length} of ${s.b} (warm-up runs excluded: ${s.warmupA.length} and ${s.warmupB.length})` +
      (s.pairs.length ? `, ${s.pairs.length} complete blocks` : ""),
  };
  // Our own series: the record is the series directory, and the entry's verdict is its reproduction status.
  return [differenceEntry(x), spreadEntry(x), firstRunEntry(x), noiseFloorEntry(x)].map((e) => ({
    ...e,
    reproduction: {
      status: e.verdict === "reproduced" ? "reproduced" : e.verdict === "not reproduced" ? "not reproduced" : "not yet reproduced",
      records: [s.shown],
      note: "our own series: this entry's verdict",
    },
  }));
}
