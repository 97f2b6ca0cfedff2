// Side-by-side of the dipietro-2026-eviction VM series: preemption mode × slice_extension.
// Reads cells.json (mode, kernel, series directory per cell), runs `slicelab compare --json`
// for every comparison (the kit's stats code: Welch, bootstrap, power), and writes
// comparisons/<name>.json, summary.json and table.md next to this file.
// usage (from the repo root, after `npm run build`): node data/runs/vm-eviction-compare-20261130/make-comparison.mjs
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { tQuantile } from "../../../dist/src/stats/distributions.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../..");
const { cells } = JSON.parse(readFileSync(join(here, "cells.json"), "utf8"));
mkdirSync(join(here, "comparisons"), { recursive: true });

function compare(name, aCsv, aVariant, bCsv, bVariant) {
  const args = ["bin/slicelab.js", "compare", "--json"];
  if (aCsv === bCsv) args.push(aCsv, "--by", `variant=${aVariant},${bVariant}`, "--where", "warmup=false");
  else args.push("--a", aCsv, "--b", bCsv, "--where", "warmup=false", "--where", `variant=${aVariant}`);
  if (aCsv !== bCsv && aVariant !== bVariant) throw new Error("cross-cell comparisons keep the variant");
  const out = execFileSync("node", args, { cwd: root, encoding: "utf8" });
  writeFileSync(join(here, "comparisons", `${name}.json`), out);
  return { name, args: args.slice(1), result: JSON.parse(out) };
}

const csv = (c) => relative(root, join(root, c.dir, "series/results.csv"));
const comparisons = [];
// Within each mode: extension off (A) vs all (B).
for (const c of cells) comparisons.push({ kind: "extension", mode: c.mode, ...compare(`${c.mode}-off-vs-on`, csv(c), "off", csv(c), "on") });
// Across modes, same extension setting: every pair of modes, A = the earlier cell in cells.json.
for (const v of ["off", "on"]) {
  for (let i = 0; i < cells.length; i++) {
    for (let j = i + 1; j < cells.length; j++) {
      const [a, b] = [cells[i], cells[j]];
      comparisons.push({ kind: "mode", variant: v, a: a.mode, b: b.mode, ...compare(`${v}-${a.mode}-vs-${b.mode}`, csv(a), v, csv(b), v) });
    }
  }
}

// One row per cell: mean tps with its 95% t interval, from the compare summaries.
function cellStats(s) {
  const half = s.n > 1 ? tQuantile(0.975, s.n - 1) * (s.sd / Math.sqrt(s.n)) : NaN;
  return { n: s.n, mean: s.mean, sd: s.sd, cv: s.cv, ci95: [s.mean - half, s.mean + half] };
}
const rows = [];
for (const c of cells) {
  const cmp = comparisons.find((x) => x.kind === "extension" && x.mode === c.mode).result;
  rows.push({ mode: c.mode, kernel: c.kernel, dir: c.dir, variant: "off", ...cellStats(cmp.a) });
  rows.push({ mode: c.mode, kernel: c.kernel, dir: c.dir, variant: "on", ...cellStats(cmp.b) });
}
const tests = comparisons.map((x) => ({
  name: x.name,
  kind: x.kind,
  a: x.kind === "extension" ? `${x.mode}/off` : `${x.a}/${x.variant}`,
  b: x.kind === "extension" ? `${x.mode}/on` : `${x.b}/${x.variant}`,
  differencePct: x.result.welch.differencePct,
  ci95Pct: x.result.welch.ciPct,
  bootstrapCi95Pct: [x.result.bootstrap.meanDiffPct.lo, x.result.bootstrap.meanDiffPct.hi],
  welchP: x.result.welch.p,
  minimumDetectableEffectPct: x.result.power.minimumDetectableEffectPct,
  verdict: x.result.verdict,
  command: `slicelab ${x.args.join(" ")}`,
}));
writeFileSync(join(here, "summary.json"), `${JSON.stringify({ cells: rows, comparisons: tests }, null, 2)}\n`);

const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
const pct = (x) => (Number.isFinite(x) ? `${x > 0 ? "+" : ""}${x.toFixed(1)}%` : String(x));
const lines = [
  "| mode | kernel | slice_extension | n | mean tps | 95% CI | CV |",
  "| --- | --- | --- | ---: | ---: | --- | ---: |",
  ...rows.map((r) => `| ${r.mode} | ${r.kernel} | ${r.variant === "on" ? "all" : "off"} | ${r.n} | ${f(r.mean)} | ${f(r.ci95[0])} – ${f(r.ci95[1])} | ${f(100 * r.cv, 0)}% |`),
  "",
  "| B vs A | difference (Welch) | 95% CI | bootstrap 95% CI | p | detectable with 80% power | verdict |",
  "| --- | ---: | --- | --- | ---: | ---: | --- |",
  ...tests.map((t) => `| ${t.b} vs ${t.a} | ${pct(t.differencePct)} | ${pct(t.ci95Pct[0])} to ${pct(t.ci95Pct[1])} | ${pct(t.bootstrapCi95Pct[0])} to ${pct(t.bootstrapCi95Pct[1])} | ${t.welchP.toFixed(3)} | ±${f(t.minimumDetectableEffectPct)}% | ${t.verdict} |`),
  "",
];
writeFileSync(join(here, "table.md"), lines.join("\n"));
process.stdout.write(lines.join("\n"));
