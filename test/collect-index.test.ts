import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../src/util/errors.js";
import { workDir } from "../src/util/paths.js";
import { COLLECTOR_NAMES, parseCollectList, prepareCollectors, startCollectors, stopCollectors, type Collector } from "../src/collect/index.js";

test("--collect lists: known names in order, errors name the option and the bad name", () => {
  assert.deepEqual(parseCollectList("perf-lock,ctxsw , pg-waits"), ["perf-lock", "ctxsw", "pg-waits"]);
  assert.deepEqual(parseCollectList(""), []);
  assert.deepEqual(parseCollectList(undefined), []);
  assert.deepEqual(parseCollectList(COLLECTOR_NAMES.join(",")), [...COLLECTOR_NAMES]);
  assert.throws(() => parseCollectList("perf-lock,lockmeter"), (e: unknown) => e instanceof UserError && /--collect: unknown collector "lockmeter" \(known: lockstat, perf-lock/.test(e.message));
  assert.throws(() => parseCollectList("ctxsw,ctxsw"), (e: unknown) => e instanceof UserError && /named twice/.test(e.message));
});

test("checks on this machine: what is skipped says why", async () => {
  const { active, skipped } = await prepareCollectors([...COLLECTOR_NAMES]);
  const reason = (n: string) => skipped.find((s) => s.name === n)?.reason;
  assert.equal(active.length + skipped.length, COLLECTOR_NAMES.length);
  if (!existsSync("/proc/lock_stat")) assert.match(reason("lockstat")!, /CONFIG_LOCK_STAT/);
  const mounts = readFileSync("/proc/self/mounts", "utf8");
  if (!/ \/sys\/kernel\/debug debugfs /.test(mounts)) assert.match(reason("rseq-stats")!, /debugfs is not mounted at \/sys\/kernel\/debug/);
  else if (!existsSync("/sys/kernel/debug/rseq/stats")) assert.match(reason("rseq-stats")!, /rseq/);
  // pg-waits and ctxsw need nothing from the machine beyond /proc
  assert.ok(active.some((c) => c.name === "pg-waits"));
  assert.ok(active.some((c) => c.name === "ctxsw"));
});

test("start/stop order, and a failing start stops the ones already started", async () => {
  const log: string[] = [];
  const fake = (name: "ctxsw" | "pg-waits", failStart = false): Collector => ({
    name,
    description: name,
    check: async () => ({ ok: true }),
    start: async () => {
      if (failStart) throw new Error(`${name} cannot start`);
      log.push(`start ${name}`);
    },
    stop: async () => {
      log.push(`stop ${name}`);
      return { collector: name, files: [], parsed: null, notes: [] };
    },
  });
  const ctx = { runDir: join(workDir(), "test-tmp", "collect-order") };
  const outs = await (async () => {
    const a = [fake("ctxsw"), fake("pg-waits")];
    await startCollectors(a, ctx);
    return stopCollectors(a, ctx);
  })();
  assert.deepEqual(log, ["start ctxsw", "start pg-waits", "stop pg-waits", "stop ctxsw"]);
  assert.deepEqual(outs.map((o) => o.collector), ["ctxsw", "pg-waits"]);
  log.length = 0;
  await assert.rejects(startCollectors([fake("ctxsw"), fake("pg-waits", true)], ctx), /pg-waits cannot start/);
  assert.deepEqual(log, ["start ctxsw", "stop ctxsw"]);
});

test("overhead summary: means, per-pair differences, sign", async () => {
  const { summarizeOverhead } = await import("../src/collect/overhead.js");
  const s = summarizeOverhead([
    { collector: "ctxsw", pair: 0, on: false, tps: 100 },
    { collector: "ctxsw", pair: 0, on: true, tps: 90 },
    { collector: "ctxsw", pair: 1, on: true, tps: 110 },
    { collector: "ctxsw", pair: 1, on: false, tps: 100 },
  ]);
  assert.equal(s.length, 1);
  assert.deepEqual([s[0]!.tpsOffMean, s[0]!.tpsOnMean, s[0]!.overheadPct, s[0]!.pairs], [100, 100, 0, 2]);
  assert.deepEqual(s[0]!.pairOverheadPct, [10, -10]);
});
