// The harness records what our PostgreSQL patch says about the time slice extension around every
// workload (setting, status, counter changes), so a series can show whether the mechanism engaged.
// Here (a kernel without the feature) the patched server must say "unavailable" and count no grants;
// an unpatched server has no such record.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { parseSliceCounters } from "../src/bench/series.js";

const cli = join(repoRoot(), "bin", "slicelab.js");
const prefix = `tslice${process.pid}`;
const out = mkdtempSync(join(tmpdir(), "slicelab-slice-"));
after(() => {
  rmSync(out, { recursive: true, force: true });
  for (const d of readdirSync(join(workDir(), "clusters"))) if (d.startsWith(`${prefix}-`)) rmSync(join(workDir(), "clusters", d), { recursive: true, force: true });
});

test("parseSliceCounters reads the patch's counter line", () => {
  assert.deepEqual(parseSliceCounters("requests=12 spinlock=10 lwlock=2 grants=3 yields=1 revoked=0"), {
    requests: 12, spinlock: 10, lwlock: 2, grants: 3, yields: 1, revoked: 0,
  });
  assert.deepEqual(parseSliceCounters(""), {});
});

test("bench run with the patched server: every workload records slice_extension setting, status and counter changes", { timeout: 3_600_000 }, () => {
  // Built once and cached (the postgres-build test builds the same prefix).
  const built = spawnSync(process.execPath, [cli, "postgres", "build", "--version", "18", "--variant", "patched", "--json"], { encoding: "utf8" });
  assert.equal(built.status, 0, built.stderr);
  const bin = (JSON.parse(built.stdout) as { builds: { variant: string; binDir: string }[] }).builds.find((b) => b.variant === "patched")!.binDir;
  const r = spawnSync(
    process.execPath,
    [
      cli, "bench", "run", "smoke",
      "--variant", `all=bin=${bin},setting:slice_extension=all`,
      "--variant", "debian=setting:application_name=unpatched",
      "--runs", "1", "--warmup", "0", "--seed", "5", "--param", "duration=1",
      "--cluster-prefix", prefix, "--out", out, "--json",
    ],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as { rows: { id: string; variant: string }[] };
  const ids = [...new Set(summary.rows.map((x) => `${x.id}|${x.variant}`))];
  assert.equal(ids.length, 2);
  for (const entry of ids) {
    const [id, variant] = entry.split("|");
    const result = JSON.parse(readFileSync(join(out, "runs", id!, "result.json"), "utf8"));
    for (const w of result.workloads as { workload: string; sliceExtension?: { setting: string; status: string; countersDelta: Record<string, number> } }[]) {
      if (variant === "debian") {
        assert.equal(w.sliceExtension, undefined, `${w.workload}: the unpatched server has no slice_extension settings`);
        continue;
      }
      assert.ok(w.sliceExtension, `${w.workload}: no sliceExtension record`);
      assert.equal(w.sliceExtension.setting, "all");
      // This host's kernel (6.18) lacks CONFIG_RSEQ_SLICE_EXTENSION: the patch must say so and grant nothing.
      assert.match(w.sliceExtension.status, /^unavailable/, w.sliceExtension.status);
      // patch v2's pg_stat_get_slice_extension() columns, read through the same k=v text
      const d = w.sliceExtension.countersDelta;
      assert.ok("granted_yielded" in d && "acquires_lwlock" in d, JSON.stringify(d));
      assert.equal(d.granted_yielded, 0);
      assert.equal(d.granted_expired, 0);
      assert.equal(d.acquires_lwlock, 0, "the hooks never engaged");
    }
  }
});
