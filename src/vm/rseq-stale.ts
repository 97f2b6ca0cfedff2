/**
 * The stale slice work bit (issue 27, item 1): the reproducer src/vm/rseq-stale-slice.c, built
 * static on the host (the guest sees the host's root), run inside the kit's VM with rseq
 * debugging on and off, on the unfixed 7.2 kernel and on the one with
 * kernel-patches/linux/series/rseq-slice-stale-work applied.
 *
 * What a run says is decided here, by tested rules: `runVerdict` (one run: killed, survived,
 * not exercised, hung, error) and `overallVerdict` (the record: killed before the fix and
 * survives after, or not).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { shQuote } from "./guest-init.js";
import { compileCached, type CompiledProgram } from "../micro/compile.js";

export const STALE_SERIES = "rseq-slice-stale-work";

export function staleSeriesDir(): string {
  return join(repoRoot(), "kernel-patches", "linux", "series", STALE_SERIES);
}

export function reproducerSource(): string {
  return join(repoRoot(), "src", "vm", "rseq-stale-slice.c");
}

/** Compiles the reproducer (static when the C library allows; once per source hash). */
export async function buildReproducer(): Promise<CompiledProgram> {
  return compileCached(reproducerSource(), { dir: "micro", name: "rseq-stale-slice" });
}

/** The reproducer's JSON line. */
export interface StaleRun {
  kernelRelease: string;
  /** debugfs rseq/debug as the program read it at its start (-1: unreadable). */
  rseqDebug: number;
  consume: boolean;
  iterationsAsked: number;
  verdict: "survived" | "killed" | "hung" | "error";
  signal: number;
  signalName: string;
  exitCode: number;
  setup: number;
  setupError: string;
  registration: string;
  phase: string;
  iterations: number;
  grants: number;
  revokes: number;
  staleCalls: number;
  consumed: number;
  regranted: number;
  rerequests: number;
  yields: number;
  elapsedMs: number;
  /** rseq/stats differences over the run (null when debugfs was unreadable). */
  stats: Record<string, number> | null;
}

const NUMBER_FIELDS = ["rseqDebug", "iterationsAsked", "signal", "exitCode", "setup", "iterations", "grants", "revokes", "staleCalls", "consumed", "regranted", "rerequests", "yields", "elapsedMs"] as const;
const STRING_FIELDS = ["kernelRelease", "signalName", "setupError", "registration", "phase"] as const;
const VERDICTS = ["survived", "killed", "hung", "error"] as const;

/** Parses the reproducer's output: exactly one JSON line of tool "rseq-stale-slice". */
export function parseStaleOutput(text: string, file = "rseq-stale-slice output"): StaleRun {
  const lines = text.split("\n");
  const idx = lines.findIndex((l) => l.startsWith('{"tool":"rseq-stale-slice"'));
  if (idx < 0) throw new ParseError(file, 1, 'a line starting {"tool":"rseq-stale-slice"', lines[0]?.trim() ? JSON.stringify(lines[0].slice(0, 80)) : "no output");
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(lines[idx]!) as Record<string, unknown>;
  } catch (err) {
    throw new ParseError(file, idx + 1, "one JSON object", `invalid JSON (${(err as Error).message})`);
  }
  for (const k of NUMBER_FIELDS) if (typeof o[k] !== "number" || !Number.isFinite(o[k])) throw new ParseError(file, idx + 1, `a number in "${k}"`, JSON.stringify(o[k]));
  for (const k of STRING_FIELDS) if (typeof o[k] !== "string") throw new ParseError(file, idx + 1, `a string in "${k}"`, JSON.stringify(o[k]));
  if (typeof o.consume !== "boolean") throw new ParseError(file, idx + 1, 'a boolean in "consume"', JSON.stringify(o.consume));
  if (!(VERDICTS as readonly unknown[]).includes(o.verdict)) throw new ParseError(file, idx + 1, `"verdict" one of ${VERDICTS.join(", ")}`, JSON.stringify(o.verdict));
  if (o.stats !== null && (typeof o.stats !== "object" || Object.values(o.stats as object).some((v) => typeof v !== "number"))) {
    throw new ParseError(file, idx + 1, '"stats" null or an object of numbers', JSON.stringify(o.stats));
  }
  const { tool: _tool, ...rest } = o;
  return rest as unknown as StaleRun;
}

