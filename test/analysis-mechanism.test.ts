/**
 * The mechanism factorial's analysis and the verdict rules of the predictions
 * from the 7.2 source: intervals against hand-computed values, and each rule
 * driven to each of its verdicts by rows built for it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { answerSentence, answerTable, countInterval, extensionEffect, factorialTable, fmtInterval, MIN_RUNS_FOR_INTERVAL, ratioOfSums, summariseCells, tInterval, welchDiff, type FactorialRow } from "../src/analysis/mechanism.js";
import { evaluatePredictions, PREDICTIONS } from "../src/analysis/mechanism-predictions.js";

function row(over: Partial<FactorialRow> & Pick<FactorialRow, "mode" | "pages" | "extension">): FactorialRow {
  return {
    run: "001", kernelRelease: "7.2.13", accel: "tcg-icount", holds: 10000, deschedHolds: 0,
    kernelFault: 0, kernelOther: 0, returnFault: 0, returnInterrupt: 0, returnSyscall: 0, voluntary: 0, unclassified: 0,
    covered: 0, grants: 0, faultsUnderLock: 0, throughputPerS: 1000, hogWorkPerS: 10, waitP99Ns: 1, lostEvents: 0,
    ...over,
  };
}

/** n runs of a cell; f(i) gives per-run overrides. */
function cell(mode: string, pages: string, extension: string, n: number, f: (i: number) => Partial<FactorialRow>): FactorialRow[] {
  return Array.from({ length: n }, (_, i) => {
    const o = f(i);
    const r = row({ mode, pages, extension, run: `${mode}-${pages}-${extension}-${i}`, ...o });
    r.deschedHolds = r.kernelFault + r.kernelOther + r.returnFault + r.returnInterrupt + r.returnSyscall + r.voluntary + r.unclassified;
    return r;
  });
}

test("tInterval and welchDiff match hand-computed 95 % intervals", () => {
  // mean 2, sd 1, n 3: half-width t(0.975, 2) = 4.302653 × 1/√3
  const i = tInterval([1, 2, 3]);
  assert.equal(i.mean, 2);
  assert.ok(Math.abs(i.hi - 2 - 4.302653 / Math.sqrt(3)) < 1e-5, String(i.hi));
  // equal variances, n 3 each: df = 4, se = √(2/3); t(0.975, 4) = 2.776445
  const d = welchDiff([1, 2, 3], [4, 5, 6]);
  assert.equal(d.mean, 3);
  assert.ok(Math.abs(d.hi - 3 - 2.776445 * Math.sqrt(2 / 3)) < 1e-5, String(d.hi));
  assert.ok(Number.isNaN(tInterval([5]).lo));
});

test("countInterval: a count's interval never leaves [min, max] of the runs (never below zero); fewer than 3 runs get none", () => {
  // The rows that gave "19949 (-53074–92972)" and "4.51 (-1.38–10.40)" with a t interval on 2 runs.
  const two = countInterval([0.4, 8.6]);
  assert.equal(two.mean, 4.5);
  assert.ok(Number.isNaN(two.lo) && Number.isNaN(two.hi), JSON.stringify(two));
  assert.equal(fmtInterval(two, 2), "4.50 (n = 2: too few runs for an interval)");
  const xs = [0, 0, 0.2, 5, 0.1];
  const t = tInterval(xs);
  assert.ok(t.lo < 0, `the t interval of these runs goes below zero (${t.lo}): the case this guards`);
  const c = countInterval(xs);
  assert.ok(c.lo >= 0 && c.lo <= c.mean && c.mean <= c.hi && c.hi <= 5, JSON.stringify(c));
  assert.deepEqual(countInterval(xs), c, "seeded: the same runs give the same interval");
  assert.equal(MIN_RUNS_FOR_INTERVAL, 3);
});

