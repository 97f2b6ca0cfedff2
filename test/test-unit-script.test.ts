/**
 * `npm run test:unit` (scripts/test-unit.sh) runs under the data/ guard and ends with the same summary
 * as `npm test` (issue 28 item 13): a scratch git repository stands in for the repository's data/.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";

const root = repoRoot();

test("package.json's test:unit builds, then runs scripts/test-unit.sh", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts["test:unit"], "npm run build && bash scripts/test-unit.sh");
});

test("scripts/test-unit.sh: every skip and why, the data/ guard, the closing count line", { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-unit-guard-"));
  try {
    mkdirSync(join(dir, "data"));
    writeFileSync(join(dir, "data", "committed.txt"), "evidence\n");
    writeFileSync(join(dir, "a.test.mjs"), `import { test } from "node:test";\ntest("ok", () => {});\ntest("needs tracefs", { skip: "tracefs is not mounted" }, () => {});\n`);
    writeFileSync(join(dir, "b.test.mjs"), `import { test } from "node:test";\nimport { writeFileSync } from "node:fs";\nimport { join } from "node:path";\ntest("writes evidence", () => { writeFileSync(join(process.env.SLICELAB_GUARD_ROOT, "data/new.json"), "{}"); });\n`);
    const git = (...a: string[]) => execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", ...a]);
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "init");
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT")), SLICELAB_GUARD_ROOT: dir };
    const r = spawnSync("bash", [join(root, "scripts", "test-unit.sh"), join(dir, "a.test.mjs"), join(dir, "b.test.mjs")], { cwd: dir, encoding: "utf8", env });
    assert.notEqual(r.status, 0, "a run whose test wrote into data/ fails");
    assert.match(r.stdout, /skipped: 1 test\(s\) did not run, and why:\n  1 skipped because tracefs is not mounted: a\.test\.mjs "needs tracefs"/);
    assert.match(r.stdout, /data\/ guard: FAILED — tests must not write into data\/ \(use a temporary directory\):\n\s+b\.test\.mjs .*\?\? data\/new\.json/);
    // The file that wrote fails (node's count) and is a guard violation (the summary's): 2 failed.
    assert.match(r.stdout, /^2 passed, 2 failed, 1 skipped$/m);
    // Without the offending file: the guard passes and the run succeeds.
    const ok = spawnSync("bash", [join(root, "scripts", "test-unit.sh"), join(dir, "a.test.mjs")], { cwd: dir, encoding: "utf8", env });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /data\/ guard: no test changed anything under data\//);
    assert.match(ok.stdout, /^1 passed, 0 failed, 1 skipped$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
