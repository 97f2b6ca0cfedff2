#!/usr/bin/python3
"""Independent reference values for src/stats, computed with SciPy.

Run with Debian's interpreter, which has python3-scipy:

    /usr/bin/python3 scripts/scipy-reference.py            # JSON on stdout

It reads the datasets in test/fixtures/compare/ (CSV with a `tps` column,
`#` comment lines) and prints, for each pair (A, B), what scipy says about
B compared with A. The numbers are written by hand into test/stats-*.test.ts
with this command named beside them; nothing in the kit imports this script.

Conventions (the same as src/stats): differences are mean(B) - mean(A);
F = var(B) / var(A); power is for the two-sided Welch test modelled with a
noncentral t at the Welch-Satterthwaite df.
"""
import csv
import json
import os
import sys

import numpy as np
import scipy
from scipy import optimize, stats

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "test", "fixtures", "compare")
PAIRS = [
    ("rostedt-2023", "rostedt-2023-unpatched.csv", "rostedt-2023-patched.csv"),
    ("small-no-ties", "small-no-ties-a.csv", "small-no-ties-b.csv"),
    ("ties", "ties-a.csv", "ties-b.csv"),
    ("unequal", "unequal-a.csv", "unequal-b.csv"),
    ("large-no-ties", "large-no-ties-a.csv", "large-no-ties-b.csv"),
]


def read_tps(name):
    with open(os.path.join(FIX, name)) as f:
        rows = [line for line in f if line.strip() and not line.startswith("#")]
    return np.array([float(r["tps"]) for r in csv.DictReader(rows)])


def summary(x):
    sd = float(np.std(x, ddof=1))
    return {
        "n": int(len(x)), "mean": float(np.mean(x)), "sd": sd, "median": float(np.median(x)),
        "min": float(np.min(x)), "max": float(np.max(x)), "cv": sd / float(np.mean(x)),
    }


def welch(a, b, alpha=0.05):
    res = stats.ttest_ind(b, a, equal_var=False)  # t of mean(B) - mean(A)
    va, vb, na, nb = np.var(a, ddof=1), np.var(b, ddof=1), len(a), len(b)
    se = np.sqrt(va / na + vb / nb)
    df = (va / na + vb / nb) ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    d = np.mean(b) - np.mean(a)
    half = stats.t.ppf(1 - alpha / 2, df) * se
    ma = np.mean(a)
    return {
        "t": float(res.statistic), "df": float(df), "p": float(res.pvalue),
        "difference": float(d), "differencePct": float(100 * d / ma),
        "ci": [float(d - half), float(d + half)],
        "ciPct": [float(100 * (d - half) / ma), float(100 * (d + half) / ma)],
    }


def mwu(a, b):
    auto = stats.mannwhitneyu(a, b)  # defaults: method="auto", use_continuity=True, two-sided
    exact_p = None
    xy = np.concatenate([a, b])
    ties = len(np.unique(xy)) < len(xy)
    if not ties:
        exact_p = float(stats.mannwhitneyu(a, b, method="exact").pvalue)
    asym_p = float(stats.mannwhitneyu(a, b, method="asymptotic").pvalue)
    return {"u": float(auto.statistic), "p": float(auto.pvalue), "exactP": exact_p, "asymptoticP": asym_p,
            "ties": bool(ties)}


def ftest(a, b):
    f = np.var(b, ddof=1) / np.var(a, ddof=1)
    d1, d2 = len(b) - 1, len(a) - 1
    p = min(1.0, 2 * min(stats.f.cdf(f, d1, d2), stats.f.sf(f, d1, d2)))
    return {"f": float(f), "dfNum": d1, "dfDen": d2, "p": float(p)}


def brown_forsythe(a, b):
    r = stats.levene(a, b, center="median")
    return {"w": float(r.statistic), "p": float(r.pvalue)}


def welch_power(sd_a, sd_b, n_a, n_b, delta, alpha=0.05):
    va, vb = sd_a ** 2, sd_b ** 2
    se = np.sqrt(va / n_a + vb / n_b)
    df = (va / n_a + vb / n_b) ** 2 / ((va / n_a) ** 2 / (n_a - 1) + (vb / n_b) ** 2 / (n_b - 1))
    ncp = abs(delta) / se
    tc = stats.t.ppf(1 - alpha / 2, df)
    return float(stats.nct.sf(tc, df, ncp) + stats.nct.cdf(-tc, df, ncp))


