/**
 * The data/ guard, preloaded into every test file's process (`node --test --import` passes it to
 * each child; scripts/test.sh sets it up): a snapshot of data/ as git sees it when the file starts,
 * another when it exits. If they differ, the test file fails — its exit status becomes 1 and it says
 * which paths it changed — and the violation is appended to $SLICELAB_GUARD_OUT/violations.jsonl for
 * the run's summary. Tests write only into temporary directories; data/ is the evidence.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { dataSnapshot, snapshotChanges } from "./reporter.js";

const root = process.env.SLICELAB_GUARD_ROOT ?? process.cwd();
// Only in the test runner's children (each runs one test file), never in the runner itself.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const before = dataSnapshot(root);
  if (typeof before !== "string") {
    process.on("exit", () => {
      const after = dataSnapshot(root);
      if (typeof after === "string") return;
      const changes = snapshotChanges(before, after);
      if (changes.length === 0) return;
      const file = relative(root, process.argv[1] ?? "") || "(unknown test file)";
      process.stderr.write(`data/ guard: ${file} changed what is under data/ (tests must write only into temporary directories): ${changes.join(", ")}\n`);
      process.exitCode = 1;
      const out = process.env.SLICELAB_GUARD_OUT;
      if (out) {
        mkdirSync(out, { recursive: true });
        appendFileSync(join(out, "violations.jsonl"), `${JSON.stringify({ file, changes })}\n`);
      }
    });
  }
}
