import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { cpus, hostname, loadavg, release, totalmem, version } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { serverVersion } from "../postgres/binaries.js";
import { cacheDir, repoRoot } from "../util/paths.js";
import { writeFileAtomic } from "../util/fs.js";

/**
 * What ran where: the facts recorded beside every series so that a number can be
 * traced to a machine, a kernel, a PostgreSQL build, a protocol and a kit commit.
 * Every field is read from the system; what cannot be read is null, never guessed.
 */

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

export interface HostInfo {
  hostname: string;
  cpuModel: string | null;
  cpus: number;
  memoryBytes: number;
  /** cpufreq governor of cpu0, null when cpufreq is not exposed (common in VMs). */
  governor: string | null;
}

export function hostInfo(): HostInfo {
  const info = readText("/proc/cpuinfo");
  const model = info ? /^model name\s*:\s*(.*)$/m.exec(info)?.[1]?.trim() ?? null : null;
  return {
    hostname: hostname(),
    cpuModel: model,
    cpus: cpus().length,
    memoryBytes: totalmem(),
    governor: readText("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")?.trim() ?? null,
  };
}

/** The running kernel's configuration: /boot/config-RELEASE, else /proc/config.gz. */
export function kernelConfig(): { source: string; text: string } | null {
  const boot = `/boot/config-${release()}`;
  const b = readText(boot);
  if (b !== null) return { source: boot, text: b };
  try {
    return { source: "/proc/config.gz", text: gunzipSync(readFileSync("/proc/config.gz")).toString("utf8") };
  } catch {
    return null;
  }
}

/** The value of CONFIG_NAME in a kernel config: "y", "m", a string, "n" when "is not set" or absent. */
export function configValue(text: string, name: string): string {
  const m = new RegExp(`^${name}=(.*)$`, "m").exec(text);
  return m ? (m[1] as string) : "n";
}

export interface SliceExtensionProbe {
  /** true: prctl(PR_RSEQ_SLICE_EXTENSION, GET) succeeded; false: the kernel refused it; null: not probed. */
  available: boolean | null;
  /** "ok 0", "error 22 Invalid argument", or why it was not probed. */
  detail: string;
}

const PROBE_SOURCE = `/* slicelab: does this kernel know PR_RSEQ_SLICE_EXTENSION (79)? GET is 1. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
int main(void) {
  int r = prctl(79, 1, 0, 0, 0);
  if (r < 0) { printf("error %d %s\\n", errno, strerror(errno)); return 1; }
  printf("ok %d\\n", r);
  return 0;
}
`;

/** Compiles (once, into the cache) and runs a tiny C program that calls prctl(PR_RSEQ_SLICE_EXTENSION, GET). */
export function probeSliceExtension(): SliceExtensionProbe {
  const dir = join(cacheDir(), "probes");
  const bin = join(dir, `rseq-slice-prctl-${sha256(PROBE_SOURCE).slice(0, 12)}`);
  if (!existsSync(bin)) {
    try {
      mkdirSync(dir, { recursive: true });
      writeFileAtomic(`${bin}.c`, PROBE_SOURCE);
      execFileSync("cc", ["-O2", "-o", bin, `${bin}.c`], { stdio: ["ignore", "ignore", "pipe"] });
    } catch (err) {
      return { available: null, detail: `not probed: cannot compile the probe with cc (Debian package build-essential): ${err instanceof Error ? err.message.split("\n")[0] : String(err)}` };
    }
  }
  const r = spawnSync(bin, [], { encoding: "utf8" });
  const out = (r.stdout ?? "").trim();
  if (out.startsWith("ok")) return { available: true, detail: out };
  if (out.startsWith("error")) return { available: false, detail: out };
  return { available: null, detail: `not probed: the probe printed ${JSON.stringify(out)} (exit ${r.status})` };
}

export interface KernelInfo {
  release: string;
  version: string;
  cmdline: string | null;
  configSource: string | null;
  configSha256: string | null;
  /** CONFIG_RSEQ_SLICE_EXTENSION from the config ("y", "n", …), null when no config is readable. */
  rseqSliceExtensionConfig: string | null;
  preempt: {
    /** /sys/kernel/debug/sched/preempt (needs debugfs), e.g. "none (voluntary) full lazy"; null when unreadable. */
    debugfs: string | null;
    /** The preemption model chosen at build time (CONFIG_PREEMPT_NONE → "none", …). */
    config: string | null;
    dynamic: boolean | null;
    /** preempt= on the kernel command line, if any. */
    cmdline: string | null;
  };
  sliceExtensionPrctl: SliceExtensionProbe;
}

