/**
 * The time-slice-extension patch: its constants against the Linux 7.2 uapi
 * headers (Debian sid's linux-libc-dev), that each series applies to its
 * PostgreSQL version's real source (Debian packages) and not to the other,
 * that a rejected hunk is named, and that the parser agrees with git.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { downloadBinary, privateApt, updatePrivateApt } from "../src/debian/apt.js";
import { checkPatchSeries, parsePatch, patchFiles, patchHash, readPatchSeries } from "../src/postgres/patch.js";
import { fetchDebianSource } from "../src/postgres/source.js";
import { UserError } from "../src/util/errors.js";
import { cacheDir, repoRoot } from "../src/util/paths.js";

/** linux-libc-dev from sid (Linux 7.2 uapi headers), unpacked once into the cache. */
async function uapiInclude(): Promise<string> {
  const dir = join(cacheDir(), "uapi");
  const root = join(dir, "x");
  if (!existsSync(join(root, "usr/include/linux/rseq.h"))) {
    const apt = privateApt("sid");
    await updatePrivateApt(apt);
    const deb = await downloadBinary(apt, "linux-libc-dev", dir);
    rmSync(root, { recursive: true, force: true });
    execFileSync("dpkg-deb", ["-x", join(dir, deb), root]);
  }
  return join(root, "usr/include");
}

