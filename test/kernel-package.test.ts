// `slicelab kernel package` (make bindeb-pkg on a copy of the cached build) and
// `slicelab kernel install` (plan, checks, refusals). The packaging test runs the
// real bindeb-pkg on the cached default build (slice-ext + vm) when it exists.
// Install is never carried out here: the tests read the plan and the refusals.
// The grub.cfg fixtures were generated on this machine by Debian 12's own
// grub-mkconfig scripts (test/fixtures/kernel-install/README.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readBuildRecord } from "../src/kernel/build.js";
import { buildDirFor, DEFAULT_FRAGMENTS, fragmentPath } from "../src/kernel/configure.js";
import { cachedKernel } from "../src/kernel/ensure.js";
import {
  compareReleases,
  entryPath,
  findEntry,
  formatPlan,
  grubDefaults,
  parseGrubCfg,
  planInstall,
  predictEntry,
  probeHost,
  runInstall,
  type HostFacts,
} from "../src/kernel/install.js";
import { debContents, debFields, type PackageRecord } from "../src/kernel/package.js";
import { treeAt } from "../src/kernel/tree.js";
import { UserError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const fixtures = join(repoRoot(), "test", "fixtures", "kernel-install");
const before = readFileSync(join(fixtures, "grub-before.cfg"), "utf8");
const after = readFileSync(join(fixtures, "grub-after.cfg"), "utf8");
const ADV = "Advanced options for Debian GNU/Linux";

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin/slicelab.js"), ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60 * 60 * 1000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

// ------------------------------------------------------------------ grub.cfg

test("grub.cfg from Debian's grub-mkconfig: entries, submenu paths, next_entry, recovery entries skipped", () => {
  const cfg = parseGrubCfg(before, "grub-before.cfg");
  assert.equal(cfg.honoursNextEntry, true);
  assert.deepEqual(
    cfg.topLevel.map((t) => [t.title, t.submenu]),
    [
      ["Debian GNU/Linux", false],
      [ADV, true],
    ],
  );
  assert.equal(cfg.entries.length, 5);
  const e = findEntry(cfg, "6.1.0-18-amd64");
  assert.ok(e);
  assert.equal(entryPath(e), `${ADV}>Debian GNU/Linux, with Linux 6.1.0-18-amd64`);
  assert.equal(e.ids.at(-1), "gnulinux-6.1.0-18-amd64-advanced-/dev/vda");
  assert.doesNotMatch(e.args, /single/);
  // The newest kernel has two non-recovery entries; the one naming it in the submenu wins.
  assert.equal(entryPath(findEntry(cfg, "6.1.0-21-amd64")!), `${ADV}>Debian GNU/Linux, with Linux 6.1.0-21-amd64`);
  assert.equal(findEntry(cfg, "7.2.13"), undefined);
  // A recovery entry (`single`) is never chosen, even when it comes first.
  const rec = parseGrubCfg("submenu 'Adv' {\n menuentry 'L, with Linux 5 ()' {\n  linux /vmlinuz-5 ro single\n }\n menuentry 'L, with Linux 5' {\n  linux /vmlinuz-5 ro quiet\n }\n}\n");
  assert.equal(entryPath(findEntry(rec, "5")!), "Adv>L, with Linux 5");
  // Before the install the name is predicted; after update-grub it is there, and the prediction matched.
  const predicted = predictEntry(cfg, "7.2.13");
  assert.equal(predicted, `${ADV}>Debian GNU/Linux, with Linux 7.2.13`);
  const cfgAfter = parseGrubCfg(after, "grub-after.cfg");
  assert.equal(entryPath(findEntry(cfgAfter, "7.2.13")!), predicted);
  // Why GRUB_DEFAULT=0 is a problem: the top-level entry boots the newest kernel, now ours.
  const top = cfgAfter.entries.find((x) => x.titles.length === 1)!;
  assert.equal(top.linux, "/vmlinuz-7.2.13");
});

test("grub.cfg errors name the file and line", () => {
  assert.throws(
    () => parseGrubCfg("menuentry 'a' {\n  linux /vmlinuz-1\n", "x.cfg"),
    (e: unknown) => e instanceof UserError && /^x\.cfg:3: expected "}" closing the block opened for "a"/.test(e.message),
  );
  assert.throws(
    () => parseGrubCfg("}\n", "y.cfg"),
    (e: unknown) => e instanceof UserError && e.message.startsWith("y.cfg:1: expected a block to close"),
  );
  assert.throws(
    () => parseGrubCfg("menuentry 'unclosed {\n}\n", "z.cfg"),
    (e: unknown) => e instanceof UserError && e.message.startsWith("z.cfg:1: expected a menuentry line with balanced quotes"),
  );
  // A grub.cfg without grub-mkconfig's header does not boot next_entry.
  assert.equal(parseGrubCfg("menuentry 'a' {\n linux /vmlinuz-1\n}\n").honoursNextEntry, false);
});

test("releases order as sort -V; GRUB_DEFAULT is read with drop-ins overriding", () => {
  assert.ok(compareReleases("7.2.13", "6.1.0-21-amd64") > 0);
  assert.ok(compareReleases("6.10.1", "6.9.12") > 0);
  assert.ok(compareReleases("6.1.0-18-amd64", "6.1.0-21-amd64") < 0);
  assert.equal(compareReleases("7.2.13", "7.2.13"), 0);
  assert.deepEqual(grubDefaults([]), { grubDefault: "0", disableSubmenu: false });
  assert.deepEqual(grubDefaults(["GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\n", 'GRUB_DEFAULT="saved"\n']), { grubDefault: "saved", disableSubmenu: false });
  assert.deepEqual(grubDefaults([`GRUB_DEFAULT='${ADV}>Debian GNU/Linux, with Linux 6.1.0-18-amd64'\nGRUB_DISABLE_SUBMENU=y\n`]), {
    grubDefault: `${ADV}>Debian GNU/Linux, with Linux 6.1.0-18-amd64`,
    disableSubmenu: true,
  });
});

// ------------------------------------------------------------------ plan and checks

function record(over: Partial<PackageRecord> = {}): PackageRecord {
  return {
    version: "7.2.13",
    kernelRelease: "7.2.13",
    tree: "/src/linux-7.2.13",
    buildDir: "/cache/build/7.2.13-1/config-6.1.0-21-amd64~slice-ext",
    objtree: "/cache/build/7.2.13-1/config-6.1.0-21-amd64~slice-ext/debs/objtree",
    base: "/boot/config-6.1.0-21-amd64",
    fragments: ["slice-ext.config"],
    configSha256: "0".repeat(64),
    fromBzImageSha256: "1".repeat(64),
    bzImageSha256: "2".repeat(64),
    compiled: 0,
    jobs: 2,
    ccache: true,
    copySeconds: 1,
    seconds: 100,
    machine: { cpus: 2 },
    log: "/x.log",
    files: [
      { path: "/cache/debs/linux-image-7.2.13_7.2.13-3_amd64.deb", package: "linux-image-7.2.13", version: "7.2.13-3", architecture: "amd64", size: 5e6, sha256: "3".repeat(64) },
      { path: "/cache/debs/linux-libc-dev_7.2.13-3_amd64.deb", package: "linux-libc-dev", version: "7.2.13-3", architecture: "amd64", size: 1e6, sha256: "4".repeat(64) },
    ],
    ...over,
  };
}

/** A machine on which every check passes: Debian with GRUB, booted by it, GRUB_DEFAULT=saved. */
function goodFacts(over: Partial<HostFacts> = {}): HostFacts {
  return {
    sysroot: "/",
    bootDir: "/boot",
    grubCfgPath: "/boot/grub/grub.cfg",
    grubCfg: before,
    grubDefaults: ["GRUB_DEFAULT=saved\n"],
    bootKernels: ["6.1.0-18-amd64", "6.1.0-21-amd64"],
    cmdline: "BOOT_IMAGE=/vmlinuz-6.1.0-21-amd64 root=/dev/vda ro quiet",
    runningRelease: "6.1.0-21-amd64",
    uid: 0,
    container: null,
    vm: null,
    secureBoot: false,
    tools: { dpkg: "/usr/bin/dpkg", updateGrub: "/usr/sbin/update-grub", grubReboot: "/usr/sbin/grub-reboot", grubEditenv: "/usr/bin/grub-editenv" },
    ...over,
  };
}

function failed(rec: PackageRecord, facts: HostFacts): string[] {
  return planInstall(rec, facts)
    .checks.filter((c) => !c.ok)
    .map((c) => c.name);
}

test("install plan: the image package only, update-grub, grub-reboot for the next boot, verification", () => {
  const plan = planInstall(record(), goodFacts());
  assert.equal(plan.ready, true, JSON.stringify(plan.checks.filter((c) => !c.ok)));
  assert.equal(plan.package.package, "linux-image-7.2.13");
  assert.deepEqual(
    plan.steps.map((s) => s.argv),
    [
      ["dpkg", "-i", "/cache/debs/linux-image-7.2.13_7.2.13-3_amd64.deb"],
      ["update-grub"],
      ["grub-reboot", `${ADV}>Debian GNU/Linux, with Linux 7.2.13`],
      ["grub-editenv", "/boot/grub/grubenv", "list"],
    ],
  );
  assert.equal(plan.menuEntryExact, false); // predicted: grub.cfg has no 7.2.13 entry yet
  assert.ok(plan.rollback.some((r) => r.includes("dpkg --purge linux-image-7.2.13")));
  const text = formatPlan(plan);
  assert.match(text, /3\. grub-reboot 'Advanced options for Debian GNU\/Linux>Debian GNU\/Linux, with Linux 7\.2\.13'/);
  assert.match(text, /all checks pass/);
  assert.doesNotMatch(text, /linux-libc-dev/);
  // Once grub.cfg has the entry (a second run after update-grub), it is exact.
  const again = planInstall(record(), goodFacts({ grubCfg: after, bootKernels: ["6.1.0-18-amd64", "6.1.0-21-amd64", "7.2.13"] }));
  assert.equal(again.menuEntryExact, true);
});

test("install refuses: each unsafe condition fails its own check", () => {
  assert.deepEqual(failed(record(), goodFacts({ uid: 1000 })), ["root"]);
  assert.deepEqual(failed(record(), goodFacts({ container: "docker" })), ["container"]);
  assert.deepEqual(failed(record(), goodFacts({ grubCfg: null, vm: "kvm" })), ["bootloader"]);
  assert.deepEqual(failed(record(), goodFacts({ cmdline: "console=ttyS0 root=/dev/vda" })), ["booted by GRUB"]);
  assert.deepEqual(failed(record(), goodFacts({ tools: { dpkg: "/usr/bin/dpkg" } })), ["grub tools"]);
  assert.deepEqual(failed(record(), goodFacts({ grubCfg: "menuentry 'x' {\n linux /vmlinuz-6.1.0-21-amd64\n}\n" })), ["next_entry"]);
  assert.deepEqual(failed(record(), goodFacts({ secureBoot: true })), ["secure boot"]);
  assert.deepEqual(failed(record(), goodFacts({ sysroot: "/tmp/fake" })), ["system root"]);
  assert.deepEqual(failed(record(), goodFacts({ runningRelease: "7.2.13" })), ["not the running kernel"]);
  assert.deepEqual(failed(record({ base: "allnoconfig + kernel-patches/linux/base.config", fragments: ["base.config", "slice-ext.config", "vm.config"] }), goodFacts()), [
    "configured for hardware",
  ]);
  // GRUB_DEFAULT=0 (Debian's default) with a kernel newer than all installed: entry 0 would boot it every time.
  const zero = planInstall(record(), goodFacts({ grubDefaults: ["GRUB_DEFAULT=0\n"] }));
  const c = zero.checks.find((x) => x.name === "default stays")!;
  assert.equal(c.ok, false);
  assert.match(c.detail, /grub-set-default 'Advanced options for Debian GNU\/Linux>Debian GNU\/Linux, with Linux 6\.1\.0-21-amd64'/);
  // … but not when an installed kernel stays newer.
  assert.deepEqual(failed(record(), goodFacts({ grubDefaults: ["GRUB_DEFAULT=0\n"], bootKernels: ["7.3.1", "6.1.0-21-amd64"] })), []);
  assert.deepEqual(failed(record(), goodFacts({ grubDefaults: ["GRUB_DEFAULT=2\nGRUB_DISABLE_SUBMENU=y\n"] })), ["default stays"]);
});

test("runInstall refuses before running anything when a check fails", async () => {
  await assert.rejects(
    runInstall(record(), goodFacts({ container: "docker" }), () => assert.fail("nothing may run")),
    (e: unknown) => e instanceof UserError && /refusing, nothing changed; 1 check\(s\) failed:\n  container: running in a container \(docker\)/.test(e.message),
  );
});

// ------------------------------------------------------------------ the CLI, on this machine

/** A throwaway cache with a tiny real .deb as the "package" of a tree, and a fake system root. */
function scratch() {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-kinstall-"));
  const tree = join(dir, "linux-9.9.9");
  mkdirSync(tree);
  writeFileSync(join(tree, "Makefile"), "VERSION = 9\nPATCHLEVEL = 9\nSUBLEVEL = 9\nEXTRAVERSION = -slicelabtest\n");
  const cache = join(dir, "cache");
  // buildDirFor reads the cache from the environment: point it at the scratch cache for this one
  // call, then put back what the suite runs with (deleting it sent later tests of this file to
  // ~/.cache/slicelab, which a cold-cache run under another SLICELAB_CACHE caught).
  const saved = process.env.SLICELAB_CACHE;
  process.env.SLICELAB_CACHE = cache;
  let buildDir: string;
  try {
    buildDir = buildDirFor(treeAt(tree), DEFAULT_FRAGMENTS.map(fragmentPath));
  } finally {
    if (saved === undefined) delete process.env.SLICELAB_CACHE;
    else process.env.SLICELAB_CACHE = saved;
  }
  const pkgRoot = join(dir, "pkg");
  mkdirSync(join(pkgRoot, "DEBIAN"), { recursive: true });
  mkdirSync(join(pkgRoot, "boot"));
  writeFileSync(join(pkgRoot, "DEBIAN", "control"), "Package: linux-image-9.9.9-slicelabtest\nVersion: 9.9.9-1\nArchitecture: amd64\nMaintainer: slicelab <slicelab@slicelab>\nDescription: test package, never installed\n");
  writeFileSync(join(pkgRoot, "boot", "vmlinuz-9.9.9-slicelabtest"), "not a kernel\n");
  const debs = join(buildDir, "debs");
  mkdirSync(debs, { recursive: true });
  const deb = join(debs, "linux-image-9.9.9-slicelabtest_9.9.9-1_amd64.deb");
  const b = spawnSync("dpkg-deb", ["--root-owner-group", "--build", pkgRoot, deb], { encoding: "utf8" });
  assert.equal(b.status, 0, b.stderr);
  const rec = record({
    version: "9.9.9-slicelabtest",
    kernelRelease: "9.9.9-slicelabtest",
    tree,
    buildDir,
    base: "allnoconfig + kernel-patches/linux/base.config",
    fragments: ["base.config", "slice-ext.config", "vm.config"],
    files: [{ path: deb, package: "linux-image-9.9.9-slicelabtest", version: "9.9.9-1", architecture: "amd64", size: statSync(deb).size, sha256: sha256(deb) }],
  });
  writeFileSync(join(debs, "slicelab-package.json"), JSON.stringify(rec, null, 2));
  const sysroot = join(dir, "root");
  mkdirSync(join(sysroot, "boot", "grub"), { recursive: true });
  mkdirSync(join(sysroot, "etc", "default"), { recursive: true });
  mkdirSync(join(sysroot, "proc"), { recursive: true });
  writeFileSync(join(sysroot, "boot", "grub", "grub.cfg"), before);
  for (const k of ["6.1.0-18-amd64", "6.1.0-21-amd64"]) writeFileSync(join(sysroot, "boot", `vmlinuz-${k}`), "");
  writeFileSync(join(sysroot, "etc", "default", "grub"), "GRUB_DEFAULT=saved\n");
  writeFileSync(join(sysroot, "proc", "cmdline"), "BOOT_IMAGE=/vmlinuz-6.1.0-21-amd64 root=/dev/vda ro quiet\n");
  return { dir, tree, cache, deb, sysroot };
}

test("the scratch cache leaves SLICELAB_CACHE as the suite set it (set or unset)", () => {
  const saved = process.env.SLICELAB_CACHE;
  try {
    for (const value of ["/var/tmp/slicelab-suite-cache", undefined]) {
      if (value === undefined) delete process.env.SLICELAB_CACHE;
      else process.env.SLICELAB_CACHE = value;
      const s = scratch();
      rmSync(s.dir, { recursive: true, force: true });
      assert.equal(process.env.SLICELAB_CACHE, value);
    }
  } finally {
    if (saved === undefined) delete process.env.SLICELAB_CACHE;
    else process.env.SLICELAB_CACHE = saved;
  }
});

test("kernel install (no --yes) prints the plan and changes nothing; --yes refuses", () => {
  const s = scratch();
  try {
    const env = { SLICELAB_CACHE: s.cache, SLICELAB_TEST_SYSROOT: s.sysroot };
    const listing = (): string[] => readdirSync(join(s.sysroot, "boot"), { recursive: true }).map(String).sort();
    const bootBefore = listing();
    const plan = cli(["kernel", "install", "--tree", s.tree], env);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /^plan only, nothing changed/);
    assert.ok(plan.stdout.includes(`1. dpkg -i ${s.deb}`), plan.stdout);
    assert.ok(plan.stdout.includes(`3. grub-reboot '${ADV}>Debian GNU/Linux, with Linux 9.9.9-slicelabtest'`), plan.stdout);
    assert.match(plan.stdout, /FAIL {2}system root: \$SLICELAB_TEST_SYSROOT=/);
    assert.match(plan.stdout, /ok {4}booted by GRUB: the running kernel was started by GRUB \(BOOT_IMAGE=\/vmlinuz-6\.1\.0-21-amd64\)/);
    assert.match(plan.stdout, /FAIL {2}configured for hardware/);
    assert.match(plan.stdout, /--yes would refuse/);
    const json = cli(["kernel", "install", "--tree", s.tree, "--json"], env);
    assert.equal(json.status, 0, json.stderr);
    const p = JSON.parse(json.stdout) as { ready: boolean; menuEntry: string; checks: { name: string; ok: boolean }[] };
    assert.equal(p.ready, false);
    assert.equal(p.menuEntry, `${ADV}>Debian GNU/Linux, with Linux 9.9.9-slicelabtest`);

    const yes = cli(["kernel", "install", "--tree", s.tree, "--yes"], env);
    assert.equal(yes.status, 2);
    assert.match(yes.stderr, /refusing, nothing changed/);
    assert.match(yes.stderr, /system root: /);
    assert.match(yes.stderr, /configured for hardware: /);
    assert.doesNotMatch(yes.stderr, /at .*\.js:\d+/); // no stack trace
    assert.deepEqual(listing(), bootBefore);
    const dpkg = spawnSync("dpkg-query", ["-W", "linux-image-9.9.9-slicelabtest"], { encoding: "utf8" });
    assert.notEqual(dpkg.status, 0, "the test package must not be installed");

    // Without the substitute root, on this machine itself: still a refusal, for the machine's own reasons too.
    const real = cli(["kernel", "install", "--tree", s.tree, "--yes"], { SLICELAB_CACHE: s.cache });
    assert.equal(real.status, 2);
    assert.match(real.stderr, /refusing, nothing changed/);
    assert.doesNotMatch(real.stderr, /system root: /);
    assert.match(real.stderr, /configured for hardware: /);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test("kernel install without a package says which command makes one", () => {
  const s = scratch();
  try {
    rmSync(join(dirname(s.deb), "slicelab-package.json"));
    const r = cli(["kernel", "install", "--tree", s.tree], { SLICELAB_CACHE: s.cache });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /slicelab-package\.json: no packages .*run `slicelab kernel package` with the same options first/);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test("the machine probe reads this host without changing it", async () => {
  const f = await probeHost("/");
  assert.equal(f.sysroot, "/");
  assert.equal(f.grubCfg === null, !existsSync("/boot/grub/grub.cfg"));
  assert.equal(f.cmdline, readFileSync("/proc/cmdline", "utf8").trim());
  assert.equal(f.uid, process.getuid!());
});

// ------------------------------------------------------------------ the real bindeb-pkg

const cached = cachedKernel();
test(
  "kernel package: make bindeb-pkg on a copy of the cached build; image .deb with vmlinuz, config, System.map",
  {
    // About 5 min on 2 cores: part of `npm run test:e2e`, not of the fast `npm test`.
    skip: process.env.SLICELAB_E2E !== "1"
      ? "the real bindeb-pkg run is part of `npm run test:e2e` (SLICELAB_E2E=1)"
      : cached ? false : "no cached kernel build for the default fragments (slice-ext, vm): run `slicelab kernel build` to enable this test",
    timeout: 60 * 60 * 1000,
  },
  async () => {
    const buildDir = cached!.buildDir;
    const parent = dirname(buildDir);
    const parentBefore = readdirSync(parent).sort();
    const versionBefore = readFileSync(join(buildDir, ".version"), "utf8");
    const r = cli(["kernel", "package", "--quiet", "--json"]);
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    const rec = JSON.parse(r.stdout) as PackageRecord;
    assert.equal(rec.buildDir, buildDir);
    const release = readFileSync(join(buildDir, "include", "config", "kernel.release"), "utf8").trim();
    assert.equal(rec.kernelRelease, release);
    // Nothing beside the build directory; the build `vm run` boots is untouched.
    assert.deepEqual(readdirSync(parent).sort(), parentBefore);
    assert.equal(readFileSync(join(buildDir, ".version"), "utf8"), versionBefore);
    assert.equal(sha256(join(buildDir, "arch/x86/boot/bzImage")), readBuildRecord(buildDir)!.bzImageSha256);
    assert.equal(rec.fromBzImageSha256, readBuildRecord(buildDir)!.bzImageSha256);

    const image = rec.files.find((f) => f.package === `linux-image-${release}`);
    assert.ok(image, rec.files.map((f) => f.package).join(", "));
    for (const f of rec.files) {
      assert.equal(dirname(f.path), join(buildDir, "debs"));
      assert.equal(f.size, statSync(f.path).size);
      assert.equal(f.sha256, sha256(f.path));
    }
    const fields = await debFields(image.path);
    assert.equal(fields.get("Package"), `linux-image-${release}`);
    assert.equal(fields.get("Architecture"), "amd64");
    assert.equal(fields.get("Version"), image.version);
    const info = spawnSync("dpkg-deb", ["--info", image.path], { encoding: "utf8" });
    assert.match(info.stdout, new RegExp(`Description: Linux kernel, version ${release.replace(/\./g, "\\.")}`));
    const contents = await debContents(image.path);
    for (const p of [`/boot/vmlinuz-${release}`, `/boot/config-${release}`, `/boot/System.map-${release}`]) assert.ok(contents.includes(p), `${p} in ${contents.join(" ")}`);

    // The files in the package are the packaged build's: kernel image, and a config with the extension on.
    const extract = (member: string): Buffer => {
      const tar = spawnSync("sh", ["-c", `dpkg-deb --fsys-tarfile '${image.path}' | tar -xOf - '.${member}'`], { maxBuffer: 64 * 1024 * 1024 });
      assert.equal(tar.status, 0, String(tar.stderr));
      return tar.stdout;
    };
    const vmlinuz = extract(`/boot/vmlinuz-${release}`);
    assert.equal(createHash("sha256").update(vmlinuz).digest("hex"), rec.bzImageSha256);
    const config = extract(`/boot/config-${release}`).toString();
    assert.match(config, /^CONFIG_RSEQ_SLICE_EXTENSION=y$/m);
    assert.equal(createHash("sha256").update(config).digest("hex"), rec.configSha256);

    // The record on disk is what was printed.
    assert.deepEqual(JSON.parse(readFileSync(join(buildDir, "debs", "slicelab-package.json"), "utf8")), rec);
  },
);
