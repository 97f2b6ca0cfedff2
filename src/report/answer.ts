/**
 * The answer box at the top of the report's index (issue 28, item 1): the kit's question, the
 * answer with its numbers and intervals, how strong the evidence is (a badge: emulated or real
 * time, which accelerator, how many CPUs) and what is missing — all computed from the records
 * (the mechanism groups of src/analysis/mechanism-records.ts, the throughput comparison the claims
 * ledger reads, and the record envelopes of data/runs/), never typed.
 */
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { extensionEffect, summariseCells, type CellSummary, type FactorialRow, type Interval } from "../analysis/mechanism.js";
import { summarisePgCells, type PgFactorialRow } from "../analysis/mechanism-pg.js";
import { loadMechanismGroups, pickMechanismGroups, type MechRecordGroup } from "../analysis/mechanism-records.js";
import { known, listRecords, readRecord, type LoadedRecord } from "../record/format.js";
import { escapeHtml } from "./notebook.js";

export const QUESTION =
  "When a user-space lock holder is preempted, where does the kernel preempt it, and how much does Linux's rseq time-slice extension help (PostgreSQL's 2026 regression on Linux 7.0)?";

/** One preemption mode's throughput comparison, extension off vs on (from the record's summary). */
export interface ThroughputEffect {
  mode: string;
  differencePct: number;
  /** The smallest difference these runs could have detected (± %, 80 % power at α = 0.05). */
  minimumDetectableEffectPct: number;
}

export interface AnswerInputs {
  /** The 7.x micro-benchmark factorial (pickMechanismGroups().vm). */
  micro: MechRecordGroup | null;
  /** The PostgreSQL factorial (pickMechanismGroups().pg). */
  pg: MechRecordGroup | null;
  /** The directory of the mechanism records, relative to the repository ("data/runs/mechanism-2026"). */
  recordsDir: string;
  /** The throughput comparison (extension off vs on): its record, where it ran, the effects. */
  throughput: { record: string; emulated: boolean; where: string; effects: ThroughputEffect[] } | null;
  /** Records that ran a 7.x kernel with the extension in real time (bare metal, or a KVM guest). */
  realTime: string[];
}

export interface Answer {
  question: string;
  /** Sentences of the answer (numbers with intervals). */
  sentences: string[];
  badge: { kind: "emulated" | "real time" | "no record"; text: string };
  missing: string[];
  records: string[];
}

/** An interval as text, the bounds left out when they equal the mean (a degenerate interval) and "n = N" without an interval. */
export function fmtCompact(i: Interval, digits = 1, scale = 1): string {
  if (!Number.isFinite(i.mean)) return "—";
  // "−3.57 to −2.53" reads better than "-3.57–-2.53".
  const v = (x: number) => (x * scale).toFixed(digits).replace(/^-/, "−");
  if (!Number.isFinite(i.lo) || !Number.isFinite(i.hi)) return `${v(i.mean)} (n = ${i.n})`;
  if (v(i.lo) === v(i.mean) && v(i.hi) === v(i.mean)) return v(i.mean);
  return i.lo < 0 ? `${v(i.mean)} (${v(i.lo)} to ${v(i.hi)})` : `${v(i.mean)} (${v(i.lo)}–${v(i.hi)})`;
}
const pct = (i: Interval) => fmtCompact(i, 0, 100);
const signed = (x: number, d = 1) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(d)}`;

function cellOf(cells: readonly CellSummary[], mode: string, pages: string, extension: string): CellSummary | undefined {
  return cells.find((c) => c.mode === mode && c.pages === pages && c.extension === extension);
}

/** "full and lazy", "full, lazy and none". */
function and(xs: string[]): string {
  return xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`;
}

/** Whether a record ran a 7.x (or later) kernel with the extension working, in real time: on a host, or in a KVM guest. */
export function isRealTimeExtensionRecord(r: LoadedRecord["record"]): boolean {
  const env = known(r.environment);
  const release = known(r.kernel.release);
  const ext = known(r.kernel.sliceExtension);
  if (!env || typeof release !== "string" || typeof ext !== "string") return false;
  // An emulated CPU says so in its model name ("QEMU TCG CPU version 2.5+"), whatever the envelope's kind says.
  const model = known(r.host.cpuModel);
  if (typeof model === "string" && /\bTCG\b/i.test(model)) return false;
  const realTime = env.kind === "host" || /\bQEMU KVM\b/i.test(env.detail);
  return realTime && /^([7-9]|\d\d)\./.test(release) && /^available/.test(ext);
}