/** Values of the kernel ABI, printed by a C program compiled against the uapi headers. */
function kernelAbi(include: string): Record<string, number> {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-uapi-"));
  try {
    const src = join(dir, "abi.c");
    writeFileSync(
      src,
      `#include <stddef.h>
#include <stdio.h>
#include <linux/rseq.h>
#include <linux/prctl.h>
#include <linux/auxvec.h>
#include <asm/unistd.h>
int main(void) {
  printf("slice_ctrl %zu\\n", offsetof(struct rseq, slice_ctrl));
  printf("request %zu\\n", offsetof(struct rseq, slice_ctrl.request));
  printf("granted %zu\\n", offsetof(struct rseq, slice_ctrl.granted));
  printf("end %zu\\n", offsetof(struct rseq, end));
  printf("PR_RSEQ_SLICE_EXTENSION %d\\n", PR_RSEQ_SLICE_EXTENSION);
  printf("PR_RSEQ_SLICE_EXTENSION_GET %d\\n", PR_RSEQ_SLICE_EXTENSION_GET);
  printf("PR_RSEQ_SLICE_EXTENSION_SET %d\\n", PR_RSEQ_SLICE_EXTENSION_SET);
  printf("PR_RSEQ_SLICE_EXT_ENABLE %d\\n", PR_RSEQ_SLICE_EXT_ENABLE);
  printf("__NR_rseq_slice_yield %d\\n", __NR_rseq_slice_yield);
  printf("AT_RSEQ_FEATURE_SIZE %d\\n", AT_RSEQ_FEATURE_SIZE);
  printf("AT_RSEQ_ALIGN %d\\n", AT_RSEQ_ALIGN);
  printf("RSEQ_FLAG_SLICE_EXT_DEFAULT_ON %d\\n", RSEQ_FLAG_SLICE_EXT_DEFAULT_ON);
  return 0;
}
`,
    );
    const multiarch = execFileSync("gcc", ["-print-multiarch"], { encoding: "utf8" }).trim();
    execFileSync("gcc", ["-I", include, "-I", join(include, multiarch), "-o", join(dir, "abi"), src]);
    const out = execFileSync(join(dir, "abi"), { encoding: "utf8" });
    return Object.fromEntries(out.trim().split("\n").map((l) => [l.split(" ")[0]!, Number(l.split(" ")[1])]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `#define NAME VALUE` pairs from a C text (or the added lines of a patch). */
function cDefines(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^\+?#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)\b/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

test("the patch's and the micro-benchmark's kernel constants match the Linux 7.2 uapi headers", async () => {
  const abi = kernelAbi(await uapiInclude());
  // the facts the issue states
  assert.equal(abi.slice_ctrl, 28);
  assert.equal(abi.request, 28);
  assert.equal(abi.granted, 29);
  assert.equal(abi.end, 33, "feature size (offsetof(struct rseq, end))");
  for (const major of ["15", "18"]) {
    const text = readFileSync(patchFiles(major)[0]!, "utf8");
    const defs = cDefines(text);
    for (const name of ["PR_RSEQ_SLICE_EXTENSION", "PR_RSEQ_SLICE_EXTENSION_GET", "PR_RSEQ_SLICE_EXTENSION_SET", "PR_RSEQ_SLICE_EXT_ENABLE", "__NR_rseq_slice_yield", "AT_RSEQ_FEATURE_SIZE", "AT_RSEQ_ALIGN"]) {
      assert.equal(defs[name], abi[name], `${name} in the PostgreSQL ${major} patch`);
    }
    assert.equal(defs.RSEQ_SLICE_CTRL_OFFSET, abi.slice_ctrl, `slice_ctrl offset in the ${major} patch`);
    assert.equal(defs.RSEQ_SLICE_FEATURE_SIZE, abi.end, `feature size in the ${major} patch`);
  }
  const lhp = cDefines(readFileSync(join(repoRoot(), "src/micro/lhp.c"), "utf8"));
  for (const name of ["PR_RSEQ_SLICE_EXTENSION", "PR_RSEQ_SLICE_EXTENSION_GET", "PR_RSEQ_SLICE_EXTENSION_SET", "PR_RSEQ_SLICE_EXT_ENABLE", "__NR_rseq_slice_yield", "AT_RSEQ_FEATURE_SIZE", "AT_RSEQ_ALIGN"]) {
    assert.equal(lhp[name], abi[name], `${name} in lhp.c`);
  }
  assert.equal(lhp.SLICE_CTRL_OFFSET, abi.slice_ctrl);
  assert.equal(lhp.SLICE_FEATURE_SIZE, abi.end);
});

test("ENOTSUPP is 524 and prctl SET returns it for legacy registrations (kernel source, when fetched)", (t) => {
  const kdir = join(cacheDir(), "kernel", "src");
  // A 7.x tree (the slice extension exists there); a 6.x reference tree fetched beside it has none.
  const hasSliceExt = (d: string) => existsSync(join(d, "kernel/rseq.c")) && /rseq_slice/.test(readFileSync(join(d, "kernel/rseq.c"), "utf8"));
  const tree = existsSync(kdir) ? readdirSync(kdir).filter((n) => n.startsWith("linux-")).sort().reverse().map((n) => join(kdir, n)).find(hasSliceExt) : undefined;
  if (!tree) {
    t.skip(`no kernel source tree with the slice extension under ${kdir} (fetched by slicelab kernel)`);
    return;
  }
  const errno = readFileSync(join(tree, "include/linux/errno.h"), "utf8");
  assert.match(errno, /#define ENOTSUPP\s+524\b/);
  const rseq = readFileSync(join(tree, "kernel/rseq.c"), "utf8");
  const prctl = rseq.slice(rseq.indexOf("int rseq_slice_extension_prctl"));
  assert.match(prctl, /if \(!rseq_v2\(current\)\)\s*\n\s*return -ENOTSUPP;/, "legacy (32-byte) registration → ENOTSUPP");
  assert.match(prctl, /if \(!current->rseq\.usrptr\)\s*\n\s*return -ENXIO;/, "no registration → ENXIO");
  assert.match(rseq, /rseq_len > ORIG_RSEQ_SIZE/, "v2 mode needs a registration longer than 32 bytes");
});

test("each series applies to its own PostgreSQL version without fuzz, and not to the other", async () => {
  const src18 = await fetchDebianSource("18");
  const src15 = await fetchDebianSource("15");
  assert.match(src18.version, /^18\.\d+$/);
  assert.match(src15.version, /^15\.\d+$/);
  const c18 = await checkPatchSeries(src18.dir, "18");
  const c15 = await checkPatchSeries(src15.dir, "15");
  assert.ok(c18.hunks >= 8, `18: ${c18.hunks} hunks`);
  assert.ok(c15.hunks >= 8, `15: ${c15.hunks} hunks`);
  // the dry run left the pristine trees alone
  assert.equal(existsSync(join(src18.dir, "src/backend/storage/lmgr/slice_ext.c")), false);
  await assert.rejects(checkPatchSeries(src15.dir, "18"), (err: unknown) => err instanceof UserError && /does not apply/.test(err.message));
});

test("a hunk that does not apply is named with its file, number and header", async () => {
  const src = await fetchDebianSource("18");
  const patch = readPatchSeries("18")[0]!;
  const dir = mkdtempSync(join(tmpdir(), "slicelab-reject-"));
  try {
    // a tree holding just the files the patch modifies, one of them changed where a hunk goes
    for (const f of patch.files.filter((x) => !x.created)) {
      mkdirSync(dirname(join(dir, f.path)), { recursive: true });
      cpSync(join(src.dir, f.path), join(dir, f.path));
    }
    const spin = join(dir, "src/include/storage/spin.h");
    writeFileSync(spin, readFileSync(spin, "utf8").replace("#define SpinLockRelease(lock) S_UNLOCK(lock)", "#define SpinLockRelease(lock) my_unlock(lock)"));
    const spinDiff = patch.files.find((f) => f.path === "src/include/storage/spin.h")!;
    const failing = spinDiff.hunks.findIndex((h) => h.lines.some((l) => l.includes("SpinLockRelease(lock) S_UNLOCK(lock)")));
    assert.ok(failing >= 0);
    await assert.rejects(checkPatchSeries(dir, "18"), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, new RegExp(`hunk #${failing + 1} for src/include/storage/spin\\.h`));
      assert.ok(err.message.includes(spinDiff.hunks[failing]!.header), err.message);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("parsePatch agrees with git apply --numstat, and new files are shared verbatim by both series", () => {
  const created: Record<string, Record<string, string>> = {};
  for (const major of ["15", "18"]) {
    const file = patchFiles(major)[0]!;
    const p = parsePatch(readFileSync(file, "utf8"), file);
    assert.match(p.subject, /time slice extension/i);
    assert.ok(p.message.length > 500, "a commit message that explains the change");
    const numstat = execFileSync("git", ["apply", "--numstat", file], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    assert.deepEqual(p.files.map((f) => f.path), numstat.map((r) => r[2]));
    for (const [added, removed, path] of numstat) {
      const f = p.files.find((x) => x.path === path)!;
      const lines = f.hunks.flatMap((h) => h.lines);
      assert.equal(lines.filter((l) => l.startsWith("+")).length, Number(added), `${path} added`);
      assert.equal(lines.filter((l) => l.startsWith("-")).length, Number(removed), `${path} removed`);
    }
    created[major] = Object.fromEntries(
      p.files.filter((f) => f.created).map((f) => [f.path, f.hunks.flatMap((h) => h.lines).join("\n")]),
    );
  }
  assert.deepEqual(Object.keys(created["15"]!).sort(), ["src/backend/storage/lmgr/slice_ext.c", "src/include/storage/slice_ext.h"]);
  assert.deepEqual(created["15"], created["18"]);
  assert.notEqual(patchHash("15"), patchHash("18"));
  assert.match(patchHash("18"), /^[0-9a-f]{12}$/);
});

test("slicelab postgres patch --json reports the series; bad actions and options are named", () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "postgres", ...args], { encoding: "utf8", timeout: 300_000 });
  const r = cli(["patch", "--version", "18", "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { applies: boolean; hunks: number; hash: string; source: { version: string } };
  assert.equal(out.applies, true);
  assert.equal(out.hash, patchHash("18"));
  assert.equal(out.hunks, readPatchSeries("18")[0]!.files.reduce((n, f) => n + f.hunks.length, 0));
  assert.match(out.source.version, /^18\./);
  const bad = cli(["frobnicate"]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /expected one action \(fetch, patch, build, check, hook-cost, clear-cost or lock-ops\), found "frobnicate"/);
  const badVariant = cli(["build", "--version", "18", "--variant", "fancy"]);
  assert.equal(badVariant.status, 2);
  assert.match(badVariant.stderr, /--variant: expected baseline, patched, diag or both, found "fancy"/);
  const badVersion = cli(["fetch", "--version", "13"]);
  assert.equal(badVersion.status, 2);
  assert.match(badVersion.stderr, /--version: expected one of 15, 18, found "13"/);
});
