// `slicelab bundle --with-vm` without a boot (src/bundle/vm.ts): the ldd parser, the guest's init and
// run.sh's VM pieces are valid sh and refuse bad options with one line, the import states a guest's
// environment (and refuses what it cannot read), and a real --with-vm bundle holds the kernel, QEMU
// with its closure, loader, TCG module and firmware, and a busybox root — its QEMU running from the
// extracted copy through the bundled loader with an empty environment. The boot itself is the e2e
// test (test/bundle-vm-e2e.test.ts). Tests never write into data/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FIRMWARE, guestRootInit, parseLdd, runShVm, vmImport, vmMemMiB, vmPlan, VM_PLAN, PROBE_MARK, type BundleVm } from "../src/bundle/vm.js";
import { runScript } from "../src/bundle/run-sh.js";
import { makeBundle } from "../src/bundle/make.js";
import { cachedKernel } from "../src/kernel/ensure.js";
import { defaultShape } from "../src/drivers/mechanism/index.js";
import { UserError } from "../src/util/errors.js";

const LDD = [
  "\tlinux-vdso.so.1 (0x00007ffd5a1f2000)",
  "\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f0000001000)",
  "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0000002000)",
  "\t/lib64/ld-linux-x86-64.so.2 (0x00007f0000003000)",
  "",
].join("\n");

test("parseLdd: libraries and the loader; a library not found and an unknown line are refused by line", () => {
  const r = parseLdd(LDD, "ldd x");
  assert.deepEqual(r.libraries, [{ name: "libz.so.1", path: "/lib/x86_64-linux-gnu/libz.so.1" }, { name: "libc.so.6", path: "/lib/x86_64-linux-gnu/libc.so.6" }]);
  assert.equal(r.loader, "/lib64/ld-linux-x86-64.so.2");
  assert.throws(() => parseLdd(`${LDD}\tlibfoo.so.2 => not found\n`, "ldd q"), (e: unknown) => e instanceof UserError && /ldd q: ldd line 5: library libfoo\.so\.2 not found/.test(e.message));
  assert.throws(() => parseLdd("\tsomething odd\n", "ldd q"), /ldd q: ldd line 1: expected "NAME => PATH \(0xADDR\)"/);
  assert.deepEqual(parseLdd("\tstatically linked\n", "ldd s"), { libraries: [], loader: null });
});

test("vmMemMiB: the region, the guest's huge pages and 512 MiB, in 256 MiB steps", () => {
  assert.equal(vmMemMiB(defaultShape({ regionMiB: 64 })), 768); // 64 + 40·2 + 512 = 656 → 768
  assert.equal(vmMemMiB(defaultShape({ regionMiB: 384 })), 1536); // 384 + 200·2 + 512 = 1296 → 1536
});

const fakeVm: BundleVm = {
  kernel: { version: "7.2.13", bzImageSha256: "a".repeat(64), configSha256: "b".repeat(64) },
  qemu: { version: "QEMU emulator version 7.2.22", binarySha256: "c".repeat(64), libraries: ["libc.so.6", "ld-linux-x86-64.so.2"], module: "accel-tcg-x86_64.so", firmware: [...FIRMWARE] },
  busybox: { version: "BusyBox v1.35.0", sha256: "d".repeat(64) },
  cpus: 1,
  memMiB: 768,
  plan: VM_PLAN,
};
const manifest = (vm?: BundleVm) => ({ format: 1, id: "0123456789abcdef", study: "mechanism-micro", title: "t", made: { kitCommit: "abcdef0123456789", dirty: false, at: "2026-12-04T00:00:00Z", host: "h" }, micro: { sourceSha256: "x", static: true }, probe: { sourceSha256: "y", static: true }, shape: defaultShape(), seed: 1, plans: [{ name: "cur-noext", modes: ["current"], pages: ["4k"], extensions: ["off"], blocks: 1, runs: 1, perBlock: 1 }], hugePages: 0, memoryKiB: 1024, diskKiB: 1024, estimateRunS: 3, files: [], ...(vm ? { vm } : {}) });

