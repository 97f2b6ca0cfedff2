import { cpus } from "node:os";
import { join } from "node:path";
import { type Command, withSubcommands } from "../command.js";
import { numberOption, parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { workDir } from "../../util/paths.js";
import { DESIGNS, type Design } from "../../bench/design.js";
import { progressPrinter } from "../../bench/progress.js";
import { loadProtocol, protocolNames, resolveWorkloads } from "../../bench/protocol.js";
import { runSeries } from "../../bench/series.js";
import { analyzeSeries } from "../../bench/analysis.js";
import { writeRecordJson } from "../../record/format.js";
import { parseVariants } from "../../bench/variant.js";
import { COLLECTOR_NAMES, parseCollectList } from "../../collect/index.js";

const usage = `usage: slicelab bench list [--json]
       slicelab bench show PROTOCOL [--param NAME=VALUE]… [--json]
       slicelab bench run PROTOCOL [--variant NAME=SPEC]… [--out DIR] [options] [--json]
       slicelab bench analyze DIR [--a NAME] [--b NAME] [--workload W] [--write] [--json]

Runs the benchmark protocols of protocols/ against PostgreSQL clusters that the
kit creates under .work/clusters/ (as the unprivileged user slicelab).

  list     the protocols, with their runs and workloads
  show     a protocol's workloads resolved for this machine (parameters scaled to its CPUs)
  run      run a series, or resume it when DIR already holds one: finished runs
           are kept, interrupted ones are run again
  analyze  a two-variant series: the block design's paired CI of B − A (% of A), the
           unpaired (sequential-design) CI on the same runs, and first half vs second
           half in time (drift); --write saves DIR/analysis.json

options of run:
  --variant NAME=SPEC   an arm of the comparison (repeat; default: base=default). SPEC is a
                        comma-separated list of: bin=DIR (PostgreSQL bin directory),
                        setting:NAME=VALUE (server setting), env:NAME=VALUE (server
                        environment), default. Write \\, for a comma inside a value.
  --out DIR             series directory (default .work/series/PROTOCOL)
  --param NAME=VALUE    override a protocol parameter (repeat), e.g. --param duration=20
  --runs N              runs per variant (default: the protocol's)
  --warmup N            warm-up runs/blocks flagged and left out of analyses (default: the protocol's)
  --design D            blocks (default: randomised blocks, A B | B A …) or sequential (all A, then all B)
  --seed N              seed of the block order (default: random, recorded)
  --client-bin DIR      directory of pgbench/psql (default: Debian's PostgreSQL 15)
  --cluster-prefix P    prefix of cluster names (default bench)
  --max-runs N          stop after N runs in this invocation (resume later)
  --collect A,B,…       collectors around every measured workload: ${COLLECTOR_NAMES.join(", ")}.
                        Each is checked first; one that cannot work here is skipped and
                        why is recorded (provenance.json, every result.json). Files go to
                        runs/ID/collect/WORKLOAD/, parsed summaries into runs/ID/result.json

Ctrl-C stops pgbench/sysbench, CPU hogs and the cluster; run the same command again to resume.

examples:
  slicelab bench run smoke --out /tmp/smoke
  slicelab bench run rostedt-2023 --variant A=setting:application_name=a \\
      --variant B=setting:application_name=b --param duration=20 --out data/runs/aa-rostedt
  slicelab bench run smoke --collect pg-waits,ctxsw,perf-lock --out /tmp/smoke-collect
  slicelab bench run dipietro-2026-eviction --variant off=setting:huge_pages=off --variant on=setting:huge_pages=on`;

function keyValues(option: string, values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new UserError(`--${option}: expected NAME=VALUE, found "${v}"`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

function optionalInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = numberOption(name, v, 0);
  if (!Number.isInteger(n) || n < 0) throw new UserError(`--${name} expects a whole number, got "${v}"`);
  return n;
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("bench", argv, { json: { type: "boolean" } });
  if (positionals.length > 0) throw new UserError(`bench list takes no arguments, found "${positionals[0]}"`);
  const rows = protocolNames().map((n) => {
    const p = loadProtocol(n);
    return { name: p.name, title: p.title, runs: p.runs, warmup: p.warmup, workloads: p.expanded.map((w) => w.name), hash: p.hash };
  });
  if (values.json) {
    printJson(rows);
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    process.stdout.write(`${r.name.padEnd(width)}  ${String(r.runs).padStart(2)} runs (${r.warmup} warm-up)  ${r.title}\n`);
    process.stdout.write(`${" ".repeat(width)}  workloads: ${r.workloads.join(", ")}\n`);
  }
  return 0;
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("bench", argv, {
    json: { type: "boolean" },
    param: { type: "string", multiple: true },
  });
  if (positionals.length !== 1) throw new UserError("bench show expects one PROTOCOL (see `slicelab bench list`)");
  const p = loadProtocol(positionals[0] as string);
  const workloads = resolveWorkloads(p, cpus().length, keyValues("param", values.param));
  const out = { name: p.name, file: p.file, hash: p.hash, runs: p.runs, warmup: p.warmup, cpus: cpus().length, notes: p.notes ?? [], workloads };
  if (values.json) {
    printJson(out);
    return 0;
  }
  process.stdout.write(`${p.name}: ${p.title}\n${p.file} (sha256 ${p.hash.slice(0, 12)}…), ${p.runs} runs per variant, ${p.warmup} warm-up\n`);
  for (const n of p.notes ?? []) process.stdout.write(`  note: ${n}\n`);
  for (const w of workloads) {
    process.stdout.write(`\nworkload ${w.name} (${w.tool}, database ${w.database}${w.hogs ? `, ${w.hogs} CPU hogs` : ""})\n`);
    process.stdout.write(`  params:   ${Object.entries(w.params).map(([k, v]) => `${k}=${v}`).join(" ")}\n`);
    process.stdout.write(`  settings: ${Object.entries(w.settings).map(([k, v]) => `${k}=${v}`).join(" ") || "(defaults)"}\n`);
    for (const s of w.setup) process.stdout.write(`  setup:    ${s.sql ?? `${w.tool} ${(s.args ?? []).join(" ")}`}\n`);
    process.stdout.write(`  run:      ${w.tool} ${w.args.join(" ")}\n`);
  }
  return 0;
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("bench", argv, {
    json: { type: "boolean" },
    variant: { type: "string", multiple: true },
    out: { type: "string" },
    param: { type: "string", multiple: true },
    runs: { type: "string" },
    warmup: { type: "string" },
    design: { type: "string" },
    seed: { type: "string" },
    "client-bin": { type: "string" },
    "cluster-prefix": { type: "string" },
    "max-runs": { type: "string" },
    collect: { type: "string" },
  });
  if (positionals.length !== 1) throw new UserError("bench run expects one PROTOCOL (see `slicelab bench list`)");
  const collect = values.collect === undefined ? undefined : parseCollectList(values.collect);
  const protocol = loadProtocol(positionals[0] as string);
  if (values.design !== undefined && !DESIGNS.includes(values.design as Design)) {
    throw new UserError(`--design: expected ${DESIGNS.join(" or ")}, found "${values.design}"`);
  }
  const runs = optionalInt("runs", values.runs);
  if (runs === 0) throw new UserError("--runs expects at least 1");
  const outDir = values.out ?? join(workDir(), "series", protocol.name);
  const params = keyValues("param", values.param);
  const summary = await runSeries({
    protocol,
    variants: values.variant ? parseVariants(values.variant) : undefined,
    outDir,
    params: values.param ? params : undefined,
    runs,
    warmup: optionalInt("warmup", values.warmup),
    design: values.design as Design | undefined,
    seed: optionalInt("seed", values.seed),
    clientBinDir: values["client-bin"],
    clusterPrefix: values["cluster-prefix"],
    maxRuns: optionalInt("max-runs", values["max-runs"]),
    collect,
    progress: progressPrinter(process.stderr),
    // On a terminal, clear the progress bar's line first (the next event redraws it).
    log: (line) => process.stderr.write(`${process.stderr.isTTY ? "\r\x1b[2K" : ""}${line}\n`),
  });
  if (values.json) {
    printJson({ dir: summary.dir, total: summary.total, done: summary.done, ranNow: summary.ranNow, rows: summary.rows });
  } else {
    process.stdout.write(
      `${summary.dir}: ${summary.done}/${summary.total} runs done (${summary.ranNow} now); table ${join(summary.dir, "results.csv")}, provenance ${join(summary.dir, "provenance.json")}\n`,
    );
  }
  return summary.done === summary.total ? 0 : 1;
}

async function analyze(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("bench", argv, {
    json: { type: "boolean" },
    write: { type: "boolean" },
    a: { type: "string" },
    b: { type: "string" },
    workload: { type: "string" },
  });
  if (positionals.length !== 1) throw new UserError("bench analyze expects one series DIR");
  const dir = positionals[0] as string;
  const r = analyzeSeries(dir, { a: values.a, b: values.b, workload: values.workload });
  const { comparison, dir: _dir, verdict, ...core } = r;
  // The headline verdict is the design's own analysis (paired for blocks); Welch's stays beside it.
  const record = {
    ...core,
    verdict: verdict.verdict,
    reason: verdict.reason,
    verdictAnalysis: verdict.analysis,
    unpairedVerdict: { verdict: comparison.verdict, reason: comparison.reason },
  };
  if (values.write) writeRecordJson(dir, "analysis.json", record);
  if (values.json) {
    printJson(record);
    return 0;
  }
  const f = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;
  const line = (name: string, x: { n: number; meanDiffPct: number; ciPct: [number, number]; halfWidthPct: number; p: number }) =>
    `  ${name.padEnd(34)} ${f(x.meanDiffPct)}  95% CI [${f(x.ciPct[0])}, ${f(x.ciPct[1])}]  ±${x.halfWidthPct.toFixed(2)}%  p=${x.p.toFixed(3)}\n`;
  process.stdout.write(
    `${dir}: ${r.workload} (${r.design} design), ${r.labels.b} − ${r.labels.a} in % of mean ${r.labels.a} (${r.warmupExcluded} warm-up rows left out)\n` +
      `  ${r.labels.a}: n=${r.a.n} mean ${r.a.mean.toFixed(1)} tps, CV ${(r.a.cv * 100).toFixed(2)}%;  ${r.labels.b}: n=${r.b.n} mean ${r.b.mean.toFixed(1)} tps, CV ${(r.b.cv * 100).toFixed(2)}%\n` +
      line(r.design === "blocks" ? `blocks (paired, ${r.blocks.n} blocks)` : `i-th A with i-th B (paired, ${r.blocks.n})`, r.blocks) +
      line("unpaired (sequential analysis)", r.unpaired) +
      line(`time split (runs ${r.timeSplit.firstRuns.join("–")} vs ${r.timeSplit.secondRuns.join("–")})`, r.timeSplit) +
      `  within-block correlation ${r.blocks.correlation.toFixed(2)}; unpaired/paired CI half-width ${r.halfWidthRatio.toFixed(2)}\n` +
      (r.design === "sequential" ? "  (sequential series: the runs of A and B did not run side by side, the unpaired line is the design's analysis)\n" : "") +
      `  verdict (${verdict.analysis}): ${verdict.verdict} (${verdict.reason})\n`,
  );
  return 0;
}

export const benchCommand: Command = withSubcommands("bench", "run benchmark protocols (pgbench, sysbench) on managed PostgreSQL clusters", usage, { list, show, run, analyze });
