// The smoke protocol end to end: real clusters, pgbench, sysbench and CPU hogs, through the CLI.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { parsePgbenchFile } from "../src/parse/pgbench.js";
import { parseSysbench } from "../src/parse/sysbench.js";

const prefix = `tsmoke${process.pid}`;
const out = mkdtempSync(join(tmpdir(), "slicelab-smoke-"));
after(() => {
  rmSync(out, { recursive: true, force: true });
  for (const d of readdirSync(join(workDir(), "clusters"))) if (d.startsWith(`${prefix}-`)) rmSync(join(workDir(), "clusters", d), { recursive: true, force: true });
});

test("bench run smoke: two variants, every workload parsed, tidy table and provenance written", { timeout: 240_000 }, () => {
  const r = spawnSync(
    process.execPath,
    [
      join(repoRoot(), "bin", "slicelab.js"),
      "bench", "run", "smoke",
      "--variant", "A=setting:application_name=smoke-a",
      "--variant", "B=setting:work_mem=8MB",
      "--runs", "1", "--warmup", "0", "--seed", "3",
      "--cluster-prefix", prefix, "--out", out, "--json",
    ],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.total, 2);
  assert.equal(summary.done, 2);
  assert.equal(summary.rows.length, 8); // 2 runs × 4 workloads
  // Non-TTY progress: one plain line per run, and the cluster log path.
  assert.equal(r.stderr.match(/^run \d\/2 /gm)?.length, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`cluster ${prefix}-smoke-[0-9a-f]{8}: log .*/postgres\\.log`));

  const plan = JSON.parse(readFileSync(join(out, "series.json"), "utf8"));
  assert.equal(plan.seed, 3);
  assert.deepEqual(plan.plan.map((p: { variant: string }) => p.variant).sort(), ["A", "B"]);

  const csv = readFileSync(join(out, "results.csv"), "utf8").trim().split("\n");
  assert.equal(csv[0], "run,id,block,variant,workload,warmup,tps,seconds,started,ended,load1Before,load1After,hogs,raw");
  assert.equal(csv.length, 9);
  for (const row of summary.rows) {
    assert.ok(row.tps > 0, `${row.workload}: tps ${row.tps}`);
    const raw = join(out, row.raw);
    assert.ok(existsSync(raw), raw);
    // The recorded tps is what the parser reads from the kept raw output.
    const parsed = row.workload === "sysbench" ? parseSysbench(readFileSync(raw, "utf8"), raw).transactionsPerSec : parsePgbenchFile(raw)[0]?.tps;
    assert.equal(parsed, row.tps);
    assert.equal(row.hogs, row.workload === "locktable" ? 2 : 0);
  }
  const result = JSON.parse(readFileSync(join(out, "runs", summary.rows[0].id, "result.json"), "utf8"));
  const sb = result.workloads.find((w: { workload: string }) => w.workload === "sysbench");
  assert.ok(sb.command.includes("--time=2"));
  assert.equal(sb.loadBefore.length, 3);

  const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
  const s = prov.sessions[0];
  assert.equal(prov.sessions.length, 1);
  assert.equal(s.host.cpus, plan.cpus);
  assert.match(s.kernel.release, /^\d+\.\d+/);
  assert.ok(["y", "n", "m", null].includes(s.kernel.rseqSliceExtensionConfig));
  assert.ok([true, false, null].includes(s.kernel.sliceExtensionPrctl.available));
  assert.match(s.postgres.A.version, /PostgreSQL\) 15\./);
  assert.match(s.postgres.A.postgresSha256, /^[0-9a-f]{64}$/);
  assert.match(s.clients.versions.pgbench, /^pgbench \(PostgreSQL\)/);
  assert.match(s.clients.versions.sysbench, /^sysbench /);
  assert.equal(prov.series.protocol.name, "smoke");
});
