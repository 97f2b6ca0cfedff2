// The study's rule applied to a record: a synthetic factorial series (known throughputs) analysed
// per contrast and per cell of the other factors, the report page made from it; and a script study
// run by the runner into a temporary runs directory.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { loadStudy, cells } from "../src/study/study.js";
import { analyzeStudyRecord } from "../src/study/analyze.js";
import { studyReport } from "../src/report/study.js";
import { checkSums, readRecord, isUnknown } from "../src/record/format.js";

const tmp = mkdtempSync(join(tmpdir(), "slicelab-study-analysis-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("paired contrasts per cell: the extension's +5% under full is resolved, lazy's ±0.1% is not", () => {
  const study = loadStudy("dipietro-2026-metal");
  const cs = cells(study.factors);
  assert.equal(cs.length, 4);
  const dir = join(tmp, "rec");
  const series = join(dir, "series");
  const blocks = 6;
  const plan: { index: number; block: number; variant: string; warmup: boolean; id: string }[] = [];
  let index = 0;
  for (let b = 1; b <= blocks; b++) {
    for (const c of b % 2 ? cs : [...cs].reverse()) {
      index++;
      const id = `${String(index).padStart(3, "0")}-${c.name}`;
      plan.push({ index, block: b, variant: c.name, warmup: b === 1, id });
      const base = 1000 + 37 * b; // a drift that blocking takes out
      const tps = c.levels.extension === "all" ? (c.levels.mode === "full" ? base * 1.05 : base * (b % 2 ? 1.001 : 0.999)) : base;
      mkdirSync(join(series, "runs", id), { recursive: true });
      const t = new Date(Date.UTC(2099, 0, 1, 0, index)).toISOString();
      writeFileSync(join(series, "runs", id, "result.json"), JSON.stringify({
        index, id, block: b, variant: c.name, warmup: b === 1, session: 1, started: t, ended: t,
        workloads: [{ workload: "pgbench-simple-update", tool: "pgbench", tps, seconds: 1, started: t, ended: t, loadBefore: [0, 0, 0], loadAfter: [0, 0, 0], hogs: 0, raw: "x.out" }],
      }));
    }
  }
  writeFileSync(join(series, "series.json"), JSON.stringify({ format: "slicelab-series/1", design: "blocks", variants: cs.map((c) => ({ name: c.name })), plan }));
  const rec = JSON.parse(readFileSync(join(repoRoot(), "data", "runs", "rostedt-2023/20261130T035419Z", "record.json"), "utf8"));
  rec.study = study.name;
  rec.design = { kind: "blocks", runsPerCell: blocks, warmup: 1, cells: cs.map((c) => c.name), boot: {} };
  writeFileSync(join(dir, "record.json"), JSON.stringify(rec));
  const a = analyzeStudyRecord(dir, study, studyReport);
  assert.equal(a.contrasts.length, 2);
  const full = a.contrasts.find((c) => c.at.mode === "full");
  const lazy = a.contrasts.find((c) => c.at.mode === "lazy");
  assert.ok(full && lazy);
  assert.equal(full.n, blocks - 1); // warm-up block left out
  assert.ok(Math.abs(full.meanDiffPct - 5) < 1e-6, String(full.meanDiffPct));
  assert.equal(full.verdict, "B higher");
  assert.ok(Math.abs(lazy.meanDiffPct) < 0.2);
  assert.equal(lazy.verdict, "no difference resolved");
  assert.equal(a.verdict, "effects resolved");
  const stored = readRecord(dir);
  assert.ok(!isUnknown(stored.analysis) && stored.analysis.file === "analysis.json" && stored.analysis.verdict === "effects resolved");
  const html = readFileSync(join(dir, "report.html"), "utf8");
  assert.match(html, /<td>extension: all − off<\/td><td>build=patched, mode=full<\/td><td>pgbench-simple-update<\/td><td>5<\/td><td>5\.00<\/td>/);
  assert.match(html, /<h2>What this record cannot tell<\/h2>/);
  assert.doesNotMatch(html, /<script/);
});

test("a script study: the runner runs the command with {out}, writes the record and takes the script's verdict", () => {
  const sdir = join(tmp, "studies");
  mkdirSync(sdir, { recursive: true });
  const file = join(sdir, "script-probe.json");
  const o = JSON.parse(readFileSync(join(repoRoot(), "studies", "harness-overhead.json"), "utf8"));
  o.name = "script-probe";
  o.driver = "script";
  delete o.experiment;
  delete o.params;
  o.script = ["sh", "-c", 'mkdir -p "$0" && printf \'{"verdict":"PASS","reason":"kit/hand 1.0 (test)"}\' > "$0/analysis.json"', "{out}"];
  delete o.records;
  writeFileSync(file, JSON.stringify(o, null, 2));
  const runs = join(tmp, "runs");
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "study", "run", file, "--runs-dir", runs], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const [stamp] = readdirSync(join(runs, "script-probe"));
  const dir = join(runs, "script-probe", stamp!);
  const rec = readRecord(dir);
  assert.ok(!isUnknown(rec.analysis));
  assert.equal(rec.analysis.verdict, "PASS");
  assert.equal(rec.analysis.reason, "kit/hand 1.0 (test)");
  assert.deepEqual(checkSums(dir), []);
  assert.ok(rec.files.includes("out"));
});
