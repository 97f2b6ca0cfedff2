/**
 * The closing paragraph of notebook 01 (src/claims/summary.ts): each clause follows the verdict of
 * the entry it names (issue 28 items 7 and 12), so a fragile result is never called inconclusive and
 * a recomputed figure never "wrong".
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildLedger, claimEntry, differenceClause, findClaim, ledgerSummary, spraulClause, spreadClause, type ClaimEntry } from "../src/claims/index.js";

const ledger = buildLedger();
const claim = (id: string) => findClaim(ledger, id);

test("differenceClause: Rostedt's +0.24 % is fragile (the seed-1 bootstrap interval excludes 0 for 3 of 5 seeds, Welch p = 0.129)", () => {
  const t = differenceClause(claim("rostedt-2023/difference-beyond-noise"), 15);
  assert.equal(
    t,
    "Rostedt's +0.24% gain is fragile: whether it stands out from the run-to-run noise of his 15 runs per side depends on the analysis (Welch p = 0.129, Mann–Whitney p = 0.0745; the bootstrap interval excludes 0 for 3 of 5 seeds)",
  );
  // The same entry with another verdict gets that verdict's clause.
  const ns = { ...claim("rostedt-2023/difference-beyond-noise"), verdict: "not significant" as const };
  assert.match(differenceClause(ns, 15), /is inconclusive: not distinguishable from the run-to-run noise of his 15 runs per side/);
});

test("spreadClause: one unpatched run carries the F-test (p = 0.000148 with it, 0.449 without)", () => {
  assert.equal(spreadClause(claim("rostedt-2023/smaller-std-dev"), 0.05), "his smaller standard deviation rests on one unpatched run (F-test p = 0.000148 with it, 0.449 without)");
  // Were the F-test still significant without it, the clause may not say so.
  const s = claim("rostedt-2023/smaller-std-dev");
  const other: ClaimEntry = { ...s, values: { ...s.values, fTestPWithoutOutlier: 0.01 } };
  assert.match(spreadClause(other, 0.05), /standard deviation is fragile/);
});

test("spraulClause: 0.678 s by the tool's definition, 1.86 s as the rows read, both small", () => {
  const t = spraulClause(claim("lahr-2001/spraul-lost-time"), claim("lahr-2001/contention-high-lost-small"), 0.7);
  assert.equal(
    t,
    "Spraul's 0.7 s is recomputed: it is what the tool's own definition of WAIT MEAN gives (0.678 s), though this output's rows show means divided by all acquisitions, which makes it 1.86 s, either way a small share of the CPU time",
  );
  const e = claimEntry({ id: "x/y", source: "lahr-2001", claim: "", published: "", recomputed: "", uncertainty: null, verdict: "not recomputed", reason: "", basis: "", values: { toolLostS: 1.5 } });
  assert.match(spraulClause(e, claim("lahr-2001/contention-high-lost-small"), 0.7), /^Spraul's lost time is not recomputed \(1\.500 s by the tool's definition against his 0\.7 s\)/);
});

test("ledgerSummary: counts every verdict of the ledger and names what our runs say of Sangappa's figures", () => {
  const t = ledgerSummary(ledger, { runsPerSide: 15, spraulS: 0.7, alpha: 0.05 });
  const n = (v: string) => ledger.filter((e) => e.verdict === v).length;
  assert.match(t, new RegExp(`Of ${ledger.length} claims: ${n("recomputed")} recomputed, `));
  assert.match(t, /\(recomputed from the posted figures; our runs: not yet reproduced\)/);
  assert.doesNotMatch(t, /recomputed, not reproduced/);
  assert.match(t, new RegExp(`our own runs reproduce 0; ${ledger.filter((e) => e.reproduction.status === "not yet reproduced").length} are not yet reproduced`));
});
