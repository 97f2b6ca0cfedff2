import type { Command } from "./command.js";
import { parseCommand } from "./commands/parse.js";
import { compareCommand } from "./commands/compare.js";
import { claimsCommand } from "./commands/claims.js";
import { reportCommand } from "./commands/report.js";
import { benchCommand } from "./commands/bench.js";
import { postgresCommand } from "./commands/postgres.js";
import { microCommand } from "./commands/micro.js";
import { kernelCommand } from "./commands/kernel.js";
import { vmCommand } from "./commands/vm.js";

/** Every subcommand, in the order `slicelab --help` lists them. */
export const commands: Command[] = [
  parseCommand,
  compareCommand,
  claimsCommand,
  reportCommand,
  benchCommand,
  postgresCommand,
  microCommand,
  kernelCommand,
  vmCommand,
];
