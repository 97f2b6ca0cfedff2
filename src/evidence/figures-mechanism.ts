/**
 * REPRODUCE §8 (issue 14, the mechanism): its figures, computed from data/runs/mechanism-2026/ the way
 * notebook 07 groups and pools the records (src/analysis/mechanism-records.ts).
 */
import { join } from "node:path";
import { accelContrastCells, extensionEffect, summariseCells, type CellSummary, type ContrastCell, type ContrastRow, type FactorialRow, type Interval } from "../analysis/mechanism.js";
import { loadMechanismGroups, pickMechanismGroups } from "../analysis/mechanism-records.js";
import { pgPooledRate, pgTraced, summarisePgCells, type PgFactorialRow } from "../analysis/mechanism-pg.js";
import { fullShareFit, sweepCells, type SweepRow } from "../analysis/mechanism-model-sweep.js";
import { cellCompleteness, readCompletenessRecords, type CellCompleteness } from "../analysis/mechanism-completeness.js";
import { loadAtStartOf, vcpuRows, type VcpuRow } from "../analysis/mechanism-vcpus.js";
import type { FigureEntry } from "./figure-types.js";
import { R, json } from "./figure-readers.js";


// ---------------------------------------------------------------------------
// §8 (issue 14, the mechanism): values computed from data/runs/mechanism-2026/ the way notebook 07
// groups and pools the records (src/analysis/mechanism-records.ts).

const MECH = "data/runs/mechanism-2026";
type MechGroupName = "vm" | "noneVm" | "host";
const mechPick = (root: string) => pickMechanismGroups(loadMechanismGroups(join(root, MECH)));
const microRows = (root: string, g: MechGroupName): FactorialRow[] => {
  const grp = mechPick(root)[g];
  if (!grp) throw new Error(`no ${g} group under ${MECH}`);
  return grp.rows as FactorialRow[];
};
/** A number of one micro cell (mode/pages/extension) of a group. */
const microCell = (g: MechGroupName, cell: string, f: (c: CellSummary) => number) => (_t: string, root: string): number => {
  const [mode, pages, extension] = cell.split("/");
  const c = summariseCells(microRows(root, g)).find((x) => x.mode === mode && x.pages === pages && x.extension === extension);
  if (!c) throw new Error(`no cell ${cell} in the ${g} group`);
  return f(c);
};
type Part = "mean" | "lo" | "hi";
const pct = (part: Part) => (i: Interval) => 100 * i[part];
/** on − off of a per-1,000-holds rate in one mode, 4 KB pages. */
const microEffect = (mode: string, rate: "kernel" | "atReturn", part: Part) => (_t: string, root: string): number => extensionEffect(microRows(root, "vm"), mode, "4k", rate)[part];
/** Faults inside spin-style holds per 1e6 holds over the PostgreSQL runs of one mode and huge-pages level (both arms), 95 % t. */
const pgRate = (mode: string, hugePages: string, part: Part) => (_t: string, root: string): number => {
  const grp = mechPick(root).pg;
  if (!grp) throw new Error(`no PostgreSQL group under ${MECH}`);
  return pgPooledRate(grp.rows as PgFactorialRow[], { mode, hugePages }, "faults")[part];
};
const M1 = `${MECH}/20261201T215612Z/rows.json`;
const PGR = `data/runs/mechanism-pg/20261201T224018Z/rows.json`;
/** The PostgreSQL records notebook 07 pools (same kernel, accel and server shape): every pooled entry reads both. */
const PG_BOTH = [PGR, `data/runs/mechanism-pg/20261201T231710Z/rows.json`];
const MH = `${MECH}/20261201T184719Z/cells.json`;
// §8, the plain-TCG contrast: the one plain-TCG micro record against the pooled icount factorial (accelContrastCells, as notebook 07).
const MT = `${MECH}/20261202T010208Z/rows.json`;
const MN = `${MECH}/20261202T020227Z/rows.json`;
const MNT = `${MECH}/20261202T015907Z/rows.json`;
/** A number of the none/4k/off cell of one record's rows.json text. */
const noneCell = (f: (c: CellSummary) => number) => (t: string): number => {
  const c = summariseCells(json(t) as FactorialRow[]).find((x) => x.mode === "none" && x.pages === "4k" && x.extension === "off");
  if (!c) throw new Error("no cell none/4k/off");
  return f(c);
};
const contrast = (accel: "icount" | "tcg", cell: string, f: (c: ContrastCell) => number) => (_t: string, root: string): number => {
  const p = mechPick(root);
  const tcg = p.tcg.find((g) => g.name === "20261202T010208Z");
  if (!p.vm || !tcg) throw new Error(`no icount group or no plain-TCG record 20261202T010208Z under ${MECH}`);
  const c = accelContrastCells([{ label: "icount", rows: p.vm.rows as ContrastRow[] }, { label: "tcg", rows: tcg.rows as ContrastRow[] }]).find((x) => x.label === accel && x.cell === cell);
  if (!c) throw new Error(`no ${accel} cell ${cell} in the contrast`);
  return f(c);
};
const tcgCell = (cell: string, f: (c: CellSummary) => number) => (_t: string, root: string): number => {
  const tcg = mechPick(root).tcg.find((g) => g.name === "20261202T010208Z");
  if (!tcg) throw new Error(`no plain-TCG record 20261202T010208Z under ${MECH}`);
  const [mode, pages, extension] = cell.split("/");
  const c = summariseCells(tcg.rows as FactorialRow[]).find((x) => x.mode === mode && x.pages === pages && x.extension === extension);
  if (!c) throw new Error(`no cell ${cell} in 20261202T010208Z`);
  return f(c);
};
const pgCellRuns = (pick: "min" | "max") => (_t: string, root: string): number => {
  const grp = mechPick(root).pg;
  if (!grp) throw new Error(`no PostgreSQL group under ${MECH}`);
  return Math[pick](...summarisePgCells(grp.rows as PgFactorialRow[]).map((c) => c.runs));
};

