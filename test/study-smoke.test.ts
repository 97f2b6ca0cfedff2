// The host smoke study end to end on this machine: checks, runs, one record, its analysis and report,
// into a temporary runs directory (never data/). On the 6.18 host the extension is unavailable and
// the record says so.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { checkSums, readRecord, isUnknown } from "../src/record/format.js";
import { kernelInfo } from "../src/record/provenance.js";

const prefix = `tstudy${process.pid}`;
const runs = mkdtempSync(join(tmpdir(), "slicelab-study-smoke-"));
after(() => {
  rmSync(runs, { recursive: true, force: true });
  const c = join(workDir(), "clusters");
  if (existsSync(c)) for (const d of readdirSync(c)) if (d.startsWith(`${prefix}-`)) rmSync(join(c, d), { recursive: true, force: true });
});

test("study run smoke on the host: one record in the one format, analysed, checksummed", { timeout: 400_000 }, () => {
  const args = [join(repoRoot(), "bin", "slicelab.js"), "study", "run", "smoke", "--runs-dir", runs, "--cluster-prefix", prefix, "--param", "duration=1", "--param", "time=1"];
  // First session stops after one run (as after Ctrl-C): no record yet; the same command resumes.
  const first = spawnSync(process.execPath, [...args, "--max-runs", "1"], { encoding: "utf8" });
  assert.equal(first.status, 1, `${first.stdout}\n${first.stderr}`);
  assert.match(first.stdout, /not finished; run the same command again to resume/);
  assert.match(first.stderr, /checks:\n(\s+pass .*\n)+/);
  assert.match(first.stderr, /^run 1\/2 .*ETA/m);
  const partial = readdirSync(join(runs, "smoke"));
  assert.equal(partial.length, 1);
  assert.ok(!existsSync(join(runs, "smoke", partial[0]!, "record.json")), "no record before the study finished");
  const r = spawnSync(process.execPath, args, { encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /resuming .*smoke\/\d{8}T\d{6}Z \(session 2\)/);
  assert.match(r.stderr, /series .*: 1\/2 runs already done/);
  assert.doesNotMatch(r.stderr, /^run 1\/2 /m);
  const dirs = readdirSync(join(runs, "smoke"));
  assert.equal(dirs.length, 1);
  assert.match(dirs[0]!, /^\d{8}T\d{6}Z$/);
  const dir = join(runs, "smoke", dirs[0]!);
  const rec = readRecord(dir);
  assert.equal(rec.study, "smoke");
  assert.match(rec.notes.join("\n"), /resumed: 2 sessions/);
  assert.deepEqual((rec.command as string[]).slice(0, 4), ["slicelab", "study", "run", "smoke"]);
  const k = kernelInfo();
  assert.equal(rec.kernel.release, k.release);
  if (k.sliceExtensionPrctl.available === false) assert.match(rec.kernel.sliceExtension as string, /^unavailable: prctl\(PR_RSEQ_SLICE_EXTENSION\) error/);
  assert.ok(typeof rec.glibc === "string" && /^glibc \d/.test(rec.glibc), JSON.stringify(rec.glibc));
  assert.match(rec.postgres.patch as string, /none \(unpatched\)/);
  assert.ok(!isUnknown(rec.started) && !isUnknown(rec.ended) && rec.started < rec.ended);
  assert.match(rec.concurrent as string, /^at the start: load /);
  assert.ok(!isUnknown(rec.analysis));
  assert.equal(rec.analysis.verdict, "ran", rec.analysis.reason);
  assert.match(rec.analysis.reason, /^2 runs, 8 workload results/);
  assert.deepEqual(checkSums(dir), []);
  const html = readFileSync(join(dir, "report.html"), "utf8");
  assert.match(html, /<h2>What this record cannot tell<\/h2>/);
  if (k.sliceExtensionPrctl.available === false) assert.match(html, /the kernel had no slice extension/);
  assert.ok(rec.files.includes("series") && rec.files.includes("analysis.json") && rec.files.includes("study-run.json"));
});
