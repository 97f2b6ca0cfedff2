/**
 * Citations of claim sentences: the file and line of a raw excerpt
 * (data/published/<source>/*.raw.txt) where a phrase of the post begins. The phrase
 * may run over several lines and through mail quoting ("> "); whitespace is collapsed.
 * A phrase that is not in the file is a UserError naming the file and the phrase,
 * so a ledger entry never cites a line that does not hold its words.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { unquote } from "../parse/text.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";

/** Collapsed text of a file and the line each character came from. */
interface Flat {
  text: string;
  lineOf: number[];
}

const cache = new Map<string, Flat>();

function flatten(path: string): Flat {
  const hit = cache.get(path);
  if (hit) return hit;
  let raw: string;
  try {
    raw = readFileSync(join(repoRoot(), path), "utf8");
  } catch (err) {
    throw new UserError(`${path}: cannot read the raw excerpt (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let text = "";
  const lineOf: number[] = [];
  raw.split(/\r?\n/).forEach((l, i) => {
    const t = unquote(l).trim().replace(/\s+/g, " ");
    if (t === "") return;
    if (text !== "") {
      text += " ";
      lineOf.push(i + 1);
    }
    for (const ch of t) {
      text += ch;
      lineOf.push(i + 1);
    }
  });
  // `for…of` iterates code points; keep one entry per UTF-16 unit so indices agree.
  const units: number[] = [];
  let k = 0;
  for (const ch of text) {
    for (let u = 0; u < ch.length; u++) units.push(lineOf[k]!);
    k++;
  }
  const flat = { text, lineOf: units };
  cache.set(path, flat);
  return flat;
}

/** `data/published/<source>/<file>:<line>` of the line where `phrase` begins. */
export function citeLine(source: string, file: string, phrase: string): string {
  const path = `data/published/${source}/${file}`;
  const flat = flatten(path);
  const p = phrase.trim().replace(/\s+/g, " ");
  const at = flat.text.indexOf(p);
  if (at < 0) throw new UserError(`${path}: expected the words ${JSON.stringify(p)} of a ledger citation, found none`);
  return `${path}:${flat.lineOf[at]}`;
}

/** Forgets the files read (tests that write temporary copies use it). */
export function clearCiteCache(): void {
  cache.clear();
}
