/** The claims ledger as an HTML table for the report. */
import { escapeHtml } from "./notebook.js";
import { claimAnchor } from "./enhance.js";

/** The ledger fields the report shows (a subset of src/claims ClaimEntry). */
export interface LedgerRow {
  id: string;
  source: string;
  claim: string;
  published: string;
  recomputed: string;
  uncertainty?: string | null;
  verdict: string;
  reason: string;
}

/** CSS class of a verdict badge: reproduced, not-reproduced, not-significant, fragile, or other. */
export function verdictClass(verdict: string): string {
  const slug = verdict.toLowerCase().replace(/[^a-z]+/g, "-").replace(/^-|-$/g, "");
  return ["reproduced", "not-reproduced", "not-significant", "fragile", "recomputed", "not-recomputed", "not-yet-reproduced"].includes(slug) ? `sl-verdict-${slug}` : "sl-verdict-other";
}

/**
 * One row per claim, in ledger order: id, source, claim, published, recomputed
 * (with its uncertainty), verdict, reason. A legend of verdict meanings follows
 * when `meanings` is given.
 */
export function ledgerTableHtml(rows: readonly LedgerRow[], meanings?: Readonly<Record<string, string>>, sourceUrls: Readonly<Record<string, string>> = {}): string {
  const columns = ["id", "source", "claim", "published", "recomputed", "verdict", "reason"];
  const head = columns.map((h) => `<th>${h}</th>`).join("");
  const cols = columns.map((h) => `<col class="sl-c-${h}">`).join("");
  const body = rows
    .map((r) => {
      const recomputed = r.uncertainty ? `${escapeHtml(r.recomputed)}<br><small>${escapeHtml(r.uncertainty)}</small>` : escapeHtml(r.recomputed);
      return [
        `<tr data-claim="${escapeHtml(r.id)}" id="${claimAnchor(r.id)}">`,
        `<td class="sl-id"><a class="sl-claim-self" href="#${claimAnchor(r.id)}">${escapeHtml(r.id)}</a></td>`,
        `<td>${sourceUrls[r.source] ? `<a class="sl-source" href="${escapeHtml(sourceUrls[r.source]!)}">${escapeHtml(r.source)}</a>` : escapeHtml(r.source)}</td>`,
        `<td>${escapeHtml(r.claim)}</td>`,
        `<td>${escapeHtml(r.published)}</td>`,
        `<td>${recomputed}</td>`,
        `<td><span class="sl-verdict ${verdictClass(r.verdict)}">${escapeHtml(r.verdict)}</span></td>`,
        `<td>${escapeHtml(r.reason)}</td>`,
        "</tr>",
      ].join("");
    })
    .join("\n");
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
  const summary = `<p class="sl-meta">${rows.length} claims: ${[...counts].map(([v, n]) => `${n} ${escapeHtml(v)}`).join(", ")}</p>`;
  const legend = meanings
    ? `<dl class="sl-legend">${Object.entries(meanings)
        .map(([v, m]) => `<dt><span class="sl-verdict ${verdictClass(v)}">${escapeHtml(v)}</span></dt><dd>${escapeHtml(m)}</dd>`)
        .join("")}</dl>`
    : "";
  return `<table class="sl-ledger"><colgroup>${cols}</colgroup><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>\n${summary}\n${legend}`;
}
