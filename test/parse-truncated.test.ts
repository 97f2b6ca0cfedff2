/**
 * Outputs cut off at any point (issue 28 item 14): `slicelab parse`'s lenient readers keep what a cut
 * pgbench or sysbench output printed, with a warning, where the strict readers (the kit's own runs)
 * refuse it. Every prefix of a captured output is tried.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePgbench, parsePgbenchLenient } from "../src/parse/pgbench.js";
import { parseSysbenchRuns } from "../src/parse/sysbench.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const fx = (p: string) => readFileSync(join(repoRoot(), "test/fixtures", p), "utf8");

test("pgbench: every prefix of a --progress run parses leniently; cut ones carry a warning and no tps", () => {
  const lines = fx("pgbench/pg15-progress.txt").split("\n");
  let cut = 0;
  let whole = 0;
  for (let n = 1; n <= lines.length; n++) {
    const text = lines.slice(0, n).join("\n");
    const r = parsePgbenchLenient(text, "cut.txt");
    const cuts = r.records.filter((x) => "cut" in x);
    if (cuts.length > 0) {
      cut++;
      assert.equal(r.warnings.length, cuts.length, `prefix of ${n} lines`);
      assert.match(r.warnings[0]!.message, /has no "tps = N \(…\)" line \(the text ends\): kept as a cut run/);
      assert.equal(r.warnings[0]!.line, n, `prefix of ${n} lines: the warning names its last line`);
      // The strict reader refuses the same prefix with a ParseError.
      assert.throws(() => parsePgbench(text, "cut.txt"), ParseError);
    } else if (r.records.length > 0) whole++;
  }
  // The run's banner starts at line 1 and its tps line is near the end: most prefixes are cut, the last ones whole.
  assert.ok(cut >= 10, `cut prefixes: ${cut}`);
  assert.ok(whole >= 1, `whole prefixes: ${whole}`);
});

test("sysbench 1.0: every prefix after the banner parses leniently; cut ones say what is missing", () => {
  const lines = fx("sysbench/sb1020-events.txt").split("\n");
  const head = lines.findIndex((l) => /^sysbench \d/.test(l));
  let truncated = 0;
  for (let n = head + 1; n <= lines.length; n++) {
    const text = lines.slice(0, n).join("\n");
    const runs = parseSysbenchRuns(text, "cut.txt", { cut: true });
    assert.equal(runs.length, 1, `prefix of ${n} lines`);
    const r = runs[0]!;
    if (r.truncated) {
      truncated++;
      const w = r.warnings.find((x) => /the output ends here, before/.test(x.message));
      assert.ok(w, `prefix of ${n} lines: a warning`);
      assert.ok(w!.line <= n, `prefix of ${n} lines: warning at ${w!.line}`);
      assert.throws(() => parseSysbenchRuns(text, "cut.txt"), ParseError, `prefix of ${n} lines: strict refuses`);
    } else {
      // Whole: the latency block is complete.
      assert.ok(Number.isFinite(r.latency.percentileMs), `prefix of ${n} lines`);
    }
  }
  assert.ok(truncated >= 10, `truncated prefixes: ${truncated}`);
  // Cut right after "total number of events:": time and events are there, the latency is not.
  const at = lines.findIndex((l) => /total number of events:/.test(l));
  const r = parseSysbenchRuns(lines.slice(0, at + 1).join("\n"), "cut.txt", { cut: true })[0]!;
  assert.equal(r.truncated, true);
  assert.equal(r.events, 500);
  assert.ok(Number.isNaN(r.latency.minMs));
  assert.match(r.warnings.at(-1)!.message, /before the latency min, avg, max, percentile: kept as a truncated run/);
});

test("sysbench: a FATAL run is still an error, and only the last run of a text can be cut", () => {
  const whole = fx("sysbench/sb1020-events.txt");
  const lines = whole.split("\n");
  const at = lines.findIndex((l) => /total number of events:/.test(l));
  const cutFirst = `${lines.slice(0, at + 1).join("\n")}\n${whole}`;
  assert.throws(() => parseSysbenchRuns(cutFirst, "two.txt", { cut: true }), ParseError);
  assert.throws(() => parseSysbenchRuns(fx("sysbench/sb1020-bad-password.txt"), "bad.txt", { cut: true }), ParseError);
});
