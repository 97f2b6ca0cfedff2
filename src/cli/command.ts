/** One `slicelab` subcommand. Each lives in its own file under src/cli/commands/. */
export interface Command {
  /** The word after `slicelab`. */
  name: string;
  /** One line for `slicelab --help`. */
  summary: string;
  /** The full text printed by `slicelab NAME --help`. */
  usage: string;
  /** Runs the command; returns the exit status. Throw UserError for bad input. */
  run(argv: string[]): Promise<number>;
}

/** True when argv asks for help (`--help` or `-h` anywhere before a `--`). */
export function wantsHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--help" || a === "-h") return true;
  }
  return false;
}