// §8, the host record (rows.json of the 6.18 host, preempt=none): cells by summariseCells.
const HOST_ROWS = "data/runs/mechanism-2026/20261201T184719Z/rows.json";
const hostCell = (pages: string, f: (c: CellSummary) => number) => (t: string): number => {
  const c = summariseCells(json(t) as FactorialRow[]).find((x) => x.mode === "none" && x.pages === pages && x.extension === "off");
  if (!c) throw new Error(`no cell none/${pages}/off in ${HOST_ROWS}`);
  return f(c);
};

// §8, the model against the emulator (issue 26): the HZ 1000 sweep's cells (sweepCells, as notebook 07
// recomputes them), the pooled factorials' completeness, and the 4-vCPU plain-TCG record.
const MSW = "data/runs/mechanism-model-sweep/20261204T192707Z/out/rows.json";
const sweepAt1000 = (t: string) => sweepCells(json(t) as SweepRow[], { hz: 1000 });
const sweepCount = (mode: string, what: "agree" | "decided" | "kernel" | "preempted") => (t: string): number => {
  const cs = sweepAt1000(t).filter((c) => c.mode === mode);
  const d = cs.filter((c) => c.agrees !== null);
  return what === "agree" ? d.filter((c) => c.agrees).length : what === "decided" ? d.length : what === "kernel" ? cs.reduce((a, c) => a + c.kernel, 0) : cs.reduce((a, c) => a + c.kernel + c.atReturn, 0);
};
const MECH_VM_PROV = ["20261201T193546Z", "20261201T194000Z", "20261201T215612Z", "20261204T193646Z", "20261204T194849Z"].map((n) => `${MECH}/${n}/provenance.json`);
const MECH_PG_PROV = ["20261201T224018Z", "20261201T231710Z"].map((n) => `data/runs/mechanism-pg/${n}/provenance.json`);
const completeness = (g: "vm" | "pg", f: (cs: CellCompleteness[]) => number) => (_t: string, root: string): number => {
  const grp = mechPick(root)[g];
  if (!grp) throw new Error(`no ${g} group under ${MECH}`);
  return f(cellCompleteness(readCompletenessRecords(root, grp.paths)));
};
const MV4 = "data/runs/mechanism-micro/20261204T215207Z";
const tcg4 = (mode: string | null, f: (r: VcpuRow[]) => number) => (t: string): number => {
  const rows = vcpuRows(MV4, 4, "tcg", json(t) as FactorialRow[]);
  return f(mode === null ? rows : rows.filter((r) => r.mode === mode));
};

