import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectSysbench, parseSysbench, parseSysbenchPrepare, parseSysbenchRuns } from "../src/parse/sysbench.js";


import { cliParse } from "./helpers/cli.js";


const dir = join(repoRoot(), "test/fixtures/sysbench");
const read = (name: string) => readFileSync(join(dir, name), "utf8");
const parse = (name: string) => parseSysbench(read(name), name);

test("sysbench 1.0.20 oltp_read_only: SQL statistics, general statistics, latency, fairness", () => {
  const r = parse("sb1020-run.txt");
  assert.equal(r.version, "1.0.20");
  assert.equal(r.threads, 2);
  assert.equal(r.reportIntervalSec, null);
  assert.deepEqual(r.queriesPerformed, { read: 136038, write: 0, other: 19434, total: 155472 });
  assert.equal(r.transactions, 9717);
  assert.equal(r.transactionsPerSec, 1942.24);
  assert.equal(r.queries, 155472);
  assert.equal(r.queriesPerSec, 31075.82);
  assert.equal(r.ignoredErrors, 0);
  assert.equal(r.reconnects, 0);
  assert.equal(r.time, 5.0023);
  assert.equal(r.events, 9717);
  assert.ok(Math.abs(r.eventsPerSec - 9717 / 5.0023) < 1e-9);
  assert.deepEqual(
    { min: r.latency.minMs, avg: r.latency.avgMs, max: r.latency.maxMs, p: r.latency.percentile, pms: r.latency.percentileMs, sum: r.latency.sumMs },
    { min: 0.52, avg: 1.03, max: 12.18, p: 95, pms: 2.71, sum: 9988.58 },
  );
  assert.deepEqual(r.fairness, { eventsAvg: 4858.5, eventsStddev: 464.5, execTimeAvg: 4.9943, execTimeStddev: 0 });
  assert.equal(r.intervals.length, 0);
  // oltp_read_only: 14 reads + BEGIN/COMMIT per transaction
  assert.equal(r.queriesPerformed!.read, 14 * r.transactions!);
  assert.equal(r.queriesPerformed!.other, 2 * r.transactions!);
});

test("--report-interval lines become intervals with tps, qps, r/w/o and the 95% latency", () => {
  const r = parse("sb1020-report-interval.txt");
  assert.equal(r.threads, 4);
  assert.equal(r.reportIntervalSec, 1);
  assert.equal(r.intervals.length, 6);
  assert.deepEqual(r.intervals.map((x) => x.time), [1, 2, 3, 4, 5, 6]);
  // the last interval ends after one worker stopped
  assert.deepEqual(r.intervals.map((x) => x.threads), [4, 4, 4, 4, 4, 3]);
  const first = r.intervals[0]!;
  assert.equal(first.threads, 4);
  assert.equal(first.tps, 2175.71);
  assert.equal(first.qps, 34845.31);
  assert.equal(first.readsPerSec, 30489.9);
  assert.equal(first.writesPerSec, 0);
  assert.equal(first.otherPerSec, 4355.41);
  assert.equal(first.latencyPercentile, 95);
  assert.equal(first.latencyMs, 3.25);
  assert.equal(first.errorsPerSec, 0);
  assert.equal(first.line, 13);
  assert.equal(r.transactions, 14204);
  assert.equal(r.transactionsPerSec, 2364.19);
});

test("--rate: the queue line of each interval is merged into it", () => {
  const r = parse("sb1020-rate.txt");
  assert.equal(r.targetRate, 200);
  assert.equal(r.intervals.length, 3);
  assert.deepEqual(r.intervals.map((x) => x.queueLength), [0, 0, 0]);
  assert.deepEqual(r.intervals.map((x) => x.concurrency), [0, 0, 1]);
});

test("--percentile=99 changes the reported percentile", () => {
  const r = parse("sb1020-percentile99.txt");
  assert.equal(r.latency.percentile, 99);
  assert.equal(r.latency.percentileMs, 5.09);
});

test("--histogram rows are kept and add up to the number of events", () => {
  const r = parse("sb1020-histogram.txt");
  assert.ok(r.histogram.length > 50);
  assert.equal(r.histogram[0]!.valueMs, 0.527);
  assert.equal(r.histogram[0]!.count, 2);
  assert.equal(r.histogram.reduce((s, h) => s + h.count, 0), r.events);
});

test("read-write run with ignored errors", () => {
  const r = parse("sb1020-read-write.txt");
  assert.equal(r.ignoredErrors, 9);
  assert.equal(r.ignoredErrorsPerSec, 2.24);
  assert.equal(r.queriesPerformed!.write, 17182);
});