export type RunOutcome = "killed" | "survived" | "not exercised" | "hung" | "error";

/**
 * One run's outcome, from its JSON line and the exit status the shell saw.
 *   killed: the worker died of SIGSEGV in its syscall after a revoke (phase stale-syscall), and the
 *     status says 139;
 *   survived: every iteration done, at least one grant revoked and one syscall made after it, status 0;
 *   not exercised: it survived but no grant was ever revoked (nothing was tested);
 *   hung: the program's own timeout; error: anything else (setup failed, another signal or place,
 *     output and status disagree).
 */
export function runVerdict(run: StaleRun | null, exitStatus: number | null): { outcome: RunOutcome; reason: string } {
  if (!run) return { outcome: "error", reason: `no JSON line (exit status ${exitStatus ?? "none"})` };
  const counts = `${run.grants} grants, ${run.revokes} revokes, ${run.staleCalls} syscalls after a revoke, ${run.iterations}/${run.iterationsAsked} iterations`;
  if (run.verdict === "killed") {
    if (exitStatus !== 128 + run.signal) return { outcome: "error", reason: `the program says killed by signal ${run.signal}, the shell saw exit status ${exitStatus ?? "none"}` };
    if (run.signal !== 11) return { outcome: "error", reason: `killed by signal ${run.signal} (${run.signalName}), not SIGSEGV, in phase ${run.phase}; ${counts}` };
    if (run.phase !== "stale-syscall") return { outcome: "error", reason: `killed by SIGSEGV in phase ${run.phase}, not at the syscall after a revoke; ${counts}` };
    return { outcome: "killed", reason: `SIGSEGV at the syscall after revoke ${run.revokes}; ${counts}` };
  }
  if (run.verdict === "hung") return { outcome: "hung", reason: `no progress before the timeout, in phase ${run.phase}; ${counts}` };
  if (run.verdict === "error") return { outcome: "error", reason: run.setupError ? `setup failed: ${run.setupError}` : `worker exited ${run.exitCode}; ${counts}` };
  if (exitStatus !== 0) return { outcome: "error", reason: `the program says survived, the shell saw exit status ${exitStatus ?? "none"}` };
  if (run.revokes < 1 || run.staleCalls < 1) return { outcome: "not exercised", reason: `no grant was revoked; ${counts}` };
  return { outcome: "survived", reason: counts };
}

/** The arms of one boot: rseq debugging from the command line (before any write), or written to debugfs. */
export const ARMS = ["cmdline", "debug0", "debug1", "debug1-consume"] as const;
export type Arm = (typeof ARMS)[number];

export function armDebug(arm: Arm): { debug: 0 | 1; source: "cmdline" | "debugfs"; consume: boolean } {
  if (arm === "cmdline") return { debug: 1, source: "cmdline", consume: false };
  return { debug: arm === "debug0" ? 0 : 1, source: "debugfs", consume: arm === "debug1-consume" };
}

/** The run names of one boot, in order: the command-line arm first (its runs precede any debugfs write), then the debugfs arms, reversed every other rep. */
export function bootOrder(arms: readonly Arm[], reps: number): { name: string; arm: Arm; rep: number }[] {
  const out: { name: string; arm: Arm; rep: number }[] = [];
  const rn = (r: number) => `r${String(r).padStart(2, "0")}`;
  if (arms.includes("cmdline")) for (let r = 1; r <= reps; r++) out.push({ name: `${rn(r)}-cmdline`, arm: "cmdline", rep: r });
  const rest = arms.filter((a) => a !== "cmdline");
  for (let r = 1; r <= reps; r++) for (const a of r % 2 === 1 ? rest : [...rest].reverse()) out.push({ name: `${rn(r)}-${a}`, arm: a, rep: r });
  return out;
}

