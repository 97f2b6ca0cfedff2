import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { runVm, chooseAccel, type Accel, type VmOptions } from "../../vm/qemu.js";
import { defaultKernelImage } from "../../kernel/ensure.js";
import { buildProbe, parseProbeOutput, sliceStatsDelta } from "../../vm/probe.js";
import { runMicroAbInVm } from "../../study/drivers/vm-micro.js";
import { cachedKernel } from "../../kernel/ensure.js";
import { analyseRunDir, analysisSummary, parsePgParams, patchedKernelBuilds, resolvePgWorkload, runSliceTraceInVm, sliceTraceReport } from "../../study/drivers/slice-trace.js";
import { analyseSliceTrace, parseSliceTrace } from "../../parse/slice-trace.js";
import { readFileSync } from "node:fs";

export function workloadOption(v: string | undefined): "micro" | "pg-smoke" | "pg" {
  if (v === undefined || v === "micro" || v === "pg-smoke" || v === "pg") return v ?? "micro";
  throw new UserError(`--workload expects micro, pg or pg-smoke, got "${v}"`);
}

function readTextFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: cannot read the file (${code === "ENOENT" ? "no such file" : (code ?? String(err))})`);
  }
}

const usage = `usage: slicelab vm SUBCOMMAND [OPTIONS] [--json]

  run [VM OPTIONS] -- COMMAND [ARGS…]
      Boot the kernel under QEMU with the host's root filesystem shared
      read-only (virtio-9p; writable tmpfs overlays on /etc, /var, /root, /home,
      /srv, /opt, /usr/local and the kit's .work/), run COMMAND as the guest's
      only program, stream the console, and exit with COMMAND's exit status.
      Files written to $SLICELAB_VM_OUT inside come back in the run's out/
      directory (printed at the end). Exit 124 when --timeout expires.
  probe [VM OPTIONS] [--threads T] [--seconds S] [--set-nsec N] [--host]
      Run the slice-extension probe (src/vm/slice-probe.c) in the VM: prctl
      PR_RSEQ_SLICE_EXTENSION GET/SET, debugfs rseq/slice_ext_nsec, and with
      --threads an oversubscribed request/yield loop with rseq/stats before/after.
      --host runs it on this machine's running kernel instead (bare metal).
  micro [VM OPTIONS] [--reps N] [--threads T] [--hogs H] [--cs-ns L] [--duration S]
      The micro-benchmark A/B in one boot: \`slicelab micro run\` alternating
      extension off/on in ABBA order, N pairs (default 5; 4 threads, 4 hogs,
      2000 ns sections, 5 s). Results with provenance (VM, TCG/KVM, kernel) go
      to data/runs/vm-micro/STAMP/ (or --out DIR); prints the throughput
      comparison with its confidence interval.
  trace [VM OPTIONS] [--threads T] [--hogs H] [--cs-ns L] [--duration S] [--slice-nsec N]
        [--workload micro|pg|pg-smoke] [--pg-bin DIR] [--pg-protocol P] [--pg-param K=V]… [--pg-runs N]
      Grant durations two ways on one traced run: the micro-benchmark with the
      extension on (oversubscribed; 4 threads, 4 hogs, 2000 ns, 5 s) while
      tracefs records our rseq_slice_* tracepoints and the enforcement timer's
      hrtimer events. Needs a kernel built from the slicelab tracepoint series
      (default: the newest cached build of it; \`slicelab kernel patch\`, then
      \`kernel configure --tree\` and \`kernel build --tree\` the patched tree).
      Raw trace, analysis, histograms and provenance go to
      data/runs/slice-trace/STAMP/ (or --out DIR). --workload pg-smoke
      --pg-bin DIR traces the harness's smoke protocol on a patched PostgreSQL
      build (slice_extension = all) instead of the micro-benchmark, as the
      protocol defines it (2 s runs: too short under TCG, see below).
      --workload pg --pg-bin DIR traces one harness protocol sized for the VM:
      --pg-protocol P (default sangappa-2024-locktable: clients in a short
      transaction on one contended table lock, plus CPU hogs), --pg-runs N
      measured runs (default 1, no warm-up), and the protocol's parameters set
      for a 2-vCPU TCG guest — locktable: clients=4 hogs=2 threads=2
      duration=60; rostedt-2023: scale=1 clients=4 threads=2 duration=60;
      smoke: clients=4 threads=2 duration=30 time=30 — each overridable with
      --pg-param NAME=VALUE (repeat; \`slicelab bench show P\` lists them).
      Under TCG a backend needs seconds to connect, and 2 s pgbench runs can
      end with 0 transactions.
      --from FILE analyses an already captured trace (tracefs text or
      \`trace-cmd report -t\`) without booting; exit 2 with FILE:LINE when a line
      cannot be read. --reanalyse DIR redoes the analysis files of a recorded
      run from its raw/ files.
  accel [--kernel PATH]
      Say whether KVM works for this kernel (a short probe boot) or TCG is used.

VM OPTIONS
  --kernel PATH     bzImage (default: the cached build for slice-ext + vm)
  --cpus N          virtual CPUs (default 2)
  --mem MIB         memory in MiB (default 2048)
  --append ARGS     extra kernel command line (e.g. "preempt=full rseq_slice_ext=0")
  --timeout S       kill the guest after S seconds (default 600)
  --accel auto|kvm|tcg|tcg-icount
                    default auto: KVM if a probe boot reaches the command, else TCG;
                    tcg-icount: single-threaded TCG with instruction-counted virtual
                    time (-icount shift=0,sleep=off), ticks and timers in guest work
  --out DIR         shared results directory (default: .work/vm/runs/ID/out)
  --env K=V         environment for COMMAND (repeatable)
  --quiet           do not stream the console

Under TCG the CPU is emulated: timings are functional evidence, not performance evidence.`;

const vmOptions = {
  kernel: { type: "string" },
  cpus: { type: "string" },
  mem: { type: "string" },
  append: { type: "string" },
  timeout: { type: "string" },
  accel: { type: "string" },
  out: { type: "string" },
  env: { type: "string", multiple: true },
  quiet: { type: "boolean" },
  json: { type: "boolean" },
} as const;

type VmValues = { [K in keyof typeof vmOptions]?: (typeof vmOptions)[K] extends { multiple: true } ? string[] : (typeof vmOptions)[K]["type"] extends "boolean" ? boolean : string };

function vmOpts(values: VmValues, command: string[]): VmOptions {
  const accel = values.accel ?? "auto";
  if (!["auto", "kvm", "tcg", "tcg-icount"].includes(accel)) throw new UserError(`--accel expects auto, kvm, tcg or tcg-icount, got "${accel}"`);
  const env: Record<string, string> = {};
  for (const kv of values.env ?? []) {
    const i = kv.indexOf("=");
    if (i <= 0) throw new UserError(`--env expects NAME=VALUE, got "${kv}"`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return {
    kernel: values.kernel ?? defaultKernelImage(),
    cpus: numberOption("cpus", values.cpus, 2),
    memMiB: numberOption("mem", values.mem, 2048),
    append: values.append,
    timeoutS: numberOption("timeout", values.timeout, 600),
    accel: accel as Accel | "auto",
    outDir: values.out,
    env,
    command,
    onConsole: values.quiet || values.json ? undefined : (s) => process.stderr.write(s),
  };
}

export const vmCommand: Command = {
  name: "vm",
  summary: "boot a kernel in QEMU (host root read-only over 9p) and run a command inside",
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    const dd = rest.indexOf("--");
    const before = dd >= 0 ? rest.slice(0, dd) : rest;
    const command = dd >= 0 ? rest.slice(dd + 1) : [];
    switch (sub) {
      case "run": {
        const { values, positionals } = parseCommandArgs("vm", before, vmOptions);
        if (positionals.length > 0) throw new UserError(`expected \`--\` before the command, found "${positionals[0]}" (see \`slicelab vm --help\`)`);
        const r = await runVm(vmOpts(values as VmValues, command));
        if (values.json) printJson(r);
        else {
          process.stderr.write(
            `\nslicelab vm: ${r.accel.toUpperCase()} (${r.accelReason}); boot to command ${r.bootToCommandS ?? "—"} s, total ${r.totalS} s${r.accel !== "kvm" ? " (TCG: emulated CPU, not a performance measurement)" : ""}\nslicelab vm: results in ${r.outDir}\n`,
          );
        }
        if (r.timedOut) {
          process.stderr.write(`slicelab vm: timed out after ${values.timeout ?? 600} s; the guest was killed\n`);
          return 124;
        }
        if (r.exitStatus === null) {
          process.stderr.write(`slicelab vm: the guest stopped before the command finished (see ${r.consoleLog})\n`);
          return 125;
        }
        return r.exitStatus;
      }
      case "probe": {
        const { values, positionals } = parseCommandArgs("vm", before, {
          ...vmOptions,
          threads: { type: "string" },
          seconds: { type: "string" },
          "set-nsec": { type: "string" },
          host: { type: "boolean" },
        });
        if (positionals.length > 0 || command.length > 0) throw new UserError("`vm probe` takes no command");
        const bin = await buildProbe();
        const args = [bin];
        if (values.threads) args.push("--threads", String(numberOption("threads", values.threads, 0)));
        if (values.seconds) args.push("--seconds", String(numberOption("seconds", values.seconds, 2)));
        if (values["set-nsec"]) args.push("--set-nsec", String(numberOption("set-nsec", values["set-nsec"], 0)));
        if (values.host) {
          const { execa } = await import("execa");
          const h = await execa(args[0]!, args.slice(1), { reject: false });
          if (h.exitCode !== 0) throw new UserError(`${bin} exited with ${h.exitCode}: ${h.stderr}`);
          const rep = parseProbeOutput(h.stdout, bin);
          if (values.json) printJson({ host: true, probe: rep, statsDelta: sliceStatsDelta(rep) ?? null });
          else process.stdout.write(`kernel ${rep.kernelRelease} (this host): slice extension ${rep.sliceExtensionUsable ? "usable" : "NOT usable"} (prctl GET before ${rep.prctlGetBefore}, SET ${rep.prctlSet ?? "—"}, GET after ${rep.prctlGetAfter ?? "—"}; rseq area ${rep.rseqRegistration ?? "—"}; slice_ext_nsec ${rep.sliceExtNsec})\n`);
          return 0;
        }
        const r = await runVm(vmOpts(values as VmValues, args));
        if (r.exitStatus !== 0) throw new UserError(`slice-probe exited with ${r.exitStatus ?? "no status"} in the VM (console: ${r.consoleLog})`);
        const rep = parseProbeOutput(r.commandOutput, r.consoleLog);
        const delta = sliceStatsDelta(rep);
        if (values.json) printJson({ accel: r.accel, accelReason: r.accelReason, append: r.append, bootToCommandS: r.bootToCommandS, probe: rep, statsDelta: delta ?? null });
        else {
          process.stdout.write(
            `kernel ${rep.kernelRelease}, ${r.accel.toUpperCase()}: slice extension ${rep.sliceExtensionUsable ? "usable" : "NOT usable"} (prctl GET before ${rep.prctlGetBefore}, SET ${rep.prctlSet ?? "—"}, GET after ${rep.prctlGetAfter ?? "—"}; rseq area ${rep.rseqRegistration ?? "—"}; slice_ext_nsec ${rep.sliceExtNsec})\n`,
          );
          if (rep.spin) process.stdout.write(`spin: ${rep.spin.requests} requests, ${rep.spin.grantedSeen} grants seen, ${rep.spin.revokedSeen} revoked seen; rseq/stats delta ${JSON.stringify(delta)}\n`);
        }
        return 0;
      }
      case "micro": {
        const { values, positionals } = parseCommandArgs("vm", before, {
          ...vmOptions,
          reps: { type: "string" },
          threads: { type: "string" },
          hogs: { type: "string" },
          "cs-ns": { type: "string" },
          duration: { type: "string" },
        });
        if (positionals.length > 0 || command.length > 0) throw new UserError("`vm micro` takes no command");
        const base = vmOpts(values as VmValues, ["true"]);
        const rec = values.kernel ? undefined : cachedKernel();
        const r = await runMicroAbInVm({
          kernel: base.kernel,
          kernelVersion: rec?.version ?? "unknown (--kernel given)",
          configSha256: rec?.configSha256 ?? null,
          cpus: base.cpus,
          memMiB: base.memMiB,
          append: base.append,
          reps: numberOption("reps", values.reps, 5),
          threads: numberOption("threads", values.threads, 4),
          hogs: numberOption("hogs", values.hogs, 4),
          csNs: numberOption("cs-ns", values["cs-ns"], 2000),
          durationS: numberOption("duration", values.duration, 5),
          timeoutS: values.timeout ? numberOption("timeout", values.timeout, 600) : undefined,
          outDir: values.out,
          onConsole: base.onConsole,
        });
        if (values.json) printJson(r);
        else {
          const c = r.comparison;
          process.stdout.write(`${r.rows.length} runs in ${r.dir} (${r.vm.accel.toUpperCase()}${r.vm.accel !== "kvm" ? ": emulated CPU, functional evidence only" : ""})\n`);
          if (c) {
            const b = c.bootstrap.meanDiffPct;
            process.stdout.write(`throughput on vs off: ${c.welch.differencePct.toFixed(1)} % (95 % bootstrap CI ${b.lo.toFixed(1)} … ${b.hi.toFixed(1)} %; Welch p = ${c.welch.p.toPrecision(2)}); ${c.verdict}\n`);
          }
        }
        return r.vm.exitStatus === 0 ? 0 : 1;
      }
      case "trace": {
        const { values, positionals } = parseCommandArgs("vm", before, {
          ...vmOptions,
          threads: { type: "string" },
          hogs: { type: "string" },
          "cs-ns": { type: "string" },
          duration: { type: "string" },
          "slice-nsec": { type: "string" },
          from: { type: "string" },
          reanalyse: { type: "string" },
          workload: { type: "string" },
          "pg-bin": { type: "string" },
          "pg-protocol": { type: "string" },
          "pg-param": { type: "string", multiple: true },
          "pg-runs": { type: "string" },
        });
        if (positionals.length > 0 || command.length > 0) throw new UserError("`vm trace` takes no command");
        if (values.reanalyse !== undefined) {
          const r = analyseRunDir(values.reanalyse);
          if (values.json) printJson({ dir: values.reanalyse, crossCheck: r.crossCheck, analysis: analysisSummary(r.analysis) });
          else {
            process.stdout.write(sliceTraceReport(r.analysis));
            for (const c of r.crossCheck) process.stdout.write(`  rseq/stats ${c.counter} ${c.stats} vs trace ${c.trace} (${c.traceIs})${c.stats === c.trace ? "" : "  MISMATCH"}\n`);
          }
          return 0;
        }
        if (values.from !== undefined) {
          const a = analyseSliceTrace(parseSliceTrace(readTextFile(values.from), values.from));
          if (values.json) printJson(a);
          else process.stdout.write(sliceTraceReport(a));
          return 0;
        }
        const workload = workloadOption(values.workload);
        if (workload !== "pg" && (values["pg-protocol"] !== undefined || values["pg-param"] !== undefined || values["pg-runs"] !== undefined)) {
          throw new UserError("--pg-protocol, --pg-param and --pg-runs go with --workload pg");
        }
        const pgParams = parsePgParams(values["pg-param"]);
        const pgRuns = numberOption("pg-runs", values["pg-runs"], 1);
        // Checked before the boot: an unknown protocol or parameter fails here, not in the guest.
        if (workload === "pg") resolvePgWorkload(values["pg-protocol"], pgParams, pgRuns, numberOption("cpus", values.cpus, 2));
        const builds = values.kernel ? [] : patchedKernelBuilds();
        if (!values.kernel && builds.length === 0) {
          throw new UserError(
            "no cached kernel built from the slicelab tracepoint series (kernel-patches/linux/series/slicelab): run `slicelab kernel patch`, then `slicelab kernel configure --tree PATCHED` and `slicelab kernel build --tree PATCHED` (or pass --kernel PATH)",
          );
        }
        const base = vmOpts({ ...(values as VmValues), kernel: values.kernel ?? builds[0]!.bzImage }, ["true"]);
        const r = await runSliceTraceInVm({
          kernel: base.kernel,
          build: builds[0],
          cpus: base.cpus,
          memMiB: base.memMiB,
          append: base.append,
          accel: base.accel,
          threads: numberOption("threads", values.threads, 4),
          hogs: numberOption("hogs", values.hogs, 4),
          csNs: numberOption("cs-ns", values["cs-ns"], 2000),
          durationS: numberOption("duration", values.duration, 5),
          sliceNsec: values["slice-nsec"] === undefined ? undefined : numberOption("slice-nsec", values["slice-nsec"], 5000),
          workload,
          pgBin: values["pg-bin"],
          pgProtocol: values["pg-protocol"],
          pgParams,
          pgRuns,
          timeoutS: values.timeout ? numberOption("timeout", values.timeout, 600) : undefined,
          outDir: values.out,
          onConsole: base.onConsole,
        });
        if (values.json) printJson({ dir: r.dir, vm: r.vm, crossCheck: r.crossCheck, statsDelta: r.statsDelta?.counters ?? null, analysis: analysisSummary(r.analysis) });
        else {
          process.stdout.write(`traced run in ${r.dir} (${r.vm.accel.toUpperCase()}${r.vm.accel !== "kvm" ? ": emulated CPU, durations are functional evidence only" : ""})\n`);
          process.stdout.write(sliceTraceReport(r.analysis));
          for (const c of r.crossCheck) process.stdout.write(`  rseq/stats ${c.counter} ${c.stats} vs trace ${c.trace} (${c.traceIs})${c.stats === c.trace ? "" : "  MISMATCH"}\n`);
        }
        if (r.vm.exitStatus !== 0) {
          process.stderr.write(`slicelab vm: the workload exited with ${r.vm.exitStatus} in the VM (its trace is recorded in ${r.dir}; see raw/)\n`);
          return 1;
        }
        return 0;
      }
      case "accel": {
        const { values } = parseCommandArgs("vm", before, { kernel: { type: "string" }, json: { type: "boolean" } });
        const a = await chooseAccel(values.kernel ?? defaultKernelImage());
        if (values.json) printJson(a);
        else process.stdout.write(`${a.accel}: ${a.reason}\n`);
        return 0;
      }
      default:
        throw new UserError(`expected a subcommand (run, probe, micro, trace, accel), found ${sub === undefined ? "none" : `"${sub}"`} (see \`slicelab vm --help\`)`);
    }
  },
};
