/** The passages of README and REPRODUCE whose measured-looking numbers must each have an entry (MEASURED_REGIONS), and the numbers in them that are not measurements (NOT_MEASURED). */
import { INTEGER_NOT_MEASURED, INTEGER_REGIONS } from "./figures-integers.js";
import type { MeasuredRegion, NotMeasured } from "./figure-types.js";
import { R } from "./figure-readers.js";

export const MEASURED_REGIONS: MeasuredRegion[] = [
  { doc: R, from: "On the machine of 2026-12-01 and the early hours", to: "### What cannot be reproduced, and why" },
  // §8 (issue 14): the mechanism's results.
  { doc: R, from: "What is recorded so far (all TCG functional evidence", to: "What icount cannot model:" },
  { doc: R, from: "The model of where a holder is preempted (issue 26 item 6;", to: "Notebook 07's vCPU table puts it beside" },
  { doc: R, from: "### Our A/A series (the noise floor of this machine)", to: "To measure the noise floor of a quiet machine" },
  { doc: R, from: "- Launch order.", to: "- The earlier doubt is settled." },
  { doc: R, from: "`npm run test:e2e` runs this whole path", to: "The preemption-mode × extension design" },
  { doc: R, from: "- The kit's CPU, charged to the kit.", to: "- The kit's CPU: PASS." },
  { doc: R, from: "| record | design | pairs | kit / by hand |", to: "- Why one CPU." },
  { doc: R, from: "Costs measured on this machine's", to: "The pgbench -S cost was first measured" },
  { doc: R, from: "The cost from measured parts", to: "The micro-benchmark (`src/micro/lhp.c`)" },
  // §4 patch v3 in the VM
  { doc: R, from: "Version 3 in the VM (the kit's 7.2.13 kernel", to: "Version 2 against version 1." },
  // §4 patch v2
  { doc: R, from: "Version 1 and version 2 side by side.", to: "The records below the next paragraph" },
  // The table of times after it is generated from data/test-runs/ and checked by test/test-runs.test.ts.
  { doc: "README.md", from: "`npm run test:e2e` runs the kernel path end to end", to: "Times as recorded" },
  { doc: R, from: "Collector costs (", to: "Collectors in the VM:" },
  { doc: R, from: "Recorded here (`data/runs/kernel-build/20261130T024149Z/`", to: "The patched PostgreSQL under the harness inside the VM" },  // §4, the version-2 records; the pgbench cost of version 1 (the micro-benchmark's passage is above).
  { doc: R, from: "The records are under `data/runs/pg-check/`", to: "The records below the next paragraph" },
  { doc: R, from: "The pgbench -S cost was first measured", to: "The cost from measured parts" },
  // §5, the VM results.
  { doc: R, from: "The patched PostgreSQL under the harness inside the VM", to: "`npm run test:e2e` runs this whole path" },
  { doc: R, from: "The preemption-mode × extension design ran once", to: "Pre-7.0 reference (preemption modes)." },
  { doc: R, from: "`data/runs/vm-eviction/20261130T083130Z/` holds the three cells", to: "### Bare metal" },
  // §6, lock statistics in the VM.
  { doc: R, from: "Collectors in the VM:", to: "Under TCG all of this is functional evidence only." },
  ...INTEGER_REGIONS,
];

