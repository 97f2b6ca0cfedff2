/**
 * PostgreSQL 15 (Debian bookworm's source) built patched by the kit the same way as 18
 * (`slicelab postgres build --version 15`; `slicelab prepare test` makes it once), run as a real
 * cluster with slice_extension = all: the GUC, the status line and the v2 counter function exist
 * and read, and on a kernel without the feature the status names the errno.
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildPostgres, traversableByOthers, type BuildResult } from "../src/postgres/build.js";
import { withCluster } from "../src/postgres/cluster.js";
import { patchHash } from "../src/postgres/patch.js";
import { fetchDebianSource } from "../src/postgres/source.js";

let patched: BuildResult;

before(async () => {
  const src = await fetchDebianSource("15");
  patched = await buildPostgres(src, "patched", { log: (l) => process.stderr.write(`# ${l}\n`) });
});

function auxvFeatureSize(): number {
  const buf = readFileSync("/proc/self/auxv");
  for (let off = 0; off + 16 <= buf.length; off += 16) {
    const type = Number(buf.readBigUInt64LE(off));
    if (type === 0) break;
    if (type === 27) return Number(buf.readBigUInt64LE(off + 8));
  }
  return 0;
}

test("the 15 patched build: version 15, the v2 patch's hash, the hooks linked in, reachable by the cluster user", () => {
  assert.equal(patched.record.major, "15");
  assert.equal(patched.record.patch?.hash, patchHash("15"));
  assert.match(patched.record.source.kind === "debian" ? patched.record.source.package : "", /^postgresql-15$/);
  assert.ok(traversableByOthers(patched.binDir), patched.binDir);
  assert.match(execFileSync(join(patched.binDir, "postgres"), ["--version"], { encoding: "utf8" }), /PostgreSQL\) 15\.\d+/);
  const nm = execFileSync("nm", [join(patched.binDir, "postgres")], { encoding: "utf8", maxBuffer: 1 << 26 });
  assert.match(nm, / T SliceExtRearm$/m);
  assert.match(nm, / T pg_stat_get_slice_extension$/m);
});

test("a 15 cluster with slice_extension = all: status with the errno, counters as one row, reset works", async () => {
  await withCluster({ binDir: patched.binDir, name: "pg15-v2", settings: { slice_extension: "all" }, env: { GLIBC_TUNABLES: "glibc.pthread.rseq=0" } }, async (c) => {
    assert.equal(await c.query("SHOW slice_extension"), "all");
    const status = await c.query("SHOW slice_extension_status");
    if (auxvFeatureSize() >= 33) assert.match(status, /^enabled/);
    else assert.match(status, /^unavailable: the kernel has no rseq time slice extension \(prctl\(PR_RSEQ_SLICE_EXTENSION_GET\) failed: EINVAL \(errno 22\)/);
    const row = JSON.parse(await c.query("SELECT row_to_json(s)::text FROM pg_stat_get_slice_extension() s")) as Record<string, unknown>;
    for (const k of ["acquires_spinlock", "acquires_buffer_header", "acquires_wait_list", "acquires_lwlock", "holds_lwlock", "rearmed", "granted_yielded", "granted_seen_ended", "cleared_without_grant_seen", "clear_yields", "holds_reset"]) {
      assert.equal(typeof row[k], "number", `${k} in ${JSON.stringify(row)}`);
    }
    await c.query("SELECT pg_stat_reset_slice_extension()");
    assert.equal(await c.query("SET slice_extension = on; SHOW slice_extension"), "all");
  });
});
