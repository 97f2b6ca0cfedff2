/**
 * Builds the tidy published data (data/published/<source>/*.json, *.csv) from the
 * raw excerpts next to them, with the parsers of src/parse/.
 *
 *   node dist/scripts/build-published.js           write the tidy files
 *   node dist/scripts/build-published.js --check   compare only; exit 1 if a file differs
 *
 * Every file is built in memory first; nothing is written if any raw file fails
 * to parse (the ParseError names FILE:LINE and the exit status is 2).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildPublishedFiles } from "../src/published/build.js";
import { repoRoot } from "../src/util/paths.js";
import { writeFileAtomic } from "../src/util/fs.js";
import { UserError } from "../src/util/errors.js";

function main(argv: string[]): number {
  const check = argv.includes("--check");
  const unknown = argv.filter((a) => a !== "--check");
  if (unknown.length > 0) throw new UserError(`build-published: unknown argument "${unknown[0]}" (only --check)`);
  const root = repoRoot();
  const files = buildPublishedFiles(root);
  let differing = 0;
  for (const [rel, content] of files) {
    const abs = join(root, rel);
    const same = existsSync(abs) && readFileSync(abs, "utf8") === content;
    if (check) {
      if (!same) {
        differing++;
        process.stdout.write(`differs: ${rel}\n`);
      }
    } else if (!same) {
      writeFileAtomic(abs, content);
      process.stdout.write(`wrote ${rel}\n`);
    }
  }
  if (check) {
    process.stdout.write(differing === 0 ? `all ${files.size} tidy files agree with the raw excerpts\n` : `${differing} of ${files.size} tidy files differ; run build-published\n`);
    return differing === 0 ? 0 : 1;
  }
  process.stdout.write(`${files.size} tidy files up to date\n`);
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
