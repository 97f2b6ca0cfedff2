/**
 * Errors meant for the person at the terminal. The CLI prints `message` alone
 * (no stack trace) and exits with `exitCode`.
 */
export class UserError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "UserError";
    this.exitCode = exitCode;
  }
}

/** An input file that does not have the expected shape: `FILE:LINE: expected …, found …`. */
export class ParseError extends UserError {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, expected: string, found: string) {
    super(`${file}:${line}: expected ${expected}, found ${found}`, 2);
    this.name = "ParseError";
    this.file = file;
    this.line = line;
  }
}

/** Shortens a line for inclusion in an error message. */
export function quoteFound(text: string | undefined, max = 80): string {
  if (text === undefined) return "end of file";
  const t = text.trimEnd();
  if (t.length === 0) return "an empty line";
  return JSON.stringify(t.length > max ? `${t.slice(0, max)}…` : t);
}
