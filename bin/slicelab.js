#!/usr/bin/env node
// Entry point of the `slicelab` command: runs the compiled CLI from dist/.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const main = join(root, "dist", "src", "cli", "main.js");
if (!existsSync(main)) {
  process.stderr.write(`slicelab: the compiled CLI is missing (${main}); run "npm run build" in ${root} first.\n`);
  process.exit(2);
}
// A reader that stops early (`slicelab … | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
}
const { runCli } = await import(pathToFileURL(main).href);
process.exitCode = await runCli(process.argv.slice(2));
