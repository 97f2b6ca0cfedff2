/**
 * The real-time records of the mechanism study (bundles run on real CPUs and imported: their
 * envelope says timing "real"), for notebook 07 beside the emulated ones: per pages level the
 * first-touch fault's duration, the hold split and where the holders were preempted; the model's
 * prediction for this machine from its own d and L; and the April 2026 setting as a range over what
 * was not measured. Every sentence is labelled real time, with the machine and mode.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { listRecords, type LoadedRecord } from "../record/format.js";
import { kernelOf, ratioOfSums, returnOf, type FactorialRow, type Interval } from "./mechanism.js";
import { predict, predictFromRuns, predictRange, type ModelMode, MODEL_LIMITS } from "./mechanism-model.js";

export interface NativeRow extends FactorialRow {
  modeActive: string;
  traced: boolean;
  touchCount: number | null;
  touchP50Ns: number | null;
  touchP99Ns: number | null;
  touchMaxNs: number | null;
  touchedHoldP50Ns: number | null;
  untouchedHoldP50Ns: number | null;
}

export interface NativeRecord {
  dir: string;
  record: LoadedRecord["record"];
  rows: NativeRow[];
  /** The machine as the envelope states it (setting, detail) and HZ from provenance. */
  setting: string;
  hz: number | null;
  cpuModel: string;
  pinCpus: number | null;
  faultEvery: number;
}

/** The imported real-time records of a study under a runs root, oldest first. */
export function nativeRecords(runsRoot: string, study = "mechanism-micro"): NativeRecord[] {
  return listRecords(runsRoot)
    .filter((l) => l.record.study === study && typeof l.record.environment === "object" && "timing" in l.record.environment && l.record.environment.timing === "real")
    .map((l) => {
      const rows = JSON.parse(readFileSync(join(l.dir, "rows.json"), "utf8")) as NativeRow[];
      const prov = existsSync(join(l.dir, "provenance.json")) ? (JSON.parse(readFileSync(join(l.dir, "provenance.json"), "utf8")) as { machine?: { hz?: number | null; cpuModel?: string | null }; shape?: { pinCpus?: number; faultEvery?: number } }) : {};
      const env = l.record.environment as { setting?: string };
      return { dir: l.dir, record: l.record, rows, setting: env.setting ?? "an unstated machine", hz: prov.machine?.hz ?? null, cpuModel: prov.machine?.cpuModel ?? "CPU model not recorded", pinCpus: prov.shape?.pinCpus ?? null, faultEvery: prov.shape?.faultEvery ?? 4 };
    });
}

const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const nums = (xs: (number | null)[]): number[] => xs.filter((x): x is number => typeof x === "number" && Number.isFinite(x));

export interface NativeCell {
  mode: string;
  pages: string;
  runs: number;
  holds: number;
  preempted: number;
  inKernel: number;
  inKernelShare: Interval;
  touchP50Ns: number;
  touchP99Ns: number;
  touchMaxNs: number;
  touchedHoldP50Ns: number;
  untouchedHoldP50Ns: number;
}

/** Per mode × pages: medians over runs of the per-run fault and hold figures, and the in-kernel share. */
export function nativeCells(rows: readonly NativeRow[]): NativeCell[] {
  const keys = [...new Set(rows.map((r) => `${r.modeActive}|${r.pages}`))].sort();
  return keys.map((k) => {
    const [mode, pages] = k.split("|") as [string, string];
    const rs = rows.filter((r) => `${r.modeActive}|${r.pages}` === k && r.traced);
    return {
      mode,
      pages,
      runs: rs.length,
      holds: rs.reduce((a, r) => a + r.holds, 0),
      preempted: rs.reduce((a, r) => a + kernelOf(r) + returnOf(r), 0),
      inKernel: rs.reduce((a, r) => a + kernelOf(r), 0),
      inKernelShare: ratioOfSums(rs.map(kernelOf), rs.map((r) => kernelOf(r) + returnOf(r))),
      touchP50Ns: median(nums(rs.map((r) => r.touchP50Ns))),
      touchP99Ns: median(nums(rs.map((r) => r.touchP99Ns))),
      touchMaxNs: Math.max(...nums(rs.map((r) => r.touchMaxNs))),
      touchedHoldP50Ns: median(nums(rs.map((r) => r.touchedHoldP50Ns))),
      untouchedHoldP50Ns: median(nums(rs.map((r) => r.untouchedHoldP50Ns))),
    };
  });
}

