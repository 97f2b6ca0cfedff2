/**
 * A committed `perf lock` capture (test/fixtures/perf-lock/): the contention reports by caller and by
 * task, how long the recording ran (the `perf lock record -a … -- sleep N` line of capture.sh) and
 * how many CPUs the machine had (`nproc: N` of the machine file). Errors name the file and line.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError, quoteFound } from "../util/errors.js";
import { parsePerfLockContention, type PerfLockContention } from "./perf-lock.js";

export interface PerfLockCapture {
  byCaller: PerfLockContention;
  byTask: PerfLockContention;
  /** Seconds the recording ran (capture.sh's `-- sleep N`). */
  seconds: number;
  /** CPUs of the machine (`nproc: N`). */
  cpus: number;
  /** Σ total wait over the caller report, in seconds, and Σ contended. */
  totalWaitS: number;
  contentions: number;
}

/** The line number (1-based) and match of the first line matching `re`, or a ParseError naming what was expected. */
function findLine(text: string, file: string, re: RegExp, expected: string): RegExpExecArray {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = re.exec(lines[i]!);
    if (m) return m;
  }
  throw new ParseError(file, lines.length, expected, `no such line before the ${quoteFound(undefined)}`);
}

/** The record duration of a capture script: `perf lock record -a -o FILE -- sleep N`. */
export function recordSeconds(script: string, file: string): number {
  return Number(findLine(script, file, /perf lock record -a -o \S+ -- sleep (\d+(?:\.\d+)?)/, "a `perf lock record -a -o FILE -- sleep N` line")[1]);
}

/** `nproc: N` of a machine file. */
export function machineCpus(text: string, file: string): number {
  return Number(findLine(text, file, /^nproc: (\d+)$/, "an `nproc: N` line")[1]);
}

/** Reads a capture folder: the caller and task reports, capture.sh and the machine file. */
export function readPerfLockCapture(dir: string, o: { caller: string; task: string; script: string; machine: string }): PerfLockCapture {
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  const byCaller = parsePerfLockContention(read(o.caller), o.caller);
  const byTask = parsePerfLockContention(read(o.task), o.task);
  return {
    byCaller,
    byTask,
    seconds: recordSeconds(read(o.script), o.script),
    cpus: machineCpus(read(o.machine), o.machine),
    totalWaitS: byCaller.entries.reduce((s, e) => s + (e.waitTotalNs ?? 0), 0) / 1e9,
    contentions: byCaller.entries.reduce((s, e) => s + (e.contended ?? 0), 0),
  };
}