/** The shell script of one boot (POSIX sh; runs as the guest's command, or in a guest already booted). */
export function bootScript(o: { binary: string; outDir: string; arms: readonly Arm[]; reps: number; iterations: number; timeoutS: number }): string {
  const L: string[] = [
    "# slicelab rseq-stale-slice runs (src/vm/rseq-stale.ts)",
    `OUT=${shQuote(o.outDir)}`,
    `BIN=${shQuote(o.binary)}`,
    "D=/sys/kernel/debug/rseq/debug",
    'cat /proc/cmdline > "$OUT/cmdline" 2>&1',
    'nproc > "$OUT/nproc" 2>&1',
    'uname -r > "$OUT/uname" 2>&1',
    'run() { n=$1; shift; cat "$D" > "$OUT/$n.debug" 2>&1; "$BIN" "$@" > "$OUT/$n.json" 2> "$OUT/$n.err"; echo $? > "$OUT/$n.rc"; }',
    'setdebug() { echo "$1" > "$D" 2> "$OUT/setdebug.err" || echo "rseq-stale: writing $1 to $D failed"; }',
  ];
  for (const r of bootOrder(o.arms, o.reps)) {
    const a = armDebug(r.arm);
    if (a.source === "debugfs") L.push(`setdebug ${a.debug}`);
    L.push(`run ${r.name} --iterations ${o.iterations} --timeout-s ${o.timeoutS}${a.consume ? " --consume" : ""}`);
  }
  L.push("exit 0");
  return `${L.join("\n")}\n`;
}

export interface StaleRow {
  boot: string;
  kernel: "unfixed" | "fixed" | "running";
  kernelRelease: string | null;
  accel: string;
  arm: Arm;
  debugSource: "cmdline" | "debugfs";
  /** rseq/debug as read before the run (the file), and by the program. */
  rseqDebugRead: number | null;
  consume: boolean;
  rep: number;
  exitStatus: number | null;
  outcome: RunOutcome;
  reason: string;
  signal: number | null;
  iterations: number | null;
  grants: number | null;
  revokes: number | null;
  staleCalls: number | null;
  stats: Record<string, number> | null;
}

/** Reads one boot's run files back into rows (missing or unparsable files become error rows). */
export function readBoot(dir: string, o: { boot: string; kernel: StaleRow["kernel"]; accel: string; arms: readonly Arm[]; reps: number }): StaleRow[] {
  const rows: StaleRow[] = [];
  for (const r of bootOrder(o.arms, o.reps)) {
    const a = armDebug(r.arm);
    const f = join(dir, `${r.name}.json`);
    const rcText = existsSync(join(dir, `${r.name}.rc`)) ? readFileSync(join(dir, `${r.name}.rc`), "utf8").trim() : "";
    const exitStatus = /^\d+$/.test(rcText) ? Number(rcText) : null;
    const dbgText = existsSync(join(dir, `${r.name}.debug`)) ? readFileSync(join(dir, `${r.name}.debug`), "utf8").trim() : "";
    let run: StaleRun | null = null;
    let parseError: string | null = null;
    if (existsSync(f)) {
      try {
        run = parseStaleOutput(readFileSync(f, "utf8"), f);
      } catch (err) {
        if (!(err instanceof ParseError)) throw err;
        parseError = err.message;
      }
    } else parseError = `${f}: missing (the run did not happen)`;
    const v = parseError ? { outcome: "error" as const, reason: parseError } : runVerdict(run, exitStatus);
    rows.push({
      boot: o.boot,
      kernel: o.kernel,
      kernelRelease: run?.kernelRelease ?? null,
      accel: o.accel,
      arm: r.arm,
      debugSource: a.source,
      rseqDebugRead: /^\d+$/.test(dbgText) ? Number(dbgText) : null,
      consume: a.consume,
      rep: r.rep,
      exitStatus,
      outcome: v.outcome,
      reason: v.reason,
      signal: run && run.signal ? run.signal : null,
      iterations: run?.iterations ?? null,
      grants: run?.grants ?? null,
      revokes: run?.revokes ?? null,
      staleCalls: run?.staleCalls ?? null,
      stats: run?.stats ?? null,
    });
  }
  return rows;
}

export interface StaleCell {
  name: string;
  kernel: StaleRow["kernel"];
  accel: string;
  arm: Arm;
  runs: number;
  killed: number;
  survived: number;
  notExercised: number;
  other: number;
  /** The program's own counts, summed over the cell's runs. */
  grants: number;
  revokes: number;
  staleCalls: number;
  /** rseq/stats differences summed over the runs that had them. */
  stats: Record<string, number>;
  /** Runs whose rseq/debug (read before the run) was not what the arm asked for. */
  debugMismatch: number;
}

