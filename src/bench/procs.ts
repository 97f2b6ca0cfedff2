import { spawn } from "node:child_process";
import { addShutdownHook } from "../util/shutdown.js";
import { UserError } from "../util/errors.js";

/**
 * Benchmark child processes (pgbench, sysbench, CPU hogs) run in their own
 * process group (a new session), so that one signal to the group reaches every
 * process they started and Ctrl-C on the terminal reaches only the kit, which
 * then stops them in order: children first, then the cluster.
 */
export interface GroupChild {
  pid: number;
  /** Resolves when the group leader exits. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the whole group, SIGKILL after `graceMs` if the leader is still there. Idempotent. */
  kill(graceMs?: number): Promise<void>;
}

export interface GroupOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** A file descriptor receiving both stdout and stderr (the kit never reads the stream itself). */
  outFd?: number;
}

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Spawns a program as the leader of a new process group; the group is killed on SIGINT/SIGTERM of the kit. */
export function spawnGroup(file: string, args: string[], opts: GroupOptions = {}): GroupChild {
  const out = opts.outFd ?? "ignore";
  const child = spawn(file, args, { detached: true, stdio: ["ignore", out, out], env: opts.env ?? process.env, cwd: opts.cwd });
  let exited = false;
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on("error", (err) => {
      exited = true;
      reject(new UserError(`cannot run ${file}: ${err.message}`));
    });
    child.on("exit", (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
  });
  done.catch(() => undefined);
  const pid = child.pid;
  if (pid === undefined) {
    return { pid: -1, done, kill: async () => undefined };
  }
  let killing: Promise<void> | undefined;
  const kill = (graceMs = 3000): Promise<void> => {
    killing ??= (async () => {
      signalGroup(pid, "SIGTERM");
      const deadline = Date.now() + graceMs;
      while (!exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      // The leader may be gone while others of its group are not: SIGKILL the group either way.
      signalGroup(pid, "SIGKILL");
      await done.catch(() => undefined);
      removeHook();
    })();
    return killing;
  };
  const removeHook = addShutdownHook(() => kill(1000));
  void done.then(
    () => {
      if (!killing) removeHook();
    },
    () => removeHook(),
  );
  return { pid, done, kill };
}

/**
 * Starts `count` CPU-hog processes (busy loops in the shell, no system calls)
 * in one process group, niced like ordinary tasks. Returns undefined for 0.
 */
export function startHogs(count: number, env?: NodeJS.ProcessEnv): GroupChild | undefined {
  if (count <= 0) return undefined;
  const script = `i=0; while [ "$i" -lt ${count} ]; do (while :; do :; done) & i=$((i+1)); done; wait`;
  return spawnGroup("/bin/sh", ["-c", script], { env });
}
