import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cacheDir, repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectRseqStats, diffRseqStats, parseRseqStats, RSEQ_BASE_COUNTERS, RSEQ_SLICE_COUNTERS } from "../src/parse/rseq-stats.js";


import { cliParse } from "./helpers/cli.js";


/**
 * kernel/rseq.c of the kit's current kernel tree (the one `slicelab kernel build` uses by default),
 * or else of any fetched tree whose rseq.c has rseq_stats_show() (a 6.1 reference tree has none).
 */
function kernelRseqC(): string | null {
  const src = join(cacheDir(), "kernel", "src");
  if (!existsSync(src)) return null;
  const hasStats = (p: string) => existsSync(p) && readFileSync(p, "utf8").includes("static int rseq_stats_show(");
  const current = join(cacheDir(), "kernel", "current.json");
  if (existsSync(current)) {
    const p = join((JSON.parse(readFileSync(current, "utf8")) as { dir: string }).dir, "kernel", "rseq.c");
    if (hasStats(p)) return p;
  }
  for (const d of readdirSync(src).sort().reverse()) {
    const p = join(src, d, "kernel", "rseq.c");
    if (hasStats(p)) return p;
  }
  return null;
}

/** The `seq_printf(m, "NAME:   %16lu\n", …)` formats of rseq_stats_show(), in order. */
function statsFormats(source: string): string[] {
  const start = source.indexOf("static int rseq_stats_show(");
  assert.ok(start >= 0, "rseq_stats_show() not found in kernel/rseq.c");
  const body = source.slice(start, source.indexOf("\n}\n", start));
  return [...body.matchAll(/seq_printf\(m, "([^"%]*)%16lu\\n"/g)].map((m) => m[1]!);
}

/** Renders the formats as the kernel's %16lu does: the value right-aligned in 16 columns. */
function render(formats: string[], values: number[]): string {
  return formats.map((f, i) => `${f}${String(values[i]).padStart(16)}\n`).join("");
}

const rseqC = kernelRseqC();

test("the counter names match rseq_stats_show() of the kernel source tree", { skip: rseqC === null && "no kernel tree with rseq_stats_show() under cacheDir()/kernel/src" }, () => {
  const formats = statsFormats(readFileSync(rseqC!, "utf8"));
  const names = formats.map((f) => f.replace(/:\s*$/, ""));
  assert.deepEqual(names, [...RSEQ_BASE_COUNTERS, ...RSEQ_SLICE_COUNTERS]);
  // every name is padded so that the values start in column 8
  for (const f of formats) assert.equal(f.length, 8);
});

test("parses the kernel's layout, with and without the slice-extension counters", { skip: rseqC === null && "no kernel tree" }, () => {
  const formats = statsFormats(readFileSync(rseqC!, "utf8"));
  const values = formats.map((_, i) => (i + 1) * 1000003);
  const full = parseRseqStats(render(formats, values), "stats");
  assert.equal(full.sliceExtension, true);
  assert.equal(full.counters.exit, 1000003);
  assert.equal(full.counters.sgrant, 9 * 1000003);
  assert.equal(full.counters.sabort, 13 * 1000003);
  assert.deepEqual(Object.keys(full.counters), formats.map((f) => f.replace(/:\s*$/, "")));
  // a kernel without CONFIG_RSEQ_SLICE_EXTENSION prints only the first eight
  const base = parseRseqStats(render(formats.slice(0, 8), values), "base");
  assert.equal(base.sliceExtension, false);
  assert.equal(base.counters.sgrant, undefined);
  assert.equal(detectRseqStats(render(formats, values)), true);
});

test("real captures from the VM kernel, when present", () => {
  const dir = join(repoRoot(), "test/fixtures/rseq-stats");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".txt")) : [];
  for (const f of files) {
    const s = parseRseqStats(readFileSync(join(dir, f), "utf8"), f);
    assert.ok(s.counters.exit! > 0, `${f}: exit counter`);
  }
});

const snap = (vals: Record<string, number>) => Object.entries(vals).map(([k, v]) => `${`${k}:`.padEnd(8)}${String(v).padStart(16)}`).join("\n") + "\n";
const base = { exit: 100, signal: 2, slowp: 3, fastp: 90, ids: 40, cs: 10, clear: 10, fixup: 1 };
const slice = { sgrant: 50, sexpir: 5, srevok: 7, syield: 30, sabort: 8 };

