import { ParseError } from "./errors.js";

/**
 * Validation of the kit's declarative JSON files (protocols/, studies/): every error names the
 * file, the line of the field and the field (`FILE:LINE: expected FIELD to be …, found …`).
 */

/** JSON.parse, its error turned into a ParseError at the line of the position it names. */
export function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(msg);
    const line = pos ? text.slice(0, Number(pos[1])).split("\n").length : 1;
    throw new ParseError(file, line, "valid JSON", msg);
  }
}

export type JsonPath = (string | number)[];

export function pathText(path: JsonPath): string {
  return path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : s ? `${s}.${p}` : p), "");
}

/**
 * The line of a field: the first `"key"` after its parent's keys. With `countIndices`, an array
 * index followed by a key selects that many occurrences of the key further on (the index-th
 * element's field); without, indices are skipped. A trailing index stays on the array's line.
 */
export function lineOf(text: string, path: JsonPath, countIndices = false): number {
  let pos = 0;
  for (let j = 0; j < path.length; j++) {
    const p = path[j] as string | number;
    if (typeof p === "number") continue;
    const prev = path[j - 1];
    let skip = countIndices && typeof prev === "number" ? prev : 0;
    let i = text.indexOf(`"${p}"`, pos);
    while (skip > 0 && i >= 0) {
      i = text.indexOf(`"${p}"`, i + 1);
      skip--;
    }
    if (i < 0) break;
    pos = i;
  }
  return text.slice(0, pos).split("\n").length;
}

export function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

export class JsonChecker {
  constructor(
    readonly file: string,
    readonly text: string,
    /** Line numbers of array elements' fields counted per element (see lineOf). */
    readonly countIndices = false,
  ) {}
  fail(path: JsonPath, expected: string, found: unknown): never {
    throw new ParseError(this.file, lineOf(this.text, path, this.countIndices), `${pathText(path)} to be ${expected}`, describe(found));
  }
  object(v: unknown, path: JsonPath): Record<string, unknown> {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(path, "an object", v);
    return v as Record<string, unknown>;
  }
  keys(o: Record<string, unknown>, path: JsonPath, allowed: string[], required: string[] = []): void {
    for (const k of Object.keys(o)) if (!allowed.includes(k)) this.fail([...path, k], `one of the fields ${allowed.join(", ")}`, k);
    for (const k of required) if (o[k] === undefined) this.fail(path.length ? path : [k], `an object with the field "${k}"`, Object.keys(o));
  }
  string(v: unknown, path: JsonPath): string {
    if (typeof v !== "string" || v.length === 0) this.fail(path, "a non-empty string", v);
    return v as string;
  }
  int(v: unknown, path: JsonPath, min: number): number {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) this.fail(path, `an integer ≥ ${min}`, v);
    return v as number;
  }
  literal(v: unknown, path: JsonPath): string | number | boolean {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") this.fail(path, "a string, number or boolean", v);
    return v as string | number | boolean;
  }
  oneOf<T extends string>(v: unknown, path: JsonPath, options: readonly T[]): T {
    if (!options.includes(v as T)) this.fail(path, options.map((o) => `"${o}"`).join(" or "), v);
    return v as T;
  }
  stringArray(v: unknown, path: JsonPath, nonEmpty = false): string[] {
    if (!Array.isArray(v) || (nonEmpty && v.length === 0)) this.fail(path, nonEmpty ? "a non-empty array of strings" : "an array of strings", v);
    (v as unknown[]).forEach((x, i) => this.string(x, [...path, i]));
    return v as string[];
  }
}