test("the guest's init and run.sh with the VM pieces are valid sh; --vm-accel is checked at once, and refused by a bundle without a VM", () => {
  const init = guestRootInit();
  assert.equal(spawnSync("sh", ["-n", "-c", init]).status, 0);
  assert.match(init, /^#!\/bin\/busybox sh\n/);
  assert.ok(init.includes(PROBE_MARK));
  assert.match(init, /sh "\/bundle\/plans\/\$\(arg plan\)\.sh"/, "the guest runs the plan named on the kernel command line");
  const sh = runScript(manifest(fakeVm));
  assert.equal(spawnSync("sh", ["-n", "-c", sh]).status, 0);
  assert.match(sh, /timeout --foreground \$left [\s\S]* -accel kvm -cpu \$cpu/, "the probe boots under KVM within a time limit");
  assert.match(sh, /for cpu in host host,arch-capabilities=off; do/);
  assert.match(sh, /tcg-icount\) VM_ACC_ARGS='-accel tcg,thread=single -icount shift=0,sleep=off'/, "accelerator words from accelArgs");
  const bad = spawnSync("sh", ["-c", sh, "run.sh", "--vm-accel", "fast"], { encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^run\.sh: --vm-accel expects auto, kvm, tcg, tcg-icount or none, found "fast"$/m);
  assert.equal(spawnSync("sh", ["-n", "-c", runScript(manifest())]).status, 0, "run.sh of a bundle without a VM is valid sh too");
  const none = spawnSync("sh", ["-c", runScript(manifest()), "run.sh", "--vm-accel", "tcg"], { encoding: "utf8" });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /this bundle has no VM \(made without --with-vm\)/);
  assert.equal(runShVm(undefined, { estimateRunS: 3 }).say, `say "kvm path: not in this bundle (made without --with-vm)"`);
});