test("factorialTable: emulated throughput is a count of runs, no interval, no test", () => {
  const cells = summariseCells(cell("full", "4k", "off", 3, () => ({})));
  const emu = factorialTable(cells)[0]!["throughput /s"];
  assert.equal(emu, "1000 (3 runs; emulated, not a speed)");
  assert.match(String(factorialTable(cells, { emulated: false })[0]!["throughput /s"]), /^1000 \(1000–1000\)$/);
  assert.ok(!/-\d/.test(Object.values(factorialTable(cells)[0]!).join(" ")), "no negative bound in the table");
});

test("answerTable: one row per mode with the answer's numbers, dashes for missing cells", () => {
  const rs = [
    ...cell("full", "4k", "off", 3, () => ({ kernelFault: 3, returnInterrupt: 7, faultsUnderLock: 1250 })),
    ...cell("full", "4k", "on", 3, () => ({ kernelFault: 1, returnInterrupt: 1, covered: 8, faultsUnderLock: 1250 })),
    ...cell("full", "hugetlb", "off", 3, () => ({ faultsUnderLock: 3 })),
  ];
  const t = answerTable(rs);
  assert.equal(t.length, 1);
  assert.equal(t[0]!.mode, "full");
  assert.equal(t[0]!.runs, 9);
  assert.equal(t[0]!["in-kernel share % (4k, off)"], "30 (30–30) (9 of 30)");
  assert.equal(t[0]!["covered by a grant % (4k, on)"], "80 (80–80)");
  assert.equal(t[0]!["faults under lock /1k: 4k · hugetlb · prefault"], "125.00 (125.00–125.00) · 0.30 (0.30–0.30) · —");
});

test("ratioOfSums: the pooled ratio, a bootstrap interval that contains it, NaN without a denominator", () => {
  const r = ratioOfSums([1, 2, 3, 4], [10, 10, 10, 10]);
  assert.equal(r.mean, 0.25);
  assert.ok(r.lo <= 0.25 && 0.25 <= r.hi && r.lo >= 0.1 && r.hi <= 0.4, JSON.stringify(r));
  assert.deepEqual(ratioOfSums([1, 2], [10, 10]), ratioOfSums([1, 2], [10, 10]), "seeded: the same rows give the same interval");
  assert.ok(Number.isNaN(ratioOfSums([0, 0], [0, 0]).mean));
});

test("summariseCells: rates per 1,000 holds, in-kernel share, covered fraction", () => {
  const rows = cell("lazy", "4k", "on", 2, (i) => ({ holds: 20000, kernelFault: 4 + i, returnFault: 6, covered: 10 }));
  const [c] = summariseCells(rows);
  assert.ok(c);
  assert.equal(c.runs, 2);
  assert.equal(c.rates.kernelFault.mean, (1000 * 4) / 20000 / 2 + (1000 * 5) / 20000 / 2);
  assert.equal(c.totals.kernel, 9);
  assert.equal(c.inKernelShare.mean, 9 / 21);
  assert.equal(c.coveredFraction.mean, 20 / (9 + 12 + 20));
});

const noisy = (base: number, i: number) => base + (i % 3);

test("P1 (fault return grantable): confirmed when on lowers return-from-fault, refuted when it raises it, not tested without any", () => {
  const p = PREDICTIONS.find((x) => x.id === "P1-fault-return-grantable")!;
  const mk = (off: number, on: number) => ["full", "lazy"].flatMap((m) => [
    ...cell(m, "4k", "off", 4, (i) => ({ returnFault: noisy(off, i) })),
    ...cell(m, "4k", "on", 4, (i) => ({ returnFault: noisy(on, i) })),
  ]);
  assert.equal(p.evaluate(mk(40, 2)).verdict, "confirmed");
  assert.equal(p.evaluate(mk(2, 40)).verdict, "refuted");
  const none = ["full", "lazy"].flatMap((m) => [...cell(m, "4k", "off", 4, () => ({})), ...cell(m, "4k", "on", 4, () => ({}))]);
  assert.equal(p.evaluate(none).verdict, "not tested");
  assert.equal(p.evaluate([]).verdict, "not tested");
});

