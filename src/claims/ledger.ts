/**
 * The claims ledger: every quantitative claim of the four source posts, recomputed
 * from the posted raw numbers in data/published/, with an uncertainty, a verdict and
 * a one-line reason. Deterministic: the same options give byte-identical JSON.
 */
import { fact, loadDipietro2026, loadSangappa2024 } from "../published/index.js";
import { UserError } from "../util/errors.js";
import type { ClaimEntry, Reproduction } from "./entry.js";
import { ANNOTATIONS } from "./annotations.js";
import { citeLine } from "./cite.js";
import { dipietroClaims } from "./dipietro.js";
import { recordDir } from "./records.js";
import { missingClaims } from "./missing.js";
import { statementClaims } from "./statements.js";
import { lahrInput, luInput, rostedtInput, sangappaInput } from "./inputs.js";
import { lahrClaims } from "./lahr.js";
import { luClaims } from "./lu.js";
import { rostedtClaims, type RostedtOptions } from "./rostedt.js";
import { sangappaClaims } from "./sangappa.js";
import { seriesClaims, type SeriesClaimsOptions } from "./series.js";

/** Options of the statistical checks. */
export interface LedgerOptions {
  /** Bootstrap seed (default 1). */
  seed?: number;
  /** Bootstrap resamples (default 10000). */
  resamples?: number;
  /** Significance level and 1 − confidence of the intervals (default 0.05). */
  alpha?: number;
  /** Series directories (`slicelab bench run --out DIR`) whose Rostedt-2023 entries follow the published ones (series.ts). */
  series?: (string | ({ dir: string } & Pick<SeriesClaimsOptions, "a" | "b" | "workload">))[];
}

/** The defaults every consumer (CLI, notebooks, report, tests) uses, so their numbers agree. */
export const LEDGER_DEFAULTS: Readonly<Required<Omit<LedgerOptions, "series">>> = { seed: 1, resamples: 10000, alpha: 0.05 };

/** Fills in the defaults and checks the ranges. */
export function ledgerOptions(o: LedgerOptions = {}): RostedtOptions {
  const r = { seed: o.seed ?? LEDGER_DEFAULTS.seed, resamples: o.resamples ?? LEDGER_DEFAULTS.resamples, alpha: o.alpha ?? LEDGER_DEFAULTS.alpha };
  if (!Number.isSafeInteger(r.seed) || r.seed < 0) throw new UserError(`--seed expects a non-negative integer, got ${r.seed}`);
  if (!Number.isSafeInteger(r.resamples) || r.resamples < 100) throw new UserError(`--resamples expects an integer ≥ 100, got ${r.resamples}`);
  if (!(r.alpha > 0 && r.alpha < 1)) throw new UserError(`--alpha expects a number between 0 and 1, got ${r.alpha}`);
  return r;
}

/**
 * Adds the citations and the reproduction status of src/claims/annotations.ts to an entry
 * of a source post (entries that carry their own keep them); every such entry must cite.
 */
function annotate(e: ClaimEntry): ClaimEntry {
  const a = ANNOTATIONS[e.id];
  const cites = e.cites.length > 0 ? e.cites : (a?.cites ?? []).map(([file, words]) => citeLine(e.source, file, words));
  if (cites.length === 0) throw new UserError(`src/claims/annotations.ts: expected citations for the ledger entry ${e.id}, found none`);
  const own = e.reproduction.status !== "not applicable" || e.reproduction.records.length > 0 || e.reproduction.note !== "";
  const reproduction: Reproduction = own
    ? e.reproduction
    : a?.reproduction
      ? { status: a.reproduction.status, records: a.reproduction.records.map(recordDir), note: a.reproduction.note }
      : { status: "not applicable", records: [], note: "the posted arithmetic only" };
  // "not applicable" means no run of ours bears on the claim: an entry that links a record must say what it shows.
  if (reproduction.status === "not applicable" && reproduction.records.length > 0) {
    throw new UserError(`ledger entry ${e.id}: reproduction "not applicable" but it links ${reproduction.records.join(", ")}; a linked record needs a status that says what it shows`);
  }
  return { ...e, cites, reproduction };
}

/** Builds the whole ledger from data/published/, then the entries of `options.series` (synchronous). */
export function buildLedger(options: LedgerOptions = {}): ClaimEntry[] {
  const o = ledgerOptions(options);
  const sangappa = loadSangappa2024();
  const ext = fact(sangappa.provenance, "extension_us");
  if (typeof ext !== "number") throw new UserError(`sangappa-2024/provenance.json: expected a number for "extension_us", found ${JSON.stringify(ext)}`);
  const lu = luClaims(luInput());
  const slowpath = lu.find((e) => e.id === "lu-2023/rq-lock-contention")?.values.slowpathSelfAfterPct;
  if (typeof slowpath !== "number") throw new UserError("lu-2023/rq-lock-contention: expected the value slowpathSelfAfterPct");
  const st = statementClaims(slowpath);
  const rostedt = [...rostedtClaims(rostedtInput(), o), ...st.rostedt];
  const lahrData = lahrInput();
  const more = missingClaims(lahrData, rostedt);
  const published = [
    ...rostedt,
    ...more.rostedt,
    ...sangappaClaims(sangappaInput(sangappa), ext),
    ...st.sangappa,
    ...more.sangappa,
    ...lahrClaims(lahrData),
    ...more.lahr,
    ...lu,
    ...st.lu,
    ...more.lu,
    ...dipietroClaims(loadDipietro2026()),
  ].map(annotate);
  return [
    ...published,
    ...(options.series ?? []).flatMap((x) =>
      typeof x === "string" ? seriesClaims(x, o) : seriesClaims(x.dir, { ...o, a: x.a, b: x.b, workload: x.workload }),
    ),
  ];
}

/** The entry with `id`, or a UserError listing the ids. */
export function findClaim(ledger: readonly ClaimEntry[], id: string): ClaimEntry {
  const e = ledger.find((x) => x.id === id);
  if (!e) throw new UserError(`no claim "${id}"; known ids:\n  ${ledger.map((x) => x.id).join("\n  ")}`);
  return e;
}
