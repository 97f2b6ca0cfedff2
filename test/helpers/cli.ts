import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, workDir } from "../../src/util/paths.js";

/** Writes `text` to a file under the work dir and runs `slicelab parse FORMAT FILE --json` on it. */
export function cliParse(format: string, name: string, text: string) {
  const dir = join(workDir(), "test-tmp", "parse-cli");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, text);
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin/slicelab.js"), "parse", format, path, "--json"], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, path };
}