/** A table for the notebook: one row per cell, times in µs. */
export function nativeTable(cells: readonly NativeCell[]): Record<string, string | number>[] {
  const us = (ns: number) => (Number.isFinite(ns) ? Number((ns / 1000).toFixed(ns < 1000 ? 3 : 2)) : "—");
  return cells.map((c) => ({
    mode: c.mode,
    pages: c.pages,
    runs: c.runs,
    holds: c.holds,
    "holders preempted": c.preempted,
    "in the kernel": c.inKernel,
    "first touch p50 (µs)": us(c.touchP50Ns),
    "p99 (µs)": us(c.touchP99Ns),
    "hold with touch p50 (µs)": us(c.touchedHoldP50Ns),
    "hold without p50 (µs)": us(c.untouchedHoldP50Ns),
  }));
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const iv = (i: Interval) => (Number.isFinite(i.lo) ? `${pct(i.mean)} (${pct(i.lo)}–${pct(i.hi)})` : `${pct(i.mean)} (n = ${i.n})`);

/** The record in a sentence, labelled real time with the machine and mode, and what the model predicts for it under full and lazy. */
export function nativeSentence(n: NativeRecord): string {
  const cells = nativeCells(n.rows);
  const c4 = cells.filter((c) => c.pages === "4k");
  const pre = cells.filter((c) => c.pages !== "4k");
  const label = `Real time on ${n.setting === "virtual machine" ? "a virtual machine" : n.setting} (${n.cpuModel}, Linux ${String(n.record.kernel.release)}, HZ ${n.hz ?? "unknown"}; the micro-benchmark pinned to ${n.pinCpus ?? "all"} CPU${n.pinCpus === 1 ? "" : "s"}; ${n.rows.length} runs, \`${n.dir.split("/data/runs/")[1] ?? n.dir}\`)`;
  if (c4.length === 0) return `${label}: no 4 KB run, no answer.`;
  const bits = c4.map((c) => `under ${c.mode}, ${c.inKernel} of ${c.preempted} holder preemptions happened inside the kernel (${iv(c.inKernelShare)}); the first touch took ${(c.touchP50Ns / 1000).toFixed(2)} µs at the median (p99 ${(c.touchP99Ns / 1000).toFixed(2)} µs), holds with a touch ${(c.touchedHoldP50Ns / 1000).toFixed(2)} µs against ${(c.untouchedHoldP50Ns / 1000).toFixed(2)} µs without`);
  const preBits = pre.map((c) => `${c.pages}: touch ${(c.touchP50Ns / 1000).toFixed(3)} µs, ${c.inKernel} of ${c.preempted} in the kernel`);
  const rows4 = n.rows.filter((r) => r.pages === "4k");
  const model = (["full", "lazy"] as ModelMode[]).map((m) => {
    const p = predictFromRuns(rows4, { holdsPerFault: n.faultEvery, hz: n.hz ?? 250, mode: m });
    return `${m} ${iv(p.inKernelShare)}`;
  });
  return `${label}: ${bits.join("; ")}. Pre-faulted and huge pages (${preBits.join("; ")}). The model, from these runs' own d and L with a touch every ${n.faultEvery}th section, predicts an in-kernel share of ${model.join(" and ")} on this machine (lazy: no escalation of a µs fault by a ${n.hz ?? 250} Hz tick, and no full requests assumed), so the extension could cover the rest.`;
}

/**
 * The April 2026 setting (96-vCPU Graviton4, PostgreSQL, 4 KB pages, 1,024 clients) as a range: the
 * holds per fault from the kit's PostgreSQL mechanism record (holds ÷ faulted holds, huge pages off),
 * d from the real-time record (its runs' first-touch p50 to p99), L and HZ not measured (ranges
 * stated), mode full and lazy.
 */
export function april2026Range(o: { holdsPerFault: [number, number]; faultNs: [number, number]; sectionNs?: [number, number]; hz?: [number, number]; fullShare?: [number, number] }): { full: { lo: number; hi: number }; lazy: { lo: number; hi: number }; inputs: Record<string, [number, number]>; sentence: string } {
  const sectionNs = o.sectionNs ?? [100, 2000];
  const hz = o.hz ?? [100, 1000];
  const full = predictRange({ sectionNs, faultNs: o.faultNs, holdsPerFault: o.holdsPerFault, hz, mode: "full" });
  const phi = o.fullShare ?? [0, 0];
  const lazy = predictRange({ sectionNs, faultNs: o.faultNs, holdsPerFault: o.holdsPerFault, hz, mode: "lazy", fullShare: phi });
  const r = (x: { lo: { inKernelShare: number }; hi: { inKernelShare: number } }) => ({ lo: x.lo.inKernelShare, hi: x.hi.inKernelShare });
  const f = r(full);
  const l = r(lazy);
  const sentence = `For the April 2026 setting the model gives a range, not a point: under full ${pct(f.lo)}–${pct(f.hi)} of holder preemptions inside the kernel (the extension could cover ${pct(1 - f.hi)}–${pct(1 - f.lo)}), under lazy ${pct(l.lo)}–${pct(l.hi)} (with ${phi[0].toFixed(2)}–${phi[1].toFixed(2)} of its requests acting as full ones${phi[1] > 0 ? ": 0 by the source reading, the upper end fitted to the emulator's lazy cells" : ""}), from one fault per ${Math.round(o.holdsPerFault[0])}–${Math.round(o.holdsPerFault[1])} spin-style holds (the kit's PostgreSQL runs, huge pages off; emulated counts), a fault of ${(o.faultNs[0] / 1000).toFixed(2)}–${(o.faultNs[1] / 1000).toFixed(2)} µs (this machine's real-time first touch, p50–p99: Graviton4's is not measured), a hold of ${sectionNs[0]}–${sectionNs[1]} ns (not measured for PostgreSQL: assumed) and HZ ${hz[0]}–${hz[1]} (the distribution's arm64 kernel is not named in the sources). The model cannot capture: ${MODEL_LIMITS.join("; ")}.`;
  return { full: f, lazy: l, inputs: { holdsPerFault: o.holdsPerFault, faultNs: o.faultNs, sectionNs, hz, fullShare: phi }, sentence };
}

export { predict };

/**
 * Spin-style holds per faulted hold in the kit's PostgreSQL mechanism records (huge pages off), per
 * record: the range the April 2026 setting's f is taken from. Emulated counts (the diag build in the VM).
 */
export function pgHoldsPerFault(runsRoot: string): { records: string[]; perRecord: number[]; range: [number, number] } | null {
  const per: number[] = [];
  const recs: string[] = [];
  for (const l of listRecords(runsRoot)) {
    const p = join(l.dir, "rows.json");
    if (!existsSync(p)) continue;
    const rows = JSON.parse(readFileSync(p, "utf8")) as { hugePages?: string; holds?: number; faultedHolds?: number }[];
    if (!Array.isArray(rows) || rows.length === 0 || !("hugePages" in rows[0]!)) continue;
    const off = rows.filter((r) => r.hugePages === "off" && typeof r.holds === "number" && typeof r.faultedHolds === "number");
    const faulted = off.reduce((a, r) => a + r.faultedHolds!, 0);
    if (faulted === 0) continue;
    per.push(off.reduce((a, r) => a + r.holds!, 0) / faulted);
    recs.push(l.dir.split("/data/runs/")[1] ?? l.dir);
  }
  return per.length ? { records: recs, perRecord: per, range: [Math.min(...per), Math.max(...per)] } : null;
}

/**
 * The mechanism-micro study's VM records (the driver's out/ files), one line each: the vCPUs and
 * accelerator, the guest's idle share of vCPU time over the runs, and the record's answer sentence
 * (answer.txt, written by answerSentence). Emulated: each line says which accelerator.
 */
export function vmRecordLines(runsRoot: string, study = "mechanism-micro"): string[] {
  return listRecords(runsRoot)
    .filter((l) => l.record.study === study && existsSync(join(l.dir, "out", "rows.json")) && existsSync(join(l.dir, "out", "answer.txt")))
    .map((l) => {
      const prov = JSON.parse(readFileSync(join(l.dir, "out", "provenance.json"), "utf8")) as { vm: { cpus: number; accel: string } };
      const rows = JSON.parse(readFileSync(join(l.dir, "out", "rows.json"), "utf8")) as { idlePct?: number | null }[];
      const idle = rows.map((r) => r.idlePct).filter((x): x is number => typeof x === "number");
      const idleText = idle.length ? `${Math.min(...idle).toFixed(0)}–${Math.max(...idle).toFixed(0)} %` : "not recorded";
      return `\`${l.dir.split("/data/runs/")[1] ?? l.dir}\` (${prov.vm.cpus} vCPUs, ${prov.vm.accel}; guest idle ${idleText} of vCPU time): ${readFileSync(join(l.dir, "out", "answer.txt"), "utf8").trim()}`;
    });
}

/** The April 2026 range from the records: f from the PostgreSQL records, d (p50–p99 medians) from the first real-time record, φ up to `fullShareHi`. */
export function april2026FromRecords(runsRoot: string, fullShareHi: number | null): string {
  const hpf = pgHoldsPerFault(runsRoot);
  const nat = nativeRecords(runsRoot)[0];
  const rows4 = nat ? nat.rows.filter((r) => r.pages === "4k") : [];
  if (!hpf || !nat || rows4.length === 0) return "The April 2026 range needs a PostgreSQL mechanism record and a real-time record.";
  const d50 = median(nums(rows4.map((r) => r.touchP50Ns)));
  const d99 = median(nums(rows4.map((r) => r.touchP99Ns)));
  const a = april2026Range({ holdsPerFault: hpf.range, faultNs: [d50, d99], fullShare: [0, Math.min(1, fullShareHi ?? 0)] });
  return `${a.sentence} (f from ${hpf.records.map((r) => `\`${r}\``).join(", ")}; d from \`${nat.dir.split("/data/runs/")[1] ?? nat.dir}\`.)`;
}
