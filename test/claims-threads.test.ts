// Sangappa 2024, the Lahr 2001 thread and Lu 2023 in the ledger. Expected values are
// worked out by hand from the numbers of the posts (../shared/seeds/), or computed with
// an independent Python script over the seed text (named where used).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import {
  buildLedger,
  findClaim,
  improvementBounds,
  lahrClaims,
  lahrInput,
  luClaims,
  luInput,
  printedResolution,
  printedTimeInterval,
  sangappaInput,
  testKey,
  waitMeanEvidence,
  type ClaimEntry,
  type LockRow,
} from "../src/claims/index.js";

const ledger = buildLedger();
const claim = (id: string): ClaimEntry => findClaim(ledger, id);
const v = (e: ClaimEntry, k: string): number => {
  const x = e.values[k];
  assert.equal(typeof x, "number", `${e.id}: values.${k}`);
  return x as number;
};
const close = (actual: number, expected: number, tol: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs expected ${expected} (±${tol})`);

// ------------------------------------------------------------------ Sangappa

test("Sangappa: inputs from the tidy data, K resolution and keys", () => {
  const t = sangappaInput();
  assert.deepEqual(
    t.map((x) => [x.key, x.without, x.with, x.resolution, x.statedImprovementPct, x.statedDecimals]),
    [
      ["lock-table", 182000, 262000, 1000, 44, 0],
      ["swingbench", 99000, 153000, 1000, 55, 0],
    ],
  );
  assert.equal(printedResolution("1.5M"), 100000);
  assert.equal(testKey("Lock table test"), "lock-table");
});

test("Sangappa: 44% and 55% recomputed, with the interval the K rounding allows", () => {
  const lt = claim("sangappa-2024/lock-table-improvement");
  // 262/182 − 1 = 0.439560…; bounds (261.5/182.5 − 1, 262.5/181.5 − 1) = (43.2877 %, 44.6281 %)
  close(v(lt, "recomputedPct"), 43.956043956, 1e-8, "lock table %");
  close(v(lt, "boundLoPct"), 43.287671233, 1e-8, "lock table lower bound");
  close(v(lt, "boundHiPct"), 44.628099174, 1e-8, "lock table upper bound");
  // Issue 17: the posted arithmetic holds ("recomputed"); the 44% gain itself is not reproduced by us.
  assert.equal(lt.verdict, "recomputed");
  assert.equal(lt.reproduction.status, "not yet reproduced");
  const sb = claim("sangappa-2024/swingbench-improvement");
  // 153/99 − 1 = 0.545454…; bounds (152.5/99.5 − 1, 153.5/98.5 − 1) = (53.2663 %, 55.8376 %)
  close(v(sb, "recomputedPct"), 54.545454545, 1e-8, "swingbench %");
  close(v(sb, "boundLoPct"), 53.266331658, 1e-8, "swingbench lower bound");
  close(v(sb, "boundHiPct"), 55.837563452, 1e-8, "swingbench upper bound");
  assert.equal(sb.verdict, "recomputed");
  assert.equal(sb.reproduction.status, "not yet reproduced");
  for (const e of [lt, sb]) assert.match(e.uncertainty ?? "", /no statistical uncertainty can be computed from one figure per side/);
  // A stated 47% would be outside [43.29, 44.63]: not reproduced.
  assert.ok(improvementBounds({ without: 182000, with: 262000, resolution: 1000 }).hi < 46.5);
  const benefit = claim("sangappa-2024/clearly-shows-benefit");
  assert.equal(benefit.verdict, "not checkable");
  assert.equal(v(benefit, "runsPerSide"), 1);
});

// ------------------------------------------------------------------ Lahr thread

test("Lahr: inputs — sections, Spraul's figures and the lock he discusses", () => {
  const d = lahrInput();
  assert.equal(d.withoutMq, "2way");
  assert.deepEqual(d.withMq, ["4way", "8way"]);
  assert.equal(d.spraulSection, "8way");
  assert.equal(d.spraulLock, "sem_ids+0x24");
  assert.deepEqual(d.spraul, { wallS: 129, cpuS: 1030, lostS: 0.7, lostDecimals: 1 });
  assert.deepEqual(d.cpus, { "2way": 2, "4way": 4, "8way": 8 });
  assert.equal(d.hz, 100);
  assert.equal(d.backoffUs.length, 20);
});

test("Lahr: run lengths from UTIL × hold time, checked by the timer tick (issue 17 item 1)", () => {
  const e = claim("lahr-2001/run-lengths");
  // By hand, HOLD MEAN × TOTAL / UTIL of the lock row with the narrowest rounding range:
  //   2-way kernel_flag      50 µs × 36,515 / 0.0404   = 45.19 s  (runqueue_lock: 15 × 744,475 / 0.2438 = 45.80 s)
  //   4-way sem_ids+0x24     6.0 µs × 97,322 / 0.0018  = 324.41 s
  //   8-way io_request_lock  7.6 µs × 1,560,956 / 0.0115 = 1031.59 s (sem_ids+0x24: 7.1 × 405,038 / 0.0028 = 1027.06 s)
  // and the once-per-tick timer_bh site / HZ 100: 4,514 → 45.14 s, 32,429 → 324.29 s, 102,552 → 1025.52 s.
  close(v(e, "runLengthS_2way"), 45.19183168, 1e-6, "2-way");
  close(v(e, "runLengthS_4way"), 324.40666667, 1e-6, "4-way");
  close(v(e, "runLengthS_8way"), 1031.58831304, 1e-6, "8-way");
  close(v(e, "runLengthS_8way_sem_ids"), 1027.06064286, 1e-6, "8-way from sem_ids");
  close(v(e, "tickRunLengthS_2way"), 45.14, 1e-9, "2-way ticks");
  close(v(e, "tickRunLengthS_4way"), 324.29, 1e-9, "4-way ticks");
  close(v(e, "tickRunLengthS_8way"), 1025.52, 1e-9, "8-way ticks");
  // Rounding of UTIL (±0.005) and HOLD MEAN (±0.05 µs): 7.55 × 1,560,956 / 0.01155 = 1020.37 s, 7.65 × … / 0.01145 = 1042.91 s.
  close(v(e, "runLengthLoS_8way"), 1020.36517749, 1e-6, "8-way low");
  close(v(e, "runLengthHiS_8way"), 1042.90946725, 1e-6, "8-way high");
  // So 1030 s is wall time; CPU time 8 × 1031.59 = 8252.71 s; Spraul's 129 s ≈ 1030 / 8 = 128.75.
  close(v(e, "cpuTimeS"), 8252.70650435, 1e-6, "CPU time");
  assert.equal(v(e, "spraulCpuOverCpus"), 128.75);
  assert.equal(e.verdict, "not recomputed");
  assert.match(e.reason, /so 1030 s is the run's wall time, its CPU time on 8 CPUs is ≈ 8,253 s, and Spraul's ~129 s looks like 1030 \/ 8 = 128\.75/);
});

test("Lahr: the tables print times below 10 µs with one decimal and from 10 µs without (checked on the raw rows)", () => {
  const raw = readFileSync(join(repoRoot(), "data", "published", "lahr-2001", "lockstat.raw.txt"), "utf8");
  let n = 0;
  for (const m of raw.matchAll(/(\d+(?:\.\d+)?)us/g)) {
    const text = m[1]!;
    const us = Number(text);
    if (text === "0") continue; // the bare "0us" of rows that never waited
    n++;
    assert.equal(text.includes("."), us < 10, `${text}us: one decimal exactly when below 10 µs`);
    const iv = printedTimeInterval(us);
    close(iv.hi - iv.lo, us === 0 ? 0.05 : us < 10 ? 0.1 : 1, 1e-12, `interval of ${text}us`);
  }
  assert.equal(n, 300, "time fields checked: 80 rows × 4, less 2 for each of the 10 rows whose wait is a bare \"0us\" without a max");
});

test("Spraul's 0.7 s: SPIN × WAIT MEAN, the tool's own definition (lockstat.c 1.4.11), though this output divides by TOTAL (issue 17 item 3, issue 28 items 7 and 9)", () => {
  const e = claim("lahr-2001/spraul-lost-time");
  // By hand: 147365 × 4.6 µs = 0.677879 s; 405038 × 4.6 µs = 1.8631748 s; bounds 405038 × 4.55/4.65 µs.
  close(v(e, "lostPerSpinS"), 0.677879, 1e-9, "per spin");
  close(v(e, "lostPerAcquisitionS"), 1.8631748, 1e-9, "per acquisition");
  close(v(e, "lostPerAcquisitionLoS"), 1.8429229, 1e-9, "lower bound");
  close(v(e, "lostPerAcquisitionHiS"), 1.8834267, 1e-9, "upper bound");
  // Shares over the run lengths of the tables (not Spraul's 129 s / 1030 s):
  // 1.8631748 / 1031.5883 = 0.180612 % of wall time; / 8252.7065 = 0.0225765 % of CPU time.
  close(v(e, "lostShareOfWallPct"), 0.1806122439, 1e-8, "share of wall time");
  close(v(e, "lostShareOfCpuPct"), 0.0225765305, 1e-9, "share of CPU time");
  // Caller rows of sem_ids+0x24 (8-way), by hand: per spin 10849×2.3 + 0 + 50007×3.4 + 86509×7.5 µs = 0.843794 s,
  // which does not give the lock row's 0.677879 s back; per acquisition 56047×2.3 + 992×0 + 214063×3.4 + 133936×7.5 µs
  // = 1.8612423 s, which does (1.8631748 s within the rounding of the means).
  close(v(e, "callersLostPerSpinS"), 0.843794, 1e-9, "callers per spin");
  close(v(e, "callersLostPerAcquisitionS"), 1.8612423, 1e-9, "callers per acquisition");
  // An independent Python script over the seed text (regex per row, resolution from the printed
  // decimals): 24 rows with spins where WAIT MAX > (MEAN + ½ unit) × SPIN, 0 where it exceeds
  // (MEAN + ½ unit) × TOTAL; lock means match the TOTAL-weighted caller means for 9 of 9 locks
  // with callers, the SPIN-weighted ones for 3.
  assert.equal(v(e, "rowsPerSpinImpossible"), 24);
  assert.equal(v(e, "rowsPerAcquisitionImpossible"), 0);
  assert.equal(v(e, "locksWithCallers"), 9);
  assert.equal(v(e, "locksMatchingTotalWeighted"), 9);
  assert.equal(v(e, "locksMatchingSpinWeighted"), 3);
  // The two rows with one spin (2-way ext2_discard_prealloc+0x24: 1876/25 = 75.04, printed 75us;
  // 4-way inet_wait_for_connect+0x104: 6.4/2 = 3.2, printed 3.2us) print WAIT MAX / TOTAL.
  assert.equal(v(e, "singleSpinRows"), 2);
  assert.equal(v(e, "singleSpinRowsMaxOverTotal"), 2);
  // Issue 28 item 7: his arithmetic holds under the tool's definition, so "recomputed", not "not recomputed".
  assert.equal(e.verdict, "recomputed");
  close(v(e, "toolLostS"), 0.677879, 1e-9, "lost time by the tool's definition");
  // 0.677879 / 8252.7065 = 0.0082141 % of CPU time.
  close(v(e, "toolLostShareOfCpuPct"), 0.0082141, 1e-6, "its share of CPU time");
  assert.match(e.reason, /^0\.7 s is SPIN × WAIT MEAN = 0\.678 s \[0\.671 s, 0\.685 s\], the tool's own definition of the column \(lockstat\.c 1\.4\.11 \(John Hawkes, SGI; https:\/\/github\.com\/zellux\/linux-scalability-benchmark\/blob\/af7b63ca9c1c6580c4c525991c171ebd68e6524e\/lockstat\/lockstat\.c\)/);
  assert.match(e.reason, /so his arithmetic holds/);
  assert.match(e.reason, /1,876 \/ 25 = 75\.0, printed 75 µs/);
  assert.match(e.reason, /either way his conclusion stands: 0\.0082% or 0\.023% of the run's CPU time/);
  assert.doesNotMatch(e.reason, /not in the archives we could search/);
  // Were the tool to divide by all acquisitions, the same 0.7 s would not recompute.
  const d = lahrInput();
  const byTotal = lahrClaims({ ...d, lockstat: { ...d.lockstat, waitMeanDivisor: "total" } }).find((x) => x.id === "lahr-2001/spraul-lost-time")!;
  assert.equal(byTotal.verdict, "not recomputed");
  assert.match(byTotal.reason, /gives 1\.863 s \[1\.843 s, 1\.883 s\], not 0\.7 s/);
});

test("waitMeanEvidence on hand-made rows decides each way", () => {
  const row = (over: Partial<LockRow>): LockRow => ({
    section: "x",
    kind: "lock",
    lock: "l",
    name: "l",
    utilPct: 1,
    conPct: 1,
    holdMeanUs: 1,
    waitMeanUs: 1,
    waitMaxUs: 1,
    total: 10,
    nowait: 9,
    spin: 1,
    reject: 0,
    ...over,
  });
  // ext2_discard_prealloc+0x24 (2-way): 1 spin, mean 75 µs, max 1876 µs, 25 acquisitions: only "per acquisition" fits.
  const perAcq = waitMeanEvidence([row({ name: "ext2", waitMeanUs: 75, waitMaxUs: 1876, total: 25, spin: 1 })]);
  assert.equal(perAcq.denominator, "per acquisition");
  // A row where MEAN × TOTAL < MAX but MEAN × SPIN ≥ MAX cannot occur with spin ≤ total; with no decisive row: undetermined.
  const none = waitMeanEvidence([row({ waitMeanUs: 5, waitMaxUs: 6, total: 10, spin: 2 })]);
  assert.equal(none.denominator, "undetermined");
  // Without the decisive rows the reading is undetermined: the tool's definition (per spin) decides,
  // and 0.7 s recomputes under it.
  const d = lahrInput();
  const decisive = new Set(waitMeanEvidence(d.rows).perSpinImpossible);
  const rows = d.rows.filter((r) => !decisive.has(r));
  assert.equal(waitMeanEvidence(rows).denominator, "undetermined");
  const lost = lahrClaims({ ...d, rows }).find((x) => x.id === "lahr-2001/spraul-lost-time")!;
  assert.equal(lost.verdict, "recomputed");
  assert.match(lost.reason, /No row contradicts that definition/);
});

test('"contention high, lost time small": CON = (SPIN + REJECT)/TOTAL, lost time over the real run length (issue 17 items 1, 3, 4)', () => {
  const e = claim("lahr-2001/contention-high-lost-small");
  // By hand: (147365 + 0) / 405038 = 36.383 %.
  close(v(e, "conRecomputedPct"), 36.383006, 1e-5, "CON");
  // Every one of the 80 rows prints (SPIN + REJECT)/TOTAL; SPIN/TOTAL alone misses the two 4-way rows with
  // REJECTs and no spins: reschedule_idle+0x3a4 12132/114853 = 10.56 %, schedule+0x5a8 15984/101053 = 15.82 %.
  assert.equal(v(e, "conRows"), 80);
  assert.equal(v(e, "conRowsMatching"), 80);
  assert.equal(v(e, "conRowsMatchingSpinOnly"), 78);
  // TOTAL reading, all three 8-way lock rows: 1560956×2.1 + 405038×4.6 + 8829923×0.5 µs = 9.5561439 s;
  // over 8252.7065 CPU-seconds 0.115794 %, over the 1031.59 s wall time 0.926352 % (≈ 0.93 %, near the 1 % threshold);
  // at the rounding limit (2.15, 4.65, 0.55 µs) 10.0959 s = 0.97868 % of wall time.
  close(v(e, "allLocksLostS"), 9.5561439, 1e-9, "all locks");
  close(v(e, "allLocksShareOfCpuPct"), 0.11579406, 1e-7, "all locks, share of CPU");
  close(v(e, "allLocksShareOfWallPct"), 0.92635248, 1e-7, "all locks, share of wall");
  close(v(e, "allLocksShareOfWallHiPct"), 0.97867915, 1e-7, "all locks, share of wall, upper");
  assert.equal(e.verdict, "recomputed");
  assert.match(e.reason, /Measured against one CPU's time \(the wall time\) instead, all listed locks reach 0\.93%, near the 1% threshold/);
  assert.equal(claim("lahr-2001/not-major-problem").verdict, "consistent");
});

test("lahr-2001/conPct and conDefinitionCheck on hand-made rows", async () => {
  const { conPct, conDefinitionCheck } = await import("../src/claims/lahr.js");
  assert.equal(conPct({ spin: 0, reject: 12132, total: 114853 }).toFixed(2), "10.56");
  const rows = [{ section: "x", kind: "lock" as const, lock: "l", name: "l", utilPct: 0, conPct: 10.56, holdMeanUs: 0, waitMeanUs: 0, waitMaxUs: null, total: 114853, nowait: 102721, spin: 0, reject: 12132 }];
  assert.deepEqual(conDefinitionCheck(rows), { rows: 1, matchSpinPlusReject: 1, matchSpinOnly: 0, withReject: 1 });
});

test("runqueue_lock after the multiqueue patch: absent from the excerpts, weak evidence", () => {
  const e = claim("lahr-2001/runqueue-lock-after-mq");
  assert.equal(v(e, "beforeUtilPct"), 24.38);
  assert.equal(v(e, "beforeConPct"), 23.93);
  assert.equal(v(e, "afterTablesListingIt"), 0);
  // Lowest CON among the lock rows listed: 4-way tcp_setsockopt+0x98 5.24 %, 8-way io_request_lock 9.78 %.
  assert.equal(v(e, "minConListed_4way"), 5.24);
  assert.equal(v(e, "minConListed_8way"), 9.78);
  // 4-way scheduler call sites shown as locks: 0.02 + 0.04 + 0.00 + 0.00 % UTIL.
  close(v(e, "schedulerSiteUtilPct_4way"), 0.06, 1e-12, "scheduler sites UTIL");
  assert.equal(e.verdict, "consistent");
  assert.match(e.reason, /absence is weak evidence/);
  // If runqueue_lock were listed with the patch and as busy, the posted data would contradict the claim.
  const d = lahrInput();
  const rq = d.rows.find((r) => r.section === "2way" && r.name === "runqueue_lock")!;
  const out = lahrClaims({ ...d, rows: [...d.rows, { ...rq, section: "8way", utilPct: 30 }] });
  assert.equal(out.find((x) => x.id === "lahr-2001/runqueue-lock-after-mq")!.verdict, "not recomputed");
});

test("Blanchard: schedule+0xe0's share of runqueue_lock", () => {
  const e = claim("lahr-2001/blanchard-select-schedule");
  // By hand: 23.15/24.38 = 94.955 %; 145911/178186 = 81.887 %; 376292/744475 = 50.545 %.
  close(v(e, "utilSharePct"), 94.954881, 1e-5, "UTIL share");
  close(v(e, "spinSharePct"), 81.886905, 1e-5, "spin share");
  close(v(e, "acquisitionSharePct"), 50.544612, 1e-5, "acquisition share");
  // Caller UTILs: 0.06 + 0.00 + 1.16 + 0.00 + 23.15 + 0.01 + 0.00 + 0.01 = 24.39
  close(v(e, "callersUtilSumPct"), 24.39, 1e-9, "callers UTIL sum");
  // process_timeout+0x14 (360313) against add_timer+0x14 (365451), both in the 2-way table.
  close(v(e, "expiredTimersPct"), 98.594066, 1e-5, "expired timers");
  // Issue 17 item 5: PostgreSQL's back-off table (context.json) has 7 delays of 10 ms among 20.
  assert.equal(v(e, "backoffTimedDelays"), 7);
  assert.equal(v(e, "backoffDelays"), 20);
  assert.match(e.reason, /7 of its 20 select\(\) delays are 10 ms and 13 are 0, so timed sleeps that run to expiry refine his diagnosis rather than cut against it/);
  assert.equal(e.verdict, "consistent");
});

test("Spraul's timer counts: rates over the run lengths, the 2-way run ~7× the 4-way's (issue 17 item 2)", () => {
  const e = claim("lahr-2001/spraul-timer-counts");
  // Busiest call sites, from the tables: 2-way add_timer+0x14 365451, process_timeout+0x14 360313 (360313/365451 = 98.594 %);
  // 4-way add_timer+0x10 361475; 8-way add_timer+0x10 2856951; no process_timeout or schedule row in the 8-way excerpt.
  assert.equal(v(e, "add_timer_2way"), 365451);
  assert.equal(v(e, "process_timeout_2way"), 360313);
  assert.equal(v(e, "schedule_2way"), 376292);
  assert.equal(v(e, "add_timer_4way"), 361475);
  assert.equal(v(e, "add_timer_8way"), 2856951);
  assert.equal(e.values.process_timeout_8way, null);
  close(v(e, "processTimeoutPerAddTimerPct"), 98.594066, 1e-5, "expired share");
  // Rates: 365451 / 45.1918 s = 8086.66/s; 361475 / 324.4067 s = 1114.27/s; ratio 7.2574 (counts 1.0110).
  close(v(e, "add_timerPerS_2way"), 8086.6604957, 1e-5, "2-way rate");
  close(v(e, "add_timerPerS_4way"), 1114.2650172, 1e-5, "4-way rate");
  close(v(e, "addTimerRateRatio"), 7.2573942, 1e-6, "rate ratio");
  close(v(e, "addTimerCountRatio"), 1.0109994, 1e-6, "count ratio");
  assert.equal(e.verdict, "consistent");
  assert.match(e.reason, /arms add_timer 7\.3× as often per second as the 4-way run, on half the CPUs \(the raw counts differ only 1\.01×/);
});

// ------------------------------------------------------------------ Lu

test("Lu: inputs and shares before/after", () => {
  const d = luInput();
  assert.equal(d.decimals, 2);
  assert.equal(d.commit, "af7f588d8f73");
  const s = claim("lu-2023/schedule-share");
  // 49.01 / 7.30 = 6.7137; bounds 49.005/7.305 = 6.70842, 49.015/7.295 = 6.71899
  close(v(s, "childrenRatio"), 6.713698630, 1e-8, "__schedule ratio");
  close(v(s, "childrenRatioLo"), 6.708418891, 1e-8, "__schedule ratio lo");
  close(v(s, "childrenRatioHi"), 6.718985607, 1e-8, "__schedule ratio hi");
  close(v(s, "childrenPointsAdded"), 41.71, 1e-9, "__schedule points");
  assert.equal(s.verdict, "consistent");
  const q = claim("lu-2023/slowpath-share");
  // 43.20 / 0.03 = 1440; bounds 43.195/0.035 = 1234.14, 43.205/0.025 = 1728.2; Self/Children = 43.18/43.20
  close(v(q, "childrenRatio"), 1440, 1e-9, "slowpath ratio");
  close(v(q, "childrenRatioLo"), 1234.142857, 1e-5, "slowpath ratio lo");
  close(v(q, "childrenRatioHi"), 1728.2, 1e-9, "slowpath ratio hi");
  close(v(q, "selfShareOfChildrenAfterPct"), 99.953704, 1e-5, "self share");
  assert.equal(q.verdict, "consistent");
  const r = claim("lu-2023/rq-lock-contention");
  // (49.01 − 0.87) − (7.30 − 0.71) = 41.55; 43.18 − 0.03 = 43.15; 41.55/43.15 = 96.292 %
  close(v(r, "scheduleCalleeGrowthPoints"), 41.55, 1e-9, "callee growth");
  close(v(r, "slowpathSelfGrowthPoints"), 43.15, 1e-9, "slowpath growth");
  close(v(r, "maxShareUnderSchedulePct"), 96.292005, 1e-5, "max share under __schedule");
  assert.equal(r.verdict, "consistent");
  // A profile with Self > Children is impossible: not recomputed.
  const bad = luClaims({ ...d, after: d.after.map((x) => (x.symbol === "__schedule" ? { ...x, selfPct: 60 } : x)) });
  assert.equal(bad.find((x) => x.id === "lu-2023/schedule-share")!.verdict, "not recomputed");
});

test("the ledger covers every source and has unique ids", () => {
  const ids = ledger.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const s of ["rostedt-2023", "sangappa-2024", "lahr-2001", "lu-2023", "dipietro-2026"]) assert.ok(ledger.some((e) => e.source === s), s);
  for (const e of ledger) assert.ok(e.id.startsWith(`${e.source}/`), e.id);
});
