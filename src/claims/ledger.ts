/**
 * The claims ledger: every quantitative claim of the four source posts, recomputed
 * from the posted raw numbers in data/published/, with an uncertainty, a verdict and
 * a one-line reason. Deterministic: the same options give byte-identical JSON.
 */
import { fact, loadSangappa2024 } from "../published/index.js";
import { UserError } from "../util/errors.js";
import type { ClaimEntry } from "./entry.js";
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

/** Builds the whole ledger from data/published/, then the entries of `options.series` (synchronous). */
export function buildLedger(options: LedgerOptions = {}): ClaimEntry[] {
  const o = ledgerOptions(options);
  const sangappa = loadSangappa2024();
  const ext = fact(sangappa.provenance, "extension_us");
  if (typeof ext !== "number") throw new UserError(`sangappa-2024/provenance.json: expected a number for "extension_us", found ${JSON.stringify(ext)}`);
  return [
    ...rostedtClaims(rostedtInput(), o),
    ...sangappaClaims(sangappaInput(sangappa), ext),
    ...lahrClaims(lahrInput()),
    ...luClaims(luInput()),
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
