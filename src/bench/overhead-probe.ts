import { createHash } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { basename, dirname } from "node:path";

/**
 * What the kernel sees of a running process, for checking that two ways of
 * starting the same program (the kit's runner and a shell "by hand") give it the
 * same conditions: command line, environment, credentials, scheduling (nice,
 * policy, autogroup nice, CPU affinity, cgroup), session and process group,
 * resource limits and where its standard streams go. Per-process identities
 * (pids, autogroup and session numbers, output file names) are left out, so two
 * equally started processes compare equal.
 */
export interface ProcessAttributes {
  exe: string;
  argv: string[];
  cwd: string;
  uid: string;
  gid: string;
  /** The parent's executable (who spawned it: the one difference the overhead benchmark wants). */
  parentExe: string;
  nice: number;
  /** Scheduling policy number (0 = SCHED_OTHER) and real-time priority. */
  policy: number;
  rtPriority: number;
  /** The process leads its own session (setsid) / process group. */
  sessionLeader: boolean;
  groupLeader: boolean;
  /** Has a controlling terminal. */
  hasTty: boolean;
  /** The nice value of its autogroup (CONFIG_SCHED_AUTOGROUP), null when not readable. */
  autogroupNice: number | null;
  cgroup: string;
  cpusAllowed: string;
  oomScoreAdj: string;
  /** Number of environment entries and a hash of the sorted NAME=VALUE entries (no names or values recorded). */
  envCount: number;
  envSha256: string;
  /** sha256 of /proc/PID/limits. */
  limitsSha256: string;
  /** Targets of fds 0–2, with a regular file's name replaced by "*" (its directory kept). */
  stdin: string;
  stdout: string;
  stderr: string;
}

const read = (pid: number, f: string): string => readFileSync(`/proc/${pid}/${f}`, "utf8");

/** Fields 3.. of /proc/PID/stat (after the command name); index 0 is field 3 (state). */
function statFields(pid: number): string[] {
  const s = read(pid, "stat");
  return s.slice(s.lastIndexOf(")") + 2).trim().split(" ");
}

function fdTarget(pid: number, fd: number): string {
  let t: string;
  try {
    t = readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return "closed";
  }
  if (!t.startsWith("/") || t.startsWith("/dev/")) return t.replace(/\[\d+\]$/, "[*]");
  return `${dirname(t)}/*`;
}

function statusField(pid: number, name: string): string {
  const line = read(pid, "status").split("\n").find((l) => l.startsWith(`${name}:`));
  return line ? line.slice(name.length + 1).trim() : "";
}

/** The CPUs a process may run on, as /proc/PID/status lists them ("0-1", "1"); this process's by default. */
export function cpusAllowed(pid: number = process.pid): string {
  return statusField(pid, "Cpus_allowed_list");
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** Reads a running process's attributes (root, or the same user, can read them all). */
export function processAttributes(pid: number): ProcessAttributes {
  const f = statFields(pid);
  const ppid = Number(f[1]);
  const env = read(pid, "environ").split("\0").filter(Boolean).sort();
  let autogroupNice: number | null = null;
  try {
    const m = /nice\s+(-?\d+)/.exec(read(pid, "autogroup"));
    autogroupNice = m ? Number(m[1]) : null;
  } catch {
    autogroupNice = null;
  }
  let parentExe = "";
  try {
    parentExe = readlinkSync(`/proc/${ppid}/exe`);
  } catch {
    parentExe = "";
  }
  return {
    exe: readlinkSync(`/proc/${pid}/exe`),
    argv: read(pid, "cmdline").split("\0").filter((x, i, a) => i < a.length - 1 || x !== ""),
    cwd: readlinkSync(`/proc/${pid}/cwd`),
    uid: statusField(pid, "Uid"),
    gid: statusField(pid, "Gid"),
    parentExe,
    nice: Number(f[16]),
    policy: Number(f[38]),
    rtPriority: Number(f[37]),
    sessionLeader: Number(f[3]) === pid,
    groupLeader: Number(f[2]) === pid,
    hasTty: Number(f[4]) !== 0,
    autogroupNice,
    cgroup: read(pid, "cgroup").trim(),
    cpusAllowed: statusField(pid, "Cpus_allowed_list"),
    oomScoreAdj: read(pid, "oom_score_adj").trim(),
    envCount: env.length,
    envSha256: sha256(env.join("\n")),
    limitsSha256: sha256(read(pid, "limits")),
    stdin: fdTarget(pid, 0),
    stdout: fdTarget(pid, 1),
    stderr: fdTarget(pid, 2),
  };
}

export interface AttributeDifference {
  key: keyof ProcessAttributes;
  a: unknown;
  b: unknown;
}

/** The attributes in which two processes differ (JSON comparison), except the ones in `ignore`. */
export function attributeDifferences(
  a: ProcessAttributes,
  b: ProcessAttributes,
  ignore: readonly (keyof ProcessAttributes)[] = [],
): AttributeDifference[] {
  const out: AttributeDifference[] = [];
  for (const key of Object.keys(a) as (keyof ProcessAttributes)[]) {
    if (ignore.includes(key)) continue;
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) out.push({ key, a: a[key], b: b[key] });
  }
  return out;
}

/** Pids of the running descendants of `root` (children of all its threads, recursively). */
export function descendants(root: number): number[] {
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      let kids: string;
      try {
        kids = readFileSync(`/proc/${pid}/task/${t}/children`, "utf8");
      } catch {
        continue;
      }
      for (const k of kids.trim().split(/\s+/).filter(Boolean).map(Number)) {
        out.push(k);
        queue.push(k);
      }
    }
  }
  return out;
}

/** Waits (polling every 20 ms, up to timeoutMs) for a descendant of `root` running `exe`; its pid or undefined. */
export async function findDescendant(root: number, exe: string, timeoutMs = 3000): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  const want = basename(exe);
  for (;;) {
    for (const pid of descendants(root)) {
      try {
        const e = readlinkSync(`/proc/${pid}/exe`);
        if (e === exe || basename(e) === want) return pid;
      } catch {
        /* exited meanwhile */
      }
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, 20));
  }
}
