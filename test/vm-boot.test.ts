// Boots the cached slice-extension kernel (building it first when the cache
// has none: ~20-40 min on 2 cores) in QEMU and runs real commands inside.
// Under TCG the timings are not performance figures; nothing here asserts on time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureKernel } from "../src/kernel/ensure.js";
import { runVm } from "../src/vm/qemu.js";
import { buildProbe, parseProbeOutput, sliceStatsDelta } from "../src/vm/probe.js";

const kernel = async (): Promise<{ image: string; version: string }> => {
  const rec = await ensureKernel({ log: (s) => console.log(`# ${s}`) });
  return { image: rec.bzImage, version: rec.version };
};

test("a command runs in the VM: exit status, shared directory, writable overlay, console", { timeout: 3 * 3600_000 }, async () => {
  const k = await kernel();
  const r = await runVm({
    kernel: k.image,
    cpus: 2,
    memMiB: 1024,
    timeoutS: 300,
    command: ["sh", "-c", 'uname -r > "$SLICELAB_VM_OUT/uname"; echo overlay-ok > /etc/slicelab-vm-test && cat /etc/slicelab-vm-test; exit 7'],
  });
  assert.equal(r.timedOut, false);
  assert.equal(r.exitStatus, 7);
  assert.ok(r.accel === "kvm" || r.accel === "tcg");
  assert.equal(readFileSync(`${r.outDir}/uname`, "utf8").trim().split("-")[0], k.version);
  assert.match(r.commandOutput, /overlay-ok/);
  assert.deepEqual(r.overlayFailures, []);
  assert.equal(existsSync("/etc/slicelab-vm-test"), false, "the guest's write must stay in its overlay");
  assert.ok(r.bootToCommandS !== null && r.bootToCommandS > 0);
});

test("the host's /tmp is visible in the guest (a clone or cache there is reachable) and the guest's writes there stay in the guest", { timeout: 3 * 3600_000 }, async () => {
  const k = await kernel();
  const dir = mkdtempSync(join(tmpdir(), "slicelab vm tmp-"));
  try {
    writeFileSync(join(dir, "from host"), "host-file\n");
    const r = await runVm({
      kernel: k.image,
      cpus: 1,
      memMiB: 512,
      timeoutS: 300,
      command: ["sh", "-c", 'cat "$1/from host" && echo guest > "$1/from guest" && cat "$1/from guest" && ls -ld /tmp | cut -c1-10', "sh", dir],
    });
    assert.equal(r.exitStatus, 0, r.commandOutput);
    assert.match(r.commandOutput, /host-file\nguest\ndrwxrwxrwt/);
    assert.deepEqual(r.overlayFailures, []);
    assert.equal(existsSync(join(dir, "from guest")), false, "the guest's write must stay in its overlay");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("in the VM the slice extension is usable, slice_ext_nsec can be set, and rseq_slice_ext=0 switches it off", { timeout: 3 * 3600_000 }, async () => {
  const k = await kernel();
  const probe = await buildProbe();
  const on = await runVm({ kernel: k.image, cpus: 2, memMiB: 1024, timeoutS: 300, command: [probe, "--set-nsec", "20000", "--threads", "4", "--seconds", "2"] });
  assert.equal(on.exitStatus, 0);
  const rep = parseProbeOutput(on.commandOutput, on.consoleLog);
  assert.equal(rep.kernelRelease.split("-")[0], k.version);
  assert.equal(rep.prctlGetBefore, 0);
  assert.equal(rep.prctlSet, "ok");
  assert.equal(rep.prctlGetAfter, 1);
  assert.equal(rep.flagAvailable, true);
  assert.equal(rep.flagEnabled, true);
  assert.equal(rep.sliceExtNsec, 5000); // the kernel's default (kernel/rseq.c: rseq_slice_ext_nsecs_min)
  assert.equal(rep.sliceExtNsecAfter, 20000);
  assert.equal(rep.spin?.threadsFailed, 0);
  assert.ok((rep.spin?.requests ?? 0) > 0);
  const delta = sliceStatsDelta(rep)!;
  assert.ok(delta.sgrant !== undefined, "rseq/stats has the slice counters (CONFIG_RSEQ_STATS)");
  assert.ok(delta.sgrant! > 0, `4 spinning threads on 2 vCPUs should be granted extensions (stats delta ${JSON.stringify(delta)})`);

  const off = await runVm({ kernel: k.image, cpus: 1, memMiB: 512, timeoutS: 300, append: "rseq_slice_ext=0", command: [probe] });
  const rep2 = parseProbeOutput(off.commandOutput, off.consoleLog);
  assert.equal(rep2.prctlSet, "ENOTSUPP");
  assert.equal(rep2.sliceExtensionUsable, false);
});

test("a command that outlives --timeout is killed and reported as timed out", { timeout: 600_000 }, async () => {
  const k = await kernel();
  const r = await runVm({ kernel: k.image, cpus: 1, memMiB: 512, timeoutS: 8, command: ["sleep", "600"] });
  assert.equal(r.timedOut, true);
  assert.equal(r.exitStatus, null);
});
