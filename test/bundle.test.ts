// `slicelab bundle` and `slicelab import` (issue 25): a small bundle built, extracted and run
// natively on this host with a PATH that holds only sh, coreutils, grep, sed, gzip and mount (no
// node, npm or cc) and an empty environment; its results imported into a temporary runs root and
// the record checked; interrupted and resumed; and every kind of bad input refused with one line
// and nothing written. Tests never write into data/ or the working tree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync, cpSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeBundle } from "../src/bundle/make.js";
import { runScript } from "../src/bundle/run-sh.js";
import { machineSetting, statTotals } from "../src/bundle/machine.js";
import { importResults } from "../src/bundle/import.js";
import { readRecord } from "../src/record/format.js";
import { defaultShape, guestMechanismScript, planRuns } from "../src/drivers/mechanism/index.js";
import { UserError } from "../src/util/errors.js";

/** The tools a bare machine is promised to have: POSIX sh, coreutils, grep, sed, gzip, mount. */
const TOOLS = ["sh", "cat", "cp", "cut", "date", "df", "dirname", "echo", "env", "grep", "gzip", "head", "id", "ls", "mkdir", "mount", "umount", "mv", "nproc", "printf", "pwd", "rm", "rmdir", "sed", "sha256sum", "sleep", "tail", "tr", "uname", "zcat", "wc", "basename", "true", "false", "test"];

function bareBin(dir: string): string {
  const bin = join(dir, "bin-bare");
  mkdirSync(bin);
  for (const t of TOOLS) {
    const p = spawnSync("sh", ["-c", `command -v ${t}`], { encoding: "utf8" }).stdout.trim();
    if (p.startsWith("/")) symlinkSync(p, join(bin, t));
  }
  return bin;
}

const canRunNatively = (): string | null => {
  if (process.getuid?.() !== 0) return "not root: run.sh needs root for tracefs";
  if (!existsSync("/sys/kernel/tracing/instances")) return "tracefs is not mounted at /sys/kernel/tracing (scripts/setup.sh tracefs mounts it)";
  return null;
};

