/**
 * Loaders for the published data of the four source posts: the tidy files in
 * data/published/<source>/ (built from the raw excerpts by
 * scripts/build-published.ts) and each source's provenance.json.
 *
 * Synchronous and free of side effects: each call reads the committed files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../util/paths.js";
import { UserError } from "../util/errors.js";
import type { LockmeterRow } from "../parse/lockmeter.js";
import type { Outline, ProseFigure } from "../parse/figures.js";
import {
  PUBLISHED_DIR,
  type CommandLine,
  type LahrMachine,
  type LuProfileRow,
  type RostedtReported,
  type RostedtRun,
  type SangappaResult,
} from "./build.js";

export type { CommandLine, LahrMachine, LuProfileRow, RostedtReported, RostedtRun, SangappaResult } from "./build.js";
export type { LockmeterRow } from "../parse/lockmeter.js";
export type { ProseFigure, Outline } from "../parse/figures.js";

/** A fact about a source (protocol, machine, version…), with the words of the post it rests on. */
export interface ProvenanceFact {
  id: string;
  value: string | number | boolean | null;
  /** The raw excerpt (file name in the source's folder) that holds the quote. */
  raw: string;
  /** The post's words, with line breaks as spaces and mail quoting removed. */
  quote: string;
  note?: string;
}

/** Where a source's figures come from. */
export interface Provenance {
  source: string;
  subject: string;
  author: string;
  /** ISO 8601 with the sender's UTC offset. */
  date: string;
  /** Without angle brackets; null when it could not be confirmed (see identifier_note). */
  message_id: string | null;
  in_reply_to: string | null;
  url: string;
  list: string;
  /**
   * The seed file the raw excerpts were copied from, relative to the repository root
   * (null in the JSON of dipietro-2026 only, a secondary source: SECONDARY_SOURCES).
   */
  seed: string;
  identifier_note: string;
  facts: ProvenanceFact[];
  [extra: string]: unknown;
}

/** The folder of a source's published data, absolute. */
export function publishedDir(source: string): string {
  return join(repoRoot(), PUBLISHED_DIR, source);
}

function readJson<T>(source: string, name: string): T {
  const path = join(publishedDir(source), name);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`${path}: cannot read the published data (${(err as NodeJS.ErrnoException).code ?? String(err)}); run scripts/build-published`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new UserError(`${path}: not valid JSON (${(err as Error).message})`);
  }
}

/** The provenance of a source ("rostedt-2023", "sangappa-2024", "lahr-2001", "lu-2023"). */
export function loadProvenance(source: string): Provenance {
  return readJson<Provenance>(source, "provenance.json");
}

/** The value of a fact of a provenance, or an error naming the missing fact. */
export function fact(p: Provenance, id: string): ProvenanceFact["value"] {
  const f = p.facts.find((x) => x.id === id);
  if (!f) throw new UserError(`${p.source}/provenance.json: no fact "${id}"`);
  return f.value;
}

export interface Rostedt2023 {
  provenance: Provenance;
  /** All 32 runs: 16 per side, the first of each with role "first". */
  runs: RostedtRun[];
  /** The Average / Std Dev he reported per side (over the 15 measured runs). */
  reported: RostedtReported[];
}

export function loadRostedt2023(): Rostedt2023 {
  return {
    provenance: loadProvenance("rostedt-2023"),
    runs: readJson<RostedtRun[]>("rostedt-2023", "runs.json"),
    reported: readJson<RostedtReported[]>("rostedt-2023", "reported.json"),
  };
}

/** The tps of one side's runs ("measured" = the 15 compared runs; "first" = the discarded one; "all"). */
export function rostedtTps(data: Rostedt2023, side: RostedtRun["side"], role: RostedtRun["role"] | "all" = "measured"): number[] {
  return data.runs.filter((r) => r.side === side && (role === "all" || r.role === role)).map((r) => r.tps);
}

export interface Sangappa2024 {
  provenance: Provenance;
  /** One record per test (Lock table test, Swingbench). */
  results: SangappaResult[];
}

export function loadSangappa2024(): Sangappa2024 {
  return {
    provenance: loadProvenance("sangappa-2024"),
    results: readJson<SangappaResult[]>("sangappa-2024", "results.json"),
  };
}

export interface Lahr2001 {
  provenance: Provenance;
  /** Every lockmeter row of the 2-, 4- and 8-way runs (sections "2way", "4way", "8way"). */
  rows: LockmeterRow[];
  configuration: Outline;
  machines: LahrMachine[];
  /** Spraul's figures for the 8-way run: ids "wall-clock", "cpu-time", "spinning" (seconds). */
  spraul: ProseFigure[];
  /** The rows Anton Blanchard quoted in his reply. */
  blanchardQuote: LockmeterRow[];
  /** Facts from outside the thread (context.json, edited by hand, each with its source): HZ, PostgreSQL's back-off table. */
  context: LahrContextFact[];
}

/** A fact the Lahr claims use that is not in the thread (data/published/lahr-2001/context.json). */
export interface LahrContextFact {
  id: string;
  /** A number, a list of numbers, or (for a tool's definitions) the tool's version. */
  value: number | number[] | string;
  what: string;
  source: string;
  /** Where the fact can be read (a public copy of a source file). */
  url?: string;
  /** lockstat_definitions only: how lockstat computes the columns the claims read. */
  definitions?: Record<string, string>;
}

export function loadLahr2001(): Lahr2001 {
  const conf = readJson<{ outline: Outline; machines: LahrMachine[] }>("lahr-2001", "configuration.json");
  return {
    provenance: loadProvenance("lahr-2001"),
    rows: readJson<LockmeterRow[]>("lahr-2001", "lockmeter.json"),
    configuration: conf.outline,
    machines: conf.machines,
    spraul: readJson<ProseFigure[]>("lahr-2001", "spraul.json"),
    blanchardQuote: readJson<LockmeterRow[]>("lahr-2001", "blanchard-quote.json"),
    context: readJson<{ facts: LahrContextFact[] }>("lahr-2001", "context.json").facts,
  };
}

export interface Lu2023 {
  provenance: Provenance;
  /** perf rows (Children %, Self %) before and after commit af7f588d8f73. */
  profile: LuProfileRow[];
  /** The sysbench prepare and run command lines of the reproducer. */
  sysbench: CommandLine[];
  /** PostgreSQL settings passed to the docker container (-c name=value). */
  postgresSettings: Record<string, string>;
}

export function loadLu2023(): Lu2023 {
  const rep = readJson<{ sysbench: CommandLine[]; postgresSettings: Record<string, string> }>("lu-2023", "reproducer.json");
  return {
    provenance: loadProvenance("lu-2023"),
    profile: readJson<LuProfileRow[]>("lu-2023", "profile.json"),
    sysbench: rep.sysbench,
    postgresSettings: rep.postgresSettings,
  };
}

/** The names of the published sources, in chronological order of their posts. */
export const PUBLISHED_SOURCES = ["lahr-2001", "lu-2023", "rostedt-2023", "sangappa-2024"] as const;

/**
 * Sources whose post is not in the stored archives: their figures are as public write-ups
 * print them (data/published/dipietro-2026/secondary-figures.raw.txt), with no seed to check against.
 */
export const SECONDARY_SOURCES = ["dipietro-2026"] as const;

export { loadDipietro2026, parseSecondaryFigures, printedNumber, secondaryFigure, DIPIETRO_FIGURES_FILE, type Dipietro2026, type SecondaryFigure } from "./dipietro.js";
