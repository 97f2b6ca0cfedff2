// The QEMU command line and the guest init script (text), checked by running
// the script's command part through the host's real /bin/sh.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execa } from "execa";
import { guestInitScript, shQuote, MARK_START } from "../src/vm/guest-init.js";
import { qemuArgs } from "../src/vm/qemu.js";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";

test("shQuote survives a round trip through /bin/sh", async () => {
  const words = ["plain", "it's", "a b", "$HOME", "\"q\"", "", "x;rm -rf /", "tab\tnl\n"];
  const r = await execa("/bin/sh", ["-c", `for w in ${words.map(shQuote).join(" ")}; do printf '%s\\0' "$w"; done`]);
  assert.deepEqual(r.stdout.split("\0").slice(0, -1), words);
});

test("qemuArgs: 9p root read-only, results share writable, accel-specific CPU", () => {
  const tcg = qemuArgs({ kernel: "/k/bzImage", accel: "tcg", cpus: 3, memMiB: 900, init: "/x/init", outDir: "/x/out", append: "preempt=full" });
  const cmdline = tcg[tcg.indexOf("-append") + 1]!;
  assert.match(cmdline, /^root=\/dev\/root rootfstype=9p rootflags=trans=virtio,version=9p2000\.L\S* ro /);
  assert.match(cmdline, / init=\/x\/init /);
  assert.ok(cmdline.endsWith(" preempt=full"));
  assert.ok(tcg.includes("local,id=root,path=/,security_model=none,readonly=on,multidevs=remap"));
  assert.ok(tcg.includes("local,id=out,path=/x/out,security_model=none,multidevs=remap"));
  assert.equal(tcg[tcg.indexOf("-smp") + 1], "3");
  assert.equal(tcg[tcg.indexOf("-cpu") + 1], "max");
  const kvm = qemuArgs({ kernel: "/k", accel: "kvm", cpus: 1, memMiB: 512, init: "/i", outDir: "/o", append: "" });
  assert.equal(kvm[kvm.indexOf("-cpu") + 1], "host");
  assert.equal(kvm[kvm.indexOf("-accel") + 1], "kvm");
  assert.equal(tcg[tcg.indexOf("-accel") + 1], "tcg,thread=multi");
});

test("the init script runs the command with the given environment and records its status", async () => {
  const script = guestInitScript({ outDir: "/tmp/out dir", overlayDirs: ["/etc"], cwd: "/", env: { A: "x y" }, command: ["sh", "-c", 'echo "$A"; exit 4'] });
  assert.match(script, /^#!\/bin\/sh\n/);
  // The line that runs the command, executed alone by the real shell.
  const line = script.split("\n").find((l) => l.startsWith("env -i "))!;
  const r = await execa("/bin/sh", ["-c", line], { reject: false });
  assert.equal(r.exitCode, 4);
  assert.equal(r.stdout, "x y");
  assert.ok(script.indexOf(MARK_START) < script.indexOf(line));
  assert.match(script, /echo "\$rc" > '\/tmp\/out dir'\/exit-status/);
});

test("qemuArgs --accel tcg-icount: single-threaded TCG with instruction-counted time; the CLI accepts it and names the choices", () => {
  const a = qemuArgs({ kernel: "/k", accel: "tcg-icount", cpus: 1, memMiB: 512, init: "/i", outDir: "/o", append: "" });
  assert.equal(a[a.indexOf("-accel") + 1], "tcg,thread=single");
  assert.equal(a[a.indexOf("-icount") + 1], "shift=0,sleep=off");
  assert.equal(a[a.indexOf("-cpu") + 1], "max");
  const tcg = qemuArgs({ kernel: "/k", accel: "tcg", cpus: 1, memMiB: 512, init: "/i", outDir: "/o", append: "" });
  assert.equal(tcg.indexOf("-icount"), -1);
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "vm", "run", "--accel", "icount", "--kernel", "/nonexistent", "--", "true"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--accel expects auto, kvm, tcg or tcg-icount, got "icount"/);
});
