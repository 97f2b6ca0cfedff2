/**
 * The patch's hook code in a C harness (src/postgres/harness/slice-ext-hooks.c):
 * a patch series is applied to a scratch copy of the files it touches in a
 * real PostgreSQL tree; slice_ext.h and the out-of-line functions of
 * slice_ext.c are taken verbatim, and for every PostgreSQL entry point that
 * takes or releases a covered lock (SpinLockAcquire, LockBufHdr,
 * LWLockWaitListLock, LWLockRelease, LWLockDisown, …) the hook calls the
 * patched source makes there, in order, become one glue function. The driver
 * replays what the kernel does to slice_ctrl (switches, grants, denials,
 * system calls) and checks the word after every call.
 *
 * The same harness runs the old patch (v1, kept under
 * kernel-patches/postgresql/v1/ for this comparison) and the current one.
 */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { ParseError, UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { parsePatch } from "./patch.js";

const run = promisify(execFile);

/** The old patch (version 1, PostgreSQL 18), kept for the harness's comparison. */
export function v1PatchFile(): string {
  return join(repoRoot(), "kernel-patches", "postgresql", "v1", "18-0001-v1.patch.txt");
}

/** Version 2 for MAJOR (the series until v3), kept for the "fails on v2" comparisons. */
export function v2PatchFile(major: string): string {
  return join(repoRoot(), "kernel-patches", "postgresql", "v2", `${major}-0001-v2.patch.txt`);
}

export function harnessSource(): string {
  return join(repoRoot(), "src", "postgres", "harness", "slice-ext-hooks.c");
}

/** Text with C comments removed (strings in the hook code hold no comment markers). */
export function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, "");
}

/**
 * A C function definition at column 0: from its return-type line (the line
 * before `NAME(`) to the first line that is `}`; undefined when absent.
 */
export function extractCFunction(text: string, name: string): string | undefined {
  const lines = text.split("\n");
  const i = lines.findIndex((l, k) => l.startsWith(`${name}(`) && k > 0 && !lines[k - 1]!.trim().endsWith(";") && !/\);\s*$/.test(l));
  if (i < 0) return undefined;
  const j = lines.findIndex((l, k) => k > i && l === "}");
  if (j < 0) return undefined;
  return lines.slice(i - 1, j + 1).join("\n");
}

/** A `#define NAME(...)` with its continuation lines; undefined when absent. */
export function extractMacro(text: string, name: string): string | undefined {
  const lines = text.split("\n");
  const i = lines.findIndex((l) => new RegExp(`^#define\\s+${name}\\(`).test(l));
  if (i < 0) return undefined;
  let j = i;
  while (lines[j]!.trimEnd().endsWith("\\") && j + 1 < lines.length) j++;
  return lines.slice(i, j + 1).join("\n");
}

/** Hook calls (and wait-list lock calls) in a body, in order, as C statements for the glue. */
export function hookCalls(body: string): string[] {
  const out: string[] = [];
  const re = /\b(SliceExt\w+)\s*\(([^;{}()]*)\)\s*(?:;|\))|\b(LWLockWaitListLock|LWLockWaitListUnlock|LWLockReleaseInternal)\s*\(\s*lock\s*(?:,\s*mode\s*)?\)\s*;|\b(LWLockWakeup)\s*\(\s*lock\s*\)\s*;/g;
  for (const m of stripComments(body).matchAll(re)) {
    if (m[1]) out.push(`${m[1]}(${m[2]!.trim()});`);
    else if (m[3]) out.push(`pg_${m[3]}();`);
    // the wakeup runs only when there are waiters to wake: the driver says when (h_waiters)
    else out.push(`if (h_waiters) pg_${m[4]}();`);
  }
  return out;
}

interface EntryPoint {
  glue: string;
  file: string;
  name: string;
  kind: "function" | "macro" | "either";
  /** What PostgreSQL does to the held-LWLock count before the hooks run. */
  pre?: string;
  optional?: boolean;
}

