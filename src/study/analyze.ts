import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { analyzeSeries } from "../bench/analysis.js";
import { seriesRows } from "../bench/series.js";
import { fieldText, isUnknown, readRecord, writeRecord, type RecordEnvelope } from "../record/format.js";
import { combineVerdicts, verdictsIn } from "../record/verdicts.js";
import { cellName, type Study } from "./study.js";
import { driverSpec } from "./drivers/index.js";

/**
 * A study's own rule applied to one of its records: for "paired-contrast", the
 * within-block paired CI of B − A for every contrast, in every cell of the other
 * factors and every workload, judged against the study's goal; for "none", a
 * check that every run finished with a positive throughput; for "script", the
 * script's or the experiment driver's own file of verdicts (out/analysis.json, or the file the
 * driver names). The result goes to analysis.json and the record's
 * `analysis` field; report.html is the page generated from both.
 */

export interface ContrastResult {
  factor: string;
  a: string;
  b: string;
  /** The other factors' levels this comparison holds fixed. */
  at: Record<string, string>;
  workload: string;
  cellA: string;
  cellB: string;
  n: number;
  meanDiffPct: number;
  ciPct: [number, number];
  halfWidthPct: number;
  /** "B higher", "B lower", "no difference resolved", "UNRESOLVED (CI wider than the goal)", "not analysable: why". */
  verdict: string;
}

export interface StudyAnalysisResult {
  study: string;
  rule: Study["analysis"]["rule"];
  verdict: string;
  reason: string;
  contrasts: ContrastResult[];
  /** Cells and runs the record holds (series studies). */
  runs: number;
}

/** The verdict on one paired interval against the study's goal. */
export function contrastVerdict(ci: [number, number], halfWidthPct: number, goalHalfWidth: number | undefined): string {
  if (goalHalfWidth !== undefined && halfWidthPct > goalHalfWidth) return `UNRESOLVED (±${halfWidthPct.toFixed(2)}% is wider than the goal ±${goalHalfWidth}%)`;
  if (ci[0] > 0) return "B higher";
  if (ci[1] < 0) return "B lower";
  return "no difference resolved";
}

/** A study record's report page (src/report/study.ts `studyReport`, passed in by the CLI: the study layer renders nothing itself). */
export type StudyReportRenderer = (rec: RecordEnvelope, study: Study, a: StudyAnalysisResult) => string;

