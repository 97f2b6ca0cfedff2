// debugfs rseq/stats as found in public (test/fixtures/rseq-stats/public/, each with its *.source.json): a
// 13-counter copy with a note after every value, a patched kernel's file with extra counters, and excerpts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectRseqStats, diffRseqStats, parseRseqStats, RSEQ_BASE_COUNTERS, RSEQ_SLICE_COUNTERS } from "../src/parse/rseq-stats.js";
import { cliParse } from "./helpers/cli.js";

const dir = join(repoRoot(), "test/fixtures/rseq-stats/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");

test("wraith 2026-02 (6.19.3 backport): 13 counters with the poster's notes after the values", () => {
  const text = read("wraith-2026-02-annotated-6.19-backport");
  assert.ok(detectRseqStats(text));
  const s = parseRseqStats(text, "w.txt");
  assert.deepEqual(Object.keys(s.counters), [...RSEQ_BASE_COUNTERS, ...RSEQ_SLICE_COUNTERS]);
  assert.deepEqual(RSEQ_BASE_COUNTERS.map((k) => s.counters[k]), [774496161, 678, 22210, 6939688, 6217752, 513, 463, 50]);
  assert.deepEqual(RSEQ_SLICE_COUNTERS.map((k) => s.counters[k]), [0, 0, 0, 0, 0]);
  assert.equal(s.sliceExtension, true);
  assert.equal(s.warnings.length, 1);
  assert.equal(s.warnings[0]!.line, 1);
  assert.match(s.warnings[0]!.message, /ignored on 13 line\(s\): 1, 2, 3/);
  // The CLI reports the warning beside the records.
  const r = cliParse("auto", "w.txt", text);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.format, "rseq-stats");
  assert.equal(j.records.length, 13);
  assert.equal(j.warnings.length, 1);
});

test("notes are only accepted after a whole value; quoting is removed and said", () => {
  const text = read("wraith-2026-02-annotated-6.19-backport");
  assert.throws(() => parseRseqStats(text.replace("22210   (Slow", "22210x  (Slow"), "x.txt"), (e: unknown) => e instanceof ParseError && e.line === 3);
  const quoted = parseRseqStats(text.split("\n").map((l) => (l ? `> ${l}` : l)).join("\n"), "q.txt");
  assert.equal(quoted.counters.fastp, 6939688);
  assert.deepEqual(quoted.warnings.map((w) => w.message.slice(0, 20)), ["text after the value", "mail quoting removed"]);
});

// The other public copies found (searched 2026-12-02; see ../fixtures/rseq-stats/README.md): all from two
// repositories of the same author, a 6.19.3 backport. One whole file from a patched kernel, five excerpts
// of the slice counters as posted in reports.
const SLICE = [...RSEQ_SLICE_COUNTERS];
const sliceValues = (s: { counters: Record<string, number> }) => SLICE.map((k) => s.counters[k]);

test("proton 2026-02-27 (6.19.3 + abort-tracking patch): 13 mainline counters, a heading and 11 extra counters", () => {
  const text = read("proton-2026-02-27-abort-breakdown-6.19-patched");
  assert.ok(detectRseqStats(text));
  const s = parseRseqStats(text, "a.txt");
  assert.equal(s.complete, true);
  assert.deepEqual(s.missing, []);
  assert.deepEqual(Object.keys(s.counters), [...RSEQ_BASE_COUNTERS, ...RSEQ_SLICE_COUNTERS]);
  assert.deepEqual(RSEQ_BASE_COUNTERS.map((k) => s.counters[k]), [488488709, 12599809, 3744, 5626030, 5400181, 0, 0, 0]);
  assert.deepEqual(sliceValues(s), [13089, 4790, 6740, 233, 6116]);
  assert.equal(Object.keys(s.extra).length, 11);
  assert.equal(s.extra.sabort_futex, 3500);
  assert.equal(s.extra.sabort_ioctl, 1200);
  assert.equal(s.extra.sabort_other, 1);
  // the breakdown adds up to sabort exactly (recomputed from the file)
  assert.equal(Object.values(s.extra).reduce((a, b) => a + b, 0), s.counters.sabort);
  const msgs = s.warnings.map((w) => w.message);
  assert.ok(msgs.some((m) => /ignored on 11 line\(s\): 16, 17/.test(m)), msgs.join("\n"));
  assert.ok(msgs.some((m) => /11 counter\(s\) mainline does not print .*: sabort_futex, sabort_ioctl/.test(m)), msgs.join("\n"));
  assert.ok(msgs.some((m) => /section headings .* on 1 line\(s\): 15$/.test(m)), msgs.join("\n"));
  assert.equal(s.warnings.find((w) => /mainline does not print/.test(w.message))!.line, 16);
  // the CLI keeps the extra counters as records marked extra
  const r = cliParse("auto", "a.txt", text);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.format, "rseq-stats");
  assert.equal(j.records.length, 24);
  assert.deepEqual(j.records.find((x: { counter: string }) => x.counter === "sabort_poll"), { file: r.path, counter: "sabort_poll", value: 150, extra: true });
  // a whole file diffs against itself to zero, extra counters aside
  const d = diffRseqStats(s, s);
  assert.deepEqual(Object.values(d.counters), new Array(13).fill(0));
});

