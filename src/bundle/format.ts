/**
 * The bundle's two formats: what `slicelab bundle` writes (MANIFEST.json, one per bundle) and what
 * its run.sh writes back (RESULTS.json, one per results directory). Both carry an integer format;
 * `slicelab import` reads results of this format or older and refuses newer ones by name.
 */
import type { MicroShape, PlannedRun } from "../drivers/mechanism/index.js";
import type { BundleVm, VmResultsField } from "./vm.js";

export const BUNDLE_FORMAT = 1;
export const RESULTS_FORMAT = "slicelab-results/1";
/** The results formats this kit can import. */
export const RESULTS_FORMATS_READ = [RESULTS_FORMAT];

/** One plan in a bundle: run.sh picks one from what the machine allows. */
export interface BundlePlan {
  /** dyn-ext, dyn-noext (preemption mode switched through debugfs) or cur-ext, cur-noext (the current mode only). */
  name: string;
  modes: string[];
  pages: string[];
  extensions: string[];
  /** A PostgreSQL bundle's builds in this plan (baseline, patched); absent in micro bundles. */
  builds?: string[];
  blocks: number;
  runs: number;
  perBlock: number;
}

export interface BundleManifest {
  format: number;
  /** sha256 (first 16 hex) of the plans, programs and run.sh: a results directory names the bundle it came from. */
  id: string;
  study: string;
  title: string;
  made: { kitCommit: string; dirty: boolean | null; at: string; host: string };
  micro: { sourceSha256: string; static: boolean };
  probe: { sourceSha256: string; static: boolean };
  shape: MicroShape;
  seed: number;
  plans: BundlePlan[];
  /** Huge pages run.sh adds for the hugetlb cells (2 MiB each). */
  hugePages: number;
  memoryKiB: number;
  diskKiB: number;
  /** Seconds a run is expected to take before the first one has run (the budget's first guess). */
  estimateRunS: number;
  files: string[];
  /** --with-vm: the kernel, QEMU and guest root in vm/ (src/bundle/vm.ts); absent otherwise. */
  vm?: BundleVm;
}

/** What run.sh writes into RESULTS.json (one line of JSON, written by printf). */
export interface BundleResults {
  format: string;
  study: string;
  bundle: string;
  bundleFormat: number;
  /** native: the kernel has the extension; reference: it does not (extension off only); kvm, tcg: the bundle's kernel in a guest (--with-vm). */
  path: "native" | "reference" | "kvm" | "tcg";
  plan: string;
  plannedRuns: number;
  runsWithStatus: number;
  traced: boolean;
  budgetS: number;
  session: number;
  started: string;
  ended: string;
  complete: boolean;
  /** The guest's accelerator and size, on the kvm and tcg paths. */
  vm?: VmResultsField;
}

/** The plan file beside each plan's script: the planned runs, as the importer reduces them. */
export interface PlanFile {
  name: string;
  runs: PlannedRun[];
  shape: MicroShape;
}

/** A PostgreSQL bundle's manifest (src/bundle/postgres.ts): no micro-benchmark; its builds, protocol and plans instead. */
export type PgBundleManifest = Omit<BundleManifest, "micro" | "shape"> & {
  kind: "postgres";
  postgres: import("./postgres.js").PgManifestPart;
};
