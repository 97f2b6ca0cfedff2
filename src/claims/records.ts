/**
 * Our own records (data/runs/NAME) that ledger entries link to: existence checks and
 * the few summaries the reproduction notes are computed from.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";

/** `data/runs/NAME` after checking that it exists in the repository. */
export function recordDir(name: string): string {
  const rel = `data/runs/${name}`;
  if (!existsSync(join(repoRoot(), rel))) throw new UserError(`${rel}: the claims ledger links this record, but it is not in the repository`);
  return rel;
}

/** A JSON file of a record, parsed; a clear error when it is missing or not JSON. */
export function readRecordJson<T>(name: string, file: string): T {
  const path = `${recordDir(name)}/${file}`;
  let text: string;
  try {
    text = readFileSync(join(repoRoot(), path), "utf8");
  } catch (err) {
    throw new UserError(`${path}: cannot read the record (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new UserError(`${path}: not valid JSON (${(err as Error).message})`);
  }
}

/** The mechanism study's side-by-side batch (VM, TCG): preemption mode × slice_extension. */
export const MECHANISM_RECORD = "vm-eviction/20261130T000002Z";

export interface MechanismCell {
  mode: string;
  kernel: string;
  variant: string;
  n: number;
  mean: number;
  sliceExtension: { requests: number; grants: number; yields: number; revoked: number };
}

export interface MechanismComparison {
  name: string;
  kind: string;
  a: string;
  b: string;
  differencePct: number;
  ci95Pct: [number, number];
  welchP: number;
  minimumDetectableEffectPct: number;
  verdict: string;
}

export interface MechanismSummary {
  cells: MechanismCell[];
  comparisons: MechanismComparison[];
}

export function mechanismSummary(): MechanismSummary {
  const s = readRecordJson<MechanismSummary>(MECHANISM_RECORD, "summary.json");
  if (!Array.isArray(s.cells) || !Array.isArray(s.comparisons)) {
    throw new UserError(`data/runs/${MECHANISM_RECORD}/summary.json: expected "cells" and "comparisons" lists`);
  }
  return s;
}

/** The comparison named `name`, or a UserError listing the names. */
export function mechanismComparison(s: MechanismSummary, name: string): MechanismComparison {
  const c = s.comparisons.find((x) => x.name === name);
  if (!c) throw new UserError(`data/runs/${MECHANISM_RECORD}/summary.json: no comparison "${name}" (have: ${s.comparisons.map((x) => x.name).join(", ")})`);
  return c;
}
