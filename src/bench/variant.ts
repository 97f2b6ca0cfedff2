import { UserError } from "../util/errors.js";

/**
 * A variant is one arm of a comparison. What differs between arms can be the
 * PostgreSQL build (`bin=PREFIX/bin`), runtime settings (`setting:huge_pages=on`),
 * the server's environment (`env:GLIBC_TUNABLES=…`) and, for the VM runner, the
 * kernel and its boot parameters (`kernel=PATH`, `boot:PARAM`).
 *
 * SPEC is a comma-separated list of items (write `\,` for a comma inside a value):
 *   bin=DIR            PostgreSQL bin directory (default: Debian's)
 *   setting:NAME=VALUE server setting (a GUC) for every workload
 *   env:NAME=VALUE     environment variable of the server
 *   kernel=PATH        kernel image (VM runs only)
 *   boot:PARAM         kernel boot parameter (VM runs only)
 *   default            nothing changed (also: an empty SPEC)
 */
export interface Variant {
  name: string;
  /** The SPEC as given. */
  spec: string;
  bin?: string;
  settings: Record<string, string>;
  env: Record<string, string>;
  kernel?: string;
  boot: string[];
}

const VARIANT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const KINDS = "bin=DIR, setting:NAME=VALUE, env:NAME=VALUE, kernel=PATH, boot:PARAM or default";

/** Splits on commas not preceded by a backslash and unescapes `\,`. */
function splitItems(spec: string): string[] {
  const items: string[] = [];
  let cur = "";
  for (let i = 0; i < spec.length; i++) {
    const ch = spec[i] as string;
    if (ch === "\\" && spec[i + 1] === ",") {
      cur += ",";
      i++;
    } else if (ch === ",") {
      items.push(cur);
      cur = "";
    } else cur += ch;
  }
  items.push(cur);
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
}

function keyValue(item: string, prefix: string, what: string, arg: string): [string, string] {
  const rest = item.slice(prefix.length);
  const eq = rest.indexOf("=");
  if (eq <= 0) throw new UserError(`--variant ${arg}: expected ${prefix}NAME=VALUE, found "${item}"`);
  const k = rest.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(k)) throw new UserError(`--variant ${arg}: expected a ${what} name in "${item}", found "${k}"`);
  return [k, rest.slice(eq + 1)];
}

/** Parses `--variant NAME=SPEC`. */
export function parseVariant(arg: string): Variant {
  const eq = arg.indexOf("=");
  const name = eq < 0 ? arg : arg.slice(0, eq);
  const spec = eq < 0 ? "" : arg.slice(eq + 1);
  if (!VARIANT_NAME_RE.test(name)) {
    throw new UserError(`--variant ${arg}: expected NAME=SPEC with NAME made of letters, digits, ".", "_" or "-", found "${name}"`);
  }
  const v: Variant = { name, spec, settings: {}, env: {}, boot: [] };
  for (const item of splitItems(spec)) {
    if (item === "default") continue;
    if (item.startsWith("bin=")) {
      if (v.bin !== undefined) throw new UserError(`--variant ${arg}: bin= given twice`);
      v.bin = item.slice(4);
      if (!v.bin) throw new UserError(`--variant ${arg}: expected bin=DIR, found an empty DIR`);
    } else if (item.startsWith("setting:")) {
      const [k, val] = keyValue(item, "setting:", "setting", arg);
      v.settings[k] = val;
    } else if (item.startsWith("env:")) {
      const [k, val] = keyValue(item, "env:", "environment variable", arg);
      v.env[k] = val;
    } else if (item.startsWith("kernel=")) {
      v.kernel = item.slice(7);
    } else if (item.startsWith("boot:")) {
      v.boot.push(item.slice(5));
    } else {
      throw new UserError(`--variant ${arg}: expected items ${KINDS}, found "${item}"`);
    }
  }
  return v;
}

/** Parses every --variant and checks that names are distinct; none given → one variant "base". */
export function parseVariants(args: string[]): Variant[] {
  const vs = args.length === 0 ? [parseVariant("base=default")] : args.map(parseVariant);
  const seen = new Set<string>();
  for (const v of vs) {
    if (seen.has(v.name)) throw new UserError(`--variant ${v.name}: the name is used twice; each variant needs its own name`);
    seen.add(v.name);
  }
  return vs;
}

/** The variant as stored in series.json: its parsed form, stable key order. */
export function variantRecord(v: Variant): Record<string, unknown> {
  return { name: v.name, spec: v.spec, bin: v.bin ?? null, settings: v.settings, env: v.env, kernel: v.kernel ?? null, boot: v.boot };
}
