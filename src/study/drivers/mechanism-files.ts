/**
 * The files of a micro mechanism record: rows.json and rows.csv (one row per run, the CSV's columns
 * from one list), provenance.json (the command, times, loads, design, VM and kernel), and what the
 * analysis makes of the rows (cells.json, predictions.json, answer.txt). `mechanism run`, the
 * mechanism-micro and mechanism-pg study drivers and `slicelab import` write through here (the
 * PostgreSQL record's files too: rows, provenance, cells.json and answer.txt).
 */
import { existsSync, mkdirSync } from "node:fs";
import { UserError } from "../../util/errors.js";
import { readJson } from "../../util/json.js";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/fs.js";
import { answerSentence, summariseCells } from "../../analysis/mechanism.js";
import { pgAnswerSentence, summarisePgCells } from "../../analysis/mechanism-pg.js";
import { evaluatePredictions } from "../../analysis/mechanism-predictions.js";
import { kitInfo, hostInfo } from "../../record/provenance.js";
import { rowsCsv, writeMechanismEnvelope, type MechanismRow, type MechanismRun, type RunContext } from "../../drivers/mechanism/index.js";
import { pgRowsCsv, writePgWaitEvidence, type PgMechanismRow, type PgMechanismRun } from "../../drivers/mechanism-pg/run.js";
import type { BuildRecord as KernelBuildRecord } from "../../kernel/build.js";

export { CSV_FIELDS, rowsCsv } from "../../drivers/mechanism/index.js";
export { pgRowsCsv } from "../../drivers/mechanism-pg/run.js";

/** Writes cells, predictions and the answer computed from the rows into DIR. */
export function writeAnalysis(dir: string, rows: readonly MechanismRow[], o: { where?: string } = {}): { answer: string } {
  const cells = summariseCells(rows);
  writeFileAtomic(join(dir, "cells.json"), `${JSON.stringify(cells, null, 2)}\n`);
  writeFileAtomic(join(dir, "predictions.json"), `${JSON.stringify(evaluatePredictions(rows), null, 2)}\n`);
  const answer = answerSentence(rows, cells, o);
  writeFileAtomic(join(dir, "answer.txt"), `${answer}\n`);
  return { answer };
}

/** What both mechanism runners' records share: the run's command, times, loads and design, the VM and the kernel. */
export function runHead(
  ctx: RunContext,
  r: { vm: unknown; kernelRelease: unknown; guest: { configSha256?: unknown } },
  o: { kernel: string; rec?: Pick<KernelBuildRecord, "version" | "bzImageSha256" | "configSha256"> },
) {
  return {
    command: ctx.command,
    started: ctx.started,
    ended: ctx.ended,
    loadStart: ctx.loadStart,
    loadEnd: ctx.loadEnd,
    design: ctx.design,
    vm: r.vm,
    kernel: { release: r.kernelRelease, bzImage: o.kernel, build: o.rec ? { version: o.rec.version, bzImageSha256: o.rec.bzImageSha256, configSha256: o.rec.configSha256 } : null, guestConfigSha256: r.guest.configSha256 },
  };
}

/** Writes a run's rows (JSON and CSV) and its provenance into DIR. */
export function writeRunFiles(dir: string, rows: unknown, csv: string, provenance: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(join(dir, "rows.json"), `${JSON.stringify(rows, null, 2)}\n`);
  writeFileAtomic(join(dir, "rows.csv"), csv);
  writeFileAtomic(join(dir, "provenance.json"), `${JSON.stringify(provenance, null, 2)}\n`);
}

/**
 * Writes a micro mechanism record into DIR: rows.json, rows.csv, provenance.json
 * (with the command, times, loads and design of the run), cells, predictions and
 * the answer, then record.json (study dipietro-2026).
 */
export function writeMicroRecord(
  dir: string,
  r: MechanismRun,
  ctx: RunContext,
  o: { host: boolean; accel: string; kernel: string; rec?: Pick<KernelBuildRecord, "version" | "bzImageSha256" | "configSha256"> },
): { answer: string } {
  const res = writeMicroFiles(dir, r, ctx, o);
  writeMechanismEnvelope(dir);
  return res;
}

/** The micro record's files without the envelope (the mechanism-micro study driver writes these into out/; the study runner writes the envelope). */
export function writeMicroFiles(
  dir: string,
  r: MechanismRun,
  ctx: RunContext,
  o: { host: boolean; accel: string; kernel: string; rec?: Pick<KernelBuildRecord, "version" | "bzImageSha256" | "configSha256"> },
): { answer: string } {
  writeRunFiles(dir, r.rows, rowsCsv(r.rows), {
    what: "mechanism factorial (issue 14): micro-benchmark --fault-in-cs in the VM, holder deschedulings classified from sched_switch kernel stacks",
    evidence: o.host ? "this machine's kernel (no VM; a shared host: other jobs ran too)" : o.accel === "kvm" ? "KVM guest" : "TCG functional evidence: counts of where preemptions land; times are emulated",
    ...runHead(ctx, r, o),
    guest: r.guest,
    shape: r.shape,
    plan: r.plan,
    failed: r.failed,
    micro: r.micro,
    rawDir: r.rawDir,
    kit: kitInfo(),
    host: hostInfo(),
  });
  return writeAnalysis(dir, r.rows);
}


