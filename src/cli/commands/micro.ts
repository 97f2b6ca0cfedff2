import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { EXTENSION_MODES, runMicro, type ExtensionMode } from "../../micro/driver.js";

const usage = [
  "usage: slicelab micro run [--threads T] [--hogs H] [--cs-ns L] [--think-ns N]",
  "                          [--duration S] [--extension off|on|simulate|none] [--no-hold-times] [--json]",
  "",
  "Lock-holder-preemption micro-benchmark (src/micro/lhp.c, compiled with cc on first use):",
  "T threads contend for one user-space spinlock, each holding it for about L ns of",
  "CPU work, while H threads burn CPU (oversubscription). Reports throughput,",
  "lock-hold-time percentiles, involuntary context switches, and the time slice",
  "extension requests, grants, yields and revocations.",
  "",
  "  --extension on        each holder requests a time slice extension (Linux 7.0+ rseq",
  "                        slice_ctrl); glibc's rseq registration is turned off with",
  "                        GLIBC_TUNABLES=glibc.pthread.rseq=0 so threads register their own.",
  "                        On a kernel without the feature: says why, exit status 3",
  "                        (EINVAL: kernel lacks it; ENOTSUPP: disabled at boot or legacy",
  "                        32-byte rseq registration; ENXIO: no rseq area registered).",
  "  --extension simulate  the same loads and stores on an unregistered area: the user-space",
  "                        cost of the protocol, on any kernel",
  "  --extension off       the hooks test the switch and do nothing, like the patched",
  "                        PostgreSQL with slice_extension = off (default)",
  "  --extension none      no hook code at all, like unpatched PostgreSQL",
  "",
  "options (defaults): --threads 4, --hogs 0, --cs-ns 1000, --think-ns = cs-ns, --duration 5",
  "  --no-hold-times       skip the two clock reads per critical section (for cost measurements)",
  "  --json                print the full result as JSON",
  "",
  "example:",
  "  slicelab micro run --threads 4 --hogs 4 --cs-ns 2000 --duration 10 --extension on --json",
].join("\n");

export const microCommand: Command = {
  name: "micro",
  summary: "lock-holder-preemption micro-benchmark (spinlock + CPU hogs, time slice extension on/off)",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("micro", argv, {
      threads: { type: "string" },
      hogs: { type: "string" },
      "cs-ns": { type: "string" },
      "think-ns": { type: "string" },
      duration: { type: "string" },
      extension: { type: "string" },
      "no-hold-times": { type: "boolean" },
      json: { type: "boolean" },
    });
    if (positionals.length !== 1 || positionals[0] !== "run") {
      throw new UserError(`slicelab micro: expected the action "run", found ${positionals.length === 0 ? "none" : JSON.stringify(positionals.join(" "))} (see \`slicelab micro --help\`)`);
    }
    const extension = values.extension ?? "off";
    if (!(EXTENSION_MODES as readonly string[]).includes(extension)) {
      throw new UserError(`--extension: expected off, on, simulate or none, found ${JSON.stringify(extension)}`);
    }
    const cs = numberOption("cs-ns", values["cs-ns"], 1000);
    const r = await runMicro({
      threads: numberOption("threads", values.threads, 4),
      hogs: numberOption("hogs", values.hogs, 0),
      csNs: cs,
      thinkNs: values["think-ns"] === undefined ? undefined : numberOption("think-ns", values["think-ns"], cs),
      durationS: numberOption("duration", values.duration, 5),
      extension: extension as ExtensionMode,
      holdTimes: !values["no-hold-times"],
    });
    if (values.json) printJson(r);
    if (r.results === null) {
      const msg = `time slice extension unavailable: ${r.feature.reason ?? "unknown reason"}`;
      if (!values.json) process.stderr.write(`slicelab micro: ${msg}\n`);
      return 3;
    }
    if (!values.json) {
      const x = r.results;
      const lines = [
        `extension ${r.config.extension}${r.feature.area !== "none" ? ` (rseq area: ${r.feature.area})` : ""}: ${r.config.threads} threads, ${r.config.hogs} hogs, critical section ${r.config.csNs} ns, ${r.config.durationS} s`,
        `throughput        ${x.throughputPerS.toFixed(0)} critical sections/s (${x.criticalSections} in ${x.elapsedS.toFixed(3)} s)`,
        x.holdNs
          ? `hold time (ns)    p50 ${x.holdNs.p50.toFixed(0)}  p99 ${x.holdNs.p99.toFixed(0)}  p99.9 ${x.holdNs.p999.toFixed(0)}  max ${x.holdNs.max}`
          : "hold time         not measured (--no-hold-times)",
        `involuntary csw   workers ${x.involuntaryCtxSwitches.workers}, hogs ${x.involuntaryCtxSwitches.hogs}`,
        `extension         requests ${x.requests}, grants ${x.grants}, yields ${x.yields}, revoked ${x.revoked}`,
      ];
      if (r.kernelStats?.sliceExtension) {
        const k = r.kernelStats.counters;
        lines.push(`kernel rseq/stats sgrant ${k.sgrant}, sexpir ${k.sexpir}, srevok ${k.srevok}, syield ${k.syield}, sabort ${k.sabort}`);
      }
      process.stdout.write(`${lines.join("\n")}\n`);
    }
    return 0;
  },
};
