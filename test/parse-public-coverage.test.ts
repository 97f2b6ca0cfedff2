// Public samples per parsed format, computed from the fixtures' sidecars (src/parse/public-coverage.ts):
// each format of issue 16 has at least 5, every sample has a complete sidecar and parses with its
// format's parser, a version said to be stated in the sample is there, and the table in
// test/fixtures/README.md is the computed one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formats } from "../src/parse/formats.js";
import {
  COVERED_FORMATS, coverageMarkdown, coverageTable, fixturesRoot, formatsBelow, publicSamples, versionCompare, withCoverageTable,
} from "../src/parse/public-coverage.js";
import { ParseError, UserError } from "../src/util/errors.js";

const samples = publicSamples();
const rows = coverageTable(samples);

test("every format of issue 16 has at least 5 public samples with sidecars", () => {
  assert.deepEqual(rows.map((r) => r.format), [...COVERED_FORMATS]);
  assert.deepEqual(formatsBelow(rows, 5), []);
  const n = Object.fromEntries(rows.map((r) => [r.format, r.samples]));
  // the counts of this commit (a fixture added or removed changes them, and the README table with them)
  assert.deepEqual(n, {
    pgbench: 10, lockmeter: 6, "proc-lock-stat": 5, "perf-lock-report": 5, "perf-lock-contention": 14,
    "perf-report": 9, "perf-top": 6, sysbench: 8, "rseq-stats": 7, "slice-trace": 11,
  });
  // the perf wiki blocks and the sysbench 1.1 run outside public/ count the same way
  assert.ok(samples.some((s) => s.path === "perf-lock/pw63-abto-owner.txt" && s.format === "perf-lock-contention" && s.version === "perf >= 6.3"));
  assert.ok(samples.some((s) => s.path === "sysbench/sb110-spqr-read-write.txt" && s.version === "sysbench 1.1.0"));
  assert.equal(samples.find((s) => s.path === "perf-lock/public/shi-2019-report-ns-tabs.txt")?.format, "perf-lock-report");
});