export const MECHANISM_FIGURES: FigureEntry[] = [
  // §8, the host record's counts (integers: not caught by the measured-number scan, so listed here).
  { doc: R, sentence: "0 of 165 holder preemptions inside the kernel", figure: "0 of", record: HOST_ROWS, field: "totals.kernel of none/4k/off", value: hostCell("4k", (c) => c.totals.kernel) },
  { doc: R, sentence: "0 of 165 holder preemptions inside the kernel", figure: "165", record: HOST_ROWS, field: "totals.desched of none/4k/off", value: hostCell("4k", (c) => c.totals.desched) },
  { doc: R, sentence: "19 of them at the return from a page fault", figure: "19", record: HOST_ROWS, field: "totals.returnFault of none/4k/off", value: hostCell("4k", (c) => c.totals.returnFault) },
  // §8 — the mechanism (issue 14): REPRODUCE's "What is recorded so far", recomputed from the pooled
  // records the way notebook 07 groups them (src/analysis/mechanism-records.ts).
  { doc: R, sentence: "faults under lock 250.0 per 1,000 holds with 4 KB pages", figure: "250.0", record: MH, field: "none/4k/off rates.faultsUnderLock.mean", value: microCell("host", "none/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "0.00 with the region pre-faulted (P7)", figure: "0.00", record: MH, field: "none/4k-prefault/off rates.faultsUnderLock.mean", value: microCell("host", "none/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "was 28 % (25–31) under full", figure: "28 %", record: M1, field: "full/4k/off inKernelShare.mean × 100", value: microCell("vm", "full/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "was 28 % (25–31) under full", figure: "(25", record: M1, field: "full/4k/off inKernelShare.lo × 100", value: microCell("vm", "full/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "was 28 % (25–31) under full", figure: "–31)", record: M1, field: "full/4k/off inKernelShare.hi × 100", value: microCell("vm", "full/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–29) under lazy", figure: "28 %", record: M1, field: "lazy/4k/off inKernelShare.mean × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–29) under lazy", figure: "(26", record: M1, field: "lazy/4k/off inKernelShare.lo × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "and 28 % (26–29) under lazy", figure: "–29)", record: M1, field: "lazy/4k/off inKernelShare.hi × 100", value: microCell("vm", "lazy/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "75 %", record: M1, field: "full/4k/on coveredFraction.mean × 100", value: microCell("vm", "full/4k/on", (c) => pct("mean")(c.coveredFraction)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "(73", record: M1, field: "full/4k/on coveredFraction.lo × 100", value: microCell("vm", "full/4k/on", (c) => pct("lo")(c.coveredFraction)) },
  { doc: R, sentence: "With the extension on, 75 % (73–77) (full)", figure: "–77)", record: M1, field: "full/4k/on coveredFraction.hi × 100", value: microCell("vm", "full/4k/on", (c) => pct("hi")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (72–77) (lazy)", figure: "74 %", record: M1, field: "lazy/4k/on coveredFraction.mean × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("mean")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (72–77) (lazy)", figure: "(72", record: M1, field: "lazy/4k/on coveredFraction.lo × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("lo")(c.coveredFraction)) },
  { doc: R, sentence: "and 74 % (72–77) (lazy)", figure: "–77)", record: M1, field: "lazy/4k/on coveredFraction.hi × 100", value: microCell("vm", "lazy/4k/on", (c) => pct("hi")(c.coveredFraction)) },
  { doc: R, sentence: "changed by −3.06 (−3.43 … −2.70)", figure: "−3.06", record: M1, field: "full/4k on − off atReturn per 1,000 (Welch mean)", value: microEffect("full", "atReturn", "mean") },
  { doc: R, sentence: "changed by −3.06 (−3.43 … −2.70)", figure: "(−3.43", record: M1, field: "full/4k on − off atReturn lo", value: microEffect("full", "atReturn", "lo") },
  { doc: R, sentence: "changed by −3.06 (−3.43 … −2.70)", figure: "−2.70)", record: M1, field: "full/4k on − off atReturn hi", value: microEffect("full", "atReturn", "hi") },
  { doc: R, sentence: "and −3.00 (−3.20 … −2.80) per 1,000 holds", figure: "−3.00", record: M1, field: "lazy/4k on − off atReturn per 1,000 (Welch mean)", value: microEffect("lazy", "atReturn", "mean") },
  { doc: R, sentence: "and −3.00 (−3.20 … −2.80) per 1,000 holds", figure: "(−3.20", record: M1, field: "lazy/4k on − off atReturn lo", value: microEffect("lazy", "atReturn", "lo") },
  { doc: R, sentence: "and −3.00 (−3.20 … −2.80) per 1,000 holds", figure: "−2.80)", record: M1, field: "lazy/4k on − off atReturn hi", value: microEffect("lazy", "atReturn", "hi") },
  { doc: R, sentence: "in-kernel ones by −0.13 (−0.29 … 0.04)", figure: "−0.13", record: M1, field: "full/4k on − off kernel per 1,000 (Welch mean)", value: microEffect("full", "kernel", "mean") },
  { doc: R, sentence: "in-kernel ones by −0.13 (−0.29 … 0.04)", figure: "(−0.29", record: M1, field: "full/4k on − off kernel lo", value: microEffect("full", "kernel", "lo") },
  { doc: R, sentence: "in-kernel ones by −0.13 (−0.29 … 0.04)", figure: "0.04)", record: M1, field: "full/4k on − off kernel hi", value: microEffect("full", "kernel", "hi") },
  { doc: R, sentence: "and −0.07 (−0.21 … 0.07) (on − off)", figure: "−0.07", record: M1, field: "lazy/4k on − off kernel per 1,000 (Welch mean)", value: microEffect("lazy", "kernel", "mean") },
  { doc: R, sentence: "and −0.07 (−0.21 … 0.07) (on − off)", figure: "(−0.21", record: M1, field: "lazy/4k on − off kernel lo", value: microEffect("lazy", "kernel", "lo") },
  { doc: R, sentence: "and −0.07 (−0.21 … 0.07) (on − off)", figure: "0.07)", record: M1, field: "lazy/4k on − off kernel hi", value: microEffect("lazy", "kernel", "hi") },
  { doc: R, sentence: "faults under lock fell from 125.0 to 0.26 per 1,000 holds (full)", figure: "125.0", record: M1, field: "full/4k/off rates.faultsUnderLock.mean", value: microCell("vm", "full/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "faults under lock fell from 125.0 to 0.26 per 1,000 holds (full)", figure: "0.26", record: M1, field: "full/hugetlb/off rates.faultsUnderLock.mean", value: microCell("vm", "full/hugetlb/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "in-kernel preemptions to 0.00 under both modes", figure: "0.00", record: M1, field: "max over modes of hugetlb/off rates.kernel.mean", value: (t, root) => Math.max(microCell("vm", "full/hugetlb/off", (c) => c.rates.kernel.mean)(t, root), microCell("vm", "lazy/hugetlb/off", (c) => c.rates.kernel.mean)(t, root)) },
  { doc: R, sentence: "faults fell to 0.00 and in-kernel preemptions to 0.00", figure: "faults fell to 0.00", record: M1, field: "max over modes of 4k-prefault/off rates.faultsUnderLock.mean", value: (t, root) => Math.max(microCell("vm", "full/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean)(t, root), microCell("vm", "lazy/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean)(t, root)) },
  { doc: R, sentence: "faults fell to 0.00 and in-kernel preemptions to 0.00", figure: "preemptions to 0.00", record: M1, field: "max over modes of 4k-prefault/off rates.kernel.mean", value: (t, root) => Math.max(microCell("vm", "full/4k-prefault/off", (c) => c.rates.kernel.mean)(t, root), microCell("vm", "lazy/4k-prefault/off", (c) => c.rates.kernel.mean)(t, root)) },
  { doc: R, sentence: "4626.8 (4227.9–5025.7) minor faults per million spin-style holds under full", figure: "4626.8", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("full", "off", "mean") },
  { doc: R, sentence: "4626.8 (4227.9–5025.7) minor faults per million spin-style holds under full", figure: "(4227.9", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("full", "off", "lo") },
  { doc: R, sentence: "4626.8 (4227.9–5025.7) minor faults per million spin-style holds under full", figure: "–5025.7)", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=off, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("full", "off", "hi") },
  { doc: R, sentence: "4594.7 (4118.7–5070.7) minor faults per million spin-style holds under lazy", figure: "4594.7", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("lazy", "off", "mean") },
  { doc: R, sentence: "4594.7 (4118.7–5070.7) minor faults per million spin-style holds under lazy", figure: "(4118.7", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("lazy", "off", "lo") },
  { doc: R, sentence: "4594.7 (4118.7–5070.7) minor faults per million spin-style holds under lazy", figure: "–5070.7)", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=off, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("lazy", "off", "hi") },
  { doc: R, sentence: "49.6 (25.4–73.9) minor faults per million spin-style holds under full", figure: "49.6", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("full", "on", "mean") },
  { doc: R, sentence: "49.6 (25.4–73.9) minor faults per million spin-style holds under full", figure: "(25.4", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("full", "on", "lo") },
  { doc: R, sentence: "49.6 (25.4–73.9) minor faults per million spin-style holds under full", figure: "–73.9)", record: PGR, alsoReads: PG_BOTH, field: "full/huge_pages=on, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("full", "on", "hi") },
  { doc: R, sentence: "66.1 (44.3–87.9) minor faults per million spin-style holds under lazy", figure: "66.1", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, mean over runs (95 % t)", value: pgRate("lazy", "on", "mean") },
  { doc: R, sentence: "66.1 (44.3–87.9) minor faults per million spin-style holds under lazy", figure: "(44.3", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, lo over runs (95 % t)", value: pgRate("lazy", "on", "lo") },
  { doc: R, sentence: "66.1 (44.3–87.9) minor faults per million spin-style holds under lazy", figure: "–87.9)", record: PGR, alsoReads: PG_BOTH, field: "lazy/huge_pages=on, both arms: faults per 1e6 spin-style holds, hi over runs (95 % t)", value: pgRate("lazy", "on", "hi") },
  // The traced holder preemptions of the pooled PostgreSQL records, per mode (pgTraced over both records).
  ...([
    ["under full 19 were preempted inside the kernel (all 19 in a page fault) and 16 at the", "full"],
    ["under lazy 9 inside the kernel (all 9 in a page fault) and 19 at the return", "lazy"],
  ] as const).flatMap(([sentence, mode]): FigureEntry[] => {
    const [k, kf, r] = sentence.match(/\d+/g)!;
    const traced = (f: (t: ReturnType<typeof pgTraced>) => number) => (_t: string, root: string): number => {
      const grp = mechPick(root).pg;
      if (!grp) throw new Error(`no PostgreSQL group under ${MECH}`);
      return f(pgTraced(grp.rows as PgFactorialRow[], { mode }));
    };
    return [
      { doc: R, sentence, figure: `${mode === "full" ? "full " : "lazy "}${k}`, record: PGR, alsoReads: PG_BOTH, field: `${mode}: pooled pgTraced().kernel`, value: traced((t) => t.kernel) },
      { doc: R, sentence, figure: `all ${kf}`, record: PGR, alsoReads: PG_BOTH, field: `${mode}: pooled pgTraced().kernelFault`, value: traced((t) => t.kernelFault) },
      { doc: R, sentence, figure: `and ${r}`, record: PGR, alsoReads: PG_BOTH, field: `${mode}: pooled pgTraced().atReturn`, value: traced((t) => t.atReturn) },
    ];
  }),
  { doc: R, sentence: "on, 540 of the 548 reserved pages held after start", figure: "540", record: PGR, alsoReads: PG_BOTH, field: "min hugePagesTaken over huge_pages=on runs (both records pooled)", value: (_t, root) => Math.min(...(mechPick(root).pg!.rows as { hugePages: string; hugePagesTaken: number }[]).filter((r) => r.hugePages === "on").map((r) => r.hugePagesTaken)) },
  // §8, none on 6.1 in the VM: the icount record is the noneVm group (20261202T020227Z); the plain-TCG one is read from its own rows.
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T020227Z` (3 blocks, 9 runs;", figure: "3 blocks", record: MN, field: "max block", value: (t) => Math.max(...(json(t) as { block: number }[]).map((r) => r.block)) },
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T020227Z` (3 blocks, 9 runs;", figure: "9 runs", record: MN, field: "rows of the noneVm group", value: (_t, root) => microRows(root, "noneVm").length },
  { doc: R, sentence: "with 4 KB pages 0 of 136 holder preemptions were inside the kernel", figure: "0 of", record: MN, field: "none/4k/off totals.kernel", value: microCell("noneVm", "none/4k/off", (c) => c.totals.kernel) },
  { doc: R, sentence: "with 4 KB pages 0 of 136 holder preemptions were inside the kernel", figure: "136", record: MN, field: "none/4k/off totals.kernel + totals.atReturn", value: microCell("noneVm", "none/4k/off", (c) => c.totals.kernel + c.totals.atReturn) },
  { doc: R, sentence: "33 of them at the return from a page fault", figure: "33", record: MN, field: "none/4k/off totals.returnFault", value: microCell("noneVm", "none/4k/off", (c) => c.totals.returnFault) },
  { doc: R, sentence: "faults under lock 125.0 per 1,000 holds with 4 KB pages, 0.26 with hugetlb and 0.00 with the region pre-faulted", figure: "125.0", record: MN, field: "none/4k/off rates.faultsUnderLock.mean", value: microCell("noneVm", "none/4k/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "faults under lock 125.0 per 1,000 holds with 4 KB pages, 0.26 with hugetlb and 0.00 with the region pre-faulted", figure: "0.26", record: MN, field: "none/hugetlb/off rates.faultsUnderLock.mean", value: microCell("noneVm", "none/hugetlb/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "faults under lock 125.0 per 1,000 holds with 4 KB pages, 0.26 with hugetlb and 0.00 with the region pre-faulted", figure: "0.00", record: MN, field: "none/4k-prefault/off rates.faultsUnderLock.mean", value: microCell("noneVm", "none/4k-prefault/off", (c) => c.rates.faultsUnderLock.mean) },
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T015907Z` (2 blocks, 6 runs;", figure: "2 blocks", record: MNT, field: "max block", value: (t) => Math.max(...(json(t) as { block: number }[]).map((r) => r.block)) },
  { doc: R, sentence: "`data/runs/mechanism-2026/20261202T015907Z` (2 blocks, 6 runs;", figure: "6 runs", record: MNT, field: "rows", value: (t) => (json(t) as unknown[]).length },
  { doc: R, sentence: "0 of 62 inside the kernel with 4 KB pages, 26 at the return from a page fault", figure: "0 of", record: MNT, field: "none/4k/off totals.kernel", value: noneCell((c) => c.totals.kernel) },
  { doc: R, sentence: "0 of 62 inside the kernel with 4 KB pages, 26 at the return from a page fault", figure: "62", record: MNT, field: "none/4k/off totals.kernel + totals.atReturn", value: noneCell((c) => c.totals.kernel + c.totals.atReturn) },
  { doc: R, sentence: "0 of 62 inside the kernel with 4 KB pages, 26 at the return from a page fault", figure: "26", record: MNT, field: "none/4k/off totals.returnFault", value: noneCell((c) => c.totals.returnFault) },
  { doc: R, sentence: "in 4 of its 6 runs the trace", figure: "4 of", record: MNT, field: "rows with switchesWithoutStack > 0", value: (t) => (json(t) as { switchesWithoutStack: number }[]).filter((r) => r.switchesWithoutStack > 0).length },
  { doc: R, sentence: "in 4 of its 6 runs the trace", figure: "6 runs", record: MNT, field: "rows", value: (t) => (json(t) as unknown[]).length },
  // §8, the pooled PostgreSQL records: runs and runs per cell.
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "26 runs", record: PGR, alsoReads: PG_BOTH, field: "rows of the pooled PostgreSQL group", value: (_t, root) => mechPick(root).pg!.rows.length },
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "3 or", record: PGR, alsoReads: PG_BOTH, field: "min runs over summarisePgCells of the pooled group", value: pgCellRuns("min") },
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "or 4", record: PGR, alsoReads: PG_BOTH, field: "max runs over summarisePgCells of the pooled group", value: pgCellRuns("max") },
  { doc: R, sentence: "2 s runs; 26 runs, 3 or 4 in each of the 8 cells", figure: "the 8 cells", record: PGR, alsoReads: PG_BOTH, field: "cells of summarisePgCells of the pooled group", value: (_t, root) => summarisePgCells(mechPick(root).pg!.rows as PgFactorialRow[]).length },
  // §8, the plain-TCG contrast (accelContrastCells: sums over a cell's runs).
  { doc: R, sentence: "under `--accel tcg` (no instruction counting: guest time is host time), 2 blocks, 16 runs", figure: "16 runs", record: MT, field: "rows", value: (t) => (json(t) as unknown[]).length },
  { doc: R, sentence: "under `--accel tcg` (no instruction counting: guest time is host time), 2 blocks, 16 runs", figure: "2 blocks", record: MT, field: "max block", value: (t) => Math.max(...(json(t) as { block: number }[]).map((r) => r.block)) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "82 → 72", record: MT, field: "tcg full/4k/off atReturn", value: contrast("tcg", "full/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "→ 72", record: MT, field: "tcg full/4k/on atReturn", value: contrast("tcg", "full/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "82 → 100", record: MT, field: "tcg lazy/4k/off atReturn", value: contrast("tcg", "lazy/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "preemptions at the return went 82 → 72 (full) and 82 → 100 (lazy) under plain TCG", figure: "→ 100", record: MT, field: "tcg lazy/4k/on atReturn", value: contrast("tcg", "lazy/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "645", record: M1, field: "icount full/4k/off atReturn", value: contrast("icount", "full/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "→ 5", record: M1, field: "icount full/4k/on atReturn", value: contrast("icount", "full/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "642", record: M1, field: "icount lazy/4k/off atReturn", value: contrast("icount", "lazy/4k/off", (c) => c.atReturn) },
  { doc: R, sentence: "against 645 → 5 and 642 → 7 under icount", figure: "→ 7", record: M1, field: "icount lazy/4k/on atReturn", value: contrast("icount", "lazy/4k/on", (c) => c.atReturn) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "made 84", record: MT, field: "tcg full/4k/on grants", value: contrast("tcg", "full/4k/on", (c) => c.grants) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "108 (lazy)", record: MT, field: "tcg lazy/4k/on grants", value: contrast("tcg", "lazy/4k/on", (c) => c.grants) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "grants, 84", record: MT, field: "tcg full/4k/on revoked", value: contrast("tcg", "full/4k/on", (c) => c.revoked) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "108 of them", record: MT, field: "tcg lazy/4k/on revoked", value: contrast("tcg", "lazy/4k/on", (c) => c.revoked) },
  { doc: R, sentence: "plain TCG's kernel made 84 (full) and 108 (lazy) grants, 84 and 108 of them revoked, and they covered 0 holds", figure: "0 holds", record: MT, field: "tcg covered, full/4k/on + lazy/4k/on", value: (t, root) => contrast("tcg", "full/4k/on", (c) => c.covered)(t, root) + contrast("tcg", "lazy/4k/on", (c) => c.covered)(t, root) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "937", record: M1, field: "icount full/4k/on grants", value: contrast("icount", "full/4k/on", (c) => c.grants) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "919", record: M1, field: "icount lazy/4k/on grants", value: contrast("icount", "lazy/4k/on", (c) => c.grants) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "covered 926", record: M1, field: "icount full/4k/on covered", value: contrast("icount", "full/4k/on", (c) => c.covered) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "910 holds", record: M1, field: "icount lazy/4k/on covered", value: contrast("icount", "lazy/4k/on", (c) => c.covered) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "(926", record: M1, field: "icount full/4k/on yields", value: contrast("icount", "full/4k/on", (c) => c.yields) },
  { doc: R, sentence: "while icount's 937 and 919 grants covered 926 and 910 holds (926 and 910 ended by the holder's yield)", figure: "910 ended", record: M1, field: "icount lazy/4k/on yields", value: contrast("icount", "lazy/4k/on", (c) => c.yields) },
  ...([
    ["135.00", "tcg", "full/4k/off"], ["134.91", "tcg", "full/4k/on"], ["133.70", "tcg", "lazy/4k/off"], ["133.20", "tcg", "lazy/4k/on"],
  ] as const).map(([figure, accel, cell]): FigureEntry => ({
    doc: R, sentence: "long holds (≥ 10 µs) per 1,000 holds went 135.00 → 134.91 (full) and 133.70 → 133.20 (lazy) under plain TCG", figure, record: MT,
    field: `${accel} ${cell} longHoldsPer1k.mean`, value: contrast(accel, cell, (c) => c.longHoldsPer1k.mean),
  })),
  ...([
    ["5.73", "full/4k/off"], ["2.62", "full/4k/on"], ["5.49", "lazy/4k/off"], ["2.81", "lazy/4k/on"],
  ] as const).map(([figure, cell]): FigureEntry => ({
    doc: R, sentence: "5.73 → 2.62 and 5.49 → 2.81 under icount", figure, record: M1, field: `icount ${cell} longHoldsPer1k.mean`, value: contrast("icount", cell, (c) => c.longHoldsPer1k.mean),
  })),
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "49 %", record: MT, field: "full/4k/off inKernelShare.mean × 100", value: tcgCell("full/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "(46", record: MT, field: "full/4k/off inKernelShare.lo × 100", value: tcgCell("full/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "–53)", record: MT, field: "full/4k/off inKernelShare.hi × 100", value: tcgCell("full/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "45 %", record: MT, field: "lazy/4k/off inKernelShare.mean × 100", value: tcgCell("lazy/4k/off", (c) => pct("mean")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "(45", record: MT, field: "lazy/4k/off inKernelShare.lo × 100", value: tcgCell("lazy/4k/off", (c) => pct("lo")(c.inKernelShare)) },
  { doc: R, sentence: "extension off, 49 % (46–53) (full) and 45 % (45–46) (lazy) of plain TCG's holder preemptions", figure: "–46)", record: MT, field: "lazy/4k/off inKernelShare.hi × 100", value: tcgCell("lazy/4k/off", (c) => pct("hi")(c.inKernelShare)) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "(79", record: MT, field: "full/4k/off totals.kernel", value: tcgCell("full/4k/off", (c) => c.totals.kernel) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "68 preemptions", record: MT, field: "lazy/4k/off totals.kernel", value: tcgCell("lazy/4k/off", (c) => c.totals.kernel) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "preemptions, 79", record: MT, field: "full/4k/off totals.kernelFault", value: tcgCell("full/4k/off", (c) => c.totals.kernelFault) },
  { doc: R, sentence: "inside the kernel (79 and 68 preemptions, 79 and 68 of them in the page fault)", figure: "68 of them", record: MT, field: "lazy/4k/off totals.kernelFault", value: tcgCell("lazy/4k/off", (c) => c.totals.kernelFault) },
  // §8, the model against the emulator (issue 26).
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "11 of", record: MSW, field: "full cells whose prediction lies in the observed interval (sweepCells, HZ 1000)", value: sweepCount("full", "agree") },
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "of 12", record: MSW, field: "full cells with a prediction and a preemption", value: sweepCount("full", "decided") },
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "581", record: MSW, field: "full: Σ in-kernel holder preemptions", value: sweepCount("full", "kernel") },
  { doc: R, sentence: "Wilson 95 % interval in 11 of 12 cells (581 of 1584 holder preemptions in the kernel)", figure: "1584", record: MSW, field: "full: Σ holder preemptions (in kernel + at return)", value: sweepCount("full", "preempted") },
  { doc: R, sentence: "(the source reading), in 0 of 12 cells", figure: "0 of", record: MSW, field: "lazy cells whose prediction (φ = 0) lies in the observed interval", value: sweepCount("lazy", "agree") },
  { doc: R, sentence: "(the source reading), in 0 of 12 cells", figure: "of 12", record: MSW, field: "lazy cells with a prediction and a preemption", value: sweepCount("lazy", "decided") },
  { doc: R, sentence: "fitted over its cells, is 0.94", figure: "0.94", record: MSW, field: "fullShareFit over lazy's cells", value: (t) => fullShareFit(sweepAt1000(t))! },
  { doc: R, sentence: "factorial has 69 of 84 planned runs with a row; the 15 without one", figure: "69 of", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "Σ rows over the pooled icount group's cells (cellCompleteness)", value: completeness("vm", (cs) => cs.reduce((a, c) => a + c.rows, 0)) },
  { doc: R, sentence: "factorial has 69 of 84 planned runs with a row; the 15 without one", figure: "84", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "Σ planned runs of the pooled icount group", value: completeness("vm", (cs) => cs.reduce((a, c) => a + c.planned, 0)) },
  { doc: R, sentence: "factorial has 69 of 84 planned runs with a row; the 15 without one", figure: "15", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "lost runs (planned, no row) of the pooled icount group", value: completeness("vm", (cs) => cs.reduce((a, c) => a + c.lost.length, 0)) },
  { doc: R, sentence: "every one of its 12 cells has at least its design's 3 runs (fewest 4)", figure: "12 cells", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "complete cells of the pooled icount group", value: completeness("vm", (cs) => cs.filter((c) => c.complete).length) },
  { doc: R, sentence: "every one of its 12 cells has at least its design's 3 runs (fewest 4)", figure: "3 runs", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "largest design count per cell", value: completeness("vm", (cs) => Math.max(...cs.map((c) => c.design))) },
  { doc: R, sentence: "every one of its 12 cells has at least its design's 3 runs (fewest 4)", figure: "fewest 4", record: MECH_VM_PROV[2]!, alsoReads: MECH_VM_PROV, field: "fewest rows in a cell", value: completeness("vm", (cs) => Math.min(...cs.map((c) => c.rows))) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "26 of", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "Σ rows of the pooled PostgreSQL group", value: completeness("pg", (cs) => cs.reduce((a, c) => a + c.rows, 0)) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "40", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "Σ planned runs of the pooled PostgreSQL group", value: completeness("pg", (cs) => cs.reduce((a, c) => a + c.planned, 0)) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "8 cells", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "complete cells of the pooled PostgreSQL group", value: completeness("pg", (cs) => cs.filter((c) => c.complete).length) },
  { doc: R, sentence: "the PostgreSQL factorial has 26 of 40, every one of its 8 cells at least 3", figure: "least 3", record: MECH_PG_PROV[0]!, alsoReads: MECH_PG_PROV, field: "fewest rows in a PostgreSQL cell", value: completeness("pg", (cs) => Math.min(...cs.map((c) => c.rows))) },
  { doc: R, sentence: "the host's load was 22.53 at the start", figure: "22.53", record: `${MV4}/record.json`, field: "concurrent: the first load average at the start", value: (t) => loadAtStartOf((json(t) as { concurrent: unknown }).concurrent)! },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "28", record: `${MV4}/out/rows.json`, field: "Σ holder preemptions, 4k/off", value: tcg4(null, (r) => r.reduce((a, x) => a + x.preemptions, 0)) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "4 runs", record: `${MV4}/out/rows.json`, field: "runs, 4k/off", value: tcg4(null, (r) => r.reduce((a, x) => a + x.runs, 0)) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "3 of", record: `${MV4}/out/rows.json`, field: "full: in-kernel holder preemptions", value: tcg4("full", (r) => r[0]!.inKernel) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "of 6", record: `${MV4}/out/rows.json`, field: "full: holder preemptions", value: tcg4("full", (r) => r[0]!.preemptions) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "10 of", record: `${MV4}/out/rows.json`, field: "lazy: in-kernel holder preemptions", value: tcg4("lazy", (r) => r[0]!.inKernel) },
  { doc: R, sentence: "28 holder preemptions in 4 runs, 3 of 6 in the kernel under full and 10 of 22 under lazy", figure: "of 22", record: `${MV4}/out/rows.json`, field: "lazy: holder preemptions", value: tcg4("lazy", (r) => r[0]!.preemptions) },
  { doc: R, sentence: "with the guest idle 75–94 % of vCPU time", figure: "75", record: `${MV4}/out/rows.json`, field: "least idlePct of the 4k/off runs", value: tcg4(null, (r) => Math.min(...r.map((x) => x.idleMin!))) },
  { doc: R, sentence: "with the guest idle 75–94 % of vCPU time", figure: "94", record: `${MV4}/out/rows.json`, field: "largest idlePct of the 4k/off runs", value: tcg4(null, (r) => Math.max(...r.map((x) => x.idleMax!))) },
];