test("run.sh and the resumable plan script are valid sh; the plan script skips done runs and stops at a block the budget cannot hold", () => {
  const plan = planRuns({ blocks: 2, modes: ["current"], pages: ["4k", "hugetlb"], extensions: ["off"], seed: 1 });
  const script = guestMechanismScript({ lhp: "bin/lhp", lhpFromEnv: true, runs: plan, shape: defaultShape(), bufferKb: 64, host: true, resume: true });
  assert.equal(spawnSync("sh", ["-n", "-c", script]).status, 0);
  assert.match(script, /if \[ -f "\$R\/status" \]; then SL_DONE=/, "a run with a status is skipped");
  assert.match(script, /SL_PER_BLOCK=2;/, "two runs per block");
  assert.match(script, /"\$SLICELAB_LHP"/, "the micro-benchmark's path comes from the environment");
  assert.doesNotMatch(guestMechanismScript({ lhp: "/x/lhp", runs: plan, shape: defaultShape(), bufferKb: 64 }), /SL_PER_BLOCK/, "the VM's script is not resumable");
  const sh = runScript({ format: 1, id: "0123456789abcdef", study: "mechanism-micro", title: "t", made: { kitCommit: "abcdef0123456789", dirty: false, at: "2026-12-04T00:00:00Z", host: "h" }, micro: { sourceSha256: "x", static: true }, probe: { sourceSha256: "y", static: true }, shape: defaultShape(), seed: 1, plans: [{ name: "cur-noext", modes: ["current"], pages: ["4k"], extensions: ["off"], blocks: 1, runs: 1, perBlock: 1 }], hugePages: 0, memoryKiB: 1024, diskKiB: 1024, estimateRunS: 3, files: [] });
  assert.equal(spawnSync("sh", ["-n", "-c", sh]).status, 0);
  const bad = spawnSync("sh", ["-c", sh, "run.sh", "--budget", "soon"], { encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--budget expects whole seconds, found "soon"/);
});

test("machineSetting: gVisor, a Firecracker VM and bare metal are told apart; statTotals reads steal", () => {
  assert.equal(machineSetting({ hypervisorFlag: "no", virtualisation: "", dmesgHead: "[    0.000000] Starting gVisor...", procVersion: "Linux version 4.4.0" }).kind, "sandbox");
  const fc = machineSetting({ hypervisorFlag: "yes\n", virtualisation: "", dmesgHead: "[    0.000000] Linux version 6.18.44-fc-v1252 (builder@sandboxing)", procVersion: null });
  assert.equal(fc.kind, "virtual machine");
  assert.match(fc.label, /Firecracker/);
  assert.equal(machineSetting({ hypervisorFlag: "no", virtualisation: "/sys/class/dmi/id/sys_vendor: Dell Inc.", dmesgHead: "", procVersion: "" }).kind, "bare metal");
  assert.deepEqual(statTotals("cpu  100 0 50 800 10 5 5 30 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n", "s"), { total: 1000, steal: 30 });
  assert.throws(() => statTotals("intr 1 2\n", "/x/stat-before.1"), /\/x\/stat-before\.1:1: expected a "cpu " line/);
});

test("a bundle runs natively with nothing but sh and coreutils, resumes after an interrupt, and imports into a record", async (t) => {
  const why = canRunNatively();
  if (why) return t.skip(why);
  const tmp = mkdtempSync(join(tmpdir(), "slicelab-bundle-test-"));
  try {
    const b = await makeBundle({ study: "mechanism-micro", out: join(tmp, "b.tar.gz"), blocks: 2, shape: { durationS: 0.25, regionMiB: 64 } });
    assert.ok(b.bytes < 64 * 1024 * 1024, `bundle ${b.bytes} bytes`);
    const ex = join(tmp, "ex");
    mkdirSync(ex);
    assert.equal(spawnSync("tar", ["-C", ex, "-xzf", b.path]).status, 0);
    const root = join(ex, b.name);
    const bin = bareBin(tmp);
    const env = { PATH: bin };
    for (const tool of ["node", "npm", "cc", "gcc", "tar", "python3"]) {
      assert.notEqual(spawnSync("sh", ["-c", `command -v ${tool}`], { env, encoding: "utf8" }).status, 0, `${tool} is reachable from the bare PATH`);
    }
    const out = join(tmp, "results");
    // First session: interrupted (SIGINT to the process group, as Ctrl-C) once a run has finished.
    const first = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const p = spawn("sh", [join(root, "run.sh"), "--budget", "600", "--out", out], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      let text = "";
      let sent = false;
      const on = (d: Buffer) => {
        text += d.toString();
        if (!sent && /run 001 done/.test(text)) {
          sent = true;
          process.kill(-p.pid!, "SIGINT");
        }
      };
      p.stdout.on("data", on);
      p.stderr.on("data", on);
      p.on("close", (code) => resolve({ code, text }));
    });
    assert.match(first.text, /interrupted: run the same command again to resume/, first.text);
    const r1 = JSON.parse(readFileSync(join(out, "RESULTS.json"), "utf8"));
    assert.equal(r1.complete, false);
    assert.ok(r1.runsWithStatus >= 1 && r1.runsWithStatus < r1.plannedRuns, `after the interrupt ${r1.runsWithStatus} of ${r1.plannedRuns} runs had a status`);
    // Second session: resumes and completes.
    const second = spawnSync("sh", [join(root, "run.sh"), "--budget", "600", "--out", out], { env, encoding: "utf8" });
    assert.equal(second.status, 0, second.stdout + second.stderr);
    assert.match(second.stdout, /run 001 done before \(resumed\)/);
    const r2 = JSON.parse(readFileSync(join(out, "RESULTS.json"), "utf8"));
    assert.equal(r2.complete, true);
    assert.equal(r2.runsWithStatus, r2.plannedRuns);
    assert.equal(r2.session, 2);
    assert.equal(r2.path, "reference", "this host's kernel has no slice extension");
    // The import.
    const runsRoot = join(tmp, "runs");
    const imp = importResults(out, { runsRoot, study: "mechanism-micro" });
    const rec = readRecord(imp.dir);
    assert.equal(rec.study, "mechanism-micro");
    assert.ok(!("unknown" in rec.environment), "environment stated");
    const env2 = rec.environment as { kind: string; detail: string; setting: string; timing: string };
    assert.equal(env2.timing, "real");
    assert.match(env2.setting, /^(bare metal|virtual machine|sandbox)$/);
    assert.match(String(rec.kernel.sliceExtension), /^unavailable: prctl/);
    const rows = JSON.parse(readFileSync(join(imp.dir, "rows.json"), "utf8")) as Record<string, unknown>[];
    assert.equal(rows.length, r2.plannedRuns, "every planned run has a row");
    const k4 = rows.filter((r) => r.pages === "4k");
    assert.ok(k4.length > 0);
    for (const r of k4) {
      assert.equal(r.traced, true);
      assert.equal(typeof r.deschedHolds, "number", "deschedulings classified");
      assert.equal((r.kernelFault as number) + (r.kernelOther as number) + (r.returnFault as number) + (r.returnInterrupt as number) + (r.returnSyscall as number) + (r.voluntary as number) + (r.unclassified as number) <= (r.deschedHolds as number), true);
      assert.ok((r.touchCount as number) > 0, "first touches were timed");
      assert.ok((r.touchP50Ns as number) > 0 && (r.touchP50Ns as number) <= (r.touchP99Ns as number) && (r.touchP99Ns as number) <= (r.touchMaxNs as number), `touch p50 ${r.touchP50Ns} ≤ p99 ${r.touchP99Ns} ≤ max ${r.touchMaxNs}`);
      assert.ok((r.touchedWorkMeanNs as number) > 0 && (r.touchedWorkMeanNs as number) < (r.touchedHoldMeanNs as number), "hold split: work < hold");
    }
    assert.ok(existsSync(join(imp.dir, "raw", "machine", "stat-before.1")) && existsSync(join(imp.dir, "raw", "machine", "stat-after.2")), "steal time recorded in both sessions");
    assert.equal(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: imp.dir }).status, 0, "the record's SHA256SUMS holds");
    assert.throws(() => importResults(out, { runsRoot }), /already exists/, "a second import of the same results is refused");

    // Bad input: one clear line, nothing written.
    const tar = join(tmp, "results.tar.gz");
    assert.equal(spawnSync("tar", ["-C", tmp, "-czf", tar, "results"]).status, 0);
    const bad = (label: string, input: string, re: RegExp, o: { study?: string } = {}) => {
      const root2 = join(tmp, `runs-${label}`);
      assert.throws(() => importResults(input, { runsRoot: root2, ...o }), (e: unknown) => e instanceof UserError && re.test(e.message) && !e.message.includes("\n    at "), label);
      assert.ok(!existsSync(root2) || readdirSync(root2).every((d) => readdirSync(join(root2, d)).length === 0), `${label}: nothing written`);
    };
    const cut = join(tmp, "cut.tar.gz");
    cpSync(tar, cut);
    truncateSync(cut, Math.floor(statSync(tar).size / 2));
    bad("truncated", cut, /not a complete gzip'd tarball/);
    const changed = join(tmp, "changed");
    cpSync(out, changed, { recursive: true });
    const f = join(changed, "runs", "001", "micro.json");
    writeFileSync(f, readFileSync(f, "utf8").replace(/"criticalSections":\d+/, '"criticalSections":1'));
    bad("changed", changed, /do not match SHA256SUMS .*runs\/001\/micro\.json has sha256/);
    bad("another study", out, /results of study mechanism-micro, expected vm-micro/, { study: "vm-micro" });
    const newer = join(tmp, "newer");
    cpSync(out, newer, { recursive: true });
    const rj = join(newer, "RESULTS.json");
    writeFileSync(rj, readFileSync(rj, "utf8").replace("slicelab-results/1", "slicelab-results/2"));
    bad("newer", newer, /results format slicelab-results\/2 was written by a newer bundle; this kit reads slicelab-results\/1/);
    bad("not results", join(tmp, "ex"), /no RESULTS\.json/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