test("every sidecar has url, date, excerpt and a version with where it was read", () => {
  for (const s of samples) {
    const m = JSON.parse(readFileSync(s.sidecar, "utf8")) as Record<string, unknown>;
    assert.match(String(m.url), /^https?:\/\//, `${s.path}: url`);
    assert.match(String(m.date), /^\d{4}-\d{2}-\d{2}$/, `${s.path}: date`);
    assert.equal(typeof m.excerpt, "string", `${s.path}: excerpt`);
    assert.equal(typeof m.version, "string", `${s.path}: version`);
    assert.ok(["sample", "source", "none"].includes(String(m.versionSource)), `${s.path}: versionSource ${String(m.versionSource)}`);
    assert.equal(m.version === "unknown", m.versionSource === "none", `${s.path}: "unknown" exactly when no version is stated`);
    if (m.versionSource === "source") assert.equal(typeof m.versionNote, "string", `${s.path}: where the source states it`);
    if (m.versionSource === "sample") {
      // the version number must be in the stored text ("sysbench 1.0.20" → "1.0.20", "Linux v6.11-rc4" → "6.11-rc4")
      const num = /\d\S*/.exec(s.version)?.[0] ?? s.version;
      assert.ok(readFileSync(s.file, "utf8").includes(num), `${s.path}: says the sample states ${s.version}, but ${num} is not in it`);
    }
  }
});

test("every public sample parses with the parser of its format", () => {
  for (const s of samples) {
    const f = formats.find((x) => x.name === s.format)!;
    const text = readFileSync(s.file, "utf8");
    const sidecar = JSON.parse(readFileSync(s.sidecar, "utf8")) as { expectParseError?: string; expectWarning?: string };
    const expected = sidecar.expectParseError;
    if (sidecar.expectWarning !== undefined) {
      // a sample cut off mid-way (issue 28 item 14): parsed, with a warning that says so
      assert.ok(f.parseWithWarnings, `${s.path}: format ${f.name} has no lenient parser for its expected warning`);
      const w = f.parseWithWarnings!(text, s.file);
      assert.ok(w.warnings.some((x) => x.message.includes(sidecar.expectWarning!)), `${s.path}: warnings ${JSON.stringify(w.warnings.map((x) => x.message))}`);
    }
    const run = () => (f.parseWithWarnings ? f.parseWithWarnings(text, s.file).records : (f.parse(text, s.file) as unknown[]));
    if (expected !== undefined) {
      // a fragment the parser refuses by design (pgbench: a run cut before its summary): the error is the check
      assert.throws(run, (e: unknown) => e instanceof ParseError && e.message.includes(expected), s.path);
      continue;
    }
    const records = run();
    assert.ok(Array.isArray(records), s.path);
    // slice-trace gives one record per slice grant: the public samples have none (mainline has no slice tracepoint)
    if (s.format === "slice-trace") assert.equal(records.length, 0, s.path);
    else assert.ok(records.length > 0, `${s.path}: no record`);
  }
});

test("test/fixtures/README.md holds the computed table", () => {
  const readme = readFileSync(join(fixturesRoot(), "README.md"), "utf8");
  const table = coverageMarkdown(rows);
  assert.equal(withCoverageTable(readme, table), readme, "stale: run node dist/scripts/fixtures-coverage.js readme");
  assert.ok(readme.includes("| slice-trace | 11 | Linux 3.8.0-test+, Linux 6.10, Linux v6.11-rc4-11-g521b1e7f4cf0b | 8 |"));
  assert.throws(() => withCoverageTable("no markers", table), UserError);
});

test("the computation on a fixture tree of its own: counts, detection split, a missing sample, versions", () => {
  const root = mkdtempSync(join(tmpdir(), "slicelab-coverage-"));
  try {
    const side = (v: string, src: string) => JSON.stringify({ url: "https://example.org/x", date: "2020-01-01", excerpt: "all", version: v, versionSource: src });
    mkdirSync(join(root, "sysbench", "public"), { recursive: true });
    for (const [i, v] of ["sysbench 1.0.20", "sysbench 0.5", "unknown", "sysbench 1.0.20"].entries()) {
      writeFileSync(join(root, "sysbench", "public", `s${i}.txt`), "x\n");
      writeFileSync(join(root, "sysbench", "public", `s${i}.source.json`), side(v, v === "unknown" ? "none" : "sample"));
    }
    writeFileSync(join(root, "sysbench", "public", "notes.txt"), "a file without a sidecar is not a public sample\n");
    const t = coverageTable(publicSamples(root));
    const sb = t.find((r) => r.format === "sysbench")!;
    assert.deepEqual(sb, { format: "sysbench", samples: 4, versions: ["sysbench 0.5", "sysbench 1.0.20"], unknownVersion: 1 });
    assert.ok(formatsBelow(t, 5).includes("sysbench (4)"));
    assert.ok(formatsBelow(t, 5).includes("pgbench (0)"));
    // perf-lock: a file neither perf lock parser recognises must say its format
    mkdirSync(join(root, "perf-lock", "public"), { recursive: true });
    writeFileSync(join(root, "perf-lock", "public", "p.txt"), "nothing of perf lock here\n");
    writeFileSync(join(root, "perf-lock", "public", "p.source.json"), side("unknown", "none"));
    assert.throws(() => publicSamples(root), (e: unknown) => e instanceof UserError && /expected exactly one of perf-lock-report, perf-lock-contention/.test(e.message));
    writeFileSync(join(root, "perf-lock", "public", "p.source.json"), JSON.stringify({ ...JSON.parse(side("unknown", "none")), format: "perf-lock-report" }));
    assert.equal(publicSamples(root).find((s) => s.path === "perf-lock/public/p.txt")?.format, "perf-lock-report");
    // a sidecar whose sample is gone
    writeFileSync(join(root, "sysbench", "public", "gone.source.json"), side("unknown", "none"));
    assert.throws(() => publicSamples(root), (e: unknown) => e instanceof UserError && /gone\.source\.json: a sidecar without its sample/.test(e.message));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  assert.deepEqual(["PostgreSQL 17", "pgbench 14.8", "PostgreSQL 10", "perf >= 6.3", "perf 6.2"].sort(versionCompare), ["perf 6.2", "perf >= 6.3", "PostgreSQL 10", "pgbench 14.8", "PostgreSQL 17"]);
});
