// debugfs rseq/stats as found in public (test/fixtures/rseq-stats/public/, with its *.source.json): the
// only public copy of the 13-counter layout found, pasted with a note after every value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectRseqStats, parseRseqStats, RSEQ_BASE_COUNTERS, RSEQ_SLICE_COUNTERS } from "../src/parse/rseq-stats.js";
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
