import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const vmCommand: Command = {
  name: "vm",
  summary: "(not implemented yet)",
  usage: "usage: slicelab vm … (not implemented yet)",
  async run() {
    throw new UserError("slicelab vm is not implemented yet");
  },
};
