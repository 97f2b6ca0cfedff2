// src/stats checked against an independent implementation: SciPy.
//
// Every number in REF below was printed by
//   /usr/bin/python3 scripts/scipy-reference.py
// with scipy 1.10.1, numpy 1.24.2, python 3.11.2 (Debian 12's python3-scipy), reading the CSV files of
// test/fixtures/compare/. The functions behind each block:
//   a, b           numpy.mean / numpy.std(ddof=1) / numpy.median / min / max
//   welch          scipy.stats.ttest_ind(b, a, equal_var=False); df by the Welch–Satterthwaite formula,
//                  CI = difference ± scipy.stats.t.ppf(0.975, df) · se
//   mannWhitney    scipy.stats.mannwhitneyu(a, b) with its defaults (method "auto", continuity correction)
//   fTest          F = var(b)/var(a); p = 2·min(scipy.stats.f.cdf, scipy.stats.f.sf)
//   brownForsythe  scipy.stats.levene(a, b, center="median")
//   power          scipy.stats.nct (sf at t_crit + cdf at −t_crit), runs needed by counting n up,
//                  MDE by scipy.optimize.brentq
//   leaveOneOutP   scipy.stats.ttest_ind(..., equal_var=False).pvalue with each run dropped (A's, then B's)
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { readTpsFile } from "../src/cli/commands/compare.js";
import {
  brownForsythe,
  fTestVariances,
  leaveOneOut,
  mannWhitneyU,
  minimumDetectableEffectPct,
  runsNeeded,
  summary,
  welchPower,
  welchTTest,
} from "../src/stats/index.js";

interface Ref {
  files: [string, string];
  a: Record<string, number>;
  b: Record<string, number>;
  welch: { t: number; df: number; p: number; difference: number; differencePct: number; ci: [number, number]; ciPct: [number, number] };
  mannWhitney: { u: number; p: number; method: "exact" | "asymptotic"; exactP: number | null; asymptoticP: number };
  fTest: { f: number; dfNum: number; dfDen: number; p: number };
  brownForsythe: { w: number; p: number };
  power: { mdePct: number; runsNeeded: Record<string, number>; powerAtN: Record<string, number> };
  leaveOneOutP: number[];
}

