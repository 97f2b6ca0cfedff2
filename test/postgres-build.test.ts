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

/** pg_stat_get_slice_extension() as an object (patch v2 and v3: counters are a function's row, not a setting). */
async function stats(c: Cluster): Promise<Record<string, number | string | null>> {
  return JSON.parse(await c.query("SELECT row_to_json(s)::text FROM pg_stat_get_slice_extension() s")) as Record<string, number | string | null>;
}

const COUNTER_COLUMNS = [
  "acquires_spinlock",
  "acquires_buffer_header",
  "acquires_wait_list",
  "acquires_lwlock",
  "holds_spinlock",
  "holds_buffer_header",
  "holds_wait_list",
  "holds_lwlock",
  "rearmed",
  "granted_yielded",
  "granted_seen_ended",
  "cleared_without_grant_seen",
  "clear_yields",
  "holds_reset",
];

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
  assert.match(symbols(patched), / T SliceExtRearm$/m);
  assert.match(symbols(patched), / T SliceExtReleaseAll$/m);
  assert.match(symbols(patched), / T SliceExtForkChild$/m);
  assert.match(symbols(patched), / T pg_stat_get_slice_extension$/m);
  assert.doesNotMatch(symbols(baseline), /SliceExt/);
});

test("patched server: the GUC switches with SET and reload; status and counters readable; no kernel support → one log line", async () => {
  await withCluster({ binDir: patched.binDir, name: "t-slice18", settings: { slice_extension: "all" } }, async (c) => {
    assert.equal(await c.query("SHOW slice_extension"), "all");
    assert.equal(await c.query("SELECT context FROM pg_settings WHERE name = 'slice_extension'"), "superuser");
    const status = await c.query("SHOW slice_extension_status");
    const unavailableLines = logSinceStart(c).filter((l) => l.includes("time slice extensions are unavailable"));
    if (!kernelHasFeature) {
      // the real errno, by name and number (v1 printed "succeeded" for anything but EINVAL)
      assert.match(status, /^unavailable: the kernel has no rseq time slice extension \(prctl\(PR_RSEQ_SLICE_EXTENSION_GET\) failed: EINVAL \(errno 22\): the kernel does not know the request\)/);
      assert.equal(unavailableLines.length, 1, "exactly one log line, from the postmaster");
      assert.match(unavailableLines[0]!, /LOG: {2}time slice extensions are unavailable, slice_extension has no effect: the kernel has no rseq/);
    } else {
      // glibc 2.36 registers in legacy mode (__rseq_size 20): the server must say to start it with the tunable
      assert.match(status, /^unavailable: glibc's rseq registration does not cover slice_ctrl \(__rseq_size is \d+\).*GLIBC_TUNABLES=glibc\.pthread\.rseq=0/);
      assert.equal(unavailableLines.length, 1);
    }

    assert.equal(await c.query("SET slice_extension = lwlock; SHOW slice_extension"), "lwlock");
    // on/true/yes/1 mean all (v1 knew only the off spellings)
    for (const v of ["on", "true", "yes", "1"]) assert.equal(await c.query(`SET slice_extension = ${v}; SHOW slice_extension`), "all", v);
    for (const v of ["off", "false", "no", "0"]) assert.equal(await c.query(`SET slice_extension = ${v}; SHOW slice_extension`), "off", v);
    assert.equal(await c.query("SHOW slice_extension"), "all", "SET lasts for its session only");
    await assert.rejects(c.query("SET slice_extension = sometimes"), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, /invalid value for parameter "slice_extension": "sometimes"/);
      assert.match(err.message, /Available values: off, spinlock, lwlock, all, count/);
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

    const before = await stats(c);
    assert.deepEqual(Object.keys(before), [...COUNTER_COLUMNS, "stats_reset"]);
    assert.equal(before.stats_reset, null, "never reset");
    pgbench(c, ["-i", "-s", "1", "-q"]);
    const out = pgbench(c, ["-S", "-c", "4", "-j", "2", "-T", "2"]);
    assert.match(out, /number of failed transactions: 0/);
    const after = await stats(c);
    if (!kernelHasFeature) {
      // unchanged behaviour: the hooks never engaged
      assert.deepEqual(after, before);
      for (const k of COUNTER_COLUMNS) assert.equal(after[k], 0, k);
    }
    for (const kind of ["spinlock", "buffer_header", "wait_list", "lwlock"]) {
      assert.ok((after[`holds_${kind}`] as number) <= (after[`acquires_${kind}`] as number), kind);
    }
    // slice_extension = count: all's bookkeeping on a private word, so it counts without kernel support; nothing granted or yielded
    const c0 = await stats(c);
    await c.query("ALTER SYSTEM SET slice_extension = 'count'");
    await c.query("SELECT pg_reload_conf()");
    for (let i = 0; i < 50 && (await c.query("SHOW slice_extension")) !== "count"; i++) await new Promise((r) => setTimeout(r, 200));
    pgbench(c, ["-S", "-c", "4", "-j", "2", "-T", "2"]);
    const c1 = await stats(c);
    await c.query("ALTER SYSTEM RESET slice_extension");
    await c.query("SELECT pg_reload_conf()");
    for (const k of ["acquires_spinlock", "acquires_buffer_header", "acquires_lwlock", "holds_lwlock"]) assert.ok((c1[k] as number) > (c0[k] as number), `count: ${k} counted`);
    for (const k of ["granted_yielded", "granted_seen_ended", "cleared_without_grant_seen", "clear_yields", "rearmed", "holds_reset"]) assert.equal(c1[k], c0[k], `count: ${k} unchanged`);
    // reset: EXECUTE revoked from PUBLIC in system_functions.sql (no hard-coded superuser check): GRANT lets a role reset
    await c.query("DROP ROLE IF EXISTS t_plain; CREATE ROLE t_plain LOGIN");
    await assert.rejects(c.query("SET ROLE t_plain; SELECT pg_stat_reset_slice_extension()"), /permission denied for function pg_stat_reset_slice_extension/);
    assert.equal(await c.query("SELECT has_function_privilege('public', 'pg_stat_reset_slice_extension()', 'EXECUTE')"), "f");
    await c.query("GRANT EXECUTE ON FUNCTION pg_stat_reset_slice_extension() TO t_plain");
    await c.query("SET ROLE t_plain; SELECT pg_stat_reset_slice_extension()");
    await c.query("REVOKE EXECUTE ON FUNCTION pg_stat_reset_slice_extension() FROM t_plain");
    await c.query("SELECT pg_stat_reset_slice_extension()");
    const reset = await stats(c);
    for (const k of COUNTER_COLUMNS) assert.equal(reset[k], 0, k);
    assert.match(String(reset.stats_reset), /^\d{4}-\d{2}-\d{2}T/);
    await assert.rejects(c.query("SHOW slice_extension_stats"), /unrecognized configuration parameter "slice_extension_stats"/);
  });
});

test("patched server with GLIBC_TUNABLES=glibc.pthread.rseq=0: enabled on a kernel with the feature, else the kernel is named", async (t) => {
  await withCluster(
    { binDir: patched.binDir, name: "t-slice18", settings: { slice_extension: "spinlock" }, env: { GLIBC_TUNABLES: "glibc.pthread.rseq=0" } },
    async (c) => {
      const status = await c.query("SHOW slice_extension_status");
      if (!kernelHasFeature) {
        assert.match(status, /^unavailable: the kernel has no rseq time slice extension/);
        t.skip(`this kernel has no slice extension (AT_RSEQ_FEATURE_SIZE ${auxvFeatureSize()} < 33): the enabled path was not run, only the unavailable status checked`);
        return;
      }
      assert.match(status, /^enabled \(rseq area: its own, 64 bytes\)$/);
      pgbench(c, ["-S", "-c", "4", "-j", "2", "-T", "2"]);
      const s = await stats(c);
      assert.ok((s.holds_spinlock as number) > 0, "spinlock holds counted");
      assert.ok((s.acquires_buffer_header as number) > 0, "buffer header locks covered");
      assert.equal(s.acquires_lwlock, 0, "slice_extension = spinlock asks for nothing around LWLocks");
    },
  );
});

test("patched server with slice_extension = off: probed and registered at startup like the other arms, logged at DEBUG1 only", async () => {
  await withCluster({ binDir: patched.binDir, name: "t-slice18" }, async (c) => {
    assert.equal(await c.query("SHOW slice_extension"), "off");
    const status = await c.query("SHOW slice_extension_status");
    // v1 said "not probed (slice_extension has been off)": its off arm ran without the registration
    if (!kernelHasFeature) assert.match(status, /^unavailable: the kernel has no rseq time slice extension/);
    else assert.match(status, /^(enabled|unavailable: glibc's rseq registration)/);
    assert.equal(logSinceStart(c).filter((l) => l.includes("time slice extensions")).length, 0, "no LOG line when the setting is off");
  });
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
