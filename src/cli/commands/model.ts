import type { Command } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { rewriteSweepModel } from "../../study/drivers/mechanism-sweep.js";
import { sweepSentence, sweepTable } from "../../analysis/mechanism-model-sweep.js";

const usage = `usage: slicelab model DIR [--json]

  The holder-preemption model (src/analysis/mechanism-model.ts) against a mechanism-model-sweep
  record: recomputes DIR's model.json from its rows (per cell the observed in-kernel share with a
  Wilson interval on the pooled preemptions, and the prediction from the cell's own measured fault
  duration d and section length L) and prints the table and the sentence.`;

export const modelCommand: Command = {
  name: "model",
  summary: "the holder-preemption model against a sweep record: recompute its model.json and print predicted vs observed",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("model", argv, { json: { type: "boolean" } });
    if (positionals.length !== 1) throw new UserError("usage: slicelab model DIR (see slicelab model --help)");
    const m = rewriteSweepModel(positionals[0]!);
    if (values.json) printJson(m);
    else {
      console.table(sweepTable(m.cells));
      process.stdout.write(`${sweepSentence(m.cells, { hz: m.hz, accel: "tcg-icount" })}\n`);
    }
    return 0;
  },
};
