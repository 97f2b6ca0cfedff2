/**
 * Executes every notebook (notebooks/*.ipynb, in name order) in place, so the
 * committed notebooks carry fresh outputs. A notebook is only rewritten when all
 * its cells succeed; the first failing cell stops the run with its source and error.
 *
 *   npx tsc -p . && node dist/scripts/run-notebooks.js [NOTEBOOK…] [--check]
 *
 * --check executes into .work/notebooks/ instead and exits 1 when a committed
 * notebook's outputs differ from a fresh run (stale outputs).
 */
import { basename, join, resolve } from "node:path";
import { executeNotebook, listNotebooks, notebookValues } from "../src/report/notebooks.js";
import { notebookOutputsDiffer } from "../src/report/freshness.js";
import { UserError } from "../src/util/errors.js";
import { workDir } from "../src/util/paths.js";

async function main(argv: string[]): Promise<number> {
  const check = argv.includes("--check");
  const named = argv.filter((a) => a !== "--check").map((a) => resolve(a));
  const notebooks = named.length > 0 ? named : listNotebooks();
  let stale = 0;
  for (const nb of notebooks) {
    const t = Date.now();
    const out = check ? join(workDir(), "notebooks", basename(nb)) : undefined;
    const executed = await executeNotebook(nb, check ? { out } : { inPlace: true });
    const seconds = ((Date.now() - t) / 1000).toFixed(1);
    const values = notebookValues(executed).length;
    if (check) {
      const diff = notebookOutputsDiffer(nb, executed);
      if (diff) {
        stale++;
        process.stdout.write(`${basename(nb)}: STALE (${diff}); ${seconds} s\n`);
        continue;
      }
    }
    process.stdout.write(`${basename(nb)}: ok, ${values} recorded values, ${seconds} s\n`);
  }
  if (stale > 0) {
    process.stdout.write(`${stale} notebook(s) have stale outputs: run node dist/scripts/run-notebooks.js\n`);
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UserError) {
      process.stderr.write(`run-notebooks: ${err.message}\n`);
      process.exit(err.exitCode);
    }
    throw err;
  },
);
