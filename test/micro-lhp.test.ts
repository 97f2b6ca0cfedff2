/**
 * The lock-holder-preemption micro-benchmark: compiled with the real cc, run
 * through the CLI, its JSON checked for shape and internal consistency (no
 * timing assertions: the machine is shared), and the --extension on path
 * checked against what this kernel's auxiliary vector says it supports.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpus } from "node:os";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildMicro, parseMicroOutput, type MicroRun } from "../src/micro/driver.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const CLI = join(repoRoot(), "bin", "slicelab.js");

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** AT_RSEQ_FEATURE_SIZE (27) from this process's auxiliary vector, or 0 when absent. */
function auxvFeatureSize(): number {
  const buf = readFileSync("/proc/self/auxv");
  for (let off = 0; off + 16 <= buf.length; off += 16) {
    const type = Number(buf.readBigUInt64LE(off));
    if (type === 0) break;
    if (type === 27) return Number(buf.readBigUInt64LE(off + 8));
  }
  return 0;
}

function checkResults(r: MicroRun): NonNullable<MicroRun["results"]> {
  assert.ok(r.results, "results");
  const x = r.results;
  assert.ok(x.criticalSections > 0);
  assert.ok(Math.abs(x.throughputPerS - x.criticalSections / x.elapsedS) / x.throughputPerS < 1e-3, "throughput = sections / elapsed");
  if (x.holdNs) {
    assert.ok(x.holdNs.p50 <= x.holdNs.p99 && x.holdNs.p99 <= x.holdNs.p999, "percentiles in order");
    assert.ok(x.holdNs.p999 <= x.holdNs.max * 1.07, "p99.9 within the histogram's resolution of max");
  }
  // More runnable threads than CPUs for the whole run: the scheduler must have preempted someone.
  // (A count that is never filled in, or read from the wrong rusage field, stays 0 and fails.)
  if (r.config.threads + r.config.hogs > cpus().length) {
    assert.ok(x.involuntaryCtxSwitches.workers + x.involuntaryCtxSwitches.hogs > 0, `no involuntary switch with ${r.config.threads} threads + ${r.config.hogs} hogs on ${cpus().length} CPUs`);
  }
  return x;
}

