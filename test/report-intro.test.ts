// Notebook 00's headlines (src/report/intro.ts), notebook 01's verdict sentence (src/claims/verdict-text.ts)
// and its reading of WAIT MEAN on Spraul's lock (src/claims/lahr-reading.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { introHeadlines, introTable } from "../src/report/intro.js";
import { loadLahr2001, loadLu2023, loadRostedt2023, loadSangappa2024 } from "../src/published/index.js";
import { buildLedger, ledgerValueNames, perSpinExcess, verdictText, waitMeanReading } from "../src/claims/index.js";
import { UserError } from "../src/util/errors.js";

const inputs = () => ({ rostedt: loadRostedt2023(), lahr: loadLahr2001(), lu: loadLu2023(), sangappa: loadSangappa2024(), ledger: buildLedger() });

test("introHeadlines: the recorded values are the ledger's where it names them, and Rostedt's from his runs", () => {
  const d = inputs();
  const h = introHeadlines(d);
  const names = h.values.map((v) => v.name);
  assert.equal(new Set(names).size, names.length, "a value recorded twice");
  const ledger = ledgerValueNames(d.ledger);
  const inLedger = h.values.filter((v) => ledger.has(v.name));
  assert.ok(inLedger.length >= 6, `only ${inLedger.length} ledger values`);
  for (const v of inLedger) assert.ok(Math.abs((ledger.get(v.name) as number) - v.value) < 1e-9 * Math.max(1, Math.abs(v.value)), v.name);
  // Independently of the module: the means of the measured runs as posted.
  const mean = (side: string) => {
    const x = d.rostedt.runs.filter((r) => r.side === side && r.role === "measured").map((r) => r.tps);
    return x.reduce((a, b) => a + b, 0) / x.length;
  };
  assert.ok(Math.abs(h.rostedt.diffPct - (mean("with-patch") / mean("without-patch") - 1) * 100) < 1e-9);
  assert.equal(h.rostedt.without.n, d.rostedt.runs.filter((r) => r.side === "without-patch" && r.role === "measured").length);
  const table = introTable(h).split("\n");
  assert.equal(table.length, 7);
  assert.match(table[4]!, new RegExp(`\\(\\+${h.rostedt.diffPct.toFixed(2)}%\\)`));
  assert.match(table[2]!, /`runqueue_lock` held 24\.38% of the time, 23\.93% of acquisitions/);
});

test("introHeadlines: a missing row is a UserError naming the file", () => {
  const d = inputs();
  const lahr = { ...d.lahr, rows: d.lahr.rows.filter((r) => r.lock !== "runqueue_lock") };
  assert.throws(() => introHeadlines({ ...d, lahr }), (e: unknown) => e instanceof UserError && /lahr-2001\/lockmeter\.json: no 2-way runqueue_lock row/.test(e.message));
  const sangappa = { ...d.sangappa, results: [{ ...d.sangappa.results[0]!, test: "Other" }] };
  assert.throws(() => introHeadlines({ ...d, sangappa }), /sangappa-2024\/results\.json: unknown test "Other"/);
});

test("verdictText: escapes markdown, adds our runs only when they bear on the claim", () => {
  const e = { id: "x/run_queue", verdict: "recomputed" as const, reason: "a_b", reproduction: { status: "not applicable" as const, records: [], note: "" } };
  assert.equal(verdictText(e), "**x/run\\_queue — recomputed:** a\\_b.");
  const r = { ...e, reproduction: { status: "not yet reproduced" as const, records: ["data/runs/a"], note: "only in a VM" } };
  assert.equal(verdictText(r), "**x/run\\_queue — recomputed:** a\\_b. *Our runs: not yet reproduced* — only in a VM (`data/runs/a`).");
});

test("waitMeanReading: the callers sum to the lock row per acquisition, not per spin, and the text says so", () => {
  const lahr = loadLahr2001();
  const cpu = 8252.7;
  const w = waitMeanReading(lahr.rows, cpu, 0.7);
  assert.equal(w.sem.section, "8way");
  assert.match(w.sem.name, /^sem_ids/);
  // The lock row's MEAN × TOTAL, recomputed here from its printed columns.
  assert.ok(Math.abs(w.lost.perAcquisitionS - (w.sem.waitMeanUs * w.sem.total) / 1e6) < 1e-12);
  assert.ok(Math.abs(w.callersLostPerAcquisitionS - w.lost.perAcquisitionS) / w.lost.perAcquisitionS < 0.01);
  assert.ok(Math.abs(w.callersLostPerSpinS - w.lost.perSpinS) / w.lost.perSpinS > 0.1);
  assert.ok(Math.abs(w.lostShareOfCpuPct - (100 * w.lost.perAcquisitionS) / cpu) < 1e-12);
  for (let i = 1; i < w.clearest.length; i++) assert.ok(perSpinExcess(w.clearest[i - 1]!) >= perSpinExcess(w.clearest[i]!));
  assert.ok(perSpinExcess(w.clearest[w.clearest.length - 1]!) > 1, "a row in the list that a per-spin mean allows");
  assert.match(w.text, new RegExp(`MEAN × TOTAL gives ${w.callersLostPerAcquisitionS.toFixed(3)} s against ${w.lost.perAcquisitionS.toFixed(3)} s`));
  assert.match(w.text, /his "around 0\.7 seconds"/);
  assert.match(w.text, /matches it in 80 of 80 rows, SPIN \/ TOTAL alone in 78/);
  // Issue 28 item 9: the tool's source is cited, with its version and URL, not "the documentation" by hearsay.
  assert.match(w.text, /\[lockstat\.c 1\.4\.11\]\(https:\/\/github\.com\/zellux\/linux-scalability-benchmark\/blob\/af7b63ca9c1c6580c4c525991c171ebd68e6524e\/lockstat\/lockstat\.c\) \(John Hawkes, SGI\) documents WAIT as "Mean spin-wait wait time"/);
  assert.match(w.text, /so his arithmetic holds/);
  assert.doesNotMatch(w.text, /as issue 17 reports it/);
  // 0.677879 s / 8252.7 CPU-seconds = 0.0082 %; 1.863 s = 0.023 %.
  assert.match(w.text, /His conclusion stands either way: that is 0\.0082% or 0\.023% of the run's 8,253 CPU-seconds/);
  assert.throws(() => waitMeanReading(lahr.rows.filter((r) => !r.name.startsWith("sem_ids")), cpu, 0.7), /no 8-way sem_ids lock row/);
});

test("notebook 00's timeline: title and takeaway from the events (issue 28 item 4): 11 events, 2001–2026, 4 published posts", async () => {
  const { historyFigureText } = await import("../src/report/history.js");
  assert.deepEqual(historyFigureText(), {
    title: "Lock-holder preemption on Linux, 2001–2026",
    takeaway: "11 events over 25 years; 4 are the posts whose numbers this kit recomputes (the others: 7 mentions and public reports).",
  });
  assert.throws(() => historyFigureText([]), /no events to draw/);
});
