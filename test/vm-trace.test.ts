// The traced run end to end (skipped unless SLICELAB_E2E=1): a kernel built from our
// tracepoint series boots in the VM, the micro-benchmark runs with the extension on
// while tracefs records our rseq_slice_* events and the enforcement timer's hrtimer
// events, and the host's analysis reconciles them with the kernel's rseq/stats.
// Under TCG nothing here is a performance measurement; the assertions are functional.
import { fetchDebianSource } from "../src/postgres/source.js";
import { prefixFor, readBuildRecord as readPgBuildRecord } from "../src/postgres/build.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parsePgParams, patchedKernelBuilds, pgBenchCommand, PG_DEFAULT_PROTOCOL, resolvePgWorkload, runSliceTraceInVm } from "../src/study/drivers/slice-trace.js";
import { workloadOption } from "../src/cli/commands/vm.js";
import { UserError } from "../src/util/errors.js";
import { workDir } from "../src/util/paths.js";

// Option parsing of `vm trace --workload pg` (no boot).
test("--pg-param: NAME=VALUE pairs, later ones win; anything a shell would read specially is refused", () => {
  assert.deepEqual(parsePgParams(undefined), {});
  assert.deepEqual(parsePgParams(["clients=2", "duration=90", "clients=3", "shared_buffers=16MB"]), { clients: "3", duration: "90", shared_buffers: "16MB" });
  for (const bad of ["clients", "=4", "clients=", "clients=4;reboot", "clients=$(id)", "cli ents=4", "duration=1 2"]) {
    assert.throws(() => parsePgParams([bad]), UserError, bad);
  }
});

test("--workload pg: the protocol's TCG defaults under the overrides, checked against the protocol file", () => {
  const d = resolvePgWorkload(undefined);
  assert.equal(d.protocol, PG_DEFAULT_PROTOCOL);
  assert.equal(d.protocol, "sangappa-2024-locktable");
  assert.deepEqual(d.params, { clients: "4", hogs: "2", threads: "2", duration: "60" });
  assert.equal(d.runs, 1);
  const o = resolvePgWorkload("sangappa-2024-locktable", { duration: "120", clients: "6" }, 2);
  assert.deepEqual(o.params, { clients: "6", hogs: "2", threads: "2", duration: "120" });
  assert.equal(o.runs, 2);
  // The smoke protocol's workloads name their length "duration" (pgbench) and "time" (sysbench).
  assert.equal(resolvePgWorkload("smoke").params.time, "30");
  assert.throws(() => resolvePgWorkload("sangappa-2024-locktable", { scale: "1" }), /^UserError: --pg-param scale: protocol sangappa-2024-locktable has no parameter "scale"/);
  assert.throws(() => resolvePgWorkload("no-such-protocol"), UserError);
  assert.throws(() => resolvePgWorkload("../etc/passwd"), UserError);
  assert.throws(() => resolvePgWorkload(undefined, {}, 0), /--pg-runs/);
});

test("--workload pg: the guest runs bench run with one patched variant, the parameters, no warm-up", () => {
  const cmd = pgBenchCommand("/k/bin/slicelab.js", "/pg/bin", resolvePgWorkload(undefined, { duration: "90" }));
  assert.match(cmd, /^node \/k\/bin\/slicelab\.js bench run sangappa-2024-locktable --out "\$O\/series" --runs 1 --warmup 0 /);
  for (const p of ["clients=4", "hogs=2", "threads=2", "duration=90"]) assert.ok(cmd.includes(` --param ${p}`), p);
  assert.ok(cmd.includes('--variant "on=bin=/pg/bin,setting:slice_extension=all,env:GLIBC_TUNABLES=glibc.pthread.rseq=0"'));
  assert.ok(cmd.endsWith('> "$O/bench.log" 2>&1'));
});

test("--workload: micro (default), pg, pg-smoke", () => {
  assert.equal(workloadOption(undefined), "micro");
  assert.equal(workloadOption("pg"), "pg");
  assert.equal(workloadOption("pg-smoke"), "pg-smoke");
  assert.throws(() => workloadOption("pgbench"), UserError);
});

const enabled = process.env.SLICELAB_E2E === "1";
const skip = enabled ? false : "set SLICELAB_E2E=1 (npm run test:e2e) to boot the patched kernel and trace a run";

