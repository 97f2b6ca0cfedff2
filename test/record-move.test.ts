// `slicelab record convert`: every record to data/runs/<study>/<stamp>/, the old place kept in
// record.json (formerPath), code removed with its replacement named, citations rewritten, and a
// second run changes nothing. On a scratch repository, never on data/.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRecord, recordText, listRecords, utcStamp, type RecordEnvelope } from "../src/record/format.js";
import { deriveEnvelopes } from "../src/record/convert.js";
import { convertRecords, planMoves, rewriteText, citationMap, currentPath } from "../src/record/move.js";
import { recordIndex } from "../src/record/index-md.js";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";

const tmp = mkdtempSync(join(tmpdir(), "slicelab-move-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

function envelope(study: string, started: unknown): RecordEnvelope {
  const base = JSON.parse(readFileSync(join(repoRoot(), "data", "runs", "compare-scaling", "20261201T182811Z", "record.json"), "utf8")) as RecordEnvelope;
  return { ...base, study, started: started as string };
}

function scratch(): { repo: string; runs: string } {
  const repo = mkdtempSync(join(tmp, "repo-"));
  const runs = join(repo, "data", "runs");
  const rec = (rel: string, study: string, started: unknown, files: Record<string, string> = {}) => {
    mkdirSync(join(runs, rel), { recursive: true });
    for (const [f, t] of Object.entries(files)) {
      mkdirSync(join(runs, rel, f, ".."), { recursive: true });
      writeFileSync(join(runs, rel, f), t);
    }
    writeFileSync(join(runs, rel, "record.json"), recordText({ ...envelope(study, started), files: Object.keys(files).filter((f) => !f.includes("/")) }));
  };
  rec("aa-rostedt-2023", "rostedt-2023", "2026-11-30T03:54:19.184Z", { "results.csv": "a,b\n1,2\n" });
  rec("vm-eviction-compare-20261130", "dipietro-2026", { unknown: "no start" }, { "summary.json": "{}\n" });
  rec("vm-eviction-compare-20261130b", "dipietro-2026", { unknown: "no start" }, { "summary.json": "{}\n", "make-comparison.mjs": "// code\n" });
  rec("mechanism-2026/host-20261201T184719Z", "dipietro-2026", { unknown: "no start" }, { "rows.json": "[]\n" });
  rec("mechanism-2026/20261201T193546Z", "dipietro-2026", { unknown: "no start" }, { "rows.json": "[]\n" });
  rec("lock-ops-v2/20261201T192645Z", "patch-cost", "2026-12-01T19:26:45Z", { "summary.json": "{}\n" });
  rec("lock-ops-v2/20261201T225522Z-vm", "patch-cost", "2026-12-01T22:55:22Z", { "summary.json": "{}\n" });
  writeFileSync(join(runs, "lock-ops-v2", "README.md"), "the v2 records\n");
  rec("compare-scaling/20261201T182811Z", "compare-scaling", "2026-12-01T18:28:11Z", { "result.json": "{}\n" });
  mkdirSync(join(repo, "notebooks"), { recursive: true });
  writeFileSync(join(repo, "REPRODUCE.md"), [
    "See `data/runs/aa-rostedt-2023/results.csv` and data/runs/aa-rostedt-2023-T20 (another record).",
    "The comparisons `vm-eviction-compare-20261130b` and data/runs/vm-eviction-compare-20261130/summary.json.",
    "Value micro-cost.off-ns stays; `data/runs/mechanism-2026/host-20261201T184719Z` moves; data/runs/lock-ops-v2/README.md too.",
    "",
  ].join("\n"));
  writeFileSync(join(repo, "notebooks", "n.ipynb"), JSON.stringify({ cells: [{ cell_type: "code", source: ['latestRecord("../data/runs", "lock-ops-v2")\n'], outputs: [{ text: ["data/runs/aa-rostedt-2023\n"] }] }] }));
  mkdirSync(join(repo, "studies"), { recursive: true });
  writeFileSync(join(repo, "studies", "dipietro-2026.json"), `{ "name": "dipietro-2026", "records": ["vm-eviction-compare-20261130", "vm-eviction-compare-20261130b"] }\n`);
  return { repo, runs };
}

const STUDIES = new Set(["rostedt-2023", "vm-eviction", "mechanism-2026", "lock-ops", "lock-ops-vm", "compare-scaling", "dipietro-2026", "patch-cost"]);
const run = (repo: string, runs: string, write: boolean) => convertRecords(repo, runs, STUDIES, { write, derive: deriveEnvelopes, index: recordIndex });

test("the plan: study by override or envelope, stamp from the name, the start, or the date; collisions get the next second", () => {
  const { runs } = scratch();
  const plan = planMoves(runs, STUDIES);
  const to = Object.fromEntries(plan.moves.map((m) => [m.from, m.to]));
  assert.equal(to["aa-rostedt-2023"], "rostedt-2023/20261130T035419Z");
  assert.equal(to["vm-eviction-compare-20261130"], "vm-eviction/20261130T000000Z");
  assert.equal(to["vm-eviction-compare-20261130b"], "vm-eviction/20261130T000001Z");
  assert.match(plan.moves.find((m) => m.from === "vm-eviction-compare-20261130b")!.rule, /taken.*next free second/);
  assert.equal(to["mechanism-2026/host-20261201T184719Z"], "mechanism-2026/20261201T184719Z");
  assert.equal(to["mechanism-2026/20261201T193546Z"], "mechanism-2026/20261201T193546Z", "a record in place stays");
  assert.equal(to["lock-ops-v2/20261201T192645Z"], "lock-ops/20261201T192645Z");
  assert.equal(to["lock-ops-v2/20261201T225522Z-vm"], "lock-ops-vm/20261201T225522Z", "the VM record is its own study");
  assert.deepEqual(plan.files, [{ from: "lock-ops-v2/README.md", to: "lock-ops/README.md" }]);
  assert.deepEqual(plan.code.map((c) => `${c.record}/${c.file}`), ["vm-eviction-compare-20261130b/make-comparison.mjs"]);
  assert.throws(() => planMoves(runs, new Set(["rostedt-2023"])), (e: unknown) => e instanceof UserError && /has no file in studies/.test(e.message));
});

test("convert --write moves, keeps raw files and formerPath, removes code naming its replacement, rewrites citations; a re-run changes nothing", () => {
  const { repo, runs } = scratch();
  const before = run(repo, runs, false);
  assert.ok(before.rewritten.includes("REPRODUCE.md"));
  assert.ok(existsSync(join(runs, "aa-rostedt-2023")), "without --write nothing moves");
  run(repo, runs, true);
  const moved = readRecord(join(runs, "rostedt-2023", "20261130T035419Z"));
  assert.equal(moved.formerPath, "data/runs/aa-rostedt-2023");
  assert.equal(readFileSync(join(runs, "rostedt-2023", "20261130T035419Z", "results.csv"), "utf8"), "a,b\n1,2\n");
  const ev = readRecord(join(runs, "vm-eviction", "20261130T000001Z"));
  assert.equal(ev.study, "vm-eviction");
  assert.ok(!existsSync(join(runs, "vm-eviction", "20261130T000001Z", "make-comparison.mjs")));
  assert.ok(!ev.files.includes("make-comparison.mjs"));
  assert.ok(ev.notes.some((n) => /make-comparison\.mjs .*sha256 [0-9a-f]{64}.*eviction-comparison\.ts/.test(n)), ev.notes.join("\n"));
  assert.ok(ev.notes.some((n) => /study was "dipietro-2026"/.test(n)));
  assert.ok(!existsSync(join(runs, "lock-ops-v2")), "emptied old directories are removed");
  assert.equal(readFileSync(join(runs, "lock-ops", "README.md"), "utf8"), "the v2 records\n");
  const doc = readFileSync(join(repo, "REPRODUCE.md"), "utf8");
  assert.match(doc, /`data\/runs\/rostedt-2023\/20261130T035419Z\/results\.csv`/);
  assert.match(doc, /data\/runs\/aa-rostedt-2023-T20 \(another record\)/, "a longer name is not a citation of the shorter");
  assert.match(doc, /`vm-eviction\/20261130T000001Z`/);
  assert.match(doc, /data\/runs\/vm-eviction\/20261130T000000Z\/summary\.json/);
  assert.match(doc, /micro-cost\.off-ns/);
  assert.match(doc, /data\/runs\/mechanism-2026\/20261201T184719Z/);
  assert.match(doc, /data\/runs\/lock-ops\/README\.md/);
  const nb = readFileSync(join(repo, "notebooks", "n.ipynb"), "utf8");
  assert.match(nb, /latestRecord\(\\"..\/data\/runs\\", \\"lock-ops\\"\)/);
  assert.match(nb, /data\/runs\/rostedt-2023\/20261130T035419Z\\n/, "committed outputs are rewritten too");
  assert.deepEqual(JSON.parse(readFileSync(join(repo, "studies", "dipietro-2026.json"), "utf8")).records, [], "another study's records leave the list");
  assert.ok(existsSync(join(runs, "README.md")));
  const snapshot = JSON.stringify(listRecords(runs).map((r) => [r.dir, recordText(r.record)])) + doc + nb;
  const again = run(repo, runs, true);
  assert.equal(again.plan.moves.filter((m) => m.from !== m.to).length, 0);
  assert.deepEqual(again.rewritten, []);
  assert.equal(JSON.stringify(listRecords(runs).map((r) => [r.dir, recordText(r.record)])) + readFileSync(join(repo, "REPRODUCE.md"), "utf8") + readFileSync(join(repo, "notebooks", "n.ipynb"), "utf8"), snapshot);
  // A citation of an old path added after the move (another branch merged) is rewritten by the re-run, from formerPath.
  writeFileSync(join(repo, "README.md"), "New text citing data/runs/aa-rostedt-2023/analysis.json.\n");
  assert.deepEqual(run(repo, runs, true).rewritten, ["README.md"]);
  assert.equal(readFileSync(join(repo, "README.md"), "utf8"), "New text citing data/runs/rostedt-2023/20261130T035419Z/analysis.json.\n");
  assert.equal(currentPath(repo, "data/runs/aa-rostedt-2023/results.csv"), "data/runs/rostedt-2023/20261130T035419Z/results.csv");
});

test("rewriteText: tokens only, template prefixes when every record moved alike", () => {
  const pairs: [string, string][] = [["overhead-20261130T064107Z", "harness-overhead/20261130T064107Z"], ["overhead-20261130T073633Z", "harness-overhead/20261130T073633Z"], ["micro-cost", "patch-cost/20261130T014521Z"]];
  assert.equal(rewriteText("`data/runs/overhead-20261130T${stamp}/analysis.json`", pairs), "`data/runs/harness-overhead/20261130T${stamp}/analysis.json`");
  assert.equal(rewriteText('"micro-cost.off-ns" and `${runs}/micro-cost` and micro-costly', pairs), '"micro-cost.off-ns" and `${runs}/patch-cost/20261130T014521Z` and micro-costly');
  assert.equal(rewriteText("data/runs/micro-cost.", pairs), "data/runs/patch-cost/20261130T014521Z.", "a sentence's full stop is not part of the name");
});

test("utcStamp is the one stamp format", () => {
  assert.equal(utcStamp(new Date("2026-12-01T18:15:53.123Z")), "20261201T181553Z");
  void citationMap;
});

test("rewriteText keeps a regular expression's escaped slashes", () => {
  assert.equal(rewriteText("/from data\\/runs\\/aa-rostedt-2023\\/analysis/", [["aa-rostedt-2023", "rostedt-2023/20261130T035419Z"]]), "/from data\\/runs\\/rostedt-2023\\/20261130T035419Z\\/analysis/");
});

test("rewriteText: an old name that is also a study's name is rewritten only as a path", () => {
  const pairs: [string, string][] = [["patch-cost-cpu", "patch-cost/20261130T022242Z"]];
  const only = new Set(["patch-cost-cpu"]);
  assert.equal(rewriteText('"name": "patch-cost-cpu", see data/runs/patch-cost-cpu/ and data\\/runs\\/patch-cost-cpu', pairs, only), '"name": "patch-cost-cpu", see data/runs/patch-cost/20261130T022242Z/ and data\\/runs\\/patch-cost\\/20261130T022242Z');
});

test("issue 24: PostgreSQL mechanism records go to study mechanism-pg, those moved before and those made later in the old layout; citations of both old places follow; a re-run changes nothing", () => {
  const { repo, runs } = scratch();
  const pgRows = JSON.stringify([{ run: "001", hugePages: "on", holds: 5 }]) + "\n";
  const rec = (rel: string, study: string, extra: Partial<RecordEnvelope>, files: Record<string, string>) => {
    mkdirSync(join(runs, rel), { recursive: true });
    for (const [f, t] of Object.entries(files)) writeFileSync(join(runs, rel, f), t);
    writeFileSync(join(runs, rel, "record.json"), recordText({ ...envelope(study, { unknown: "no start" }), files: Object.keys(files), ...extra }));
  };
  // moved once already (from pg-STAMP, by an earlier convert), and one that an older CLI writes after the merge
  rec("mechanism-2026/20261201T224018Z", "mechanism-2026", {
    formerPath: "data/runs/mechanism-2026/pg-20261201T224018Z",
    notes: ["moved by `slicelab record convert` from data/runs/mechanism-2026/pg-20261201T224018Z to data/runs/mechanism-2026/20261201T224018Z (stamp: the stamp in its directory name)"],
  }, { "rows.json": pgRows });
  rec("mechanism-2026/pg-20261204T230000Z", "dipietro-2026", {}, { "rows.json": pgRows, "rows.csv": "run,hugePages\n001,on\n" });
  writeFileSync(join(repo, "REPRODUCE.md"), "PostgreSQL: `data/runs/mechanism-2026/20261201T224018Z` and data/runs/mechanism-2026/pg-20261204T230000Z/rows.json; micro: data/runs/mechanism-2026/20261201T193546Z.\n");
  const studies = new Set([...STUDIES, "mechanism-pg"]);
  const go = () => convertRecords(repo, runs, studies, { write: true, derive: deriveEnvelopes, index: recordIndex });
  go();
  const a = readRecord(join(runs, "mechanism-pg", "20261201T224018Z"));
  assert.equal(a.study, "mechanism-pg");
  assert.equal(a.formerPath, "data/runs/mechanism-2026/pg-20261201T224018Z", "the first place is kept");
  const b = readRecord(join(runs, "mechanism-pg", "20261204T230000Z"));
  assert.equal(b.study, "mechanism-pg");
  assert.equal(readFileSync(join(runs, "mechanism-pg", "20261204T230000Z", "rows.csv"), "utf8"), "run,hugePages\n001,on\n", "raw files kept");
  assert.ok(existsSync(join(runs, "mechanism-2026", "20261201T193546Z")), "the micro record (rows without hugePages) stays");
  assert.equal(readFileSync(join(repo, "REPRODUCE.md"), "utf8"), "PostgreSQL: `data/runs/mechanism-pg/20261201T224018Z` and data/runs/mechanism-pg/20261204T230000Z/rows.json; micro: data/runs/mechanism-2026/20261201T193546Z.\n");
  // a kit without studies/mechanism-pg.json refuses the moved records with a clear error
  assert.throws(() => planMoves(runs, STUDIES), (e: unknown) => e instanceof UserError && /mechanism-pg.*has no file in studies/.test(e.message));
  const snapshot = JSON.stringify(listRecords(runs).map((r) => [r.dir, recordText(r.record)])) + readFileSync(join(repo, "REPRODUCE.md"), "utf8");
  const again = go();
  assert.equal(again.plan.moves.filter((m) => m.from !== m.to).length, 0);
  assert.deepEqual(again.rewritten, []);
  assert.equal(JSON.stringify(listRecords(runs).map((r) => [r.dir, recordText(r.record)])) + readFileSync(join(repo, "REPRODUCE.md"), "utf8"), snapshot);
});
