// `slicelab bundle --with-vm` end to end (`npm run test:e2e`; skipped unless SLICELAB_E2E=1): a
// small bundle with the kit's kernel, QEMU and a busybox root, extracted and run with an empty
// environment and a PATH of sh and coreutils only (no node, npm, cc, nor the host's QEMU): first
// `--check` with the default accelerator choice (the KVM probe must decide within 30 s and say why),
// then the guest path under TCG (`--vm-accel tcg-icount`), interrupted after the first run and
// resumed; its results imported into a temporary copy of data/runs and the record checked (a TCG
// guest, emulated timing, the guest's kernel, rows from the guest). Under TCG nothing here is a
// performance measurement: the assertions are functional. Tests never write into data/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeBundle } from "../src/bundle/make.js";
import { importResults } from "../src/bundle/import.js";
import { readRecord } from "../src/record/format.js";
import { repoRoot } from "../src/util/paths.js";
import { bareBin, reachable } from "./helpers/bare-path.js";

const enabled = process.env.SLICELAB_E2E === "1";
const skip = !enabled ? "set SLICELAB_E2E=1 (npm run test:e2e) to run the bundle's VM path" : process.getuid?.() !== 0 ? "not root: run.sh needs root" : false;

function runSh(args: string[], env: Record<string, string>, o: { interruptOn?: RegExp } = {}): Promise<{ code: number | null; text: string; seconds: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const p = spawn("sh", args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    let sent = false;
    const on = (d: Buffer) => {
      text += d.toString();
      if (o.interruptOn && !sent && o.interruptOn.test(text)) {
        sent = true;
        process.kill(-p.pid!, "SIGINT");
      }
    };
    p.stdout.on("data", on);
    p.stderr.on("data", on);
    p.on("close", (code) => resolve({ code, text, seconds: (Date.now() - t0) / 1000 }));
  });
}

