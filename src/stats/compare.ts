import { UserError } from "../util/errors.js";
import { summary, type Summary } from "./summary.js";
import { welchTTest, type WelchResult } from "./welch.js";
import { mannWhitneyU, type MannWhitneyResult } from "./mann-whitney.js";
import { fTestVariances, type FTestResult } from "./f-test.js";
import { brownForsythe, type BrownForsytheResult } from "./brown-forsythe.js";
import { bootstrapCis, DEFAULT_RESAMPLES, DEFAULT_SEED, type BootstrapResult } from "./bootstrap.js";
import { leaveOneOut, type LeaveOneOutResult } from "./leave-one-out.js";
import { minimumDetectableEffectPct, runsNeeded } from "./power.js";
import { welchVerdict, type Verdict } from "./verdict.js";

/** Options of compareSamples. */
export interface CompareOptions {
  /** Bootstrap seed (default 1). */
  seed?: number;
  /** Bootstrap resamples (default 10000). */
  resamples?: number;
  /** Significance level of every test and 1 − confidence of every interval (default 0.05). */
  alpha?: number;
  /** Target power of the power analysis (default 0.8). */
  power?: number;
  /** Names of the two sides (default ["A", "B"]). */
  labels?: [string, string];
  /** Differences (% of mean A) for which to report the runs needed, besides the observed one (default [0.5, 1, 2]). */
  effectsPct?: number[];
}

/** Runs needed per side for one effect size. */
export interface RunsNeededRow {
  effectPct: number;
  /** Equal runs per side for the target power; null when more than MAX_RUNS (or no effect). */
  runsPerSide: number | null;
}

/** Power analysis at the observed noise. */
export interface PowerResult {
  alpha: number;
  power: number;
  /** Smallest difference (% of mean A) detectable with the runs at hand. */
  minimumDetectableEffectPct: number;
  /** Runs per side needed for the observed |difference| and for each requested effect. */
  runsNeeded: RunsNeededRow[];
  /** How the power was computed. */
  method: string;
}

/** A verdict on the spread: does B vary less or more than A? */
export interface SpreadVerdict {
  verdict: "B less variable" | "B more variable" | "no significant difference in spread";
  reason: string;
}

/** Everything compareSamples computes; printed as JSON with this key order. */
export interface Comparison {
  labels: { a: string; b: string };
  alpha: number;
  a: Summary;
  b: Summary;
  welch: WelchResult;
  mannWhitney: MannWhitneyResult;
  fTest: FTestResult;
  brownForsythe: BrownForsytheResult;
  bootstrap: BootstrapResult;
  leaveOneOut: LeaveOneOutResult;
  power: PowerResult;
  spread: SpreadVerdict;
  verdict: Verdict;
  reason: string;
}

/** Formats a number with `digits` significant digits, keeping a sign for differences. */
function fmt(x: number, digits = 3, signed = false): string {
  if (!Number.isFinite(x)) return String(x);
  const s = Number(x.toPrecision(digits)).toString();
  return signed && x > 0 ? `+${s}` : s;
}

/** p-values as the report prints them. */
export function formatP(p: number): string {
  if (Number.isNaN(p)) return "NaN";
  if (p < 1e-3) return p.toExponential(2);
  return p.toFixed(4);
}

/**
 * The single entry point of the statistics: compares sample B against sample A
 * (summaries, Welch, Mann–Whitney, F-test, Brown–Forsythe, seeded bootstrap,
 * leave-one-out, power / minimum detectable effect) and states a verdict with a
 * one-line reason. Throws UserError when a side has fewer than two values.
 */
