// `slicelab bundle dipietro-2026-metal` (issue 25 item 1, the PostgreSQL part): a small bundle of the
// baseline and patched PostgreSQL 18 builds (with their libraries and loader) is built, extracted and
// run natively on this host under an empty environment with a PATH of sh and coreutils only (no node,
// npm, cc, tar, python3), interrupted with SIGINT after its first run (the cluster stopped) and resumed,
// imported into a temporary runs root, and the record checked: tps rows per
// planned run through the runner's series reduction, the patch version, the environment (real time,
// the reference path on this kernel), the bundled glibc. run.sh's refusals for the cluster user are
// checked with one line each. Tests never write into data/ or the working tree.
import { studyReport } from "../src/report/study.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeBundle } from "../src/bundle/make.js";
import { importResults } from "../src/bundle/import.js";
import { cachedBuild, wrapper } from "../src/bundle/postgres.js";
import { readRecord } from "../src/record/format.js";
import { seriesRows, readRunResult } from "../src/bench/series.js";
import { patchHash } from "../src/postgres/patch.js";
import { patchVersionOf, patchVersionOfField } from "../src/postgres/patch-version.js";

/** sh and coreutils (and grep, sed, gzip, mount): what run.sh may assume. */
const TOOLS = ["sh", "cat", "cp", "cut", "date", "df", "dirname", "echo", "env", "grep", "gzip", "head", "id", "ls", "mkdir", "mount", "umount", "mv", "nproc", "printf", "pwd", "rm", "rmdir", "sed", "sha256sum", "sleep", "tail", "tr", "uname", "zcat", "wc", "basename", "true", "false", "test", "chroot", "chown", "chmod", "mktemp"];

function bareBin(dir: string): string {
  const bin = join(dir, "bin-bare");
  mkdirSync(bin);
  for (const t of TOOLS) {
    const p = spawnSync("sh", ["-c", `command -v ${t}`], { encoding: "utf8" }).stdout.trim();
    if (p.startsWith("/")) symlinkSync(p, join(bin, t));
  }
  return bin;
}

const why = (): string | null => {
  if (process.getuid?.() !== 0) return "not root: run.sh needs root (the clusters run as an unprivileged user it switches to)";
  for (const v of ["baseline", "patched"] as const) if (!cachedBuild(v)) return `the ${v} PostgreSQL 18 build is absent (slicelab prepare test makes it)`;
  if (spawnSync("sh", ["-c", "id -u slicelab || id -u nobody"]).status !== 0) return "neither user slicelab nor nobody exists";
  return null;
};

test("a program's wrapper runs the real one through the bundled loader with argv[0] in bin/", () => {
  const w = wrapper("pgbench");
  assert.equal(spawnSync("sh", ["-n", "-c", w]).status, 0);
  assert.match(w, /exec "\$d\/\.\.\/\.\.\/sys\/ld-linux-x86-64\.so\.2" --library-path "\$d\/\.\.\/lib:\$d\/\.\.\/\.\.\/sys" --argv0 "\$d\/pgbench" "\$d\/\.\.\/libexec\/pgbench" "\$@"/);
});

