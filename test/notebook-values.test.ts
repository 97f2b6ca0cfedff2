/**
 * notebooks/01-published-claims.ipynb as committed (executed, with outputs): no cell
 * errored, every claim's verdict and the key numbers are recorded and equal the
 * ledger's, and the prose shows the ledger's numbers. test/notebooks.test.ts re-runs
 * every notebook and checks that these committed outputs are not stale; this test
 * reads them without starting a kernel.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { readNotebook } from "../src/report/notebooks.js";
import { recordedValues, type NotebookJson, type RecordedValue } from "../src/report/values.js";
import { buildLedger, claimValueName, findClaim, fmt, fmtInterval, fmtP, fmtSignedPct, ledgerValueNames } from "../src/claims/index.js";

const PATH = join(repoRoot(), "notebooks", "01-published-claims.ipynb");
const nb = readNotebook(PATH);
const ledger = buildLedger();
const known = ledgerValueNames(ledger);

/** Key numbers the notebook must compute itself and record (besides every verdict). */
const REQUIRED: [string, string][] = [
  ["rostedt-2023/average-unpatched", "recomputed"],
  ["rostedt-2023/std-dev-unpatched", "sampleSd"],
  ["rostedt-2023/average-patched", "recomputed"],
  ["rostedt-2023/std-dev-patched", "sampleSd"],
  ["rostedt-2023/difference-beyond-noise", "differencePct"],
  ["rostedt-2023/difference-beyond-noise", "welchP"],
  ["rostedt-2023/difference-beyond-noise", "mannWhitneyP"],
  ["rostedt-2023/difference-beyond-noise", "bootstrapLoPct"],
  ["rostedt-2023/difference-beyond-noise", "bootstrapHiPct"],
  ["rostedt-2023/difference-beyond-noise", "leaveOneOutFlips"],
  ["rostedt-2023/smaller-std-dev", "fTestP"],
  ["rostedt-2023/smaller-std-dev", "brownForsytheP"],
  ["rostedt-2023/smaller-std-dev", "fTestPWithoutOutlier"],
  ["rostedt-2023/first-run-cold", "unpatchedZ"],
  ["rostedt-2023/first-run-cold", "patchedZ"],
  ["sangappa-2024/lock-table-improvement", "recomputedPct"],
  ["sangappa-2024/swingbench-improvement", "recomputedPct"],
  ["sangappa-2024/lock-table-improvement", "boundLoPct"],
  ["sangappa-2024/swingbench-improvement", "boundHiPct"],
  ["lahr-2001/spraul-lost-time", "lostPerSpinS"],
  ["lahr-2001/spraul-lost-time", "lostPerAcquisitionS"],
  ["lahr-2001/spraul-lost-time", "rowsPerSpinImpossible"],
  ["lahr-2001/contention-high-lost-small", "lostShareOfCpuPct"],
  ["lahr-2001/contention-high-lost-small", "conRecomputedPct"],
  ["lahr-2001/run-lengths", "runLengthS_8way"],
  ["lahr-2001/run-lengths", "cpuTimeS"],
  ["lahr-2001/spraul-timer-counts", "add_timerPerS_2way"],
  ["rostedt-2023/difference-beyond-noise", "mannWhitneyOneSidedP"],
  ["dipietro-2026/throughput-halved", "ratio"],
  ["lahr-2001/blanchard-select-schedule", "utilSharePct"],
  ["lahr-2001/runqueue-lock-after-mq", "beforeUtilPct"],
  ["lu-2023/schedule-share", "childrenRatio"],
  ["lu-2023/slowpath-share", "childrenRatio"],
  ["lu-2023/rq-lock-contention", "maxShareUnderSchedulePct"],
];

/** Equal as recorded: same string, or numbers equal to 12 significant digits. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
  return a === b;
}

/** Differences between a notebook's recorded values and the ledger, one line each. */
function ledgerMismatches(values: RecordedValue[], ledgerValues: Map<string, unknown>): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (!ledgerValues.has(v.name)) out.push(`${v.name}: recorded in cell ${v.cell} but not a ledger value`);
    else if (!same(v.value, ledgerValues.get(v.name))) {
      out.push(`${v.name}: cell ${v.cell} recorded ${JSON.stringify(v.value)}, the ledger has ${JSON.stringify(ledgerValues.get(v.name))}`);
    }
  }
  return out;
}

