import { UserError } from "../util/errors.js";
import { wantsHelp } from "./command.js";
import { commands } from "./registry.js";

async function topUsage(): Promise<string> {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines: string[] = [];
  for (const entry of commands) {
    const summary = await entry.load().then(
      (c) => c.summary,
      (err: unknown) => `(cannot be loaded: ${err instanceof Error ? err.message : String(err)})`,
    );
    lines.push(`  ${entry.name.padEnd(width)}  ${summary}`);
  }
  return [
    "usage: slicelab COMMAND [ARGS…] [--json]",
    "",
    "Reproducibility kit for user-space lock-holder preemption and the Linux",
    "rseq time-slice extension, with PostgreSQL as the workload.",
    "",
    "commands:",
    ...lines,
    "",
    "Run `slicelab COMMAND --help` for a command's options.",
  ].join("\n");
}

/** Runs the CLI and returns the exit status; never throws for user errors. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${await topUsage()}\n`);
    return name === undefined ? 2 : 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`slicelab: unknown command "${name}"\n\n${await topUsage()}\n`);
    return 2;
  }
  const cmd = await entry.load();
  if (wantsHelp(rest)) {
    process.stdout.write(`${cmd.usage.trimEnd()}\n`);
    return 0;
  }
  try {
    return await cmd.run(rest);
  } catch (err) {
    if (err instanceof UserError) {
      process.stderr.write(`slicelab ${cmd.name}: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}
