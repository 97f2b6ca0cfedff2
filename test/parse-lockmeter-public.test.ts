// lockmeter 1.x lockstat reports as posted to linux-kernel 2001–2005 (test/fixtures/lockmeter/public/,
// each with its *.source.json): % CPU of the waits, NOWAIT/SPIN/RJECT as percentages, *TOTAL* rows,
// wrapping at 76 columns, quoting, RWLOCK sections, prose and signatures after the table.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { isLockmeter1, parseLockmeter1, type Lockmeter1Row } from "../src/parse/lockmeter1.js";
import { cliParse } from "./helpers/cli.js";

const dir = join(repoRoot(), "test/fixtures/lockmeter/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");
const parse = (name: string) => parseLockmeter1(read(name), name);
const figs = (r: Lockmeter1Row) => [r.utilPct, r.conPct, r.holdMeanUs, r.holdMaxUs, r.waitMeanUs, r.waitMaxUs, r.waitCpuPct, r.total, r.nowaitPct, r.spinPct, r.rejectPct];

test("Chen 2004: queue_lock with 33.1% rejects; a caller after a blank line is kept with a warning", () => {
  const r = parse("chen-2004-queue-lock");
  assert.deepEqual(r.rows.map((x) => [x.kind, x.name]), [
    ["lock", "net_device->queue_lock"], ["caller", "net_tx_action+0x240"], ["caller", "qdisc_restart+0x450"], ["caller", "dev_queue_xmit+0x1a0"],
  ]);
  assert.deepEqual(figs(r.rows[0]!), [7.5, 52, 1.7, 257, 175, 29000, 4.7, 2666132, 48, 19, 33.1]);
  assert.deepEqual(figs(r.rows[1]!), [1.2, 78.5, 0.7, 125, 0, null, null, 1124063, 21.5, 0, 78.5]);
  assert.equal(r.rows[3]!.holdMaxUs, 333);
  assert.equal(r.rows[3]!.waitMaxUs, 36000, "the 36 ms the poster points at");
  assert.equal(r.warnings.length, 1);
  assert.equal(r.warnings[0]!.line, 10);
});

test("Linder 2003 (2.5.67-mm1): *TOTAL* row without UTIL, unmap_vmas held 49 ms", () => {
  const r = parse("linder-2003-unmap-vmas");
  assert.equal(r.system, "Linux w-hlinder2 2.5.67-mm1 #1 SMP Fri Apr 11 12:31:38 PDT 2003 i686");
  assert.deepEqual(figs(r.rows[0]!), [null, 19.2, 2, 49000, 1.1, 9767, 0.58, 5506902, 80.8, 16.6, 2.5]);
  assert.equal(r.rows[0]!.kind, "total");
  const u = r.rows.find((x) => x.name === "unmap_vmas+0x1c0")!;
  assert.deepEqual([u.kind, u.holdMeanUs, u.holdMaxUs, u.total], ["lock", 11000, 49000, 245]);
  assert.deepEqual(r.rows.filter((x) => x.kind === "caller").map((x) => `${x.lock} ${x.caller}`), [
    "runqueues load_balance+0x138", "runqueues wake_up_forked_process+0x3c",
  ]);
});

test("Sarma 2001 (quoted by Axboe): the poster's arithmetic 1557496 × 26.7% × 72us ≈ 30 s holds", () => {
  const r = parse("sarma-2001-io-request-lock-quoted");
  assert.equal(r.rows.length, 10);
  const lock = r.rows[0]!;
  assert.deepEqual(figs(lock), [2.9, 26.7, 7.4, 706, 72, 920, 1.9, 1557496, 73.3, 26.7, 0]);
  const waitedS = (lock.total * lock.spinPct) / 100 * lock.waitMeanUs / 1e6;
  assert.ok(Math.abs(waitedS - 30) < 0.1, `${waitedS} s`);
  assert.equal(r.rows[9]!.caller, "scsi_request_fn+0x350");
});

test("Chubb 2005 (2.6.11 IA64): inode_lock at 52.4% contention; prose and signature after it", () => {
  const r = parse("chubb-2005-inode-lock");
  assert.deepEqual(r.rows.map((x) => x.name), ["inode_lock", "__sync_single_inode+0xf0", "generic_osync_inode+0xe0"]);
  assert.deepEqual(figs(r.rows[2]!), [9.2, 59, 1.2, 25, 20, 8073, 7.8, 1596487, 41, 59, 0]);
  assert.match(r.warnings[0]!.message, /ends here: followed by " \(etc\)\."/);
});