def runs_needed(sd_a, sd_b, mean_a, effect_pct, alpha=0.05, power=0.8):
    delta = abs(mean_a * effect_pct / 100)
    n = 2
    while welch_power(sd_a, sd_b, n, n, delta, alpha) < power:
        n += 1
    return n


def mde_pct(sd_a, sd_b, n_a, n_b, mean_a, alpha=0.05, power=0.8):
    se = np.sqrt(sd_a ** 2 / n_a + sd_b ** 2 / n_b)
    delta = optimize.brentq(lambda d: welch_power(sd_a, sd_b, n_a, n_b, d, alpha) - power, 1e-9 * se, 20 * se,
                            xtol=1e-14 * se, rtol=1e-14)
    return float(100 * delta / abs(mean_a))


def leave_one_out_p(a, b):
    """Welch p (scipy.stats.ttest_ind(b, a, equal_var=False)) with each run dropped: A's runs, then B's."""
    out = []
    for i in range(len(a)):
        out.append(float(stats.ttest_ind(b, np.delete(a, i), equal_var=False).pvalue))
    for i in range(len(b)):
        out.append(float(stats.ttest_ind(np.delete(b, i), a, equal_var=False).pvalue))
    return out


def power_block(a, b):
    sa, sb = np.std(a, ddof=1), np.std(b, ddof=1)
    ma = np.mean(a)
    return {
        "mdePct": mde_pct(sa, sb, len(a), len(b), ma),
        "runsNeeded": {str(e): runs_needed(sa, sb, ma, e) for e in (0.25, 0.5, 1.0, 2.0)},
        "powerAtN": {str(n): welch_power(sa, sb, n, n, ma * 0.005) for n in (5, 15, 40)},
    }


def bootstrap_block(a, b):
    """Percentile bootstrap with SciPy's own generator: Monte Carlo, so only for loose checks."""
    def diff_pct(x, y, axis=-1):
        mx = np.mean(x, axis=axis)
        return 100 * (np.mean(y, axis=axis) - mx) / mx

    def sd_ratio(x, y, axis=-1):
        return np.std(y, ddof=1, axis=axis) / np.std(x, ddof=1, axis=axis)

    out = {}
    for name, fn in (("meanDiffPct", diff_pct), ("sdRatio", sd_ratio)):
        r = stats.bootstrap((a, b), fn, vectorized=True, paired=False, n_resamples=200000, method="percentile",
                            confidence_level=0.95, random_state=np.random.default_rng(12345))
        out[name] = [float(r.confidence_interval.low), float(r.confidence_interval.high)]
    return out


M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def xoshiro128ss(seed, count):
    """xoshiro128** 1.1 seeded with two SplitMix64 outputs (low word first), as src/stats/prng.ts."""
    st, o1 = splitmix64(seed)
    st, o2 = splitmix64(st)
    s = [o1 & M32, o1 >> 32, o2 & M32, o2 >> 32]
    rotl = lambda x, k: ((x << k) | (x >> (32 - k))) & M32
    out = []
    for _ in range(count):
        out.append((rotl((s[1] * 5) & M32, 7) * 9) & M32)
        t = (s[1] << 9) & M32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 11)
    return out


def main():
    result = {
        "origin": f"scipy {scipy.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}: "
                  "/usr/bin/python3 scripts/scipy-reference.py",
        "datasets": {},
        "xoshiro128ss": {str(seed): xoshiro128ss(seed, 6) for seed in (0, 1, 42)},
    }
    for name, fa, fb in PAIRS:
        a, b = read_tps(fa), read_tps(fb)
        entry = {
            "a": summary(a), "b": summary(b), "welch": welch(a, b), "mannWhitney": mwu(a, b),
            "fTest": ftest(a, b), "brownForsythe": brown_forsythe(a, b), "power": power_block(a, b),
            "leaveOneOutP": leave_one_out_p(a, b),
        }
        if "--bootstrap" in sys.argv and name == "rostedt-2023":
            entry["bootstrap"] = bootstrap_block(a, b)
        result["datasets"][name] = entry
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
