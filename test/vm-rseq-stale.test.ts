// The stale slice work bit (issue 27, item 1) without a VM: the reproducer's output parser, the
// verdict rules (one run; the record), the boot script's order, a real run of the reproducer on
// this host, and the committed records of study rseq-stale-slice read back from their raw files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import {
  bootOrder,
  bootScript,
  buildReproducer,
  overallVerdict,
  parseStaleOutput,
  readBoot,
  runVerdict,
  type Arm,
  type StaleRow,
  type StaleRun,
} from "../src/vm/rseq-stale.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

function line(over: Partial<StaleRun> = {}): string {
  const base = {
    tool: "rseq-stale-slice", kernelRelease: "7.2.13", rseqDebug: 1, consume: false, iterationsAsked: 100,
    verdict: "killed", signal: 11, signalName: "SEGV", exitCode: -1, setup: 1, setupError: "", registration: "own:64",
    phase: "stale-syscall", iterations: 0, grants: 1, revokes: 1, staleCalls: 1, consumed: 0, regranted: 0, rerequests: 0,
    yields: 0, elapsedMs: 12, stats: { sgrant: 1, sexpir: 1, srevok: 1, syield: 0, sabort: 0 },
  };
  return JSON.stringify({ ...base, ...over });
}

test("parseStaleOutput: a killed run's line, and errors that name the file and line", () => {
  const r = parseStaleOutput(`noise\n${line()}\n`, "r01.json");
  assert.equal(r.verdict, "killed");
  assert.equal(r.signal, 11);
  assert.equal(r.stats?.srevok, 1);
  assert.throws(() => parseStaleOutput("", "empty.json"), (e: unknown) => e instanceof ParseError && /empty\.json:1/.test(e.message) && /no output/.test(e.message));
  assert.throws(() => parseStaleOutput(line({ grants: "x" as unknown as number }), "bad.json"), (e: unknown) => e instanceof ParseError && /bad\.json:1/.test(e.message) && /"grants"/.test(e.message));
  assert.throws(() => parseStaleOutput(`x\n{"tool":"rseq-stale-slice",`, "cut.json"), (e: unknown) => e instanceof ParseError && /cut\.json:2/.test(e.message) && /invalid JSON/.test(e.message));
  assert.throws(() => parseStaleOutput(line({ verdict: "maybe" as StaleRun["verdict"] }), "v.json"), /"verdict" one of/);
});

test("runVerdict: killed only for SIGSEGV at the syscall after a revoke with status 139", () => {
  const p = (o: Partial<StaleRun>) => parseStaleOutput(line(o));
  assert.equal(runVerdict(p({}), 139).outcome, "killed");
  assert.match(runVerdict(p({}), 0).reason, /shell saw exit status 0/);
  assert.equal(runVerdict(p({}), 0).outcome, "error");
  assert.equal(runVerdict(p({ phase: "wait-grant" }), 139).outcome, "error");
  assert.equal(runVerdict(p({ signal: 9, signalName: "KILL" }), 137).outcome, "error");
  const ok = { verdict: "survived" as const, signal: 0, signalName: "", exitCode: 0, phase: "done", iterations: 100, grants: 100, revokes: 100, staleCalls: 100 };
  assert.equal(runVerdict(p(ok), 0).outcome, "survived");
  assert.equal(runVerdict(p(ok), 2).outcome, "error");
  assert.equal(runVerdict(p({ ...ok, revokes: 0, staleCalls: 0 }), 0).outcome, "not exercised");
  assert.equal(runVerdict(p({ verdict: "hung", signal: 0, phase: "wait-grant" }), 3).outcome, "hung");
  assert.match(runVerdict(p({ verdict: "error", signal: 0, setup: -1, setupError: "prctl: Invalid argument" }), 2).reason, /setup failed: prctl/);
  assert.equal(runVerdict(null, 1).outcome, "error");
});

function row(kernel: StaleRow["kernel"], arm: Arm, outcome: StaleRow["outcome"]): StaleRow {
  return { boot: `${kernel}-x`, kernel, kernelRelease: "7.2.13", accel: "tcg-icount", arm, debugSource: arm === "cmdline" ? "cmdline" : "debugfs", rseqDebugRead: arm === "debug0" ? 0 : 1, consume: arm === "debug1-consume", rep: 1, exitStatus: outcome === "killed" ? 139 : 0, outcome, reason: "", signal: outcome === "killed" ? 11 : null, iterations: 1, grants: 1, revokes: 1, staleCalls: 1, stats: null };
}

