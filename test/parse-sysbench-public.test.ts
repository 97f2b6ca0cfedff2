// sysbench output as published (test/fixtures/sysbench/public/, each with its *.source.json):
// 0.4.12 and 0.5 ("OLTP test statistics:", "per-request statistics:" / "response time:",
// "approx.  N percentile:", `[  10s] threads: N, tps: …` interval lines), 1.0.18 (a non-SQL
// test, pasted with its command line) and 1.1.0 ("Throughput:").
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectSysbench, parseSysbench } from "../src/parse/sysbench.js";
import { cliParse } from "./helpers/cli.js";

const dir = join(repoRoot(), "test/fixtures/sysbench/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");
const parse = (name: string) => parseSysbench(read(name), name);
const lat = (r: ReturnType<typeof parse>) => [r.latency.minMs, r.latency.avgMs, r.latency.maxMs, r.latency.percentile, r.latency.percentileMs, r.latency.sumMs];

test("sysbench 0.4.12 (hgxl64, oltp simple read-only): OLTP test statistics, Test execution summary, per-request statistics", () => {
  const r = parse("hgxl64-0412-oltp-simple-ro");
  assert.deepEqual([r.version, r.layout, r.threads], ["0.4.12", "0.x", 2]);
  assert.deepEqual(r.queriesPerformed, { read: 586722, write: 0, other: 586722, total: 1173444 });
  assert.deepEqual([r.transactions, r.transactionsPerSec], [586722, 9778.66]);
  assert.deepEqual([r.deadlocks, r.deadlocksPerSec, r.readWriteRequests, r.readWriteRequestsPerSec, r.otherOperations, r.otherOperationsPerSec], [0, 0, 586722, 9778.66, 586722, 9778.66]);
  assert.deepEqual([r.time, r.events], [60.0002, 586722]);
  // "total time taken by event execution: 119.1212" (seconds) is the latency sum.
  assert.deepEqual(lat(r), [0.12, 0.2, 0.64, 95, 0.3, 119121.2]);
  assert.deepEqual(r.fairness, { eventsAvg: 293361, eventsStddev: 46450, execTimeAvg: 59.5606, execTimeStddev: 0.02 });
  // What 0.4 does not print is null and named, not invented.
  assert.deepEqual([r.queries, r.queriesPerSec, r.ignoredErrors, r.reconnects], [null, null, null, null]);
  assert.deepEqual(r.warnings.map((w) => w.line), [18, 18]);
  assert.match(r.warnings[0]!.message, /no "queries:" line/);
  assert.match(r.warnings[1]!.message, /no "ignored errors:".*"deadlocks:" instead/);
  assert.equal(r.intervals.length, 0);
});

test("sysbench 0.5 early (hgxl64 series01): reads/s interval lines at the 99th percentile, deadlocks, General statistics / response time", () => {
  const r = parse("hgxl64-05-early-p99-deadlocks");
  assert.deepEqual([r.version, r.layout, r.threads, r.reportIntervalSec], ["0.5", "0.x", 8, 10]);
  assert.deepEqual(r.queriesPerformed, { read: 28528038, write: 8150868, other: 4075434, total: 40754340 });
  assert.deepEqual([r.transactions, r.transactionsPerSec, r.deadlocks, r.readWriteRequestsPerSec], [2037717, 3396.18, 0, 61131.32]);
  assert.deepEqual([r.time, r.events], [600.0018, 2037717]);
  assert.deepEqual(lat(r), [1.59, 2.35, 177.11, 99, 2.79, 4797294]);
  assert.equal(r.intervals.length, 60);
  const first = r.intervals[0]!;
  assert.deepEqual([first.time, first.threads, first.tps, first.readsPerSec, first.writesPerSec, first.latencyPercentile, first.latencyMs], [10, 8, 3377.03, 47284.78, 13508.14, 99, 2.82]);
  assert.deepEqual([first.qps, first.otherPerSec, first.errorsPerSec, first.reconnectsPerSec], [null, null, null, null]);
  assert.deepEqual(r.intervals.map((x) => x.time).slice(-2), [590, 600]);
  assert.equal(r.intervals.at(-1)!.tps, 3356.4);
  // The interval tps agree with the final rate (mean of 60 intervals within 0.5%).
  const meanTps = r.intervals.reduce((s, x) => s + x.tps!, 0) / r.intervals.length;
  assert.ok(Math.abs(meanTps - r.transactionsPerSec!) / r.transactionsPerSec! < 0.005, `${meanTps} vs ${r.transactionsPerSec}`);
  assert.deepEqual(r.warnings.map((w) => w.line), [73, 73, 13]);
});