/** The answer, from the inputs (pure). */
export function computeAnswer(inp: AnswerInputs): Answer {
  const sentences: string[] = [];
  const missing: string[] = [];
  const records: string[] = [];
  const m = inp.micro;
  if (m) {
    records.push(...m.paths);
    const rows = m.rows as FactorialRow[];
    const cells = summariseCells(rows);
    const modes = [...new Set(cells.map((c) => c.mode))].sort().filter((x) => cellOf(cells, x, "4k", "off"));
    const off = modes.map((x) => ({ mode: x, c: cellOf(cells, x, "4k", "off")! }));
    if (off.length > 0) {
      sentences.push(
        `Inside the kernel: with 4 KB pages and the extension off, ${and(off.map(({ mode, c }) => `${pct(c.inKernelShare)} % under ${mode} (${c.totals.kernel} of ${c.totals.kernel + c.totals.atReturn})`))} of the lock-holder preemptions happened inside the kernel, ` +
          `${and(off.map(({ c }) => `${pct(c.faultShareOfKernel)} %`))} of those in the page fault.`,
      );
    }
    const on = modes.filter((x) => cellOf(cells, x, "4k", "on"));
    if (on.length > 0) {
      sentences.push(
        `The extension: with it on, grants covered ${and(on.map((x) => `${pct(cellOf(cells, x, "4k", "on")!.coveredFraction)} % (${x})`))} of the holds the kernel wanted to preempt; ` +
          `on − off, preemptions at the return to user space changed by ${and(on.map((x) => `${fmtCompact(extensionEffect(rows, x, "4k", "atReturn"), 2)} (${x})`))} ` +
          `and inside the kernel by ${and(on.map((x) => `${fmtCompact(extensionEffect(rows, x, "4k", "kernel"), 2)} (${x})`))} per 1,000 holds.`,
      );
    } else missing.push("no extension-on cells in the micro-benchmark factorial");
    const remedies = [
      { pages: "hugetlb", label: "huge pages" },
      { pages: "4k-prefault", label: "pre-faulting" },
    ]
      .map((r) => ({ ...r, modes: modes.filter((x) => cellOf(cells, x, r.pages, "off")) }))
      .filter((r) => r.modes.length > 0);
    if (remedies.length > 0) {
      const text = remedies
        .map(
          (r) =>
            `${r.label} took faults under the lock ${and(r.modes.map((x) => `${fmtCompact(cellOf(cells, x, "4k", "off")!.rates.faultsUnderLock, 1)} → ${fmtCompact(cellOf(cells, x, r.pages, "off")!.rates.faultsUnderLock, 2)} (${x})`))} ` +
            `and in-kernel preemptions ${and(r.modes.map((x) => `${fmtCompact(cellOf(cells, x, "4k", "off")!.rates.kernel, 2)} → ${fmtCompact(cellOf(cells, x, r.pages, "off")!.rates.kernel, 2)} (${x})`))}`,
        )
        .join("; ");
      sentences.push(`Huge pages and pre-faulting (extension off, per 1,000 holds): ${text}${text.includes("(n = ") ? " (n = N: a cell of too few runs for an interval)" : ""}.`);
    }
  } else missing.push("no micro-benchmark factorial on a 7.x kernel (slicelab mechanism run)");
  if (inp.pg) {
    records.push(...inp.pg.paths);
    const pc = summarisePgCells(inp.pg.rows as PgFactorialRow[]);
    const bits = [...new Set(pc.map((c) => c.mode))]
      .map((mode) => ({ mode, a: pc.find((c) => c.mode === mode && c.hugePages === "off" && c.extension === "off"), b: pc.find((c) => c.mode === mode && c.hugePages === "on" && c.extension === "off") }))
      .filter((x) => x.a && x.b)
      .map((x) => `${fmtCompact(x.a!.rates.faults, 0)} → ${fmtCompact(x.b!.rates.faults, 0)} (${x.mode})`);
    if (bits.length > 0) sentences.push(`PostgreSQL 18: huge_pages=on took minor faults inside spin-style lock holds ${and(bits)} per million holds (extension off).`);
  } else missing.push("no PostgreSQL mechanism record (slicelab mechanism run --pg)");
  const t = inp.throughput;
  if (t && t.effects.length > 0) {
    records.push(t.record);
    const eff = and(t.effects.map((e) => `${signed(e.differencePct)} % (${e.mode})`));
    const mde = and(t.effects.map((e) => `±${e.minimumDetectableEffectPct.toFixed(0)} % (${e.mode})`));
    sentences.push(
      t.emulated
        ? `Throughput: no repair shown — the only throughput runs are emulated (${t.where}), where time is not performance; extension on − off ${eff}, and these runs could not have detected an effect smaller than ${mde}.`
        : `Throughput (${t.where}): extension on − off ${eff}; the smallest effect these runs could have detected: ${mde}.`,
    );
    if (t.emulated) missing.push("no throughput run outside an emulator");
  } else missing.push("no throughput comparison of the extension");
  if (inp.realTime.length === 0) missing.push("no 7.x run in real time yet (bare metal or a KVM guest with the extension): every count above is emulated");
  else records.push(...inp.realTime);

  const badge: Answer["badge"] = m
    ? inp.realTime.length > 0
      ? { kind: "real time", text: `real time: ${inp.realTime.join(", ")}` }
      : {
          kind: "emulated",
          text: `QEMU ${m.accel === "tcg-icount" ? "TCG with instruction-counted time (icount)" : m.accel}, ${m.cpus} vCPU${m.cpus === 1 ? "" : "s"}, Linux ${m.kernelRelease}${t ? `; throughput: ${t.where}` : ""}`,
        }
    : { kind: "no record", text: "no mechanism record" };
  return { question: QUESTION, sentences, badge, missing, records };
}