test("P2 (no grant in the kernel): refuted only when on clearly lowers in-kernel preemptions", () => {
  const p = PREDICTIONS.find((x) => x.id === "P2-grant-only-at-return")!;
  const mk = (off: number, on: number) => ["full", "lazy"].flatMap((m) => [
    ...cell(m, "4k", "off", 4, (i) => ({ kernelFault: noisy(off, i) })),
    ...cell(m, "4k", "on", 4, (i) => ({ kernelFault: noisy(on, i) })),
  ]);
  assert.equal(p.evaluate(mk(20, 20)).verdict, "confirmed");
  assert.equal(p.evaluate(mk(20, 40)).verdict, "confirmed");
  assert.equal(p.evaluate(mk(40, 2)).verdict, "refuted");
});

test("P4 (issue 26): lazy's in-fault rate is compared with full's, not only with 0", () => {
  const p = PREDICTIONS.find((x) => x.id === "P4-lazy-escalates-in-fault")!;
  const mk = (lazy: number, full: number) => [
    ...cell("lazy", "4k", "off", 4, (i) => ({ kernelFault: lazy === 0 ? 0 : noisy(lazy, i) })),
    ...cell("full", "4k", "off", 4, (i) => ({ kernelFault: noisy(full, i) })),
  ];
  assert.equal(p.evaluate(mk(3, 30)).verdict, "confirmed", "lower than full and above 0");
  assert.equal(p.evaluate(mk(30, 30)).verdict, "refuted", "as high as full: the interval excludes a halving");
  assert.equal(p.evaluate(mk(0, 30)).verdict, "refuted", "none at all");
  const wide = [...cell("lazy", "4k", "off", 3, (i) => ({ kernelFault: [0, 30, 2][i]! })), ...cell("full", "4k", "off", 3, (i) => ({ kernelFault: [1, 25, 5][i]! }))];
  assert.equal(p.evaluate(wide).verdict, "undecided");
  assert.equal(p.evaluate(cell("lazy", "4k", "off", 4, (i) => ({ kernelFault: noisy(10, i) }))).verdict, "not tested", "no full cell to compare with");
  assert.match(p.evaluate(mk(30, 30)).evidence, /lazy − full/);
});

test("P3 (in-fault preemption under full): confirmed, refuted at zero, undecided when the interval reaches 0", () => {
  for (const [id, mode] of [["P3-full-preempts-in-fault", "full"]] as const) {
    const p = PREDICTIONS.find((x) => x.id === id)!;
    assert.equal(p.evaluate(cell(mode, "4k", "off", 4, (i) => ({ kernelFault: noisy(10, i) }))).verdict, "confirmed", id);
    assert.equal(p.evaluate(cell(mode, "4k", "off", 4, () => ({ kernelFault: 0 }))).verdict, "refuted", id);
    assert.equal(p.evaluate(cell(mode, "4k", "off", 4, (i) => ({ kernelFault: i === 0 ? 5 : 0 }))).verdict, "undecided", id);
  }
});

test("P5 (issue 26): Wilson intervals of the pooled shares; none at all under lazy among many at-return preemptions refutes", () => {
  const p = PREDICTIONS.find((x) => x.id === "P5-lazy-concentrates-at-fault-return")!;
  const mk = (lazyFault: number, fullFault: number) => [
    ...cell("lazy", "4k", "off", 5, (i) => ({ returnFault: noisy(lazyFault, i), returnInterrupt: noisy(20, i) })),
    ...cell("full", "4k", "off", 5, (i) => ({ returnFault: noisy(fullFault, i), returnInterrupt: noisy(20, i) })),
  ];
  assert.equal(p.evaluate(mk(80, 5)).verdict, "confirmed");
  assert.equal(p.evaluate(mk(5, 80)).verdict, "refuted");
  // None in either mode with 104 at-return preemptions under lazy: Wilson upper bound 3.5 % < 5 %.
  const none = p.evaluate(["lazy", "full"].flatMap((m) => cell(m, "4k", "off", 5, (i) => ({ returnFault: 0, returnInterrupt: noisy(20, i) }))));
  assert.equal(none.verdict, "refuted");
  assert.match(none.evidence, /lazy 0 of 104/);
  // Too few at-return preemptions to bound the share below 5 %: undecided.
  const few = p.evaluate(["lazy", "full"].flatMap((m) => cell(m, "4k", "off", 2, () => ({ returnFault: 0, returnInterrupt: 3 }))));
  assert.equal(few.verdict, "undecided");
  const nothing = p.evaluate(["lazy", "full"].flatMap((m) => cell(m, "4k", "off", 2, () => ({}))));
  assert.equal(nothing.verdict, "not tested");
});

