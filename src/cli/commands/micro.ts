import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const microCommand: Command = {
  name: "micro",
  summary: "(not implemented yet)",
  usage: "usage: slicelab micro … (not implemented yet)",
  async run() {
    throw new UserError("slicelab micro is not implemented yet");
  },
};