export function cellsOf(rows: readonly StaleRow[]): StaleCell[] {
  const m = new Map<string, StaleCell>();
  for (const r of rows) {
    const name = `${r.kernel}/${r.accel}/${r.arm}`;
    let c = m.get(name);
    if (!c) {
      c = { name, kernel: r.kernel, accel: r.accel, arm: r.arm, runs: 0, killed: 0, survived: 0, notExercised: 0, other: 0, grants: 0, revokes: 0, staleCalls: 0, stats: {}, debugMismatch: 0 };
      m.set(name, c);
    }
    c.runs++;
    if (r.outcome === "killed") c.killed++;
    else if (r.outcome === "survived") c.survived++;
    else if (r.outcome === "not exercised") c.notExercised++;
    else c.other++;
    c.grants += r.grants ?? 0;
    c.revokes += r.revokes ?? 0;
    c.staleCalls += r.staleCalls ?? 0;
    for (const [k, v] of Object.entries(r.stats ?? {})) c.stats[k] = (c.stats[k] ?? 0) + v;
    if (r.rseqDebugRead !== armDebug(r.arm).debug) c.debugMismatch++;
  }
  return [...m.values()];
}

export interface OverallVerdict {
  verdict: string;
  reason: string;
}

/**
 * The record's verdict. "Debugging on" is the cmdline and debug1 arms; the controls are debug0 and
 * debug1-consume (a syscall with request = 0 between the revoke and the next request).
 *   killed before the fix, survives after: on the unfixed kernel some debugging-on run was killed,
 *     no debug0 run was, and every exercised debugging-on run on the fixed kernel survived (none killed);
 *   killed on the unfixed kernel (no fixed kernel run): the same without fixed-kernel runs;
 *   killed on the fixed kernel too; killed with debugging off too (the reading would be wrong);
 *   not killed: debugging-on runs were exercised on the unfixed kernel and none was killed;
 *   not exercised: no debugging-on run on the unfixed kernel saw a revoke.
 */
export function overallVerdict(rows: readonly StaleRow[]): OverallVerdict {
  const on = (r: StaleRow) => r.arm === "cmdline" || r.arm === "debug1";
  const pick = (k: StaleRow["kernel"][], f: (r: StaleRow) => boolean) => rows.filter((r) => k.includes(r.kernel) && f(r));
  const tally = (rs: StaleRow[]) => ({ n: rs.length, killed: rs.filter((r) => r.outcome === "killed").length, survived: rs.filter((r) => r.outcome === "survived").length });
  const uOn = tally(pick(["unfixed", "running"], on));
  const uOff = tally(pick(["unfixed", "running"], (r) => r.arm === "debug0"));
  const uCons = tally(pick(["unfixed", "running"], (r) => r.arm === "debug1-consume"));
  const fOn = tally(pick(["fixed"], on));
  const fOff = tally(pick(["fixed"], (r) => r.arm === "debug0" || r.arm === "debug1-consume"));
  const text = (t: { n: number; killed: number; survived: number }) => `${t.killed} killed, ${t.survived} survived of ${t.n}`;
  const reason =
    `unfixed kernel, debugging on: ${text(uOn)}; debugging off: ${text(uOff)}; on with a syscall at request 0 first: ${text(uCons)}` +
    (fOn.n + fOff.n > 0 ? `; fixed kernel, debugging on: ${text(fOn)}; controls: ${text(fOff)}` : "; no fixed-kernel runs");
  if (uOn.killed + uOn.survived === 0) return { verdict: "not exercised", reason };
  if (uOn.killed === 0) return { verdict: "not killed", reason };
  if (uOff.killed > 0) return { verdict: "killed with debugging off too", reason };
  if (fOn.n === 0) return { verdict: "killed on the unfixed kernel", reason };
  if (fOn.killed > 0 || fOff.killed > 0) return { verdict: "killed on the fixed kernel too", reason };
  if (fOn.survived === 0) return { verdict: "killed on the unfixed kernel; the fixed kernel not exercised", reason };
  return { verdict: "killed before the fix, survives after", reason };
}
