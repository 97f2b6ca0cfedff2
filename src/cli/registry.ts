import type { Command } from "./command.js";

/** A subcommand and how to load it: modules load on demand, so one command's dependencies never slow or break another. */
export interface CommandEntry {
  name: string;
  load(): Promise<Command>;
}

/** Every subcommand, in the order `slicelab --help` lists them. */
export const commands: CommandEntry[] = [
  { name: "parse", load: async () => (await import("./commands/parse.js")).parseCommand },
  { name: "compare", load: async () => (await import("./commands/compare.js")).compareCommand },
  { name: "claims", load: async () => (await import("./commands/claims.js")).claimsCommand },
  { name: "report", load: async () => (await import("./commands/report.js")).reportCommand },
  { name: "bench", load: async () => (await import("./commands/bench.js")).benchCommand },
  { name: "postgres", load: async () => (await import("./commands/postgres.js")).postgresCommand },
  { name: "micro", load: async () => (await import("./commands/micro.js")).microCommand },
  { name: "kernel", load: async () => (await import("./commands/kernel.js")).kernelCommand },
  { name: "prepare", load: async () => (await import("./commands/prepare.js")).prepareCommand },
  { name: "record", load: async () => (await import("./commands/record.js")).recordCommand },
  { name: "study", load: async () => (await import("./commands/study.js")).studyCommand },
  { name: "vm", load: async () => (await import("./commands/vm.js")).vmCommand },
  { name: "bundle", load: async () => (await import("./commands/bundle.js")).bundleCommand },
  { name: "import", load: async () => (await import("./commands/import.js")).importCommand },
  { name: "model", load: async () => (await import("./commands/model.js")).modelCommand },
  { name: "mechanism", load: async () => (await import("./commands/mechanism.js")).mechanismCommand },
];