test("diff of two snapshots", () => {
  const before = parseRseqStats(snap({ ...base, ...slice }), "before");
  const after = parseRseqStats(snap({ ...base, exit: 250, fastp: 200, ...slice, sgrant: 80, syield: 55 }), "after");
  const d = diffRseqStats(before, after);
  assert.equal(d.counters.exit, 150);
  assert.equal(d.counters.fastp, 110);
  assert.equal(d.counters.sgrant, 30);
  assert.equal(d.counters.syield, 25);
  assert.equal(d.counters.sexpir, 0);
  assert.equal(d.sliceExtension, true);
  assert.throws(() => diffRseqStats(after, before), (e: unknown) => e instanceof ParseError && /counters only grow/.test(e.message));
});

test("malformed stats name file and line", () => {
  const text = snap({ ...base, ...slice }).replace("cs:", "cs ");
  assert.throws(() => parseRseqStats(text, "s.txt"), (e: unknown) => e instanceof ParseError && e.line === 6 && /^s\.txt:6: expected a counter line/.test(e.message));
  const partial = snap({ ...base, sgrant: 1, sexpir: 2 });
  assert.throws(() => parseRseqStats(partial, "p.txt"), (e: unknown) => e instanceof ParseError && /missing srevok, syield, sabort/.test(e.message));
  const noExit = snap({ signal: 1, slowp: 1, fastp: 1, ids: 1, cs: 1, clear: 1, fixup: 1 });
  assert.throws(() => parseRseqStats(noExit, "n.txt"), (e: unknown) => e instanceof ParseError && /the rseq counter "exit:"/.test(e.message));
  assert.throws(() => parseRseqStats("", "e.txt"), (e: unknown) => e instanceof ParseError && /e\.txt:1: .* found an empty file/.test(e.message));
  assert.equal(detectRseqStats("exit: 1\nhello\n"), false);
});

test("CLI: slicelab parse rseq-stats/auto, and exit 2 with FILE:LINE on malformed input", () => {
  const ok = cliParse("auto", "rs-ok.txt", snap({ ...base, ...slice }));
  assert.equal(ok.status, 0, ok.stderr);
  const j = JSON.parse(ok.stdout);
  assert.equal(j.format, "rseq-stats");
  assert.deepEqual(j.records.find((r: { counter: string }) => r.counter === "syield"), { file: ok.path, counter: "syield", value: 30 });
  const bad = cliParse("rseq-stats", "rs-bad.txt", snap({ ...base, ...slice }).replace("sexpir:", "sexpir="));
  assert.equal(bad.status, 2);
  assert.ok(bad.stderr.startsWith(`slicelab parse: ${bad.path}:10: expected a counter line`), bad.stderr);
});

test("a patched kernel's additions after the 13 counters: an indented histogram with a heading, kept as extra", () => {
  // The shape BobZKernel's 9003-rseq-latency-histogram patch prints (its seq_printf formats, values made up here):
  // a blank line, "Abort latency histogram (n=N):", then indented "  sabort_<bucket>:  N  (P%)" lines, some with "<- …".
  const hist = [
    "",
    "Abort latency histogram (n=10):",
    "  sabort_lt100us:            4  (40%)  <- wasted",
    "  sabort_lt1ms:              3  (30%)",
    "  sabort_lt5ms:              2  (20%)",
    "  sabort_lt10ms:             1  (10%)",
    "  sabort_gt10ms:             0  (0%)  <- full use",
    "  sabort_avg_ns:        812345",
  ].join("\n");
  const s = parseRseqStats(snap({ ...base, ...slice }) + hist + "\n", "h.txt");
  assert.equal(s.complete, true);
  assert.equal(s.counters.sabort, 8);
  assert.deepEqual(s.extra, { sabort_lt100us: 4, sabort_lt1ms: 3, sabort_lt5ms: 2, sabort_lt10ms: 1, sabort_gt10ms: 0, sabort_avg_ns: 812345 });
  assert.ok(s.warnings.some((w) => w.line === 15 && /section headings/.test(w.message)));
  assert.ok(s.warnings.some((w) => w.line === 16 && /6 counter\(s\) mainline does not print/.test(w.message)));
  assert.equal(detectRseqStats(snap({ ...base, ...slice }) + hist), true);
  // the mainline file has no such warnings
  assert.deepEqual(parseRseqStats(snap({ ...base, ...slice }), "m.txt").warnings, []);
});
