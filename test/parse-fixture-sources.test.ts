// Every public sample under test/fixtures/**/public/ has a sidecar NAME.source.json saying where it
// came from (URL, date) and what was kept (the few outside public/ too); and no fixture directory holds a big file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { publicSamples } from "../src/parse/public-coverage.js";
import { repoRoot } from "../src/util/paths.js";

const root = join(repoRoot(), "test", "fixtures");

function publicDirs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (!statSync(p).isDirectory()) continue;
    if (name === "public") out.push(p);
    else out.push(...publicDirs(p));
  }
  return out;
}

test("public fixtures: each sample has a source sidecar with URL and date", () => {
  const dirs = publicDirs(root);
  assert.ok(dirs.length > 0);
  let n = 0;
  for (const d of dirs) {
    for (const f of readdirSync(d).filter((x) => !x.endsWith(".json"))) {
      const side = join(d, f.replace(/\.[^.]+$/, ".source.json"));
      assert.ok(existsSync(side), `${join(d, f)}: a public sample needs its sidecar ${side}`);
      const s = JSON.parse(readFileSync(side, "utf8")) as Record<string, unknown>;
      assert.match(String(s.url), /^https?:\/\//, `${side}: url`);
      assert.match(String(s.date), /^\d{4}-\d{2}-\d{2}$/, `${side}: date`);
      assert.equal(typeof s.excerpt, "string", `${side}: excerpt`);
      assert.ok(statSync(join(d, f)).size < 64 * 1024, `${f}: keep only the excerpt (< 64 KiB)`);
      n++;
    }
  }
  assert.ok(n >= 5, `found ${n} samples with sidecars`);
});

test("public samples outside public/ (perf wiki blocks, a sysbench 1.1 run) have the same sidecars", () => {
  const outside = publicSamples().filter((s) => !s.path.includes("/public/"));
  assert.deepEqual(outside.map((s) => s.path).sort(), [
    "perf-lock/pw62-ab-L-addr.txt", "perf-lock/pw62-ab.txt", "perf-lock/pw62-abl-lock-addr.txt", "perf-lock/pw62-abt.txt",
    "perf-lock/pw62-abv-E3.txt", "perf-lock/pw63-abto-owner.txt", "perf-lock/pw67-lock-cgroup.txt", "sysbench/sb110-spqr-read-write.txt",
  ]);
  for (const s of outside) {
    const m = JSON.parse(readFileSync(s.sidecar, "utf8")) as Record<string, unknown>;
    assert.match(String(m.url), /^https?:\/\//, `${s.sidecar}: url`);
    assert.match(String(m.date), /^\d{4}-\d{2}-\d{2}$/, `${s.sidecar}: date`);
    assert.equal(typeof m.excerpt, "string", `${s.sidecar}: excerpt`);
    assert.ok(statSync(s.file).size < 64 * 1024, `${s.path}: keep only the excerpt (< 64 KiB)`);
  }
});
