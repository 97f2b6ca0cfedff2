import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { BACKOFFS, EXTENSION_MODES, PAGE_KINDS, runMicro, type Backoff, type ExtensionMode, type PageKind } from "../../micro/driver.js";

const usage = [
  "usage: slicelab micro run [--threads T] [--hogs H] [--cs-ns L] [--think-ns N]",
  "                          [--duration S] [--extension off|on|simulate|none] [--no-hold-times]",
  "                          [--fault-in-cs [--pages 4k|hugetlb|thp] [--fault-every K] [--region-mib M] [--prefault]]",
  "                          [--backoff spin|slock] [--inner-locks N] [--jitter-pct P] [--seed S]",
  "                          [--hold-log FILE] [--log-min-ns N] [--json]",
  "",
  "Lock-holder-preemption micro-benchmark (src/micro/lhp.c, compiled with cc on first use):",
  "T threads contend for one user-space spinlock, each holding it for about L ns of",
  "CPU work, while H threads burn CPU (oversubscription). Reports throughput,",
  "lock-hold-time percentiles, involuntary context switches, and the time slice",
  "extension requests, grants, yields and revocations.",
  "",
  "  --extension on        each holder requests a time slice extension (Linux 7.0+ rseq",
  "                        slice_ctrl; request protocol v2: re-armed on every nested acquire",
  "                        when the kernel cleared it). In every arm glibc's rseq registration",
  "                        is turned off (GLIBC_TUNABLES=glibc.pthread.rseq=0) and each thread",
  "                        registers its own area, so arms differ only in the request writes.",
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
  "  --no-hold-times       skip the clock reads per critical section (for cost measurements)",
  "  --fault-in-cs         every K-th section (--fault-every, default 1) first-touches the next page",
  "                        of a shared memfd region (--region-mib, default 256) whose pages already",
  "                        exist: a minor fault under the lock, like a backend's first touch of",
  "                        shared memory. --pages 4k (default), hugetlb (MFD_HUGETLB: reserve",
  "                        /proc/sys/vm/nr_hugepages first) or thp (madvise; shmem_enabled=advise);",
  "                        --prefault touches the whole region before the run",
  "  --backoff slock       spin 100 times, then sleep 1 ms growing randomly to 1 s, like",
  "                        PostgreSQL's s_lock (default spin: test-and-set with no back-off)",
  "  --inner-locks N       N uncontended nested acquires inside each hold",
  "  --jitter-pct P        vary section and think lengths by ±P % (per section, seeded by --seed)",
  "  --hold-log FILE       write every hold ≥ --log-min-ns (default 20000) as tid start end flags",
  "  --json                print the full result as JSON",
  "",
  "example:",
  "  slicelab micro run --threads 4 --hogs 4 --cs-ns 2000 --duration 10 --extension on --json",
].join("\n");

function pagesOption(v: string | undefined): PageKind {
  if (v === undefined) return "4k";
  if ((PAGE_KINDS as readonly string[]).includes(v)) return v as PageKind;
  throw new UserError(`--pages: expected 4k, hugetlb or thp, found ${JSON.stringify(v)}`);
}

function backoffOption(v: string | undefined): Backoff | undefined {
  if (v === undefined) return undefined;
  if ((BACKOFFS as readonly string[]).includes(v)) return v as Backoff;
  throw new UserError(`--backoff: expected spin or slock, found ${JSON.stringify(v)}`);
}

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
      "fault-in-cs": { type: "boolean" },
      pages: { type: "string" },
      "fault-every": { type: "string" },
      "region-mib": { type: "string" },
      prefault: { type: "boolean" },
      backoff: { type: "string" },
      "inner-locks": { type: "string" },
      "jitter-pct": { type: "string" },
      seed: { type: "string" },
      "hold-log": { type: "string" },
      "log-min-ns": { type: "string" },
      json: { type: "boolean" },
    });
    if (positionals.length !== 1 || positionals[0] !== "run") {
      throw new UserError(`slicelab micro: expected the action "run", found ${positionals.length === 0 ? "none" : JSON.stringify(positionals.join(" "))} (see \`slicelab micro --help\`)`);
    }
    if (!values["fault-in-cs"] && (values.pages !== undefined || values.prefault || values["fault-every"] !== undefined || values["region-mib"] !== undefined)) {
      throw new UserError("--pages, --fault-every, --region-mib and --prefault go with --fault-in-cs");
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
      faultInCs: values["fault-in-cs"]
        ? {
            pages: pagesOption(values.pages),
            faultEvery: values["fault-every"] === undefined ? undefined : numberOption("fault-every", values["fault-every"], 1),
            regionMiB: values["region-mib"] === undefined ? undefined : numberOption("region-mib", values["region-mib"], 256),
            prefault: values.prefault === true,
          }
        : undefined,
      backoff: backoffOption(values.backoff),
      innerLocks: values["inner-locks"] === undefined ? undefined : numberOption("inner-locks", values["inner-locks"], 0),
      jitterPct: values["jitter-pct"] === undefined ? undefined : numberOption("jitter-pct", values["jitter-pct"], 0),
      seed: values.seed === undefined ? undefined : numberOption("seed", values.seed, 1),
      holdLog: values["hold-log"],
      logMinNs: values["log-min-ns"] === undefined ? undefined : numberOption("log-min-ns", values["log-min-ns"], 20000),
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
        `extension         requests ${x.requests}, grants ${x.grants}, yields ${x.yields}, revoked ${x.revoked}, dropped ${x.dropped}, re-armed ${x.rearmed}`,
        x.waitNs ? `lock wait (ns)    p50 ${x.waitNs.p50.toFixed(0)}  p90 ${x.waitNs.p90.toFixed(0)}  p99 ${x.waitNs.p99.toFixed(0)}  p99.9 ${x.waitNs.p999.toFixed(0)}  max ${x.waitNs.max}` : "lock wait         not measured",
        `hogs' work        ${x.hogs.loops} loops (${(x.hogs.workNs / 1e9).toFixed(3)} s of calibrated work, ${x.hogs.cpuS.toFixed(3)} CPU s)`,
        `faults            worker minor ${x.faults.workerMinor}, fresh pages touched in sections ${x.faults.freshPagesTouched}${x.faults.regionExhausted ? " (region exhausted)" : ""}, huge KiB mapped ${x.faults.hugeKiBMapped}`,
        `mode              backoff ${r.config.backoff}, request protocol v${r.config.requestProtocol}${r.config.faultInCs ? `, fault-in-cs ${r.config.faultInCs.pages}${r.config.faultInCs.prefault ? " prefaulted" : ""}` : ""}`,
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
