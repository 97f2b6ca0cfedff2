// `slicelab study run smoke --vm` end to end (npm run test:e2e; skipped unless SLICELAB_E2E=1):
// the shrunk smoke study runs inside the kit's VM on the 7.x kernel and its record comes back.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { checkSums, isUnknown, readRecord } from "../src/record/format.js";

const enabled = process.env.SLICELAB_E2E === "1";
const skip = enabled ? false : "set SLICELAB_E2E=1 (npm run test:e2e) to run the study in the VM";
const runs = mkdtempSync(join(tmpdir(), "slicelab-study-vm-"));
after(() => rmSync(runs, { recursive: true, force: true }));

test("study run smoke --vm: the record is made in the guest and copied back", { skip, timeout: 3 * 3600_000 }, () => {
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "study", "run", "smoke", "--vm", "--runs-dir", runs], { encoding: "utf8", maxBuffer: 256 * 2 ** 20 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr.slice(-4000)}`);
  const dirs = readdirSync(join(runs, "smoke"));
  assert.equal(dirs.length, 1, dirs.join(", "));
  const dir = join(runs, "smoke", dirs[0]!);
  const rec = readRecord(dir);
  assert.ok(!isUnknown(rec.environment) && rec.environment.kind === "vm", JSON.stringify(rec.environment));
  assert.match(rec.environment.detail, /QEMU (TCG|KVM)/);
  assert.match(rec.kernel.release as string, /^7\./);
  assert.match(rec.title, /shrunk, in the kit's VM/);
  assert.ok(!isUnknown(rec.analysis) && rec.analysis.verdict === "ran", JSON.stringify(rec.analysis));
  assert.deepEqual(checkSums(dir), []);
});