test("vmPlan: the study's modes in the guest (none and current dropped), the guest's own script, resumable", () => {
  const p = vmPlan({ shape: defaultShape(), modes: ["none", "full", "lazy"], pages: ["4k"], extensions: ["off", "on"], blocks: 2, seed: 1 });
  assert.equal(p.plan.name, VM_PLAN);
  assert.deepEqual(p.plan.modes, ["full", "lazy"]);
  assert.equal(p.plan.runs, 8);
  assert.equal(p.plan.perBlock, 4);
  assert.match(p.script, /\[ -w \$D\/sched\/preempt \] \|\| \{ note "no writable debugfs sched\/preempt/, "the guest script (not the host one)");
  assert.match(p.script, /SL_PER_BLOCK=4;/);
  assert.equal(spawnSync("sh", ["-n", "-c", p.script]).status, 0);
});

test("vmImport: a TCG guest's timing is emulated, a KVM guest's real; an unknown accelerator or a missing guest release is refused by file", () => {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-vm-import-"));
  try {
    const host = { label: "a virtual machine", kind: "virtual machine" as const };
    const vm = { accel: "tcg-icount" as const, cpu: "max", cpus: 1, memMiB: 768, kernel: "7.2.13" };
    assert.throws(() => vmImport(dir, vm, host), (e: unknown) => e instanceof UserError && e.message === `${join(dir, "uname-r")}: missing or empty (expected the guest's kernel release, written by the plan in the guest)`);
    writeFileSync(join(dir, "uname-r"), "7.2.13\n");
    writeFileSync(join(dir, "hz"), "1000\n");
    mkdirSync(join(dir, "vm"));
    writeFileSync(join(dir, "vm", "accel-reason"), "--vm-accel tcg-icount: QEMU's emulator, timing emulated\n");
    const t = vmImport(dir, vm, host);
    assert.equal(t.timing, "emulated");
    assert.equal(t.environment.kind, "vm");
    assert.equal(t.environment.setting, "virtual machine");
    assert.match(t.environment.detail, /^a TCG guest with instruction-counted time .* of a virtual machine: the bundle's kernel 7\.2\.13/);
    assert.match(t.kernel.sliceExtension, /^unknown: no guest probe output/);
    assert.equal(t.kernel.hz, 1000);
    assert.ok(t.notes[0]!.startsWith("emulated time:"));
    const k = vmImport(dir, { ...vm, accel: "kvm", cpu: "host" }, host);
    assert.equal(k.timing, "real");
    assert.match(k.notes[0]!, /^real time in a KVM guest/);
    assert.throws(() => vmImport(dir, { ...vm, accel: "hvf" as never }, host), /RESULTS\.json:1: expected vm\.accel kvm, tcg or tcg-icount, found "hvf"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const canMake = (): string | null => {
  if (!cachedKernel()) return "no built kit kernel in the cache (slicelab prepare test builds it)";
  if (!existsSync("/usr/bin/qemu-system-x86_64") && !existsSync("/usr/local/bin/qemu-system-x86_64")) return "no qemu-system-x86_64 (scripts/setup.sh vm)";
  if (!existsSync("/bin/busybox") && !existsSync("/usr/bin/busybox")) return "no busybox (scripts/setup.sh vm installs busybox-static)";
  return null;
};

test("a --with-vm bundle holds the kernel, QEMU's closure, loader, TCG module, firmware and the busybox root, within 64 MiB; its QEMU runs from the copy with an empty environment", { timeout: 300_000 }, async (t) => {
  const why = canMake();
  if (why) return t.skip(why);
  const tmp = mkdtempSync(join(tmpdir(), "slicelab-bundle-vm-"));
  try {
    const b = await makeBundle({ study: "mechanism-micro", out: join(tmp, "b.tar.gz"), blocks: 1, shape: { durationS: 0.25, regionMiB: 64 }, withVm: true });
    assert.ok(b.bytes <= 64 * 1024 * 1024, `${b.bytes} bytes`);
    const vm = b.manifest.vm!;
    assert.equal(vm.kernel.bzImageSha256, cachedKernel()!.bzImageSha256, "the kit's kernel");
    assert.match(vm.qemu.version, /^QEMU emulator version \d+\.\d+/);
    assert.ok(vm.qemu.libraries.includes("ld-linux-x86-64.so.2") && vm.qemu.libraries.includes("libc.so.6"), vm.qemu.libraries.join(" "));
    assert.ok(b.manifest.plans.some((p) => p.name === VM_PLAN));
    const ex = join(tmp, "ex");
    mkdirSync(ex);
    assert.equal(spawnSync("tar", ["-C", ex, "-xzf", b.path]).status, 0);
    const root = join(ex, b.name);
    for (const f of ["vm/bzImage", "vm/qemu/bin/qemu-system-x86_64", "vm/qemu/lib/ld-linux-x86-64.so.2", "vm/root/bin/busybox", "vm/root/init", "plans/vm-ext.sh", "plans/vm-ext.json", ...FIRMWARE.map((f) => `vm/qemu/share/${f}`)]) {
      assert.ok(existsSync(join(root, f)), `${f} in the bundle`);
    }
    if (vm.qemu.module) assert.ok(existsSync(join(root, "vm/qemu/modules", vm.qemu.module)));
    for (const d of ["proc", "sys", "dev", "tmp", "run", "bundle", "out"]) assert.ok(existsSync(join(root, "vm/root", d)), `mount point /${d} in the guest's root`);
    const sums = readFileSync(join(root, "BUNDLE.SHA256SUMS"), "utf8");
    for (const f of ["vm/bzImage", "vm/qemu/lib/libc.so.6", "vm/root/init"]) assert.match(sums, new RegExp(`  ${f.replace(/\./g, "\\.")}\n`));
    assert.equal(spawnSync("sha256sum", ["-c", "--quiet", "--strict", "BUNDLE.SHA256SUMS"], { cwd: root }).status, 0);
    const q = join(root, "vm", "qemu");
    const v = spawnSync(join(q, "lib", "ld-linux-x86-64.so.2"), ["--library-path", join(q, "lib"), join(q, "bin", "qemu-system-x86_64"), "--version"], { env: {}, encoding: "utf8" });
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout.split("\n")[0], vm.qemu.version);
    // TCG from the bundled module: QEMU paused (-S) under TCG for 3 s must not stop at "could not load module";
    // the same with a wrong QEMU_MODULE_DIR does (so the check can fail).
    const tcg = (modules: string) => spawnSync(join(q, "lib", "ld-linux-x86-64.so.2"), ["--library-path", join(q, "lib"), join(q, "bin", "qemu-system-x86_64"), "-L", join(q, "share"), "-no-user-config", "-machine", "q35", "-accel", "tcg", "-S", "-display", "none", "-vga", "none", "-monitor", "none", "-serial", "none", "-nic", "none"], { env: { QEMU_MODULE_DIR: modules }, encoding: "utf8", timeout: 3000, stdio: ["ignore", "pipe", "pipe"] });
    const ok = tcg(join(q, "modules"));
    assert.equal((ok.error as NodeJS.ErrnoException | undefined)?.code, "ETIMEDOUT", `QEMU under TCG kept running until stopped: status ${ok.status}, ${ok.stderr}`);
    assert.doesNotMatch(ok.stderr, /could not load module/);
    if (vm.qemu.module) assert.match(tcg(join(tmp, "no-modules")).stderr, /could not load module for type 'tcg-accel-ops'/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
