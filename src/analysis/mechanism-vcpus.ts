/**
 * Notebook 07's vCPU table (issue 26 item 7): the main cell (4 KB pages, extension off) per
 * mechanism-micro record with its vCPUs and accelerator, per mode: holder preemptions, the share in
 * the kernel (Wilson 95 % on the pooled counts), holds per run, and the guest's idle share — the
 * only sign a TCG guest gives of the emulator not running a vCPU (no steal clock) — and the host's
 * load at the start (plain TCG's vCPU threads compete with it; icount's guest time does not).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { listRecords } from "../record/format.js";
import { kernelOf, returnOf, type FactorialRow } from "./mechanism.js";
import { wilson } from "./mechanism-model.js";
import type { Interval } from "./mechanism.js";

export interface VcpuRow {
  record: string;
  cpus: number;
  accel: string;
  mode: string;
  runs: number;
  preemptions: number;
  inKernel: number;
  share: Interval;
  holdsPerRun: number;
  idleMin: number | null;
  idleMax: number | null;
  /** The 1-minute load average when the record started (from its envelope's "concurrent"). */
  loadAtStart: number | null;
}

type Row = FactorialRow & { idlePct?: number | null };

/** The rows of one record's 4 KB, extension-off runs, per mode. */
export function vcpuRows(record: string, cpus: number, accel: string, rows: readonly Row[], loadAtStart: number | null = null): VcpuRow[] {
  const main = rows.filter((r) => r.pages === "4k" && r.extension === "off");
  return [...new Set(main.map((r) => r.mode))].sort().map((mode) => {
    const rs = main.filter((r) => r.mode === mode);
    const k = rs.reduce((a, r) => a + kernelOf(r), 0);
    const n = rs.reduce((a, r) => a + kernelOf(r) + returnOf(r), 0);
    const idle = rs.map((r) => r.idlePct).filter((x): x is number => typeof x === "number");
    return {
      record, cpus, accel, mode, runs: rs.length, preemptions: n, inKernel: k, share: wilson(k, n),
      holdsPerRun: rs.length ? rs.reduce((a, r) => a + r.holds, 0) / rs.length : NaN,
      idleMin: idle.length ? Math.min(...idle) : null, idleMax: idle.length ? Math.max(...idle) : null, loadAtStart,
    };
  });
}

/** The first number of "at the start: load A B C" in an envelope's `concurrent` line. */
export function loadAtStartOf(concurrent: unknown): number | null {
  const m = typeof concurrent === "string" ? /at the start: load ([\d.]+)/.exec(concurrent) : null;
  return m ? Number(m[1]) : null;
}

/** Every mechanism-micro record in the VM (rows.json + provenance.json), as vCPU rows; by vCPUs, accel, record. */
export function vcpuRecords(runsRoot: string, study = "mechanism-micro"): VcpuRow[] {
  return listRecords(runsRoot)
    .filter((l) => l.record.study === study && existsSync(join(l.dir, "out", "rows.json")) && existsSync(join(l.dir, "out", "provenance.json")))
    .flatMap((l) => {
      const prov = JSON.parse(readFileSync(join(l.dir, "out", "provenance.json"), "utf8")) as { vm?: { cpus?: number; accel?: string } };
      if (!prov.vm || typeof prov.vm.cpus !== "number") return [];
      const rows = JSON.parse(readFileSync(join(l.dir, "out", "rows.json"), "utf8")) as Row[];
      return vcpuRows(l.dir.split("/data/runs/")[1] ?? l.dir, prov.vm.cpus, String(prov.vm.accel), rows, loadAtStartOf(l.record.concurrent));
    })
    .sort((a, b) => a.cpus - b.cpus || a.accel.localeCompare(b.accel) || a.record.localeCompare(b.record) || a.mode.localeCompare(b.mode));
}

const pc = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)} %` : "—");

/** The table notebook 07 shows. */
export function vcpuTable(rows: readonly VcpuRow[]): Record<string, string | number>[] {
  return rows.map((r) => ({
    record: r.record,
    vCPUs: r.cpus,
    accel: r.accel === "tcg-icount" ? "icount" : r.accel === "tcg" ? "plain TCG" : r.accel,
    mode: r.mode,
    runs: r.runs,
    "holds per run": Math.round(r.holdsPerRun),
    "holder preemptions": r.preemptions,
    "in kernel (95 %)": r.preemptions ? `${pc(r.share.mean)} (${pc(r.share.lo)}–${pc(r.share.hi)}), ${r.inKernel}` : "—",
    "guest idle": r.idleMin === null ? "not recorded" : `${r.idleMin.toFixed(0)}–${r.idleMax!.toFixed(0)} %`,
    "host load at start": r.loadAtStart ?? "unknown",
  }));
}

/** What the table says, per accelerator: the in-kernel shares' range and the idle range, labelled emulated; computed from the rows. */
export function vcpuSentence(rows: readonly VcpuRow[]): string {
  if (rows.length === 0) return "No multi-vCPU record yet (`slicelab study run mechanism-micro --param cpus=2 …`).";
  const parts = [...new Set(rows.map((r) => `${r.accel}|${r.cpus}`))].map((k) => {
    const [accel, cpus] = k.split("|") as [string, string];
    const rs = rows.filter((r) => r.accel === accel && String(r.cpus) === cpus);
    const n = rs.reduce((a, r) => a + r.preemptions, 0);
    const idle = rs.flatMap((r) => (r.idleMin === null ? [] : [r.idleMin, r.idleMax!]));
    const shares = rs.filter((r) => r.preemptions > 0).map((r) => `${r.mode} ${pc(r.share.mean)} (${pc(r.share.lo)}–${pc(r.share.hi)})`);
    return `${cpus} vCPUs under ${accel === "tcg-icount" ? "icount" : accel === "tcg" ? "plain TCG" : accel}: ${n} holder preemptions, in the kernel ${shares.join(", ")}${idle.length ? `, guest idle ${Math.min(...idle).toFixed(0)}–${Math.max(...idle).toFixed(0)} %` : ""}`;
  });
  return `Emulated (functional evidence; plain TCG's guest time is host time, so its counts depend on the host's load): ${parts.join("; ")}.`;
}
