import type { Command } from "../command.js";
import { writeRecordJson } from "../../record/format.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { resolveSource, type PgSource } from "../../postgres/source.js";
import { checkPatchSeries, patchFiles, patchHash, readPatchSeries } from "../../postgres/patch.js";
import { ALL_BUILD_VARIANTS, BUILD_VARIANTS, buildPostgres, type BuildVariant } from "../../postgres/build.js";
import { runMakeCheck } from "../../postgres/check.js";
import { utcStamp } from "../../util/stamp.js";
import { runMakeCheckInVm, writeVmCheckEnvelope } from "../../postgres/check-vm.js";
import { cachedKernel } from "../../kernel/ensure.js";
import type { Accel } from "../../vm/qemu.js";
import { measureHookCost, measureClearCost } from "../../drivers/hook-cost/measure.js";
import { countLockOps } from "../../postgres/lock-ops.js";
import { repoRoot } from "../../util/paths.js";
import { join } from "node:path";

const usage = [
  "usage: slicelab postgres fetch|patch|build|check|hook-cost|clear-cost|lock-ops [--version 15|18] [--source DIR|TARBALL]",
  "                         [--variant baseline|patched|diag|both] [--jobs N] [--force] [--json]",
  "                         [--setting off|spinlock|lwlock|all] [--out DIR]",
  "                         [--rounds N] [--iterations N] [--pairs N] [--shim]",
  "                         check --vm [--groups N] [--kernel PATH] [--accel tcg|tcg-icount|kvm] [--timeout S]",
  "",
  "PostgreSQL source builds with and without the kit's time-slice-extension patch",
  "(kernel-patches/postgresql/<major>/).",
  "",
  "  fetch   download (once) and unpack the source: Debian sid's postgresql-18 or",
  "          bookworm's postgresql-15 through the kit's private apt configuration,",
  "          or the tarball/directory given with --source; prints where it is",
  "  patch   check (patch --dry-run, no fuzz) that the patch applies to that source;",
  "          on failure names the rejected hunk (exit 2); the source is not modified",
  "  build   build and install the variant(s) (default: both) from the same source:",
  "          baseline = unpatched, patched = with the patch; configure options and",
  "          the patch hash are recorded in PREFIX/slicelab-build.json. A finished",
  "          build is reused unless --force. Uses ccache when installed, make -j2.",
  "  check   PostgreSQL's own regression suite (make check) on a fresh patched",
  "          tree with slice_extension = --setting (default all) in pg_regress's",
  "          --temp-config, run as the cluster user; timed; writes a small record",
  "          (summary.json, regress.txt) to --out (default",
  "          data/runs/pg-check/<UTC stamp>/pg<major>). Exit 1 when tests fail.",
  "          --vm: the same suite inside the kit's VM on the cached 7.2 kernel (the",
  "          feature active): the tree is built and temp-installed on the host once",
  "          (kept under .work/pg-check-vm/), then `make check NO_TEMP_INSTALL=1`",
  "          runs in the guest as the cluster user with GLIBC_TUNABLES=glibc.pthread.rseq=0,",
  "          between two runs of the slice-extension probe and rseq/stats reads;",
  "          --groups N runs only the first N groups of parallel_schedule. Default",
  "          --out data/runs/pg-check/<UTC stamp>/vm-pg<major>.",
  "  hook-cost  ns the patch's hooks add per execution on this host: the patched",
  "          source's hook code around an uncontended lock, built with and without",
  "          the hooks, arms none/off/all in random order per round (--rounds,",
  "          default 100; --iterations per run, default 1000000); writes",
  "          summary.json to --out (default data/runs/patch-cost/<UTC stamp>).",
  "  clear-cost  ns the patch's yield after an observed kernel clear costs on this",
  "          host (v3, issue 27 item 1): the hook code in a pattern with one clear",
  "          per iteration, rseq_slice_yield faked vs the real system call 471, in",
  "          random order per round (--rounds, default 100; --iterations, default",
  "          1000000); writes summary.json to --out (default",
  "          data/runs/patch-cost/<UTC stamp>).",
  "  lock-ops  covered lock operations per pgbench -S transaction, counted by the",
  "          patched server (pg_stat_get_slice_extension) over --pairs (default 2)",
  "          of 10 s and 30 s runs; --shim forces the probe to succeed with an",
  "          LD_PRELOAD shim on a kernel without the feature (counts only);",
  "          writes summary.json to --out (default data/runs/lock-ops/<UTC stamp>).",
  "",
  "options:",
  "  --version 15|18   major version to fetch from Debian (default 18)",
  "  --source PATH     a PostgreSQL tarball or source directory instead of Debian's",
  "  --variant V       baseline, patched, diag or both (build only; default both =",
  "                    baseline + patched; diag = patched + diag/*.patch, -DSLICELAB_DIAG)",
  "  --jobs N          make -jN (default 2)",
  "  --force           rebuild even when the prefix holds a finished build",
  "  --json            print the result as JSON",
  "  --setting V       check: slice_extension for the temporary server (default all)",
  "  --out DIR         check: record directory",
  "  --cflags=FLAGS    check: CFLAGS for configure (e.g. --cflags=-O0 builds faster; recorded)",
  "  --keep-install DIR  check: keep the temporary installation (relocatable) in DIR",
  "  --vm              check: inside the VM (see above)",
  "  --groups N        check --vm: the first N test groups of parallel_schedule",
  "  --kernel PATH     check --vm: bzImage (default: the cached slice-ext + vm build)",
  "  --accel A         check --vm: tcg (default), tcg-icount or kvm",
  "  --timeout S       check --vm: kill the guest after S seconds (default 3600)",
  "  --bin DIR         lock-ops: the patched server's bin directory (default: the kit's patched build)",
  "",
  "examples:",
  "  slicelab postgres build --version 18 --json",
  "  slicelab postgres patch --version 15",
  "  slicelab postgres build --source ~/src/postgresql-18.6.tar.bz2 --variant patched",
  "  slicelab postgres check --version 15 --setting all",
  "  slicelab postgres check --vm --version 18 --groups 2",
].join("\n");