test("cpu test: CPU speed block, eps intervals, no SQL statistics", () => {
  const r = parse("sb1020-cpu-interval.txt");
  assert.equal(r.queriesPerformed, null);
  assert.equal(r.transactions, null);
  assert.equal(r.eventsPerSec, 4170.79);
  assert.equal(r.events, 12517);
  assert.deepEqual(r.intervals.map((x) => x.eps), [4022.61, 4320.62, 4170.37]);
  assert.equal(r.intervals[0]!.tps, null);
});

test("sysbench 1.1.0 (public capture): Throughput block with events/s and time elapsed", () => {
  const r = parse("sb110-spqr-read-write.txt");
  assert.equal(r.version, "1.1.0");
  assert.equal(r.threads, 24);
  assert.equal(r.transactions, 4296);
  assert.equal(r.transactionsPerSec, 427.24);
  assert.equal(r.eventsPerSec, 427.2428);
  assert.equal(r.time, 10.0552);
  assert.equal(r.events, 4296);
  assert.equal(r.latency.percentileMs, 94.1);
  assert.equal(r.latency.sumMs, 240906.55);
});

test("several runs appended to one file", () => {
  const text = read("sb1020-three-runs.txt");
  const runs = parseSysbenchRuns(text, "three");
  assert.equal(runs.length, 3);
  for (const r of runs) assert.equal(r.threads, 2);
  assert.throws(() => parseSysbench(text, "three"), (e: unknown) => e instanceof ParseError && /three:\d+: expected one sysbench run, found 3 runs/.test(e.message));
});

test("a failed run (FATAL, no result) is a parse error at the FATAL line", () => {
  assert.throws(
    () => parse("sb1020-bad-password.txt"),
    (e: unknown) => e instanceof ParseError && e.line === 10 && /sb1020-bad-password.txt:10: expected a sysbench result block \(the run failed\), found "FATAL: Connection/.test(e.message),
  );
});

test("malformed values name file and line", () => {
  const text = read("sb1020-run.txt").replace("transactions:                        9717   (1942.24 per sec.)", "transactions:                        lots");
  assert.throws(() => parseSysbench(text, "x.txt"), (e: unknown) => e instanceof ParseError && e.line === 18 && /expected a count and a rate/.test(e.message));
  const iv = read("sb1020-report-interval.txt").replace("[ 3s ] thds: 4 tps:", "[ 3s ] thds: 4 tpx:");
  assert.throws(() => parseSysbench(iv, "y.txt"), (e: unknown) => e instanceof ParseError && e.line === 15);
  const lat = read("sb1020-run.txt").replace(/^\s+max:.*$/m, "         median:    1.0");
  assert.throws(() => parseSysbench(lat, "z.txt"), (e: unknown) => e instanceof ParseError && /expected min:, avg:, max:/.test(e.message));
  const cut = read("sb1020-run.txt").split("\n").slice(0, 30).join("\n");
  assert.throws(() => parseSysbench(cut, "cut.txt"), (e: unknown) => e instanceof ParseError && /Latency/.test(e.message));
  assert.throws(() => parseSysbench("hello\n", "h.txt"), (e: unknown) => e instanceof ParseError && e.message.startsWith("h.txt:1: expected a \"sysbench X.Y.Z\" header line"));
});

test("prepare output", () => {
  const p = parseSysbenchPrepare(read("sb1020-prepare.txt"), "prepare");
  assert.equal(p.version, "1.0.20");
  assert.deepEqual(p.tables, [
    { name: "sbtest1", records: 10000, secondaryIndex: true },
    { name: "sbtest2", records: 10000, secondaryIndex: true },
  ]);
});

test("detect: run outputs yes, prepare and pgbench-like text no", () => {
  assert.equal(detectSysbench(read("sb1020-run.txt")), true);
  assert.equal(detectSysbench(read("sb110-spqr-read-write.txt")), true);
  assert.equal(detectSysbench(read("sb1020-prepare.txt")), false);
  assert.equal(detectSysbench("transaction type: <builtin: select only>\n"), false);
});

test("CLI: slicelab parse sysbench/auto, and exit 2 with FILE:LINE on malformed input", () => {
  const ok = cliParse("auto", "sb-ok.txt", read("sb1020-report-interval.txt"));
  assert.equal(ok.status, 0, ok.stderr);
  const j = JSON.parse(ok.stdout);
  assert.equal(j.format, "sysbench");
  assert.equal(j.records[0].transactions, 14204);
  assert.equal(j.records[0].intervals.length, 6);
  const bad = cliParse("sysbench", "sb-bad.txt", read("sb1020-run.txt").replace("avg:                                    1.03", "avg:  fast"));
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, "");
  assert.ok(bad.stderr.startsWith(`slicelab parse: ${bad.path}:29: expected a latency in ms, found "         avg:  fast"`), bad.stderr);
  assert.doesNotMatch(bad.stderr, /at .*\.js:\d+/); // no stack trace
});
