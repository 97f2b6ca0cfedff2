/**
 * lockstat: the kernel's /proc/lock_stat (CONFIG_LOCK_STAT).
 * start: clears the statistics (`echo 0 > /proc/lock_stat`) and switches collection on
 * (`/proc/sys/kernel/lock_stat` = 1); stop: snapshots /proc/lock_stat into lock_stat.txt,
 * restores the previous on/off setting and parses the snapshot (parseProcLockStat).
 */
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";
import { parseProcLockStat } from "../parse/proc-lock-stat.js";
import type { CheckResult, Collector, CollectContext, CollectorOutput } from "./index.js";

export interface LockstatOptions {
  /** The statistics file (default /proc/lock_stat). */
  statPath?: string;
  /** The on/off switch (default /proc/sys/kernel/lock_stat). */
  switchPath?: string;
}

export function createLockstatCollector(opts: LockstatOptions = {}): Collector {
  const statPath = opts.statPath ?? "/proc/lock_stat";
  const switchPath = opts.switchPath ?? "/proc/sys/kernel/lock_stat";
  let previous: string | null = null;
  return {
    name: "lockstat",
    description: "kernel lock statistics from /proc/lock_stat (CONFIG_LOCK_STAT), cleared before and read after each run",
    async check(): Promise<CheckResult> {
      if (!existsSync(statPath)) {
        return { ok: false, reason: `no ${statPath}: the running kernel was built without CONFIG_LOCK_STAT (boot a kernel with kernel-patches/linux/lockstat.config)` };
      }
      try {
        accessSync(statPath, constants.W_OK);
      } catch {
        return { ok: false, reason: `${statPath} is not writable: clearing the statistics needs root` };
      }
      if (!existsSync(switchPath)) return { ok: false, reason: `no ${switchPath}: cannot switch lock statistics on` };
      try {
        accessSync(switchPath, constants.W_OK);
      } catch {
        return { ok: false, reason: `${switchPath} is not writable: switching lock statistics on needs root` };
      }
      return { ok: true };
    },
    async start(): Promise<void> {
      previous = readFileSync(switchPath, "utf8").trim();
      writeFileSync(statPath, "0\n");
      writeFileSync(switchPath, "1\n");
    },
    async stop(ctx: CollectContext): Promise<CollectorOutput> {
      const text = readFileSync(statPath, "utf8");
      if (previous !== null && previous !== "1") writeFileSync(switchPath, `${previous}\n`);
      previous = null;
      const file = "lock_stat.txt";
      writeFileAtomic(join(ctx.runDir, file), text);
      const parsed = parseProcLockStat(text, join(ctx.runDir, file));
      const notes = parsed.warning ? [parsed.warning] : [];
      return { collector: "lockstat", files: [file], parsed, notes };
    },
  };
}
