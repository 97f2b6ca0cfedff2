import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const compareCommand: Command = {
  name: "compare",
  summary: "(not implemented yet)",
  usage: "usage: slicelab compare … (not implemented yet)",
  async run() {
    throw new UserError("slicelab compare is not implemented yet");
  },
};