test("overallVerdict: each branch of the rule", () => {
  const before = [row("unfixed", "debug1", "killed"), row("unfixed", "cmdline", "killed"), row("unfixed", "debug0", "survived"), row("unfixed", "debug1-consume", "survived")];
  const after = [row("fixed", "debug1", "survived"), row("fixed", "cmdline", "survived"), row("fixed", "debug0", "survived")];
  assert.equal(overallVerdict([...before, ...after]).verdict, "killed before the fix, survives after");
  assert.match(overallVerdict([...before, ...after]).reason, /unfixed kernel, debugging on: 2 killed, 0 survived of 2/);
  assert.equal(overallVerdict(before).verdict, "killed on the unfixed kernel");
  assert.equal(overallVerdict([...before, row("fixed", "debug1", "killed")]).verdict, "killed on the fixed kernel too");
  assert.equal(overallVerdict([...before, row("fixed", "debug1", "not exercised")]).verdict, "killed on the unfixed kernel; the fixed kernel not exercised");
  assert.equal(overallVerdict([...before, row("unfixed", "debug0", "killed")]).verdict, "killed with debugging off too");
  assert.equal(overallVerdict([row("unfixed", "debug1", "survived"), row("unfixed", "debug0", "survived")]).verdict, "not killed");
  assert.equal(overallVerdict([row("unfixed", "debug1", "not exercised")]).verdict, "not exercised");
  assert.equal(overallVerdict([row("running", "debug1", "killed"), row("running", "debug0", "survived")]).verdict, "killed on the unfixed kernel");
});

test("bootScript: the command-line arm's runs come before any debugfs write; arms alternate", () => {
  const order = bootOrder(["cmdline", "debug0", "debug1"], 2).map((r) => r.name);
  assert.deepEqual(order, ["r01-cmdline", "r02-cmdline", "r01-debug0", "r01-debug1", "r02-debug1", "r02-debug0"]);
  const s = bootScript({ binary: "/b/repro", outDir: "/o", arms: ["cmdline", "debug0", "debug1-consume"], reps: 1, iterations: 7, timeoutS: 9 });
  const lines = s.split("\n");
  const firstWrite = lines.findIndex((l) => l.startsWith("setdebug "));
  const cmdlineRun = lines.findIndex((l) => l.startsWith("run r01-cmdline "));
  assert.ok(cmdlineRun > 0 && firstWrite > cmdlineRun, s);
  assert.ok(lines.includes("run r01-debug1-consume --iterations 7 --timeout-s 9 --consume"), s);
  assert.ok(lines.includes("setdebug 0"), s);
});

test("the reproducer builds and runs on this host: its line parses, and without the extension it is an error naming prctl", { timeout: 60_000 }, async (t) => {
  const cc = await execa("cc", ["--version"], { reject: false });
  if (cc.exitCode !== 0) return t.skip("no cc on this host (Debian package build-essential)");
  const bin = await buildReproducer();
  const r = await execa(bin.path, ["--iterations", "3", "--timeout-s", "5"], { reject: false });
  const run = parseStaleOutput(r.stdout, bin.path);
  const v = runVerdict(run, r.exitCode ?? null);
  const hasExt = run.setup === 1;
  console.log(`# host ${run.kernelRelease}: ${v.outcome} (${v.reason})`);
  if (!hasExt) {
    assert.equal(v.outcome, "error");
    assert.match(v.reason, /setup failed: .*prctl|rseq/);
    assert.equal(r.exitCode, 2);
  } else {
    assert.ok(["killed", "survived", "not exercised"].includes(v.outcome), `${v.outcome}: ${v.reason}`);
  }
  const usage = await execa(bin.path, ["--bogus"], { reject: false });
  assert.equal(usage.exitCode, 2);
  assert.match(usage.stderr, /usage:/);
});

test("committed rseq-stale-slice records: runs.json and verdict.json follow from the raw files", (t) => {
  const root = join(repoRoot(), "data", "runs", "rseq-stale-slice");
  const recs = existsSync(root) ? readdirSync(root).filter((d) => existsSync(join(root, d, "record.json"))) : [];
  if (recs.length === 0) return t.skip(`no record in ${root} yet (slicelab study run rseq-stale-slice makes one)`);
  for (const d of recs) {
    const out = join(root, d, "out");
    const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8")) as { params: { reps: number }; boots: { boot: string; kernel?: StaleRow["kernel"]; accel?: string; arms?: Arm[] }[]; inGuest: boolean };
    const rows = JSON.parse(readFileSync(join(out, "runs.json"), "utf8")) as StaleRow[];
    const again: StaleRow[] = [];
    for (const b of prov.boots) {
      const mine = rows.filter((r) => r.boot === b.boot);
      const arms = (b.arms ?? [...new Set(mine.map((r) => r.arm))]) as Arm[];
      again.push(...readBoot(join(out, "raw", b.boot), { boot: b.boot, kernel: mine[0]!.kernel, accel: mine[0]!.accel, arms, reps: prov.params.reps }));
    }
    assert.deepEqual(again, rows, `${d}: runs.json differs from what the raw files say`);
    const v = JSON.parse(readFileSync(join(out, "verdict.json"), "utf8")) as { verdict: string; reason: string };
    assert.deepEqual({ verdict: v.verdict, reason: v.reason }, overallVerdict(rows), `${d}: verdict.json`);
    const rec = JSON.parse(readFileSync(join(root, d, "record.json"), "utf8")) as { analysis: { verdict: string } };
    assert.equal(rec.analysis.verdict, v.verdict, `${d}: record.json's analysis`);
  }
});
