/** Shared plumbing of the perf-based collectors: availability, permissions, recording. */
import { spawn, spawnSync, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, openSync, closeSync, readFileSync, writeSync, rmSync, constants } from "node:fs";
import { Socket } from "node:net";
import { dirname, join } from "node:path";
import type { CheckResult } from "./index.js";
import { addShutdownHook } from "../util/shutdown.js";

/** `perf --version`, or null when perf cannot run. */
export function perfVersion(perf = "perf"): string | null {
  const r = spawnSync(perf, ["--version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) return null;
  return r.stdout.trim();
}

/** Whether system-wide recording (-a, tracepoints) is allowed for this process. */
export function checkPerfSystemWide(perf = "perf", paranoidPath = "/proc/sys/kernel/perf_event_paranoid"): CheckResult {
  const v = perfVersion(perf);
  if (v === null) {
    return { ok: false, reason: `${perf} does not run: install the Debian package linux-perf (and linux-perf matching the kernel if perf asks for it)` };
  }
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) {
    const paranoid = existsSync(paranoidPath) ? Number(readFileSync(paranoidPath, "utf8").trim()) : NaN;
    if (!(paranoid <= -1)) {
      return { ok: false, reason: `system-wide perf recording needs root or kernel.perf_event_paranoid ≤ -1 (it is ${paranoid}; as root: sysctl kernel.perf_event_paranoid=-1)` };
    }
  }
  return { ok: true };
}

/** Where the kernel's tracepoint directory is (tracefs, or the older debugfs path), or null. */
export function tracingEventsDir(): string | null {
  for (const d of ["/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events"]) {
    if (existsSync(d)) return d;
  }
  return null;
}

export interface Recording {
  child: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * Starts `perf ARGS…` (a `record` or `lock record` command) with stdout/stderr appended to logPath;
 * returns once perf is recording. perf starts with its events disabled (`-D -1`) and a control FIFO
 * (`--control fifo:CTL,ACK`): the kit sends `enable` and waits for perf's `ack`, which perf sends
 * only after its set-up (on a loaded machine, synthesising every process's maps takes a second or
 * more), so the workload that follows is recorded from its first instant.
 */
export async function startPerf(perf: string, args: string[], logPath: string, readyTimeoutMs = 120_000): Promise<Recording> {
  const at = args.indexOf("record");
  if (at < 0) throw new Error(`startPerf: expected a perf record command, found perf ${args.join(" ")}`);
  const base = join(dirname(logPath), `.perf-control-${process.pid}-${Date.now()}`);
  const ctl = `${base}.ctl`;
  const ack = `${base}.ack`;
  execFileSync("mkfifo", [ctl, ack]);
  // O_RDWR: opening a FIFO this way never blocks, and holding a writer keeps the ack end from EOF.
  const ctlFd = openSync(ctl, constants.O_RDWR | constants.O_NONBLOCK);
  const ackFd = openSync(ack, constants.O_RDWR | constants.O_NONBLOCK);
  const ackSocket = new Socket({ fd: ackFd, readable: true, writable: false });
  const cleanup = () => {
    ackSocket.destroy();
    try { closeSync(ctlFd); } catch { /* already closed */ }
    rmSync(ctl, { force: true });
    rmSync(ack, { force: true });
  };
  const fullArgs = [...args.slice(0, at + 1), "-D", "-1", "--control", `fifo:${ctl},${ack}`, ...args.slice(at + 1)];
  const fd = openSync(logPath, "a");
  const child = spawn(perf, fullArgs, { stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    // perf ends a recording stopped by SIGINT by re-raising SIGINT: that is its normal end (status 0 here).
    child.once("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 0 : signal ? 128 : null)));
  });
  // Ctrl-C / SIGTERM of the kit: perf must not outlive it (a signal sent to the kit's pid alone,
  // not to the terminal's process group, would leave it recording). SIGINT lets perf close its file; SIGKILL after 3 s.
  const removeHook = addShutdownHook(async () => {
    child.kill("SIGINT");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    await exited.catch(() => undefined);
    clearTimeout(timer);
  });
  void exited.then(removeHook, removeHook);
  writeSync(ctlFd, "enable\n");
  let timer: NodeJS.Timeout | undefined;
  const acked = new Promise<"ack">((resolve) => {
    let got = "";
    ackSocket.on("data", (d: Buffer) => {
      got += d.toString("utf8");
      if (got.includes("ack")) resolve("ack");
    });
    ackSocket.on("error", () => undefined);
  });
  const outcome = await Promise.race([
    acked,
    exited.then((c) => ({ c })),
    new Promise<"timeout">((r) => { timer = setTimeout(() => r("timeout"), readyTimeoutMs); }),
  ]);
  clearTimeout(timer);
  cleanup();
  if (outcome === "ack") return { child, exited };
  const log = () => (existsSync(logPath) ? readFileSync(logPath, "utf8").trim().split("\n").slice(-3).join(" | ") : "");
  if (outcome === "timeout") {
    child.kill("SIGKILL");
    await exited.catch(() => undefined);
    throw new Error(`perf ${args.join(" ")} did not start recording within ${readyTimeoutMs / 1000} s: ${log()}`);
  }
  throw new Error(`perf ${args.join(" ")} exited at once (status ${outcome.c}): ${log()}`);
}

/** Stops a recording with SIGINT (perf then writes its data file); SIGKILL after timeoutMs. */
export async function stopPerf(rec: Recording, timeoutMs = 30000): Promise<number | null> {
  rec.child.kill("SIGINT");
  const timer = setTimeout(() => rec.child.kill("SIGKILL"), timeoutMs);
  try {
    return await rec.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `perf ARGS…` to completion; returns stdout+stderr as one text and the status. */
export function runPerf(perf: string, args: string[]): { status: number | null; output: string; stdout: string } {
  const r = spawnSync(perf, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  return { status: r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}`, stdout: r.stdout ?? "" };
}
