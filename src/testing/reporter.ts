/**
 * A node:test reporter that `scripts/test.sh` runs beside the spec reporter. It writes one JSON
 * summary (to its destination) with:
 *   - the counts (pass, fail, skipped, todo) of tests (suites are not counted),
 *   - every skipped test with its file and reason, so the suite can end with a summary of what did
 *     not run and why (a skip is never mistaken for a pass),
 *   - the data/ guard's findings: tests never write into data/ (the evidence). The guard itself is
 *     src/testing/data-guard.ts, preloaded into each test file's process, which snapshots data/ as
 *     git sees it (status of every path plus a hash of every changed file) when the file starts and
 *     when it exits, fails the file on a difference and appends it to $SLICELAB_GUARD_OUT/violations.jsonl;
 *     this reporter collects that file. Outside a git checkout the guard reports that it did not run.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export interface SkippedTest {
  file: string;
  name: string;
  reason: string;
}

export interface DataGuardViolation {
  /** The test file that ran while data/ changed. */
  file: string;
  /** Paths under data/ whose status or content changed (git status lines). */
  changes: string[];
}

export interface TestSummary {
  kind: "slicelab-test-summary";
  counts: { tests: number; pass: number; fail: number; skipped: number; todo: number };
  skipped: SkippedTest[];
  /** Each failed test with the first lines of its error (the assertion's message, not the stack). */
  failed: { file: string; name: string; message?: string }[];
  dataGuard: { ran: boolean; reason: string | null; violations: DataGuardViolation[] };
}

/** data/ as git sees it: one line per changed path, with a hash of the file's content. */
export function dataSnapshot(root: string): Map<string, string> | string {
  if (!existsSync(join(root, ".git"))) return `${root} is not a git checkout, so changes under data/ cannot be told from committed data`;
  let out: string;
  try {
    out = execFileSync("git", ["-C", root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", "data"], { encoding: "utf8", maxBuffer: 64 << 20 });
  } catch (e) {
    return `git status failed: ${(e as Error).message.split("\n")[0]}`;
  }
  const snap = new Map<string, string>();
  for (const entry of out.split("\0").filter(Boolean)) {
    const path = entry.slice(3);
    const abs = join(root, path);
    let h = "absent";
    if (existsSync(abs) && statSync(abs).isFile()) h = createHash("sha256").update(readFileSync(abs)).digest("hex");
    snap.set(path, `${entry.slice(0, 2)} ${h}`);
  }
  return snap;
}

/** The paths whose status or content differ between two snapshots. */
export function snapshotChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort().map((p) => `${(after.get(p) ?? "deleted").slice(0, 2).trim() || "M"} ${p}`);
}

interface TestEventData {
  name?: string;
  file?: string;
  nesting?: number;
  skip?: string | boolean;
  todo?: string | boolean;
  details?: { type?: string; error?: unknown };
}

/**
 * The message of a failed test's error, without the stack: node:test wraps the thrown error
 * (ERR_TEST_FAILURE) and keeps it as `cause`. At most 12 lines and 2,000 characters, so that a run
 * record says why a test failed after the log is gone.
 */
export function failureMessage(error: unknown): string {
  const inner = error && typeof error === "object" && "cause" in error && (error as { cause?: unknown }).cause !== undefined ? (error as { cause: unknown }).cause : error;
  let text: string;
  if (inner instanceof Error) text = `${inner.name === "Error" || inner.name === "AssertionError" ? "" : `${inner.name}: `}${inner.message}`;
  else if (inner && typeof inner === "object" && "message" in inner) text = String((inner as { message: unknown }).message);
  else text = String(inner);
  const lines = text.split("\n").filter((l) => !/^\s+at /.test(l));
  const kept = lines.slice(0, 12).join("\n");
  const clipped = kept.length > 2000 ? `${kept.slice(0, 2000)}…` : kept;
  return lines.length > 12 ? `${clipped}\n… (${lines.length - 12} more lines)` : clipped;
}

export default async function* reporter(source: AsyncIterable<{ type: string; data: TestEventData }>): AsyncGenerator<string> {
  const root = process.env.SLICELAB_GUARD_ROOT ?? process.cwd();
  const summary: TestSummary = {
    kind: "slicelab-test-summary",
    counts: { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0 },
    skipped: [],
    failed: [],
    dataGuard: { ran: true, reason: null, violations: [] },
  };
  const guardOut = process.env.SLICELAB_GUARD_OUT;
  const notGit = dataSnapshot(root);
  if (!guardOut) summary.dataGuard = { ran: false, reason: "SLICELAB_GUARD_OUT is not set (scripts/test.sh sets it and preloads src/testing/data-guard.ts)", violations: [] };
  else if (typeof notGit === "string") summary.dataGuard = { ran: false, reason: notGit, violations: [] };
  const rel = (f: string | undefined) => (f ? relative(root, f) || f : "(unknown file)");
  for await (const ev of source) {
    const d = ev.data ?? {};
    if (ev.type !== "test:pass" && ev.type !== "test:fail") continue;
    if (d.details?.type === "suite") continue;
    summary.counts.tests++;
    if (d.skip !== undefined && d.skip !== false) {
      summary.counts.skipped++;
      summary.skipped.push({ file: rel(d.file), name: d.name ?? "", reason: typeof d.skip === "string" ? d.skip : "(no reason given)" });
    } else if (d.todo !== undefined && d.todo !== false) {
      summary.counts.todo++;
    } else if (ev.type === "test:pass") {
      summary.counts.pass++;
    } else {
      summary.counts.fail++;
      summary.failed.push({ file: rel(d.file), name: d.name ?? "", message: failureMessage(d.details?.error) });
    }
  }
  if (summary.dataGuard.ran && guardOut && existsSync(join(guardOut, "violations.jsonl"))) {
    summary.dataGuard.violations = readFileSync(join(guardOut, "violations.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as DataGuardViolation);
  }
  yield `${JSON.stringify(summary, null, 2)}\n`;
}