test("traced micro-benchmark run: every grant the kernel counted is in the trace, both methods see the timer-armed ones", { skip, timeout: 3600_000 }, async () => {
  const builds = patchedKernelBuilds();
  assert.ok(builds.length > 0, "no kernel built from kernel-patches/linux/series/slicelab: run `npx slicelab prepare e2e`");
  const out = mkdtempSync(join(workDir(), "vm-trace-e2e-"));
  try {
    const r = await runSliceTraceInVm({ kernel: builds[0]!.bzImage, build: builds[0], durationS: 3, sliceNsec: 50000, outDir: out });
    assert.equal(r.vm.exitStatus, 0);
    assert.ok(r.analysis.tracepoints.grants > 0, JSON.stringify(r.analysis.tracepoints));
    for (const c of r.crossCheck) assert.equal(c.trace, c.stats, `${c.counter}: trace ${c.trace} vs rseq/stats ${c.stats}`);
    // Each timer interval belongs to a grant the tracepoints saw.
    assert.equal(r.analysis.matching.timersWithoutGrant, 0);
    assert.equal(r.analysis.matching.matched, r.analysis.hrtimer.intervals - (r.analysis.hrtimer.outcomes.open ?? 0));
    const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
    assert.equal(prov.environment.vm, true);
    assert.equal(prov.environment.accel, r.vm.accel);
    assert.equal(prov.kernel.sliceExtNsec, 50000);
    assert.ok(existsSync(join(out, "raw", "trace-tracefs.txt")));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("traced PostgreSQL run (lock-table protocol sized for TCG): the workload completes and the trace reconciles with rseq/stats", { skip, timeout: 3600_000 }, async () => {
  const builds = patchedKernelBuilds();
  assert.ok(builds.length > 0, "no kernel built from kernel-patches/linux/series/slicelab: run `npx slicelab prepare e2e`");
  // The patched PostgreSQL 18 that `slicelab prepare e2e` built (SLICELAB_PG_PATCHED_BIN overrides it).
  const src = await fetchDebianSource("18");
  const pgBin = process.env.SLICELAB_PG_PATCHED_BIN ?? join(prefixFor(src, "patched"), "bin");
  assert.ok(readPgBuildRecord(prefixFor(src, "patched")) || process.env.SLICELAB_PG_PATCHED_BIN, `no patched PostgreSQL 18 build at ${pgBin}: run \`npx slicelab prepare e2e\``);
  const out = mkdtempSync(join(workDir(), "vm-trace-pg-e2e-"));
  try {
    const r = await runSliceTraceInVm({ kernel: builds[0]!.bzImage, build: builds[0], workload: "pg", pgBin, sliceNsec: 50000, outDir: out });
    assert.equal(r.vm.exitStatus, 0, readFileSync(join(out, "raw", "bench.log"), "utf8"));
    const rows = readFileSync(join(out, "raw", "series", "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(rows.length, 1);
    assert.ok(rows[0].tps > 0, JSON.stringify(rows[0]));
    assert.ok(r.analysis.tracepoints.grants > 0, JSON.stringify(r.analysis.tracepoints));
    for (const c of r.crossCheck) assert.equal(c.trace, c.stats, `${c.counter}: trace ${c.trace} vs rseq/stats ${c.stats}`);
    const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
    assert.equal(prov.protocol.protocol, "sangappa-2024-locktable");
    assert.equal(prov.protocol.params.duration, "60");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

import { analyseRunDir } from "../src/study/drivers/slice-trace.js";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";

test("--reanalyse reads a record whose trace texts are kept gzip'd (NAME.gz) and gets the same grants", () => {
  const fx = join(process.cwd(), "test/fixtures");
  const mk = (gz: boolean): string => {
    const d = mkdtempSync(join(tmpdir(), "slicelab-trace-gz-"));
    mkdirSync(join(d, "raw"));
    for (const [from, to] of [["slice-trace/trace-cmd-report.txt", "trace.txt"], ["slice-trace/tracefs.txt", "trace-tracefs.txt"]] as const) {
      const text = readFileSync(join(fx, from));
      if (gz) writeFileSync(join(d, "raw", `${to}.gz`), gzipSync(text));
      else writeFileSync(join(d, "raw", to), text);
    }
    copyFileSync(join(fx, "rseq-stats/vm-7.2.13-micro-on-before.txt"), join(d, "raw/rseq-stats-before.txt"));
    copyFileSync(join(fx, "rseq-stats/vm-7.2.13-micro-on-after.txt"), join(d, "raw/rseq-stats-after.txt"));
    return d;
  };
  const plain = mk(false), packed = mk(true);
  try {
    const a = analyseRunDir(plain), b = analyseRunDir(packed);
    assert.ok(a.analysis.tracepoints.grants > 0, "the fixture has grants");
    assert.equal(b.analysis.tracepoints.grants, a.analysis.tracepoints.grants);
    assert.deepEqual(b.analysis.tracepoints.outcomes, a.analysis.tracepoints.outcomes);
    assert.equal(b.analysis.hrtimer.intervals, a.analysis.hrtimer.intervals);
    assert.equal(b.analysis.file, "raw/trace.txt.gz");
    const tf = JSON.parse(readFileSync(join(packed, "analysis.json"), "utf8")).tracefsText;
    assert.ok(tf !== null, "the gzip'd tracefs text is analysed too");
    assert.equal(tf.file, "raw/trace-tracefs.txt.gz");
  } finally {
    rmSync(plain, { recursive: true, force: true });
    rmSync(packed, { recursive: true, force: true });
  }
});
