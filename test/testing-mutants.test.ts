// The mutation checks of src/testing/mutants.ts stay applicable (each mutation's text occurs once in
// the compiled file, each names a test that exists), and one runs end to end: the test it names fails
// against the mutant, passes on the unmutated copy, and the working tree is left as it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MUTATIONS, applyMutation, mutantTable, mutantTree, runMutation } from "../src/testing/mutants.js";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";

const root = repoRoot();

test("every mutation applies once to the compiled code and names a test that exists", () => {
  assert.ok(MUTATIONS.length >= 8);
  assert.equal(new Set(MUTATIONS.map((m) => m.name)).size, MUTATIONS.length);
  for (const m of MUTATIONS) {
    const text = readFileSync(join(root, m.file), "utf8");
    assert.equal(text.split(m.find).length - 1, 1, `${m.name}: ${JSON.stringify(m.find)} in ${m.file}`);
    assert.notEqual(m.find, m.replace, m.name);
    const src = readFileSync(join(root, m.test.replace(/^dist\//, "").replace(/\.js$/, ".ts")), "utf8");
    const titles = [...src.matchAll(/^test\("((?:[^"\\]|\\.)*)"/gm)].map((x) => x[1]!);
    assert.equal(titles.filter((t) => new RegExp(m.testName).test(t)).length, 1, `${m.name}: exactly one test of ${m.test} matches /${m.testName}/ (${titles.join(" | ")})`);
  }
});

test("a mutation whose text is gone is refused, naming it and the file", () => {
  const tree = mutantTree(root);
  try {
    assert.ok(existsSync(join(tree, "dist/src/stats/summary.js")));
    const m = { ...MUTATIONS[0]!, find: "no such text in the compiled file" };
    assert.throws(() => applyMutation(tree, m), (e: unknown) => e instanceof UserError && /mutation proc-stat-utime-field: expected the text "no such text in the compiled file" once in dist\/src\/collect\/cost\.js, found it 0 times/.test(e.message));
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
});

test("variance-population is killed by stats-summary, which passes unmutated; the working tree's dist is untouched", { timeout: 120_000 }, () => {
  const m = MUTATIONS.find((x) => x.name === "variance-population")!;
  const before = readFileSync(join(root, m.file), "utf8");
  const r = runMutation(m, { baseline: true });
  assert.equal(r.baseline, "passed", r.detail);
  assert.equal(r.result, "killed", r.detail);
  assert.match(r.detail, /summary\(\) of Rostedt's posted runs/);
  assert.equal(readFileSync(join(root, m.file), "utf8"), before);
  assert.match(mutantTable([r]), /^\| mutation \| what it breaks \| test \| result \| unmutated \|\n.*\n\| `variance-population` \| .* \| killed \| passed \|$/);
});