test("a --with-vm bundle runs its guest under TCG with nothing but sh and coreutils, resumes after an interrupt, and imports as a TCG-guest record", { skip, timeout: 3600_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), "slicelab-bundle-vm-e2e-"));
  try {
    const t0 = Date.now();
    const b = await makeBundle({ study: "mechanism-micro", out: join(tmp, "b.tar.gz"), blocks: 1, shape: { durationS: 0.25, regionMiB: 64 }, withVm: true });
    console.log(`# bundle ${b.bytes} bytes in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    assert.ok(b.bytes <= 64 * 1024 * 1024, `bundle ${b.bytes} bytes`);
    assert.ok(b.manifest.vm, "the manifest describes the VM");
    const vmPlan = b.manifest.plans.find((p) => p.name === "vm-ext");
    assert.ok(vmPlan && vmPlan.runs === 12, "the guest's plan: full, lazy × 3 page levels × off, on, 1 block");
    const ex = join(tmp, "ex");
    mkdirSync(ex);
    assert.equal(spawnSync("tar", ["-C", ex, "-xzf", b.path]).status, 0);
    const root = join(ex, b.name);
    const bin = bareBin(tmp);
    const env = { PATH: bin };
    assert.deepEqual(reachable(bin, ["node", "npm", "cc", "gcc", "tar", "python3", "qemu-system-x86_64", "busybox"]), [], "the bare PATH reaches none of these");

    // The default choice: this kernel lacks the extension, so a KVM probe decides, within 30 s.
    const check = await runSh([join(root, "run.sh"), "--check"], env);
    console.log(`# --check in ${check.seconds.toFixed(1)} s:\n${check.text.replace(/^/gm, "#   ")}`);
    assert.equal(check.code, 0, check.text);
    const kvmLine = /^run\.sh: (kvm|vm) path: .*$/m.exec(check.text)?.[0];
    assert.ok(kvmLine, `one line says what the KVM probe found:\n${check.text}`);
    if (/vm path: .* under QEMU kvm/.test(kvmLine)) assert.match(check.text, /^run\.sh: path kvm /m);
    else assert.match(kvmLine, /kvm path: (no \/dev\/kvm|\/dev\/kvm is not readable|the KVM probe failed within 30 s \(.+\)): the reference path instead/);
    assert.ok(check.seconds < 30 + 15, `the probe decided within 30 s (--check took ${check.seconds.toFixed(1)} s in all)`);

    // The guest path under TCG: interrupted (SIGINT to the process group, as Ctrl-C) after the first run, then resumed.
    const out = join(tmp, "results");
    const args = [join(root, "run.sh"), "--vm-accel", "tcg-icount", "--budget", "3000", "--out", out];
    const first = await runSh(args, env, { interruptOn: /run 001 done/ });
    console.log(`# first session ${first.seconds.toFixed(1)} s (interrupted)`);
    assert.match(first.text, /^run\.sh: path tcg /m, first.text);
    assert.match(first.text, /interrupted: run the same command again to resume/, first.text);
    const r1 = JSON.parse(readFileSync(join(out, "RESULTS.json"), "utf8"));
    assert.equal(r1.complete, false);
    assert.ok(r1.runsWithStatus >= 1 && r1.runsWithStatus < r1.plannedRuns, `after the interrupt ${r1.runsWithStatus} of ${r1.plannedRuns} runs had a status`);
    const second = await runSh(args, env);
    console.log(`# second session ${second.seconds.toFixed(1)} s`);
    assert.equal(second.code, 0, second.text);
    assert.match(second.text, /run 001 done before \(resumed\)/);
    const r2 = JSON.parse(readFileSync(join(out, "RESULTS.json"), "utf8"));
    assert.equal(r2.complete, true);
    assert.equal(r2.path, "tcg");
    assert.equal(r2.plan, "vm-ext");
    assert.equal(r2.runsWithStatus, r2.plannedRuns);
    assert.equal(r2.session, 2);
    assert.deepEqual(r2.vm, { accel: "tcg-icount", cpu: "max", cpus: 1, memMiB: b.manifest.vm!.memMiB, kernel: b.manifest.vm!.kernel.version });
    assert.equal(readFileSync(join(out, "uname-r"), "utf8").trim(), b.manifest.vm!.kernel.version, "the runs were in the bundle's kernel");

    // The import, into a temporary copy of data/runs.
    const runsRoot = join(tmp, "runs");
    cpSync(join(repoRoot(), "data", "runs"), runsRoot, { recursive: true });
    const before = new Set(readdirSync(join(runsRoot, "mechanism-micro")));
    const imp = importResults(out, { runsRoot, study: "mechanism-micro" });
    assert.deepEqual(readdirSync(join(runsRoot, "mechanism-micro")).filter((d) => !before.has(d)), [imp.dir.split("/").pop()], "one new record, nothing else changed");
    assert.deepEqual(imp.vm, { accel: "tcg-icount", kernelRelease: b.manifest.vm!.kernel.version, timing: "emulated" });
    const rec = readRecord(imp.dir);
    const e = rec.environment as { kind: string; detail: string; setting: string; timing: string };
    assert.equal(e.kind, "vm");
    assert.equal(e.timing, "emulated");
    assert.match(e.setting, /^(bare metal|virtual machine|sandbox)$/);
    assert.match(e.detail, /^a TCG guest with instruction-counted time .* of .*: the bundle's kernel 7\.2\.\d+ and QEMU emulator version/);
    assert.equal(rec.kernel.release, b.manifest.vm!.kernel.version);
    assert.equal(rec.kernel.configSha256, b.manifest.vm!.kernel.configSha256, "the guest's /proc/config.gz is the bundled kernel's config");
    assert.match(String(rec.kernel.sliceExtension), /^available in the guest/);
    assert.match(String(rec.kernel.preemptMode), /a factor: written to the guest's debugfs/);
    assert.ok(rec.notes.some((n) => n.startsWith("emulated time:")) && !rec.notes.some((n) => n.startsWith("real time:")), rec.notes.join("\n"));
    const rows = JSON.parse(readFileSync(join(imp.dir, "rows.json"), "utf8")) as Record<string, unknown>[];
    assert.equal(rows.length, r2.plannedRuns, "every planned run has a row");
    assert.deepEqual([...new Set(rows.map((r) => r.modeActive))].sort(), ["full", "lazy"], "both modes were set in the guest");
    for (const r of rows) {
      assert.equal(r.accel, "tcg-icount");
      assert.equal(typeof r.deschedHolds, "number", "deschedulings classified (the guest traced)");
      if (r.extension === "off") assert.equal(r.grants, 0, `run ${r.run}: no grant with the extension off`);
    }
    const on = rows.filter((r) => r.extension === "on");
    assert.ok(on.some((r) => (r.grants as number) > 0), `the guest's kernel granted extensions in some on run: ${on.map((r) => r.grants).join(", ")}`);
    for (const r of rows.filter((x) => x.pages === "4k")) assert.ok((r.touchCount as number) > 0, "first touches timed");
    assert.ok(existsSync(join(imp.dir, "raw", "vm", "console.1.log")) && existsSync(join(imp.dir, "raw", "vm", "console.2.log")), "both sessions' consoles kept");
    assert.equal(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: imp.dir }).status, 0, "the record's SHA256SUMS holds");
    console.log(`# imported ${imp.dir} (${imp.rows} rows); whole test ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
