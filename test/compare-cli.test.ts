import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { parsePgbenchFile } from "../src/parse/pgbench.js";
import { compareSamples } from "../src/stats/index.js";
import { looksLikeTpsCsv, parseTpsCsv, readTpsFile } from "../src/cli/commands/compare.js";

const root = repoRoot();
const fx = (name: string): string => join("test", "fixtures", "compare", name);
const pg = (name: string): string => join("test", "fixtures", "pgbench", name);

function slicelab(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(root, "bin", "slicelab.js"), "compare", ...args], {
    cwd: root,
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("compare A B --json: Rostedt's CSVs, the same numbers as compareSamples", () => {
  const r = slicelab(fx("rostedt-2023-unpatched.csv"), fx("rostedt-2023-patched.csv"), "--json", "--resamples", "2000");
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out).slice(0, 3), ["inputs", "labels", "alpha"]);
  assert.deepEqual(out.inputs.a.files, [{ file: fx("rostedt-2023-unpatched.csv"), runs: 15 }]);
  assert.equal(out.inputs.b.tps.length, 15);
  assert.equal(out.inputs.b.tps[0], 74560.101322);
  assert.equal(out.bootstrap.seed, 1);
  assert.equal(out.bootstrap.resamples, 2000);
  assert.equal(out.verdict, "no significant difference");
  const lib = compareSamples(out.inputs.a.tps, out.inputs.b.tps, { resamples: 2000 });
  const { inputs: _inputs, ...rest } = out;
  assert.deepEqual(rest, JSON.parse(JSON.stringify(lib)));
});

test("compare --seed changes only the bootstrap; the same seed reproduces the output byte for byte", () => {
  const args = [fx("unequal-a.csv"), fx("unequal-b.csv"), "--json", "--resamples", "1000"];
  const s7 = slicelab(...args, "--seed", "7");
  const s7again = slicelab(...args, "--seed", "7");
  const s8 = slicelab(...args, "--seed", "8");
  assert.equal(s7.status, 0, s7.stderr);
  assert.equal(s7.stdout, s7again.stdout);
  const a = JSON.parse(s7.stdout);
  const b = JSON.parse(s8.stdout);
  assert.equal(a.bootstrap.seed, 7);
  assert.notDeepEqual(a.bootstrap.meanDiffPct, b.bootstrap.meanDiffPct);
  assert.deepEqual(a.welch, b.welch);
});

test("compare --a FILE… --b FILE…: pgbench output files, several runs per file and several files per side", () => {
  const r = slicelab(
    "--a", pg("pg15-three-runs.txt"),
    "--b", pg("pg15-select-only.txt"), pg("pg15-prepared.txt"), pg("pg15-transactions.txt"),
    "--json", "--resamples", "500",
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(
    out.inputs.a.files.map((f: { runs: number }) => f.runs),
    [3],
  );
  assert.deepEqual(
    out.inputs.b.files.map((f: { file: string }) => f.file),
    [pg("pg15-select-only.txt"), pg("pg15-prepared.txt"), pg("pg15-transactions.txt")],
  );
  const expectA = parsePgbenchFile(join(root, pg("pg15-three-runs.txt"))).map((x) => x.tps);
  const expectB = ["pg15-select-only.txt", "pg15-prepared.txt", "pg15-transactions.txt"].flatMap((f) =>
    parsePgbenchFile(join(root, pg(f))).map((x) => x.tps),
  );
  assert.deepEqual(out.inputs.a.tps, expectA);
  assert.deepEqual(out.inputs.b.tps, expectB);
  assert.equal(out.a.n, 3);
  assert.equal(out.b.n, 3);
});

test("compare CSV --by COLUMN=X,Y --where COLUMN=VALUE: the published Rostedt table, first runs left out", () => {
  const runs = join("data", "published", "rostedt-2023", "runs.csv");
  const r = slicelab(runs, "--by", "side=without-patch,with-patch", "--where", "role=measured", "--json", "--resamples", "500");
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.labels, { a: "without-patch", b: "with-patch" });
  assert.deepEqual(out.inputs.a.select, ["role=measured", "side=without-patch"]);
  assert.deepEqual(out.inputs.b.files, [{ file: runs, runs: 15 }]);
  // Rostedt's printed Average / Std Dev (cut to 4 decimals): 74527.7800 / 420.6304 and 74710.0988 / 136.7250.
  const cut = (x: number): string => (Math.trunc(x * 1e4) / 1e4).toFixed(4);
  assert.deepEqual([cut(out.a.mean), cut(out.a.sd), cut(out.b.mean), cut(out.b.sd)], ["74527.7800", "420.6304", "74710.0988", "136.7250"]);
  assert.match(out.reason, /with-patch − without-patch = \+0\.245%/);
  // Without --where the first (cold) runs are in, and --by COLUMN alone finds the two sides itself.
  const all = JSON.parse(slicelab(runs, "--by", "side", "--json", "--resamples", "200").stdout);
  assert.equal(all.a.n, 16);
  assert.deepEqual(all.labels, { a: "without-patch", b: "with-patch" });
});

