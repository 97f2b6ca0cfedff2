// A study whose experiment boots the kit's VM itself says so in its records' envelopes (the VM, its
// accelerator, emulated timing, the guest's kernel), never this machine's kernel: checked for every
// committed record of such a study, and the envelope derived from a committed record's out/ files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { listRecords } from "../src/record/format.js";
import { loadStudy, studyNames } from "../src/study/study.js";
import { driverSpec } from "../src/study/drivers/index.js";
import { mechanismEnvelope, staleSliceEnvelope } from "../src/study/drivers/vm-envelope.js";

const runs = join(repoRoot(), "data", "runs");

test("every committed record of a study whose driver boots the VM states the VM and the guest's kernel", () => {
  const vmStudies = studyNames().filter((n) => {
    const s = loadStudy(n);
    return s.driver === "experiment" && s.experiment !== undefined && driverSpec(s.experiment)?.bootsVm === true;
  });
  assert.ok(vmStudies.includes("mechanism-micro") && vmStudies.includes("rseq-stale-slice"));
  let checked = 0;
  for (const l of listRecords(runs).filter((x) => vmStudies.includes(x.record.study) && existsSync(join(x.dir, "out", "provenance.json")))) {
    const env = l.record.environment as { kind?: string; timing?: string };
    assert.equal(env.kind, "vm", `${l.dir}: ${JSON.stringify(l.record.environment)}`);
    assert.doesNotMatch(String(l.record.kernel.release), /-fc-|^6\./, `${l.dir}: the guest runs the kit's 7.x kernel, not this host's`);
    checked++;
  }
  assert.ok(checked >= 6, `${checked} records checked`);
});

test("the envelope derived from a mechanism driver's out/ and from the reproducer's", (t) => {
  const m = join(runs, "mechanism-micro", "20261204T195456Z", "out");
  const s = join(runs, "rseq-stale-slice", "20261204T193541Z", "out");
  if (!existsSync(m) || !existsSync(s)) return t.skip("the committed records are not in this clone");
  const e = mechanismEnvelope(m);
  assert.match((e.environment as { detail: string }).detail, /QEMU plain TCG, 2 vCPU/);
  assert.equal((e.environment as { timing: string }).timing, "emulated");
  assert.equal(e.kernelRelease, "7.2.13");
  assert.match(e.preemptMode!, /^(full|lazy), (full|lazy) \(a factor/);
  const r = staleSliceEnvelope(s);
  assert.match((r.environment as { detail: string }).detail, /2 boots: unfixed-tcg-icount .*fixed-tcg-icount/);
  assert.throws(() => mechanismEnvelope(s), /expected a vm object with accel/);
});
