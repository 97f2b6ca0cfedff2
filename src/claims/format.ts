/**
 * Plain-text renderings of the ledger for the terminal: a table (id, verdict, reason)
 * and the full record of one claim. Deterministic; no colours.
 */
import { REPRODUCTION_STATUSES, type ClaimEntry } from "./entry.js";
import { VERDICTS, VERDICT_MEANINGS } from "./verdicts.js";

/** Greedy word wrap to `width` columns (words longer than the width stay whole). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines.length > 0 ? lines : [""];
}

/** The ledger as a table: ID, VERDICT, REASON (wrapped), then the verdict legend. */
export function formatLedgerTable(entries: readonly ClaimEntry[], width = 120): string {
  const idW = Math.max(2, ...entries.map((e) => e.id.length));
  const vW = Math.max(7, ...entries.map((e) => e.verdict.length));
  const reasonW = Math.max(30, width - idW - vW - 4);
  const out: string[] = [`${"ID".padEnd(idW)}  ${"VERDICT".padEnd(vW)}  REASON`];
  for (const e of entries) {
    const lines = wrap(e.reason, reasonW);
    out.push(`${e.id.padEnd(idW)}  ${e.verdict.padEnd(vW)}  ${lines[0]}`);
    for (const l of lines.slice(1)) out.push(`${" ".repeat(idW + vW + 4)}${l}`);
  }
  const counts = VERDICTS.map((v) => [v, entries.filter((e) => e.verdict === v).length] as const).filter(([, n]) => n > 0);
  const ours = REPRODUCTION_STATUSES.map((st) => [st, entries.filter((e) => e.reproduction.status === st).length] as const).filter(([, n]) => n > 0);
  out.push(
    "",
    `${entries.length} claims: ${counts.map(([v, n]) => `${n} ${v}`).join(", ")}`,
    `our runs (field reproduction): ${ours.map(([st, n]) => `${n} ${st}`).join(", ")}`,
    "",
    "verdicts:",
  );
  const lw = Math.max(...VERDICTS.map((v) => v.length));
  for (const v of VERDICTS) {
    const lines = wrap(VERDICT_MEANINGS[v], Math.max(30, width - lw - 4));
    out.push(`  ${v.padEnd(lw)}  ${lines[0]}`);
    for (const l of lines.slice(1)) out.push(`  ${" ".repeat(lw)}  ${l}`);
  }
  out.push("", "Details of one claim: slicelab claims --id ID");
  return out.join("\n");
}

/** Every field of one claim, labelled, wrapped to `width`. */
export function formatClaim(e: ClaimEntry, width = 100): string {
  const fields: [string, string][] = [
    ["id", e.id],
    ["source", e.source],
    ["claim", e.claim],
    ["cites", e.cites.length > 0 ? e.cites.join(" ") : "—"],
    ["published", e.published],
    ["recomputed", e.recomputed],
    ["uncertainty", e.uncertainty ?? "—"],
    ["verdict", e.verdict],
    ["reason", e.reason],
    ["basis", e.basis],
    ["our runs", `${e.reproduction.status}${e.reproduction.note ? `: ${e.reproduction.note}` : ""}`],
    ["records", e.reproduction.records.length > 0 ? e.reproduction.records.join(" ") : "—"],
  ];
  const lw = Math.max(...fields.map(([k]) => k.length));
  const out: string[] = [];
  for (const [k, v] of fields) {
    const lines = wrap(v, Math.max(30, width - lw - 2));
    out.push(`${k.padEnd(lw)}  ${lines[0]}`);
    for (const l of lines.slice(1)) out.push(`${" ".repeat(lw + 2)}${l}`);
  }
  out.push("values:");
  const vw = Math.max(0, ...Object.keys(e.values).map((k) => k.length));
  for (const [k, v] of Object.entries(e.values)) out.push(`  ${k.padEnd(vw)}  ${v === null ? "null" : String(v)}`);
  return out.join("\n");
}
