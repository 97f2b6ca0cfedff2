/**
 * Kernel builds as recorded in the repository (data/runs/kernel-build/20261130T024149Z/*.json, written by the
 * kernel build benchmark), as opposed to the build the cache of the machine at hand holds: a
 * notebook shows the recorded ones as its figures and this machine's only as machine facts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";

export interface RecordedKernelBuild {
  record: string;
  measured: string;
  kind: "cold" | "warm";
  seconds: number;
  ccacheHits: number;
  ccacheMisses: number;
  version: string;
  configSha256: string;
  loadavgStart: number[] | null;
}

export function recordedKernelBuilds(dir = join(repoRoot(), "data", "runs", "kernel-build/20261130T024149Z")): RecordedKernelBuild[] {
  if (!existsSync(dir)) return [];
  const out: RecordedKernelBuild[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
    const path = join(dir, name);
    let d: { measured?: string; kernel?: { version?: string; configSha256?: string }; builds?: Record<string, unknown>[] };
    try {
      d = JSON.parse(readFileSync(path, "utf8"));
    } catch (e) {
      throw new UserError(`${path}: expected a kernel build benchmark record (JSON), found unparsable text: ${(e as Error).message}`);
    }
    for (const b of d.builds ?? []) {
      if ((b.kind !== "cold" && b.kind !== "warm") || typeof b.seconds !== "number") {
        throw new UserError(`${path}: expected builds[] entries with kind cold|warm and seconds, found ${JSON.stringify(b).slice(0, 120)}`);
      }
      out.push({
        record: `data/runs/kernel-build/20261130T024149Z/${name}`,
        measured: d.measured ?? name.replace(/\.json$/, ""),
        kind: b.kind,
        seconds: b.seconds,
        ccacheHits: Number(b.ccacheHits),
        ccacheMisses: Number(b.ccacheMisses),
        version: d.kernel?.version ?? "unknown",
        configSha256: d.kernel?.configSha256 ?? "unknown",
        loadavgStart: Array.isArray(b.loadavgStart) ? (b.loadavgStart as number[]) : null,
      });
    }
  }
  return out;
}
