// Issue 17: every ledger entry cites the lines of the raw excerpts that hold its words,
// says what our own runs show (with links to records that exist), the claims without
// tables have entries, and the April 2026 report is a fifth source whose figures come
// from data/published/dipietro-2026 (as public write-ups print them), not from src/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { repoRoot } from "../src/util/paths.js";
import { ParseError, UserError } from "../src/util/errors.js";
import { buildLedger, dipietroClaims, findClaim, formatLedgerTable, lahrInput, SOURCES, VERDICTS, type ClaimEntry } from "../src/claims/index.js";
import { REPRODUCTION_STATUSES } from "../src/claims/entry.js";
import { citeLine } from "../src/claims/cite.js";
import { loadDipietro2026, loadLahr2001, loadProvenance, parseSecondaryFigures, SECONDARY_SOURCES } from "../src/published/index.js";
import { DIPIETRO_2026, historyEvents } from "../src/report/history.js";

const root = repoRoot();
const ledger = buildLedger();
const claim = (id: string): ClaimEntry => findClaim(ledger, id);
const v = (e: ClaimEntry, k: string): number => {
  const x = e.values[k];
  assert.equal(typeof x, "number", `${e.id}: values.${k}`);
  return x as number;
};
const close = (actual: number, expected: number, tol: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs expected ${expected} (±${tol})`);
const lineAt = (cite: string): string => {
  const m = /^(.+):(\d+)$/.exec(cite);
  assert.ok(m, cite);
  return readFileSync(join(root, m![1]!), "utf8").split(/\r?\n/)[Number(m![2]) - 1] ?? "";
};

test("every entry of a source post cites file:line of its own source's raw excerpts, and each line exists", () => {
  for (const e of ledger) {
    assert.ok((SOURCES as readonly string[]).includes(e.source), e.id);
    assert.ok(e.cites.length >= 1, `${e.id} cites`);
    for (const c of e.cites) {
      assert.match(c, new RegExp(`^data/published/${e.source}/[a-z0-9-]+\\.raw\\.txt:\\d+$`), `${e.id}: ${c}`);
      assert.ok(lineAt(c).trim() !== "", `${e.id}: ${c} is a non-blank line`);
    }
  }
});

test("the claim sentences of issue 17 item 9 are cited where they stand", () => {
  const first = (id: string) => lineAt(claim(id).cites[0]!);
  assert.match(first("rostedt-2023/difference-beyond-noise"), /it definitely made a difference\. Not a/);
  assert.match(first("rostedt-2023/smaller-std-dev"), /But I noticed that with the patch, the standard deviation was much/);
  assert.match(first("lahr-2001/runqueue-lock-after-mq"), /to postgresql code, since it was largely alleviated by the multiqueue/);
  assert.match(first("lahr-2001/blanchard-select-schedule"), /contention is due to a bug in postgres\. From a quick strace, we found/);
  assert.match(first("lahr-2001/spraul-timer-counts"), /The dual cpu numbers are really odd/);
  assert.match(first("sangappa-2024/clearly-shows-benefit"), /This$/);
  assert.match(first("lahr-2001/not-major-problem"), /I agree it isn't a major performance problem/);
  assert.equal(claim("rostedt-2023/difference-beyond-noise").cites[0], "data/published/rostedt-2023/claims.raw.txt:9");
});

test("citeLine follows a phrase over lines and mail quoting, and names the file when the words are not there", () => {
  assert.equal(citeLine("lu-2023", "report.raw.txt", "I found rq's lock became very heavily contended as compared"), "data/published/lu-2023/report.raw.txt:4");
  assert.throws(
    () => citeLine("lu-2023", "report.raw.txt", "words that are not in the post"),
    (e: unknown) => e instanceof UserError && e.message.startsWith('data/published/lu-2023/report.raw.txt: expected the words "words that are not in the post"'),
  );
});

test("verdict words: posted arithmetic is never 'reproduced'; reproduction is its own field with records that exist", () => {
  for (const e of ledger) {
    assert.ok((VERDICTS as readonly string[]).includes(e.verdict), e.id);
    assert.notEqual(e.verdict, "reproduced", `${e.id}: the posts' numbers can only be recomputed`);
    assert.ok((REPRODUCTION_STATUSES as readonly string[]).includes(e.reproduction.status), e.id);
    for (const r of e.reproduction.records) {
      // A record directory: data/runs/NAME, or data/runs/STUDY/STAMP (the record format of src/record/format.ts).
      assert.match(r, /^data\/runs\/[^/]+(\/[^/]+)?$/, `${e.id}: ${r}`);
      assert.ok(existsSync(join(root, r)), `${e.id}: ${r} exists`);
    }
    if (e.reproduction.status !== "not applicable") assert.ok(e.reproduction.note.length > 10, `${e.id}: note`);
  }
  // The entries issue 17 names: arithmetic recomputed, the effect not yet reproduced, with the records.
  const lt = claim("sangappa-2024/lock-table-improvement");
  assert.equal(lt.verdict, "recomputed");
  assert.equal(lt.reproduction.status, "not yet reproduced");
  assert.ok(lt.reproduction.records.includes("data/runs/vm-eviction/20261130T000002Z"));
  assert.equal(claim("rostedt-2023/average-unpatched").verdict, "recomputed");
  assert.equal(claim("rostedt-2023/average-unpatched").reproduction.status, "not applicable");
  assert.ok(claim("rostedt-2023/difference-beyond-noise").reproduction.records.includes("data/runs/rostedt-2023/20261130T035419Z"));
});