test("sysbench 0.5 late (hgxl64 MDEV-13845): reads:/writes: interval rates with errors/reconnects, ignored errors", () => {
  const r = parse("hgxl64-05-rocksdb-rw-errors");
  assert.deepEqual([r.version, r.threads, r.reportIntervalSec], ["0.5", 1, 2]);
  assert.deepEqual(r.queriesPerformed, { read: 254716, write: 72776, other: 36388, total: 363880 });
  assert.deepEqual([r.transactions, r.transactionsPerSec, r.ignoredErrors, r.reconnects, r.deadlocks], [18194, 199.93, 0, 0, null]);
  assert.deepEqual([r.readWriteRequests, r.otherOperations], [327492, 36388]);
  assert.equal(r.readWriteRequests, r.queriesPerformed!.read + r.queriesPerformed!.write);
  assert.deepEqual([r.time, r.events], [91.0037, 18194]);
  assert.deepEqual(lat(r), [2.57, 5, 14.22, 95, 5.82, 90954.7]);
  assert.equal(r.intervals.length, 45);
  const iv = r.intervals[3]!;
  assert.deepEqual([iv.time, iv.tps, iv.readsPerSec, iv.writesPerSec, iv.latencyMs, iv.errorsPerSec, iv.reconnectsPerSec], [8, 189.5, 2658.5, 759.5, 6.01, 0, 0]);
  assert.deepEqual(r.warnings.map((w) => w.line), [56, 11]);
});

test("sysbench 1.0.18 mutex (akopytov/sysbench#486): pasted with its command line; the percentile below min is a warning", () => {
  const text = read("joendter-2023-1018-mutex");
  assert.ok(detectSysbench(text));
  const r = parseSysbench(text, "m");
  assert.deepEqual([r.version, r.layout, r.threads, r.queriesPerformed, r.transactions], ["1.0.18", "1.x", 1, null, null]);
  assert.deepEqual([r.time, r.events], [0.2426, 1]);
  assert.deepEqual(lat(r), [241.47, 241.47, 241.47, 95, 240.02, 241.47]);
  assert.deepEqual(r.fairness, { eventsAvg: 1, eventsStddev: 0, execTimeAvg: 0.2415, execTimeStddev: 0 });
  assert.equal(r.warnings.length, 1);
  assert.equal(r.warnings[0]!.line, 18);
  assert.match(r.warnings[0]!.message, /95th percentile \(240\.02 ms\) lies outside the printed min…max \(241\.47…241\.47 ms\)/);
});

test("sysbench 1.1.0 through the SPQR router (pgsql): Throughput block", () => {
  const r = parse("spqr-110-router-read-write");
  assert.deepEqual([r.version, r.layout, r.threads], ["1.1.0", "1.x", 24]);
  assert.deepEqual([r.transactions, r.transactionsPerSec, r.queries, r.queriesPerSec], [3640, 362.47, 58240, 5799.57]);
  assert.deepEqual([r.time, r.events, r.eventsPerSec], [10.0421, 3640, 362.4731]);
  assert.deepEqual(lat(r), [14.32, 66.15, 289.2, 95, 144.97, 240803.76]);
  assert.deepEqual(r.warnings, []);
});

