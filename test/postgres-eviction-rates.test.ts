/** evictionRates puts v1 and v2 eviction cells on one scale (per hold, per transaction, per run-second). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evictionCell, evictionRates, evictionRatesSentence, evictionRatesTable, ratio } from "../src/postgres/eviction-rates.js";
import { repoRoot } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";

type Run = { id: string; variant: string; warmup: boolean; seconds: number; tx: number; delta?: Record<string, number>; sgrant?: number };

function writeSeries(dir: string, params: Record<string, unknown>, runs: Run[]): void {
  mkdirSync(join(dir, "runs"), { recursive: true });
  writeFileSync(join(dir, "series.json"), JSON.stringify({ workloads: [{ name: "w", params }] }));
  const lines = runs.map((r, i) => JSON.stringify({ run: i + 1, id: r.id, variant: r.variant, warmup: r.warmup, tps: r.tx / r.seconds, seconds: r.seconds, workload: "w" }));
  writeFileSync(join(dir, "results.jsonl"), lines.join("\n") + "\n");
  runs.forEach((r, i) => {
    mkdirSync(join(dir, "runs", r.id), { recursive: true });
    const collect = r.sgrant === undefined ? undefined : { outputs: [{ collector: "rseq-stats", parsed: { diff: { sgrant: r.sgrant }, sliceExtension: true } }] };
    writeFileSync(join(dir, "runs", r.id, "result.json"), JSON.stringify({
      index: i + 1, id: r.id, block: 1, variant: r.variant, warmup: r.warmup,
      workloads: [{ workload: "w", tps: r.tx / r.seconds, seconds: r.seconds, metrics: { transactionsProcessed: r.tx }, sliceExtension: r.delta ? { countersDelta: r.delta } : undefined, collect }],
    }));
  });
}

const v2delta = (holds: number, yielded: number, expired: number, dropped: number, rearmed: number) => ({
  acquires_spinlock: holds, acquires_buffer_header: 0, acquires_wait_list: 0, acquires_lwlock: holds,
  holds_spinlock: holds / 2, holds_buffer_header: 0, holds_wait_list: 0, holds_lwlock: holds / 2,
  rearmed, granted_yielded: yielded, granted_expired: expired, dropped_without_grant: dropped,
});

test("v1 and v2 counters are mapped to holds, grants and clears; warm-ups are left out; rates divide by the right totals", () => {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-evrates-"));
  try {
    const v1 = join(dir, "v1");
    writeSeries(v1, { clients: 21, scale: 4, shared_buffers: "2MB", duration: 10 }, [
      { id: "001-on", variant: "on", warmup: true, seconds: 10, tx: 999, delta: { requests: 1, grants: 999, yields: 1, revoked: 999 } },
      { id: "002-on", variant: "on", warmup: false, seconds: 10, tx: 2000, delta: { requests: 100000, grants: 20, yields: 18, revoked: 800 } },
      { id: "003-on", variant: "on", warmup: false, seconds: 10, tx: 3000, delta: { requests: 100000, grants: 10, yields: 9, revoked: 200 } },
      { id: "004-off", variant: "off", warmup: false, seconds: 10, tx: 2500, delta: { requests: 0, grants: 0, yields: 0, revoked: 0 } },
    ]);
    const on = evictionCell(v1, "on");
    assert.equal(on.patch, "v1");
    assert.deepEqual([on.runs, on.runSeconds, on.transactions, on.holds, on.grants, on.cleared], [2, 20, 5000, 200000, 30, 1000]);
    assert.equal(on.clients, 21);
    assert.equal(on.sharedBuffers, "2MB");
    assert.equal(on.kernelGrants, null, "no rseq-stats collector: no kernel count");
    assert.equal(on.rearmed, null);
    assert.equal(on.grantsPerHold, 30 / 200000);
    assert.equal(on.grantsPerTransaction, 30 / 5000);
    assert.equal(on.grantsPerRunSecond, 1.5);
    assert.equal(on.clearedPerHold, 1000 / 200000);
    assert.equal(on.holdsPerTransaction, 40);
    assert.equal(on.meanTps, 250);
    assert.equal(evictionCell(v1, "off").grantsPerHold, 0, "no holds: rate 0, not NaN");

    const v2 = join(dir, "v2");
    writeSeries(v2, { clients: "4", scale: "2", shared_buffers: "16MB", duration: "20" }, [
      { id: "001-x.extension-all", variant: "x.mode-full.extension-all", warmup: false, seconds: 20, tx: 400, delta: v2delta(40000, 1, 2, 400, 220), sgrant: 7 },
      { id: "002-x.extension-all", variant: "x.mode-full.extension-all", warmup: false, seconds: 20, tx: 600, delta: v2delta(60000, 0, 1, 600, 300), sgrant: 5 },
    ]);
    const all = evictionCell(v2, "mode-full.extension-all");
    assert.equal(all.patch, "v2");
    assert.deepEqual([all.holds, all.grants, all.cleared, all.rearmed, all.kernelGrants], [100000, 4, 1000, 520, 12]);
    assert.equal(all.scale, 2);
    assert.equal(all.grantsPerTransaction, 4 / 1000);
    const s = evictionRatesSentence("full", on, all);
    assert.match(s, /^full: v1 \(21 clients, scale 4, shared_buffers 2MB, 2 runs of 10 s, 5000 transactions\) saw 1\.50 grants and 50\.00 clears per 10,000 holds/);
    assert.match(s, /the kernel counted 12 grants in those runs/);
    assert.ok(Math.abs(ratio(on.grantsPerHold, all.grantsPerHold)! - 3.75) < 1e-12);
    assert.equal(ratio(1, 0), null);
    const t = evictionRatesTable([{ label: "v1", c: on }, { label: "v2", c: all }]);
    const col = (n: string) => t.header.indexOf(n);
    assert.equal(t.rows[0]![col("kernel grants (rseq/stats)")], "not collected");
    assert.equal(t.rows[0]![col("kernel grants / txn")], "—");
    assert.equal(t.rows[1]![col("kernel grants / txn")], 0.012);
    assert.equal(t.rows[0]![col("grants / txn")], 0.006);
    assert.equal(t.rows[1]![col("runs × s")], "2 × 20");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bad input names the file and line; an unknown cell names the cells there are", () => {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-evrates-"));
  try {
    assert.throws(() => evictionRates(dir), (e: unknown) => e instanceof UserError && /results\.jsonl: missing/.test(e.message));
    writeSeries(dir, {}, [{ id: "001-on", variant: "on", warmup: false, seconds: 10, tx: 5 }]);
    writeFileSync(join(dir, "results.jsonl"), `${JSON.stringify({ id: "001-on", variant: "on", warmup: false, tps: 1, seconds: 10, workload: "w" })}\nnot json\n`);
    assert.throws(() => evictionRates(dir), (e: unknown) => e instanceof UserError && /results\.jsonl:2: expected a JSON object per line, found "not json"/.test(e.message));
    writeFileSync(join(dir, "results.jsonl"), `${JSON.stringify({ id: "001-on", variant: "on", warmup: false, tps: 1, seconds: 10, workload: "w" })}\n`);
    writeFileSync(join(dir, "runs", "001-on", "result.json"), JSON.stringify({ workloads: [{ workload: "w", metrics: {} }] }));
    assert.throws(() => evictionRates(dir), (e: unknown) => e instanceof UserError && /result\.json: expected metrics\.transactionsProcessed/.test(e.message));
    writeFileSync(join(dir, "runs", "001-on", "result.json"), JSON.stringify({ workloads: [{ workload: "w", metrics: { transactionsProcessed: 5 } }] }));
    assert.throws(() => evictionCell(dir, "nope"), /no cell nope \(cells: on\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("on the committed records: v1's full/all cell (7 runs) and v2's study cell (2 runs) read as the REPRODUCE table says", () => {
  const root = repoRoot();
  const v1 = evictionCell(join(root, "data/runs/vm-eviction/20261130T083130Z/full-7.2.13/vm/series"), "on");
  assert.deepEqual([v1.patch, v1.runs, v1.grants, v1.cleared, v1.clients], ["v1", 7, 145, 6503, 21]);
  const v2 = evictionCell(join(root, "data/runs/dipietro-2026/20261201T223016Z/series"), "mode-full.hugepages-off.extension-all");
  assert.deepEqual([v2.patch, v2.runs, v2.cleared, v2.rearmed, v2.clients], ["v2", 2, 1067, 644, 4]);
  assert.ok(v1.transactions > 0 && v2.transactions > 0);
});
