import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "./errors.js";
import { writeFileAtomic } from "./fs.js";

/**
 * The plumbing of the kit's generators of committed files (scripts/build-published.ts,
 * scripts/record-verbatim.ts): `--check` compares, otherwise what differs is written; one line per
 * differing or written file, then a summary line.
 */
export interface GeneratedWords {
  /** The program's name (in the usage error and the "run …" hint). */
  program: string;
  /** What the files are: "tidy files". */
  noun: string;
  /** What agreeing means: "agree with the raw excerpts". */
  agree: string;
}

/** Only `--check` is accepted; returns whether it was given. */
export function checkFlag(argv: string[], program: string): boolean {
  const unknown = argv.filter((a) => a !== "--check");
  if (unknown.length > 0) throw new UserError(`${program}: unknown argument "${unknown[0]}" (only --check)`);
  return argv.includes("--check");
}

/** Writes (or with check, only compares) the files (path relative to root → text); the exit status. */
export function writeOrCheck(root: string, files: Map<string, string>, check: boolean, w: GeneratedWords, out: (line: string) => void = (l) => process.stdout.write(l)): number {
  let differing = 0;
  for (const [rel, text] of files) {
    const abs = join(root, rel);
    if (existsSync(abs) && readFileSync(abs, "utf8") === text) continue;
    differing++;
    if (check) out(`differs: ${rel}\n`);
    else {
      writeFileAtomic(abs, text);
      out(`wrote ${rel}\n`);
    }
  }
  if (check) {
    out(differing === 0 ? `all ${files.size} ${w.noun} ${w.agree}\n` : `${differing} of ${files.size} ${w.noun} differ; run ${w.program}\n`);
    return differing === 0 ? 0 : 1;
  }
  out(`${files.size} ${w.noun} up to date\n`);
  return 0;
}

/** Runs a script's main: its status as the exit code; a UserError's message alone on stderr. */
export function runMain(main: () => number): void {
  try {
    process.exitCode = main();
  } catch (err) {
    if (err instanceof UserError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = err.exitCode;
    } else {
      throw err;
    }
  }
}
