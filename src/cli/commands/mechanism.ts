import type { Command } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { ACCELS } from "../../vm/qemu.js";
import { PAGE_LEVELS } from "../../drivers/mechanism/index.js";
import { analyseMechanismRecord, pgWaitEvidence } from "../../study/drivers/mechanism-files.js";
import { studyCommand } from "./study.js";

const usage = `usage: slicelab mechanism SUBCOMMAND [OPTIONS] [--json]

  run [--blocks N] [--duration S] [--modes full,lazy|none] [--pages 4k,4k-prefault,hugetlb]
      [--extensions off,on] [--seed S] [--threads T] [--hogs H] [--cs-ns L]
      [--fault-every K] [--region-mib M] [--jitter-pct P] [--cpus N] [--mem MIB]
      [--accel tcg-icount|tcg|kvm] [--kernel PATH] [--timeout S] [--out DIR] [--dry-run]
      An alias of \`slicelab study run mechanism-micro\` (each option a --param of the
      study: --cs-ns L is --param cs_ns=L, and so on). The mechanism factorial (issue 14):
      preemption mode (switched at run time through debugfs sched/preempt) ×
      pages × extension, in N randomised blocks (default 3), one boot per block (a
      timeout loses at most the rest of that block; each run not reached says why),
      each run the micro-benchmark with --fault-in-cs (default 2 threads, 2 hogs,
      2000 ns sections ±25 % with 2 nested uncontended acquires (v2 re-arm points), a
      fresh page every 4th section, 1 s) while tracefs records every switch away from
      a worker with its kernel stack. Default accel tcg-icount, 1 vCPU. --modes none
      needs a kernel that still has it (a 6.x reference, --kernel PATH; 7.x refuses).
      The record: data/runs/mechanism-micro/STAMP/ (or --out DIR): record.json,
      out/rows.json, out/rows.csv (one row per run), out/cells.json,
      out/predictions.json, out/answer.txt, out/provenance.json; raw traces stay under
      .work/mechanism/. --attribute also traces every __resched_curr call with its
      kernel stack, wakeups, timer interrupts, hrtimer expiries and user page faults,
      so each holder descheduling gets the cause of its reschedule (issue 26);
      --sched-features W[,W] writes debugfs sched/features once at boot (e.g.
      NO_HRTICK); --micro-args "ARGS" appends micro-benchmark arguments to every run
      (the known cases, e.g. "--syscall-in-cs 65536"); --pages thp (shmem THP set to
      advise) makes each first touch a 2 MB fault.
  run --pg [--blocks N] [--duration S] [--modes full,lazy] [--huge-pages off,on]
      [--extensions off,on] [--shared-buffers 1GB] [--scale N] [--clients C]
      [--connect-clients K] [--bin DIR] [--mem MIB] [--accel …] [--kernel PATH]
      [--on-setting all|spinlock|lwlock]
      An alias of \`slicelab study run mechanism-pg\`: the same factorial on
      PostgreSQL 18 (the diagnostic build, \`slicelab postgres build --variant diag\`,
      or --bin DIR): mode × huge_pages × slice_extension in N randomised blocks
      (default 3), one boot per block (1 vCPU, default 3072 MiB, shared_buffers 1GB,
      huge pages reserved from shared_memory_size_in_huge_pages); every run a fresh
      server (an empty pool: the freelist phase) with C persistent select-only
      sessions and K sessions connecting per transaction (new backends). Per run:
      spin-style holds, faults and involuntary switches inside them (diag counters),
      where the traced preempted holders were, grants, huge pages held, tps; with the
      v3 diag build also waits with the request armed, grants taken while waiting,
      and LWLockWakeup's stalls (a grant yielded before the dequeued waiters were
      woken). --on-setting: slice_extension in the "on" runs (default all;
      spinlock shows the LWLockWakeup stall).
      The record: data/runs/mechanism-pg/STAMP/ (or --out DIR), the files in out/.
  run --host [--blocks N] [--pages …] [--duration S] …
      The same runs on this machine's kernel instead of a VM (root; tracefs and
      debugfs mounted): a private tracing instance, the preemption mode as it is
      (read, never changed), extension off, no huge-page reservation
      (study mechanism-micro with --param host=true).
  wait-evidence DIR
      A --pg record made with the v3 diag build (DIR/out/ of a study record, or DIR
      of an older one): copy each run's armed-waits and wakeup-stalls files from the
      raw directory into it and match every LWLockWakeup stall with the run's trace
      (stall-trace.json).
  analyse DIR
      Recompute cells, predictions and the answer from the record's rows.json (a
      --pg record: cells.json and answer.txt): DIR/out/ of a study record, or DIR of
      an older one, whose record.json is rewritten from DIR/provenance.json (fields
      only an older record.json knew are kept).

Under TCG (also with icount) the CPU is emulated: counts of where preemptions
land are the evidence; times are functional evidence only.`;

