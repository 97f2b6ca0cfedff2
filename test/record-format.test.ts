// The one record format: every directory under data/runs/ has a valid record.json, the index is
// what `slicelab record index --write` makes, malformed records and tampered copies are refused.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { checkSums, directoriesWithoutRecord, isUnknown, listRecords, readRecord, validateRecord, writeSums } from "../src/record/format.js";
import { deriveRecord, readmeCommand } from "../src/record/convert.js";
import { citations, recordIndex } from "../src/record/index-md.js";
import { combineVerdicts, verdictsIn } from "../src/record/verdicts.js";
import { importRecord } from "../src/study/run.js";
import { loadStudy, studyNames } from "../src/study/study.js";

const runs = join(repoRoot(), "data", "runs");
const tmp = mkdtempSync(join(tmpdir(), "slicelab-record-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("every directory under data/runs/ has a record.json in the one format", () => {
  assert.deepEqual(directoriesWithoutRecord(runs), []);
  const recs = listRecords(runs); // validates each one
  assert.ok(recs.length >= 36, `found ${recs.length} records`);
  const studies = new Set(studyNames());
  for (const r of recs) {
    // Every record names a study file.
    assert.ok(studies.has(r.record.study), `${r.file}: study ${r.record.study} has no studies/ file`);
    for (const f of r.record.files) assert.ok(!f.includes("/"), `${r.file}: files lists top-level entries`);
  }
});

test("studies list their past records, and each record names its study", () => {
  const recs = listRecords(runs).filter((r) => !r.dir.slice(runs.length + 1).includes("/"));
  for (const n of studyNames()) {
    const s = loadStudy(n);
    for (const d of s.records ?? []) assert.equal(readRecord(join(runs, d)).study, n, `${d} is listed by studies/${n}.json`);
  }
  for (const r of recs) {
    const listed = loadStudy(r.record.study).records ?? [];
    assert.ok(listed.includes(r.dir.slice(runs.length + 1)), `${r.dir} (study ${r.record.study}) is not in studies/${r.record.study}.json records`);
  }
});

test("data/runs/README.md is what `slicelab record index --write` writes (compared, not written)", () => {
  const committed = readFileSync(join(runs, "README.md"), "utf8");
  assert.equal(committed, recordIndex(repoRoot()), "data/runs/README.md is stale: run `node bin/slicelab.js record index --write`");
});

test("a malformed record names file, line and field", () => {
  const good = readFileSync(join(runs, "rostedt-2023/20261130T035419Z", "record.json"), "utf8");
  const bad = good.replace(/"cpus": 2/, '"cpus": "two"');
  assert.notEqual(bad, good);
  assert.throws(() => validateRecord(JSON.parse(bad), "x/record.json", bad), (e: unknown) => {
    assert.ok(e instanceof ParseError);
    assert.equal(e.line, bad.split("\n").findIndex((l) => l.includes('"cpus"')) + 1);
    assert.match(e.message, /^x\/record\.json:\d+: expected cpus to be host\.cpus: a positive integer or \{"unknown": why\}, found "two"/);
    return true;
  });
  const noWhy = good.replace(/"unknown": "[^"]*"/, '"unknown": " "');
  assert.throws(() => validateRecord(JSON.parse(noWhy), "y.json", noWhy), /an unknown with a reason/);
});

test("a legacy directory's envelope comes from its own files; what they do not say is unknown with why", () => {
  const dir = join(tmp, "vm-micro-20990101T000000Z");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "provenance.json"),
    JSON.stringify({ environment: { vm: true, accel: "tcg", cpus: 2, memMiB: 2048, append: "preempt=lazy" }, kernel: { version: "7.2.13", configSha256: "a".repeat(64), sliceExtension: true }, kit: { commit: "0123456789abcdef0123456789abcdef01234567", dirty: true } }),
  );
  writeFileSync(join(dir, "runs.jsonl"), `${JSON.stringify({ started: "2099-01-01T00:00:05Z", ended: "2099-01-01T00:01:00Z" })}\n${JSON.stringify({ started: "2099-01-01T00:00:01Z", ended: "2099-01-01T00:00:30Z" })}\n`);
  writeFileSync(join(dir, "README.md"), "# A test record\n\nMade with\n\n```\nslicelab vm micro \\\n  --reps 3\n```\n");
  const r = deriveRecord(dir);
  assert.equal(r.study, "vm-micro");
  assert.equal(r.title, "A test record");
  assert.equal(r.command, "slicelab vm micro --reps 3");
  assert.deepEqual(r.kit, { commit: "0123456789abcdef0123456789abcdef01234567", dirty: true });
  assert.equal(r.kernel.release, "7.2.13");
  assert.match(r.kernel.preemptMode as string, /^lazy \(preempt= on the boot line\)/);
  assert.equal(r.started, "2099-01-01T00:00:01Z");
  assert.equal(r.ended, "2099-01-01T00:01:00Z");
  assert.ok(isUnknown(r.glibc) && /provenance\.json/.test(r.glibc.unknown));
  assert.ok(isUnknown(r.host.hostname));
  assert.equal(r.environment && !isUnknown(r.environment) && r.environment.kind, "vm");
  assert.equal(readmeCommand("no command here, only `ls`"), undefined);
});

