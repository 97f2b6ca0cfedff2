// The harness records what our PostgreSQL patch says about the time slice extension around every
// workload (setting, status, counter changes), so a series can show whether the mechanism engaged.
// What the patched server must say follows from the kit's slice-extension probe (src/vm/slice-probe.c)
// run on this host first: where the probe finds the extension unusable, "unavailable" and no grants;
// where it finds it usable, "enabled". An unpatched server has no such record.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, workDir } from "../src/util/paths.js";
import { parseSliceCounters } from "../src/bench/series.js";
import { buildProbe, parseProbeOutput } from "../src/vm/probe.js";
import { expectedSliceStatus } from "../src/record/provenance.js";

const cli = join(repoRoot(), "bin", "slicelab.js");
const prefix = `tslice${process.pid}`;
const out = mkdtempSync(join(tmpdir(), "slicelab-slice-"));
after(() => {
  rmSync(out, { recursive: true, force: true });
  if (existsSync(join(workDir(), "clusters"))) for (const d of readdirSync(join(workDir(), "clusters"))) if (d.startsWith(`${prefix}-`)) rmSync(join(workDir(), "clusters", d), { recursive: true, force: true });
});

test("parseSliceCounters reads the patch's counter line", () => {
  assert.deepEqual(parseSliceCounters("requests=12 spinlock=10 lwlock=2 grants=3 yields=1 revoked=0"), {
    requests: 12, spinlock: 10, lwlock: 2, grants: 3, yields: 1, revoked: 0,
  });
  assert.deepEqual(parseSliceCounters(""), {});
});

test("expectedSliceStatus: enabled where the probe could switch the extension on, unavailable where not", () => {
  const probe = (text: string) => parseProbeOutput(text, "probe");
  const base = "kernel_release=7.2.13\nauxv_rseq_feature_size=33\nglibc_rseq_size=32\nprctl_get_before=0\n";
  const own = base.replace("glibc_rseq_size=32", "glibc_rseq_size=0");
  assert.deepEqual(expectedSliceStatus(probe(`${own}prctl_set=ok\nprctl_get_after=1\n`)), { status: /^enabled/, grantsMayBeNonzero: true });
  assert.deepEqual(expectedSliceStatus(probe(`${own.replace("glibc_rseq_size=0", "glibc_rseq_size=33")}prctl_set=ok\nprctl_get_after=1\n`)).status, /^enabled/);
  // A 7.x kernel, but glibc 2.36's 32-byte registration: the probe re-registers, the server cannot.
  assert.deepEqual(expectedSliceStatus(probe(`${base}prctl_set=ok\nprctl_get_after=1\n`)).status, /^unavailable: glibc's rseq registration does not cover slice_ctrl/);
  assert.deepEqual(expectedSliceStatus(probe(`${own}prctl_set=ENOTSUPP\nprctl_get_after=0\n`)), { status: /^unavailable/, grantsMayBeNonzero: false });
  assert.deepEqual(expectedSliceStatus(probe("kernel_release=6.18\nauxv_rseq_feature_size=32\nglibc_rseq_size=32\nprctl_get_before=EINVAL\n")), {
    status: /^unavailable: the kernel has no rseq time slice extension/,
    grantsMayBeNonzero: false,
  });
});

test("bench run with the patched server: every workload records slice_extension setting, status and counter changes", { timeout: 3_600_000 }, async (t) => {
  // What this host offers, from the probe (not from what we believe the host to be).
  const probeBin = await buildProbe();
  const pr = spawnSync(probeBin, [], { encoding: "utf8" });
  const expected = expectedSliceStatus(parseProbeOutput(pr.stdout, probeBin));
  t.diagnostic(`probe: ${pr.stdout.split("\n").filter((l) => /^(kernel_release|prctl_set|prctl_get_after)=/.test(l)).join(" ")} → expect ${expected.status}`);
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
      assert.match(w.sliceExtension.status, expected.status, w.sliceExtension.status);
      // patch v3's pg_stat_get_slice_extension() columns (v2's granted_expired is v3's granted_seen_ended), read through the same k=v text
      const d = w.sliceExtension.countersDelta;
      assert.ok("granted_yielded" in d && "granted_seen_ended" in d && "acquires_lwlock" in d, JSON.stringify(d));
      if (!expected.grantsMayBeNonzero) {
        assert.equal(d.granted_yielded, 0);
        assert.equal(d.granted_seen_ended, 0);
        assert.equal(d.acquires_lwlock, 0, "the hooks never engaged");
      } else {
        assert.ok(d.acquires_lwlock! > 0, `${w.workload}: the enabled patch counted acquires: ${JSON.stringify(d)}`);
      }
    }
  }
});
