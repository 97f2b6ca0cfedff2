/**
 * pg-waits: samples pg_stat_activity at a fixed interval during the run and counts, for the
 * active client backends, what each was waiting on (wait_event_type:wait_event; "CPU" when it
 * was active without a wait event). One sample = one query through ctx.query; the next sample
 * is scheduled after the previous one returned, so a slow server is sampled less often rather
 * than queued up. Raw samples go to pg-waits.jsonl (one JSON line per sample).
 */
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";
import { UserError } from "../util/errors.js";
import type { CheckResult, Collector, CollectContext, CollectorOutput } from "./index.js";

/** One row per other backend: [pid, backend_type, state, wait_event_type, wait_event], as one JSON text. */
export const PG_WAITS_SQL =
  "SELECT coalesce(json_agg(json_build_array(pid, backend_type, state, wait_event_type, wait_event)), '[]'::json) " +
  "FROM pg_stat_activity WHERE pid <> pg_backend_pid()";

export type ActivityRow = [pid: number, backendType: string | null, state: string | null, waitEventType: string | null, waitEvent: string | null];

export interface PgWaitsSample {
  /** Milliseconds since start(). */
  t: number;
  rows: ActivityRow[];
}

export interface PgWaitsSummary {
  intervalMs: number;
  samples: number;
  failedSamples: number;
  /** Mean number of active client backends per sample. */
  activeBackendsMean: number;
  /** Active client backends by what they waited on, most frequent first; share = count / all active observations. */
  byEvent: { event: string; waitEventType: string | null; waitEvent: string | null; count: number; share: number }[];
}

/** Parses the text of PG_WAITS_SQL (the JSON array, possibly with surrounding whitespace). */
export function parseActivityJson(text: string): ActivityRow[] {
  const t = text.trim();
  const v: unknown = JSON.parse(t);
  if (!Array.isArray(v) || !v.every((r) => Array.isArray(r) && r.length === 5)) {
    throw new Error(`expected a JSON array of 5-element rows, found ${JSON.stringify(t.slice(0, 80))}`);
  }
  return v as ActivityRow[];
}

/** Counts the active client backends of the samples by wait event. */
export function summarizePgWaits(samples: PgWaitsSample[], intervalMs: number, failedSamples = 0): PgWaitsSummary {
  const counts = new Map<string, { waitEventType: string | null; waitEvent: string | null; count: number }>();
  let active = 0;
  for (const s of samples) {
    for (const [, type, state, wtype, wevent] of s.rows) {
      if (type !== "client backend" || state !== "active") continue;
      active++;
      const key = wtype === null ? "CPU" : `${wtype}:${wevent ?? ""}`;
      const c = counts.get(key) ?? { waitEventType: wtype, waitEvent: wevent, count: 0 };
      c.count++;
      counts.set(key, c);
    }
  }
  const byEvent = [...counts.entries()]
    .map(([event, c]) => ({ event, ...c, share: active > 0 ? c.count / active : 0 }))
    .sort((a, b) => b.count - a.count || a.event.localeCompare(b.event));
  return { intervalMs, samples: samples.length, failedSamples, activeBackendsMean: samples.length > 0 ? active / samples.length : 0, byEvent };
}

export interface PgWaitsOptions {
  intervalMs?: number;
}

export function createPgWaitsCollector(opts: PgWaitsOptions = {}): Collector {
  const intervalMs = opts.intervalMs ?? 100;
  let running = false;
  let loop: Promise<void> | null = null;
  let samples: PgWaitsSample[] = [];
  let failed = 0;
  let firstError: string | null = null;
  return {
    name: "pg-waits",
    description: `PostgreSQL wait events of active client backends, sampled from pg_stat_activity every ${intervalMs} ms`,
    async check(): Promise<CheckResult> {
      // Needs only a query function, which the harness passes with each run.
      return { ok: true };
    },
    async start(ctx: CollectContext): Promise<void> {
      const query = ctx.query;
      if (!query) throw new UserError("pg-waits: the run gave no query function (the harness must pass the cluster's query)");
      samples = [];
      failed = 0;
      firstError = null;
      running = true;
      const t0 = performance.now();
      loop = (async () => {
        while (running) {
          const tick = performance.now();
          try {
            const rows = parseActivityJson(await query(PG_WAITS_SQL));
            samples.push({ t: Math.round(tick - t0), rows });
          } catch (err) {
            failed++;
            firstError ??= err instanceof Error ? err.message : String(err);
          }
          const wait = intervalMs - (performance.now() - tick);
          if (running && wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
      })();
    },
    async stop(ctx: CollectContext): Promise<CollectorOutput> {
      running = false;
      await loop;
      loop = null;
      const file = "pg-waits.jsonl";
      writeFileAtomic(join(ctx.runDir, file), samples.map((s) => JSON.stringify(s)).join("\n") + (samples.length ? "\n" : ""));
      const summary = summarizePgWaits(samples, intervalMs, failed);
      const notes = failed > 0 ? [`${failed} sample(s) failed; first error: ${firstError}`] : [];
      return { collector: "pg-waits", files: [file], parsed: summary, notes };
    },
  };
}
