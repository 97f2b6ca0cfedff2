import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const claimsCommand: Command = {
  name: "claims",
  summary: "(not implemented yet)",
  usage: "usage: slicelab claims … (not implemented yet)",
  async run() {
    throw new UserError("slicelab claims is not implemented yet");
  },
};