function sourceJson(src: PgSource): Record<string, unknown> {
  return { version: src.version, major: src.major, dir: src.dir, key: src.key, origin: src.origin };
}

export const postgresCommand: Command = {
  name: "postgres",
  summary: "fetch, patch and build PostgreSQL (baseline and time-slice-extension patched)",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("postgres", argv, {
      version: { type: "string" },
      source: { type: "string" },
      variant: { type: "string" },
      jobs: { type: "string" },
      force: { type: "boolean" },
      json: { type: "boolean" },
      setting: { type: "string" },
      out: { type: "string" },
      rounds: { type: "string" },
      pairs: { type: "string" },
      cflags: { type: "string" },
      "keep-install": { type: "string" },
      bin: { type: "string" },
      shim: { type: "boolean" },
      iterations: { type: "string" },
      vm: { type: "boolean" },
      groups: { type: "string" },
      kernel: { type: "string" },
      accel: { type: "string" },
      timeout: { type: "string" },
    });
    const action = positionals[0];
    if (action === undefined || !["fetch", "patch", "build", "check", "hook-cost", "clear-cost", "lock-ops"].includes(action) || positionals.length > 1) {
      throw new UserError(`slicelab postgres: expected one action (fetch, patch, build, check, hook-cost, clear-cost or lock-ops), found ${positionals.length === 0 ? "none" : JSON.stringify(positionals.join(" "))} (see \`slicelab postgres --help\`)`);
    }
    if (values.version !== undefined && !/^\d+$/.test(values.version)) {
      throw new UserError(`--version: expected a major version such as 15 or 18, found ${JSON.stringify(values.version)}`);
    }
    const setting = values.setting ?? "all";
    if (!["off", "spinlock", "lwlock", "all"].includes(setting)) {
      throw new UserError(`--setting: expected off, spinlock, lwlock or all, found ${JSON.stringify(setting)}`);
    }
    if (action !== "check" && values.cflags !== undefined) throw new UserError(`--cflags belongs to \`slicelab postgres check\`, found it with ${action}`);
    if (action !== "check" && values.setting !== undefined) throw new UserError(`--setting belongs to \`slicelab postgres check\`, found it with ${action}`);
    if (action !== "check" && action !== "hook-cost" && action !== "clear-cost" && action !== "lock-ops" && values.out !== undefined) throw new UserError(`--out belongs to check, hook-cost, clear-cost and lock-ops, found it with ${action}`);
    if (!values.vm) {
      for (const k of ["groups", "kernel", "accel", "timeout"] as const) if (values[k] !== undefined) throw new UserError(`--${k} belongs to \`slicelab postgres check --vm\`, found it without --vm`);
    }
    if (values.vm && action !== "check") throw new UserError(`--vm belongs to \`slicelab postgres check\`, found it with ${action}`);
    const positive = (name: string, v: string | undefined, dflt: number) => {
      if (v === undefined) return dflt;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 2) throw new UserError(`--${name}: expected an integer of at least 2, found ${JSON.stringify(v)}`);
      return n;
    };
    const rounds = positive("rounds", values.rounds, 100);
    const iterations = positive("iterations", values.iterations, 1_000_000);
    if (action !== "hook-cost" && action !== "clear-cost" && (values.rounds !== undefined || values.iterations !== undefined)) throw new UserError(`--rounds and --iterations belong to hook-cost and clear-cost, found them with ${action}`);
    const log = values.json ? () => {} : (line: string) => process.stderr.write(`slicelab postgres: ${line}\n`);
    const src = await resolveSource({ major: values.version, source: values.source }, log);

    if (action === "fetch") {
      if (values.json) printJson(sourceJson(src));
      else process.stdout.write(`PostgreSQL ${src.version} source: ${src.dir}\n`);
      return 0;
    }
    if (action === "patch") {
      const checked = await checkPatchSeries(src.dir, src.major);
      const series = readPatchSeries(src.major);
      const result = {
        source: sourceJson(src),
        patches: checked.patches,
        hash: patchHash(src.major),
        subjects: series.map((p) => p.subject),
        files: series.flatMap((p) => p.files.map((f) => f.path)),
        hunks: checked.hunks,
        applies: true,
      };
      if (values.json) printJson(result);
      else process.stdout.write(`${checked.patches.length} patch(es), ${checked.hunks} hunks: apply cleanly to PostgreSQL ${src.version} (${src.dir})\n`);
      return 0;
    }
    if (action === "lock-ops") {
      const pairs = values.pairs === undefined ? 2 : Number(values.pairs);
      if (!Number.isInteger(pairs) || pairs < 1) throw new UserError(`--pairs: expected a positive integer, found ${JSON.stringify(values.pairs)}`);
      const out = values.out ?? join(repoRoot(), "data", "runs", "lock-ops", utcStamp());
      const rec = await countLockOps(src, { pairs, shim: values.shim === true, log, binDir: values.bin });
      writeRecordJson(out, "summary.json", rec);
      if (values.json) printJson({ out, perTransaction: rec.perTransaction, shim: rec.shim });
      else process.stdout.write(`hook executions per transaction ${rec.perTransaction.mean.hook_executions!.toFixed(2)} (${rec.perTransaction.min.hook_executions!.toFixed(2)}–${rec.perTransaction.max.hook_executions!.toFixed(2)}, ${rec.perTransaction.pairs} pairs)${rec.shim ? ", counted through the shim" : ""}; record ${out}\n`);
      return 0;
    }
    if (action === "clear-cost") {
      const out = values.out ?? join(repoRoot(), "data", "runs", "patch-cost", utcStamp());
      const rec = await measureClearCost(src.dir, src.major, patchFiles(src.major)[0]!, { rounds, iterations, log });
      writeRecordJson(out, "summary.json", rec);
      if (values.json) printJson({ out, nsPerClear: rec.nsPerClear, realCallsPerClear: rec.realCallsPerClear, host: rec.host });
      else
        process.stdout.write(
          `ns per observed clear ${rec.nsPerClear.mean.toFixed(1)} (${rec.nsPerClear.ci[0].toFixed(1)} … ${rec.nsPerClear.ci[1].toFixed(1)}, ${rec.nsPerClear.n} rounds), ${rec.realCallsPerClear.toFixed(3)} system calls per clear; load ${rec.host.load1Before.toFixed(1)}→${rec.host.load1After.toFixed(1)} on ${rec.host.cpus} CPUs, kernel ${rec.host.kernel}; record ${out}\n`,
        );
      return 0;
    }
    if (action === "hook-cost") {
      const out = values.out ?? join(repoRoot(), "data", "runs", "patch-cost", utcStamp());
      const rec = await measureHookCost(src.dir, src.major, { rounds, iterations, log });
      writeRecordJson(out, "summary.json", rec);
      if (values.json) printJson({ out, addedNs: rec.addedNs, noneNs: rec.noneNs, host: rec.host });
      else {
        const f = (x: { mean: number; ci: [number, number] }) => `${x.mean.toFixed(2)} (${x.ci[0].toFixed(2)} … ${x.ci[1].toFixed(2)})`;
        for (const p of ["spin", "nested"] as const) process.stdout.write(`${p}: ns per hook execution, switch off ${f(rec.addedNs[p].off)}, all ${f(rec.addedNs[p].all)}\n`);
        process.stdout.write(`load ${rec.host.load1Before.toFixed(1)}→${rec.host.load1After.toFixed(1)} on ${rec.host.cpus} CPUs; record ${out}\n`);
      }
      return 0;
    }
    if (action === "check") {
      const jobsN = values.jobs === undefined ? undefined : Number(values.jobs);
      if (jobsN !== undefined && (!Number.isInteger(jobsN) || jobsN < 1)) throw new UserError(`--jobs: expected a positive integer, found ${JSON.stringify(values.jobs)}`);
      if (values.vm) {
        const int = (name: string, v: string | undefined, min: number): number | undefined => {
          if (v === undefined) return undefined;
          const n = Number(v);
          if (!Number.isInteger(n) || n < min) throw new UserError(`--${name}: expected an integer of at least ${min}, found ${JSON.stringify(v)}`);
          return n;
        };
        const accel = values.accel ?? "tcg";
        if (!["tcg", "tcg-icount", "kvm"].includes(accel)) throw new UserError(`--accel: expected tcg, tcg-icount or kvm, found ${JSON.stringify(accel)}`);
        const rec = values.kernel === undefined ? cachedKernel() : undefined;
        const kernel = values.kernel ?? rec?.bzImage;
        if (kernel === undefined) throw new UserError("no built kernel in the cache: run `slicelab kernel build` (fragments slice-ext + vm) or pass --kernel PATH");
        const out = values.out ?? join(repoRoot(), "data", "runs", "pg-check", utcStamp(), `vm-pg${src.major}`);
        const r = await runMakeCheckInVm(src, {
          setting,
          kernel,
          kernelVersion: rec?.version ?? "unknown (--kernel given)",
          groups: int("groups", values.groups, 1),
          cflags: values.cflags,
          jobs: jobsN,
          accel: accel as Accel,
          timeoutS: int("timeout", values.timeout, 60),
          out,
          log,
        });
        // the default layout is a record: data/runs/pg-check/<stamp>/vm-pg<major>/ with record.json at <stamp>/
        if (values.out === undefined) writeVmCheckEnvelope(join(out, ".."), r, ["slicelab", "postgres", ...argv]);
        if (values.json) printJson({ out, ...r });
        else {
          process.stdout.write(
            `PostgreSQL ${r.version} + patch ${r.patch.hash} in the VM (${r.vm.accel}, ${r.kernel.release ?? r.kernel.version}, preempt ${r.kernel.preempt ?? "unknown"}), slice_extension = ${setting}: ` +
              `${r.regress?.verdict ?? "no pg_regress verdict"} (${r.schedule.tests} tests; make check ${r.checkSeconds ?? "?"} s in the guest; probe: extension ${r.probe?.sliceExtensionUsable ? "usable" : "NOT usable"}; ` +
              `server: ${r.serverSaid ?? "no line"}; rseq/stats delta ${JSON.stringify(r.rseqStatsDelta)}); record ${out}\n`,
          );
        }
        return r.exitCode === 0 && r.regress !== null && r.regress.failed === 0 && r.probe?.sliceExtensionUsable === true ? 0 : 1;
      }
      const out = values.out ?? join(repoRoot(), "data", "runs", "pg-check", utcStamp(), `pg${src.major}`);
      const rec = await runMakeCheck(src, { setting, jobs: jobsN, out, log, cflags: values.cflags, keepInstall: values["keep-install"] });
      if (values.json) printJson({ out, ...rec });
      else process.stdout.write(`PostgreSQL ${rec.version} + patch ${rec.patch.hash}, slice_extension = ${setting}: ${rec.regress.verdict} (make check ${rec.checkSeconds} s, build ${rec.buildSeconds} s, load ${rec.host.load1Before.toFixed(1)}→${rec.host.load1After.toFixed(1)}); record ${out}\n`);
      return rec.exitCode === 0 && rec.regress.failed === 0 ? 0 : 1;
    }
    const variantArg = values.variant ?? "both";
    let variants: BuildVariant[];
    if (variantArg === "both") variants = [...BUILD_VARIANTS];
    else if ((ALL_BUILD_VARIANTS as readonly string[]).includes(variantArg)) variants = [variantArg as BuildVariant];
    else throw new UserError(`--variant: expected baseline, patched, diag or both, found ${JSON.stringify(variantArg)}`);
    let jobs: number | undefined;
    if (values.jobs !== undefined) {
      jobs = Number(values.jobs);
      if (!Number.isInteger(jobs) || jobs < 1) throw new UserError(`--jobs: expected a positive integer, found ${JSON.stringify(values.jobs)}`);
    }
    const builds = [];
    for (const v of variants) {
      const b = await buildPostgres(src, v, { jobs, force: values.force, log });
      builds.push({ variant: v, prefix: b.prefix, binDir: b.binDir, reused: b.reused, patch: b.record.patch?.hash ?? null, buildSeconds: b.record.buildSeconds });
      if (!values.json) process.stdout.write(`${v}: ${b.binDir}${b.reused ? " (reused)" : ""}\n`);
    }
    if (values.json) printJson({ source: sourceJson(src), builds });
    return 0;
  },
};