test("compare --discard-first N: the raw pgbench excerpts of the post give the same 15 + 15 runs", () => {
  const dir = join("data", "published", "rostedt-2023");
  const r = slicelab(join(dir, "without-patch.raw.txt"), join(dir, "with-patch.raw.txt"), "--discard-first", "1", "--json", "--resamples", "200");
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.inputs.a.discarded, [72573.188203]);
  assert.deepEqual(out.inputs.b.discarded, [73562.00597]);
  assert.deepEqual(out.inputs.a.tps, readTpsFile(join(root, fx("rostedt-2023-unpatched.csv"))));
  assert.deepEqual(out.inputs.b.tps, readTpsFile(join(root, fx("rostedt-2023-patched.csv"))));
});

test("compare without --json prints a compact report", () => {
  const r = slicelab(fx("unequal-a.csv"), fx("unequal-b.csv"), "--resamples", "500");
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0]!, /^A \(unequal-a\.csv\): n=12 {2}mean 2211\.22 {2}sd 14\.92/);
  assert.match(lines[1]!, /^B \(unequal-b\.csv\): n=5 {2}mean 2220\.36/);
  assert.ok(lines.some((l) => /^Welch t-test: +t = 2\.001, df = 13\.31, p = 0\.0662$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^Mann–Whitney U: +U = 18, p = 0\.2343 \(exact\)$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^leave-one-out: FRAGILE, 4 of 17 single-run drops/.test(l)), r.stdout);
  assert.match(lines.at(-1)!, /^verdict: no significant difference \(Welch p = 0\.0662/);
  assert.ok(lines.length <= 14, `compact: ${lines.length} lines`);
});

test("compare --help prints the usage", () => {
  const r = slicelab("--help");
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^usage: slicelab compare A B/);
  assert.match(r.stdout, /--a FILE…/);
});

