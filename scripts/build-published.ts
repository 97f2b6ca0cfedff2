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
import { buildPublishedFiles } from "../src/published/build.js";
import { repoRoot } from "../src/util/paths.js";
import { checkFlag, runMain, writeOrCheck } from "../src/util/generated.js";

runMain(() => {
  const check = checkFlag(process.argv.slice(2), "build-published");
  const root = repoRoot();
  return writeOrCheck(root, buildPublishedFiles(root), check, { program: "build-published", noun: "tidy files", agree: "agree with the raw excerpts" });
});