test("bobz 2026-02-21 ESO excerpt: the command line, then the five slice counters with '#' notes", () => {
  const text = read("bobz-2026-02-21-eso-slice-excerpt");
  assert.ok(detectRseqStats(text));
  // the whole-file parser refuses an excerpt, naming the first missing counter
  assert.throws(() => parseRseqStats(text, "e.txt"), (e: unknown) => e instanceof ParseError && /the rseq counter "exit:"/.test(e.message));
  const s = parseRseqStats(text, "e.txt", { excerpt: true });
  assert.equal(s.complete, false);
  assert.equal(s.sliceExtension, true);
  assert.deepEqual(s.missing, [...RSEQ_BASE_COUNTERS]);
  assert.deepEqual(sliceValues(s), [53982, 14663, 21340, 0, 32642]);
  const msgs = s.warnings.map((w) => w.message);
  assert.match(msgs[0]!, /^the command above the output .* on 1 line\(s\): 1$/);
  assert.ok(msgs.some((m) => /ignored on 5 line\(s\): 2, 3, 4, 5, 6$/.test(m)), msgs.join("\n"));
  assert.ok(msgs.some((m) => /^an excerpt: 5 of the 13 counters \(missing exit, signal, slowp, fastp, ids, cs, clear, fixup\)$/.test(m)), msgs.join("\n"));
  // the CLI reads it (lenient parser) and reports the warnings; a diff refuses excerpts
  const r = cliParse("rseq-stats", "e.txt", text);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.records.length, 5);
  assert.ok(j.warnings.length >= 3);
  assert.throws(() => diffRseqStats(s, s), (e: unknown) => e instanceof ParseError && /a whole rseq\/stats file .* an excerpt \(missing exit/.test(e.message));
});

test("bobz 2026-02-21 trace-debug excerpt: grants all revoked (173 = 173)", () => {
  const s = parseRseqStats(read("bobz-2026-02-21-trace-debug-slice-excerpt"), "t.txt", { excerpt: true });
  assert.deepEqual(sliceValues(s), [173, 153, 173, 0, 0]);
  assert.equal(s.counters.sgrant, s.counters.srevok);
  assert.deepEqual(Object.keys(s.counters), SLICE);
  assert.ok(!s.warnings.some((w) => /order/.test(w.message)));
});

test("bobz 2026-02-22 after the syscall-hook fix: a misaligned line is still a counter line", () => {
  const text = read("bobz-2026-02-22-after-syscall-hook-fix-slice-excerpt");
  assert.ok(detectRseqStats(text));
  const s = parseRseqStats(text, "f.txt", { excerpt: true });
  assert.deepEqual(sliceValues(s), [188, 0, 1, 172, 15]);
});

test("bobz 2026-02-22 after all fixes: thousands separators and the poster's order", () => {
  const text = read("bobz-2026-02-22-after-all-fixes-slice-excerpt");
  assert.ok(detectRseqStats(text));
  const s = parseRseqStats(text, "x.txt", { excerpt: true });
  assert.deepEqual(sliceValues(s), [25832, 7425, 9389, 1342, 15101]);
  assert.deepEqual(Object.keys(s.counters), ["sgrant", "srevok", "syield", "sexpir", "sabort"]);
  const msgs = s.warnings.map((w) => w.message);
  assert.ok(msgs.some((m) => /^thousands separators .* on 5 line\(s\): 1, 2, 3, 4, 5$/.test(m)), msgs.join("\n"));
  assert.ok(msgs.some((m) => /not in the kernel's order \(sgrant, srevok, syield, sexpir, sabort\)$/.test(m)), msgs.join("\n"));
  // a separator must group by three
  assert.throws(() => parseRseqStats(text.replace("25,832", "2,5832"), "x.txt", { excerpt: true }), (e: unknown) => e instanceof ParseError && e.line === 1);
});

test("proton 2026-02-22 yield-timing excerpt: three counters", () => {
  const s = parseRseqStats(read("proton-2026-02-22-yield-timing-slice-excerpt"), "y.txt", { excerpt: true });
  assert.deepEqual(s.counters, { sgrant: 282, srevok: 282, syield: 0 });
  assert.deepEqual(s.missing, [...RSEQ_BASE_COUNTERS, "sexpir", "sabort"]);
  assert.equal(s.sliceExtension, true);
});

test("what the lenient parser still refuses: a value that is not a number, unknown counters in an excerpt, no counter", () => {
  // "sabort: ~" is how RSEQ-INVESTIGATION-COMPLETE.md's 'Before All Fixes' block ends: not a reading
  const before = "sgrant: 1,657\nsrevok: 1,657  (100% - every grant revoked)\nsyield: 0      (0% - no yields working)\nsabort: ~\n";
  assert.throws(() => parseRseqStats(before, "b.txt", { excerpt: true }), (e: unknown) => e instanceof ParseError && e.line === 4);
  assert.equal(detectRseqStats(before), false);
  assert.throws(() => parseRseqStats("Grants: 13,089\nYields: 233 (2%)\n", "g.txt", { excerpt: true }), (e: unknown) => e instanceof ParseError && e.line === 1);
  assert.throws(() => parseRseqStats("\n\n", "n.txt", { excerpt: true }), (e: unknown) => e instanceof ParseError && /at least one rseq counter line/.test(e.message));
  // lines of other formats are not excerpts: names must be rseq's
  assert.equal(detectRseqStats("read: 140000\nwrite: 40000\nother: 20000\n"), false);
  assert.equal(detectRseqStats("sgrant: 1\n"), false);
  // a heading before the first counter, or a command after it, is not accepted
  assert.throws(() => parseRseqStats("Abort breakdown:\nsgrant: 1\n", "h.txt", { excerpt: true }), (e: unknown) => e instanceof ParseError && e.line === 1);
  assert.throws(() => parseRseqStats("sgrant: 1\ncat /sys/kernel/debug/rseq/stats\n", "c.txt", { excerpt: true }), (e: unknown) => e instanceof ParseError && e.line === 2);
});