const REF: Record<string, Ref> = {
  "rostedt-2023": {
    files: ["rostedt-2023-unpatched.csv", "rostedt-2023-patched.csv"],
    a: { n: 15, mean: 74527.7800676, sd: 420.6304969004874, median: 74595.032066, min: 73124.961311, max: 74973.185122, cv: 0.005643942386569905 },
    b: { n: 15, mean: 74710.09886620002, sd: 136.72504941945695, median: 74711.177071, min: 74521.606019, max: 74897.154079, cv: 0.0018300745346933739 },
    welch: { t: 1.596490304741093, df: 16.925711055197407, p: 0.12887982994362374, difference: 182.3187986000121, differencePct: 0.24463199955055798, ci: [-58.702202185559514, 423.33979938558366], ciPct: [-0.07876553163439728, 0.5680295307355132] },
    mannWhitney: { u: 69.0, p: 0.0744956919139866, method: "asymptotic", exactP: 0.07420449991722405, asymptoticP: 0.0744956919139866 },
    fTest: { f: 0.10565612141566132, dfNum: 14, dfDen: 14, p: 0.00014818921802625982 },
    brownForsythe: { w: 1.2534179865187824, p: 0.2724129173212679 },
    power: { mdePct: 0.45566748193780193, runsNeeded: { "0.25": 46, "0.5": 13, "1.0": 5, "2.0": 3 }, powerAtN: { "5": 0.33002671573130876, "15": 0.8671936329199429, "40": 0.9994378031669046 } },
    leaveOneOutP: [0.18608958556029595, 0.16688572978339114, 0.13437420899587366, 0.16342270166252026, 0.13570695128474383, 0.1184090486718768, 0.1595817196653313, 0.1528490606186631, 0.14471356557629173, 0.15220976743854914, 0.11883353446519836, 0.15481943114904861, 0.11074591576756425, 0.13039576192810412, 0.08639915275828199, 0.10991778095584413, 0.13120835249589685, 0.10865860314953851, 0.1098270377403138, 0.13493861349727554, 0.10455219798299234, 0.15358800931237426, 0.10786711551588236, 0.14454664156037553, 0.12471802383642072, 0.129838497729953, 0.15721670704218896, 0.15480867849430807, 0.14267173700009828, 0.150986717204881],
  },
  "small-no-ties": {
    files: ["small-no-ties-a.csv", "small-no-ties-b.csv"],
    a: { n: 5, mean: 1019.7, sd: 9.878005871632158, median: 1020.5, min: 1008.9, max: 1032.8, cv: 0.009687168649242088 },
    b: { n: 6, mean: 1037.1666666666667, sd: 8.38347581058516, median: 1037.0, min: 1027.6, max: 1050.3, cv: 0.008083055578259836 },
    welch: { t: 3.125593813552049, df: 7.9512925582512635, p: 0.014216935647858203, difference: 17.466666666666697, differencePct: 1.7129221012716187, ci: [4.566336155768049, 30.366997177565345], ciPct: [0.4478117246021427, 2.978032477941095] },
    mannWhitney: { u: 2.0, p: 0.017316017316017316, method: "exact", exactP: 0.017316017316017316, asymptoticP: 0.022478873366125265 },
    fTest: { f: 0.7202937911008656, dfNum: 5, dfDen: 4, p: 0.7155446795361332 },
    brownForsythe: { w: 0.14767592634616095, p: 0.7096884674428615 },
    power: { mdePct: 1.7557835093892018, runsNeeded: { "0.25": 204, "0.5": 52, "1.0": 14, "2.0": 5 }, powerAtN: { "5": 0.12130912482113698, "15": 0.3125984030175257, "40": 0.6905329074481513 } },
    leaveOneOutP: [0.04364721208956493, 0.0464780968325925, 0.004902536939734841, 0.03904579167766453, 0.03003791771947002, 0.011485864713714225, 0.02464350023357476, 0.01872403353359908, 0.025561390589249496, 0.022544765116914917, 0.009475551543979754],
  },
  ties: {
    files: ["ties-a.csv", "ties-b.csv"],
    a: { n: 8, mean: 505.375, sd: 1.685018016012207, median: 505.5, min: 503.0, max: 508.0, cv: 0.003334193452410996 },
    b: { n: 9, mean: 507.8888888888889, sd: 2.0275875100994063, median: 508.0, min: 505.0, max: 511.0, cv: 0.003992187178056148 },
    welch: { t: 2.790281896260855, df: 14.948004728529979, p: 0.01376127354219548, difference: 2.513888888888914, differencePct: 0.49743040096738345, ci: [0.5929893850607297, 4.434788392717099], ciPct: [0.11733650953464847, 0.8775242924001185] },
    mannWhitney: { u: 12.5, p: 0.025496068631499585, method: "asymptotic", exactP: null, asymptoticP: 0.025496068631499585 },
    fTest: { f: 1.447938504542278, dfNum: 8, dfDen: 7, p: 0.6388304165386826 },
    brownForsythe: { w: 0.41976013706453474, p: 0.5268500679936555 },
    power: { mdePct: 0.5345692516665616, runsNeeded: { "0.25": 36, "0.5": 10, "1.0": 4, "2.0": 3 }, powerAtN: { "5": 0.4669095196533728, "15": 0.9471318055311357, "40": 0.9999713147615628 } },
    leaveOneOutP: [0.027117918044264874, 0.02701822052107415, 0.02701822052107415, 0.023173869983719207, 0.01703051348853885, 0.01703051348853885, 0.010308631585826887, 0.0047847561561414845, 0.005667507873968216, 0.010920300736911017, 0.010920300736911017, 0.017001851487892745, 0.022814018747552657, 0.027247647465691326, 0.027247647465691326, 0.02920375667674049, 0.027686062020359163],
  },
  unequal: {
    files: ["unequal-a.csv", "unequal-b.csv"],
    a: { n: 12, mean: 2211.225, sd: 14.92484962616494, median: 2208.95, min: 2189.9, max: 2236.2, cv: 0.006749584337263255 },
    b: { n: 5, mean: 2220.3599999999997, sd: 3.3738701812606533, median: 2219.8, min: 2216.4, max: 2224.6, cv: 0.0015195149350828937 },
    welch: { t: 2.001096745184031, df: 13.312952312986747, p: 0.0661982245352451, difference: 9.134999999999764, differencePct: 0.41311942475323693, ci: [-0.7035611365040477, 18.973561136503577], ciPct: [-0.031817709030245576, 0.8580565585367196] },
    mannWhitney: { u: 18.0, p: 0.2343244990303814, method: "exact", exactP: 0.2343244990303814, asymptoticP: 0.22543336830507543 },
    fTest: { f: 0.051101871738231344, dfNum: 4, dfDen: 11, p: 0.011262684560780611 },
    brownForsythe: { w: 6.245784989108106, p: 0.024546617546433905 },
    power: { mdePct: 0.6245688985320398, runsNeeded: { "0.25": 62, "0.5": 17, "1.0": 6, "2.0": 4 }, powerAtN: { "5": 0.24884992005502057, "15": 0.7457248402947244, "40": 0.9938880300534276 } },
    leaveOneOutP: [0.09272761177978266, 0.12136917663698263, 0.048906319593018825, 0.13345448694950063, 0.031420886069106965, 0.10912888927731829, 0.07710828253616661, 0.13042694527000218, 0.06249731856973779, 0.10066619067197129, 0.020240297638716046, 0.11591997796096984, 0.057246702484376154, 0.08998562860068567, 0.04438727454003921, 0.09794420748344332, 0.07008179605276181],
  },
  "large-no-ties": {
    files: ["large-no-ties-a.csv", "large-no-ties-b.csv"],
    a: { n: 9, mean: 309.43333333333334, sd: 5.365631370118527, median: 309.9, min: 301.9, max: 318.4, cv: 0.017340185403808665 },
    b: { n: 14, mean: 317.7785714285714, sd: 5.216273142244903, median: 318.25, min: 308.6, max: 326.1, cv: 0.01641480455650355 },
    welch: { t: 3.6800587236570563, df: 16.847136884209938, p: 0.001880568309067297, difference: 8.345238095238074, differencePct: 2.6969421830996683, ci: [3.5575180595999694, 13.132958130876178], ciPct: [1.1496880511472485, 4.244196315052088] },
    mannWhitney: { u: 17.0, p: 0.004153915589095973, method: "asymptotic", exactP: 0.0026554412070632287, asymptoticP: 0.004153915589095973 },
    fTest: { f: 0.9451026569817814, dfNum: 13, dfDen: 8, p: 0.8902558839547076 },
    brownForsythe: { w: 0.003349449376031135, p: 0.954395821974956 },
    power: { mdePct: 2.1799409506575445, runsNeeded: { "0.25": 736, "0.5": 185, "1.0": 47, "2.0": 13 }, powerAtN: { "5": 0.06942136350368677, "15": 0.12085923372452256, "40": 0.2524972943292691 } },
    leaveOneOutP: [0.004205020034441054, 0.00551264893314116, 0.00033522292963357973, 0.004296733423025988, 0.002874447547064478, 0.0053256599605861045, 0.0015169160897309378, 0.0052069586742298415, 0.004354840955649056, 0.002093530222146165, 0.0012348876168242348, 0.0027499953520763805, 0.001510807447184679, 0.0031546170367671407, 0.0008714010422205867, 0.002515943736995178, 0.002987492620336416, 0.0017902688855143734, 0.002243589461855558, 0.003270206613590779, 0.0013695544993587282, 0.0028559970294328605, 0.0024536430974099917],
  },
};

