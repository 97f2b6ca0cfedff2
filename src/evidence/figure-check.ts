/** The checker: an entry's sentence and figure in its doc and its record's value rounding to the figure; the measured-looking numbers no entry covers. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Doc, FigureEntry } from "./figure-types.js";
import { jsonField } from "./figure-readers.js";
import { FIGURES } from "./figure-table.js";
import { MEASURED_REGIONS, NOT_MEASURED } from "./figure-regions.js";

/** Markdown as the figure check reads it: ** and ` dropped, runs of whitespace as one space. */
export function normalizeDoc(text: string): string {
  return text.replace(/\*\*/g, "").replace(/\s+/g, " ");
}

/** Small counts written as words ("one interval", "three runs per arm"), by value. */
const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** The number in a figure as written ("−2.59%" → -2.59, "±4.28%" → 4.28) and its decimals. */
export function parseFigure(figure: string): { value: number; decimals: number } {
  const m = /([−+-]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)/.exec(figure);
  const word = m ? -1 : NUMBER_WORDS.findIndex((w) => new RegExp(`\\b${w}\\b`, "i").test(figure));
  if (word >= 0) return { value: word, decimals: 0 };
  if (!m) throw new Error(`no number in ${JSON.stringify(figure)}`);
  const sign = m[1] === "−" || m[1] === "-" ? -1 : 1;
  const digits = m[2]!.replace(/,/g, "");
  return { value: sign * Number(digits), decimals: (digits.split(".")[1] ?? "").length };
}

/** The value an entry's record gives. */
export function entryValue(e: FigureEntry, root: string): number {
  const text = readFileSync(join(root, e.record), "utf8");
  return e.value ? e.value(text, root) : jsonField(text, e.field);
}

/** Problems of one entry: its sentence or figure not in the doc, or the record's value rounding to another figure. */
export function checkEntry(e: FigureEntry, docs: Record<Doc, string>, root: string): string[] {
  const doc = normalizeDoc(docs[e.doc]);
  if (!e.sentence.includes(e.figure)) return [`${e.doc}: entry "${e.sentence}": its figure ${e.figure} is not in its sentence`];
  if (!doc.includes(e.sentence)) return [`${e.doc}: expected the sentence "${e.sentence}", found no such words`];
  for (const r of e.alsoReads ?? []) if (!existsSync(join(root, r))) return [`${e.doc}: "${e.figure}": the record ${r} it pools is not in the repository`];
  let v: number;
  try {
    v = entryValue(e, root);
  } catch (err) {
    return [`${e.doc}: "${e.figure}": cannot read ${e.field} of ${e.record}: ${err instanceof Error ? err.message : String(err)}`];
  }
  const f = parseFigure(e.figure);
  const shown = e.figure.startsWith("±") ? Math.abs(v) : v;
  const tol = 0.5 * 10 ** -f.decimals + 1e-9;
  if (Math.abs(shown - f.value) > tol) {
    return [`${e.doc}: "${e.sentence}": expected ${e.figure} from ${e.record} ${e.field} = ${v}, which rounds to ${shown.toFixed(f.decimals)}`];
  }
  return [];
}

/** Measured-looking numbers: decimals, percentages, "N-fold". */
const MEASURED_RE = /[−+±-]?\d+(?:\.\d+)?(?:%|-fold)|[−+±-]?\d+\.\d+/g;
/** In a region with `integers`: every number, with thousands separators ("2,106"). */
const MEASURED_INT_RE = /[−+±-]?\d[\d,]*(?:\.\d+)*(?:%|-fold)?/g;
/** Dates and times are not measurements: masked before the integer scan. */
const DATE_TIME_RE = /\d{4}-\d{2}-\d{2}|\d{2}:\d{2}(?::\d{2})?/g;

/** Measured-looking numbers in the measured regions that no entry (or NOT_MEASURED) covers. */
export function uncovered(docs: Record<Doc, string>): string[] {
  const out: string[] = [];
  for (const reg of MEASURED_REGIONS) {
    const doc = normalizeDoc(docs[reg.doc]);
    const from = doc.indexOf(reg.from);
    const to = from < 0 ? -1 : doc.indexOf(reg.to, from + reg.from.length);
    if (from < 0 || to < 0) {
      out.push(`${reg.doc}: measured region "${reg.from}" … "${reg.to}" not found`);
      continue;
    }
    const covered: [number, number][] = [];
    const cover = (sentence: string, figure: string) => {
      for (let at = doc.indexOf(sentence, from); at >= 0 && at < to; at = doc.indexOf(sentence, at + 1)) {
        const f = at + sentence.indexOf(figure);
        covered.push([f, f + figure.length]);
      }
    };
    for (const e of FIGURES) if (e.doc === reg.doc) cover(e.sentence, e.figure);
    for (const e of NOT_MEASURED) if (e.doc === reg.doc) cover(e.sentence, e.figure);
    const text = reg.integers ? doc.slice(from, to).replace(DATE_TIME_RE, (d) => " ".repeat(d.length)) : doc.slice(from, to);
    for (const m of text.matchAll(reg.integers ? MEASURED_INT_RE : MEASURED_RE)) {
      const s = from + m.index!;
      // Versions (7.2.13) and trailing separators ("16," of a list) are not figures of their own.
      if (reg.integers && /\d\.\d+\.\d/.test(m[0])) continue;
      // Inside a code span or a record path (data/runs/…-20261130T…): not a figure.
      const before = text.slice(0, m.index!);
      if ((before.match(/`/g) ?? []).length % 2 === 1) continue;
      if (!covered.some(([a, b]) => s >= a - 1 && s + m[0].length <= b + 1)) {
        out.push(`${reg.doc}: "${doc.slice(Math.max(from, s - 40), Math.min(to, s + m[0].length + 20))}": ${m[0]} looks measured but has no entry in src/evidence/figures.ts`);
      }
    }
  }
  return out;
}
