import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError } from "../util/errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses a subcommand's argv with node's parseArgs and turns its errors into a
 * UserError that names the command and points at --help.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UserError(`${msg.replace(/\. To specify a positional.*$/s, "")} (see \`slicelab ${command} --help\`)`);
  }
}

/** Parses a numeric option value, naming the option when it is not a number. */
export function numberOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UserError(`--${name} expects a number, got "${value}"`);
  return n;
}

/** Writes a value as JSON on stdout (stable key order as constructed). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