export function compareSamples(a: readonly number[], b: readonly number[], opts: CompareOptions = {}): Comparison {
  const [labelA, labelB] = opts.labels ?? ["A", "B"];
  const alpha = opts.alpha ?? 0.05;
  const targetPower = opts.power ?? 0.8;
  if (!(alpha > 0 && alpha < 1)) throw new UserError(`alpha must be between 0 and 1, found ${alpha}`);
  if (!(targetPower > 0 && targetPower < 1)) throw new UserError(`power must be between 0 and 1, found ${targetPower}`);
  for (const [label, xs] of [
    [labelA, a],
    [labelB, b],
  ] as const) {
    if (xs.length < 2) throw new UserError(`${label}: need at least 2 values to compare, found ${xs.length}`);
    const bad = xs.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) throw new UserError(`${label}: value ${bad + 1} is not a finite number (${xs[bad]})`);
  }
  const sa = summary(a);
  const sb = summary(b);
  const welch = welchTTest(a, b, alpha);
  const mw = mannWhitneyU(a, b);
  const ft = fTestVariances(a, b);
  const bf = brownForsythe(a, b);
  const boot = bootstrapCis(a, b, {
    seed: opts.seed ?? DEFAULT_SEED,
    resamples: opts.resamples ?? DEFAULT_RESAMPLES,
    alpha,
  });
  const loo = leaveOneOut(a, b, welchVerdict(alpha));

  const effects = [Math.abs(welch.differencePct), ...(opts.effectsPct ?? [0.5, 1, 2])];
  const power: PowerResult = {
    alpha,
    power: targetPower,
    minimumDetectableEffectPct: minimumDetectableEffectPct(sa.sd, sb.sd, sa.n, sb.n, sa.mean, alpha, targetPower),
    runsNeeded: effects.map((e) => {
      const n = runsNeeded(sa.sd, sb.sd, sa.mean, e, alpha, targetPower);
      return { effectPct: e, runsPerSide: Number.isFinite(n) ? n : null };
    }),
    method:
      "two-sided Welch t-test; noncentral t with Welch–Satterthwaite df at the observed SDs (jStat), equal runs per side for runsNeeded",
  };

  const verdict = loo.baseline;
  const level = `${fmt(100 * (1 - alpha), 3)}%`;
  const ci = `${level} CI ${fmt(welch.ciPct[0], 3, true)}% to ${fmt(welch.ciPct[1], 3, true)}%`;
  const fragile = loo.fragile
    ? `; fragile: dropping ${loo.flips.length === 1 ? "one run" : `any of ${loo.flips.length} single runs`} (${loo.flips
        .map((f) => `${f.side === "A" ? labelA : labelB} #${f.index + 1}`)
        .join(", ")}) changes it`
    : "";
  const reason =
    verdict === "no significant difference"
      ? `Welch p = ${formatP(welch.p)} ≥ ${alpha}: ${labelB} − ${labelA} = ${fmt(welch.differencePct, 3, true)}% (${ci}), below the ${fmt(power.minimumDetectableEffectPct, 3)}% that ${sa.n} + ${sb.n} runs detect with ${fmt(100 * targetPower, 3)}% power${fragile}`
      : `Welch p = ${formatP(welch.p)} < ${alpha}: ${labelB} − ${labelA} = ${fmt(welch.differencePct, 3, true)}% (${ci})${fragile}`;

  const spread: SpreadVerdict =
    bf.p < alpha
      ? {
          verdict: ft.f < 1 ? "B less variable" : "B more variable",
          reason: `Brown–Forsythe p = ${formatP(bf.p)} < ${alpha}; SD ratio ${labelB}/${labelA} = ${fmt(Math.sqrt(ft.f), 3)} (bootstrap ${level} CI ${fmt(boot.sdRatio.lo, 3)} to ${fmt(boot.sdRatio.hi, 3)}; F-test p = ${formatP(ft.p)})`,
        }
      : {
          verdict: "no significant difference in spread",
          reason: `Brown–Forsythe p = ${formatP(bf.p)} ≥ ${alpha}; SD ratio ${labelB}/${labelA} = ${fmt(Math.sqrt(ft.f), 3)} (bootstrap ${level} CI ${fmt(boot.sdRatio.lo, 3)} to ${fmt(boot.sdRatio.hi, 3)}; F-test p = ${formatP(ft.p)}, which assumes normal data)`,
        };

  return {
    labels: { a: labelA, b: labelB },
    alpha,
    a: sa,
    b: sb,
    welch,
    mannWhitney: mw,
    fTest: ft,
    brownForsythe: bf,
    bootstrap: boot,
    leaveOneOut: loo,
    power,
    spread,
    verdict,
    reason,
  };
}
