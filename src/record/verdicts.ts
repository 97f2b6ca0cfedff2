/**
 * The verdicts a record's own analysis files state (analysis.json, summary.json, comparison.json),
 * wherever in the file they are: a top-level `verdict`, one per arm (`comparisons[].verdict`), one
 * per figure (`tpsRatio.verdict`). Each keeps its label (the path, or the arm it names) so that an
 * A/A control's verdict is never read as the record's.
 */

export interface LabelledVerdict {
  label: string;
  verdict: string;
  reason: string;
}

type Json = Record<string, unknown>;

export function verdictsIn(json: unknown): LabelledVerdict[] {
  const out: LabelledVerdict[] = [];
  const walk = (v: unknown, path: string, depth: number) => {
    if (depth > 4 || typeof v !== "object" || v === null) return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`, depth + 1));
      return;
    }
    const o = v as Json;
    if (typeof o.verdict === "string" && o.verdict.length > 0) {
      const name = ["arm", "name", "label", "comparison", "contrast"].map((k) => o[k]).find((x) => typeof x === "string") as string | undefined;
      const ref = typeof o.reference === "string" ? ` vs ${o.reference}` : "";
      out.push({ label: name ? `${name}${ref}` : path || "record", verdict: o.verdict, reason: typeof o.reason === "string" ? o.reason : "" });
    }
    // Robustness re-runs of the same verdict (leave-one-out drops) are not verdicts of their own.
    for (const [k, x] of Object.entries(o)) if (k !== "verdict" && k !== "leaveOneOut") walk(x, path ? `${path}.${k}` : k, depth + 1);
  };
  walk(json, "", 0);
  return out;
}

/** One verdict/reason pair from several: the file's top-level verdict when it has one, else the distinct verdicts; every labelled one in the reason. */
export function combineVerdicts(vs: LabelledVerdict[]): { verdict: string; reason: string } | undefined {
  if (vs.length === 0) return undefined;
  if (vs.length === 1) return { verdict: vs[0]!.verdict, reason: vs[0]!.reason };
  const top = vs.find((v) => v.label === "record");
  if (top) {
    const rest = vs.filter((v) => v !== top);
    return { verdict: top.verdict, reason: `${top.reason}${rest.length ? `; also ${rest.map((v) => `${v.label}: ${v.verdict}${v.reason ? ` (${v.reason})` : ""}`).join("; ")}` : ""}` };
  }
  const distinct = [...new Set(vs.map((v) => v.verdict))];
  return {
    verdict: distinct.length === 1 ? distinct[0]! : `several: ${distinct.join(" / ")}`,
    reason: vs.map((v) => `${v.label}: ${v.verdict}${v.reason ? ` (${v.reason})` : ""}`).join("; "),
  };
}