test("sysbench 0.x: a broken per-request line or an unknown key is a ParseError naming the line", () => {
  const t = read("hgxl64-0412-oltp-simple-ro");
  assert.throws(() => parseSysbench(t.replace("0.20ms", "0.20 msec"), "x"), (e: unknown) => e instanceof ParseError && e.line === 35 && /latency in milliseconds/.test(e.message));
  assert.throws(() => parseSysbench(t.replace("deadlocks:", "livelocks:"), "x"), (e: unknown) => e instanceof ParseError && e.line === 25);
  const iv = read("hgxl64-05-rocksdb-rw-errors").replace("tps: 201.50, reads:", "tps: 201.50 reads:");
  assert.throws(() => parseSysbench(iv, "x"), (e: unknown) => e instanceof ParseError && e.line === 13 && /threads: N, tps: X/.test(e.message));
});

test("CLI: parse auto on a 0.4.12 output names it sysbench and carries the warnings into the JSON", () => {
  const r = cliParse("auto", "sb04.txt", readFileSync(join(dir, "hgxl64-0412-oltp-simple-ro.txt"), "utf8"));
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.format, "sysbench");
  assert.equal(j.records.length, 1);
  assert.equal(j.records[0].transactions, 586722);
  assert.deepEqual(j.warnings.map((w: { line: number }) => w.line), [18, 18]);
});

test("sysbench 1.0.20 fileio (LinHong 2022): MiB/s interval lines, File operations, the MiB/s Throughput block; prompts around it", () => {
  const r = parse("lin-2022-1020-fileio-rndrd");
  assert.deepEqual([r.version, r.threads, r.reportIntervalSec, r.queriesPerformed], ["1.0.20", 4, 1, null]);
  assert.deepEqual(r.fileOps, { readsPerSec: 1906.5, writesPerSec: 0, fsyncsPerSec: 0 });
  assert.deepEqual(r.fileThroughputMiBps, { read: 29.79, written: 0 });
  assert.deepEqual([r.time, r.events], [10.0029, 19074]);
  assert.deepEqual(lat(r), [0.03, 2.08, 184.93, 95, 1.37, 39768.03]);
  assert.equal(r.intervals.length, 10);
  assert.deepEqual(r.intervals.map((x) => x.readMiBps), [28.78, 30.44, 31.54, 30.47, 30.61, 28.79, 30.04, 30.79, 26.37, 30.09]);
  assert.deepEqual([r.intervals[5]!.latencyMs, r.intervals[5]!.threads, r.intervals[5]!.fsyncsPerSec], [1.697, null, 0]);
  // 16 KiB reads: reads/s × 16 KiB is the MiB/s figure (1906.5 × 16 / 1024 = 29.79).
  assert.ok(Math.abs((r.fileOps!.readsPerSec * 16) / 1024 - r.fileThroughputMiBps!.read) < 0.01);
  assert.deepEqual(r.warnings.map((w) => w.line), [60]);
  assert.match(r.warnings[0]!.message, /shell prompt/);
});

test("sysbench 1.0.20 oltp_read_write (LinHong 2022): the command over '> ' lines before the header, a prompt after the result", () => {
  const r = parse("lin-2022-1020-oltp-rw-prompt");
  assert.deepEqual([r.version, r.threads, r.reportIntervalSec], ["1.0.20", 4, 5]);
  assert.deepEqual(r.queriesPerformed, { read: 117096, write: 33456, other: 16728, total: 167280 });
  assert.deepEqual([r.transactions, r.transactionsPerSec, r.queries, r.queriesPerSec], [8364, 139.27, 167280, 2785.42]);
  assert.deepEqual(lat(r), [4.58, 28.69, 149.94, 95, 52.89, 239940.24]);
  assert.equal(r.intervals.length, 12);
  assert.deepEqual([r.intervals[2]!.tps, r.intervals[2]!.latencyMs], [121.02, 89.16]);
  assert.deepEqual(r.warnings.map((w) => w.line), [65]);
});
