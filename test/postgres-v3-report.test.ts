// Notebook 03's version 3 sentences, from fixed inputs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clearCostSentence, clearsPerTransactionV2, v3HarnessSentence } from "../src/postgres/v3-report.js";
import type { HarnessRun } from "../src/postgres/harness.js";
import type { ClearCostRecord } from "../src/postgres/clear-cost.js";

const run = (v: "v2" | "v3", st: [string, "PASS" | "FAIL" | "SKIP", string][]): HarnessRun => ({
  patch: v, version: v, glue: {},
  scenarios: st.map(([name, status, why]) => ({ name, status, why })),
  passed: st.filter((s) => s[1] === "PASS").length, failed: st.filter((s) => s[1] === "FAIL").length, skipped: st.filter((s) => s[1] === "SKIP").length,
});

test("v3HarnessSentence counts v2's failures, the SIGSEGV ones, and those v3 passes", () => {
  const v2 = run("v2", [["a", "FAIL", "killed by SIGSEGV at a system call"], ["b", "FAIL", "x"], ["c", "PASS", ""]]);
  const v3 = run("v3", [["a", "PASS", ""], ["b", "PASS", ""], ["c", "PASS", ""]]);
  assert.equal(v3HarnessSentence(v2, v3), "Of the harness's 3 scenarios, v2 fails 2 (1 of them killed by SIGSEGV at a system call on the debug kernel model) and v3 none; 2 of v2's failures pass on v3.");
});

test("clearCostSentence: per clear, and per transaction at a recorded rate (upper CI)", () => {
  const r = { nsPerClear: { mean: 500, ci: [400, 600], n: 10 }, realCallsPerClear: 1, host: { kernel: "6.18", load1Before: 2, load1After: 3, cpus: 2 }, dir: "../data/runs/patch-cost/X" } as unknown as ClearCostRecord & { dir: string };
  assert.match(clearCostSentence(r), /^v3's rseq_slice_yield after an observed clear costs 500\.0 ns per clear on this host \(95% CI 400\.0 … 600\.0, 10 rounds, 1 system calls per clear; host kernel 6\.18, load 2\.0→3\.0 on 2 CPUs; data\/runs\/patch-cost\/X\)\.$/);
  assert.match(clearCostSentence(r, { clears: 0.1, from: "rec" }), /at 0\.100 clears per transaction \(rec\) that is at most 60 ns per transaction\.$/);
  assert.ok(Math.abs(clearsPerTransactionV2({ dropped_without_grant: 0.06, granted_expired: 0.01 }) - 0.07) < 1e-12);
});
