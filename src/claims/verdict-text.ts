/**
 * The sentence notebook 01 prints under each claim: the ledger's verdict with its reason and, when
 * our runs bear on it, what they say with the records.
 */
import type { ClaimEntry } from "./entry.js";

/** Markdown-safe text (names like runqueue_lock contain underscores). */
export function mdEscape(s: string): string {
  return s.replace(/([_*\\[\]])/g, "\\$1");
}

/** "**id — verdict:** reason. *Our runs: status* — note (`record`, …)." */
export function verdictText(e: Pick<ClaimEntry, "id" | "verdict" | "reason" | "reproduction">): string {
  const r = e.reproduction;
  const records = r.records.length ? ` (${r.records.map((x) => `\`${x}\``).join(", ")})` : "";
  const ours = r.status === "not applicable" ? "" : ` *Our runs: ${r.status}* — ${mdEscape(r.note)}${records}.`;
  return `**${mdEscape(e.id)} — ${e.verdict}:** ${mdEscape(e.reason)}.${ours}`;
}
