/**
 * What the mechanism records (data/runs/mechanism-2026/*) say about the 2026 claims, pooled the way
 * notebook 07 pools them (src/analysis/mechanism-records.ts): the 7.2 micro-benchmark factorial under
 * instruction-counted TCG (in-kernel share of holder preemptions, the extension's coverage, what it
 * changes at the return and inside the kernel, huge pages, pre-faulting), the plain-TCG contrast (the
 * same cells with guest time = host time), and the PostgreSQL 18 factorial (faults inside spin-style
 * holds with and without huge pages). Every number of the ledger's 2026 reasons comes from here.
 */
import { join } from "node:path";
import { accelContrastCells, extensionEffect, summariseCells, type CellSummary, type ContrastCell, type ContrastRow, type FactorialRow, type Interval } from "../analysis/mechanism.js";
import { loadMechanismGroups, pickMechanismGroups, type MechRecordGroup } from "../analysis/mechanism-records.js";
import { pgPooledRate, pgTraced, type PgFactorialRow } from "../analysis/mechanism-pg.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { recordDir } from "./records.js";

export const MECHANISM_DIR = "mechanism-2026";

/** One mode's micro-benchmark evidence under one accel (4 KB pages unless named). */
export interface MicroModeEvidence {
  mode: string;
  /** Extension off: in-kernel share of holder preemptions (bootstrap over runs), and the counts it is made of. */
  inKernelShare: Interval;
  kernel: number;
  /** Of `kernel`, those inside a page fault. */
  kernelFault: number;
  atReturn: number;
  /** Extension off, 4 KB pages: in-kernel preemptions per 1,000 holds. */
  kernel4k: Interval;
  /** Extension on: share of the holds the kernel wanted to preempt that a grant covered. */
  coveredFraction: Interval;
  /** on − off per 1,000 holds (Welch 95 %). */
  atReturnChange: Interval;
  kernelChange: Interval;
  /** Extension off, per 1,000 holds: faults under lock and in-kernel preemptions with 4 KB pages, hugetlb, pre-faulted (null when not run). */
  faults4k: Interval;
  faultsHugetlb: Interval | null;
  faultsPrefault: Interval | null;
  kernelHugetlb: Interval | null;
  kernelPrefault: Interval | null;
}

/** The contrast of one mode, 4 KB pages, extension on: kernel grants and how they ended, holds covered, per accel. */
export interface GrantContrast {
  mode: string;
  icount: Pick<ContrastCell, "runs" | "grants" | "yields" | "expired" | "revoked" | "covered">;
  tcg: Pick<ContrastCell, "runs" | "grants" | "yields" | "expired" | "revoked" | "covered">;
  /** Plain TCG's covered fraction (extension on), bootstrap over runs. */
  tcgCoveredFraction: Interval;
}

/** PostgreSQL 18 (diag build): minor faults inside spin-style holds per 1e6 holds, both extension arms pooled, and traced holder preemptions (huge_pages off). */
export interface PgModeEvidence {
  mode: string;
  faultsOff: Interval;
  faultsOn: Interval;
  /** Runs with huge_pages = on whose server reported huge_pages_status = on, of all such runs. */
  hugePagesOnRuns: number;
  hugePagesRuns: number;
  tracedKernel: number;
  tracedAtReturn: number;
}

export interface MechanismEvidence {
  /** data/runs/… of each record used, checked to exist. */
  icountRecords: string[];
  tcgRecords: string[];
  pgRecords: string[];
  icount: { kernelRelease: string; cpus: number; runs: number; modes: MicroModeEvidence[] };
  tcg: { runs: number; contrasts: GrantContrast[] };
  pg: { kernelRelease: string; runs: number; modes: PgModeEvidence[] };
}

function cell(cells: readonly CellSummary[], mode: string, pages: string, extension: string): CellSummary | undefined {
  return cells.find((c) => c.mode === mode && c.pages === pages && c.extension === extension);
}

