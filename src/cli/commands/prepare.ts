import type { Command } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { cacheDir } from "../../util/paths.js";
import { cacheIsCold, parseTarget, prepare, prepareSteps } from "../../prepare/index.js";

const usage = [
  "usage: slicelab prepare test|e2e|hz [--list] [--json]",
  "",
  "Makes, once and up front, what a test suite needs that takes minutes to build, with a",
  "progress line and the time of each step; afterwards nothing in the suite builds (tests and",
  "notebook cells run under the build guard, SLICELAB_NO_BUILD). `npm test` runs",
  "`prepare test` first, `npm run test:e2e` runs `prepare e2e`.",
  "",
  "  test   the slice-extension kernel (kernel-patches/linux/{slice-ext,vm}.config), the VM",
  "         probe, the PostgreSQL 15 and 18 sources, PostgreSQL 18 unpatched and patched",
  "  e2e    the same, plus the tracepoint kernel (kernel-patches/linux/series/slicelab)",
  "  hz     the slice-extension kernel and the same at HZ 100 and 250 (kernel-patches/linux/",
  "         hz100.config, hz250.config), for the model's HZ sweep (`slicelab study run",
  "         mechanism-model-sweep --param hz=100`); no test needs them, so `test` and `e2e`",
  "         leave them out. Each is close to a cold build even with ccache warm from the",
  "         default kernel: include/linux/jiffies.h uses HZ in inline code, so nearly every",
  "         file preprocesses differently (measured times: REPRODUCE §8).",
  "",
  "Everything goes into the cache ($SLICELAB_CACHE, default ~/.cache/slicelab). On a cold",
  "cache on 2 cores the kernel takes 13-20 minutes and each PostgreSQL build several.",
  "",
  "options:",
  "  --list   print the steps without running them",
  "  --json   print the steps' results as JSON (progress still goes to stderr)",
].join("\n");

export const prepareCommand: Command = {
  name: "prepare",
  summary: "build, once and up front, the kernels and PostgreSQL builds the test suites need",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("prepare", argv, { list: { type: "boolean" }, json: { type: "boolean" } });
    if (positionals.length !== 1) {
      throw new UserError(`slicelab prepare: expected one target (test, e2e or hz), found ${positionals.length === 0 ? "none" : JSON.stringify(positionals.join(" "))}`);
    }
    const target = parseTarget(positionals[0]);
    if (values.list) {
      if (values.json) printJson({ target, steps: prepareSteps(target) });
      else for (const s of prepareSteps(target)) process.stdout.write(`${s}\n`);
      return 0;
    }
    const cold = cacheIsCold(cacheDir());
    const t0 = Date.now();
    const log = (s: string) => process.stderr.write(`prepare: ${s}\n`);
    log(`${target}: cache ${cacheDir()} (${cold ? "cold: nothing built yet" : "holds earlier builds"})`);
    const steps = await prepare(target, log);
    const seconds = Math.round((Date.now() - t0) / 100) / 10;
    log(`${target}: ready in ${seconds} s`);
    if (values.json) printJson({ target, cache: cacheDir(), coldAtStart: cold, seconds, steps });
    return 0;
  },
};
