// Study files: every one loads; errors name file, line and field; the factorial's plan.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { probeSliceExtension } from "../src/record/provenance.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { cells, loadStudy, studyNames } from "../src/study/study.js";
import { kernelLevel } from "../src/study/run.js";
import { contrastVerdict } from "../src/study/analyze.js";
import { cachedKernel } from "../src/kernel/ensure.js";

const tmp = mkdtempSync(join(tmpdir(), "slicelab-study-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const REQUIRED = ["rostedt-2023", "sangappa-2024-locktable", "lu-2023-sysbench", "dipietro-2026", "dipietro-2026-metal", "harness-overhead", "patch-cost", "collector-cost", "smoke"];

test("every study the kit has run has a file, and every file validates", () => {
  const names = studyNames();
  for (const n of REQUIRED) assert.ok(names.includes(n), `studies/${n}.json missing`);
  for (const n of names) assert.equal(loadStudy(n).name, n);
});

test("the mechanism factorial: mode, huge pages and extension within a boot, the kernel across boots", () => {
  const s = loadStudy("dipietro-2026");
  const by = Object.fromEntries(s.factors.map((f) => [f.name, f]));
  assert.equal(by.mode?.changes, "run");
  assert.equal(by.mode?.via, "preempt");
  assert.equal(by.hugepages?.changes, "run");
  assert.equal(by.extension?.changes, "run");
  assert.equal(by.kernel?.changes, "boot");
  const c = cells(s.factors, { kernel: "7.x" });
  assert.equal(c.length, 8); // 2 modes × 2 huge pages × 2 extension, one build, one kernel level
  assert.ok(c.every((x) => x.levels.kernel === "7.x"));
  assert.equal(new Set(c.map((x) => x.name)).size, 8);
  assert.equal(kernelLevel("6.18.44-fc-v595"), "pre-7.0");
  assert.equal(kernelLevel("7.2.13"), "7.x");
});

function badStudy(mutate: (o: Record<string, any>) => void): string {
  const o = JSON.parse(readFileSync(join(repoRoot(), "studies", "dipietro-2026.json"), "utf8"));
  mutate(o);
  const file = join(tmp, "dipietro-2026.json");
  writeFileSync(file, JSON.stringify(o, null, 2));
  return file;
}

function expectError(file: string, re: RegExp, lineOfText?: string) {
  assert.throws(() => loadStudy(file), (e: unknown) => {
    assert.ok(e instanceof ParseError, String(e));
    assert.match(e.message, re);
    assert.ok(e.message.startsWith(`${file}:`));
    if (lineOfText) {
      const lines = readFileSync(file, "utf8").split("\n");
      assert.equal(lines[e.line - 1]?.includes(lineOfText), true, `line ${e.line}: ${lines[e.line - 1]} (expected ${lineOfText})`);
    }
    return true;
  });
}

test("bad study files: file, line, field, expected and found", () => {
  expectError(badStudy((o) => (o.factors[2].changes = "boot")), /expected factors\[2\]\.changes to be "run" \(PREEMPT_DYNAMIC switches the mode at run time through debugfs\), found "boot"/, '"changes": "boot"');
  expectError(badStudy((o) => (o.factors[0].changes = "run")), /factors\[0\]\.changes to be "boot" \(another kernel needs a reboot\)/, '"changes": "run"');
  expectError(badStudy((o) => (o.analysis.contrasts[1].b = "rt")), /analysis\.contrasts\[1\]\.b to be a level of mode \(full, lazy\), found "rt"/, '"b": "rt"');
  expectError(badStudy((o) => (o.protocol = "nope")), /protocol to be a protocol of protocols\//, '"protocol": "nope"');
  expectError(badStudy((o) => (o.design.warmup = 9)), /design\.warmup to be fewer than runs \(8\), found 9/, '"warmup": 9');
  expectError(badStudy((o) => (o.vm.levels.hugepages = ["maybe"])), /vm\.levels\.hugepages\[0\] to be a level of hugepages \(off, on\), found "maybe"/);
  expectError(badStudy((o) => (o.extra = 1)), /expected extra to be one of the fields/);
  expectError(badStudy((o) => (o.factors[3].levels = ["off", "off"])), /factors\[3\]\.levels to be distinct levels, found "off"/);
  const broken = join(tmp, "broken.json");
  writeFileSync(broken, '{\n  "name": "broken",\n  "title": \n}\n');
  expectError(broken, /expected valid JSON/);
});

test("contrast verdicts follow the goal", () => {
  assert.equal(contrastVerdict([1, 3], 1, 2), "B higher");
  assert.equal(contrastVerdict([-3, -1], 1, 2), "B lower");
  assert.equal(contrastVerdict([-1, 1], 1, 2), "no difference resolved");
  assert.match(contrastVerdict([1, 9], 4, 2), /^UNRESOLVED/);
});

test("study run dipietro-2026 --vm --dry-run prints the plan, runs nothing", () => {
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "study", "run", "dipietro-2026", "--vm", "--dry-run", "--runs-dir", join(tmp, "runs")], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^study dipietro-2026: /);
  assert.match(r.stdout, /shrunk for the kit's VM/);
  assert.match(r.stdout, /mode\s+full \| lazy\s+within a boot: written to sched\/preempt before each run/);
  assert.match(r.stdout, /kernel\s+7\.x\s+needs a reboot .* this boot: 7\.x/);
  assert.match(r.stdout, /4 cells × 2 runs \(0 warm-up blocks\) = 8 runs/); // vm: huge pages off only
  assert.match(r.stdout, /estimate: \d+m\d\ds \(8 runs × \d+ s \+ boot/);
  assert.match(r.stdout, /patched PostgreSQL 18: (cached|build)/);
  assert.match(r.stdout, /record: .*\/runs\/dipietro-2026\/\d{8}T\d{6}Z/);
});

test("study run refuses before running anything when a check fails (here: a study that needs the extension on a kernel without it)", { skip: kernelInfoAvailable() ? "this kernel has the slice extension" : false }, () => {
  const runsDir = join(tmp, "refused");
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "study", "run", "lu-2023-sysbench", "--runs-dir", runsDir], { encoding: "utf8" });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /^slicelab study: study lu-2023-sysbench: refused before running anything:\n  slice extension: unavailable: prctl\(PR_RSEQ_SLICE_EXTENSION\) error 22 .* this study needs a 7\.x kernel/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  assert.equal(existsSync(runsDir), false, "nothing written");
});

function kernelInfoAvailable(): boolean {
  return probeSliceExtension().available === true;
}

test("study run smoke --vm refuses, naming the missing kernel, while no kernel build has finished", { skip: cachedKernel() ? "a kernel is built: the e2e test (study-vm.test.ts) runs the VM path" : false }, () => {
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "study", "run", "smoke", "--vm", "--runs-dir", join(tmp, "vm-refused")], { encoding: "utf8" });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /^slicelab study: study smoke --vm: refused before running anything:\n  VM kernel: no finished kernel build in the cache yet/);
  assert.equal(existsSync(join(tmp, "vm-refused")), false);
});
