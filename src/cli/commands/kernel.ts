import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const kernelCommand: Command = {
  name: "kernel",
  summary: "(not implemented yet)",
  usage: "usage: slicelab kernel … (not implemented yet)",
  async run() {
    throw new UserError("slicelab kernel is not implemented yet");
  },
};
