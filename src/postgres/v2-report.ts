/**
 * Reading the patch-v2 records for notebook 03 and REPRODUCE §4, and the
 * sentences the notebook prints about them (computed here, tested).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { CheckRecord } from "./check.js";
import type { VmCheckRecord } from "./check-vm.js";
import type { HookCostRecord } from "./hook-cost.js";
import type { LockOpsRecord } from "./lock-ops.js";
import type { HarnessRun } from "./harness.js";
import { pgCounterColumns } from "../collect/tables.js";

/** Every data/runs/pg-check/<stamp>/pg<major>/summary.json under RUNS (host runs), oldest first. */
export function readCheckRecords(runs: string): (CheckRecord & { dir: string })[] {
  return readCheckSummaries<CheckRecord>(runs, "slicelab-pg-check");
}

/** Every data/runs/pg-check/<stamp>/vm-pg<major>/summary.json under RUNS (`postgres check --vm`), oldest first. */
export function readVmCheckRecords(runs: string): (VmCheckRecord & { dir: string })[] {
  return readCheckSummaries<VmCheckRecord>(runs, "slicelab-pg-check-vm");
}

function readCheckSummaries<T extends { kind: string }>(runs: string, kind: string): (T & { dir: string })[] {
  const root = join(runs, "pg-check");
  if (!existsSync(root)) return [];
  const out: (T & { dir: string })[] = [];
  for (const stamp of readdirSync(root).sort()) {
    const d = join(root, stamp);
    if (!existsSync(d) || !/^\d{8}T\d{6}Z$/.test(stamp)) continue;
    for (const sub of readdirSync(d).sort()) {
      const f = join(d, sub, "summary.json");
      if (!existsSync(f)) continue;
      const r = JSON.parse(readFileSync(f, "utf8")) as T;
      if (r.kind === kind) out.push({ ...r, dir: join(d, sub) });
    }
  }
  return out;
}

/** The newest record directory (by UTC stamp name) under RUNS/KIND holding summary.json, or undefined. */
export function latestRecord<T>(runs: string, kind: string, summaryKind?: string): (T & { dir: string }) | undefined {
  const root = join(runs, kind);
  if (!existsSync(root)) return undefined;
  const read = (n: string) => JSON.parse(readFileSync(join(root, n, "summary.json"), "utf8")) as T & { kind?: unknown };
  // a study directory can hold records of several kinds (patch-cost: slicelab-hook-cost and slicelab-clear-cost)
  const stamps = readdirSync(root)
    .filter((n) => /^\d{8}T\d{6}Z$/.test(n) && existsSync(join(root, n, "summary.json")))
    .filter((n) => summaryKind === undefined || read(n).kind === summaryKind)
    .sort();
  const last = stamps[stamps.length - 1];
  return last ? { ...read(last), dir: join(root, last) } : undefined;
}

/** One sentence on the harness comparison. */
export function harnessSentence(v1: HarnessRun, v2: HarnessRun): string {
  const fixed = v1.scenarios.filter((s) => s.status === "FAIL" && v2.scenarios.find((x) => x.name === s.name)?.status === "PASS").length;
  const v2fail = v2.scenarios.filter((s) => s.status === "FAIL").length;
  return `The hook harness runs ${v2.scenarios.length} scenarios of what the kernel does to slice_ctrl: ${v1.failed} fail on patch v1 and ${v2fail === 0 ? "none" : v2fail} on v2 (${fixed} of v1's failures pass on v2; ${v1.passed} hold on both).`;
}

/** One sentence per make-check record. */
export function checkSentence(r: CheckRecord): string {
  const ok = r.exitCode === 0 && r.regress.failed === 0;
  return `PostgreSQL ${r.version} with patch ${r.patch.hash}, slice_extension = ${r.setting}, on ${r.host.kernel}: make check ${ok ? "passed" : "FAILED"} (${r.regress.verdict}) in ${r.checkSeconds} s (build ${r.buildSeconds} s; 1-minute load ${r.host.load1Before.toFixed(1)}→${r.host.load1After.toFixed(1)} on ${r.host.cpus} CPUs)${r.serverSaid ? `; the server logged "${r.serverSaid}"` : ""}.`;
}

/** One sentence on the hook cost record, honest about noise. */
export function hookCostSentence(r: HookCostRecord): string {
  const f = (x: { mean: number; ci: [number, number] }) => `${x.mean.toFixed(2)} ns (95% CI ${x.ci[0].toFixed(2)} … ${x.ci[1].toFixed(2)})`;
  const neg = [r.addedNs.spin.off, r.addedNs.nested.off].some((x) => x.ci[1] < 0);
  return `Per hook execution on this host (${r.rounds} rounds, load ${r.host.load1Before.toFixed(1)}→${r.host.load1After.toFixed(1)} on ${r.host.cpus} CPUs): switch off ${f(r.addedNs.spin.off)} in the spinlock pattern and ${f(r.addedNs.nested.off)} in the nested one; request protocol with counters ${f(r.addedNs.spin.all)} and ${f(r.addedNs.nested.all)}.${neg ? " An interval entirely below zero means the two binaries differ in more than the hooks (code layout): differences of a few ns are within that effect here." : ""}`;
}

/** Load per CPU above which a hook-cost record is called loaded (the benchmark then mostly waits for a CPU). */
export const HOOK_COST_LOADED_PER_CPU = 1.5;

/**
 * What the load says about a hook-cost record's resolution: the higher 1-minute load per CPU of
 * its start and end against HOOK_COST_LOADED_PER_CPU, and the unhooked spin iteration's time
 * (an uncontended lock takes about 10 ns on an idle CPU, so far more means waiting for a CPU).
 */
