import { join } from "node:path";
import type { Command } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { repoRoot } from "../../util/paths.js";
import { importResults } from "../../bundle/import.js";
import { studyReport } from "../../report/study.js";

const usage = `usage: slicelab import FILE|DIR [--study NAME] [--runs-root DIR] [--json]

  Turns what a bundle's run.sh wrote (its results directory, or a .tar.gz of it) into a record,
  data/runs/STUDY/STAMP/ (STAMP: when the runs started, UTC). Checks first and writes nothing when
  anything is off: a truncated tarball, a file that does not match SHA256SUMS, results of a newer
  bundle format, results of another study than --study, a plan that does not match. Each run is
  reduced by the same code as the kit's VM runner; the machine run.sh recorded (kernel, HZ,
  preemption modes debugfs accepted, mitigations, steal time, bare metal / VM / sandbox) goes into
  the envelope. A PostgreSQL bundle's runs become the series directory the kit's runner writes
  (pgbench's parser, the patch's counters, results.csv) and get the study's analysis.
  --runs-root: another records root (default data/runs of this clone).`;

export const importCommand: Command = {
  name: "import",
  summary: "a bundle's results (directory or tarball) into a record under data/runs/",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("import", argv, { study: { type: "string" }, "runs-root": { type: "string" }, json: { type: "boolean" } });
    if (positionals.length !== 1) throw new UserError("usage: slicelab import FILE|DIR (see slicelab import --help)");
    const r = importResults(positionals[0]!, { runsRoot: values["runs-root"] ?? join(repoRoot(), "data", "runs"), study: values.study, render: studyReport });
    if (values.json) printJson({ dir: r.dir, study: r.study, rows: r.rows, failed: r.failed, setting: r.machine.setting, vm: r.vm ?? null, answer: r.answer });
    else {
      process.stdout.write(`${r.dir}: ${r.rows} runs with a row, ${r.failed.length} without; ${r.machine.setting.label}, Linux ${r.machine.kernelRelease}, HZ ${r.machine.hz ?? "unknown"}${r.vm ? `; the runs in a ${r.vm.accel} guest of it, Linux ${r.vm.kernelRelease} (timing ${r.vm.timing})` : ""}\n`);
      for (const f of r.failed.slice(0, 10)) process.stdout.write(`  run ${f.run}: ${f.reason}\n`);
      if (r.answer) process.stdout.write(`${r.answer}\n`);
    }
    return 0;
  },
};
