/**
 * perf-lock: kernel lock contention from the lock:contention_begin/end tracepoints.
 * start: `perf lock record -a -o RUNDIR/perf-lock.data` (system-wide, until stopped);
 * stop: SIGINT, then `perf lock contention -i … -E N` (by caller) and `… -t` (by task),
 * written to perf-lock-contention.txt / perf-lock-contention-tasks.txt and parsed.
 * (Debian's perf 6.1 has no BPF skeletons, so the live `-b` mode is not used.)
 * The binary data file is deleted after the reports are made unless keepData is set.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";
import { parsePerfLockContention } from "../parse/perf-lock.js";
import type { CheckResult, Collector, CollectContext, CollectorOutput } from "./index.js";
import { checkPerfSystemWide, runPerf, startPerf, stopPerf, tracingEventsDir, type Recording } from "./perf.js";

export interface PerfLockOptions {
  perf?: string;
  /** Entries in the reports (perf -E). */
  entries?: number;
  keepData?: boolean;
}

export function createPerfLockCollector(opts: PerfLockOptions = {}): Collector {
  const perf = opts.perf ?? "perf";
  const entries = opts.entries ?? 50;
  let rec: Recording | null = null;
  return {
    name: "perf-lock",
    description: "kernel lock contention (perf lock record -a; perf lock contention by caller and by task)",
    async check(): Promise<CheckResult> {
      const p = checkPerfSystemWide(perf);
      if (!p.ok) return p;
      const ev = tracingEventsDir();
      if (ev === null) return { ok: false, reason: "tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)" };
      if (!existsSync(join(ev, "lock", "contention_begin"))) {
        return { ok: false, reason: `no tracepoint lock:contention_begin in ${ev}: the kernel is older than 5.19` };
      }
      return { ok: true };
    },
    async start(ctx: CollectContext): Promise<void> {
      const data = join(ctx.runDir, "perf-lock.data");
      rmSync(data, { force: true });
      rec = await startPerf(perf, ["lock", "record", "-a", "-o", data], join(ctx.runDir, "perf-lock.log"));
    },
    async stop(ctx: CollectContext): Promise<CollectorOutput> {
      if (!rec) throw new Error("perf-lock: stop() without start()");
      const status = await stopPerf(rec);
      rec = null;
      const data = join(ctx.runDir, "perf-lock.data");
      const notes: string[] = [];
      if (status !== 0) notes.push(`perf lock record exited with status ${status}`);
      const byCaller = runPerf(perf, ["lock", "contention", "-i", data, "-E", String(entries)]);
      const byTask = runPerf(perf, ["lock", "contention", "-i", data, "-t", "-E", String(entries)]);
      writeFileAtomic(join(ctx.runDir, "perf-lock-contention.txt"), byCaller.output);
      writeFileAtomic(join(ctx.runDir, "perf-lock-contention-tasks.txt"), byTask.output);
      const files = ["perf-lock.log", "perf-lock-contention.txt", "perf-lock-contention-tasks.txt"];
      if (opts.keepData) files.push("perf-lock.data");
      else rmSync(data, { force: true });
      const parsed = {
        byCaller: parsePerfLockContention(byCaller.output, join(ctx.runDir, "perf-lock-contention.txt")),
        byTask: parsePerfLockContention(byTask.output, join(ctx.runDir, "perf-lock-contention-tasks.txt")),
      };
      return { collector: "perf-lock", files, parsed, notes };
    },
  };
}