test("the missing claims of issue 17 item 10, with the figures read from the raw excerpts", () => {
  const p = claim("rostedt-2023/preempted-in-spinlock-sections");
  assert.equal(v(p, "preemptions"), 10);
  assert.equal(v(p, "runMinutes"), 5);
  assert.equal(p.verdict, "not checkable");
  assert.equal(claim("rostedt-2023/raw-spinlocks-alone").verdict, "not checkable");
  const m = claim("rostedt-2023/more-cpus-bigger-difference");
  assert.equal(v(m, "cpus"), 8);
  assert.equal(m.verdict, "not checkable");
  // 1000 / 1000 HZ = 1 ms; 1000 / 250 HZ = 4 ms.
  const t = claim("rostedt-2023/tick-lengths");
  assert.deepEqual([v(t, "hzHigh"), v(t, "tickMsHigh"), v(t, "hzLow"), v(t, "tickMsLow")], [1000, 1, 250, 4]);
  assert.equal(t.verdict, "recomputed");
  // 50 µs against the shortest tick, 1 s / 1000 = 1000 µs: 5 %.
  const s = claim("sangappa-2024/tick-vs-50us");
  assert.equal(v(s, "extensionUs"), 50);
  assert.equal(v(s, "shortestTickUs"), 1000);
  assert.equal(v(s, "extensionShareOfTickPct"), 5);
  assert.equal(s.verdict, "recomputed");
  // Issue 28 item 7: it links a record, so its status says what the record shows (plain TCG: not yet reproduced).
  assert.equal(s.reproduction.status, "not yet reproduced");
  assert.deepEqual(s.reproduction.records, ["data/runs/slice-trace/20261130T051418Z"]);
  assert.match(s.reproduction.note, /plain TCG/);
  const c = claim("lu-2023/cpus-needed");
  assert.deepEqual([v(c, "cpusNeeded"), v(c, "threads"), v(c, "hostCpus")], [56, 56, 224]);
  assert.equal(c.verdict, "not checkable");
  assert.equal(claim("lu-2023/more-threads-more-severe").verdict, "not checkable");
  const d = claim("lu-2023/desnoyers-demonstrates-need");
  assert.equal(v(d, "slowpathSelfAfterPct"), 43.18);
  assert.equal(d.verdict, "consistent");
  assert.equal(claim("lahr-2001/not-major-problem").verdict, "consistent");
});

test("Lahr/Spraul provenance: the Message-IDs and dates of issue 17 item 6", () => {
  const p = loadProvenance("lahr-2001");
  assert.equal(p.message_id, "20010215104656.A6856@w-lahr.des.sequent.com");
  assert.equal(p.author, "Jonathan Lahr <lahr@sequent.com>");
  assert.equal(new Date(p.date).toISOString(), "2001-02-15T18:46:56.000Z");
  const replies = p.replies as { message_id: string | null; date: string | null; author: string }[];
  const spraul = replies.find((r) => r.author.startsWith("Manfred Spraul"))!;
  assert.equal(spraul.message_id, "3A98D5D3.6A6B6686@colorfullife.com");
  assert.equal(new Date(spraul.date!).toISOString(), "2001-02-25T09:52:19.000Z");
  for (const r of replies) assert.ok(r.message_id && /^[^<>\s]+@[^<>\s]+$/.test(r.message_id), r.author);
});