test("P6 (huge pages): confirmed when faults and in-kernel preemptions vanish, refuted when they do not fall", () => {
  const p = PREDICTIONS.find((x) => x.id === "P6-huge-pages-remove-faults")!;
  const base = ["full", "lazy"].flatMap((m) => cell(m, "4k", "off", 4, (i) => ({ faultsUnderLock: noisy(2500, i), kernelFault: noisy(10, i) })));
  const good = ["full", "lazy"].flatMap((m) => cell(m, "hugetlb", "off", 4, (i) => ({ faultsUnderLock: i % 2, kernelFault: 0 })));
  const bad = ["full", "lazy"].flatMap((m) => cell(m, "hugetlb", "off", 4, (i) => ({ faultsUnderLock: noisy(2600, i), kernelFault: noisy(10, i) })));
  assert.equal(p.evaluate([...base, ...good]).verdict, "confirmed");
  assert.equal(p.evaluate([...base, ...bad]).verdict, "refuted");
  assert.equal(p.evaluate(base).verdict, "not tested");
});

test("P0 (none never preempts in the kernel): confirmed with at-return preemptions only, refuted by any in-kernel one", () => {
  const p = PREDICTIONS.find((x) => x.id === "P0-none-never-in-kernel")!;
  assert.equal(p.evaluate(cell("none", "4k", "off", 3, () => ({ returnInterrupt: 4 }))).verdict, "confirmed");
  assert.equal(p.evaluate(cell("none", "4k", "off", 3, (i) => ({ returnInterrupt: 4, kernelOther: i === 2 ? 1 : 0 }))).verdict, "refuted");
  assert.equal(p.evaluate(cell("none", "4k", "off", 3, () => ({}))).verdict, "not tested");
});

