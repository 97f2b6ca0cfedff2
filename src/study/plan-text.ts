import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "../util/paths.js";
import { formatDuration } from "../bench/progress.js";
import { cells, type Factor } from "./study.js";
import type { StudyPlan } from "./run.js";

/** The plan of `slicelab study run` in words (what `--dry-run` prints). */

function changeText(f: Factor): string {
  if (f.changes === "boot") return "needs a reboot (one boot per level; the kit never edits the bootloader)";
  if (f.changes === "build") return "needs a rebuild";
  if (f.via === "preempt") return "within a boot: written to sched/preempt before each run";
  if (f.via === "bin") return "within a boot: each build has its own cluster";
  if (f.via === "arm") return "within a boot: the experiment's arms";
  return `within a boot: ${f.via.slice("setting:".length)} set for the run's server`;
}

/** The plan in words: what `--dry-run` prints. */
export function planText(p: StudyPlan): string {
  const s = p.study;
  const L: string[] = [];
  L.push(`study ${s.name}: ${s.title}`);
  L.push(`  ${s.question}`);
  L.push(`  file ${relative(repoRoot(), s.file)} (sha256 ${s.hash.slice(0, 12)}…)${p.vm ? ", shrunk for the kit's VM (its \"vm\" section)" : ""}`);
  L.push(`  runs ${s.driver === "series" ? `protocol ${s.protocol}` : s.driver === "experiment" ? `the ${s.experiment} experiment (src/study/drivers/)` : `the script ${s.script?.join(" ")}`}`);
  L.push("");
  L.push("factors:");
  for (const f of s.factors) L.push(`  ${f.name.padEnd(10)} ${f.levels.join(" | ").padEnd(24)} ${changeText(f)}${p.boot[f.name] ? ` — this boot: ${p.boot[f.name]}` : ""}`);
  if (s.factors.length === 0) L.push("  (none: one variant)");
  L.push(`  within a boot: ${p.withinBoot.join(", ") || "none"}; across boots: ${p.needReboot.join(", ") || "none"}`);
  L.push("");
  if (s.driver === "series") {
    L.push(`design: ${s.design.kind === "blocks" ? "randomised complete blocks" : "sequential"}, ${p.cells.length} cell${p.cells.length === 1 ? "" : "s"} × ${p.runsPerCell} runs (${p.warmup} warm-up block${p.warmup === 1 ? "" : "s"}) = ${p.totalRuns} runs`);
    for (const c of p.cells) L.push(`  cell ${c.name}`);
  } else if (p.experiment) L.push(`design: ${p.experiment.plan.text} (${p.totalRuns} runs)`);
  else L.push(`design: the script's own (${p.totalRuns} ${s.design.kind === "blocks" ? "blocks/pairs" : "runs"} as configured)`);
  if (Object.keys(p.params).length) L.push(`parameters: ${Object.entries(p.params).map(([k, v]) => `${k}=${v}`).join(" ")}`);
  L.push("");
  L.push("prepare:");
  for (const st of p.prepare) L.push(`  ${st.name}: ${st.state}`);
  if (p.prepare.length === 0) L.push("  nothing");
  L.push("");
  L.push("checks:");
  for (const c of p.checks) L.push(`  ${c.status.padEnd(7)} ${c.name}: ${c.detail}`);
  L.push("");
  L.push(`estimate: ${formatDuration(p.estimateSeconds)} (${p.experiment ? `the ${s.experiment} driver's estimate for ${p.totalRuns} runs` : `${p.totalRuns} runs × ${p.secondsPerRun} s`}${p.vm ? " + boot; under TCG expect several times longer" : ""}, preparation not included)`);
  L.push(`record: ${p.recordDir}${existsSync(join(p.recordDir, "study-run.json")) ? " (resuming an interrupted run)" : ""}`);
  L.push(`analysis: ${s.analysis.rule}: ${s.analysis.verdict}`);
  const other = s.factors.find((f) => f.changes === "boot");
  if (other && p.boot[other.name]) {
    const rest = other.levels.filter((l) => l !== p.boot[other.name]);
    if (rest.length) L.push(`then: reboot into ${rest.join(", ")} and run the same command again for the other level${rest.length > 1 ? "s" : ""}`);
  }
  return `${L.join("\n")}\n`;
}