test("Dipietro 2026: a fifth source, figures as the write-ups print them, with file:line", () => {
  assert.deepEqual([...SECONDARY_SOURCES], ["dipietro-2026"]);
  const d = loadDipietro2026();
  assert.equal(d.provenance.message_id, "20260403191942.21410-1-dipiets@amazon.it");
  assert.equal(d.provenance.primary_reachable, false);
  assert.equal(d.provenance.seed, null);
  // Every fact of the provenance is quoted from the raw file.
  const raw = readFileSync(join(root, "data/published/dipietro-2026/secondary-figures.raw.txt"), "utf8");
  for (const f of d.provenance.facts) {
    assert.ok(raw.includes(f.quote), `fact ${f.id}`);
    assert.ok(f.quote.includes(String(f.value)), `fact ${f.id} value`);
  }
  // Every figure names where it was printed; prose is paraphrased, never copied.
  for (const f of d.figures) assert.ok(f.where.length > 5, f.id);
  assert.deepEqual(
    d.figures.filter((f) => f.paraphrase).map((f) => f.id),
    ["huge-pages", "rseq-reply", "rseq-mitigation"],
  );
  // 50,751 / 98,565 = 0.514899…, printed 0.51x: recomputed.
  const e = claim("dipietro-2026/throughput-halved");
  assert.equal(v(e, "tpsBefore"), 98565);
  assert.equal(v(e, "tpsAfter"), 50751);
  close(v(e, "ratio"), 0.5148987977, 1e-9, "ratio");
  assert.equal(e.verdict, "recomputed");
  assert.equal(e.reproduction.status, "not yet reproduced");
  // Our VM: lazy (7.2) vs none (6.1), slice_extension off, from the record's summary.json.
  close(v(e, "vmLazyVsNonePct"), 8.632141581, 1e-6, "VM lazy vs none");
  const s = claim("dipietro-2026/s-lock-share");
  assert.equal(v(s, "sLockPct"), 55.6);
  assert.equal(v(s, "strategyGetBufferPct"), 55.93);
  assert.equal(s.verdict, "consistent");
  assert.match(claim("dipietro-2026/bisected-commit").claim, /7dadeaa6e851 \("sched: Further restrict the preemption modes"\)/);
  // Issue 28 item 7: "no drop seen" in a 2-vCPU guest says nothing about a 96-vCPU regression.
  // Issue 28 item 5: emulated throughput as counts (runs, mean tps per side), no p-value, no test.
  assert.match(e.reproduction.note, /\(none on 6\.1\.176: 7 runs, mean 304\.8 tps → lazy on 7\.2\.13: 7 runs, mean 331\.1 tps; no significance test: under plain TCG tps measures the emulator, not the kernel's speed\)/);
  assert.match(e.reproduction.note, /A drop of 49% would have exceeded the ±44% these runs' spread could resolve, and none that large shows \(\+8\.6%\)/);
  assert.doesNotMatch(e.reproduction.note, /Welch|p = /);
  assert.equal(e.values.vmLazyVsNoneP, undefined);
  assert.match(e.reproduction.note, /says nothing about a regression measured on a 96-vCPU Graviton4 \(EC2 m8g\.24xlarge\) with 1,024 clients: it neither reproduces nor contradicts the post/);
  assert.doesNotMatch(e.reproduction.note, /no drop seen/);
  const h = claim("dipietro-2026/huge-pages-mitigation");
  assert.equal(h.verdict, "not checkable");
  // Issue 28 item 7: our PostgreSQL records did run huge_pages=on (20261201T224018Z + 20261201T231710Z, pooled
  // as notebook 07 pools them: 26 runs); faults per million spin-style holds under full, both arms, 95 % t:
  // 4626.8 with 4 KB pages → 49.6 with huge pages (REPRODUCE §8 prints the same two figures).
  assert.deepEqual(h.reproduction.records.slice(0, 2), ["data/runs/mechanism-pg/20261201T224018Z", "data/runs/mechanism-pg/20261201T231710Z"]);
  close(v(h, "pgFaultsOffPerMillion_full"), 4626.8, 0.05, "full, 4 KB pages");
  close(v(h, "pgFaultsOnPerMillion_full"), 49.6, 0.05, "full, huge pages");
  close(v(h, "pgFaultsOnPerMillion_lazy"), 66.1, 0.05, "lazy, huge pages");
  assert.doesNotMatch(h.reproduction.note, /no record of ours runs PostgreSQL with huge pages/);
  assert.match(h.reproduction.note, /huge_pages=on remove almost all of the faults inside spin-style holds/);
  assert.match(h.reproduction.note, /no throughput repair is shown/);
});

test("Dipietro 2026: the rseq suggestion's verdict comes from the mechanism study's record", () => {
  const e = claim("dipietro-2026/rseq-slice-extension-limits-exposure");
  // data/runs/vm-eviction/20261130T000002Z/summary.json: grants 145 (full, all) + 82 (lazy, all) = 227;
  // on vs off: full +0.436 % (p 0.976), lazy −5.350 % (p 0.581).
  assert.equal(v(e, "grants"), 227);
  close(v(e, "onVsOffPct_full"), 0.4358023, 1e-6, "full on vs off");
  close(v(e, "onVsOffPct_lazy"), -5.3500379, 1e-6, "lazy on vs off");
  assert.equal(e.verdict, "not yet reproduced");
  // Issue 28 item 5: throughput under TCG as counts, without a significance test or a p-value.
  assert.match(e.reason, /Throughput under plain TCG is not a measure of speed, so it gets no test: full: 7 runs off, mean 237\.7 tps → 7 runs on, 238\.7 tps \(\+0\.4%; the runs' spread resolves ±44%\); lazy: 7 runs off, mean 331\.1 tps → 7 runs on, 313\.4 tps \(-5\.4%; the runs' spread resolves ±29%\)/);
  for (const text of [e.reason, e.recomputed, e.reproduction.note]) assert.doesNotMatch(text, /Welch p|p = 0/);
  assert.equal(e.values.onVsOffP_full, undefined);
  // Issue 28 item 8: the evidence that bears on it is the mechanism records, linked and read.
  assert.deepEqual(e.reproduction.records, [
    "data/runs/mechanism-2026/20261201T193546Z",
    "data/runs/mechanism-2026/20261201T194000Z",
    "data/runs/mechanism-2026/20261201T215612Z",
    "data/runs/mechanism-2026/20261204T193646Z",
    "data/runs/mechanism-2026/20261204T194849Z",
    "data/runs/mechanism-2026/20261202T010208Z",
    "data/runs/vm-eviction/20261130T000002Z",
    "data/runs/slice-trace/20261130T051418Z",
  ]);
  // The pooled icount factorial as REPRODUCE §8 prints it (the 2026-12-01 record and the two blocks of
  // 2026-12-04 that re-ran its design, issue 26 item 4): in-kernel share 28 % under both modes, coverage
  // 75 % (full) and 74 % (lazy), at-return −3.06 and −3.00 per 1,000 holds, in-kernel −0.13 and −0.07.
  // 249 of 894 holder preemptions inside the kernel (full), 245 of 887 (lazy).
  close(v(e, "inKernelSharePct_full"), (100 * 249) / 894, 1e-9, "in-kernel share, full");
  close(v(e, "inKernelSharePct_lazy"), (100 * 245) / 887, 1e-9, "in-kernel share, lazy");
  close(v(e, "coveredPct_full"), 75, 0.5, "covered, full");
  close(v(e, "coveredPct_lazy"), 74, 0.6, "covered, lazy");
  close(v(e, "atReturnChangePer1k_full"), -3.06, 0.005, "at-return change, full");
  close(v(e, "kernelChangePer1k_lazy"), -0.07, 0.005, "in-kernel change, lazy");
  assert.match(e.reason, /but not inside the kernel, where 28 % \(25–31\) \(full\) and 28 % \(26–29\) \(lazy\) of holder preemptions happen \(249 of 249 and 245 of 245 of them in a page fault/);
  // The plain-TCG record (0 % coverage) reconciled, from its counts: 84 and 108 grants, all revoked.
  assert.equal(v(e, "tcgCoveredPct_full"), 0);
  assert.equal(v(e, "tcgGrants_full"), 84);
  assert.equal(v(e, "tcgRevoked_lazy"), 108);
  assert.match(e.reason, /its kernel made 84 grants \(full\), 84 revoked and 0 ended by the holder's yield; 108 grants \(lazy\), 108 revoked/);
  assert.match(e.reason, /while under icount 926 of 937 grants \(full\) ended by the yield and covered 926 holds/);
  assert.match(e.reason, /so its 0 % says nothing about the extension; the icount records are the evidence/);
});

test("every entry that links a record has a reproduction status other than \"not applicable\" (issue 28 item 7)", () => {
  const bad = ledger.filter((e) => e.reproduction.status === "not applicable" && e.reproduction.records.length > 0).map((e) => e.id);
  assert.deepEqual(bad, []);
});

test("secondary-figures parser: a bad line is a ParseError with file and line", () => {
  assert.throws(
    () => parseSecondaryFigures("# c\nratio | 0.51x\n", "f.raw.txt"),
    (e: unknown) => e instanceof ParseError && e.message.startsWith('f.raw.txt:2: expected "id | printed | where" (three fields), found'),
  );
  assert.throws(
    () => parseSecondaryFigures("a | 1 | x\na | 2 | y\n", "f.raw.txt"),
    (e: unknown) => e instanceof ParseError && /^f\.raw\.txt:2: expected a new id \(a is already on line 1\)/.test(e.message),
  );
  const ok = parseSecondaryFigures("x-1 | paraphrase: words | somewhere\n", "f.raw.txt");
  assert.deepEqual(ok, [{ id: "x-1", printed: "words", paraphrase: true, where: "somewhere", file: "f.raw.txt", line: 1 }]);
});

test("history.ts takes the 2026 figures from data/published/dipietro-2026, not from typed constants", () => {
  assert.equal(DIPIETRO_2026.tpsBefore, 98565);
  assert.equal(DIPIETRO_2026.tpsAfter, 50751);
  assert.equal(DIPIETRO_2026.sLockPct, 55.6);
  assert.equal(DIPIETRO_2026.vcpus, 96);
  assert.equal(DIPIETRO_2026.cites.tpsBefore, "data/published/dipietro-2026/secondary-figures.raw.txt:6");
  const src = readFileSync(join(root, "src/report/history.ts"), "utf8");
  assert.doesNotMatch(src, /98565|50751|55\.6\b/, "no typed figure");
  const ev = historyEvents().find((x) => x.date === "2026-04-03")!;
  assert.equal(ev.published, "data/published/dipietro-2026");
  assert.match(ev.source, /<20260403191942\.21410-1-dipiets@amazon\.it>/);
});

test("slicelab claims --json carries cites and reproduction for every entry", () => {
  const r = spawnSync(process.execPath, [join(root, "bin", "slicelab.js"), "claims", "--json"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const parsed = JSON.parse(r.stdout) as ClaimEntry[];
  assert.equal(parsed.length, ledger.length);
  for (const e of parsed) {
    assert.ok(Array.isArray(e.cites) && e.cites.length > 0, e.id);
    assert.ok(typeof e.reproduction.status === "string", e.id);
  }
  for (const id of ["lahr-2001/run-lengths", "dipietro-2026/rseq-slice-extension-limits-exposure", "lu-2023/cpus-needed"]) {
    assert.ok(parsed.some((e) => e.id === id), id);
  }
});

test("bad inputs name the file: a missing context fact, a missing 2026 figure", () => {
  const lahr = loadLahr2001();
  assert.throws(
    () => lahrInput({ ...lahr, context: lahr.context.filter((f) => f.id !== "hz") }),
    (e: unknown) => e instanceof UserError && e.message === 'lahr-2001/context.json: expected a fact "hz", found none',
  );
  assert.throws(
    () => lahrInput({ ...lahr, context: lahr.context.map((f) => (f.id === "postgres_s_spincycle_us" ? { ...f, value: [10000, -1] } : f)) }),
    (e: unknown) => e instanceof UserError && /^lahr-2001\/context\.json: expected a list of non-negative µs/.test(e.message),
  );
  const d = loadDipietro2026();
  assert.throws(
    () => dipietroClaims({ ...d, figures: d.figures.filter((f) => f.id !== "tps-after") }),
    (e: unknown) => e instanceof UserError && e.message === 'data/published/dipietro-2026/secondary-figures.raw.txt: expected a line "tps-after | …", found none',
  );
  assert.throws(
    () => dipietroClaims({ ...d, figures: d.figures.map((f) => (f.id === "ratio" ? { ...f, printed: "about half" } : f)) }),
    (e: unknown) => e instanceof ParseError && /^data\/published\/dipietro-2026\/secondary-figures\.raw\.txt:8: expected a number matching/.test(e.message),
  );
});

test("the ledger table counts what our runs say", () => {
  const t = formatLedgerTable(ledger);
  const n = (st: string) => ledger.filter((e) => e.reproduction.status === st).length;
  assert.match(t, new RegExp(`^our runs \\(field reproduction\\): ${n("not yet reproduced")} not yet reproduced, ${n("not applicable")} not applicable$`, "m"));
});