test("evaluatePredictions lists every prediction with source, rule and a verdict; the answer carries numbers and intervals", () => {
  const rows = ["full", "lazy"].flatMap((m) => [
    ...cell(m, "4k", "off", 3, (i) => ({ kernelFault: noisy(8, i), returnFault: noisy(12, i), returnInterrupt: 5, faultsUnderLock: 2500 })),
    ...cell(m, "4k", "on", 3, (i) => ({ kernelFault: noisy(9, i), returnFault: noisy(2, i), returnInterrupt: 1, covered: noisy(20, i), faultsUnderLock: 2500 })),
    ...cell(m, "hugetlb", "off", 3, () => ({ faultsUnderLock: 2, returnInterrupt: 4 })),
  ]);
  const ev = evaluatePredictions(rows);
  assert.equal(ev.length, PREDICTIONS.length);
  for (const e of ev) {
    assert.match(e.source, /\.(c|h)\b/, `${e.id} names a source file`);
    assert.ok(["confirmed", "refuted", "undecided", "not tested"].includes(e.verdict));
  }
  const a = answerSentence(rows);
  assert.match(a, /full \(\d+ of \d+;/);
  assert.match(a, /under lazy the extension covered \d+ \(\d+–\d+\) %/);
  assert.match(a, /Huge pages \(hugetlb\)/);
  assert.match(a, /functional evidence/);
  const d = extensionEffect(rows, "full", "4k", "returnFault");
  assert.ok(d.mean < 0);
});

test("accelContrastCells/Table/Answer: sums per cell and accel over the cells both have; long holds = logged + lost; grants null counts 0", async () => {
  const { accelContrastCells, accelContrastTable, accelContrastAnswer } = await import("../src/analysis/mechanism.js");
  const c = (o: Partial<FactorialRow> & Pick<FactorialRow, "mode" | "pages" | "extension">, logged: number, lost = 0, ends: [number | null, number | null, number | null] = [0, 0, 0]) =>
    ({ ...row(o), holdsLogged: logged, logLost: lost, yields: ends[0], expired: ends[1], revoked: ends[2] });
  const icount = [
    c({ mode: "lazy", pages: "4k", extension: "off", holds: 1000, kernelFault: 2, returnInterrupt: 6 }, 10),
    c({ mode: "lazy", pages: "4k", extension: "off", holds: 1000, kernelFault: 1, returnInterrupt: 4 }, 6),
    c({ mode: "lazy", pages: "4k", extension: "on", holds: 2000, kernelFault: 2, covered: 8, grants: 9 }, 4, 0, [8, 1, 0]),
    c({ mode: "lazy", pages: "4k", extension: "on", holds: 2000, kernelFault: 2, covered: 6, grants: 7 }, 2, 2, [6, 0, 1]),
    c({ mode: "full", pages: "hugetlb", extension: "off", holds: 5 }, 0),
  ];
  const tcg = [
    c({ mode: "lazy", pages: "4k", extension: "off", holds: 500, kernelFault: 3, returnFault: 1, returnInterrupt: 2 }, 60),
    c({ mode: "lazy", pages: "4k", extension: "on", holds: 500, kernelFault: 3, returnInterrupt: 3, covered: 0, grants: null }, 70, 5, [null, null, null]),
  ];
  const cells = accelContrastCells([{ label: "icount", rows: icount }, { label: "plain TCG", rows: tcg }]);
  assert.deepEqual(cells.map((x) => `${x.cell} ${x.label}`), ["lazy/4k/off icount", "lazy/4k/off plain TCG", "lazy/4k/on icount", "lazy/4k/on plain TCG"], "full/hugetlb/off is in one group only");
  const on = cells[2]!;
  assert.deepEqual([on.runs, on.holds, on.kernel, on.atReturn, on.covered, on.grants, on.longHolds], [2, 4000, 4, 0, 14, 16, 8]);
  assert.deepEqual([on.yields, on.expired, on.revoked], [14, 1, 1]);
  assert.equal(on.longHoldsPer1k.mean, 2, "(4/2000 + 4/2000)/2 × 1000");
  const tOn = cells[3]!;
  assert.deepEqual([tOn.atReturn, tOn.grants, tOn.longHolds], [3, 0, 75]);
  assert.equal(cells[1]!.atReturn, 3, "return from a fault and from an interrupt");
  assert.equal(cells[0]!.atReturnPer1k.mean, 5);
  const table = accelContrastTable(cells);
  assert.equal(table[1]!["accel"], "plain TCG");
  assert.equal(table[2]!["grants ended: yield / timer / revoked"], "14 / 1 / 1");
  // Two runs of a count: no interval (a t interval on them was "8.00 (-17.41–33.41)", below zero for a count).
  assert.equal(table[0]!["long holds /1k holds"], "8.00 (n = 2: too few runs for an interval)");
  const s = accelContrastAnswer(cells, ["icount", "plain TCG"]);
  assert.match(s, /^Extension off → on with 4 KB pages .*lazy: icount — preemptions at the return 10 → 0 \(2 and 2 runs\), 16 grants \(14 ended by the yield, 1 by the timer, 1 revoked\) covering 14 holds, long holds 8\.00 \(.*\) → 2\.00 \(.*\) per 1,000 holds; plain TCG — preemptions at the return 3 → 3 \(1 and 1 runs\), 0 grants \(0 ended by the yield, 0 by the timer, 0 revoked\) covering 0 holds, long holds 120\.00 \(n = 1: too few runs for an interval\) → 150\.00 \(n = 1: too few runs for an interval\)/);
  assert.equal(accelContrastAnswer(cells.filter((x) => x.cell.endsWith("off")), ["icount", "plain TCG"]), "No mode has both 4 KB extension arms in icount and plain TCG.");
});
