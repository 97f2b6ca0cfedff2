// The pre-7.0 reference tree: Debian bookworm's linux-source-6.1, fetched through
// the kit's private apt configuration into ~/.cache/slicelab/kernel (like
// kernel-config.test.ts does for the 7.x tree, the first run downloads it once;
// later runs use the cache, and the offline fetch below goes to no network).
// Then the real fragments on that real tree: slice-ext.config must fail naming
// RSEQ_SLICE_EXTENSION, preempt-ref.config must merge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchKernel, sha256File } from "../src/kernel/fetch.js";
import { compareVersions, configureKernel, fragmentPath } from "../src/kernel/configure.js";
import { parseConfigFragment, readDotConfig } from "../src/kernel/kconfig.js";
import { kernelCacheDir, treeVersion, type KernelTree } from "../src/kernel/tree.js";
import { privateApt } from "../src/debian/apt.js";
import { UserError } from "../src/util/errors.js";

const current = join(kernelCacheDir(), "current.json");

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

let bookworm: KernelTree | undefined;
/** The bookworm tree: online once when its .deb is not cached yet, never made current. */
async function bookwormTree(): Promise<KernelTree> {
  bookworm ??= await fetchKernel({ suite: "bookworm", makeCurrent: false });
  return bookworm;
}

test("bookworm gives a 6.x tree; fetched again offline it comes from the cache and leaves current.json alone", async () => {
  const before = readIfExists(current);
  const first = await bookwormTree();
  assert.equal(readIfExists(current), before, "makeCurrent: false must not touch current.json");
  assert.equal(first.origin, "debian");
  assert.match(first.debianPackage ?? "", /^linux-source-6\.\d+$/);
  assert.match(first.version, /^6\.\d+\.\d+$/);
  assert.equal(treeVersion(first.dir), first.version);
  assert.ok(first.debianVersion?.startsWith(`${first.version}-`), `${first.debianVersion} vs ${first.version}`);

  // Offline: no apt-get update (the private lists and their stamp stay as they were), no download.
  const apt = privateApt("bookworm");
  const stamp = join(apt.root, "state/updated");
  const stampBefore = readIfExists(stamp);
  const debMtime = statSync(first.file!).mtimeMs;
  const logged: string[] = [];
  const again = await fetchKernel({ suite: "bookworm", offline: true, makeCurrent: false, log: (s) => logged.push(s) });
  assert.deepEqual(again, first);
  assert.equal(readIfExists(stamp), stampBefore);
  assert.equal(statSync(first.file!).mtimeMs, debMtime);
  assert.ok(logged.some((l) => l.startsWith("offline:")), logged.join("\n"));
  assert.ok(!logged.some((l) => /apt-get (update|download)/.test(l)), logged.join("\n"));
  assert.ok(logged.some((l) => l.startsWith("reusing ")), logged.join("\n"));
  // The recorded hash is the hash of the cached package.
  assert.equal(await sha256File(first.file!), first.sha256);
  assert.equal(readIfExists(current), before);
});

test("offline with no usable package lists fails saying so, instead of going to the network", async () => {
  // A suite the kit never fetched: its private lists are empty.
  const suite = `slicelab-test-none-${process.pid}`;
  const apt = privateApt(suite);
  try {
    await assert.rejects(
      fetchKernel({ suite, offline: true, makeCurrent: false }),
      (e: unknown) => e instanceof UserError && e.message.includes(`no "linux" source package found in Debian ${suite}`) && e.message.includes("offline"),
    );
  } finally {
    rmSync(apt.root, { recursive: true, force: true });
  }
});

test("kernel versions compare numerically", () => {
  assert.equal(compareVersions("6.1.176", "7.0"), -1);
  assert.equal(compareVersions("6.13", "6.9.12"), 1);
  assert.equal(compareVersions("7.0", "7.0.0"), 0);
  assert.equal(compareVersions("7.2.13-rc1", "7.2.13"), 0);
});

test("on the 6.1 tree slice-ext fails naming RSEQ_SLICE_EXTENSION; vm + preempt-ref merges with boot-selectable preemption", async () => {
  const tree = await bookwormTree();
  const ref = parseConfigFragment(readFileSync(fragmentPath("preempt-ref"), "utf8"), "preempt-ref.config");
  assert.ok(!ref.some((e) => e.name.startsWith("RSEQ_SLICE") || e.name === "PREEMPT_LAZY"));
  const work = mkdtempSync(join(tmpdir(), "slicelab-kfetch-"));
  try {
    const [slice, merged] = await Promise.allSettled([
      configureKernel({ tree, fragments: ["slice-ext", "vm"].map(fragmentPath), buildDir: join(work, "slice") }),
      configureKernel({ tree, fragments: ["vm", "preempt-ref"].map(fragmentPath), buildDir: join(work, "ref") }),
    ]);

    assert.equal(slice.status, "rejected");
    const err = (slice as PromiseRejectedResult).reason as unknown;
    assert.ok(err instanceof UserError, String(err));
    const msg = err.message;
    assert.match(msg, /slice-ext\.config:\d+: expected CONFIG_RSEQ_SLICE_EXTENSION=y in the resolved \.config, found not set/);
    assert.match(msg, new RegExp(`CONFIG_RSEQ_SLICE_EXTENSION is not defined by any Kconfig file in \\S+ \\(Linux ${tree.version.replace(/\./g, "\\.")}\\): the rseq time-slice extension was added in Linux 7\\.0`));
    assert.match(msg, /preempt-ref fragment/);
    assert.match(msg, /CONFIG_PREEMPT_LAZY is not defined .*added in Linux 6\.13/);
    // Nothing written where the failed configure would have put its .config.
    assert.equal(existsSync(join(work, "slice", ".config")), false);

    assert.equal(merged.status, "fulfilled", merged.status === "rejected" ? String(merged.reason) : "");
    const r = (merged as PromiseFulfilledResult<Awaited<ReturnType<typeof configureKernel>>>).value;
    assert.equal(r.version, tree.version);
    const cfg = readDotConfig(readFileSync(join(work, "ref", ".config"), "utf8"));
    assert.equal(cfg.get("PREEMPT_DYNAMIC"), "y");
    assert.equal(cfg.get("PREEMPT_VOLUNTARY"), "y");
    assert.equal(cfg.get("HZ"), "1000");
    assert.equal(cfg.get("RSEQ"), "y");
    assert.equal(cfg.get("9P_FS"), "y");
    assert.equal(cfg.has("RSEQ_SLICE_EXTENSION"), false);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
