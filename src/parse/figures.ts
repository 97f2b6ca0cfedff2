/**
 * Parsers for figures that mail posts give in prose or in light layouts rather
 * than as tool output:
 *
 * - `parseWithWithout`: result blocks of the form
 *       Lock table test:- a simple database test …
 *           Without extension : 182K SQL exec/sec
 *           With extension    : 262K SQL exec/sec
 *       44% improvement.
 *   (Sangappa 2024);
 * - `parseOutline`: an indented `key: value` outline (Lahr 2001's server
 *   configuration) into a nested object;
 * - `extractFigures`: numbers picked out of prose by patterns that describe the
 *   words around them (Spraul 2001: "ran for ~ 129 seconds wall clock time").
 *   Paragraphs are joined first, so a sentence wrapped across lines still matches.
 *
 * All accept mail quoting and report ParseError with the line of the problem.
 */
import { ParseError, quoteFound } from "../util/errors.js";
import { splitLines, unquote } from "./text.js";

/** One side ("with" or "without") of a result block. */
export interface WithWithoutValue {
  line: number;
  /** The figure as printed, e.g. "182K". */
  printed: string;
  /** The figure with its K/M suffix applied, e.g. 182000. */
  value: number;
  /** The unit after the figure, e.g. "SQL exec/sec". */
  unit: string;
}

export interface WithWithoutResult {
  file: string;
  /** Line of the block's title. */
  line: number;
  /** Title of the test, e.g. "Lock table test". */
  test: string;
  /** The rest of the title line and the description lines, joined with spaces. */
  description: string;
  /** The word after With/Without, e.g. "extension". */
  feature: string;
  without: WithWithoutValue;
  with: WithWithoutValue;
  /** The improvement the post states, in percent, or null when it states none. */
  statedImprovementPct: number | null;
  statedImprovementLine: number | null;
  /** The text of the improvement line, e.g. "55% improvement in throughput." */
  statedImprovementText: string | null;
}

const SUFFIX: Record<string, number> = { "": 1, K: 1e3, k: 1e3, M: 1e6, G: 1e9 };

function figure(file: string, line: number, text: string, raw: string): { printed: string; value: number; unit: string } {
  const m = /^(\d+(?:\.\d+)?)([KkMG]?)\s+(.+?)\s*$/.exec(text.trim());
  if (!m) throw new ParseError(file, line, 'a figure "N[K|M] UNIT"', quoteFound(raw));
  return { printed: `${m[1]}${m[2]}`, value: Math.round(Number(m[1]) * SUFFIX[m[2]!]! * 1e6) / 1e6, unit: m[3]! };
}

/** Parses "With X : N UNIT" / "Without X : N UNIT" blocks with their titles and stated improvements. */
export function parseWithWithout(text: string, file: string): WithWithoutResult[] {
  const lines = splitLines(text).map(unquote);
  const out: WithWithoutResult[] = [];
  /** The current paragraph (title and description lines) before a block. */
  let para: { line: number; lines: string[] } | null = null;
  let pending: Partial<WithWithoutResult> & { file: string } | null = null;
  let blank = true;

  const close = (atLine: number, found: string | undefined): void => {
    if (pending === null) return;
    if (!pending.without || !pending.with) {
      const missing = pending.without ? '"With …:" line' : '"Without …:" line';
      throw new ParseError(file, atLine, `a ${missing} completing the result block of "${pending.test}"`, quoteFound(found));
    }
    out.push({
      file,
      line: pending.line!,
      test: pending.test!,
      description: pending.description!,
      feature: pending.feature!,
      without: pending.without,
      with: pending.with,
      statedImprovementPct: pending.statedImprovementPct ?? null,
      statedImprovementLine: pending.statedImprovementLine ?? null,
      statedImprovementText: pending.statedImprovementText ?? null,
    });
    pending = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i]!;
    const t = raw.trim();
    if (t === "") {
      blank = true;
      continue;
    }
    const ww = /^(with|without)\s+(\S+)\s*:\s*(.*)$/i.exec(t);
    if (ww) {
      const side = ww[1]!.toLowerCase() as "with" | "without";
      if (pending === null || (pending.with && pending.without)) {
        if (pending !== null) close(n, raw);
        if (para === null) throw new ParseError(file, n, "a title line before the result block", quoteFound(raw));
        const title = para.lines[0]!;
        const tm = /^(.*?)\s*(?::-|\s-\s|:)\s*(.*)$/.exec(title);
        pending = {
          file,
          line: para.line,
          test: (tm ? tm[1]! : title).trim(),
          description: [tm ? tm[2]! : "", ...para.lines.slice(1)].map((s) => s.trim()).filter((s) => s !== "").join(" "),
          feature: ww[2]!.toLowerCase(),
        };
      }
      if (pending[side]) throw new ParseError(file, n, `one "${side}" line per result block`, quoteFound(raw));
      pending[side] = { line: n, ...figure(file, n, ww[3]!, raw) };
      blank = false;
      continue;
    }
    const imp = /^(\d+(?:\.\d+)?)% improvement\b/i.exec(t);
    if (imp && pending !== null) {
      pending.statedImprovementPct = Number(imp[1]);
      pending.statedImprovementLine = n;
      pending.statedImprovementText = t;
      close(n + 1, lines[n]);
      blank = false;
      continue;
    }
    if (pending !== null && pending.with && pending.without && blank) close(n, raw);
    if (blank || para === null) para = { line: n, lines: [t] };
    else para.lines.push(t);
    blank = false;
  }
  close(Math.max(1, lines.length), undefined);
  return out;
}