function records(g: MechRecordGroup): string[] {
  return g.paths.map((p) => recordDir(p.replace(/^data\/runs\//, "")));
}

/** The mechanism evidence of data/runs/mechanism-2026 (or `root`), or a UserError naming what is missing. */
export function mechanismEvidence(root = join(repoRoot(), "data/runs", MECHANISM_DIR)): MechanismEvidence {
  const pick = pickMechanismGroups(loadMechanismGroups(root));
  const where = `data/runs/${MECHANISM_DIR}`;
  if (!pick.vm) throw new UserError(`${where}: expected a 7.x micro-benchmark factorial under tcg-icount, found none`);
  if (!pick.pg) throw new UserError(`${where}: expected a PostgreSQL mechanism record (mechanism run --pg), found none`);
  const vmRows = pick.vm.rows as FactorialRow[];
  const cells = summariseCells(vmRows);
  const modes = [...new Set(vmRows.map((r) => r.mode))].sort();
  const micro: MicroModeEvidence[] = [];
  for (const mode of modes) {
    const off = cell(cells, mode, "4k", "off");
    const on = cell(cells, mode, "4k", "on");
    if (!off || !on) continue;
    const huge = cell(cells, mode, "hugetlb", "off");
    const pre = cell(cells, mode, "4k-prefault", "off");
    micro.push({
      mode,
      inKernelShare: off.inKernelShare,
      kernel: off.totals.kernel,
      kernelFault: off.totals.kernelFault,
      atReturn: off.totals.atReturn,
      kernel4k: off.rates.kernel,
      coveredFraction: on.coveredFraction,
      atReturnChange: extensionEffect(vmRows, mode, "4k", "atReturn"),
      kernelChange: extensionEffect(vmRows, mode, "4k", "kernel"),
      faults4k: off.rates.faultsUnderLock,
      faultsHugetlb: huge?.rates.faultsUnderLock ?? null,
      faultsPrefault: pre?.rates.faultsUnderLock ?? null,
      kernelHugetlb: huge?.rates.kernel ?? null,
      kernelPrefault: pre?.rates.kernel ?? null,
    });
  }
  if (micro.length === 0) throw new UserError(`${where}: the tcg-icount factorial (${pick.vm.name}) has no mode with both 4k extension arms`);
  // The plain-TCG contrast: the tcg groups of the same kernel, pooled (notebook 07 shows each; here one figure per mode).
  const tcgRows = pick.tcg.flatMap((g) => g.rows as ContrastRow[]);
  const contrastCells = tcgRows.length > 0 ? accelContrastCells([{ label: "icount", rows: vmRows as ContrastRow[] }, { label: "tcg", rows: tcgRows }]) : [];
  const tcgCells = summariseCells(tcgRows);
  const contrasts: GrantContrast[] = [];
  for (const mode of modes) {
    const i = contrastCells.find((c) => c.label === "icount" && c.cell === `${mode}/4k/on`);
    const t = contrastCells.find((c) => c.label === "tcg" && c.cell === `${mode}/4k/on`);
    const tc = cell(tcgCells, mode, "4k", "on");
    if (!i || !t || !tc) continue;
    const part = (c: ContrastCell) => ({ runs: c.runs, grants: c.grants, yields: c.yields, expired: c.expired, revoked: c.revoked, covered: c.covered });
    contrasts.push({ mode, icount: part(i), tcg: part(t), tcgCoveredFraction: tc.coveredFraction });
  }
  const pgRows = pick.pg.rows as PgFactorialRow[];
  const pgModes = [...new Set(pgRows.map((r) => r.mode))].sort();
  const pg: PgModeEvidence[] = pgModes.map((mode) => {
    const onRows = pgRows.filter((r) => r.mode === mode && r.hugePages === "on");
    const traced = pgTraced(pgRows, { mode, hugePages: "off" });
    return {
      mode,
      faultsOff: pgPooledRate(pgRows, { mode, hugePages: "off" }, "faults"),
      faultsOn: pgPooledRate(pgRows, { mode, hugePages: "on" }, "faults"),
      hugePagesOnRuns: onRows.filter((r) => r.hugePagesStatus === "on").length,
      hugePagesRuns: onRows.length,
      tracedKernel: traced.kernel,
      tracedAtReturn: traced.atReturn,
    };
  });
  return {
    icountRecords: records(pick.vm),
    tcgRecords: pick.tcg.flatMap(records),
    pgRecords: records(pick.pg),
    icount: { kernelRelease: pick.vm.kernelRelease, cpus: pick.vm.cpus, runs: vmRows.length, modes: micro },
    tcg: { runs: tcgRows.length, contrasts },
    pg: { kernelRelease: pick.pg.kernelRelease, runs: pgRows.length, modes: pg },
  };
}
