import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const reportCommand: Command = {
  name: "report",
  summary: "(not implemented yet)",
  usage: "usage: slicelab report … (not implemented yet)",
  async run() {
    throw new UserError("slicelab report is not implemented yet");
  },
};
