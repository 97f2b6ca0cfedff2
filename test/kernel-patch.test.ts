// `slicelab kernel patch` on a small tree made here (real GNU patch, real
// diffs made with diff -u), and the historical series manifests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { applySeries, failingHunk, readSeriesFile } from "../src/kernel/patch.js";
import { listSeries } from "../src/kernel/series.js";
import { UserError } from "../src/util/errors.js";
import type { KernelTree } from "../src/kernel/tree.js";

async function udiff(dir: string, rel: string, before: string, after: string): Promise<string> {
  mkdirSync(join(dir, "a", rel, ".."), { recursive: true });
  mkdirSync(join(dir, "b", rel, ".."), { recursive: true });
  writeFileSync(join(dir, "a", rel), before);
  writeFileSync(join(dir, "b", rel), after);
  const r = await execa("diff", ["-u", `a/${rel}`, `b/${rel}`], { cwd: dir, reject: false });
  rmSync(join(dir, "a"), { recursive: true });
  rmSync(join(dir, "b"), { recursive: true });
  return r.stdout + "\n";
}

const lines = (n: number, tag = "") => Array.from({ length: n }, (_, i) => `line ${i + 1}${tag}`).join("\n") + "\n";

test("a series applies to a hard-linked copy; the first failing hunk is named and nothing is left behind", async () => {
  const work = mkdtempSync(join(tmpdir(), "slicelab-patch-"));
  try {
    const treeDir = join(work, "linux");
    mkdirSync(join(treeDir, "kernel"), { recursive: true });
    writeFileSync(join(treeDir, "Makefile"), "VERSION = 7\nPATCHLEVEL = 2\nSUBLEVEL = 13\nEXTRAVERSION =\n");
    const orig = lines(30);
    writeFileSync(join(treeDir, "kernel", "rseq.c"), orig);
    const tree: KernelTree = { dir: treeDir, version: "7.2.13", origin: "tarball" };

    const series = join(work, "series-ok");
    mkdirSync(series);
    const changed = orig.replace("line 5\n", "line 5\ntracepoint\n");
    writeFileSync(join(series, "0001-add.patch"), await udiff(work, "kernel/rseq.c", orig, changed));
    writeFileSync(join(series, "0002-more.patch"), await udiff(work, "kernel/rseq.c", changed, changed.replace("line 25\n", "line 25 (changed)\n")));
    writeFileSync(join(series, "series"), "# our series\n0001-add.patch\n0002-more.patch\n");
    assert.deepEqual(readSeriesFile(series), ["0001-add.patch", "0002-more.patch"]);

    const dry = await applySeries({ tree, seriesDir: series, checkOnly: true });
    assert.equal(dry.checkOnly, true);
    assert.equal(dry.patchedTree, undefined);
    const ok = await applySeries({ tree, seriesDir: series, dest: join(work, "patched") });
    assert.equal(ok.patchedTree, join(work, "patched"));
    const patched = readFileSync(join(work, "patched", "kernel", "rseq.c"), "utf8");
    assert.match(patched, /line 5\ntracepoint\n/);
    assert.match(patched, /line 25 \(changed\)/);
    // The original tree is untouched (patch replaced the hard-linked file instead of writing through it).
    assert.equal(readFileSync(join(treeDir, "kernel", "rseq.c"), "utf8"), orig);
    assert.ok(existsSync(join(work, "patched.slicelab.json")));

    // A series whose second patch's context does not match this tree.
    const bad = join(work, "series-bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "0001-add.patch"), readFileSync(join(series, "0001-add.patch")));
    const other = lines(30, " other");
    writeFileSync(join(bad, "0002-wrong.patch"), await udiff(work, "kernel/rseq.c", other, other.replace("line 20 other\n", "line 20 x\n")));
    writeFileSync(join(bad, "series"), "0001-add.patch\n0002-wrong.patch\n");
    await assert.rejects(
      applySeries({ tree, seriesDir: bad, dest: join(work, "patched-bad") }),
      (e: unknown) => e instanceof UserError && e.message.startsWith(`${join(bad, "0002-wrong.patch")}: does not apply`) && /kernel\/rseq\.c: hunk #1 \(at line \d+\)/.test(e.message),
    );
    assert.equal(existsSync(join(work, "patched-bad")), false);
    assert.deepEqual(
      (await execa("ls", [work])).stdout.split("\n").filter((n) => n.includes(".tmp-")),
      [],
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("failingHunk reads GNU patch's report", () => {
  const out = "checking file kernel/rseq.c\nHunk #2 FAILED at 57.\n1 out of 2 hunks FAILED\n";
  assert.equal(failingHunk(out), "kernel/rseq.c: hunk #2 (at line 57)");
});

test("series manifests: Message-IDs are bare or null-with-reason, b4 commands match", () => {
  const all = listSeries();
  const ids = all.map((s) => s.id);
  assert.deepEqual(ids, ["rostedt-2023-poc", "sangappa-2024-rfc", "tglx-2025-rseq-slice"]);
  const rostedt = all[0]!;
  assert.equal(rostedt.base, "v6.6-rc4");
  assert.equal(rostedt.b4, `b4 am ${rostedt.messageId}`);
  for (const s of all) {
    if (s.messageId === null) assert.match(s.messageIdStatus, /unconfirmed/);
    else assert.ok(s.b4.includes(s.messageId), s.id);
  }
  assert.equal(all.filter((s) => s.merged).map((s) => s.mergedIn).join(), "v7.0");
});

test("our tracepoint series dry-runs cleanly on the real source tree", { timeout: 3600_000 }, async () => {
  const { ensureTree } = await import("../src/kernel/ensure.js");
  const tree = await ensureTree();
  // The patched copy may exist from an earlier `kernel patch`; a dry run neither makes nor removes it.
  const { createHash } = await import("node:crypto");
  const { readSeriesFile, defaultSeriesDir } = await import("../src/kernel/patch.js");
  const h = createHash("sha256");
  for (const p of readSeriesFile(defaultSeriesDir())) h.update(p).update(readFileSync(join(defaultSeriesDir(), p)));
  const copy = `${tree.dir}+slicelab-${h.digest("hex").slice(0, 12)}`;
  const copyBefore = existsSync(copy);
  const r = await applySeries({ tree, checkOnly: true });
  assert.deepEqual(r.patches, ["0001-rseq-slice-extension-tracepoints.patch"]);
  assert.equal(r.patchedTree, undefined);
  assert.equal(`${tree.dir}+slicelab-${r.seriesSha256.slice(0, 12)}`, copy);
  assert.equal(existsSync(copy), copyBefore);
  // The source tree itself is untouched by the dry run.
  assert.doesNotMatch(readFileSync(join(tree.dir, "kernel/rseq.c"), "utf8"), /trace_rseq_slice_grant/);
});
