/**
 * Just enough Kconfig to explain why a requested option did not survive
 * olddefconfig: config fragments and .config files as records, the
 * definition(s) of a symbol with their `depends on` / prompt `if` conditions,
 * and the evaluation of those conditions against the resulting .config.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { ParseError } from "../util/errors.js";

/** One `CONFIG_X=value` or `# CONFIG_X is not set` line of a fragment. */
export interface ConfigEntry {
  name: string; // without the CONFIG_ prefix
  value: string; // "y", "m", "n", a number or a quoted string as written
  file: string;
  line: number;
}

/** Parses a config fragment (or a whole .config): comments and blank lines are skipped. */
export function parseConfigFragment(text: string, file: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    const unset = /^# CONFIG_([A-Za-z0-9_]+) is not set$/.exec(line);
    if (unset) {
      out.push({ name: unset[1]!, value: "n", file, line: i + 1 });
      return;
    }
    if (line.startsWith("#")) return;
    const m = /^CONFIG_([A-Za-z0-9_]+)=(.*)$/.exec(line);
    if (!m) throw new ParseError(file, i + 1, "CONFIG_NAME=value or `# CONFIG_NAME is not set`", JSON.stringify(line));
    out.push({ name: m[1]!, value: m[2]!, file, line: i + 1 });
  });
  return out;
}

/** A .config as a map from symbol (no prefix) to value; unset symbols are absent. */
export function readDotConfig(text: string, file = ".config"): Map<string, string> {
  const map = new Map<string, string>();
  for (const e of parseConfigFragment(text, file)) if (e.value !== "n") map.set(e.name, e.value);
  return map;
}

/** The value a .config gives a symbol, "n" when unset or absent. */
export function configValue(config: Map<string, string>, name: string): string {
  return config.get(name) ?? "n";
}

/** One place a symbol is defined. */
export interface KconfigDefinition {
  file: string; // relative to the tree
  line: number;
  type: string | undefined; // bool, tristate, int, …
  /** The prompt's `if` condition, or "" when the prompt is unconditional; undefined: no prompt at all. */
  promptIf: string | undefined;
  dependsOn: string[];
  /** `if …` blocks and `menu … depends on` that enclose the definition. */
  enclosing: string[];
  /** `choice` the symbol belongs to, by its prompt. */
  choice?: string;
}

function listKconfigFiles(dir: string, out: string[] = []): string[] {
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    if (ent.name.startsWith(".")) continue;
    const p = join(dir, ent.name);
    if (ent.isDirectory()) {
      if (ent.name === "Documentation" || ent.name === "tools" || ent.name === "samples") continue;
      listKconfigFiles(p, out);
    } else if (ent.name.startsWith("Kconfig")) out.push(p);
  }
  return out;
}

/**
 * Finds every definition of `symbol` in the tree's Kconfig files. Enclosing
 * `if`/`menu depends on` conditions are tracked within the defining file only
 * (a `source`d file's outer conditions are not followed).
 */
export function findKconfigDefinitions(treeDir: string, symbol: string): KconfigDefinition[] {
  const defs: KconfigDefinition[] = [];
  const head = new RegExp(`^\\s*(?:menu)?config\\s+${symbol}\\s*$`);
  for (const path of listKconfigFiles(treeDir)) {
    const text = readFileSync(path, "utf8");
    if (!text.includes(symbol)) continue;
    const lines = text.split("\n");
    const stack: { kind: "if" | "menu" | "choice"; cond?: string; prompt?: string }[] = [];
    let cur: KconfigDefinition | undefined;
    let inHelp = false;
    let helpIndent = -1;
    let inOtherEntry = false;
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i]!;
      if (inHelp) {
        // Help text ends at the first non-blank line indented less than its first line.
        const indent = raw.match(/^\s*/)![0].replace(/\t/g, "        ").length;
        if (raw.trim() === "") continue;
        if (helpIndent < 0) helpIndent = indent;
        if (indent >= helpIndent && indent > 0) continue;
        inHelp = false;
      }
      const line = raw.replace(/#.*$/, "").trim();
      if (line === "") continue;
      const kw = line.split(/\s+/)[0]!;
      if (/^(config|menuconfig|choice|endchoice|menu|endmenu|if|endif|comment|source|mainmenu)$/.test(kw)) {
        if (cur) {
          defs.push(cur);
          cur = undefined;
        }
        // Inside another symbol's entry, its `depends on` belong to it, not to the enclosing menu/choice.
        inOtherEntry = kw === "config" || kw === "menuconfig" || kw === "comment";
      }
      if (head.test(raw)) {
        const enclosing = stack.filter((s) => s.cond).map((s) => s.cond!);
        const choice = [...stack].reverse().find((s) => s.kind === "choice");
        inOtherEntry = false;
        cur = { file: relative(treeDir, path), line: i + 1, type: undefined, promptIf: undefined, dependsOn: [], enclosing };
        if (choice) {
          cur.choice = choice.prompt ?? "(unnamed choice)";
          if (choice.cond) cur.enclosing = [...enclosing];
        }
        continue;
      }
      if (kw === "if") stack.push({ kind: "if", cond: line.slice(2).trim() });
      else if (kw === "endif") popKind(stack, "if");
      else if (kw === "menu") stack.push({ kind: "menu" });
      else if (kw === "endmenu") popKind(stack, "menu");
      else if (kw === "choice") stack.push({ kind: "choice" });
      else if (kw === "endchoice") popKind(stack, "choice");
      else if (kw === "help" || kw === "---help---") {
        inHelp = true;
        helpIndent = -1;
        continue;
      } else if (kw === "depends" && /^depends\s+on\s+/.test(line)) {
        const cond = line.replace(/^depends\s+on\s+/, "");
        if (cur) cur.dependsOn.push(cond);
        else if (!inOtherEntry) {
          const top = stack[stack.length - 1];
          if (top && (top.kind === "menu" || top.kind === "choice")) top.cond = top.cond ? `(${top.cond}) && (${cond})` : cond;
        }
      } else if (kw === "prompt" && !cur && !inOtherEntry) {
        const top = stack[stack.length - 1];
        if (top && top.kind === "choice") top.prompt = /"([^"]*)"/.exec(line)?.[1];
      } else if (cur && /^(bool|tristate|int|hex|string|prompt|def_bool|def_tristate)$/.test(kw)) {
        if (kw !== "prompt") cur.type = kw.replace(/^def_/, "");
        const pm = /^(?:bool|tristate|int|hex|string|prompt)\s+"(?:[^"\\]|\\.)*"\s*(?:if\s+(.+))?$/.exec(line);
        if (pm) cur.promptIf = pm[1]?.trim() ?? "";
      }
    }
    if (cur) defs.push(cur);
  }
  return defs;
}