export function analyzeStudyRecord(dir: string, study: Study, render: StudyReportRenderer): StudyAnalysisResult {
  const rule = study.analysis.rule;
  const contrasts: ContrastResult[] = [];
  let verdict: string;
  let reason: string;
  let runs = 0;
  if (study.driver === "series") {
    const seriesDir = join(dir, "series");
    const rows = seriesRows(seriesDir);
    runs = new Set(rows.map((r) => r.id)).size;
    const plan = JSON.parse(readFileSync(join(seriesDir, "series.json"), "utf8")) as { variants: { name: string }[] };
    const present = new Set(plan.variants.map((v) => v.name));
    const workloads = [...new Set(rows.map((r) => r.workload))];
    if (rule === "none") {
      const bad = rows.filter((r) => !(r.tps > 0));
      verdict = bad.length === 0 && rows.length > 0 ? "ran" : "failed";
      reason =
        rows.length === 0
          ? "no finished run"
          : bad.length === 0
            ? `${runs} runs, ${rows.length} workload results, every one with a positive tps (${workloads.join(", ")})`
            : `${bad.length} of ${rows.length} workload results have no positive tps: ${bad.slice(0, 3).map((r) => `${r.id}/${r.workload}`).join(", ")}`;
    } else {
      const goal = study.analysis.goal?.halfWidthPct;
      for (const c of study.analysis.contrasts) {
        const others = study.factors.filter((f) => f.name !== c.factor);
        // Every combination of the other factors' levels present in the record.
        const combos = new Map<string, Record<string, string>>();
        for (const v of present) {
          const levels: Record<string, string> = {};
          for (const f of study.factors) {
            const segs = `.${v}.`;
            const hit = [...f.levels].sort((x, y) => y.length - x.length).find((l) => segs.includes(`.${f.name}-${l}.`));
            if (hit !== undefined) levels[f.name] = hit;
          }
          const at = Object.fromEntries(others.filter((f) => levels[f.name] !== undefined).map((f) => [f.name, levels[f.name] as string]));
          combos.set(JSON.stringify(at), at);
        }
        for (const at of combos.values()) {
          const la: Record<string, string> = { ...at, [c.factor]: c.a };
          const lb: Record<string, string> = { ...at, [c.factor]: c.b };
          const ca = cellName(la, study.factors.filter((f) => f.name in la));
          const cb = cellName(lb, study.factors.filter((f) => f.name in lb));
          if (!present.has(ca) || !present.has(cb)) continue;
          for (const w of workloads) {
            try {
              const r = analyzeSeries(seriesDir, { a: ca, b: cb, workload: w });
              contrasts.push({
                factor: c.factor, a: c.a, b: c.b, at, workload: w, cellA: ca, cellB: cb,
                n: r.blocks.n, meanDiffPct: r.blocks.meanDiffPct, ciPct: r.blocks.ciPct, halfWidthPct: r.blocks.halfWidthPct,
                verdict: contrastVerdict(r.blocks.ciPct, r.blocks.halfWidthPct, goal),
              });
            } catch (err) {
              if (!(err instanceof UserError)) throw err;
              contrasts.push({ factor: c.factor, a: c.a, b: c.b, at, workload: w, cellA: ca, cellB: cb, n: 0, meanDiffPct: NaN, ciPct: [NaN, NaN], halfWidthPct: NaN, verdict: `not analysable: ${err.message}` });
            }
          }
        }
      }
      const resolved = contrasts.filter((x) => x.verdict === "B higher" || x.verdict === "B lower");
      verdict = contrasts.length === 0 ? "not analysable" : resolved.length ? "effects resolved" : contrasts.some((x) => x.verdict.startsWith("UNRESOLVED") || x.verdict.startsWith("not")) ? "UNRESOLVED" : "no difference resolved";
      reason = contrasts.map((x) => `${x.factor} ${x.b} − ${x.a}${Object.keys(x.at).length ? ` at ${Object.entries(x.at).map(([k, v]) => `${k}=${v}`).join(",")}` : ""} (${x.workload}): ${Number.isFinite(x.meanDiffPct) ? `${x.meanDiffPct.toFixed(2)}% [${x.ciPct[0].toFixed(2)}, ${x.ciPct[1].toFixed(2)}]` : "—"} ${x.verdict}`).join("; ") || "no contrast had both cells in the record";
    }
  } else {
    // A script's or an experiment driver's own analysis: the file it writes its verdicts to.
    const f = join(dir, "out", study.driver === "experiment" ? (driverSpec(study.experiment as string)?.verdictFile ?? "analysis.json") : "analysis.json");
    if (!existsSync(f)) {
      verdict = "not analysable";
      reason = `the script left no ${f}`;
    } else {
      const c = combineVerdicts(verdictsIn(JSON.parse(readFileSync(f, "utf8")) as unknown));
      verdict = c?.verdict ?? "none";
      reason = c?.reason ?? `${f} states no verdict`;
    }
  }
  const result: StudyAnalysisResult = { study: study.name, rule, verdict, reason, contrasts, runs };
  writeFileAtomic(join(dir, "analysis.json"), `${JSON.stringify(result, null, 2)}\n`);
  const rec = readRecord(dir);
  rec.analysis = { verdict, reason, file: "analysis.json" };
  writeRecord(dir, rec);
  writeFileAtomic(join(dir, "report.html"), render(rec, study, result));
  return result;
}