/** The box as HTML; `notebookAnswer` is the link to notebook 07's answer. Record paths are left as text for the linker (src/report/enhance.ts). */
export function answerBoxHtml(a: Answer, notebookAnswer: string): string {
  const badgeClass = a.badge.kind === "real time" ? "sl-badge-real" : "sl-badge-emulated";
  return [
    '<section class="sl-answer" id="answer">',
    `<p class="sl-question"><strong>Question.</strong> ${escapeHtml(a.question)}</p>`,
    `<p class="sl-evidence"><span class="sl-badge ${badgeClass}">${escapeHtml(a.badge.kind)}</span> ${escapeHtml(a.badge.text)}</p>`,
    `<ul class="sl-answer-list">${a.sentences.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ul>`,
    a.missing.length > 0 ? `<p class="sl-missing"><strong>Missing:</strong> ${a.missing.map(escapeHtml).join("; ")}.</p>` : "",
    `<p class="sl-answer-links"><a href="${escapeHtml(notebookAnswer)}">Notebook 07: the answer in full</a> · records: ${a.records.map(escapeHtml).join(" · ")}</p>`,
    "</section>",
  ].join("\n");
}

/** The inputs from the repository's records (data/runs/). */
export async function loadAnswerInputs(repoRoot: string): Promise<AnswerInputs> {
  const recordsDir = "data/runs/mechanism-2026";
  const picked = pickMechanismGroups(loadMechanismGroups(join(repoRoot, recordsDir)));
  let throughput: AnswerInputs["throughput"] = null;
  const recs = await import("../claims/records.js");
  {
    const s = recs.mechanismSummary() as unknown as { cells: { mode: string; variant: string; dir?: string }[]; comparisons: { name: string; differencePct: number; minimumDetectableEffectPct: number }[] };
    const modes = [...new Set(s.cells.filter((c) => c.variant === "on").map((c) => c.mode))];
    const effects = modes
      .map((mode) => s.comparisons.find((c) => c.name === `${mode}-off-vs-on`))
      .filter((c): c is NonNullable<typeof c> => !!c)
      .map((c) => ({ mode: c.name.replace(/-off-vs-on$/, ""), differencePct: c.differencePct, minimumDetectableEffectPct: c.minimumDetectableEffectPct }))
      .filter((e) => e.mode !== "none");
    // Where the runs ran: the envelope of the batch the summary's cells come from.
    let where = "unknown machine";
    let emulated = true;
    const dir = s.cells.find((c) => c.dir)?.dir;
    for (let d = dir ? join(repoRoot, dir) : ""; d && d.startsWith(join(repoRoot, "data", "runs")) && d !== join(repoRoot, "data", "runs"); d = dirname(d)) {
      if (!existsSync(join(d, "record.json"))) continue;
      const r = readRecord(d);
      const env = known(r.environment);
      const model = known(r.host.cpuModel);
      const cpus = known(r.host.cpus);
      emulated = !env || env.kind === "vm" ? !/\bkvm\b/i.test(env?.detail ?? "") : false;
      where = `${/TCG/i.test(String(model)) ? "QEMU TCG" : env?.kind === "host" ? "this machine" : "a VM"}, ${cpus ?? "?"} vCPUs`;
      break;
    }
    throughput = { record: recs.recordDir(recs.MECHANISM_RECORD), emulated, where, effects };
  }
  const realTime = listRecords(join(repoRoot, "data", "runs"))
    .filter((r) => isRealTimeExtensionRecord(r.record))
    .map((r) => relative(repoRoot, r.dir));
  return { micro: picked.vm, pg: picked.pg, recordsDir, throughput, realTime };
}
