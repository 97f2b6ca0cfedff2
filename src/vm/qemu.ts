/**
 * `slicelab vm run`: boots a kernel under QEMU with the host's root filesystem
 * shared read-only over virtio-9p (writable overlays in tmpfs inside), runs one
 * command as the guest's init, streams the console, and returns the command's
 * exit status; files come back through a shared read-write directory.
 *
 * Acceleration: KVM when a short probe boot reaches the command (nested KVM
 * stalls on this kind of machine), TCG otherwise. TCG emulates the CPU: its
 * timings are functional evidence, never performance evidence.
 */
import { utcStamp } from "../util/stamp.js";
import { createHash } from "node:crypto";
import { accessSync, constants, createWriteStream, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { workDir } from "../util/paths.js";
import { guestInitScript, MARK_EXIT, MARK_OVERLAY_FAILED, MARK_START, OUT_TAG } from "./guest-init.js";

/**
 * kvm; tcg: multi-threaded TCG (guest time = host time, the guest ~20× slower);
 * tcg-icount: single-threaded TCG with instruction-counted virtual time
 * (`-icount shift=0,sleep=off`: one guest ns per instruction), so ticks and
 * grant timers cover the amount of guest work they would on hardware. One host
 * thread runs all vCPUs in turn: with more than one vCPU the emulator itself
 * deschedules a vCPU.
 */
export type Accel = "kvm" | "tcg" | "tcg-icount";
export const ACCELS: readonly Accel[] = ["kvm", "tcg", "tcg-icount"];

/** QEMU's -accel (and -icount) words for ACCEL. */
export function accelArgs(accel: Accel): string[] {
  if (accel === "kvm") return ["-accel", "kvm"];
  if (accel === "tcg") return ["-accel", "tcg,thread=multi"];
  return ["-accel", "tcg,thread=single", "-icount", "shift=0,sleep=off"];
}

export interface VmOptions {
  kernel: string;
  cpus?: number;
  memMiB?: number;
  /** Extra kernel command-line arguments (e.g. "preempt=full rseq_slice_ext=0"). */
  append?: string;
  /** Seconds before the guest is killed (default 600). */
  timeoutS?: number;
  /** "auto" (default): KVM if the probe passes, else TCG. */
  accel?: Accel | "auto";
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Shared read-write directory (default: a fresh run directory under .work/vm/). */
  outDir?: string;
  /** Directories overlaid writable inside the guest (default: DEFAULT_OVERLAYS + workDir()). */
  overlayDirs?: string[];
  /** Receives console output as it arrives. */
  onConsole?: (chunk: string) => void;
}

export interface VmResult {
  kernel: string;
  accel: Accel;
  accelReason: string;
  cpus: number;
  memMiB: number;
  append: string;
  command: string[];
  /** The command's exit status, or null when it did not finish (timeout, crash). */
  exitStatus: number | null;
  timedOut: boolean;
  /** Seconds from starting QEMU to the command starting (the console marker). */
  bootToCommandS: number | null;
  totalS: number;
  outDir: string;
  consoleLog: string;
  /** Console text between the start and exit markers: the command's own output. */
  commandOutput: string;
  overlayFailures: string[];
}

export const DEFAULT_OVERLAYS = ["/etc", "/var", "/root", "/home", "/srv", "/opt", "/usr/local"];

/** The host's QEMU (also what `slicelab bundle --with-vm` copies). */
export function qemuBinary(): string {
  for (const p of ["/usr/bin/qemu-system-x86_64", "/usr/local/bin/qemu-system-x86_64"]) if (existsSync(p)) return p;
  throw new UserError("qemu-system-x86_64 not found (Debian package qemu-system-x86)");
}

/** The QEMU argv for one boot (exported for tests and for --dry-run). */
export function qemuArgs(o: {
  kernel: string;
  accel: Accel;
  cpus: number;
  memMiB: number;
  init: string;
  outDir: string;
  append: string;
}): string[] {
  const cmdline = [
    "root=/dev/root",
    "rootfstype=9p",
    "rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose",
    "ro",
    "console=ttyS0",
    "loglevel=4",
    "panic=-1",
    "oops=panic",
    `init=${o.init}`,
    // A loaded host can starve TCG's vCPUs long enough for the boot-time
    // IO-APIC timer check to fail ("IO-APIC + timer doesn't work!" panic).
    "no_timer_check",
    // No tsc=unstable under TCG: this kernel has no HPET/ACPI PM timer to fall
    // back to, and a jiffies clock would turn every clock_gettime into a syscall
    // (which ends a slice extension grant).
    o.append,
  ].filter((s) => s !== "");
  return [
    "-machine", "q35",
    ...accelArgs(o.accel),
    "-cpu", o.accel === "kvm" ? "host" : "max",
    "-smp", String(o.cpus),
    "-m", String(o.memMiB),
    "-kernel", o.kernel,
    "-append", cmdline.join(" "),
    "-display", "none",
    "-vga", "none",
    "-monitor", "none",
    "-serial", "stdio",
    "-no-reboot",
    "-nic", "none",
    "-fsdev", "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap",
    "-device", "virtio-9p-pci,fsdev=root,mount_tag=/dev/root",
    "-fsdev", `local,id=out,path=${o.outDir},security_model=none,multidevs=remap`,
    "-device", `virtio-9p-pci,fsdev=out,mount_tag=${OUT_TAG}`,
  ];
}

function newRunDir(): string {
  const stamp = utcStamp();
  const dir = join(workDir(), "vm", "runs", `${stamp}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

interface BootOutcome {
  exitStatus: number | null;
  timedOut: boolean;
  bootToCommandS: number | null;
  totalS: number;
  console: string;
}

async function boot(args: string[], timeoutS: number, consolePath: string, outDir: string, onConsole?: (s: string) => void): Promise<BootOutcome> {
  const log = createWriteStream(consolePath);
  const t0 = Date.now();
  let bootToCommandS: number | null = null;
  let text = "";
  const child = execa(qemuBinary(), args, { reject: false, stdin: "ignore", all: true, buffer: false, forceKillAfterDelay: 5000 });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGTERM");
  }, timeoutS * 1000);
  child.all?.on("data", (buf: Buffer) => {
    const s = buf.toString();
    log.write(buf);
    text += s;
    if (bootToCommandS === null && text.includes(MARK_START)) bootToCommandS = (Date.now() - t0) / 1000;
    onConsole?.(s);
  });
  await child;
  clearTimeout(timer);
  await new Promise<void>((res) => log.end(res));
  const statusFile = join(outDir, "exit-status");
  let exitStatus: number | null = null;
  const m = new RegExp(`${MARK_EXIT} (\\d+)`).exec(text);
  if (existsSync(statusFile)) {
    const v = readFileSync(statusFile, "utf8").trim();
    if (/^\d+$/.test(v)) exitStatus = Number(v);
  } else if (m) exitStatus = Number(m[1]);
  return { exitStatus, timedOut: timedOut && exitStatus === null, bootToCommandS, totalS: (Date.now() - t0) / 1000, console: text };
}

/**
 * QEMU itself refused to start (bad option, missing file): an error, not a guest outcome. A
 * timeout is not such a failure, even when the guest had not reached the command yet (a loaded
 * host): QEMU then reports the kit's own SIGTERM ("terminating on signal 15"), and the result
 * says timedOut with bootToCommandS null.
 */
function qemuFailed(r: BootOutcome): void {
  if (r.timedOut) return;
  const m = /^qemu-system-x86_64: (.+)$/m.exec(r.console);
  if (m && !r.console.includes(MARK_START) && r.totalS < 30) throw new UserError(`QEMU did not start the guest: ${m[1]}`);
}

/** Whether this process may open /dev/kvm. */
export function kvmAccessible(): boolean {
  try {
    accessSync("/dev/kvm", constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

interface ProbeRecord {
  kernelSha256: string;
  qemu: string;
  kvm: boolean;
  reason: string;
}

/**
 * Decides KVM or TCG for a kernel: a probe boot under KVM that must reach the
 * command within `timeoutS`. The answer is cached per kernel image and QEMU version.
 */
export async function chooseAccel(kernel: string, timeoutS = 20): Promise<{ accel: Accel; reason: string }> {
  if (!existsSync("/dev/kvm")) return { accel: "tcg", reason: "no /dev/kvm" };
  if (!kvmAccessible()) return { accel: "tcg", reason: "/dev/kvm is not accessible to this user" };
  const sha = createHash("sha256").update(readFileSync(kernel)).digest("hex");
  const qemu = (await execa(qemuBinary(), ["--version"])).stdout.split("\n")[0]!;
  const cachePath = join(workDir(), "vm", "kvm-probe.json");
  if (existsSync(cachePath)) {
    const rec = JSON.parse(readFileSync(cachePath, "utf8")) as ProbeRecord;
    if (rec.kernelSha256 === sha && rec.qemu === qemu) {
      return rec.kvm ? { accel: "kvm", reason: `KVM probe passed (cached)` } : { accel: "tcg", reason: `KVM probe failed (cached): ${rec.reason}` };
    }
  }
  const dir = newRunDir();
  const outDir = join(dir, "out");
  mkdirSync(outDir, { recursive: true });
  const init = join(dir, "init");
  writeFileAtomic(init, guestInitScript({ outDir, overlayDirs: [], cwd: "/", env: {}, command: ["true"] }));
  await execa("chmod", ["+x", init]);
  const args = qemuArgs({ kernel, accel: "kvm", cpus: 1, memMiB: 512, init, outDir, append: "" });
  const r = await boot(args, timeoutS, join(dir, "console.log"), outDir);
  const qemuError = /^qemu-system-x86_64: (.+)$/m.exec(r.console)?.[1];
  const ok = r.exitStatus === 0;
  const reason = ok
    ? `reached the command in ${r.bootToCommandS?.toFixed(1)} s`
    : qemuError
      ? `QEMU refused KVM: ${qemuError}`
      : r.timedOut
      ? `no command start within ${timeoutS} s (boot stalled under KVM; last console line: ${JSON.stringify(r.console.trim().split("\n").pop() ?? "")})`
      : `guest ended without running the command`;
  writeFileAtomic(cachePath, `${JSON.stringify({ kernelSha256: sha, qemu, kvm: ok, reason } satisfies ProbeRecord, null, 2)}\n`);
  return ok ? { accel: "kvm", reason: `KVM probe ${reason}` } : { accel: "tcg", reason: `KVM probe failed: ${reason}` };
}

/** Boots the kernel, runs the command, returns what happened. */
export async function runVm(o: VmOptions): Promise<VmResult> {
  const kernel = resolve(o.kernel);
  if (!existsSync(kernel) || !statSync(kernel).isFile()) throw new UserError(`--kernel ${o.kernel}: no such file`);
  if (o.command.length === 0) throw new UserError("expected a command after `--`, found none");
  const cpus = o.cpus ?? 2;
  const memMiB = o.memMiB ?? 2048;
  if (!Number.isInteger(cpus) || cpus < 1) throw new UserError(`--cpus expects a positive integer, got ${cpus}`);
  if (!Number.isInteger(memMiB) || memMiB < 128) throw new UserError(`--mem expects MiB ≥ 128, got ${memMiB}`);
  const timeoutS = o.timeoutS ?? 600;
  let accel: Accel;
  let accelReason: string;
  if (o.accel !== undefined && o.accel !== "auto") {
    if (!ACCELS.includes(o.accel)) throw new UserError(`--accel expects auto, kvm, tcg or tcg-icount, got "${o.accel as string}"`);
    accel = o.accel;
    accelReason = `--accel ${o.accel}`;
  } else {
    ({ accel, reason: accelReason } = await chooseAccel(kernel));
  }
  const dir = newRunDir();
  const outDir = resolve(o.outDir ?? join(dir, "out"));
  mkdirSync(outDir, { recursive: true });
  const statusFile = join(outDir, "exit-status");
  if (existsSync(statusFile)) throw new UserError(`${statusFile}: a previous run's exit status is in the shared directory; use an empty --out directory`);
  const init = join(dir, "init");
  const overlayDirs = o.overlayDirs ?? [...DEFAULT_OVERLAYS, workDir()];
  writeFileAtomic(
    init,
    guestInitScript({ outDir, overlayDirs, cwd: o.cwd ?? process.cwd(), env: o.env ?? {}, command: o.command }),
  );
  await execa("chmod", ["+x", init]);
  const append = o.append ?? "";
  const args = qemuArgs({ kernel, accel, cpus, memMiB, init, outDir, append });
  writeFileAtomic(join(dir, "qemu-args.json"), `${JSON.stringify(args, null, 2)}\n`);
  const consoleLog = join(dir, "console.log");
  const r = await boot(args, timeoutS, consoleLog, outDir, o.onConsole);
  qemuFailed(r);
  const s = r.console.indexOf(MARK_START);
  const e = r.console.indexOf(MARK_EXIT);
  const commandOutput = s >= 0 ? r.console.slice(s + MARK_START.length, e >= 0 ? e : undefined).replace(/^\r?\n/, "").replace(/\r/g, "") : "";
  const overlayFailures = [...r.console.matchAll(new RegExp(`${MARK_OVERLAY_FAILED} (\\S+)`, "g"))].map((m) => m[1]!);
  const result: VmResult = {
    kernel,
    accel,
    accelReason,
    cpus,
    memMiB,
    append,
    command: o.command,
    exitStatus: r.exitStatus,
    timedOut: r.timedOut,
    bootToCommandS: r.bootToCommandS === null ? null : Math.round(r.bootToCommandS * 100) / 100,
    totalS: Math.round(r.totalS * 100) / 100,
    outDir,
    consoleLog,
    commandOutput,
    overlayFailures,
  };
  writeFileAtomic(join(dir, "result.json"), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