export function kernelInfo(): KernelInfo {
  const cfg = kernelConfig();
  const cmdline = readText("/proc/cmdline")?.trim() ?? null;
  let model: string | null = null;
  if (cfg) {
    for (const [opt, name] of [
      ["CONFIG_PREEMPT_NONE", "none"],
      ["CONFIG_PREEMPT_VOLUNTARY", "voluntary"],
      ["CONFIG_PREEMPT", "full"],
      ["CONFIG_PREEMPT_LAZY", "lazy"],
      ["CONFIG_PREEMPT_RT", "rt"],
    ] as const) {
      if (configValue(cfg.text, opt) === "y") model = name;
    }
  }
  return {
    release: release(),
    version: version(),
    cmdline,
    configSource: cfg?.source ?? null,
    configSha256: cfg ? sha256(cfg.text) : null,
    rseqSliceExtensionConfig: cfg ? configValue(cfg.text, "CONFIG_RSEQ_SLICE_EXTENSION") : null,
    preempt: {
      debugfs: readText("/sys/kernel/debug/sched/preempt")?.trim() ?? null,
      config: model,
      dynamic: cfg ? configValue(cfg.text, "CONFIG_PREEMPT_DYNAMIC") === "y" : null,
      cmdline: cmdline ? /(?:^|\s)preempt=(\S+)/.exec(cmdline)?.[1] ?? null : null,
    },
    sliceExtensionPrctl: probeSliceExtension(),
  };
}

export interface PostgresBuildInfo {
  binDir: string;
  realBinDir: string;
  version: string;
  /** sha256 of the postgres executable: identifies the build. */
  postgresSha256: string;
  /** `pg_config --configure` when pg_config is in the bin directory. */
  configure: string | null;
  /** The build record the kit's source builds leave at PREFIX/slicelab-build.json (patch hash, commit), if any. */
  buildRecord: unknown;
}

export function postgresInfo(binDir: string): PostgresBuildInfo {
  const real = realpathSync(binDir);
  let configure: string | null = null;
  if (existsSync(join(binDir, "pg_config"))) {
    try {
      configure = execFileSync(join(binDir, "pg_config"), ["--configure"], { encoding: "utf8" }).trim();
    } catch {
      configure = null;
    }
  }
  const recordText = readText(join(dirname(real), "slicelab-build.json"));
  let buildRecord: unknown = null;
  if (recordText !== null) {
    try {
      buildRecord = JSON.parse(recordText);
    } catch {
      buildRecord = { unreadable: join(dirname(real), "slicelab-build.json") };
    }
  }
  return {
    binDir,
    realBinDir: real,
    version: serverVersion(binDir),
    postgresSha256: sha256(readFileSync(join(binDir, "postgres"))),
    configure,
    buildRecord,
  };
}

export interface KitInfo {
  commit: string | null;
  /** True when tracked files differ from the commit. */
  dirty: boolean | null;
  node: string;
}

export function kitInfo(): KitInfo {
  const git = (args: string[]): string | null => {
    try {
      return execFileSync("git", ["-C", repoRoot(), ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return null;
    }
  };
  const commit = git(["rev-parse", "HEAD"]);
  const status = commit === null ? null : git(["status", "--porcelain", "--untracked-files=no"]);
  return { commit, dirty: status === null ? null : status.length > 0, node: process.version };
}

/** The 1-, 5- and 15-minute load averages, rounded to 0.01. */
export function loadAverage(): [number, number, number] {
  const [a, b, c] = loadavg();
  const r = (x: number | undefined) => Math.round((x ?? 0) * 100) / 100;
  return [r(a), r(b), r(c)];
}

/** sha256 of a file's bytes. */
export function fileSha256(path: string): string {
  return sha256(readFileSync(path));
}

/** What our patched server's `slice_extension_status` must say on a host, from the kit's probe there. */
export interface ExpectedSliceStatus {
  status: RegExp;
  /** false: the patch cannot have requested or been granted anything. */
  grantsMayBeNonzero: boolean;
}

/**
 * The status the patch (kernel-patches/postgresql, SliceExtProbe) reports for a server started
 * with the environment the probe ran in, following its checks in order: the kernel's prctl GET
 * and AT_RSEQ_FEATURE_SIZE (≥ 33), then glibc's registration (it must cover slice_ctrl, or be
 * absent, e.g. GLIBC_TUNABLES=glibc.pthread.rseq=0), then SET (the probe's own SET/GET).
 */
export function expectedSliceStatus(probe: {
  prctlGetBefore: number | string;
  auxvRseqFeatureSize: number;
  glibcRseqSize: number;
  sliceExtensionUsable: boolean;
}): ExpectedSliceStatus {
  if (typeof probe.prctlGetBefore !== "number" || probe.auxvRseqFeatureSize < 33) {
    return { status: /^unavailable: the kernel has no rseq time slice extension/, grantsMayBeNonzero: false };
  }
  if (probe.glibcRseqSize > 0 && probe.glibcRseqSize < 33) {
    return { status: /^unavailable: glibc's rseq registration does not cover slice_ctrl/, grantsMayBeNonzero: false };
  }
  if (probe.sliceExtensionUsable) return { status: /^enabled/, grantsMayBeNonzero: true };
  return { status: /^unavailable/, grantsMayBeNonzero: false };
}