function listOption(name: string, v: string | undefined, allowed: readonly string[]): string | undefined {
  if (v === undefined) return undefined;
  const xs = v.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const x of xs) if (!allowed.includes(x)) throw new UserError(`--${name}: expected a comma list of ${allowed.join(", ")}, found ${JSON.stringify(x)}`);
  if (xs.length === 0) throw new UserError(`--${name}: expected at least one of ${allowed.join(", ")}`);
  return xs.join(",");
}

/** The flags of \`mechanism run\` (micro and --pg) and the study parameter each one sets. */
const MICRO_PARAMS: Record<string, string> = {
  blocks: "blocks", duration: "duration", seed: "seed", threads: "threads", hogs: "hogs", "cs-ns": "cs_ns", "fault-every": "fault_every",
  "region-mib": "region_mib", "jitter-pct": "jitter_pct", cpus: "cpus", mem: "mem", accel: "accel", kernel: "kernel", timeout: "timeout",
  "sched-features": "sched_features", "micro-args": "micro_args",
};
const PG_PARAMS: Record<string, string> = {
  blocks: "blocks", duration: "duration", seed: "seed", mem: "mem", accel: "accel", kernel: "kernel", timeout: "timeout",
  "shared-buffers": "shared_buffers", scale: "scale", clients: "clients", "connect-clients": "connect_clients", bin: "bin",
  "on-setting": "on_setting",
};

/**
 * `mechanism run …` as the study runner's argv: `study run mechanism-micro|mechanism-pg --param K=V…
 * [--out DIR] [--dry-run] [--json]`. The flags are checked here with the messages they always had.
 */
