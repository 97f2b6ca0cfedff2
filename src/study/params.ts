import { UserError } from "../util/errors.js";

/**
 * The parameters of an experiment driver, declared once: their kind, default
 * and bounds. A study file's `params` and `study run --param K=V` go through the
 * same `resolveParams`, so every experiment parses its options in one place.
 */
export type ParamSpec =
  | { name: string; kind: "int"; default?: number; min: number; doc: string }
  | { name: string; kind: "number"; default?: number; above: number; doc: string }
  | { name: string; kind: "bool"; default: boolean; doc: string }
  | { name: string; kind: "enum"; default: string; choices: readonly string[]; doc: string }
  | { name: string; kind: "list"; default?: readonly string[]; choices: readonly string[]; doc: string }
  | { name: string; kind: "string"; default?: string; pattern?: RegExp; patternText?: string; doc: string };

export type ParamValue = number | boolean | string | string[] | undefined;
export type Params = Record<string, ParamValue>;

/** What a parameter's value must look like, in words (for errors and `study show`). */
export function paramExpected(s: ParamSpec): string {
  switch (s.kind) {
    case "int":
      return `a whole number ≥ ${s.min}`;
    case "number":
      return `a number > ${s.above}`;
    case "bool":
      return "true or false";
    case "enum":
      return s.choices.map((c) => `"${c}"`).join(" or ");
    case "list":
      return `a comma-separated list of ${s.choices.join(", ")}`;
    case "string":
      return s.patternText ?? "a non-empty string";
  }
}

/** One value checked against its spec; undefined when it does not fit. */
export function parseParam(s: ParamSpec, v: string | number | boolean): ParamValue | typeof BAD {
  const text = String(v).trim();
  switch (s.kind) {
    case "int": {
      const n = typeof v === "number" ? v : /^-?\d+$/.test(text) ? Number(text) : NaN;
      return Number.isInteger(n) && n >= s.min ? n : BAD;
    }
    case "number": {
      const n = typeof v === "number" ? v : text === "" ? NaN : Number(text);
      return Number.isFinite(n) && n > s.above ? n : BAD;
    }
    case "bool":
      return v === true || text === "true" ? true : v === false || text === "false" ? false : BAD;
    case "enum":
      return s.choices.includes(text) ? text : BAD;
    case "list": {
      const xs = text.split(",").map((x) => x.trim());
      return xs.length > 0 && xs.every((x) => s.choices.includes(x)) && new Set(xs).size === xs.length ? xs : BAD;
    }
    case "string":
      return text.length > 0 && (s.pattern === undefined || s.pattern.test(text)) ? text : BAD;
  }
}

export const BAD = Symbol("bad parameter");

/**
 * The driver's parameters from the study file's values overridden by the command line's:
 * every name known, every value of its kind, defaults filled in. `where` names the source of a
 * bad value in the error ("--param" or the study file).
 */
export function resolveParams(
  specs: readonly ParamSpec[],
  layers: { values: Record<string, string | number | boolean>; where: (name: string) => string }[],
): Params {
  const out: Params = {};
  for (const s of specs) out[s.name] = s.default === undefined ? undefined : Array.isArray(s.default) ? [...s.default] : (s.default as ParamValue);
  for (const { values, where } of layers) {
    for (const [k, v] of Object.entries(values)) {
      const s = specs.find((x) => x.name === k);
      if (!s) throw new UserError(`${where(k)}: expected one of the parameters ${specs.map((x) => x.name).join(", ")}, found "${k}"`);
      const p = parseParam(s, v);
      if (p === BAD) throw new UserError(`${where(k)}: expected ${k} to be ${paramExpected(s)}, found ${JSON.stringify(v)}`);
      out[k] = p;
    }
  }
  return out;
}

/** The typed accessors a driver reads its resolved parameters with. */
export function paramReader(p: Params) {
  const get = (k: string): ParamValue => {
    if (!(k in p)) throw new Error(`driver parameter ${k} is not declared`);
    return p[k];
  };
  return {
    int: (k: string) => get(k) as number,
    num: (k: string) => get(k) as number,
    bool: (k: string) => get(k) as boolean,
    str: (k: string) => get(k) as string,
    opt: (k: string) => get(k) as string | undefined,
    list: (k: string) => get(k) as string[] | undefined,
  };
}