function assertUserError(r: { status: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
}

test("compare: a non-numeric tps value names FILE:LINE, what was expected and what was found", () => {
  assertUserError(
    slicelab(fx("bad-value.csv"), fx("rostedt-2023-patched.csv")),
    /^slicelab compare: test\/fixtures\/compare\/bad-value\.csv:3: expected a number in the tps column, found "74448\.13O108"\n$/,
  );
});

test("compare: a CSV without a tps column, a missing file, a file that is neither format", () => {
  assertUserError(
    slicelab(fx("no-tps-column.csv"), fx("rostedt-2023-patched.csv")),
    /no-tps-column\.csv:1: expected a CSV header line with the column "tps", found "run,latency_ms"/,
  );
  assertUserError(slicelab(fx("missing.csv"), fx("rostedt-2023-patched.csv")), /missing\.csv: cannot read the file \(ENOENT\)/);
  assertUserError(
    slicelab(pg("pg15-init.txt"), fx("rostedt-2023-patched.csv")),
    /pg15-init\.txt: expected pgbench output with "tps = …" lines or a CSV file with a "tps" column, found neither/,
  );
});

test("compare --by / --where errors name the column and the values found", () => {
  const runs = join("data", "published", "rostedt-2023", "runs.csv");
  assertUserError(slicelab(runs, "--by", "side=without,with"), /--by side: no row has side=without; values found: "without-patch", "with-patch"/);
  assertUserError(slicelab(runs, "--by", "run"), /--by run: expected exactly two values to compare, found 16 \("1", "2",/);
  assertUserError(slicelab(runs, "--by", "side", "--where", "rol=measured"), /runs\.csv:1: expected a CSV header line with the columns "tps", "rol", "side", found "side,role,/);
  assertUserError(slicelab(runs, "--by", "side", "--where", "role"), /--where expects COLUMN=VALUE, got "role"/);
  assertUserError(slicelab(pg("pg15-three-runs.txt"), "--by", "side"), /pg15-three-runs\.txt: --by splits CSV files, but this file is not a CSV file/);
  assertUserError(
    slicelab(pg("pg15-three-runs.txt"), pg("pg15-three-runs.txt"), "--where", "role=measured"),
    /--where selects CSV rows, but this file is not a CSV file/,
  );
  assertUserError(
    slicelab(pg("pg15-three-runs.txt"), pg("pg15-three-runs.txt"), "--discard-first", "2"),
    /side A \(test\/fixtures\/pgbench\/pg15-three-runs\.txt\): expected at least 2 runs to compare, found 1 after discarding 2/,
  );
});

test("compare: argument errors exit 2", () => {
  assertUserError(slicelab(fx("unequal-a.csv")), /expected two inputs A and B/);
  assertUserError(slicelab("--a", fx("unequal-a.csv")), /--a and --b each need at least one file, found 1 and 0/);
  assertUserError(slicelab("--a", fx("unequal-a.csv"), "--b", fx("unequal-b.csv"), "--seed", "x"), /--seed expects a number, got "x"/);
  assertUserError(slicelab(fx("unequal-a.csv"), fx("unequal-b.csv"), "--alpha", "5"), /--alpha expects a number between 0 and 1/);
  assertUserError(slicelab(fx("unequal-a.csv"), fx("unequal-b.csv"), "--resamples", "0"), /--resamples expects a positive integer/);
  assertUserError(
    slicelab(pg("pg15-select-only.txt"), fx("unequal-b.csv")),
    /side A \(test\/fixtures\/pgbench\/pg15-select-only\.txt\): expected at least 2 runs to compare, found 1/,
  );
});

test("parseTpsCsv: comments, quoted fields, other columns", () => {
  const text = '# a comment\n\nside,"note, with comma",tps\nA,"x",100.5\nA,"say ""hi""",101\n';
  assert.deepEqual(parseTpsCsv(text, "t.csv"), [100.5, 101]);
  assert.throws(() => parseTpsCsv("tps\n1\n\n2\nabc\n", "t.csv"), /^ParseError: t\.csv:5: expected a number in the tps column, found "abc"$/m);
  assert.throws(() => parseTpsCsv("run,tps\n1,2\n2,\n", "t.csv"), /t\.csv:3: expected a number in the tps column, found ""/);
  assert.throws(() => parseTpsCsv("run,tps\n1,2\n2\n", "t.csv"), /t\.csv:3: expected 2 comma-separated fields as in the header, found "2"/);
  // --where selects rows before the tps value is read.
  assert.deepEqual(parseTpsCsv("side,tps\nx,1\ny,oops\nx,3\n", "t.csv", [{ column: "side", value: "x" }]), [1, 3]);
  // A CSV file without the .csv extension is recognised by its header; pgbench output is not.
  assert.equal(looksLikeTpsCsv("# from a post\nrun,tps\n1,5\n"), true);
  assert.equal(looksLikeTpsCsv("tps = 8474.816596 (without initial connection time)\n"), false);
  assert.equal(readTpsFile(join(root, fx("rostedt-2023-patched.csv"))).length, 15);
});

test("compare SERIES_DIR: a bench series is split by its declared variants, warm-up runs left out", async () => {
  const { cpSync, mkdtempSync, readFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  // A copy, so that a broken compare cannot touch the committed record.
  const dir = join(mkdtempSync(join(tmpdir(), "slicelab-series-")), "aa");
  cpSync(join(root, "data", "runs", "rostedt-2023/20261130T011758Z"), dir, { recursive: true });
  try {
    const r = slicelab(dir, "--json", "--resamples", "500");
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    // Expected values straight from the series' result files, independent of the CSV path of compare.
    const rows = readFileSync(join(dir, "results.csv"), "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
    const tpsOf = (variant: string) => rows.filter((c) => c[3] === variant && c[5] === "false").map((c) => Number(c[6]));
    assert.deepEqual(out.inputs.a.tps, tpsOf("A"));
    assert.deepEqual(out.inputs.b.tps, tpsOf("B"));
    assert.equal(out.inputs.a.tps.length, 15);
    assert.ok(out.inputs.a.select.includes("warmup=false"), JSON.stringify(out.inputs.a.select));
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});

test("compare SERIES_DIR writes nothing into the directory it reads; --write rewrites its tidy files", async () => {
  const { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = join(mkdtempSync(join(tmpdir(), "slicelab-series-")), "aa");
  cpSync(join(root, "data", "runs", "rostedt-2023/20261130T011758Z"), dir, { recursive: true });
  const snapshot = (): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (d: string): void => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else out[p.slice(dir.length)] = readFileSync(p, "latin1");
      }
    };
    walk(dir);
    return out;
  };
  try {
    const fresh = readFileSync(join(dir, "results.csv"), "utf8");
    // An out-of-date results.csv (one run's row dropped) stays as it is; the runs are compared.
    const stale = fresh.split("\n").filter((_, i) => i !== 5).join("\n");
    writeFileSync(join(dir, "results.csv"), stale);
    rmSync(join(dir, "results.jsonl"));
    const before = snapshot();
    const r = slicelab(dir, "--json", "--resamples", "200");
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(snapshot(), before, "compare changed the series directory");
    assert.match(r.stderr, /note: .*results\.csv is out of date; compared the finished runs \(--write rewrites it\)/);
    const out = JSON.parse(r.stdout);
    assert.equal(out.inputs.a.tps.length + out.inputs.b.tps.length, 30, "all finished runs, not the stale file's rows");
    const w = slicelab(dir, "--json", "--resamples", "200", "--write");
    assert.equal(w.status, 0, w.stderr);
    assert.equal(readFileSync(join(dir, "results.csv"), "utf8"), fresh);
    assert.ok(statSync(join(dir, "results.jsonl")).size > 0);
    assert.deepEqual(JSON.parse(w.stdout).inputs, out.inputs);
    assert.equal(slicelab(dir, "--json", "--resamples", "200").stderr, "", "no note once results.csv is up to date");
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});
