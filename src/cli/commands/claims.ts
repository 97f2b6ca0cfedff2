import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { buildLedger, findClaim, formatClaim, formatLedgerTable, LEDGER_DEFAULTS, seriesClaims, SOURCES, SOURCE_TITLES, VERDICTS, REPRODUCTION_STATUSES, wrap } from "../../claims/index.js";

const NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const sourcesText = `${NUMBER_WORDS[SOURCES.length] ?? String(SOURCES.length)} sources (${SOURCES.map((s) => SOURCE_TITLES[s]).join(", ")})`;

const usage = `usage: slicelab claims [--id ID] [--json] [--seed N] [--resamples N] [--alpha A]
       slicelab claims --series DIR [--a VARIANT --b VARIANT] [--workload NAME] [--id ID] [--json] …

${wrap(`The claims ledger: each quantitative claim of the ${sourcesText} recomputed from the raw numbers they posted (data/published/), with an uncertainty, a verdict, a one-line reason and what our own runs (data/runs/) say about it.`, 84).join("\n")}

${wrap(`Verdicts: ${VERDICTS.join(", ")} (their meanings are printed under the table). Our runs: ${REPRODUCTION_STATUSES.join(", ")}.`, 84).join("\n")}

With --series, the same Rostedt-2023 questions are asked of one of our series
(a directory written by \`slicelab bench run … --out DIR\`): is B − A beyond the
noise (Welch, Mann–Whitney, bootstrap, leave-one-out, and the paired block analysis
for a randomised-block design)? does B have a smaller std dev (F-test,
Brown–Forsythe, bootstrap SD ratio)? are the warm-up runs cold outliers? and the
noise floor (95% CI half-width, minimum detectable effect at 80% power) against
Rostedt's difference. Only these entries are printed (ids series:<dirname>:…).

options:
  --series DIR     ask the Rostedt-2023 claims of the series in DIR (repeatable)
  --a VARIANT      variant A of the series (default: the first series.json declares)
  --b VARIANT      variant B (default: the second declared variant)
  --workload NAME  workload of the series (default: the first declared)
  --id ID          show one claim with every field (e.g. rostedt-2023/smaller-std-dev)
  --json           print JSON: an array of claims (or one claim with --id), keys in a
                   fixed order: id, source, claim, cites, published, recomputed,
                   uncertainty, verdict, reason, basis, reproduction, values
  --seed N         bootstrap seed (default ${LEDGER_DEFAULTS.seed})
  --resamples N    bootstrap resamples (default ${LEDGER_DEFAULTS.resamples})
  --alpha A        significance level, 1 − confidence of the intervals (default ${LEDGER_DEFAULTS.alpha})
  -h, --help       this text

exit status: 0, or 2 for a bad option, an unknown claim id, a DIR that is not a
series, a series with fewer than 2 variants, or a --a/--b it does not have`;

export const claimsCommand: Command = {
  name: "claims",
  summary: "the published claims, recomputed, with uncertainty and verdict",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("claims", argv, {
      id: { type: "string" },
      json: { type: "boolean" },
      seed: { type: "string" },
      resamples: { type: "string" },
      alpha: { type: "string" },
      series: { type: "string", multiple: true },
      a: { type: "string" },
      b: { type: "string" },
      workload: { type: "string" },
    });
    if (positionals.length > 0) {
      throw new UserError(`unexpected argument "${positionals[0]}" (see \`slicelab claims --help\`)`);
    }
    const stats = {
      seed: numberOption("seed", values.seed, LEDGER_DEFAULTS.seed),
      resamples: numberOption("resamples", values.resamples, LEDGER_DEFAULTS.resamples),
      alpha: numberOption("alpha", values.alpha, LEDGER_DEFAULTS.alpha),
    };
    const dirs = values.series ?? [];
    for (const opt of ["a", "b", "workload"] as const) {
      if (values[opt] !== undefined && dirs.length === 0) throw new UserError(`--${opt} selects from a series: expected --series DIR with it, found none`);
    }
    const ledger =
      dirs.length > 0
        ? dirs.flatMap((dir) => seriesClaims(dir, { ...stats, a: values.a, b: values.b, workload: values.workload }))
        : buildLedger(stats);
    if (values.id !== undefined) {
      const e = findClaim(ledger, values.id);
      if (values.json) printJson(e);
      else process.stdout.write(`${formatClaim(e, process.stdout.columns || 100)}\n`);
      return 0;
    }
    if (values.json) printJson(ledger);
    else process.stdout.write(`${formatLedgerTable(ledger, Math.max(100, process.stdout.columns || 120))}\n`);
    return 0;
  },
};
