/**
 * The claims issue 28 item 10 found missing: each is in the ledger with its quoted source (file:line of
 * a verbatim raw excerpt) and the verdict its numbers give.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildLedger, findClaim } from "../src/claims/index.js";
import { diffstat } from "../src/claims/missing.js";
import { UserError } from "../src/util/errors.js";

const ledger = buildLedger();
const claim = (id: string) => findClaim(ledger, id);
const v = (id: string, key: string) => claim(id).values[key];

test("Sangappa: 4096 / 128 = 32 structures per page; the diffstat's 19 file lines sum to 593 + 9", () => {
  const p = claim("sangappa-2024/shared-structure-padding");
  assert.deepEqual([v(p.id, "paddingBytes"), v(p.id, "perPage"), v(p.id, "fitsPerPage")], [128, 32, 32]);
  assert.equal(p.verdict, "recomputed");
  assert.deepEqual(p.cites, ["data/published/sangappa-2024/shared-structure.raw.txt:2", "data/published/sangappa-2024/shared-structure.raw.txt:3"]);
  const d = claim("sangappa-2024/patch-diffstat");
  // By hand: 1+1+10+4+30+2+63+4+29+10+15+12+28+4+7+2+1+13+366 = 602 = 593 + 9.
  assert.deepEqual([v(d.id, "files"), v(d.id, "changedLines"), v(d.id, "largestFileChanges")], [19, 602, 366]);
  assert.equal(d.verdict, "recomputed");
  assert.deepEqual(d.cites, ["data/published/sangappa-2024/diffstat.raw.txt:20"]);
  // A diffstat whose summary disagrees with its lines, and a line that is no diffstat.
  const bad = diffstat([" a | 3 +++", " b | 2 --", " 2 files changed, 4 insertions(+), 2 deletions(-)"], "x.raw.txt");
  assert.equal(bad.files.reduce((s, f) => s + f.changes, 0), 5);
  assert.throws(() => diffstat([" a | 3 +++", "hello"], "x.raw.txt"), (e: unknown) => e instanceof UserError && /^x\.raw\.txt:2: expected a diffstat line/.test(e.message));
});

test("Rostedt: the 'lucky' good runs are a guess the runs agree with; 'a win' rests on the fragile smaller SD", () => {
  const l = claim("rostedt-2023/good-run-was-lucky");
  assert.equal(l.verdict, "consistent");
  assert.equal(v(l.id, "outlierRun"), 5);
  assert.ok((v(l.id, "outlierZ") as number) < -3.3 && (v(l.id, "outlierZ") as number) > -3.4);
  assert.match(l.reason, /he says so \("I'm guessing"\)/);
  assert.deepEqual(l.cites, ["data/published/rostedt-2023/claims.raw.txt:22"]);
  const w = claim("rostedt-2023/smaller-std-dev-is-a-win");
  assert.equal(claim("rostedt-2023/smaller-std-dev").verdict, "fragile");
  assert.equal(w.verdict, "fragile");
  assert.match(w.reason, /a judgement, offered as his own \("I personally think"\), and a reasonable one/);
  assert.match(w.reason, /without it F-test p = 0\.449/);
});

test("Spraul's wakeups: sys_semop's two call sites take 92.6 % of sem_ids' spins; the semop bug is not checkable", () => {
  const c = claim("lahr-2001/spraul-wakeups-cause");
  // 50007 + 86509 = 136516 of 147365 spins = 92.638 %.
  assert.equal(v(c.id, "semopSpins"), 136516);
  assert.equal(v(c.id, "lockSpins"), 147365);
  assert.ok(Math.abs((v(c.id, "semopSpinSharePct") as number) - (100 * 136516) / 147365) < 1e-9);
  assert.equal(v(c.id, "semopMaxConPct"), 64.59);
  assert.equal(c.verdict, "consistent");
  assert.equal(claim("lahr-2001/spraul-semop-bug").verdict, "not checkable");
  assert.deepEqual(claim("lahr-2001/spraul-semop-bug").cites, ["data/published/lahr-2001/spraul-semop-bug.raw.txt:1"]);
});

test("Kirkwood: 13 of PostgreSQL's 20 back-off delays are zero timeouts, 7 sleep 10 ms", () => {
  const k = claim("lahr-2001/kirkwood-zero-timeout");
  assert.deepEqual([v(k.id, "zeroDelays"), v(k.id, "timedDelays"), v(k.id, "delays"), v(k.id, "timedMsPerPass")], [13, 7, 20, 70]);
  assert.equal(k.verdict, "consistent");
  assert.match(k.reason, /^right for most steps: 13 of 20/);
  assert.deepEqual(k.cites, ["data/published/lahr-2001/kirkwood.raw.txt:7"]);
});

test("Lu: 56 threads and 56 backends on 224 CPUs is not oversubscribed, which answers Desnoyers", () => {
  const n = claim("lu-2023/not-oversubscribed");
  assert.deepEqual([v(n.id, "threads"), v(n.id, "busyTasks"), v(n.id, "cpus")], [56, 112, 224]);
  assert.equal(n.verdict, "recomputed");
  assert.match(n.reason, /the answer to Desnoyers' question is no/);
  assert.ok(n.cites.includes("data/published/lu-2023/desnoyers-question.raw.txt:2"));
});
