/**
 * ctxsw: voluntary and involuntary context switches of the PostgreSQL processes, from
 * /proc/PID/status (voluntary_ctxt_switches, nonvoluntary_ctxt_switches).
 * Backends are born when the benchmark connects and die when it disconnects, so the
 * collector samples every intervalMs (children of ctx.postmasterPid, or ctx.pids()) and keeps
 * each process's last values. A process seen at start() counts from its values then; a process
 * born later counts from 0 (the counters start at fork). Switches in the last interval before
 * a process exits are missed: the totals are lower bounds, short by at most one interval.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";
import { UserError } from "../util/errors.js";
import type { CheckResult, Collector, CollectContext, CollectorOutput } from "./index.js";

export interface ProcSwitches {
  voluntary: number;
  nonvoluntary: number;
}

/** Reads a /proc/PID/status text; null when the fields are missing. */
export function parseStatusSwitches(text: string): ProcSwitches | null {
  const v = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(text);
  const n = /^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(text);
  if (!v || !n) return null;
  return { voluntary: Number(v[1]), nonvoluntary: Number(n[1]) };
}

/** The pids whose parent is ppid (from /proc/PID/stat). */
export function childPids(ppid: number, procRoot = "/proc"): number[] {
  const out: number[] = [];
  for (const d of readdirSync(procRoot)) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(join(procRoot, d, "stat"), "utf8");
      // pid (comm) state ppid …; comm may contain spaces and parentheses: split after the last ")".
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(rest[1]) === ppid) out.push(Number(d));
    } catch {
      /* the process exited meanwhile */
    }
  }
  return out.sort((a, b) => a - b);
}

/** PostgreSQL's process title: "postgres: USER DB HOST(PORT) STATE" for client backends, "postgres: checkpointer" etc. */
export function backendKind(cmdline: string): string {
  const t = cmdline.replace(/\0/g, " ").trim();
  const aux = /^postgres: (checkpointer|background writer|walwriter|autovacuum launcher|autovacuum worker|logical replication launcher|archiver|stats collector|startup|walreceiver|walsender|logical replication worker|parallel worker)\b/.exec(t);
  if (aux) return aux[1]!;
  if (/^postgres: \S+ \S+ \S+/.test(t)) return "client backend";
  return "other";
}

interface Seen {
  pid: number;
  kind: string;
  cmdline: string;
  base: ProcSwitches;
  last: ProcSwitches;
  samples: number;
}

export interface CtxswResult {
  intervalMs: number;
  samples: number;
  processes: { pid: number; kind: string; voluntary: number; nonvoluntary: number; samples: number }[];
  /** Sums by process kind ("client backend", "checkpointer", …). */
  byKind: { kind: string; processes: number; voluntary: number; nonvoluntary: number }[];
}

export interface CtxswOptions {
  intervalMs?: number;
  procRoot?: string;
}

export function createCtxswCollector(opts: CtxswOptions = {}): Collector {
  const intervalMs = opts.intervalMs ?? 200;
  const procRoot = opts.procRoot ?? "/proc";
  let seen = new Map<number, Seen>();
  let running = false;
  let loop: Promise<void> | null = null;
  let samples = 0;

  const pidsOf = async (ctx: CollectContext): Promise<number[]> => {
    if (ctx.pids) return ctx.pids();
    return childPids(ctx.postmasterPid!, procRoot);
  };
  const sample = async (ctx: CollectContext, first: boolean) => {
    samples++;
    for (const pid of await pidsOf(ctx)) {
      let status: string;
      let cmdline = "";
      try {
        status = readFileSync(join(procRoot, String(pid), "status"), "utf8");
        cmdline = readFileSync(join(procRoot, String(pid), "cmdline"), "utf8");
      } catch {
        continue; // exited
      }
      const sw = parseStatusSwitches(status);
      if (!sw) continue;
      const s = seen.get(pid);
      if (s) {
        s.last = sw;
        s.samples++;
        // A backend's title changes (idle/active): a classified process keeps its kind. One seen
        // between fork and its first title (still the postmaster's command line, "other") is
        // classified again: under load that window is long enough for a sample to land in it.
        if (s.kind === "other") {
          const kind = backendKind(cmdline);
          if (kind !== "other") {
            s.kind = kind;
            s.cmdline = cmdline.replace(/\0/g, " ").trim();
          }
        }
      } else {
        const zero = { voluntary: 0, nonvoluntary: 0 };
        seen.set(pid, { pid, kind: backendKind(cmdline), cmdline: cmdline.replace(/\0/g, " ").trim(), base: first ? sw : zero, last: sw, samples: 1 });
      }
    }
  };

  return {
    name: "ctxsw",
    description: `voluntary/involuntary context switches of the PostgreSQL processes (/proc/PID/status, sampled every ${intervalMs} ms)`,
    async check(): Promise<CheckResult> {
      try {
        if (parseStatusSwitches(readFileSync(join(procRoot, "self", "status"), "utf8")) === null) {
          return { ok: false, reason: `${procRoot}/self/status has no voluntary_ctxt_switches` };
        }
      } catch (err) {
        return { ok: false, reason: `cannot read ${procRoot}/self/status: ${err instanceof Error ? err.message : String(err)}` };
      }
      return { ok: true };
    },
    async start(ctx: CollectContext): Promise<void> {
      if (!ctx.pids && ctx.postmasterPid === undefined) throw new UserError("ctxsw: the run gave neither a postmaster pid nor a pid list");
      seen = new Map();
      samples = 0;
      await sample(ctx, true);
      running = true;
      loop = (async () => {
        while (running) {
          await new Promise((r) => setTimeout(r, intervalMs));
          if (running) await sample(ctx, false);
        }
      })();
    },
    async stop(ctx: CollectContext): Promise<CollectorOutput> {
      running = false;
      await loop;
      loop = null;
      await sample(ctx, false);
      const processes = [...seen.values()].map((s) => ({
        pid: s.pid,
        kind: s.kind,
        voluntary: s.last.voluntary - s.base.voluntary,
        nonvoluntary: s.last.nonvoluntary - s.base.nonvoluntary,
        samples: s.samples,
      }));
      const kinds = new Map<string, { kind: string; processes: number; voluntary: number; nonvoluntary: number }>();
      for (const p of processes) {
        const k = kinds.get(p.kind) ?? { kind: p.kind, processes: 0, voluntary: 0, nonvoluntary: 0 };
        k.processes++;
        k.voluntary += p.voluntary;
        k.nonvoluntary += p.nonvoluntary;
        kinds.set(p.kind, k);
      }
      const result: CtxswResult = { intervalMs, samples, processes, byKind: [...kinds.values()].sort((a, b) => a.kind.localeCompare(b.kind)) };
      const file = "ctxsw.json";
      writeFileAtomic(join(ctx.runDir, file), `${JSON.stringify(result, null, 2)}\n`);
      return { collector: "ctxsw", files: [file], parsed: result, notes: [] };
    },
  };
}
