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
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PUBLISHED_SOURCES, loadProvenance } from "../src/published/index.js";
import { PUBLISHED_DIR } from "../src/published/build.js";
import { VERBATIM_FILE, findSeed, formatVerbatimRecord, makeVerbatimRecord } from "../src/published/verbatim.js";
import { repoRoot } from "../src/util/paths.js";
import { writeFileAtomic } from "../src/util/fs.js";
import { UserError } from "../src/util/errors.js";

function main(argv: string[]): number {
  const check = argv.includes("--check");
  const unknown = argv.filter((a) => a !== "--check");
  if (unknown.length > 0) throw new UserError(`record-verbatim: unknown argument "${unknown[0]}" (only --check)`);
  const root = repoRoot();
  const out = new Map<string, string>();
  for (const source of PUBLISHED_SOURCES) {
    const p = loadProvenance(source);
    const seed = findSeed(root, p.seed);
    if (!seed.path) throw new UserError(`${source}: seed ${p.seed} not found (looked in ${seed.tried.join(", ")}); set SLICELAB_SEEDS to the seeds directory`);
    out.set(join(PUBLISHED_DIR, source, VERBATIM_FILE), formatVerbatimRecord(makeVerbatimRecord(root, source, p.seed, readFileSync(seed.path))));
  }
  let differing = 0;
  for (const [rel, text] of out) {
    const abs = join(root, rel);
    const same = existsSync(abs) && readFileSync(abs, "utf8") === text;
    if (same) continue;
    differing++;
    if (check) process.stdout.write(`differs: ${rel}\n`);
    else {
      writeFileAtomic(abs, text);
      process.stdout.write(`wrote ${rel}\n`);
    }
  }
  if (check) {
    process.stdout.write(differing === 0 ? `all ${out.size} verbatim records agree with the raw excerpts and seeds\n` : `${differing} of ${out.size} verbatim records differ; run record-verbatim\n`);
    return differing === 0 ? 0 : 1;
  }
  process.stdout.write(`${out.size} verbatim records up to date\n`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UserError) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = err.exitCode;
  } else {
    throw err;
  }
}
