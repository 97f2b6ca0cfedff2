import type { Command } from "../command.js";
import { parseCommandArgs, numberOption, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { buildReport } from "../../report/build.js";

const usage = `usage: slicelab report [--out DIR] [--no-execute | --execute LIST] [--jobs N] [--timeout SECONDS] [--json]

Executes every notebook (notebooks/*.ipynb, in name order) in a fresh tslab
kernel, converts each to HTML and writes DIR/index.html: the claims ledger table
and all notebooks with their figures, viewable offline (no scripts, no network),
plus one page per notebook under DIR/notebooks/. DIR is replaced atomically.

options:
  --out DIR          output directory (default: reports)
  --no-execute       convert the notebooks as committed, without running them
  --execute LIST     execute only the notebooks whose names start with one of
                     these comma-separated prefixes (e.g. 00,01); the others are
                     converted as committed, and the report says which is which
  --jobs N           notebooks executed at once, each in its own kernel (default: 2)
  --timeout SECONDS  per-cell timeout when executing (default: 300)
  --json             print {index, notebooks, claims, seconds} as JSON

Needs the tslab kernel spec and Debian's Jupyter tools: bash scripts/setup.sh jupyter`;

export const reportCommand: Command = {
  name: "report",
  summary: "execute the notebooks and write the HTML report (reports/index.html)",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("report", argv, {
      out: { type: "string" },
      "no-execute": { type: "boolean" },
      execute: { type: "string" },
      timeout: { type: "string" },
      jobs: { type: "string" },
      json: { type: "boolean" },
    });
    if (positionals.length > 0) throw new UserError(`unexpected argument "${positionals[0]}" (see \`slicelab report --help\`)`);
    const timeout = numberOption("timeout", values.timeout, 300);
    if (!(timeout > 0)) throw new UserError(`--timeout expects a positive number of seconds, got "${values.timeout}"`);
    const jobs = numberOption("jobs", values.jobs, 2);
    if (!Number.isInteger(jobs) || jobs < 1) throw new UserError(`--jobs expects a whole number ≥ 1, got "${values.jobs}"`);
    if (values["no-execute"] && values.execute !== undefined) throw new UserError("--execute and --no-execute exclude each other");
    let execute: boolean | string[] = !values["no-execute"];
    if (values.execute !== undefined) {
      execute = values.execute.split(",").map((p) => p.trim()).filter((p) => p !== "");
      if (execute.length === 0) throw new UserError(`--execute expects comma-separated notebook name prefixes, got "${values.execute}"`);
    }
    const result = await buildReport({
      concurrency: jobs,
      outDir: values.out ?? "reports",
      execute,
      timeoutSeconds: timeout,
      log: values.json ? undefined : (line) => process.stderr.write(`${line}\n`),
    });
    const seconds = Math.round(result.durationMs / 100) / 10;
    if (values.json) {
      printJson({
        index: result.index,
        notebooks: result.notebooks.map((n) => ({ name: n.name, executed: n.ran, title: n.title, page: n.page, values: n.values.length, executeSeconds: Math.round(n.executeMs / 100) / 10 })),
        claims: result.claims,
        seconds,
      });
    } else {
      process.stdout.write(`report: ${result.notebooks.length} notebooks, ${result.claims} claims, ${seconds} s\n`);
      process.stdout.write(`report: open ${result.index}\n`);
    }
    return 0;
  },
};
