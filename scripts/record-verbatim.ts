/**
 * Records, for every published source, the sha256 of each raw excerpt and of its seed post
 * (data/published/<source>/verbatim.json), after checking that each excerpt is a verbatim block of
 * the seed. Run it where the seeds are present (see seedDirs in src/published/verbatim.ts) after
 * adding or changing a raw file.
 *
 *   node dist/scripts/record-verbatim.js           write the records
 *   node dist/scripts/record-verbatim.js --check   compare only; exit 1 if a record differs
 *
 * A seed that cannot be found is an error (exit 2): nothing is recorded without the check.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PUBLISHED_SOURCES, loadProvenance } from "../src/published/index.js";
import { PUBLISHED_DIR } from "../src/published/build.js";
import { VERBATIM_FILE, findSeed, formatVerbatimRecord, makeVerbatimRecord } from "../src/published/verbatim.js";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";
import { checkFlag, runMain, writeOrCheck } from "../src/util/generated.js";

runMain(() => {
  const check = checkFlag(process.argv.slice(2), "record-verbatim");
  const root = repoRoot();
  const out = new Map<string, string>();
  for (const source of PUBLISHED_SOURCES) {
    const p = loadProvenance(source);
    const seed = findSeed(root, p.seed);
    if (!seed.path) throw new UserError(`${source}: seed ${p.seed} not found (looked in ${seed.tried.join(", ")}); set SLICELAB_SEEDS to the seeds directory`);
    out.set(join(PUBLISHED_DIR, source, VERBATIM_FILE), formatVerbatimRecord(makeVerbatimRecord(root, source, p.seed, readFileSync(seed.path))));
  }
  return writeOrCheck(root, out, check, { program: "record-verbatim", noun: "verbatim records", agree: "agree with the raw excerpts and seeds" });
});
