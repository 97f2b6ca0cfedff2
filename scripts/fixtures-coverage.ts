/**
 * The public samples of the parsers' fixtures (src/parse/public-coverage.ts):
 *
 *   node dist/scripts/fixtures-coverage.js [print]   the per-format table and one line per sample
 *   node dist/scripts/fixtures-coverage.js readme [--check]
 *       rewrites the table in test/fixtures/README.md (--check: exit 1 if it is stale)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { coverageMarkdown, coverageTable, fixturesRoot, publicSamples, withCoverageTable } from "../src/parse/public-coverage.js";
import { writeFileAtomic } from "../src/util/fs.js";

function main(argv: string[]): number {
  const samples = publicSamples();
  const table = coverageMarkdown(coverageTable(samples));
  if (argv[0] === "readme") {
    const path = join(fixturesRoot(), "README.md");
    const text = readFileSync(path, "utf8");
    const next = withCoverageTable(text, table);
    if (argv.includes("--check")) {
      if (next !== text) {
        process.stdout.write("test/fixtures/README.md: the public-sample table is stale: run node dist/scripts/fixtures-coverage.js readme\n");
        return 1;
      }
      return 0;
    }
    if (next !== text) writeFileAtomic(path, next);
    process.stdout.write(next !== text ? "test/fixtures/README.md: table regenerated\n" : "test/fixtures/README.md: table already current\n");
    return 0;
  }
  if (argv.length > 0 && argv[0] !== "print") {
    process.stderr.write("usage: fixtures-coverage.js [print] | readme [--check]\n");
    return 2;
  }
  process.stdout.write(`${table}\n\n`);
  for (const s of samples) process.stdout.write(`${s.format}\t${s.path}\t${s.date}\t${s.version} (${s.versionSource})\t${s.url}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