/** A nested outline: values are strings (text after the colon) or outlines. */
export interface Outline {
  [key: string]: string | Outline;
}

/**
 * Parses an indented outline of `key: value` lines. A key with an empty value
 * and deeper-indented lines below it becomes a nested outline.
 */
export function parseOutline(text: string, file: string): Outline {
  const lines = splitLines(text).map(unquote);
  const root: Outline = {};
  /** Open levels: the indentation of their keys and the object they fill. */
  const stack: { indent: number | null; node: Outline }[] = [{ indent: null, node: root }];
  let prev: { indent: number; parent: Outline; key: string } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i]!;
    if (raw.trim() === "") continue;
    const indent = /^\s*/.exec(raw)![0].replace(/\t/g, "        ").length;
    const m = /^\s*([^:]+?):(?:\s+(.*?))?\s*$/.exec(raw);
    if (!m) throw new ParseError(file, n, 'an outline line "key: value" or "key:"', quoteFound(raw));
    if (prev !== null && indent > prev.indent) {
      // Lines below a key: that key must have no value of its own.
      if (prev.parent[prev.key] !== "") {
        throw new ParseError(file, n, `a line at the indentation of "${prev.key}" (it already has a value)`, quoteFound(raw));
      }
      const child: Outline = {};
      prev.parent[prev.key] = child;
      stack.push({ indent, node: child });
    } else {
      while (stack.length > 1 && indent < stack[stack.length - 1]!.indent!) stack.pop();
    }
    const top = stack[stack.length - 1]!;
    if (top.indent === null) top.indent = indent;
    if (indent !== top.indent) {
      throw new ParseError(file, n, "an indentation matching an enclosing level of the outline", quoteFound(raw));
    }
    const key = m[1]!.trim();
    if (key in top.node) throw new ParseError(file, n, `one "${key}" entry at this level`, quoteFound(raw));
    top.node[key] = m[2] ?? "";
    prev = { indent, parent: top.node, key };
  }
  return root;
}

/** A pattern for a number in prose: `before` and `after` describe the words around it. */
export interface FigureSpec {
  id: string;
  /** Regular expression source matched right before the number (whitespace-tolerant). */
  before: string;
  /** Regular expression source matched right after the number. */
  after: string;
  unit: string;
}

export interface ProseFigure {
  id: string;
  file: string;
  /** Line where the number is printed. */
  line: number;
  value: number;
  unit: string;
  /** The matched words with the number, with line breaks turned into spaces. */
  quote: string;
  /** True when the text marks the figure as approximate ("~", "around", "about"). */
  approximate: boolean;
}

/** Finds each figure of `specs` in the text; a figure not found is a ParseError naming its pattern. */
export function extractFigures(text: string, file: string, specs: FigureSpec[]): ProseFigure[] {
  const lines = splitLines(text).map(unquote);
  // Join all lines with single spaces, remembering where each line starts.
  const starts: number[] = [];
  let joined = "";
  for (const l of lines) {
    starts.push(joined.length);
    joined += `${l.trim()} `;
  }
  const lineAt = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  return specs.map((spec) => {
    const re = new RegExp(`(${spec.before})\\s*(\\d+(?:\\.\\d+)?)\\s*(${spec.after})`, "i");
    const m = re.exec(joined);
    if (!m) {
      throw new ParseError(file, Math.max(1, lines.length), `a figure matching /${spec.before} N ${spec.after}/ (${spec.id})`, "none");
    }
    const numberOffset = m.index + m[0].indexOf(m[2]!, m[1]!.length);
    return {
      id: spec.id,
      file,
      line: lineAt(numberOffset),
      value: Number(m[2]),
      unit: spec.unit,
      quote: m[0].replace(/\s+/g, " ").trim(),
      approximate: /~|\baround\b|\babout\b|\broughly\b/i.test(m[1]!),
    };
  });
}