test("a PostgreSQL bundle runs natively with nothing but sh and coreutils and imports into a record with tps rows", async (t) => {
  const skip = why();
  if (skip) return t.skip(skip);
  const tmp = mkdtempSync(join(tmpdir(), "slicelab-bundle-pg-test-"));
  chmodSync(tmp, 0o755); // the cluster user must reach the bundle and the results
  try {
    const b = await makeBundle({ study: "dipietro-2026-metal", out: join(tmp, "b.tar.gz"), blocks: 2, params: { scale: "1", duration: "2" } });
    assert.ok(b.bytes < 64 * 1024 * 1024, `bundle ${b.bytes} bytes`);
    const ex = join(tmp, "ex");
    mkdirSync(ex, { mode: 0o755 });
    assert.equal(spawnSync("tar", ["-C", ex, "-xzf", b.path]).status, 0);
    const root = join(ex, b.name);
    for (const v of ["baseline", "patched"]) for (const f of ["bin/postgres", "libexec/pgbench", "lib/plpgsql.so", "share/postgres.bki"]) assert.ok(existsSync(join(root, "pg", v, f)), `pg/${v}/${f}`);
    for (const f of ["ld-linux-x86-64.so.2", "libc.so.6"]) assert.ok(existsSync(join(root, "pg", "sys", f)), `pg/sys/${f}`);
    const bin = bareBin(tmp);
    const env = { PATH: bin };
    for (const tool of ["node", "npm", "cc", "gcc", "tar", "python3", "su", "runuser", "setpriv"]) {
      assert.notEqual(spawnSync("sh", ["-c", `command -v ${tool}`], { env, encoding: "utf8" }).status, 0, `${tool} is reachable from the bare PATH`);
    }
    // The cluster user's refusals: one line each, exit 3, nothing run.
    const refuse = (extra: Record<string, string>, args: string[], re: RegExp) => {
      const r = spawnSync("sh", [join(root, "run.sh"), ...args], { env: { ...env, ...extra }, encoding: "utf8" });
      assert.equal(r.status, 3, r.stdout + r.stderr);
      assert.match(r.stderr.trim(), re);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    };
    refuse({ SLICELAB_PG_USER: "root" }, ["--check"], /^run\.sh: refused: SLICELAB_PG_USER=root is root \(uid 0\), which PostgreSQL refuses/);
    refuse({ SLICELAB_PG_USER: "no-such-user-slicelab" }, ["--check"], /^run\.sh: refused: no user no-such-user-slicelab for the PostgreSQL clusters .*creates no user/);
    const closed = join(tmp, "closed");
    mkdirSync(closed, { mode: 0o700 });
    refuse({}, ["--check", "--out", join(closed, "r")], /^run\.sh: refused: user \S+ cannot write .*closed\/r\/clusters/);

    const out = join(tmp, "results");
    // First session: Ctrl-C (SIGINT to the process group) once the first run is done; the cluster is stopped.
    const first = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const p = spawn("sh", [join(root, "run.sh"), "--budget", "600", "--out", out], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      let text = "";
      let sent = false;
      const on = (d: Buffer) => {
        text += d.toString();
        if (!sent && /run 001-\S+ done/.test(text)) {
          sent = true;
          process.kill(-p.pid!, "SIGINT");
        }
      };
      p.stdout.on("data", on);
      p.stderr.on("data", on);
      p.on("close", (code) => resolve({ code, text }));
    });
    assert.match(first.text, /run 001-\S+ done \(1\/4, block 1, .* ETA \d+ s\)/, "a progress line per run with an ETA");
    assert.match(first.text, /interrupted: run the same command again to resume/, first.text);
    for (const d of readdirSync(join(out, "clusters"))) {
      const pidFile = join(out, "clusters", d, "data", "postmaster.pid");
      assert.ok(!existsSync(pidFile), `the ${d} cluster was stopped at the interrupt`);
    }
    const run = spawnSync("sh", [join(root, "run.sh"), "--budget", "600", "--out", out], { env, encoding: "utf8" });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /run 001-\S+ done before \(resumed\)/);
    const res = JSON.parse(readFileSync(join(out, "RESULTS.json"), "utf8"));
    assert.equal(res.path, "reference", "this host's kernel has no slice extension");
    assert.equal(res.complete, true);
    assert.equal(res.session, 2, "two sessions: interrupted, resumed");
    assert.equal(res.runsWithStatus, res.plannedRuns);
    assert.deepEqual(readdirSync(join(out, "clusters")).filter((d) => existsSync(join(out, "clusters", d, "data"))), [], "the clusters' data removed once the plan is complete");
    assert.ok(readFileSync(join(out, "clusters", "patched", "postgres.log"), "utf8").includes("database system is ready"), "the patched server's log is kept");

    const runsRoot = join(tmp, "runs");
    const imp = importResults(out, { runsRoot, study: "dipietro-2026-metal", render: studyReport });
    const rec = readRecord(imp.dir);
    const e = rec.environment as { kind: string; detail: string; setting: string; timing: string };
    assert.equal(e.timing, "real");
    assert.match(e.setting, /^(bare metal|virtual machine|sandbox)$/);
    assert.match(e.detail, /the bundle's reference path, plan cur-noext/);
    assert.match(String(rec.kernel.sliceExtension), /^unavailable: prctl/);
    const want = patchVersionOf(patchHash("18"));
    assert.ok(want, "the current patch has a version in versions.json");
    assert.equal(patchVersionOfField(rec.postgres.patch).version, want, `patch stated: ${JSON.stringify(rec.postgres.patch)}`);
    assert.match(String(rec.postgres.patch), /baseline: none \(unpatched\)/);
    assert.match(String(rec.glibc), /^glibc \d+\.\d+, bundled/);
    const rows = seriesRows(join(imp.dir, "series"));
    assert.equal(rows.length, res.plannedRuns, "a tps row for every planned run");
    for (const r of rows) assert.ok(r.tps > 0, `${r.id}: tps ${r.tps}`);
    assert.deepEqual([...new Set(rows.map((r) => r.variant))].sort(), ["build-baseline.mode-current.extension-off", "build-patched.mode-current.extension-off"]);
    const patchedRun = rows.find((r) => r.variant.startsWith("build-patched"))!;
    const pr = readRunResult(join(imp.dir, "series"), patchedRun.id)!;
    assert.equal(pr.workloads[0]!.sliceExtension?.setting, "off");
    assert.match(pr.workloads[0]!.sliceExtension?.status ?? "", /^unavailable/);
    assert.ok(Object.keys(pr.workloads[0]!.sliceExtension?.countersDelta ?? {}).length > 0, "the patch's counters read before and after");
    const base = readRunResult(join(imp.dir, "series"), rows.find((r) => r.variant.startsWith("build-baseline"))!.id)!;
    assert.equal(base.workloads[0]!.sliceExtension, undefined, "the unpatched server has no patch counters");
    const analysis = JSON.parse(readFileSync(join(imp.dir, "analysis.json"), "utf8"));
    assert.equal(analysis.study, "dipietro-2026-metal");
    assert.ok(analysis.contrasts.some((c: { factor: string; a: string; b: string }) => c.factor === "build" && c.a === "baseline" && c.b === "patched"), "the reference plan's contrast is analysed");
    assert.equal(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: imp.dir }).status, 0, "the record's SHA256SUMS holds");
    assert.throws(() => importResults(out, { runsRoot, render: studyReport }), /already exists/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
