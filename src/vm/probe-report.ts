/**
 * Notebook 02's reading of the slice-extension probe: the two boots side by
 * side (default and `rseq_slice_ext=0`), the spin loop's counts, and what the
 * boots showed, as table rows and sentences computed from the probe reports.
 */
import type { ProbeReport } from "./probe.js";
import { sliceStatsDelta } from "./probe.js";

type Cell = string | number;

/** Rows "check | default boot | rseq_slice_ext=0". */
export function probeComparisonRows(on: ProbeReport, off: ProbeReport): string[][] {
  const row = (k: string, f: (r: ProbeReport) => unknown) => [k, String(f(on)), String(f(off))];
  return [
    row("kernel", (r) => r.kernelRelease),
    row("AT_RSEQ_FEATURE_SIZE", (r) => r.auxvRseqFeatureSize),
    row("glibc's rseq size", (r) => r.glibcRseqSize),
    row("rseq area used", (r) => r.rseqRegistration),
    row("prctl GET before", (r) => r.prctlGetBefore),
    row("prctl SET enable", (r) => r.prctlSet),
    row("prctl GET after", (r) => r.prctlGetAfter),
    row("rseq flags: available / enabled", (r) => `${r.flagAvailable} / ${r.flagEnabled}`),
    row("slice_ext_nsec (default)", (r) => r.sliceExtNsec),
  ];
}

/** The spin loop's header and rows: the thread's own counts, then rseq/stats after − before. */
export function probeSpinTable(on: ProbeReport, threads: number, vcpus: number): { header: string[]; rows: Cell[][] } {
  const spin = on.spin;
  if (!spin) throw new Error("the probe report has no spin loop (run it with --threads)");
  const delta = sliceStatsDelta(on) ?? {};
  return {
    header: [`spin loop (${threads} threads, ${vcpus} vCPUs, slice_ext_nsec set to ${on.sliceExtNsecAfter})`, "count"],
    rows: [
      ["requests", spin.requests],
      ["grants seen by the thread", spin.grantedSeen],
      ["revocations seen", spin.revokedSeen],
      ...Object.entries(delta).map(([k, v]) => [`rseq/stats ${k} (after − before)`, v] as Cell[]),
    ],
  };
}

/** The bullets of "What this showed" for the two probe boots. */
export function probeFindings(o: {
  on: ProbeReport;
  off: ProbeReport;
  accel: string;
  accelReason: string;
  bootToCommandS: number | null;
  tree: { debianPackage?: string; debianVersion?: string; version: string };
  requestedOptions: number;
}): string[] {
  const { on, off } = o;
  const delta = sliceStatsDelta(on) ?? {};
  const spin = on.spin;
  return [
    `- The sid source (${o.tree.debianPackage} ${o.tree.debianVersion}, kernel ${o.tree.version}) configured from fragments with all ${o.requestedOptions} requested options present, and built.`,
    `- The kernel booted under **${o.accel.toUpperCase()}** (${o.accelReason}) and reached the command ${o.bootToCommandS} s after QEMU started${o.accel.startsWith("tcg") ? " (emulated; not a performance figure)" : ""}.`,
    `- Inside, the extension was ${on.sliceExtensionUsable ? "**usable**" : "**not usable**"} (prctl SET ${on.prctlSet}, GET ${on.prctlGetAfter}) with the probe's own ${on.rseqRegistration} rseq area; with \`rseq_slice_ext=0\` SET returned ${off.prctlSet}.`,
    `- Under oversubscription the kernel granted **${delta.sgrant ?? 0}** extensions (rseq/stats sgrant) for ${spin?.requests ?? 0} requests; ${delta.srevok ?? "?"} were revoked, ${delta.syield ?? "?"} ended with rseq_slice_yield, ${delta.sabort ?? "?"} with another syscall, ${delta.sexpir ?? "?"} expired. ` +
      "These counts show the mechanism working, not its benefit: that needs the A/B runs (`slicelab vm micro`, data/runs/vm-micro/), and under TCG even those are functional only.",
  ];
}
