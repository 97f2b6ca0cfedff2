// `slicelab claims` end to end: the real CLI (bin/slicelab.js) in a child process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { buildLedger, VERDICTS, type ClaimEntry } from "../src/claims/index.js";

const root = repoRoot();
const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [join(root, "bin", "slicelab.js"), "claims", ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};
const KEYS = ["id", "source", "claim", "cites", "published", "recomputed", "uncertainty", "verdict", "reason", "basis", "reproduction", "values"];

test("claims --json: every entry, keys in the fixed order, the same bytes twice, equal to buildLedger()", () => {
  const a = run("--json");
  assert.equal(a.status, 0, a.stderr);
  const parsed = JSON.parse(a.stdout) as ClaimEntry[];
  assert.ok(Array.isArray(parsed) && parsed.length >= 15, `entries: ${parsed.length}`);
  for (const e of parsed) {
    assert.deepEqual(Object.keys(e), KEYS, e.id);
    assert.ok((VERDICTS as readonly string[]).includes(e.verdict), `${e.id}: ${e.verdict}`);
    assert.ok(e.reason.length > 0 && !e.reason.includes("\n"), `${e.id}: one-line reason`);
  }
  assert.deepEqual(parsed, JSON.parse(JSON.stringify(buildLedger())));
  const b = run("--json");
  assert.equal(b.stdout, a.stdout, "stable JSON");
});

test("claims --id ID --json prints that entry; the table names every claim", () => {
  const one = run("--id", "rostedt-2023/smaller-std-dev", "--json");
  assert.equal(one.status, 0, one.stderr);
  const e = JSON.parse(one.stdout) as ClaimEntry;
  assert.equal(e.id, "rostedt-2023/smaller-std-dev");
  assert.equal(e.verdict, "fragile");
  const text = run("--id", "lahr-2001/spraul-lost-time");
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^id\s+lahr-2001\/spraul-lost-time$/m);
  assert.match(text.stdout, /^verdict\s+recomputed$/m);
  const table = run();
  assert.equal(table.status, 0, table.stderr);
  for (const x of buildLedger()) assert.ok(table.stdout.includes(x.id), x.id);
  assert.match(table.stdout, /^verdicts:$/m);
});

test("claims: a different seed changes only bootstrap numbers, not the verdicts", () => {
  const a = JSON.parse(run("--json").stdout) as ClaimEntry[];
  const b = JSON.parse(run("--json", "--seed", "2", "--resamples", "2000").stdout) as ClaimEntry[];
  assert.deepEqual(
    b.map((x) => [x.id, x.verdict]),
    a.map((x) => [x.id, x.verdict]),
  );
});

test("claims: bad input exits 2 with a message and no stack trace", () => {
  const bad = run("--id", "no-such/claim");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /no claim "no-such\/claim"; known ids:/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /);
  const opt = run("--alpha", "2");
  assert.equal(opt.status, 2);
  assert.match(opt.stderr, /--alpha expects a number between 0 and 1, got 2/);
  const pos = run("extra");
  assert.equal(pos.status, 2);
  assert.match(pos.stderr, /unexpected argument "extra"/);
  const help = run("--help");
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: slicelab claims/);
});

test("claims --help: the sources and the verdict vocabulary as the ledger has them (issue 28 item 7)", () => {
  const h = run("--help");
  assert.equal(h.status, 0, h.stderr);
  const flat = h.stdout.replace(/\s+/g, " ");
  assert.match(flat, /each quantitative claim of the five sources \(Rostedt 2023, Sangappa 2024, the Lahr 2001 thread, Lu 2023, Dipietro 2026/);
  assert.doesNotMatch(flat, /four source posts/);
  const listed = /Verdicts: ([^(]+) \(their meanings/.exec(flat)?.[1]?.split(", ");
  assert.deepEqual(listed, [...VERDICTS]);
  assert.match(flat, /keys in a fixed order: id, source, claim, cites, published, recomputed, uncertainty, verdict, reason, basis, reproduction, values/);
});
