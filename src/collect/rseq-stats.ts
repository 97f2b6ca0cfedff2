/**
 * rseq-stats: the debugfs file rseq/stats (CONFIG_RSEQ_STATS; slice-extension counters
 * with CONFIG_RSEQ_SLICE_EXTENSION). The kernel offers no reset, so start() takes a
 * "before" snapshot and stop() an "after" one; parsed = { before, after, diff } where diff
 * holds the counts of this run (grants, expiries, revocations, yields, aborts …).
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";
import { diffRseqStats, parseRseqStats, type RseqStats } from "../parse/rseq-stats.js";
import type { CheckResult, Collector, CollectContext, CollectorOutput } from "./index.js";

export interface RseqStatsOptions {
  /** debugfs mount point (default /sys/kernel/debug). */
  debugfs?: string;
  /** /proc/self/mounts, to tell whether debugfs is mounted. */
  mountsPath?: string;
}

export function debugfsMounted(debugfs: string, mountsPath = "/proc/self/mounts"): boolean {
  const mounts = readFileSync(mountsPath, "utf8");
  return mounts.split("\n").some((l) => {
    const f = l.split(" ");
    return f[1] === debugfs && f[2] === "debugfs";
  });
}

export function createRseqStatsCollector(opts: RseqStatsOptions = {}): Collector {
  const debugfs = opts.debugfs ?? "/sys/kernel/debug";
  const mountsPath = opts.mountsPath ?? "/proc/self/mounts";
  const statsPath = join(debugfs, "rseq", "stats");
  let before: { text: string; stats: RseqStats } | null = null;
  const snapshot = (name: string) => {
    const text = readFileSync(statsPath, "utf8");
    return { text, stats: parseRseqStats(text, name) };
  };
  return {
    name: "rseq-stats",
    description: "rseq counters from debugfs rseq/stats (slice-extension grants, expiries, revocations, yields, aborts), before/after each run",
    async check(): Promise<CheckResult> {
      if (!debugfsMounted(debugfs, mountsPath)) {
        return { ok: false, reason: `debugfs is not mounted at ${debugfs} (as root: mount -t debugfs none ${debugfs})` };
      }
      if (!existsSync(join(debugfs, "rseq"))) return { ok: false, reason: `no ${join(debugfs, "rseq")}: the running kernel has no rseq debugfs directory (Linux ≥ 6.19 with CONFIG_RSEQ)` };
      if (!existsSync(statsPath)) return { ok: false, reason: `no ${statsPath}: the running kernel was built without CONFIG_RSEQ_STATS (see kernel-patches/linux/slice-ext.config)` };
      try {
        accessSync(statsPath, constants.R_OK);
      } catch {
        return { ok: false, reason: `${statsPath} is not readable: debugfs needs root` };
      }
      return { ok: true };
    },
    async start(ctx: CollectContext): Promise<void> {
      before = snapshot(join(ctx.runDir, "rseq-stats.before.txt"));
    },
    async stop(ctx: CollectContext): Promise<CollectorOutput> {
      if (!before) throw new Error("rseq-stats: stop() without start()");
      const after = snapshot(join(ctx.runDir, "rseq-stats.after.txt"));
      writeFileAtomic(join(ctx.runDir, "rseq-stats.before.txt"), before.text);
      writeFileAtomic(join(ctx.runDir, "rseq-stats.after.txt"), after.text);
      const diff = diffRseqStats(before.stats, after.stats);
      const notes = diff.sliceExtension ? [] : ["kernel without CONFIG_RSEQ_SLICE_EXTENSION: no slice-extension counters"];
      const parsed = { before: before.stats.counters, after: after.stats.counters, diff: diff.counters, sliceExtension: diff.sliceExtension };
      before = null;
      return { collector: "rseq-stats", files: ["rseq-stats.before.txt", "rseq-stats.after.txt"], parsed, notes };
    },
  };
}
