/**
 * PostgreSQL 18 built from Debian sid's source, unpatched and patched (once;
 * later runs reuse the prefixes), run as real clusters: the GUC switches at
 * runtime, the status and counters are readable from SQL, a kernel without
 * the feature gives one log line and an unchanged server, and the patched
 * build passes the kit's smoke protocol.
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPostgres, traversableByOthers, type BuildResult } from "../src/postgres/build.js";
import { withCluster, type Cluster } from "../src/postgres/cluster.js";
import { patchHash } from "../src/postgres/patch.js";
import { fetchDebianSource } from "../src/postgres/source.js";
import { UserError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

let baseline: BuildResult;
let patched: BuildResult;

before(async () => {
  const src = await fetchDebianSource("18");
  const log = (l: string) => process.stderr.write(`# ${l}\n`);
  baseline = await buildPostgres(src, "baseline", { log });
  patched = await buildPostgres(src, "patched", { log });
});

/** AT_RSEQ_FEATURE_SIZE from this process's auxiliary vector (33 on kernels with slice_ctrl). */
function auxvFeatureSize(): number {
  const buf = readFileSync("/proc/self/auxv");
  for (let off = 0; off + 16 <= buf.length; off += 16) {
    const type = Number(buf.readBigUInt64LE(off));
    if (type === 0) break;
    if (type === 27) return Number(buf.readBigUInt64LE(off + 8));
  }
  return 0;
}
const kernelHasFeature = auxvFeatureSize() >= 33;

const STATS_RE = /^requests=(\d+) spinlock=(\d+) lwlock=(\d+) grants=(\d+) yields=(\d+) revoked=(\d+)$/;

function stats(text: string): Record<string, number> {
  const m = STATS_RE.exec(text);
  assert.ok(m, `slice_extension_stats: ${JSON.stringify(text)}`);
  const [requests, spinlock, lwlock, grants, yields, revoked] = m.slice(1).map(Number) as number[];
  return { requests: requests!, spinlock: spinlock!, lwlock: lwlock!, grants: grants!, yields: yields!, revoked: revoked! };
}

