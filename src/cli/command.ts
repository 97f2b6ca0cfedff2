import { UserError } from "../util/errors.js";

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

/**
 * A command made of subcommands (`slicelab NAME SUB …`): runs the one named, or refuses with
 * `expected a subcommand a, b or c, found …` pointing at `slicelab NAME --help`.
 */
export function withSubcommands(
  name: string,
  summary: string,
  usage: string,
  subs: Record<string, (argv: string[]) => Promise<number>>,
): Command {
  const names = Object.keys(subs);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : (names[0] ?? "");
  return {
    name,
    summary,
    usage,
    async run(argv: string[]): Promise<number> {
      const [sub, ...rest] = argv;
      const fn = sub === undefined ? undefined : subs[sub];
      if (fn && Object.hasOwn(subs, sub as string)) return fn(rest);
      throw new UserError(`expected a subcommand ${list}, found ${sub === undefined ? "none" : `"${sub}"`} (see \`slicelab ${name} --help\`)`);
    },
  };
}
