import type { Command } from "../command.js";
import { UserError } from "../../util/errors.js";

export const postgresCommand: Command = {
  name: "postgres",
  summary: "(not implemented yet)",
  usage: "usage: slicelab postgres … (not implemented yet)",
  async run() {
    throw new UserError("slicelab postgres is not implemented yet");
  },
};
