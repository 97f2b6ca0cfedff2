/**
 * Manifests of the historical slice-extension patch series
 * (kernel-patches/linux/series/*.json): referenced by Message-ID and base
 * version for `b4 am`, never vendored.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";

export interface SeriesManifest {
  id: string;
  title: string;
  author: string;
  date: string;
  /** The cover letter's (or the patch's) Message-ID; null when not confirmed. */
  messageId: string | null;
  messageIdStatus: string;
  base: string;
  b4: string;
  lore: string;
  merged: boolean;
  mergedIn?: string;
  file: string;
}

export function seriesDir(): string {
  return join(repoRoot(), "kernel-patches", "linux", "series");
}

const REQUIRED = ["id", "title", "author", "date", "messageId", "messageIdStatus", "base", "b4", "lore", "merged"] as const;

/** Reads and checks every manifest, sorted by date. */
export function listSeries(dir = seriesDir()): SeriesManifest[] {
  if (!existsSync(dir)) return [];
  const out: SeriesManifest[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
    const path = join(dir, f);
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    } catch (err) {
      throw new UserError(`${path}:1: expected JSON, found a syntax error (${(err as Error).message})`);
    }
    for (const k of REQUIRED) {
      if (!(k in obj)) throw new UserError(`${path}: expected a "${k}" field, found none`);
    }
    const mid = obj.messageId;
    if (mid !== null && (typeof mid !== "string" || !/^[^\s<>@]+@[^\s<>@]+$/.test(mid))) {
      throw new UserError(`${path}: expected "messageId" to be a bare Message-ID (local@domain, no <>) or null, found ${JSON.stringify(mid)}`);
    }
    if (mid === null && !/unconfirmed/.test(String(obj.messageIdStatus))) {
      throw new UserError(`${path}: "messageId" is null, so "messageIdStatus" must say why (contain "unconfirmed")`);
    }
    if (typeof obj.b4 !== "string" || !obj.b4.startsWith("b4 am ")) {
      throw new UserError(`${path}: expected "b4" to be a \`b4 am MESSAGE-ID\` command, found ${JSON.stringify(obj.b4)}`);
    }
    out.push({ ...(obj as unknown as SeriesManifest), file: path });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date));
}