export function hookCostLoadSentence(r: Pick<HookCostRecord, "host" | "noneNs">): string {
  const perCpu = Math.max(r.host.load1Before, r.host.load1After) / r.host.cpus;
  const loaded = perCpu > HOOK_COST_LOADED_PER_CPU;
  const at = `a 1-minute load of ${r.host.load1Before.toFixed(1)}→${r.host.load1After.toFixed(1)} on ${r.host.cpus} CPUs (${perCpu.toFixed(2)} per CPU; the unhooked spinlock iteration took ${r.noneNs.spin.mean.toFixed(1)} ns)`;
  return loaded
    ? `The ns per execution were measured at ${at}, above ${HOOK_COST_LOADED_PER_CPU} per CPU: their upper limits, and this bound, are loose, and a rerun on a quiet machine narrows them.`
    : `The ns per execution were measured at ${at}, at most ${HOOK_COST_LOADED_PER_CPU} per CPU: the benchmark had a CPU most of the time.`;
}

/** One sentence on the lock-ops record. */
export function lockOpsSentence(r: LockOpsRecord): string {
  const m = r.perTransaction.mean;
  return `One pgbench -S transaction (${r.workload}) makes ${m.hook_executions!.toFixed(1)} hook executions (range ${r.perTransaction.min.hook_executions!.toFixed(1)}–${r.perTransaction.max.hook_executions!.toFixed(1)}, ${r.perTransaction.pairs} pairs): covered acquires spinlock ${m.acquires_spinlock!.toFixed(2)}, buffer header ${m.acquires_buffer_header!.toFixed(2)}, wait list ${m.acquires_wait_list!.toFixed(2)}, LWLock ${m.acquires_lwlock!.toFixed(2)}; holds begun ${(m.holds_spinlock! + m.holds_buffer_header! + m.holds_wait_list! + m.holds_lwlock!).toFixed(2)}${r.shim ? " (counted on a kernel without the feature through the LD_PRELOAD shim: a count of lock operations, no grants)" : ""}.`;
}

/** One sentence per `postgres check --vm` record: verdict, scope, where, the probe and the kernel's grants. */
export function vmCheckSentence(r: VmCheckRecord): string {
  const ok = r.exitCode === 0 && r.regress !== null && r.regress.failed === 0;
  const scope = r.schedule.groups === r.schedule.groupsInSchedule ? `the whole parallel schedule (${r.schedule.tests} tests)` : `the first ${r.schedule.groups} of ${r.schedule.groupsInSchedule} groups of the parallel schedule (${r.schedule.tests} tests, up to ${r.schedule.widest} at once)`;
  const d = r.rseqStatsDelta;
  const grants = d && d.sgrant !== undefined ? `; the kernel made ${d.sgrant} grants while it ran (rseq/stats sgrant${d.syield !== undefined ? `, ${d.syield} yields` : ""}${d.sexpir !== undefined ? `, ${d.sexpir} expiries` : ""})` : "; rseq/stats was not readable";
  return (
    `PostgreSQL ${r.version} with patch ${r.patch.hash} (${r.patch.version}), slice_extension = ${r.setting}, in the VM on ${r.kernel.release ?? r.kernel.version} (${r.vm.accel.toUpperCase()}, ${r.vm.cpus} vCPUs, preempt ${/\(([a-z]+)\)/.exec(r.kernel.preempt ?? "")?.[1] ?? "unknown"}): ` +
    `make check of ${scope} ${ok ? "passed" : r.timedOut ? "did not finish (timed out)" : "FAILED"} (${r.regress?.verdict ?? "no verdict"}) in ${r.checkSeconds ?? "?"} s of guest time` +
    `${r.vm.accel === "kvm" ? "" : " (TCG: a functional figure, not a performance one)"}; the probe found the extension ${r.probe?.sliceExtensionUsable ? "usable" : "NOT usable"}` +
    `${r.serverSaid ? ` and the server logged "${r.serverSaid}"` : ", and the server logged no line about it"}${grants}.`
  );
}

/** One cell of a series record (mode × extension): its measured runs' mean tps and the patch's counters summed. */
export interface SeriesCellCounters {
  cell: string;
  runs: number;
  meanTps: number;
  /** Sums over the runs of the patch's counters (v1 or v2 columns, pgCounterColumns). */
  counters: Record<string, number>;
  patch: "v1" | "v2" | null;
}

/** The cells of DIR/series (results.jsonl and runs/ID/result.json): tps and the patch's counters per cell. */
export function seriesCellCounters(dir: string): SeriesCellCounters[] {
  const series = join(dir, "series");
  const lines = readFileSync(join(series, "results.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "");
  const by = new Map<string, SeriesCellCounters>();
  for (const l of lines) {
    const r = JSON.parse(l) as { id: string; variant: string; warmup: boolean; tps: number; workload: string };
    if (r.warmup) continue;
    const result = JSON.parse(readFileSync(join(series, "runs", r.id, "result.json"), "utf8")) as { workloads: { workload: string; sliceExtension?: { countersDelta: Record<string, number> } }[] };
    const delta = result.workloads.find((w) => w.workload === r.workload)?.sliceExtension?.countersDelta;
    const cols = pgCounterColumns(delta);
    const c = by.get(r.variant) ?? { cell: r.variant, runs: 0, meanTps: 0, counters: {}, patch: cols.pgPatch };
    c.meanTps = (c.meanTps * c.runs + r.tps) / (c.runs + 1);
    c.runs++;
    for (const [k, v] of Object.entries(cols)) if (typeof v === "number") c.counters[k] = (c.counters[k] ?? 0) + v;
    by.set(r.variant, c);
  }
  return [...by.values()].sort((a, b) => a.cell.localeCompare(b.cell));
}