export function mechanismStudyArgv(rest: string[]): string[] {
  const { values, positionals } = parseCommandArgs("mechanism", rest, {
    blocks: { type: "string" }, duration: { type: "string" }, modes: { type: "string" }, pages: { type: "string" },
    extensions: { type: "string" }, seed: { type: "string" }, threads: { type: "string" }, hogs: { type: "string" },
    "cs-ns": { type: "string" }, "fault-every": { type: "string" }, "region-mib": { type: "string" }, "jitter-pct": { type: "string" },
    cpus: { type: "string" }, mem: { type: "string" }, accel: { type: "string" }, kernel: { type: "string" },
    timeout: { type: "string" }, out: { type: "string" }, quiet: { type: "boolean" }, json: { type: "boolean" }, host: { type: "boolean" },
    pg: { type: "boolean" }, "huge-pages": { type: "string" }, "shared-buffers": { type: "string" }, scale: { type: "string" },
    clients: { type: "string" }, "connect-clients": { type: "string" }, bin: { type: "string" }, "on-setting": { type: "string" },
    attribute: { type: "boolean" }, "sched-features": { type: "string" }, "micro-args": { type: "string" }, "dry-run": { type: "boolean" },
  });
  if (positionals.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const v = values as Record<string, string | boolean | undefined>;
  const str = (k: string) => v[k] as string | undefined;
  if (str("accel") !== undefined && !(ACCELS as readonly string[]).includes(str("accel")!)) throw new UserError(`--accel expects ${ACCELS.join(", ")}, got "${str("accel")}"`);
  for (const k of ["blocks", "duration", "seed", "threads", "hogs", "cs-ns", "fault-every", "region-mib", "jitter-pct", "cpus", "mem", "timeout", "scale", "clients", "connect-clients"]) numberOption(k, str(k), 0);
  const params: [string, string][] = [];
  const pg = v.pg === true;
  if (pg) {
    if (v.host) throw new UserError("--pg runs in the VM only (it switches preemption modes and reserves huge pages)");
    for (const k of ["pages", "threads", "hogs", "cs-ns", "fault-every", "region-mib", "jitter-pct", "cpus", "attribute", "sched-features", "micro-args"]) {
      if (v[k] !== undefined) throw new UserError(`--${k} belongs to \`mechanism run\` (the micro-benchmark), not --pg`);
    }
    const sb = str("shared-buffers");
    if (sb !== undefined && !/^\d+(kB|MB|GB)$/.test(sb)) throw new UserError(`--shared-buffers: expected a size such as 512MB or 1GB, found ${JSON.stringify(sb)}`);
    const modes = listOption("modes", str("modes"), ["full", "lazy"]);
    const huge = listOption("huge-pages", str("huge-pages"), ["off", "on"]);
    const ext = listOption("extensions", str("extensions"), ["off", "on"]);
    if (modes) params.push(["modes", modes]);
    if (huge) params.push(["huge_pages", huge]);
    if (ext) params.push(["extensions", ext]);
    for (const [flag, name] of Object.entries(PG_PARAMS)) if (str(flag) !== undefined) params.push([name, str(flag)!]);
  } else {
    for (const k of ["huge-pages", "shared-buffers", "scale", "clients", "connect-clients", "bin", "on-setting"]) {
      if (v[k] !== undefined) throw new UserError(`--${k} belongs to \`mechanism run --pg\``);
    }
    const host = v.host === true;
    if (host && (v.kernel !== undefined || v.accel !== undefined || v.modes !== undefined || v.cpus !== undefined || v.mem !== undefined)) {
      throw new UserError("--host runs on this machine's kernel in its current preemption mode: --kernel, --accel, --modes, --cpus and --mem do not apply");
    }
    const modes = listOption("modes", str("modes"), ["full", "lazy", "none"]);
    // --host's levels when none are given: what the host can run (no huge-page reservation, no extension)
    const pages = listOption("pages", str("pages"), [...PAGE_LEVELS, "thp"]) ?? (host ? "4k,4k-prefault" : undefined);
    const ext = listOption("extensions", str("extensions"), ["off", "on"]) ?? (host ? "off" : undefined);
    if (modes) params.push(["modes", modes]);
    if (pages) params.push(["pages", pages]);
    if (ext) params.push(["extensions", ext]);
    if (host) params.push(["host", "true"]);
    if (v.attribute) params.push(["attribute", "true"]);
    for (const [flag, name] of Object.entries(MICRO_PARAMS)) if (str(flag) !== undefined) params.push([name, str(flag)!]);
  }
  return [
    "run", pg ? "mechanism-pg" : "mechanism-micro",
    ...params.flatMap(([k, x]) => ["--param", `${k}=${x}`]),
    ...(str("out") !== undefined ? ["--out", str("out")!] : []),
    ...(v["dry-run"] ? ["--dry-run"] : []),
    ...(v.json ? ["--json"] : []),
  ];
}

export const mechanismCommand: Command = {
  name: "mechanism",
  summary: "the 2026 regression's mechanism: where lock holders are preempted (kernel/fault vs return), extension off/on, in the VM (run: an alias of study run mechanism-micro / mechanism-pg)",
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === "analyse") {
      const { values, positionals } = parseCommandArgs("mechanism", rest, { json: { type: "boolean" } });
      if (positionals.length !== 1) throw new UserError("usage: slicelab mechanism analyse DIR");
      const r = analyseMechanismRecord(positionals[0]!);
      if (values.json) printJson(r);
      else process.stdout.write(`${r.answer}\n`);
      return 0;
    }
    if (sub === "wait-evidence") {
      const { values, positionals } = parseCommandArgs("mechanism", rest, { json: { type: "boolean" } });
      if (positionals.length !== 1) throw new UserError("usage: slicelab mechanism wait-evidence DIR");
      const runs = pgWaitEvidence(positionals[0]!);
      if (values.json) printJson({ dir: positionals[0], runs: runs.map((r) => ({ run: r.run, setting: r.setting, ...r.summary })) });
      else for (const r of runs) process.stdout.write(`run ${r.run} (${r.setting}): ${r.summary.stalls} stalls, ${r.summary.matched} matched in the trace, ${r.summary.viaYield} through rseq_slice_yield\n`);
      return 0;
    }
    if (sub !== "run") throw new UserError(`expected a subcommand (run, analyse, wait-evidence), found ${sub === undefined ? "none" : JSON.stringify(sub)} (see \`slicelab mechanism --help\`)`);
    return studyCommand.run(mechanismStudyArgv(rest));
  },
};
