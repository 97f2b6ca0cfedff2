/**
 * The slice-extension probe (src/vm/slice-probe.c): built with the host's cc
 * into the kernel cache (the guest sees the host's root, so the same binary
 * runs inside the VM), and its `key=value` output turned into a record.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { ParseError, UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { kernelCacheDir } from "../kernel/tree.js";

export function probeSource(): string {
  return join(repoRoot(), "src", "vm", "slice-probe.c");
}

/** Compiles the probe (once per source hash) and returns the binary's path. */
export async function buildProbe(): Promise<string> {
  const src = probeSource();
  const sha = createHash("sha256").update(readFileSync(src)).digest("hex").slice(0, 12);
  const bin = join(kernelCacheDir(), "bin", `slice-probe-${sha}`);
  if (existsSync(bin)) return bin;
  const tmp = `${bin}.tmp-${process.pid}`;
  await execa("mkdir", ["-p", join(kernelCacheDir(), "bin")]);
  const r = await execa("cc", ["-O2", "-Wall", "-pthread", "-o", tmp, src], { reject: false, all: true });
  if (r.exitCode !== 0) {
    if ((r as { code?: string }).code === "ENOENT") throw new UserError("cc not found (Debian package build-essential)");
    throw new UserError(`cc failed on ${src}:\n${r.all ?? ""}`);
  }
  await execa("mv", [tmp, bin]);
  return bin;
}

/** What the probe found. Counters are absent when the probe did not run that part. */
export interface ProbeReport {
  kernelRelease: string;
  onlineCpus: number;
  auxvRseqFeatureSize: number;
  glibcRseqSize: number;
  /** How the probe got an rseq area long enough: "glibc", "own:N", or "failed:ERR". */
  rseqRegistration: string | undefined;
  sliceExtNsec: number | string;
  sliceExtNsecAfter: number | undefined;
  /** prctl GET before/after SET: a number (0 or 1) or an errno name. */
  prctlGetBefore: number | string;
  prctlSet: string | undefined;
  prctlGetAfter: number | string | undefined;
  flagAvailable: boolean | undefined;
  flagEnabled: boolean | undefined;
  /** The extension is usable by this process: SET succeeded and GET says enabled. */
  sliceExtensionUsable: boolean;
  spin?: { threads: number; threadsFailed: number; requests: number; grantedSeen: number; yields: number; revokedSeen: number };
  /** rseq/stats counters before and after the spin (debugfs), keyed as the kernel prints them. */
  statsBefore?: Record<string, number>;
  statsAfter?: Record<string, number>;
  raw: Record<string, string>;
}

const numOrErr = (v: string | undefined): number | string => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : v ?? "missing");

/** Parses the probe's output (`file` names it in errors). */
export function parseProbeOutput(text: string, file = "slice-probe output"): ProbeReport {
  const raw: Record<string, string> = {};
  const statsBefore: Record<string, number> = {};
  const statsAfter: Record<string, number> = {};
  text.split("\n").forEach((line, i) => {
    const l = line.replace(/\r$/, "");
    if (l.trim() === "") return;
    const m = /^([a-z_]+)=(.*)$/.exec(l);
    if (!m) throw new ParseError(file, i + 1, "key=value", JSON.stringify(l.slice(0, 80)));
    raw[m[1]!] = m[2]!;
    const s = /^stats_(before|after)_([a-z]+)$/.exec(m[1]!);
    if (s && /^\d+$/.test(m[2]!)) (s[1] === "before" ? statsBefore : statsAfter)[s[2]!] = Number(m[2]);
  });
  for (const k of ["kernel_release", "auxv_rseq_feature_size", "glibc_rseq_size", "prctl_get_before"]) {
    if (raw[k] === undefined) throw new ParseError(file, text.split("\n").length, `a line "${k}=…"`, "none");
  }
  const prctlGetAfter = raw.prctl_get_after === undefined ? undefined : numOrErr(raw.prctl_get_after);
  const rep: ProbeReport = {
    kernelRelease: raw.kernel_release!,
    onlineCpus: Number(raw.online_cpus ?? "0"),
    auxvRseqFeatureSize: Number(raw.auxv_rseq_feature_size),
    glibcRseqSize: Number(raw.glibc_rseq_size),
    rseqRegistration: raw.rseq_registration,
    sliceExtNsec: numOrErr(raw.slice_ext_nsec),
    sliceExtNsecAfter: raw.slice_ext_nsec_after === undefined ? undefined : Number(raw.slice_ext_nsec_after),
    prctlGetBefore: numOrErr(raw.prctl_get_before),
    prctlSet: raw.prctl_set,
    prctlGetAfter,
    flagAvailable: raw.flag_slice_ext_available === undefined ? undefined : raw.flag_slice_ext_available === "1",
    flagEnabled: raw.flag_slice_ext_enabled === undefined ? undefined : raw.flag_slice_ext_enabled === "1",
    sliceExtensionUsable: raw.prctl_set === "ok" && prctlGetAfter === 1,
    raw,
  };
  if (raw.spin_threads !== undefined) {
    rep.spin = {
      threads: Number(raw.spin_threads),
      threadsFailed: Number(raw.spin_threads_failed),
      requests: Number(raw.spin_requests),
      grantedSeen: Number(raw.spin_granted_seen),
      yields: Number(raw.spin_yields),
      revokedSeen: Number(raw.spin_revoked_seen),
    };
    rep.statsBefore = statsBefore;
    rep.statsAfter = statsAfter;
  }
  return rep;
}

/** Counter differences after − before for the slice-extension counters (sgrant, sexpir, srevok, syield, sabort). */
export function sliceStatsDelta(rep: ProbeReport): Record<string, number> | undefined {
  if (!rep.statsBefore || !rep.statsAfter) return undefined;
  const out: Record<string, number> = {};
  for (const k of ["sgrant", "sexpir", "srevok", "syield", "sabort"]) {
    if (rep.statsAfter[k] !== undefined && rep.statsBefore[k] !== undefined) out[k] = rep.statsAfter[k]! - rep.statsBefore[k]!;
  }
  return out;
}