/** The PostgreSQL entry points whose hook calls the harness replays. */
export const ENTRY_POINTS: EntryPoint[] = [
  { glue: "pg_SpinLockAcquire", file: "src/include/storage/spin.h", name: "SpinLockAcquire", kind: "macro" },
  { glue: "pg_SpinLockRelease", file: "src/include/storage/spin.h", name: "SpinLockRelease", kind: "macro" },
  { glue: "pg_LockBufHdr", file: "src/backend/storage/buffer/bufmgr.c", name: "LockBufHdr", kind: "function" },
  { glue: "pg_UnlockBufHdr", file: "src/include/storage/buf_internals.h", name: "UnlockBufHdr", kind: "either" },
  { glue: "pg_LWLockWaitListLock", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockWaitListLock", kind: "function" },
  { glue: "pg_LWLockWaitListUnlock", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockWaitListUnlock", kind: "function" },
  { glue: "pg_LWLockWakeup", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockWakeup", kind: "function" },
  { glue: "pg_LWLockAcquire", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockAcquire", kind: "function", pre: "num_held_lwlocks++;" },
  { glue: "pg_LWLockConditionalAcquire", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockConditionalAcquire", kind: "function", pre: "num_held_lwlocks++;" },
  { glue: "pg_LWLockAcquireOrWait", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockAcquireOrWait", kind: "function", pre: "num_held_lwlocks++;" },
  // 18 releases through LWLockReleaseInternal (which wakes waiters); 15 wakes in LWLockRelease itself
  { glue: "pg_LWLockReleaseInternal", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockReleaseInternal", kind: "function", optional: true },
  { glue: "pg_LWLockRelease", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockRelease", kind: "function", pre: "num_held_lwlocks--;" },
  { glue: "pg_LWLockReleaseDisowned", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockReleaseDisowned", kind: "function", optional: true },
  { glue: "pg_LWLockDisown", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockDisown", kind: "function", pre: "num_held_lwlocks--;", optional: true },
  // error recovery: releases every held LWLock through LWLockRelease, then its own hooks
  { glue: "pg_LWLockReleaseAll", file: "src/backend/storage/lmgr/lwlock.c", name: "LWLockReleaseAll", kind: "function", pre: "while (num_held_lwlocks > 0) pg_LWLockRelease();" },
  // every child of the postmaster runs this first after fork()
  { glue: "pg_InitPostmasterChild", file: "src/backend/utils/init/miscinit.c", name: "InitPostmasterChild", kind: "function" },
];

const SLICE_EXT_H = "src/include/storage/slice_ext.h";
const SLICE_EXT_C = "src/backend/storage/lmgr/slice_ext.c";

/**
 * Applies PATCHFILE to a scratch copy of the files it modifies (plus the
 * entry points' files) from the PostgreSQL tree SOURCE; returns the patched
 * texts by path.
 */
export async function patchedTexts(source: string, patchFile: string): Promise<Record<string, string>> {
  const patch = parsePatch(readFileSync(patchFile, "utf8"), patchFile);
  const paths = new Set<string>([...patch.files.filter((f) => !f.created).map((f) => f.path), ...ENTRY_POINTS.map((e) => e.file)]);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-hooks-"));
  try {
    for (const p of paths) {
      const from = join(source, p);
      if (!existsSync(from)) throw new UserError(`${source}: expected ${p} (a PostgreSQL source tree), found none`);
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      copyFileSync(from, join(dir, p));
    }
    try {
      await run("patch", ["-p1", "--batch", "--forward", "--fuzz=0", "-i", patchFile], { cwd: dir, maxBuffer: 1 << 24 });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new UserError(`${patchFile} does not apply to ${source}: ${`${e.stdout ?? ""}${e.stderr ?? ""}`.trim().split("\n").slice(0, 4).join(" / ")}`);
    }
    const out: Record<string, string> = {};
    for (const p of [...paths, SLICE_EXT_H, SLICE_EXT_C]) out[p] = readFileSync(join(dir, p), "utf8");
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The glue for one entry point: the hook calls the patched source makes there. */
export function glueFor(e: EntryPoint, texts: Record<string, string>): { present: boolean; calls: string[]; c: string } {
  const text = texts[e.file];
  if (text === undefined) throw new UserError(`harness: ${e.file} missing from the patched files`);
  const body =
    e.kind === "macro" ? extractMacro(text, e.name) : e.kind === "function" ? extractCFunction(text, e.name) : (extractCFunction(text, e.name) ?? extractMacro(text, e.name));
  if (body === undefined) {
    if (e.optional) return { present: false, calls: [], c: `static void ${e.glue}(void) { }\n#define HAVE_${e.glue} 0\n` };
    throw new ParseError(e.file, 1, `a definition of ${e.name} (${e.kind})`, "none");
  }
  const calls = hookCalls(body);
  return { present: true, calls, c: `static void ${e.glue}(void) { ${e.pre ?? ""} ${calls.join(" ")} }\n${e.optional ? `#define HAVE_${e.glue} 1\n` : ""}` };
}

/** under_test.h for the driver: the header, the out-of-line functions, adapters, glue. */
export function underTestHeader(texts: Record<string, string>, opts: { emptyGlue?: boolean } = {}): { text: string; version: "v1" | "v2" | "v3"; glue: Record<string, string[]> } {
  const header = texts[SLICE_EXT_H];
  const c = texts[SLICE_EXT_C];
  if (header === undefined || c === undefined) throw new UserError("harness: the patch creates no slice_ext.h/slice_ext.c");
  const v2 = header.includes("SliceExtCounters");
  const v3 = header.includes("cleared_without_grant_seen");
  // static helpers first: the exported functions call them
  const fns = ["slice_ext_after_clear", "SliceExtForkChild", "SliceExtRearm", "SliceExtRelinquish", "SliceExtReleaseAll"].map((n) => extractCFunction(c, n)).filter((x): x is string => x !== undefined);
  if (fns.length === 0) throw new ParseError(SLICE_EXT_C, 1, "a definition of SliceExtRelinquish", "none");
  const version = v3 ? "v3" : v2 ? "v2" : "v1";
  const parts = [`/* generated by src/postgres/harness.ts: patch ${version} */`, header];
  const has = (n: string) => (fns.some((f) => f.split("\n")[1]!.startsWith(`${n}(`)) ? 1 : 0);
  parts.push(`#define H_HAVE_FORK_CHILD ${has("SliceExtForkChild")}`, `#define H_HAVE_RELEASE_ALL ${has("SliceExtReleaseAll")}`);
  if (v3) {
    parts.push(
      "static SliceExtCounters local_counters;",
      "SliceExtState SliceExt = {.counters = &local_counters};",
      "#define H_HAS_COUNTERS 1",
      "#define H_NAMES_UNSEEN 1",
      "#define H_CTRL SliceExt.ctrl",
      "#define H_RESET_STATE() do { memset(&SliceExt, 0, sizeof(SliceExt)); memset(&local_counters, 0, sizeof(local_counters)); SliceExt.counters = &local_counters; } while (0)",
      "#define H_REARMED() (local_counters.rearmed)",
      "#define H_DROPPED() (local_counters.cleared_without_grant_seen)",
      "#define H_YIELDED() (local_counters.granted_yielded)",
      "#define H_EXPIRED() (local_counters.granted_seen_ended)",
      "#define H_CLEAR_YIELDS() (local_counters.clear_yields)",
      "#define H_HOLDS_RESET() (local_counters.holds_reset)",
      "#define H_ACQ(k) (local_counters.acquires[k])",
      "#define H_HOLDS(k) (local_counters.holds[k])",
    );
  } else if (v2) {
    parts.push(
      "static SliceExtCounters local_counters;",
      "SliceExtState SliceExt = {.counters = &local_counters};",
      "#define H_HAS_COUNTERS 1",
      "#define H_NAMES_UNSEEN 0",
      "#define H_CTRL SliceExt.ctrl",
      "#define H_RESET_STATE() do { memset(&SliceExt, 0, sizeof(SliceExt)); memset(&local_counters, 0, sizeof(local_counters)); SliceExt.counters = &local_counters; } while (0)",
      "#define H_REARMED() (local_counters.rearmed)",
      "#define H_DROPPED() (local_counters.dropped)",
      "#define H_YIELDED() (local_counters.granted_yielded)",
      "#define H_EXPIRED() (local_counters.granted_expired)",
      "#define H_CLEAR_YIELDS() (-1LL)",
      "#define H_HOLDS_RESET() (-1LL)",
      "#define H_ACQ(k) (local_counters.acquires[k])",
      "#define H_HOLDS(k) (local_counters.holds[k])",
    );
  } else {
    parts.push(
      "SliceExtState SliceExt;",
      "static uint64 local_grants, local_yields, local_revoked;",
      "#define SLICE_EXT_FLUSH_EVERY 64",
      "static void SliceExtFlush(void) { }",
      "#define H_HAS_COUNTERS 0",
      "#define H_NAMES_UNSEEN 0",
      "#define H_CLEAR_YIELDS() (-1LL)",
      "#define H_HOLDS_RESET() (-1LL)",
      "#define H_CTRL SliceExt.request",
      "#define H_RESET_STATE() do { memset(&SliceExt, 0, sizeof(SliceExt)); SliceExt.until_flush = 1 << 30; local_grants = local_yields = local_revoked = 0; } while (0)",
      "#define H_REARMED() (-1LL)",
      "#define H_DROPPED() (-1LL)",
      "#define H_YIELDED() (-1LL)",
      "#define H_EXPIRED() (-1LL)",
      "#define H_ACQ(k) (-1LL)",
      "#define H_HOLDS(k) (-1LL)",
      "#define SLICE_EXT_KIND_SPINLOCK 0",
      "#define SLICE_EXT_KIND_BUFFER_HEADER 1",
      "#define SLICE_EXT_KIND_WAIT_LIST 2",
      "#define SLICE_EXT_KIND_LWLOCK 3",
      "#define SLICE_EXT_NKINDS 4",
    );
  }
  parts.push(...fns);
  const glue: Record<string, string[]> = {};
  // callees before callers: the wait-list lock, LWLockWakeup, LWLockReleaseInternal, LWLockRelease, LWLockReleaseAll
  const rank = (g: string) => (g.includes("WaitList") ? 0 : g === "pg_LWLockWakeup" ? 1 : g === "pg_LWLockReleaseInternal" ? 2 : g === "pg_LWLockRelease" ? 3 : 4);
  const order = [...ENTRY_POINTS].sort((a, b) => rank(a.glue) - rank(b.glue));
  for (const e of order) {
    const g = glueFor(e, texts);
    glue[e.glue] = opts.emptyGlue ? [] : g.calls;
    parts.push(opts.emptyGlue ? `static void ${e.glue}(void) { ${e.pre ?? ""} }\n${e.optional ? `#define HAVE_${e.glue} ${g.present ? 1 : 0}\n` : ""}` : g.c);
  }
  return { text: parts.join("\n\n") + "\n", version, glue };
}

export interface ScenarioResult {
  name: string;
  status: "PASS" | "FAIL" | "SKIP";
  why: string;
}

export interface HarnessRun {
  patch: string;
  version: "v1" | "v2" | "v3";
  glue: Record<string, string[]>;
  scenarios: ScenarioResult[];
  passed: number;
  failed: number;
  skipped: number;
}

/** Parses the driver's output; a line it does not know is an error naming it. */
export function parseHarnessOutput(text: string, file = "<harness output>"): { scenarios: ScenarioResult[]; passed: number; failed: number; skipped: number } {
  const scenarios: ScenarioResult[] = [];
  let summary: { passed: number; failed: number; skipped: number } | undefined;
  text.split("\n").forEach((line, i) => {
    if (line === "") return;
    const m = /^(PASS|FAIL|SKIP) (.+?)(?: -- (.*))?$/.exec(line);
    const s = /^summary passed=(\d+) failed=(\d+) skipped=(\d+)$/.exec(line);
    if (s) summary = { passed: Number(s[1]), failed: Number(s[2]), skipped: Number(s[3]) };
    else if (m) scenarios.push({ name: m[2]!, status: m[1] as ScenarioResult["status"], why: m[3] ?? "" });
    else throw new ParseError(file, i + 1, "PASS/FAIL/SKIP <scenario> or summary passed=N failed=N skipped=N", JSON.stringify(line));
  });
  if (!summary) throw new ParseError(file, text.split("\n").length, "a final summary line", "none");
  const count = (st: string) => scenarios.filter((x) => x.status === st).length;
  if (count("PASS") !== summary.passed || count("FAIL") !== summary.failed || count("SKIP") !== summary.skipped) {
    throw new ParseError(file, text.split("\n").length, `a summary matching the ${scenarios.length} scenario lines`, JSON.stringify(summary));
  }
  return { scenarios, ...summary };
}

/** Builds the harness for PATCHFILE against the PostgreSQL tree SOURCE and runs it. */
export async function runHookHarness(source: string, patchFile: string): Promise<HarnessRun> {
  return runHarnessTexts(await patchedTexts(source, patchFile), patchFile);
}

/** Builds and runs the harness on patched texts (from patchedTexts, possibly altered). */
export async function runHarnessTexts(texts: Record<string, string>, patchFile: string): Promise<HarnessRun> {
  const ut = underTestHeader(texts);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-harness-"));
  try {
    writeFileSync(join(dir, "under_test.h"), ut.text);
    const bin = join(dir, "hooks");
    try {
      await run("gcc", ["-std=gnu11", "-O1", "-Wall", "-Werror=implicit-function-declaration", "-I", dir, "-o", bin, harnessSource()], { maxBuffer: 1 << 24 });
    } catch (err) {
      const e = err as { code?: string; stderr?: string };
      if (e.code === "ENOENT") throw new UserError("gcc is not installed (Debian package gcc)");
      throw new UserError(`the hook harness does not compile with ${patchFile}: ${(e.stderr ?? "").split("\n").slice(0, 8).join(" / ")}`);
    }
    const { stdout } = await run(bin, [], { maxBuffer: 1 << 24 });
    return { patch: patchFile, version: ut.version, glue: ut.glue, ...parseHarnessOutput(stdout, `${bin} output`) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Names of the functions (definitions at column 0) in a C text whose bodies call perform_spin_delay(). */
export function spinDelayLoops(text: string): string[] {
  const out: string[] = [];
  const lines = stripComments(text).split("\n");
  let current: string | undefined;
  lines.forEach((l, k) => {
    const def = /^(\w+)\(/.exec(l);
    if (def && k > 0 && !/[;,]\s*$/.test(lines[k - 1]!) && !/;\s*$/.test(l)) current = def[1];
    else if (l === "}") current = undefined;
    else if (current && current !== "perform_spin_delay" && /\bperform_spin_delay\(/.test(l) && !out.includes(current)) out.push(current);
  });
  return out;
}

/** Every lock loop that uses perform_spin_delay() in a PostgreSQL tree: function → file. */
export function spinDelayInventory(tree: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.[ch]$/.test(e.name)) {
        const text = readFileSync(p, "utf8");
        if (text.includes("perform_spin_delay(")) for (const f of spinDelayLoops(text)) out[f] = relative(tree, p);
      }
    }
  };
  for (const d of ["src", "contrib"]) if (existsSync(join(tree, d))) walk(join(tree, d));
  return out;
}

/** The probe's kernel-facing constants and static state, and its functions, from slice_ext.c. */
export function probeUnderTest(texts: Record<string, string>): string {
  const header = texts[SLICE_EXT_H];
  const c = texts[SLICE_EXT_C];
  if (header === undefined || c === undefined) throw new UserError("harness: the patch creates no slice_ext.h/slice_ext.c");
  const start = c.indexOf("#ifdef HAVE_SLICE_EXT\n#include <sys/auxv.h>");
  const end = c.indexOf("#endif", c.indexOf("static uint8 own_rseq_area"));
  if (start < 0 || end < 0) throw new ParseError(SLICE_EXT_C, 1, "the HAVE_SLICE_EXT block with the kernel constants and own_rseq_area", "none");
  const constants = c
    .slice(start, end)
    .split("\n")
    .filter((l) => !l.startsWith("#include") && !l.startsWith("#ifdef HAVE_SLICE_EXT"))
    .join("\n");
  const statics = ["static bool probed", "static int\tsupported_mask", "static char status["].map((p) => {
    const line = c.split("\n").find((l) => l.startsWith(p));
    if (!line) throw new ParseError(SLICE_EXT_C, 1, `a line starting ${JSON.stringify(p)}`, "none");
    return line;
  });
  // v3's probe stores the kernel's word apart from SliceExt.ctrl (slice_extension = count)
  for (const p of ["static volatile uint8 *kernel_ctrl", "static uint8 count_only_ctrl"]) {
    const line = c.split("\n").find((l) => l.startsWith(p));
    if (line) statics.push(line);
  }
  const fns = ["slice_ext_errname", "SliceExtUnavailable", "slice_ext_seccomp", "slice_ext_yield_allowed", "SliceExtProbe", "assign_slice_extension"].map((n) => extractCFunction(c, n)).filter((x): x is string => x !== undefined);
  const v2 = header.includes("SliceExtCounters");
  const probeCall = /^SliceExtProbe\(void\)/m.test(c) ? "SliceExtProbe()" : "SliceExtProbe(LOG)";
  return [
    "#define HAVE_SLICE_EXT 1",
    header,
    v2 ? "static SliceExtCounters local_counters;\nSliceExtState SliceExt = {.counters = &local_counters};" : "SliceExtState SliceExt;\n#define SLICE_EXT_FLUSH_EVERY 64",
    constants,
    ...statics,
    ...fns,
    `#define PROBE() ${probeCall}`,
    `#define H_PROBE_CTRL SliceExt.${v2 ? "ctrl" : "request"}`,
  ].join("\n\n") + "\n";
}

export interface ProbeCase {
  name: string;
  status: string;
  enabled: boolean;
}

/** Compiles and runs the probe harness on patched texts; one result per faked kernel/glibc case. */
export async function runProbeHarness(texts: Record<string, string>): Promise<ProbeCase[]> {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-probe-"));
  try {
    writeFileSync(join(dir, "probe_under_test.h"), probeUnderTest(texts));
    const bin = join(dir, "probe");
    try {
      await run("gcc", ["-std=gnu11", "-O1", "-w", "-I", dir, "-o", bin, join(repoRoot(), "src", "postgres", "harness", "probe.c")], { maxBuffer: 1 << 24 });
    } catch (err) {
      throw new UserError(`the probe harness does not compile: ${((err as { stderr?: string }).stderr ?? "").split("\n").slice(0, 8).join(" / ")}`);
    }
    const { stdout } = await run(bin, []);
    return stdout
      .trim()
      .split("\n")
      .map((l, i) => {
        const m = /^CASE ([^|]+)\|(.*)\|([01])$/.exec(l);
        if (!m) throw new ParseError(`${bin} output`, i + 1, "CASE name|status|0 or 1", JSON.stringify(l));
        return { name: m[1]!, status: m[2]!, enabled: m[3] === "1" };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
