import type { Verdict } from "./verdicts.js";

/**
 * The source posts (see data/published/): the four seed posts (../shared/seeds/) and the
 * April 2026 regression report, whose figures come from public write-ups (data/published/dipietro-2026).
 */
export const SOURCES = ["rostedt-2023", "sangappa-2024", "lahr-2001", "lu-2023", "dipietro-2026"] as const;
export type SourceId = (typeof SOURCES)[number];

/** How help texts and notebooks name each source. */
export const SOURCE_TITLES: Readonly<Record<SourceId, string>> = {
  "rostedt-2023": "Rostedt 2023",
  "sangappa-2024": "Sangappa 2024",
  "lahr-2001": "the Lahr 2001 thread",
  "lu-2023": "Lu 2023",
  "dipietro-2026": "Dipietro 2026 (figures from public write-ups)",
};

/**
 * Where an entry's numbers come from: a source post, or (for entries about our own
 * series, src/claims/series.ts) a text naming the series directory, protocol and variants.
 */
export type EntrySource = SourceId | (string & {});

/**
 * What our own runs say about a claim, kept apart from the verdict on the posted numbers:
 * - `reproduced` / `not reproduced`: a record under data/runs/ shows / contradicts the effect;
 * - `not yet reproduced`: we have not run it, or only in a VM under TCG (functional evidence);
 * - `not applicable`: the claim is about the posted arithmetic only.
 */
export const REPRODUCTION_STATUSES = ["reproduced", "not reproduced", "not yet reproduced", "not applicable"] as const;
export type ReproductionStatus = (typeof REPRODUCTION_STATUSES)[number];

export interface Reproduction {
  status: ReproductionStatus;
  /** Record directories (data/runs/NAME) that address the claim; each exists in the repository. */
  records: string[];
  /** One line: what those records show, or why there are none. */
  note: string;
}

/** A machine-readable number of an entry: finite, or null when undefined (JSON has no NaN). */
export type ClaimValue = number | null;

/**
 * One quantitative claim of a source post, checked against the posted numbers.
 * Keys are always in this order (the JSON output of `slicelab claims --json` is stable).
 */
export interface ClaimEntry {
  /** Stable identifier, `<source>/<claim>`, e.g. `rostedt-2023/difference-beyond-noise`; for our series `series:<dirname>:<claim>`. */
  id: string;
  source: EntrySource;
  /** The claim, in the post's words where it has them (quoted). */
  claim: string;
  /** Where the claim's words and figures stand: `data/published/<source>/<file>.raw.txt:<line>` (computed, checked). */
  cites: string[];
  /** The published figure(s) exactly as printed in the post. */
  published: string;
  /** What we recompute from the posted raw numbers. */
  recomputed: string;
  /** Uncertainty of the recomputation (interval, rounding bounds), or null when none is meaningful. */
  uncertainty: string | null;
  verdict: Verdict;
  /** One line: why this verdict. */
  reason: string;
  /** Which rows/columns/runs the recomputation used and which assumption it makes. */
  basis: string;
  /** What our own runs say (src/claims/annotations.ts). */
  reproduction: Reproduction;
  /** The key numbers of the recomputation, by name (stable order; used by notebooks and tests). */
  values: Record<string, ClaimValue>;
}

/** Builds an entry with the keys in their fixed order; non-finite values become null. */
export function claimEntry(e: {
  id: string;
  source: EntrySource;
  claim: string;
  published: string;
  recomputed: string;
  uncertainty: string | null;
  verdict: Verdict;
  reason: string;
  basis: string;
  values: Record<string, number | null>;
  cites?: string[];
  reproduction?: Reproduction;
}): ClaimEntry {
  const values: Record<string, ClaimValue> = {};
  for (const [k, v] of Object.entries(e.values)) values[k] = v === null || !Number.isFinite(v) ? null : v;
  return {
    id: e.id,
    source: e.source,
    claim: e.claim,
    cites: e.cites ?? [],
    published: e.published,
    recomputed: e.recomputed,
    uncertainty: e.uncertainty,
    verdict: e.verdict,
    reason: e.reason,
    basis: e.basis,
    reproduction: e.reproduction ?? { status: "not applicable", records: [], note: "" },
    values,
  };
}

/**
 * The name under which notebooks record a ledger value (src/report `recordValue`):
 * `rostedt-2023/smaller-std-dev` + `fTestP` → `rostedt-2023.smaller-std-dev.f-test-p`;
 * key "verdict" names the entry's verdict.
 */
export function claimValueName(id: string, key: string): string {
  const k = key
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
  return `${id.replace("/", ".")}.${k}`;
}

/** Every (name, value) a notebook can record for the ledger: each entry's verdict and values. */
export function ledgerValueNames(ledger: readonly ClaimEntry[]): Map<string, ClaimValue | string> {
  const m = new Map<string, ClaimValue | string>();
  for (const e of ledger) {
    m.set(claimValueName(e.id, "verdict"), e.verdict);
    for (const [k, v] of Object.entries(e.values)) m.set(claimValueName(e.id, k), v);
  }
  return m;
}