export const NOT_MEASURED: NotMeasured[] = [
  // §4 patch v2
  { doc: R, sentence: "ran in the kit's 7.2.13 VM under QEMU TCG", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "PostgreSQL 18.6, the first 2 of 28 groups", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "Version 3 in the VM (the kit's 7.2.13 kernel", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "the whole schedule: PostgreSQL 18.6 with version 3", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "PostgreSQL 15.18 with version 3: All 217", figure: "15.18", why: "the PostgreSQL version" },
  { doc: R, sentence: "PostgreSQL 15.18 (patch `d4dc3f02e27e`), whose schedule", figure: "15.18", why: "the PostgreSQL version" },
  { doc: R, sentence: "(22 minutes, inside the issue's 45)", figure: "45", why: "the issue's time limit for the whole suite under TCG, not a measurement" },
  { doc: R, sentence: "(the 7.2 VM, `lock-ops-vm/20261130T074829Z`)", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "(the 6.18 host through the shim", figure: "6.18", why: "the host kernel's version" },
  // §8 (issue 14): versions and design parameters in the mechanism's results.
  { doc: R, sentence: "this machine's 6.18 kernel (preempt=none", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "extension off (6.18 has none)", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "in the VM on Linux 6.1 was not run", figure: "6.1", why: "a kernel version" },
  { doc: R, sentence: "the 6.1.176 tree is configured", figure: "6.1", why: "a kernel version" },
  { doc: R, sentence: "The 7.2 factorial in the VM", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "pooled: Linux 7.2.13", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "0.5 s runs; 5 runs", figure: "0.5", why: "the run length (a design parameter)" },
  { doc: R, sentence: "in any 7.2 cell", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "the diag build on Linux 7.2.13", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "95% CI half-width", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "(95% CI +34.4%", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "(AMD EPYC, kernel 6.18;", figure: "6.18", why: "the host kernel's version (recorded in the series' provenance.json), not a measurement" },
  { doc: R, sentence: "on this machine's 6.18 kernel", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "the 7.2 VM as the difference", figure: "7.2", why: "the guest kernel's version" },
  { doc: R, sentence: "the host's glibc 2.36 registers", figure: "2.36", why: "the glibc version" },
  { doc: R, sentence: "(upper 95% limits", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "far inside 0.5%.", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "can resolve 0.5% at all", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "Both are ≥ 0.99.", figure: "0.99", why: "the goal" },
  { doc: R, sentence: "| kit / by hand | 95% CI |", figure: "95%", why: "the confidence level (table header)" },  // §4, §5, §6, §8 (the passages added with their figures above).
  { doc: R, sentence: "PostgreSQL 15.18 All 217", figure: "15.18", why: "the PostgreSQL version (summary.json version)" },
  { doc: R, sentence: "PostgreSQL 18.6 All 231", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "the feature active on 7.2) was not run: the 7.2 kernel", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "the 7.2 kernel was still being built", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "lets the hooks run on 6.18)", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "patch version 2, on the 6.18 host", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "nothing about the 0.5% goal", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "Resolving 0.5% would take", figure: "0.5%", why: "the goal" },
  { doc: R, sentence: "(95% CI 1.015–1.092)", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "(95% CI −40.6", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "They are 6.1.176 with", figure: "6.1", why: "the reference kernel's version" },
  { doc: R, sentence: "and 7.2.13 with `preempt=full`", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "On 7.2.13 the extension was requested", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "PostgreSQL 18.6 on the 7.2 kernel", figure: "18.6", why: "the PostgreSQL version" },
  { doc: R, sentence: "PostgreSQL 18.6 on the 7.2 kernel", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "vm-7.2.13-micro.txt", figure: "7.2", why: "part of a file name" },
  { doc: R, sentence: "this machine's 6.18 kernel (preempt=none", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "extension off (6.18 has none)", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "The 7.2 factorial in the VM", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "Linux 7.2.13 (`slice-ext + vm`", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "off/on, 0.5 s runs", figure: "0.5", why: "the run length the factorial was given (a setting)" },
  { doc: R, sentence: "1 vCPU as the 7.2 factorial above", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "the micro shape and 1 vCPU of the 7.2 factorial", figure: "7.2", why: "the kernel version" },
  { doc: R, sentence: "on Linux 6.1 in the VM", figure: "6.1", why: "the kernel version" },
  { doc: R, sentence: "the 6.1.176 tree built", figure: "6.1", why: "the kernel version" },
  { doc: R, sentence: "linux-6.1.176-1", figure: "6.1", why: "part of a path" },
  { doc: R, sentence: "(6.1 has none)", figure: "6.1", why: "the kernel version" },
  { doc: R, sentence: "in real time on the reference path (Linux 6.18, preemption", figure: "6.18", why: "the host kernel's version" },
  { doc: R, sentence: "+26.1 % (95% CI", figure: "95%", why: "the confidence level" },
  { doc: R, sentence: "tracefs on the kit's 7.2.13 kernel, `trace_clock` mono", figure: "7.2", why: "the kernel version" },
  ...INTEGER_NOT_MEASURED,
];
