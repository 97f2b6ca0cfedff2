/**
 * perf-profile: a system-wide CPU profile of the run, as in the Lu/Desnoyers post.
 * start: `perf record -a -g -F FREQ -o RUNDIR/perf.data`; stop: SIGINT, then
 * `perf report --stdio -i … -g none --percent-limit P` into perf-report.txt, parsed with
 * parsePerfReport (src/parse/perf-report.ts). The data file is deleted unless keepData.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";
import { parsePerfReport } from "../parse/perf-report.js";
import type { CheckResult, Collector, CollectContext, CollectorOutput } from "./index.js";
import { checkPerfSystemWide, runPerf, startPerf, stopPerf, type Recording } from "./perf.js";

export interface PerfProfileOptions {
  perf?: string;
  /** Sampling frequency in Hz (perf -F). */
  frequency?: number;
  /** Rows below this percentage are left out of the report. */
  percentLimit?: number;
  keepData?: boolean;
}

export function createPerfProfileCollector(opts: PerfProfileOptions = {}): Collector {
  const perf = opts.perf ?? "perf";
  const frequency = opts.frequency ?? 99;
  const percentLimit = opts.percentLimit ?? 0.5;
  let rec: Recording | null = null;
  return {
    name: "perf-profile",
    description: `system-wide CPU profile with call graphs (perf record -a -g -F ${frequency}; perf report --stdio)`,
    async check(): Promise<CheckResult> {
      return checkPerfSystemWide(perf);
    },
    async start(ctx: CollectContext): Promise<void> {
      const data = join(ctx.runDir, "perf.data");
      rmSync(data, { force: true });
      rec = await startPerf(perf, ["record", "-a", "-g", "-F", String(frequency), "-o", data], join(ctx.runDir, "perf-record.log"));
    },
    async stop(ctx: CollectContext): Promise<CollectorOutput> {
      if (!rec) throw new Error("perf-profile: stop() without start()");
      const status = await stopPerf(rec);
      rec = null;
      const data = join(ctx.runDir, "perf.data");
      const notes: string[] = [];
      if (status !== 0) notes.push(`perf record exited with status ${status}`);
      const rep = runPerf(perf, ["report", "--stdio", "-i", data, "-g", "none", "--percent-limit", String(percentLimit)]);
      if (rep.status !== 0) notes.push(`perf report exited with status ${rep.status}`);
      const file = "perf-report.txt";
      writeFileAtomic(join(ctx.runDir, file), rep.stdout);
      const files = ["perf-record.log", file];
      if (opts.keepData) files.push("perf.data");
      else rmSync(data, { force: true });
      return { collector: "perf-profile", files, parsed: parsePerfReport(rep.stdout, join(ctx.runDir, file)), notes };
    },
  };
}
