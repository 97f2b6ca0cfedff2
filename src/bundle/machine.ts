/**
 * What run.sh recorded about the machine (the results' machine/ directory), read into facts for the
 * record: the kernel (release, config hash, HZ, preemption model), which preemption modes debugfs
 * accepted, mitigations, steal time over the runs (/proc/stat before and after each session), and
 * what kind of machine it is — bare metal, a virtual machine (which hypervisor, where it says), or a
 * sandbox kernel such as gVisor's — decided from the hypervisor CPU flag, DMI and the boot log.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseProbeOutput } from "../vm/probe.js";
import { ParseError, UserError } from "../util/errors.js";

export interface MachineSetting {
  kind: "bare metal" | "virtual machine" | "sandbox";
  label: string;
  reason: string;
}

export interface MachineFacts {
  hostname: string | null;
  kernelRelease: string;
  kernelVersion: string | null;
  cpuModel: string | null;
  cpus: number | null;
  memoryBytes: number | null;
  configSha256: string | null;
  hz: number | null;
  /** CONFIG_PREEMPT* lines of the config (the build-time model, PREEMPT_DYNAMIC). */
  preemptConfig: string[];
  modeAtStart: string | null;
  modesAccepted: string[];
  mitigations: Record<string, string>;
  /** Steal time as a share of all CPU time between the before and after snapshots (all sessions), or null. */
  stealPct: number | null;
  rseqDebug: string | null;
  sliceExtension: string;
  setting: MachineSetting;
}

const read = (dir: string, f: string): string | null => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), "utf8") : null);

/** Total and steal jiffies of the "cpu " line of a /proc/stat excerpt. */
export function statTotals(text: string, file: string): { total: number; steal: number } {
  const line = text.split("\n").findIndex((l) => l.startsWith("cpu "));
  if (line < 0) throw new ParseError(file, 1, 'a "cpu " line (/proc/stat)', JSON.stringify(text.slice(0, 40)));
  const xs = text.split("\n")[line]!.trim().split(/\s+/).slice(1).map(Number);
  if (xs.length < 8 || xs.some((x) => !Number.isFinite(x))) throw new ParseError(file, line + 1, "cpu user nice system idle iowait irq softirq steal …", text.split("\n")[line]!.slice(0, 80));
  // guest and guest_nice (fields 9, 10) are already counted in user and nice
  return { total: xs.slice(0, 8).reduce((a, b) => a + b, 0), steal: xs[7]! };
}

/** The machine's kind, from the hypervisor flag, DMI and the first lines of the boot log. */
export function machineSetting(o: { hypervisorFlag: string | null; virtualisation: string | null; dmesgHead: string | null; procVersion: string | null }): MachineSetting {
  const boot = `${o.dmesgHead ?? ""}\n${o.procVersion ?? ""}`;
  if (/gVisor/i.test(boot)) return { kind: "sandbox", label: "a gVisor sandbox", reason: "the boot log names gVisor: system calls and page faults are served by gVisor's own kernel, not Linux" };
  const virt = (o.virtualisation ?? "").trim();
  if ((o.hypervisorFlag ?? "").trim() === "yes") {
    const fc = /-fc-|firecracker/i.test(boot) ? "Firecracker " : "";
    return { kind: "virtual machine", label: `a ${fc}virtual machine`, reason: `the CPU reports the hypervisor flag${virt ? `; ${virt.replace(/\n/g, "; ")}` : ""}${fc ? "; the kernel's build string names Firecracker (-fc-)" : ""}; whether its host is itself virtual is not visible from inside` };
  }
  return { kind: "bare metal", label: "bare metal", reason: `no hypervisor CPU flag${virt ? `; ${virt.replace(/\n/g, "; ")}` : ""}` };
}

