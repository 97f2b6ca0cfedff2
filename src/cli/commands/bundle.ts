import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { makeBundle } from "../../bundle/make.js";

const usage = `usage: slicelab bundle STUDY [--out FILE] [--blocks N] [--param NAME=VALUE]… [--duration S] [--pin-cpus N] [--threads T] [--hogs H] [--with-vm] [--json]

  One self-contained tarball (≤ 64 MiB) that runs STUDY on any x86-64 Linux with a POSIX sh and
  coreutils (grep, sed, gzip): no Node, no compiler, no package manager, no network. Copy it, then
  there, as root:
      tar xzf FILE && sh slicelab-STUDY-STAMP/run.sh --budget 1800
  run.sh checks first (one line per refusal), records the machine, takes the native path when the
  kernel has the slice extension and the reference path (extension off) when not, switches the
  preemption mode only where debugfs sched/preempt allows (and puts it back), resumes after
  Ctrl-C, and writes one results directory with SHA256SUMS. Bring it back and
  \`slicelab import DIR\` it.

  Studies: those of the mechanism-micro experiment (studies/mechanism-micro.json), and the
  PostgreSQL series studies run in one boot (dipietro-2026-metal): the baseline and patched
  PostgreSQL 18 builds with pgbench, their libraries and the loader; the clusters run as an existing
  unprivileged user (slicelab, else nobody, or SLICELAB_PG_USER) in the results directory;
  --param NAME=VALUE changes a protocol parameter (e.g. --param scale=10 --param duration=60). Default FILE:
  bundles/slicelab-STUDY-STAMP.tar.gz in the clone (ignored by git).
  --blocks N     blocks per plan (default: the study's design.runs); run.sh runs as many as fit
  --duration S   seconds per run; --pin-cpus N: the CPUs the micro-benchmark is pinned to (default 1);
  --threads T, --hogs H: workers and hogs (default 2 + 2: T + H must exceed N)
  --with-vm      add the kit's 7.2 kernel, QEMU (its libraries, loader, TCG module, firmware) and a
                 busybox root (~22 MB more): run.sh boots a KVM guest when this kernel lacks the
                 extension and a 30 s probe boot works; \`run.sh --vm-accel tcg|tcg-icount\` takes the
                 guest path under QEMU's emulator (timing emulated, and the record says so)`;

/** `--param NAME=VALUE` (repeatable): a PostgreSQL study's protocol parameters. */
function paramOptions(list: string[] | undefined): Record<string, string> | undefined {
  if (!list?.length) return undefined;
  const out: Record<string, string> = {};
  for (const p of list) {
    const eq = p.indexOf("=");
    if (eq < 1) throw new UserError(`--param expects NAME=VALUE, found ${JSON.stringify(p)}`);
    out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}

export const bundleCommand: Command = {
  name: "bundle",
  summary: "one tarball that runs a study on another machine with nothing but sh (run.sh), for `slicelab import`",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("bundle", argv, {
      out: { type: "string" }, blocks: { type: "string" }, duration: { type: "string" }, "pin-cpus": { type: "string" },
      threads: { type: "string" }, hogs: { type: "string" },
      "with-vm": { type: "boolean" }, json: { type: "boolean" }, param: { type: "string", multiple: true },
    });
    if (positionals.length !== 1) throw new UserError("usage: slicelab bundle STUDY [--out FILE] (see slicelab bundle --help)");
    const r = await makeBundle({
      study: positionals[0]!,
      out: values.out,
      blocks: values.blocks === undefined ? undefined : numberOption("blocks", values.blocks, 1),
      shape: {
        ...(values.duration === undefined ? {} : { durationS: Number(values.duration) }),
        ...(values["pin-cpus"] === undefined ? {} : { pinCpus: numberOption("pin-cpus", values["pin-cpus"], 1) }),
        ...(values.threads === undefined ? {} : { threads: numberOption("threads", values.threads, 2) }),
        ...(values.hogs === undefined ? {} : { hogs: numberOption("hogs", values.hogs, 2) }),
      },
      withVm: values["with-vm"] === true,
      params: paramOptions(values.param as string[] | undefined),
    });
    const shape = "shape" in r.manifest ? r.manifest.shape : undefined;
    if (shape && shape.threads + shape.hogs <= (shape.pinCpus ?? 1)) process.stderr.write(`warning: ${shape.threads} threads + ${shape.hogs} hogs do not oversubscribe ${shape.pinCpus} CPUs\n`);
    if (values.duration !== undefined && !(Number(values.duration) > 0)) throw new UserError(`--duration expects seconds > 0, found ${JSON.stringify(values.duration)}`);
    if (values.json) printJson({ path: r.path, bytes: r.bytes, id: r.manifest.id, study: r.manifest.study, plans: r.manifest.plans });
    else {
      process.stdout.write(`${r.path} (${(r.bytes / 1024).toFixed(0)} KiB, bundle ${r.manifest.id})\n`);
      for (const p of r.manifest.plans) process.stdout.write(`  plan ${p.name}: ${p.runs} runs (${p.blocks} blocks of ${p.perBlock}: ${p.builds ? `build ${p.builds.join(",")}` : `pages ${p.pages.join(",")}`} × mode ${p.modes.join(",")} × extension ${p.extensions.join(",")})\n`);
      process.stdout.write(`there, as root: tar xzf ${r.path.split("/").pop()} && sh ${r.name}/run.sh --budget 1800\n`);
    }
    return 0;
  },
};