/** Writes cells.json and answer.txt of a PostgreSQL record computed from its rows. */
export function writePgAnalysis(dir: string, rows: readonly PgMechanismRow[]): { answer: string } {
  const cells = summarisePgCells(rows);
  writeFileAtomic(join(dir, "cells.json"), `${JSON.stringify(cells, null, 2)}\n`);
  const answer = pgAnswerSentence(rows, cells);
  writeFileAtomic(join(dir, "answer.txt"), `${answer}\n`);
  return { answer };
}

/** The PostgreSQL record's files without the envelope: rows, provenance (the run's command, times and design), cells, answer. */
export function writePgFiles(
  dir: string,
  r: PgMechanismRun,
  ctx: RunContext,
  o: { accel: string; kernel: string; rec?: Pick<KernelBuildRecord, "version" | "bzImageSha256" | "configSha256">; bin: string; build: unknown },
): { answer: string } {
  writeRunFiles(dir, r.rows, pgRowsCsv(r.rows), {
    what: "mechanism factorial (issue 14) on PostgreSQL 18, diag build: faults and involuntary switches inside spin-style lock holds (getrusage), preempted holders classified from sched_switch kernel stacks",
    evidence: o.accel === "kvm" ? "KVM guest" : "TCG functional evidence: counts; times and tps are emulated, and the diag build's two getrusage calls per hold slow the server",
    ...runHead(ctx, r, o),
    postgres: { bin: o.bin, build: o.build },
    guest: r.guest,
    shape: r.shape,
    onSetting: r.onSetting,
    plan: r.plan,
    failed: r.failed,
    rawDir: r.rawDir,
    kit: kitInfo(),
    host: hostInfo(),
  });
  const res = writePgAnalysis(dir, r.rows);
  if (r.rows.some((x) => typeof x.endedHolds === "number")) writePgWaitEvidence(dir);
  return res;
}

/**
 * `slicelab mechanism wait-evidence DIR`: the v3 diag build's armed-wait and wakeup-stall files of a
 * PostgreSQL mechanism record, copied into it and matched with the trace (src/drivers/mechanism-pg/);
 * a study record's files are in DIR/out/, an older record's envelope is rewritten.
 */
export function pgWaitEvidence(dir: string): ReturnType<typeof writePgWaitEvidence> {
  const study = existsSync(join(dir, "out", "provenance.json"));
  const runs = writePgWaitEvidence(study ? join(dir, "out") : dir);
  if (!study) writeMechanismEnvelope(dir);
  return runs;
}

/** Writes a PostgreSQL mechanism record into DIR, then record.json. */
export function writePgRecord(dir: string, r: PgMechanismRun, ctx: RunContext, o: Parameters<typeof writePgFiles>[3]): { answer: string } {
  const res = writePgFiles(dir, r, ctx, o);
  writeMechanismEnvelope(dir);
  return res;
}

/**
 * `slicelab mechanism analyse DIR`: cells, predictions (micro) and the answer again from the rows of
 * a mechanism record, micro or PostgreSQL. A study record (mechanism-micro, mechanism-pg: the rows in
 * DIR/out/) is analysed in out/ (its record.json is the study runner's: `study analyze DIR`); an
 * older record (rows.json in DIR) gets its record.json rewritten from its provenance.json.
 */
export function analyseMechanismRecord(dir: string): { dir: string; rows: number; answer: string } {
  const study = existsSync(join(dir, "out", "rows.json"));
  const files = study ? join(dir, "out") : dir;
  const p = join(files, "rows.json");
  if (!existsSync(p)) throw new UserError(`${p}: no such file (expected a record written by \`slicelab mechanism run\` or \`slicelab study run mechanism-micro\`/\`mechanism-pg\`)`);
  const rows = readJson(p) as unknown;
  if (!Array.isArray(rows)) throw new UserError(`${p}: expected an array of rows`);
  const pg = rows.length > 0 && typeof rows[0] === "object" && rows[0] !== null && "hugePages" in rows[0];
  const { answer } = pg ? writePgAnalysis(files, rows as PgMechanismRow[]) : writeAnalysis(files, rows as MechanismRow[]);
  if (!study) writeMechanismEnvelope(dir);
  return { dir, rows: rows.length, answer };
}
