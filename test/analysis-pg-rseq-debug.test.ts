/**
 * Notebook 03's view of the pg-rseq-debug record (data/runs/pg-rseq-debug/20261204T215627Z, read
 * only) and of the v2 traced run's window: rows, relations computed again from the raw deltas, and
 * sentences whose numbers come from the rows; a copy with a v3 kill (in a temporary directory)
 * turns the verdict.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { latestPgDebugRecord, pgDebugSentences, pgDebugTable, readPgDebugRecord, tracedWindowSentence } from "../src/analysis/pg-rseq-debug.js";
import { pgDebugVerdict } from "../src/vm/pg-rseq-debug.js";
import { tracedPgRow, tracedPgWindow } from "../src/vm/traced-pg.js";
import { repoRoot } from "../src/util/paths.js";

const REC = join(repoRoot(), "data/runs/pg-rseq-debug/20261204T215627Z");

test("the pg-rseq-debug record: v2 killed on the unfixed kernel with debugging on, v3 never; v3's counters reconcile in every run", () => {
  const rec = readPgDebugRecord(REC);
  assert.equal(rec.rows.length, 6);
  const by = (k: string, id: string) => rec.rows.find((r) => r.kernel === k && r.id === id)!;
  assert.equal(by("unfixed", "v2-debug1").outcome, "killed");
  assert.match(by("unfixed", "v2-debug1").killedLines[0]!, /terminated by signal 11/);
  for (const r of rec.rows.filter((x) => x.patch === "v3")) {
    assert.equal(r.outcome, "survived", `${r.kernel}/${r.id}: ${r.reason}`);
    assert.ok(r.relations.length === 6 && r.relations.every((x) => x.holds === true), `${r.kernel}/${r.id}`);
  }
  assert.equal(pgDebugVerdict(rec.rows).verdict, rec.verdict.verdict);
  assert.equal(rec.verdict.verdict, "v3 safe under rseq debugging");
  const t = pgDebugTable(rec);
  assert.equal(t.rows.length, 6);
  assert.equal(t.header.length, t.rows[0]!.length);
  const s = pgDebugSentences(rec);
  const u = by("unfixed", "v3-debug1");
  assert.ok(s.some((l) => l.includes(`revoked ${u.kernelDelta!.srevok} of ${u.kernelDelta!.sgrant} grants`)));
  assert.ok(s.some((l) => /all six relations hold in every v3 run \(4 runs\)/.test(l)));
  assert.equal(latestPgDebugRecord(join(repoRoot(), "data/runs"))! >= REC, true);
});

test("a copy of the record with a v3 backend killed: the verdict and the sentences say so", () => {
  const dir = mkdtempSync(join(tmpdir(), "pgdbg-rec-"));
  try {
    cpSync(join(REC, "out"), join(dir, "out"), { recursive: true });
    const f = join(dir, "out", "runs.json");
    const runs = JSON.parse(readFileSync(f, "utf8"));
    runs[0].outcome = "killed";
    runs[0].killedLines = ["LOG:  client backend (PID 9) was terminated by signal 11: Segmentation fault"];
    runs[0].patchDelta.granted_yielded += 1;
    writeFileSync(f, JSON.stringify(runs));
    const rec = readPgDebugRecord(dir);
    assert.equal(pgDebugVerdict(rec.rows).verdict, "v3 KILLED under rseq debugging");
    const s = pgDebugSentences(rec);
    assert.ok(s.some((l) => /patch v3, rseq\/debug = 1: killed/.test(l)));
    assert.ok(s.some((l) => /some relations FAIL/.test(l)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("tracedWindowSentence on the v2 traced run: 19 yields inside the counters' window, equal to granted_yielded", () => {
  const rec = join(repoRoot(), "data/runs/slice-trace/20261202T005450Z");
  const d = JSON.parse(readFileSync(join(rec, "raw/series/runs/001-on/result.json"), "utf8")).workloads[0].sliceExtension.countersDelta;
  const w = tracedPgWindow(rec);
  const s = tracedWindowSentence("slice-trace/20261202T005450Z", w, d, tracedPgRow(rec).kernel);
  assert.match(s, /within the counters' window the trace holds 175 grants and 19 yields, against granted_yielded 19 \(equal\)/);
  assert.match(s, /the other 4 yields/);
  assert.match(tracedWindowSentence("x", { ...w, inside: { ...w.inside, yield: 18 } }, d, { sgrant: 1, syield: 1 }), /NOT equal/);
});