export function readMachine(dir: string): MachineFacts {
  if (!existsSync(dir)) throw new UserError(`${dir}: missing (run.sh records the machine there before the first run)`);
  const release = read(dir, "uname-r")?.trim();
  if (!release) throw new UserError(`${join(dir, "uname-r")}: missing or empty (expected the kernel release run.sh recorded)`);
  const uname = read(dir, "uname-a")?.trim() ?? "";
  const cpuinfo = read(dir, "cpuinfo-head") ?? "";
  const meminfo = read(dir, "meminfo") ?? "";
  const sched = read(dir, "kernel-config-sched") ?? "";
  const hz = /^CONFIG_HZ=(\d+)$/m.exec(sched);
  const mitigations: Record<string, string> = {};
  for (const l of (read(dir, "mitigations") ?? "").split("\n")) {
    const m = /^([^:]+): (.*)$/.exec(l);
    if (m) mitigations[m[1]!] = m[2]!;
  }
  let stealPct: number | null = null;
  const sessions = readdirSync(dir).filter((f) => /^stat-before\.\d+$/.test(f));
  let total = 0;
  let steal = 0;
  for (const b of sessions) {
    const a = b.replace("before", "after");
    const ta = read(dir, a);
    if (ta === null) continue;
    const x = statTotals(read(dir, b)!, join(dir, b));
    const y = statTotals(ta, join(dir, a));
    total += y.total - x.total;
    steal += y.steal - x.steal;
  }
  if (total > 0) stealPct = (100 * steal) / total;
  const probeText = read(dir, "slice-probe.txt");
  let sliceExtension: string;
  try {
    const p = probeText ? parseProbeOutput(probeText, join(dir, "slice-probe.txt")) : null;
    sliceExtension = !p ? "unknown: no probe output" : p.sliceExtensionUsable ? `available (prctl set ok, get ${String(p.prctlGetAfter)}; slice ${String(p.sliceExtNsec)} ns)` : `unavailable: prctl(PR_RSEQ_SLICE_EXTENSION) get ${String(p.prctlGetBefore)}, set ${p.prctlSet ?? "not tried"} (slice-probe on ${p.kernelRelease})`;
  } catch (e) {
    sliceExtension = `unknown: the probe's output did not parse (${(e as Error).message})`;
  }
  const cfgHash = read(dir, "kernel-config-sha256")?.trim();
  let preemptConfig = sched.split("\n").filter((l) => /^CONFIG_PREEMPT/.test(l));
  if (!sched && existsSync(join(dir, "kernel-config.gz"))) {
    preemptConfig = gunzipSync(readFileSync(join(dir, "kernel-config.gz"))).toString("utf8").split("\n").filter((l) => /^CONFIG_PREEMPT/.test(l));
  }
  const accepted = (read(dir, "preempt-modes-accepted") ?? "").trim().split(/\s+/).filter((x) => x);
  return {
    hostname: uname.split(/\s+/)[1] ?? null,
    kernelRelease: release,
    kernelVersion: read(dir, "proc-version")?.trim() ?? null,
    cpuModel: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.trim() ?? /^Model name:\s*(.*)$/m.exec(read(dir, "lscpu") ?? "")?.[1]?.trim() ?? null,
    cpus: Number(read(dir, "cpus") ?? read(dir, "nproc") ?? NaN) || null,
    memoryBytes: Number(/^MemTotal:\s+(\d+) kB/m.exec(meminfo)?.[1] ?? NaN) * 1024 || null,
    configSha256: cfgHash && /^[0-9a-f]{64}$/.test(cfgHash) ? cfgHash : null,
    hz: hz ? Number(hz[1]) : null,
    preemptConfig,
    modeAtStart: read(dir, "preempt-at-start")?.trim() || null,
    modesAccepted: accepted,
    mitigations,
    stealPct,
    rseqDebug: read(dir, "rseq-debug")?.trim() ?? null,
    sliceExtension,
    setting: machineSetting({ hypervisorFlag: read(dir, "hypervisor-flag"), virtualisation: read(dir, "virtualisation"), dmesgHead: read(dir, "dmesg-head"), procVersion: read(dir, "proc-version") }),
  };
}