test("micro run --extension off: JSON with throughput, hold-time percentiles and no extension traffic", () => {
  const r = cli(["micro", "run", "--threads", "2", "--hogs", "1", "--cs-ns", "500", "--duration", "1", "--extension", "off", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const run = JSON.parse(r.stdout) as MicroRun;
  assert.deepEqual(Object.keys(run), ["program", "version", "config", "feature", "results", "kernelStats", "binary", "env"]);
  assert.deepEqual(run.config, {
    threads: 2, hogs: 1, csNs: 500, thinkNs: 500, durationS: 1, extension: "off", holdTimes: true,
    requestProtocol: 2, backoff: "spin", innerLocks: 0, jitterPct: 0, seed: 1, faultInCs: null, pinnedCpus: null,
  });
  assert.equal(run.feature.available, null);
  const x = checkResults(run);
  assert.ok(x.holdNs);
  assert.equal(x.requests, 0);
  assert.equal(x.grants + x.yields + x.revoked, 0);
  // issue 13: every arm runs with the same environment (and so the same rseq registration)
  assert.deepEqual(run.env, { GLIBC_TUNABLES: "glibc.pthread.rseq=0" });
  assert.ok(x.waitNs && x.waitNs.p50 <= x.waitNs.p90 && x.waitNs.p90 <= x.waitNs.p99 && x.waitNs.p99 <= x.waitNs.p999, "wait percentiles in order");
  assert.ok(x.hogs.loops > 0 && x.hogs.workNs > 0, "the hog's work is reported");
});

test("micro run: off, simulate and on arms get the same environment and the same rseq registration", () => {
  const runs = ["off", "simulate", "none"].map((ext) => {
    const r = cli(["micro", "run", "--threads", "1", "--duration", "0.2", "--extension", ext, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as MicroRun;
  });
  for (const run of runs) {
    assert.deepEqual(run.env, runs[0]!.env, `${run.config.extension}: same env as off`);
    assert.equal(run.feature.registered, runs[0]!.feature.registered, `${run.config.extension}: same registration`);
    assert.equal(run.feature.glibcRseqSize, 0, "glibc's own registration is off in every arm");
  }
  // on this host's kernel (rseq present) each thread registers its own area in every arm
  assert.equal(runs[0]!.feature.registered, true);
});

test("micro run --fault-in-cs: each fresh page touched inside a section is one worker minor fault; --prefault removes them", () => {
  const r = cli(["micro", "run", "--threads", "2", "--cs-ns", "200", "--duration", "0.3", "--fault-in-cs", "--region-mib", "8", "--fault-every", "2", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const run = JSON.parse(r.stdout) as MicroRun;
  assert.deepEqual(run.config.faultInCs, { pages: "4k", faultEvery: 2, regionMiB: 8, prefault: false });
  const f = run.results!.faults;
  assert.ok(f.freshPagesTouched > 0 && f.freshPagesTouched <= 2048);
  // the loop touches new memory only in sections: faults ≈ fresh pages (a few for the stack/TLS at most)
  assert.ok(f.workerMinor >= f.freshPagesTouched && f.workerMinor <= f.freshPagesTouched + 16, `minor ${f.workerMinor} vs touched ${f.freshPagesTouched}`);
  assert.equal(f.hugeKiBMapped, 0);
  const p = cli(["micro", "run", "--threads", "2", "--cs-ns", "200", "--duration", "0.3", "--fault-in-cs", "--region-mib", "8", "--fault-every", "2", "--prefault", "--json"]);
  assert.equal(p.code, 0, p.stderr);
  const pf = (JSON.parse(p.stdout) as MicroRun).results!.faults;
  assert.ok(pf.freshPagesTouched > 0);
  assert.ok(pf.workerMinor <= 16, `pre-faulted: ${pf.workerMinor} worker faults`);
});

test("micro run --backoff slock and --hold-log: the mode is recorded, holds are logged in the holder-trace format", async () => {
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "lhp-"));
  const log = join(dir, "holds.txt");
  const r = cli(["micro", "run", "--threads", "3", "--hogs", "1", "--cs-ns", "2000", "--duration", "0.3", "--backoff", "slock", "--jitter-pct", "30", "--seed", "7", "--hold-log", log, "--log-min-ns", "0", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const run = JSON.parse(r.stdout) as MicroRun;
  assert.equal(run.config.backoff, "slock");
  assert.equal(run.config.jitterPct, 30);
  const lines = readFileSync(log, "utf8").split("\n").filter((l) => l !== "");
  assert.match(lines[0]!, /^# slicelab-lhp hold log v1: .*holds >= 0 ns/);
  const workers = lines.filter((l) => l.startsWith("# worker "));
  assert.equal(workers.length, 3);
  const logged = workers.reduce((a, l) => a + Number(/logged (\d+)/.exec(l)![1]), 0);
  const lost = workers.reduce((a, l) => a + Number(/lost (\d+)/.exec(l)![1]), 0);
  assert.equal(logged + lost, run.results!.criticalSections, "with --log-min-ns 0 every hold is logged or counted lost");
  assert.equal(lines.filter((l) => !l.startsWith("#")).length, logged);
  const bad = cli(["micro", "run", "--backoff", "never"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--backoff: expected spin or slock, found "never"/);
  const orphan = cli(["micro", "run", "--pages", "hugetlb"]);
  assert.equal(orphan.code, 2);
  assert.match(orphan.stderr, /go with --fault-in-cs/);
});

test("micro run --extension simulate: one request per critical section, never a grant", () => {
  const r = cli(["micro", "run", "--threads", "1", "--cs-ns", "0", "--think-ns", "0", "--duration", "0.5", "--extension", "simulate", "--no-hold-times", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const run = JSON.parse(r.stdout) as MicroRun;
  const x = checkResults(run);
  assert.equal(x.holdNs, null);
  assert.equal(x.requests, x.criticalSections);
  assert.equal(x.grants, 0);
  assert.equal(x.yields, 0);
});

test("micro run --extension on: works, or says why not in the terms of this kernel", () => {
  const r = cli(["micro", "run", "--threads", "2", "--hogs", "2", "--cs-ns", "1000", "--duration", "1", "--extension", "on", "--json"]);
  const run = JSON.parse(r.stdout) as MicroRun;
  assert.deepEqual(run.env, { GLIBC_TUNABLES: "glibc.pthread.rseq=0" });
  assert.equal(run.feature.auxvFeatureSize, auxvFeatureSize(), "the program reads the same auxv entry");
  if (auxvFeatureSize() < 33) {
    // a kernel without slice_ctrl in struct rseq (e.g. 6.x): prctl option 79 is unknown → EINVAL
    assert.equal(r.code, 3);
    assert.equal(run.feature.available, false);
    assert.equal(run.feature.error, "EINVAL");
    assert.match(run.feature.reason ?? "", /CONFIG_RSEQ_SLICE_EXTENSION/);
    assert.equal(run.results, null);
    const plain = cli(["micro", "run", "--duration", "0.2", "--extension", "on"]);
    assert.equal(plain.code, 3);
    assert.match(plain.stderr, /time slice extension unavailable: prctl\(PR_RSEQ_SLICE_EXTENSION, GET\) failed with EINVAL/);
  } else {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(run.feature.available, true);
    const x = checkResults(run);
    assert.equal(x.requests, x.criticalSections);
    assert.ok(x.yields <= x.grants);
  }
});

test("micro run rejects bad options with the option's name", () => {
  const r = cli(["micro", "run", "--extension", "maybe"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--extension: expected off, on, simulate or none, found "maybe"/);
  const t = cli(["micro", "run", "--threads", "0"]);
  assert.equal(t.code, 2);
  assert.match(t.stderr, /--threads: expected an integer ≥ 1, found 0/);
});

test("parseMicroOutput names the bad field", async () => {
  await buildMicro();
  assert.throws(() => parseMicroOutput("not json", "x"), ParseError);
  assert.throws(
    () => parseMicroOutput(JSON.stringify({ program: "slicelab-lhp", version: 1, config: { threads: 1, hogs: 0, csNs: 1, thinkNs: 1, durationS: 1 }, feature: {}, results: { criticalSections: "many" } }), "y"),
    (err: unknown) => err instanceof ParseError && /a number at criticalSections/.test(err.message),
  );
});
