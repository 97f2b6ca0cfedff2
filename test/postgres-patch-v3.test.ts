/**
 * Patch version 3 as files (issue 27 item 7): the diagnostic patch applies on
 * top of the v3 series without fuzz (and v2's kept diag does not: it was made
 * for v2); SpinLockAcquire is an expression; the GUC is documented in
 * config.sgml; the reset function's privilege is a REVOKE, not superuser();
 * the commit message and the cover letter exist and cite only record paths
 * that exist.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyDiagPatches, applyPatchSeries, patchDir, patchFiles, readPatchSeries } from "../src/postgres/patch.js";
import { fetchDebianSource } from "../src/postgres/source.js";
import { repoRoot } from "../src/util/paths.js";

test("the v3 diag patch applies on top of the v3 series of 18 without fuzz", async () => {
  const src = await fetchDebianSource("18");
  const tree = mkdtempSync(join(tmpdir(), "slicelab-v3diag-"));
  try {
    cpSync(join(src.dir, "src"), join(tree, "src"), { recursive: true });
    cpSync(join(src.dir, "doc"), join(tree, "doc"), { recursive: true });
    await applyPatchSeries(tree, "18");
    const applied = await applyDiagPatches(tree, "18");
    assert.equal(applied.length, 1);
    const c = readFileSync(join(tree, "src/backend/storage/lmgr/slice_ext.c"), "utf8");
    // on_proc_exit from SliceExtAttach only, not inside a hold
    assert.match(c, /SliceExtDiagAttach\(void\)\n\{\n\tdiag_own\(\);\n\ton_proc_exit\(SliceExtDiagWrite/);
    const acquired = c.slice(c.indexOf("SliceExtDiagAcquired(void)"), c.indexOf("SliceExtDiagReleased(bool"));
    assert.doesNotMatch(acquired, /on_proc_exit/);
    // the release side reads "granted" before the hook and measures after it
    const h = readFileSync(join(tree, "src/include/storage/slice_ext.h"), "utf8");
    assert.match(h, /bool\t\tdiag_granted = [^;]+;\n#endif\n\tif \(unlikely\(SliceExt\.spin_depth > 0\)\)[\s\S]*?SliceExtEnd\(\);\n\t\}\n#ifdef SLICELAB_DIAG\n\tSliceExtDiagReleased\(diag_granted\);/);
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
});

test("v3's pgsql-hackers form: SpinLockAcquire an expression, config.sgml, REVOKE instead of superuser(), message and cover letter", () => {
  for (const major of ["15", "18"]) {
    const p = readPatchSeries(major)[0]!;
    const text = readFileSync(patchFiles(major)[0]!, "utf8");
    assert.match(text, /^\+#define SpinLockAcquire\(lock\) \\\n\+\t\(\(void\) S_LOCK\(lock\), SliceExtSpinAcquired\(SLICE_EXT_KIND_SPINLOCK\)\)$/m, `${major}: SpinLockAcquire is an expression`);
    assert.ok(p.files.some((f) => f.path === "doc/src/sgml/config.sgml"), `${major}: documents the GUC`);
    assert.match(text, /^\+     <varlistentry id="guc-slice-extension" xreflabel="slice_extension">$/m);
    assert.match(text, /^\+REVOKE EXECUTE ON FUNCTION pg_stat_reset_slice_extension\(\) FROM public;$/m);
    assert.doesNotMatch(text, /^\+.*superuser\(\)/m, `${major}: no hard-coded superuser() check`);
    assert.match(p.subject, /\(v3\)$/);
    assert.match(p.message, /rseq_slice_yield\(2\) once with\n {2}the word at zero/);
  }
  const letter = readFileSync(join(patchDir("18"), "..", "cover-letter-v3.txt"), "utf8");
  assert.match(letter, /^Subject: \[PATCH v3\]/);
  const paths = [...letter.matchAll(/data\/runs\/[\w./-]+/g)].map((m) => m[0].replace(/[.)]+$/, ""));
  assert.ok(paths.length >= 6, paths.join(" "));
  for (const p of paths) assert.ok(existsSync(join(repoRoot(), p)), `the cover letter cites ${p}, which exists`);
});
