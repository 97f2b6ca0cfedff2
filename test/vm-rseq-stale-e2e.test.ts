// The stale slice work bit in the VM (`npm run test:e2e`; skipped unless SLICELAB_E2E=1): the
// reproducer on the unfixed 7.2 kernel is killed by SIGSEGV with rseq debugging on and survives
// with it off; on the kernel with kernel-patches/linux/series/rseq-slice-stale-work it survives
// with debugging on. Results go to a temporary directory (tests never write into data/).
// Under TCG these are functional checks: counts, not times.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cachedKernel, cachedPatchedKernel } from "../src/kernel/ensure.js";
import { rseqStaleSlice } from "../src/study/drivers/rseq-stale-slice.js";
import { staleSeriesDir, type StaleRow } from "../src/vm/rseq-stale.js";
import { workDir } from "../src/util/paths.js";

const enabled = process.env.SLICELAB_E2E === "1";
const skip = enabled ? false : "set SLICELAB_E2E=1 (npm run test:e2e) to boot the unfixed and fixed kernels";

test("rseq stale slice work bit: killed on the unfixed kernel with debugging on, survives with it off and on the fixed kernel", { skip, timeout: 3600_000 }, async (t) => {
  const kernels: ("unfixed" | "fixed")[] = [];
  if (cachedKernel()) kernels.push("unfixed");
  if (cachedPatchedKernel(staleSeriesDir())) kernels.push("fixed");
  if (!kernels.includes("unfixed")) return t.skip("the kit's 7.2 kernel is not in the cache: run `slicelab prepare e2e`");
  const out = mkdtempSync(join(workDir(), "rseq-stale-e2e-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  await rseqStaleSlice({
    out,
    params: { reps: 2, iterations: 30, timeout_s: 60, kernels, accels: ["tcg-icount"], arms: ["cmdline", "debug0", "debug1"], cpus: 1, mem_mib: 1024 },
    log: (s) => console.log(`# ${s}`),
  });
  const rows = JSON.parse(readFileSync(join(out, "runs.json"), "utf8")) as StaleRow[];
  const of = (k: string, arm: string) => rows.filter((r) => r.kernel === k && r.arm === arm);
  for (const r of [...of("unfixed", "cmdline"), ...of("unfixed", "debug1")]) {
    assert.equal(r.outcome, "killed", `unfixed ${r.arm} r${r.rep}: ${r.reason}`);
    assert.equal(r.exitStatus, 139);
    assert.equal(r.rseqDebugRead, 1);
  }
  for (const r of of("unfixed", "debug0")) {
    assert.equal(r.outcome, "survived", `unfixed debug0 r${r.rep}: ${r.reason}`);
    assert.ok((r.revokes ?? 0) >= 30, `unfixed debug0 r${r.rep}: ${r.revokes} revokes`);
  }
  assert.equal(of("unfixed", "debug1").length + of("unfixed", "cmdline").length, 4);
  if (!kernels.includes("fixed")) return t.skip(`the fixed kernel (${staleSeriesDir()}) is not in the cache: run \`slicelab prepare e2e\`; the unfixed kernel's checks passed`);
  const fixedOn = [...of("fixed", "cmdline"), ...of("fixed", "debug1")];
  assert.equal(fixedOn.length, 4);
  for (const r of [...fixedOn, ...of("fixed", "debug0")]) {
    assert.equal(r.outcome, "survived", `fixed ${r.arm} r${r.rep}: ${r.reason}`);
    assert.ok((r.staleCalls ?? 0) >= 30 && (r.revokes ?? 0) >= 30, JSON.stringify(r));
  }
  const v = JSON.parse(readFileSync(join(out, "verdict.json"), "utf8")) as { verdict: string };
  assert.equal(v.verdict, "killed before the fix, survives after");
});
