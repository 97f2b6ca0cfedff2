import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const parseCommand: Command = {
  name: "parse",
  summary: "(not implemented yet)",
  usage: "usage: slicelab parse … (not implemented yet)",
  async run() {
    throw new UserError("slicelab parse is not implemented yet");
  },
};
