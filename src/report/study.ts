/**
 * The report page of one study record (report.html): design, factor table with contrasts and
 * intervals, verdict, provenance, and what the record cannot tell. `slicelab study run` and
 * `study analyze` pass it to the study layer's analysis (src/study/analyze.ts), which writes it.
 */
import { fieldText, isUnknown, type RecordEnvelope } from "../record/format.js";
import type { StudyAnalysisResult } from "../study/analyze.js";
import type { Study } from "../study/study.js";
import { page } from "./page.js";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** What a record cannot tell: its unknown fields, the levels of reboot factors it does not cover, and the VM caveat. */
export function limits(rec: RecordEnvelope, study: Study): string[] {
  const out: string[] = [];
  const walk = (o: unknown, path: string) => {
    if (isUnknown(o)) out.push(`${path}: unknown — ${o.unknown}`);
    else if (typeof o === "object" && o !== null && !Array.isArray(o) && path.split(".").length < 2) for (const [k, v] of Object.entries(o)) walk(v, path ? `${path}.${k}` : k);
  };
  for (const k of ["environment", "command", "kit", "host", "kernel", "glibc", "postgres", "started", "ended", "concurrent"] as const) walk(rec[k], k);
  const design = isUnknown(rec.design) ? {} : rec.design;
  const boot = (design.boot ?? {}) as Record<string, string>;
  for (const f of study.factors.filter((x) => x.changes === "boot")) {
    const rest = f.levels.filter((l) => l !== boot[f.name]);
    if (rest.length) out.push(`${f.name}: this record covers ${boot[f.name] ?? "one level"} only; ${rest.join(", ")} need${rest.length === 1 ? "s" : ""} another boot and another record`);
  }
  if (!isUnknown(rec.environment) && rec.environment.kind === "vm") out.push("ran in the kit's VM: under QEMU TCG the CPU is emulated, so throughput and times are functional evidence, not performance; counts (grants, requests) are valid");
  if (!isUnknown(rec.kernel.sliceExtension) && rec.kernel.sliceExtension.startsWith("unavailable")) out.push(`the kernel had no slice extension (${rec.kernel.sliceExtension}): extension levels measure the patch's no-kernel-support path, not the mechanism`);
  return out;
}

/** The report page of one record of a study: design, factor table with intervals, verdict, provenance, limits. */
export function studyReport(rec: RecordEnvelope, study: Study, a: StudyAnalysisResult): string {
  const b: string[] = [];
  b.push(`<h1>${esc(study.title)}</h1>`);
  b.push(`<p>${esc(study.question)}</p>`);
  b.push(`<h2>Design</h2><table><thead><tr><th>factor</th><th>levels</th><th>changes</th><th>how</th></tr></thead><tbody>`);
  for (const f of study.factors) b.push(`<tr><td>${esc(f.name)}</td><td>${esc(f.levels.join(", "))}</td><td>${f.changes === "run" ? "within a boot" : f.changes === "boot" ? "needs a reboot" : "needs a rebuild"}</td><td>${esc(f.via)}</td></tr>`);
  b.push(`</tbody></table>`);
  const d = isUnknown(rec.design) ? undefined : rec.design;
  b.push(`<p>${esc(study.design.kind === "blocks" ? "Randomised complete blocks" : "Sequential")}; ${esc(d ? `${String(d.runsPerCell ?? "?")} runs per cell (${String(d.warmup ?? "?")} warm-up), cells ${Array.isArray(d.cells) ? (d.cells as string[]).join(", ") : "?"}` : fieldText(rec.design))}; ${a.runs} runs recorded.</p>`);
  b.push(`<h2>Verdict</h2><p><strong>${esc(a.verdict)}</strong> — ${esc(a.reason)}</p><p>Rule: ${esc(study.analysis.verdict)}</p>`);
  if (a.contrasts.length) {
    b.push(`<h2>Contrasts</h2><table><thead><tr><th>contrast</th><th>at</th><th>workload</th><th>n</th><th>B − A (% of A)</th><th>95% CI</th><th>verdict</th></tr></thead><tbody>`);
    for (const c of a.contrasts) {
      const ok = Number.isFinite(c.meanDiffPct);
      b.push(`<tr><td>${esc(`${c.factor}: ${c.b} − ${c.a}`)}</td><td>${esc(Object.entries(c.at).map(([k, v]) => `${k}=${v}`).join(", ") || "—")}</td><td>${esc(c.workload)}</td><td>${c.n}</td><td>${ok ? c.meanDiffPct.toFixed(2) : "—"}</td><td>${ok ? `[${c.ciPct[0].toFixed(2)}, ${c.ciPct[1].toFixed(2)}]` : "—"}</td><td>${esc(c.verdict)}</td></tr>`);
    }
    b.push(`</tbody></table>`);
  }
  b.push(`<h2>Provenance</h2><table><tbody>`);
  const prov: [string, unknown][] = [
    ["where", rec.environment], ["command", rec.command], ["kit", `${fieldText(rec.kit.commit)}${rec.kit.dirty === true ? " (dirty)" : ""}`],
    ["host", `${fieldText(rec.host.hostname)}, ${fieldText(rec.host.cpuModel)}, ${fieldText(rec.host.cpus)} CPUs`],
    ["kernel", `${fieldText(rec.kernel.release)}, config sha256 ${fieldText(rec.kernel.configSha256)}`], ["preemption", rec.kernel.preemptMode],
    ["slice extension", rec.kernel.sliceExtension], ["glibc", rec.glibc], ["PostgreSQL", `${fieldText(rec.postgres.version)}; ${fieldText(rec.postgres.build)}; patch ${fieldText(rec.postgres.patch)}`],
    ["started / ended", `${fieldText(rec.started)} / ${fieldText(rec.ended)}`], ["also running", rec.concurrent],
  ];
  for (const [k, v] of prov) b.push(`<tr><th>${esc(k)}</th><td>${esc(typeof v === "string" ? v : fieldText(v as never))}</td></tr>`);
  b.push(`</tbody></table>`);
  const lim = limits(rec, study);
  b.push(`<h2>What this record cannot tell</h2><ul>${lim.map((l) => `<li>${esc(l)}</li>`).join("") || "<li>nothing beyond the design's own limits</li>"}</ul>`);
  return page(`${study.name}: ${rec.title}`, b.join("\n"));
}