test("a host record without a host name says so in its environment, not [object Object]", () => {
  const dir = join(tmp, "host-no-name", "20990101T000000Z");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "summary.json"), JSON.stringify({ kind: "slicelab-hook-cost", host: { kernel: "6.18", cpus: 2, cpuModel: "x" }, started: "2099-01-01T00:00:00Z", ended: "2099-01-01T00:01:00Z" }));
  const r = deriveRecord(dir);
  assert.ok(r.environment && !isUnknown(r.environment));
  assert.equal(r.environment.kind, "host");
  assert.doesNotMatch(r.environment.detail, /object Object/);
  assert.match(r.environment.detail, /its name not recorded/);
  writeFileSync(join(dir, "summary.json"), JSON.stringify({ kind: "slicelab-hook-cost", host: { hostname: "box", cpus: 2 }, command: "slicelab postgres hook-cost --version 18", kit: { commit: "0123456789abcdef0123456789abcdef01234567", dirty: false } }));
  const r2 = deriveRecord(dir);
  assert.match(!isUnknown(r2.environment) ? r2.environment.detail : "", /^on the host box/);
  assert.deepEqual(r2.kit, { commit: "0123456789abcdef0123456789abcdef01234567", dirty: false });
  // a benchmark's result.json (compare-scaling) is a provenance file too
  rmSync(join(dir, "summary.json"));
  writeFileSync(join(dir, "result.json"), JSON.stringify({ kind: "compare-scaling", host: { hostname: "box2", cpus: 2 }, kit: { commit: "f".repeat(40), dirty: false } }));
  const r3 = deriveRecord(dir);
  assert.match(!isUnknown(r3.environment) ? r3.environment.detail : "", /^on the host box2 \(result\.json\)/);
  assert.deepEqual(r3.kit, { commit: "f".repeat(40), dirty: false });
});

test("citations: a record name that prefixes a longer one is not its citation", () => {
  const src = [{ file: "REPRODUCE.md", lines: [{ text: "see data/runs/patch-cost/20261130T065433Z/", heading: "4. Patch" }, { text: "and data/runs/patch-cost/20261130T021229Z/ for the old one", heading: "4. Patch" }] }];
  assert.deepEqual(citations("patch-cost/20261130T021229Z", src).map((c) => c.line), ["and data/runs/patch-cost/20261130T021229Z/ for the old one"]);
  assert.equal(citations("patch-cost/20261130T065433Z", src).length, 1);
});

test("import checks SHA256SUMS: a faithful copy goes in, a tampered one is refused", () => {
  const src = join(tmp, "made-elsewhere", "20990101T000000Z");
  mkdirSync(join(src, "series"), { recursive: true });
  const rec = JSON.parse(readFileSync(join(runs, "rostedt-2023/20261130T035419Z", "record.json"), "utf8"));
  rec.study = "smoke";
  rec.files = ["series"];
  writeFileSync(join(src, "record.json"), `${JSON.stringify(rec, null, 2)}\n`);
  writeFileSync(join(src, "series", "results.csv"), "run,tps\n1,10\n");
  writeSums(src);
  assert.deepEqual(checkSums(src), []);
  const root = join(tmp, "runs");
  const dest = importRecord(src, root);
  assert.equal(dest, join(root, "smoke", "20990101T000000Z"));
  assert.equal(readRecord(dest).study, "smoke");
  assert.throws(() => importRecord(src, root), /already exists/);
  writeFileSync(join(src, "series", "results.csv"), "run,tps\n1,11\n");
  rmSync(dest, { recursive: true });
  assert.throws(() => importRecord(src, root), /does not match its checksums:\n.*series\/results\.csv has sha256/);
  writeFileSync(join(src, "extra.txt"), "x");
  assert.ok(checkSums(src).some((p) => /extra\.txt: not listed/.test(p)));
});

test("verdicts of an analysis file keep their labels: an A/A control arm's FAIL is not the record's verdict", () => {
  const a = JSON.parse(readFileSync(join(runs, "patch-cost/20261130T072231Z", "analysis.json"), "utf8"));
  const vs = verdictsIn(a);
  const control = vs.find((v) => v.label === "baseline2 vs baseline");
  assert.ok(control, JSON.stringify(vs.map((v) => v.label)));
  assert.equal(control.verdict, a.comparisons.find((c: { arm: string }) => c.arm === "baseline2").verdict);
  const c = combineVerdicts(vs);
  assert.ok(c && c.reason.includes("baseline2 vs baseline: "));
  assert.deepEqual(combineVerdicts([{ label: "x", verdict: "PASS", reason: "r" }]), { verdict: "PASS", reason: "r" });
  assert.equal(combineVerdicts([]), undefined);
});

test("the one layout: every top-level directory under data/runs/ is a study, every record is <study>/<stamp>/, no code under data/", () => {
  const studies = new Set(studyNames());
  const tops = readdirSync(runs, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(tops.filter((t) => !studies.has(t)), [], "top-level directories that are no study's name");
  for (const r of listRecords(runs)) {
    const rel = r.dir.slice(runs.length + 1);
    assert.match(rel, /^[a-z0-9][a-z0-9.-]*\/\d{8}T\d{6}Z$/, `${rel}: not <study>/<stamp>`);
    assert.equal(rel.split("/")[0], r.record.study, `${rel}: its envelope names study ${r.record.study}`);
  }
  const code: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (/\.(sh|mjs|js|ts|py)$/.test(e.name)) code.push(join(d, e.name));
    }
  };
  walk(join(repoRoot(), "data"));
  assert.deepEqual(code, []);
});