function popKind(stack: { kind: string }[], kind: string): void {
  for (let i = stack.length - 1; i >= 0; i--) {
    if (stack[i]!.kind === kind) {
      stack.splice(i);
      return;
    }
  }
}

// ---- expressions -------------------------------------------------------

type Tok = { t: "sym" | "str" | "op"; v: string };

function tokenize(expr: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (/\s/.test(c)) i++;
    else if (expr.startsWith("&&", i) || expr.startsWith("||", i) || expr.startsWith("!=", i) || expr.startsWith("<=", i) || expr.startsWith(">=", i)) {
      toks.push({ t: "op", v: expr.slice(i, i + 2) });
      i += 2;
    } else if ("!()=<>".includes(c)) {
      toks.push({ t: "op", v: c });
      i++;
    } else if (c === '"') {
      const j = expr.indexOf('"', i + 1);
      toks.push({ t: "str", v: expr.slice(i + 1, j < 0 ? expr.length : j) });
      i = j < 0 ? expr.length : j + 1;
    } else {
      const m = /^[A-Za-z0-9_$.-]+/.exec(expr.slice(i));
      if (!m) throw new Error(`cannot read Kconfig expression at "${expr.slice(i)}"`);
      toks.push({ t: "sym", v: m[0] });
      i += m[0].length;
    }
  }
  return toks;
}

const TRI: Record<string, number> = { n: 0, m: 1, y: 2 };

/** Evaluates a Kconfig expression to 0 (n), 1 (m) or 2 (y) against a .config. */
export function evalKconfigExpr(expr: string, config: Map<string, string>): number {
  const toks = tokenize(expr);
  let pos = 0;
  const peek = (): Tok | undefined => toks[pos];
  const valueOf = (tok: Tok): string => {
    if (tok.t === "str") return tok.v;
    if (tok.v === "y" || tok.v === "m" || tok.v === "n") return tok.v;
    if (/^-?\d+$/.test(tok.v) || /^0x[0-9a-f]+$/i.test(tok.v)) return config.get(tok.v) ?? tok.v;
    return configValue(config, tok.v);
  };
  const tri = (v: string): number => TRI[v] ?? 0;
  const primary = (): number => {
    const tok = toks[pos++];
    if (!tok) throw new Error(`unexpected end of Kconfig expression "${expr}"`);
    if (tok.t === "op" && tok.v === "!") return 2 - primary();
    if (tok.t === "op" && tok.v === "(") {
      const v = or();
      pos++; // ")"
      return v;
    }
    const next = peek();
    if (next && next.t === "op" && ["=", "!=", "<", ">", "<=", ">="].includes(next.v)) {
      pos++;
      const rhs = toks[pos++]!;
      const a = valueOf(tok);
      const b = valueOf(rhs);
      const num = /^-?\d+$/.test(a) && /^-?\d+$/.test(b);
      const cmp = num ? Number(a) - Number(b) : a === b ? 0 : a < b ? -1 : 1;
      const ok = { "=": cmp === 0, "!=": cmp !== 0, "<": cmp < 0, ">": cmp > 0, "<=": cmp <= 0, ">=": cmp >= 0 }[next.v as "="]!;
      return ok ? 2 : 0;
    }
    return tri(valueOf(tok));
  };
  const and = (): number => {
    let v = primary();
    while (peek()?.v === "&&") {
      pos++;
      v = Math.min(v, primary());
    }
    return v;
  };
  const or = (): number => {
    let v = and();
    while (peek()?.v === "||") {
      pos++;
      v = Math.max(v, and());
    }
    return v;
  };
  return or();
}

/** Symbols an expression mentions (not the constants y/m/n or numbers). */
export function exprSymbols(expr: string): string[] {
  return [...new Set(tokenize(expr).filter((t) => t.t === "sym" && !/^(y|m|n|-?\d+|0x[0-9a-f]+)$/i.test(t.v)).map((t) => t.v))];
}

/** Splits an expression into its top-level `&&` terms. */
export function conjuncts(expr: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (depth === 0 && expr.startsWith("&&", i)) {
      out.push(expr.slice(start, i).trim());
      start = i + 2;
      i++;
    }
  }
  out.push(expr.slice(start).trim());
  return out.filter((s) => s !== "");
}