const text = (t: unknown): string => (Array.isArray(t) ? t.join("") : typeof t === "string" ? t : "");
/** All Markdown and HTML the notebook's cells displayed, in order. */
function shownText(n: NotebookJson): string {
  return n.cells
    .flatMap((c) => c.outputs ?? [])
    .map((o) => `${text(o.data?.["text/markdown"])}\n${text(o.data?.["text/html"])}`)
    .join("\n");
}

test("01-published-claims: executed, and no cell errored", () => {
  const code = nb.cells.filter((c) => c.cell_type === "code");
  assert.ok(code.length > 5, `code cells: ${code.length}`);
  code.forEach((c, i) => {
    const outs = c.outputs ?? [];
    assert.ok(outs.length > 0, `code cell ${i} has no outputs: the notebook was not executed`);
    const err = outs.find((o) => o.output_type === "error");
    assert.equal(err, undefined, `code cell ${i} errored: ${err?.ename}: ${err?.evalue}`);
    const stderr = outs.filter((o) => o.output_type === "stream" && (o as { name?: string }).name === "stderr");
    assert.deepEqual(stderr.map((o) => text(o.text)), [], `code cell ${i} wrote to stderr`);
  });
});

test("01-published-claims: every recorded value equals the ledger's; every verdict and the key numbers are recorded", () => {
  const values = recordedValues(nb, "01-published-claims.ipynb");
  assert.deepEqual(ledgerMismatches(values, known), []);
  const names = new Set(values.map((v) => v.name));
  const missing = [
    ...ledger.map((e) => claimValueName(e.id, "verdict")),
    ...REQUIRED.map(([id, key]) => claimValueName(id, key)),
  ].filter((n) => !names.has(n));
  assert.deepEqual(missing, [], "values the notebook must record");
  for (const [id, key] of REQUIRED) assert.ok(key in findClaim(ledger, id).values, `${id} has no value ${key}`);
});

test("the comparison can fail: a changed value or an unknown name is reported", () => {
  const values = recordedValues(nb, "01-published-claims.ipynb");
  const name = claimValueName("rostedt-2023/difference-beyond-noise", "welchP");
  const tampered = values.map((v) => (v.name === name ? { ...v, value: (v.value as number) * 1.001 } : v));
  const m = ledgerMismatches(tampered, known);
  assert.equal(m.length, 1);
  assert.match(m[0]!, /difference-beyond-noise\.welch-p: cell \d+ recorded/);
  assert.deepEqual(ledgerMismatches([{ name: "rostedt-2023.nope", value: 1, cell: 3 }], known), [
    "rostedt-2023.nope: recorded in cell 3 but not a ledger value",
  ]);
});

test("01-published-claims: the prose shows the ledger's numbers and verdicts", () => {
  const shown = shownText(nb);
  const val = (id: string, key: string) => findClaim(ledger, id).values[key] as number;
  const D = "rostedt-2023/difference-beyond-noise";
  const expected = [
    `mean is ${fmtSignedPct(val(D, "differencePct"), 3)}`,
    `gives p = ${fmtP(val(D, "welchP"))}`,
    `Mann–Whitney gives p = ${fmtP(val(D, "mannWhitneyP"))}`,
    `difference is ${fmtInterval({ lo: val(D, "bootstrapLoPct"), hi: val(D, "bootstrapHiPct") }, 3, "%")}`,
    `The F-test calls that significant (p = ${fmtP(val("rostedt-2023/smaller-std-dev", "fTestP"))})`,
    `= ${fmt(val("lahr-2001/spraul-lost-time", "lostPerSpinS"), 3)} s`,
    `= ${fmt(val("lahr-2001/spraul-lost-time", "lostPerAcquisitionS"), 2)} s`,
    `${fmt(val("sangappa-2024/lock-table-improvement", "recomputedPct"), 2)}%`,
    `grows ${fmt(val("lu-2023/schedule-share", "childrenRatio"), 2)}× inclusive`,
    ...ledger.map((e) => `— ${e.verdict}:**`),
  ];
  const absent = expected.filter((s) => !shown.includes(s));
  assert.deepEqual(absent, [], "numbers and verdicts the notebook's prose must show");
});