/** Closed forms (means, SDs, statistics, p-values from t/F/normal CDFs): 1e-9 relative. */
const CLOSED = 1e-9;
/**
 * Power from the noncentral t: jStat's series (src) against Boost's (scipy) agree to ~2e-8 relative
 * at these arguments (jStat stops its series at 1e-14 per term but accumulates; measured 1.8e-8 worst).
 */
const NCT = 1e-7;

function close(actual: number, expected: number, rel: number, what: string): void {
  const err = Math.abs(actual - expected) / Math.max(Math.abs(expected), Number.MIN_VALUE);
  assert.ok(err <= rel, `${what}: ${actual} vs scipy ${expected} (relative error ${err.toExponential(2)} > ${rel})`);
}

function load(ref: Ref): [number[], number[]] {
  const dir = join(repoRoot(), "test", "fixtures", "compare");
  return [readTpsFile(join(dir, ref.files[0])), readTpsFile(join(dir, ref.files[1]))];
}

for (const [name, ref] of Object.entries(REF)) {
  test(`${name}: summary agrees with numpy`, () => {
    const [a, b] = load(ref);
    for (const [side, xs] of [
      ["a", a],
      ["b", b],
    ] as const) {
      const s = summary(xs);
      for (const [k, v] of Object.entries(ref[side])) close(s[k as keyof typeof s], v, CLOSED, `${side}.${k}`);
    }
  });

  test(`${name}: Welch t-test agrees with scipy.stats.ttest_ind(equal_var=False)`, () => {
    const [a, b] = load(ref);
    const w = welchTTest(a, b);
    close(w.t, ref.welch.t, CLOSED, "t");
    close(w.df, ref.welch.df, CLOSED, "df");
    close(w.p, ref.welch.p, CLOSED, "p");
    close(w.difference, ref.welch.difference, CLOSED, "difference");
    close(w.differencePct, ref.welch.differencePct, CLOSED, "differencePct");
    close(w.ci[0], ref.welch.ci[0], CLOSED, "ci lo");
    close(w.ci[1], ref.welch.ci[1], CLOSED, "ci hi");
    close(w.ciPct[0], ref.welch.ciPct[0], CLOSED, "ciPct lo");
    close(w.ciPct[1], ref.welch.ciPct[1], CLOSED, "ciPct hi");
    assert.equal(w.confidence, 0.95);
  });

  test(`${name}: Mann–Whitney U agrees with scipy.stats.mannwhitneyu (method ${ref.mannWhitney.method})`, () => {
    const [a, b] = load(ref);
    const m = mannWhitneyU(a, b);
    assert.equal(m.method, ref.mannWhitney.method);
    assert.equal(m.u, ref.mannWhitney.u);
    assert.equal(m.uB, a.length * b.length - ref.mannWhitney.u);
    close(m.p, ref.mannWhitney.p, CLOSED, "p");
    assert.equal(m.z === null, m.method === "exact");
  });

  test(`${name}: F-test and Brown–Forsythe agree with scipy.stats.f and scipy.stats.levene(center="median")`, () => {
    const [a, b] = load(ref);
    const f = fTestVariances(a, b);
    close(f.f, ref.fTest.f, CLOSED, "F");
    assert.equal(f.dfNum, ref.fTest.dfNum);
    assert.equal(f.dfDen, ref.fTest.dfDen);
    close(f.p, ref.fTest.p, CLOSED, "F p");
    const bf = brownForsythe(a, b);
    close(bf.w, ref.brownForsythe.w, CLOSED, "W");
    close(bf.p, ref.brownForsythe.p, CLOSED, "W p");
    assert.deepEqual([bf.dfNum, bf.dfDen], [1, a.length + b.length - 2]);
  });

  test(`${name}: power, runs needed and MDE agree with scipy.stats.nct`, () => {
    const [a, b] = load(ref);
    const sa = summary(a);
    const sb = summary(b);
    for (const [n, p] of Object.entries(ref.power.powerAtN)) {
      close(welchPower(sa.sd, sb.sd, Number(n), Number(n), sa.mean * 0.005), p, NCT, `power at n=${n}, 0.5%`);
    }
    for (const [e, n] of Object.entries(ref.power.runsNeeded)) {
      assert.equal(runsNeeded(sa.sd, sb.sd, sa.mean, Number(e)), n, `runs needed for ${e}%`);
    }
    // The MDE solves power = 0.8: the NCT error above moves the root by about the same relative amount.
    close(minimumDetectableEffectPct(sa.sd, sb.sd, sa.n, sb.n, sa.mean), ref.power.mdePct, NCT, "MDE %");
  });

  test(`${name}: leave-one-out Welch p-values agree with scipy`, () => {
    const [a, b] = load(ref);
    const loo = leaveOneOut(a, b);
    assert.equal(loo.drops.length, ref.leaveOneOutP.length);
    loo.drops.forEach((d, i) => close(d.p, ref.leaveOneOutP[i]!, CLOSED, `drop ${d.side}#${d.index + 1}`));
    // The verdict of each drop follows from its p-value and the sign of the difference (all positive here).
    for (const d of loo.drops) assert.equal(d.verdict, d.p < 0.05 ? "B higher" : "no significant difference");
    assert.equal(loo.baseline, ref.welch.p < 0.05 ? "B higher" : "no significant difference");
    const expectedFlips = ref.leaveOneOutP.filter((p) => p < 0.05 !== ref.welch.p < 0.05).length;
    assert.equal(loo.flips.length, expectedFlips);
    assert.equal(loo.fragile, expectedFlips > 0);
  });
}

test("the datasets cover both Mann–Whitney methods and the exact/asymptotic choice of scipy's 'auto'", () => {
  const methods = Object.values(REF).map((r) => r.mannWhitney.method);
  assert.ok(methods.includes("exact") && methods.includes("asymptotic"));
  // unequal (12 vs 5): exact because one side has ≤ 8 values, although the other has more.
  assert.equal(REF.unequal!.mannWhitney.method, "exact");
  // large-no-ties (9 vs 14): both above 8, asymptotic without ties; scipy's exact p differs.
  assert.notEqual(REF["large-no-ties"]!.mannWhitney.exactP, REF["large-no-ties"]!.mannWhitney.p);
});
