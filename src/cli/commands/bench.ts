import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const benchCommand: Command = {
  name: "bench",
  summary: "(not implemented yet)",
  usage: "usage: slicelab bench … (not implemented yet)",
  async run() {
    throw new UserError("slicelab bench is not implemented yet");
  },
};
