/**
 * The April 2026 regression report (Salvatore Dipietro, LKML, 2026-04-03): its post
 * and replies are not in the stored archives, so data/published/dipietro-2026 keeps
 * the figures as public write-ups print them, one per line:
 * `id | figure as printed, or "paraphrase: …" | where printed`, "#" lines are comments.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError, UserError, quoteFound } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { splitLines } from "../parse/text.js";
import { loadProvenance, type Provenance } from "./index.js";

/** One line of secondary-figures.raw.txt. */
export interface SecondaryFigure {
  id: string;
  /** The figure as the write-up prints it, or our paraphrase of its prose. */
  printed: string;
  paraphrase: boolean;
  /** The write-up's address (or a description of where it is). */
  where: string;
  file: string;
  line: number;
}

export const DIPIETRO_FIGURES_FILE = "data/published/dipietro-2026/secondary-figures.raw.txt";

/** Parses the lines; a line without three "|"-separated fields or a repeated id is a ParseError. */
export function parseSecondaryFigures(text: string, file: string): SecondaryFigure[] {
  const out: SecondaryFigure[] = [];
  splitLines(text).forEach((l, i) => {
    if (l.trim() === "" || l.startsWith("#")) return;
    const f = l.split(" | ");
    if (f.length !== 3 || f.some((x) => x.trim() === "")) throw new ParseError(file, i + 1, '"id | printed | where" (three fields)', quoteFound(l));
    const id = f[0]!.trim();
    if (!/^[a-z0-9-]+$/.test(id)) throw new ParseError(file, i + 1, "an id of lower-case letters, digits and dashes", quoteFound(id));
    if (out.some((x) => x.id === id)) throw new ParseError(file, i + 1, `a new id (${id} is already on line ${out.find((x) => x.id === id)!.line})`, quoteFound(id));
    const printed = f[1]!.trim();
    const paraphrase = printed.startsWith("paraphrase:");
    out.push({ id, printed: paraphrase ? printed.slice("paraphrase:".length).trim() : printed, paraphrase, where: f[2]!.trim(), file, line: i + 1 });
  });
  return out;
}

export interface Dipietro2026 {
  provenance: Provenance;
  figures: SecondaryFigure[];
}

export function loadDipietro2026(): Dipietro2026 {
  let text: string;
  try {
    text = readFileSync(join(repoRoot(), DIPIETRO_FIGURES_FILE), "utf8");
  } catch (err) {
    throw new UserError(`${DIPIETRO_FIGURES_FILE}: cannot read the published data (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return { provenance: loadProvenance("dipietro-2026"), figures: parseSecondaryFigures(text, DIPIETRO_FIGURES_FILE) };
}

/** The figure `id`, or a UserError naming the file. */
export function secondaryFigure(d: Dipietro2026, id: string): SecondaryFigure {
  const f = d.figures.find((x) => x.id === id);
  if (!f) throw new UserError(`${DIPIETRO_FIGURES_FILE}: expected a line "${id} | …", found none`);
  return f;
}

/** The number `re` captures (group 1; thousands commas allowed) in a printed figure, or a ParseError naming its line. */
export function printedNumber(f: SecondaryFigure, re: RegExp): { value: number; text: string } {
  const m = re.exec(f.printed);
  if (!m || !/^\d{1,3}(?:,\d{3})*(?:\.\d+)?$|^\d+(?:\.\d+)?$/.test(m[1] ?? "")) throw new ParseError(f.file, f.line, `a number matching ${re}`, quoteFound(f.printed));
  return { value: Number(m[1]!.replace(/,/g, "")), text: m[1]! };
}