function pgbench(c: Cluster, args: string[]): string {
  const r = spawnSync(join(c.binDir, "pgbench"), ["-h", c.socketDir, "-p", String(c.port), "-U", "slicelab", ...args, "postgres"], {
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `pgbench ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** Log lines written since the last "starting cluster" marker. */
function logSinceStart(c: Cluster): string[] {
  const lines = readFileSync(c.logFile, "utf8").split("\n");
  const start = lines.map((l) => l.includes("----- slicelab: starting cluster")).lastIndexOf(true);
  return lines.slice(start + 1);
}

test("baseline and patched are built from the same source; the record says how", () => {
  assert.equal(baseline.record.sourceKey, patched.record.sourceKey);
  assert.deepEqual(baseline.record.source, patched.record.source);
  assert.equal(baseline.record.patch, null);
  assert.equal(patched.record.patch?.hash, patchHash("18"));
  assert.notEqual(baseline.prefix, patched.prefix);
  // clusters run as the unprivileged user slicelab, who must reach the binaries
  assert.ok(traversableByOthers(patched.binDir), patched.binDir);
  for (const b of [baseline, patched]) {
    const configure = execFileSync(join(b.binDir, "pg_config"), ["--configure"], { encoding: "utf8" });
    assert.match(configure, /'--without-icu' '--without-readline'/);
    assert.match(execFileSync(join(b.binDir, "postgres"), ["--version"], { encoding: "utf8" }), /PostgreSQL\) 18\.\d+/);
  }
  const symbols = (b: BuildResult) => execFileSync("nm", [join(b.binDir, "postgres")], { encoding: "utf8", maxBuffer: 1 << 26 });
  assert.match(symbols(patched), / T SliceExtRelinquish$/m);
  assert.doesNotMatch(symbols(baseline), /SliceExt/);
});

test("patched server: the GUC switches with SET and reload; status and counters readable; no kernel support → one log line", async () => {
  await withCluster({ binDir: patched.binDir, name: "t-slice18", settings: { slice_extension: "all" } }, async (c) => {
    assert.equal(await c.query("SHOW slice_extension"), "all");
    assert.equal(await c.query("SELECT context FROM pg_settings WHERE name = 'slice_extension'"), "superuser");
    const status = await c.query("SHOW slice_extension_status");
    const unavailableLines = logSinceStart(c).filter((l) => l.includes("time slice extensions are unavailable"));
    if (!kernelHasFeature) {
      assert.match(status, /^unavailable: the kernel has no rseq time slice extension \(prctl\(PR_RSEQ_SLICE_EXTENSION\): EINVAL/);
      assert.equal(unavailableLines.length, 1, "exactly one log line, from the postmaster");
      assert.match(unavailableLines[0]!, /LOG: {2}time slice extensions are unavailable, slice_extension has no effect: the kernel has no rseq/);
    } else {
      // glibc 2.36 registers in legacy mode (__rseq_size 20): the server must say to start it with the tunable
      assert.match(status, /^unavailable: glibc's rseq registration does not cover slice_ctrl \(__rseq_size is \d+\).*GLIBC_TUNABLES=glibc\.pthread\.rseq=0/);
      assert.equal(unavailableLines.length, 1);
    }

    assert.equal(await c.query("SET slice_extension = lwlock; SHOW slice_extension"), "lwlock");
    assert.equal(await c.query("SHOW slice_extension"), "all", "SET lasts for its session only");
    await assert.rejects(c.query("SET slice_extension = sometimes"), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, /invalid value for parameter "slice_extension": "sometimes"/);
      assert.match(err.message, /Available values: off, spinlock, lwlock, all/);
      return true;
    });
    await c.query("ALTER SYSTEM SET slice_extension = 'spinlock'");
    await c.query("SELECT pg_reload_conf()");
    let seen = "";
    for (let i = 0; i < 50 && seen !== "spinlock"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      seen = await c.query("SHOW slice_extension");
    }
    assert.equal(seen, "spinlock", "a reload changes it for new sessions");
    await c.query("ALTER SYSTEM RESET slice_extension");
    await c.query("SELECT pg_reload_conf()");

    const before = stats(await c.query("SHOW slice_extension_stats"));
    pgbench(c, ["-i", "-s", "1", "-q"]);
    const out = pgbench(c, ["-S", "-c", "4", "-j", "2", "-T", "2"]);
    assert.match(out, /number of failed transactions: 0/);
    const after = stats(await c.query("SHOW slice_extension_stats"));
    if (!kernelHasFeature) {
      // unchanged behaviour: the hooks never engaged
      assert.deepEqual(after, before);
      assert.equal(after.requests, 0);
    }
    assert.equal(after.requests, after.spinlock + after.lwlock);
    assert.ok(after.yields <= after.grants);
  });
});

test("patched server with GLIBC_TUNABLES=glibc.pthread.rseq=0: enabled on a kernel with the feature, else the kernel is named", async () => {
  await withCluster(
    { binDir: patched.binDir, name: "t-slice18", settings: { slice_extension: "spinlock" }, env: { GLIBC_TUNABLES: "glibc.pthread.rseq=0" } },
    async (c) => {
      const status = await c.query("SHOW slice_extension_status");
      if (!kernelHasFeature) {
        assert.match(status, /^unavailable: the kernel has no rseq time slice extension/);
        return;
      }
      assert.match(status, /^enabled \(rseq area: its own, 64 bytes\)$/);
      pgbench(c, ["-S", "-c", "4", "-j", "2", "-T", "2"]);
      const s = stats(await c.query("SHOW slice_extension_stats"));
      assert.ok(s.spinlock > 0, "spinlock requests counted");
      assert.equal(s.lwlock, 0, "slice_extension = spinlock asks for nothing around LWLocks");
    },
  );
});

test("the baseline server knows no slice_extension", async () => {
  await withCluster({ binDir: baseline.binDir, name: "t-base18" }, async (c) => {
    await assert.rejects(c.query("SHOW slice_extension"), /unrecognized configuration parameter "slice_extension"/);
  });
});

test("the patched build passes the smoke protocol (slicelab bench run smoke)", () => {
  const out = mkdtempSync(join(tmpdir(), "slicelab-smoke-"));
  try {
    const r = spawnSync(
      process.execPath,
      [join(repoRoot(), "bin", "slicelab.js"), "bench", "run", "smoke", "--variant", `patched=bin=${patched.binDir},setting:slice_extension=all`, "--runs", "1", "--warmup", "0", "--out", out, "--json"],
      { encoding: "utf8", timeout: 600_000 },
    );
    assert.equal(r.status, 0, `bench run smoke: ${r.stderr.slice(-2000)}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