test("Van Maren 2001 (2.4.8 ia64): rows wrapped at 76 columns joined; RWLOCK sections skipped with warnings", () => {
  const r = parse("vanmaren-2001-wrapped-76");
  assert.equal(r.system, "Linux vanmaren.slc.unisys.com 2.4.8 #13 SMP Wed Aug 22 18:34:15 UTC 2001 ia64");
  assert.deepEqual(r.rows.map((x) => `${x.kind}:${x.name}`), [
    "total:*TOTAL*", "lock:global_bh_lock", "caller:bh_action+0x40", "lock:kernel_flag", "caller:acct_process+0x140",
    "caller:blkdev_open+0xb0", "caller:blkdev_put+0xd0", "lock:lru_list_lock", "caller:__invalidate_buffers+0x40", "caller:getblk+0x40",
  ]);
  assert.deepEqual(figs(r.rows[0]!), [null, 29.4, 4.8, 2809000, 40, 1780000, 62.4, 15255259, 70.6, 29.4, 0]);
  const put = r.rows[6]!;
  assert.deepEqual([put.holdMeanUs, put.holdMaxUs, put.total], [553000, 2809000, 10], "blkdev_put holds kernel_flag 553 ms on average");
  assert.deepEqual(r.warnings.map((w) => w.message), [
    "the RWLOCK READS table has other columns: not read",
    "the RWLOCK WRITES table has other columns: not read",
  ]);
});

test("errors: a bad unit and a row that does not parse name the line; detection by the (% CPU) header", () => {
  assert.equal(isLockmeter1(read("chubb-2005-inode-lock")), true);
  assert.equal(isLockmeter1(readFileSync(join(repoRoot(), "test/fixtures/lockmeter/lahr-lockstat-folded-72.txt"), "utf8")), false);
  const badUnit = read("chubb-2005-inode-lock").replace("130us", "130yr");
  assert.throws(() => parseLockmeter1(badUnit, "u"), (e: unknown) => e instanceof ParseError && e.line === 5 && /time unit/.test(e.message));
  const badRow = read("chubb-2005-inode-lock").replace("5072151 47.6%", "5072151 47.6");
  assert.throws(() => parseLockmeter1(badRow, "r"), (e: unknown) => e instanceof ParseError && e.line === 5);
});

test("CLI: parse lockstat/auto on the 1.x layout, warnings in the JSON", () => {
  const r = cliParse("auto", "vanmaren.txt", read("vanmaren-2001-wrapped-76"));
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.format, "lockmeter");
  assert.equal(j.records.length, 10);
  assert.equal(j.records[0].name, "*TOTAL*");
  assert.equal(j.warnings.length, 2);
});

test("Linder 2002: three kernels' reports under one header, each block labelled (issue 28 item 14)", () => {
  const r = parseLockmeter1(readFileSync(join(dir, "linder-2002-three-kernels.txt"), "utf8"), "linder-2002-three-kernels.txt");
  assert.deepEqual(r.rows.map((x) => [x.kernel, x.kind, x.name]), [
    ["2.4.17", "total", "*TOTAL*"],
    ["2.4.17", "lock", "kernel_flag"],
    ["2.5.3", "total", "*TOTAL*"],
    ["2.5.3", "lock", "kernel_flag"],
    ["2.5.5", "total", "*TOTAL*"],
    ["2.5.5", "lock", "kernel_flag"],
  ]);
  // The BKL's contention as the mail asks to read it ("Read down the Con(tention) column"): 40.3 → 22.6 → 0.33 %.
  assert.deepEqual(r.rows.filter((x) => x.name === "kernel_flag").map((x) => [x.utilPct, x.conPct, x.waitMeanUs, x.waitCpuPct, x.total]), [
    [33.9, 40.3, 51, 8.2, 19725127],
    [10.4, 22.6, 23, 0.81, 27982565],
    [1.2, 0.33, 1167, 0.23, 12793605],
  ]);
  assert.deepEqual(r.warnings, []);
  // A report without labels keeps kernel null.
  assert.ok(parseLockmeter1(readFileSync(join(dir, "linder-2003-unmap-vmas.txt"), "utf8"), "x").rows.every((x) => x.kernel === null));
});
