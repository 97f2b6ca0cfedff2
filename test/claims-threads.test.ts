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
  assert.equal(lt.verdict, "reproduced");
  const sb = claim("sangappa-2024/swingbench-improvement");
  // 153/99 − 1 = 0.545454…; bounds (152.5/99.5 − 1, 153.5/98.5 − 1) = (53.2663 %, 55.8376 %)
  close(v(sb, "recomputedPct"), 54.545454545, 1e-8, "swingbench %");
  close(v(sb, "boundLoPct"), 53.266331658, 1e-8, "swingbench lower bound");
  close(v(sb, "boundHiPct"), 55.837563452, 1e-8, "swingbench upper bound");
  assert.equal(sb.verdict, "reproduced");
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

test("Spraul's 0.7 s: SPIN × WAIT MEAN reproduces it, but the tables show WAIT MEAN is per acquisition", () => {
  const e = claim("lahr-2001/spraul-lost-time");
  // By hand: 147365 × 4.6 µs = 0.677879 s; 405038 × 4.6 µs = 1.8631748 s; bounds 405038 × 4.55/4.65 µs.
  close(v(e, "lostPerSpinS"), 0.677879, 1e-9, "per spin");
  close(v(e, "lostPerAcquisitionS"), 1.8631748, 1e-9, "per acquisition");
  close(v(e, "lostPerAcquisitionLoS"), 1.8429229, 1e-9, "lower bound");
  close(v(e, "lostPerAcquisitionHiS"), 1.8834267, 1e-9, "upper bound");
  close(v(e, "cpuOverWall"), 1030 / 129, 1e-12, "CPU / wall");
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
  assert.equal(e.verdict, "not reproduced");
  assert.match(e.reason, /0\.7 s is SPIN × WAIT MEAN/);
});

test("waitMeanEvidence on hand-made rows decides each way", () => {
  const row = (over: Partial<LockRow>): LockRow => ({
    section: "x",
    kind: "lock",
    lock: "l",
    name: "l",
    utilPct: 1,
    conPct: 1,
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
  // Without the decisive rows the reading is undetermined, and 0.7 s, which the per-spin
  // reading reproduces, is only "consistent".
  const d = lahrInput();
  const decisive = new Set(waitMeanEvidence(d.rows).perSpinImpossible);
  const rows = d.rows.filter((r) => !decisive.has(r));
  assert.equal(waitMeanEvidence(rows).denominator, "undetermined");
  const lost = lahrClaims({ ...d, rows }).find((x) => x.id === "lahr-2001/spraul-lost-time")!;
  assert.equal(lost.verdict, "consistent");
  assert.match(lost.reason, /do not decide/);
});

test('"contention high, lost time small": CON 36.38 % vs < 1 % of CPU time', () => {
  const e = claim("lahr-2001/contention-high-lost-small");
  // By hand: 147365 / 405038 = 36.383 %; 0.677879 / 1030 = 0.0658 %; 1.8631748 / 1030 = 0.1809 %.
  close(v(e, "conRecomputedPct"), 36.383006, 1e-5, "CON");
  close(v(e, "lostSharePerSpinPct"), 0.065813495, 1e-8, "share per spin");
  close(v(e, "lostSharePerAcquisitionPct"), 0.180890757, 1e-8, "share per acquisition");
  // Python over the seed: all three 8-way lock rows, SPIN × MEAN = 1.6423059 s, TOTAL × MEAN = 9.5561439 s.
  close(v(e, "allLocksLostPerSpinS"), 1.6423059, 1e-9, "all locks per spin");
  close(v(e, "allLocksLostPerAcquisitionS"), 9.5561439, 1e-9, "all locks per acquisition");
  assert.equal(e.verdict, "reproduced");
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
  // If runqueue_lock were listed with the patch and as busy, the claim would not be reproduced.
  const d = lahrInput();
  const rq = d.rows.find((r) => r.section === "2way" && r.name === "runqueue_lock")!;
  const out = lahrClaims({ ...d, rows: [...d.rows, { ...rq, section: "8way", utilPct: 30 }] });
  assert.equal(out.find((x) => x.id === "lahr-2001/runqueue-lock-after-mq")!.verdict, "not reproduced");
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
  assert.match(e.reason, /timer counts suggest that most sleeps were timed/);
  assert.equal(e.verdict, "consistent");
});

test("Spraul's timer counts: counts without run lengths are not checkable", () => {
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
  assert.equal(e.verdict, "not checkable");
  assert.match(e.reason, /add_timer count is 1\.01 times the 4-way run's/);
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
  // A profile with Self > Children is impossible: not reproduced.
  const bad = luClaims({ ...d, after: d.after.map((x) => (x.symbol === "__schedule" ? { ...x, selfPct: 60 } : x)) });
  assert.equal(bad.find((x) => x.id === "lu-2023/schedule-share")!.verdict, "not reproduced");
});

test("the ledger covers every source and has unique ids", () => {
  const ids = ledger.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const s of ["rostedt-2023", "sangappa-2024", "lahr-2001", "lu-2023"]) assert.ok(ledger.some((e) => e.source === s), s);
  for (const e of ledger) assert.ok(e.id.startsWith(`${e.source}/`), e.id);
});
