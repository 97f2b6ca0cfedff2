import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, statfsSync } from "node:fs";
import { release } from "node:os";
import { dirname, join, resolve } from "node:path";
import { workDir } from "../util/paths.js";
import { type KernelInfo } from "../record/provenance.js";
import { cachedKernel } from "../kernel/ensure.js";
import { type Study } from "./study.js";

/** The checks `slicelab study run` makes before it runs anything (machine, kernel, disk, the VM). */

export type CheckStatus = "pass" | "fail" | "skipped";
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

/** The kernel level of a "kernel" factor this machine is booted into. */
export function kernelLevel(rel: string): string {
  const major = Number(/^(\d+)\./.exec(rel)?.[1] ?? "0");
  return major >= 7 ? "7.x" : "pre-7.0";
}

export function readText(p: string): string | null {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return null;
  }
}

export const PREEMPT_FILE = "/sys/kernel/debug/sched/preempt";

export function writable(p: string): boolean {
  try {
    accessSync(p, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** MiB from a PostgreSQL size ("64MB", "1GB", "16MB"). */
export function sizeMiB(v: string | number | undefined): number {
  if (v === undefined) return 128;
  const m = /^(\d+)\s*(kB|MB|GB)?$/i.exec(String(v));
  if (!m) return 128;
  const n = Number(m[1]);
  const u = (m[2] ?? "MB").toUpperCase();
  return u === "KB" ? n / 1024 : u === "GB" ? n * 1024 : n;
}

export interface CheckContext {
  kernel: KernelInfo;
  /** The directory the record goes to (disk space is checked there). */
  recordParent: string;
  /** Parameters after overrides (shared_buffers for huge pages). */
  params: Record<string, string | number>;
  /** The experiment boots its own VM: the preemption mode is the guest's, not this machine's. */
  bootsVm?: boolean;
}

/** The checks a study needs on this machine, each pass/fail/skipped with a clear line. */
export function runChecks(study: Study, ctx: CheckContext): Check[] {
  const out: Check[] = [];
  const k = ctx.kernel;
  const probe = k.sliceExtensionPrctl;
  const probeText = probe.available === true ? `available (${probe.detail})` : probe.available === false ? `unavailable: prctl(PR_RSEQ_SLICE_EXTENSION) ${probe.detail}` : probe.detail;
  const wantsExt = study.factors.some((f) => f.via === "setting:slice_extension" && f.levels.some((l) => l !== "off"));
  if (study.requires.sliceExtension === "required") {
    out.push({ name: "slice extension", status: probe.available === true ? "pass" : "fail", detail: `${probeText}${probe.available === true ? "" : ` on kernel ${k.release}: this study needs a 7.x kernel built with CONFIG_RSEQ_SLICE_EXTENSION`}` });
  } else {
    out.push({ name: "slice extension", status: "pass", detail: `${probeText} (recorded${wantsExt && probe.available !== true ? "; extension levels run the patch's no-kernel-support path" : ""})` });
  }
  const kf = study.factors.find((f) => f.via === "kernel");
  if (kf) {
    const lvl = kernelLevel(k.release);
    out.push({
      name: "kernel level",
      status: kf.levels.includes(lvl) ? "pass" : "fail",
      detail: kf.levels.includes(lvl) ? `running ${k.release}: level ${lvl} of ${kf.name} (${kf.levels.join(", ")}); the other levels need a reboot and another run` : `running ${k.release} is level ${lvl}, not one of ${kf.levels.join(", ")}`,
    });
  }
  const mode = study.factors.find((f) => f.via === "preempt");
  if (mode && ctx.bootsVm) {
    out.push({ name: "preemption mode", status: "pass", detail: `${mode.name} is switched inside the experiment's own VM guest (debugfs sched/preempt there), not on this machine` });
  } else if (mode) {
    const avail = readText(PREEMPT_FILE);
    if (k.preempt.dynamic !== true) {
      out.push({ name: "preemption mode", status: "fail", detail: `${mode.name} is a factor but the kernel ${k.release} ${k.preempt.dynamic === false ? "is built without CONFIG_PREEMPT_DYNAMIC" : "has no readable config, so PREEMPT_DYNAMIC is not known"}; the mode can only change by rebooting with preempt=` });
    } else if (avail === null) {
      out.push({ name: "preemption mode", status: "fail", detail: `${PREEMPT_FILE} is not readable: mount debugfs (mount -t debugfs none /sys/kernel/debug) as root` });
    } else if (!writable(PREEMPT_FILE)) {
      out.push({ name: "preemption mode", status: "fail", detail: `${PREEMPT_FILE} is not writable (run as root)` });
    } else {
      const missing = mode.levels.filter((l) => !avail.split(/[\s()]+/).includes(l));
      out.push({ name: "preemption mode", status: missing.length ? "fail" : "pass", detail: missing.length ? `${PREEMPT_FILE} offers "${avail.trim()}", not ${missing.join(", ")}` : `${PREEMPT_FILE} writable, offers "${avail.trim()}"` });
    }
  }
  const hp = study.factors.find((f) => f.via === "setting:huge_pages" && f.levels.includes("on"));
  if (hp && study.requires.hugePages) {
    const meminfo = readText("/proc/meminfo") ?? "";
    const sizeKb = Number(/^Hugepagesize:\s+(\d+) kB/m.exec(meminfo)?.[1] ?? "0");
    const availKb = Number(/^MemAvailable:\s+(\d+) kB/m.exec(meminfo)?.[1] ?? "0");
    const needMiB = sizeMiB(ctx.params.shared_buffers) * 1.2 + 16;
    if (sizeKb === 0) out.push({ name: "huge pages", status: "fail", detail: "the kernel offers no huge pages (no Hugepagesize in /proc/meminfo)" });
    else if (!writable("/proc/sys/vm/nr_hugepages")) out.push({ name: "huge pages", status: "fail", detail: "/proc/sys/vm/nr_hugepages is not writable (run as root) to reserve huge pages for huge_pages=on" });
    else if (availKb / 1024 < needMiB) out.push({ name: "huge pages", status: "fail", detail: `huge_pages=on needs about ${Math.ceil(needMiB)} MiB of huge pages, ${Math.floor(availKb / 1024)} MiB available` });
    else out.push({ name: "huge pages", status: "pass", detail: `reservable: ${Math.ceil((needMiB * 1024) / sizeKb)} pages of ${sizeKb} kB (${Math.ceil(needMiB)} MiB of ${Math.floor(availKb / 1024)} MiB available)` });
  }
  const wantsPerf = study.requires.perf === true || (study.collectors ?? []).some((c) => c.startsWith("perf-"));
  if (wantsPerf) {
    const perfBin = spawnSync("sh", ["-c", "command -v perf"], { encoding: "utf8" }).stdout.trim();
    const paranoid = Number(readText("/proc/sys/kernel/perf_event_paranoid")?.trim() ?? "NaN");
    const root = process.getuid?.() === 0;
    if (!perfBin) out.push({ name: "perf", status: "fail", detail: "perf not found (Debian package linux-perf)" });
    else if (!root && !(paranoid <= 1)) out.push({ name: "perf", status: "fail", detail: `perf_event_paranoid is ${paranoid} and this is not root: perf cannot see the kernel` });
    else out.push({ name: "perf", status: "pass", detail: `${perfBin}, perf_event_paranoid ${paranoid}${root ? ", root" : ""}` });
  }
  // Checks create nothing: free space is read on the nearest existing ancestor.
  const free = (dir: string) => {
    let d = resolve(dir);
    while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
    const s = statfsSync(d);
    return (s.bavail * s.bsize) / 2 ** 20;
  };
  for (const [what, dir] of [["record", ctx.recordParent], ["clusters", workDir()]] as const) {
    const mib = free(dir);
    const need = what === "record" ? 50 : study.requires.diskMiB;
    out.push({ name: `disk (${what})`, status: mib >= need ? "pass" : "fail", detail: `${Math.floor(mib)} MiB free in ${dir}, the plan needs about ${need} MiB` });
  }
  return out;
}


/** The kit's VM kernel (the default fragments) in the build cache: the image `--vm` boots. */
export function kernelImageCheck(): Check {
  try {
    const rec = cachedKernel();
    if (!rec) return { name: "VM kernel", status: "fail", detail: "no finished kernel build in the cache yet: `slicelab kernel fetch && slicelab kernel configure && slicelab kernel build` (a build in progress counts once it ends)" };
    return { name: "VM kernel", status: existsSync(rec.bzImage) ? "pass" : "fail", detail: rec.bzImage };
  } catch (err) {
    return { name: "VM kernel", status: "fail", detail: err instanceof Error ? err.message : String(err) };
  }
}

/** Host-side checks for `--vm`: QEMU and the kit's kernel image. */
export function vmChecks(): Check[] {
  const out: Check[] = [];
  const qemu = ["/usr/bin/qemu-system-x86_64", "/usr/local/bin/qemu-system-x86_64"].find((p) => existsSync(p));
  out.push({ name: "qemu", status: qemu ? "pass" : "fail", detail: qemu ?? "qemu-system-x86_64 not found (Debian package qemu-system-x86)" });
  out.push(kernelImageCheck());
  return out;
}
