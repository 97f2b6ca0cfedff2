// perf lock contention as posted on LKML (test/fixtures/perf-lock/public/*contention*, each with its
// *.source.json): -l (lock address, empty and slab "&" symbols), -t (pid/comm) before/after with
// benchmark output between the tables and a debug block, -o with -v (owner stacks), -g (cgroup),
// "> " and "> > " quoting, and raw quoted-printable archives (soft line breaks inside rows and headers).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectPerfLockContention, parsePerfLockContention } from "../src/parse/perf-lock.js";
import { joinSoftBreaks } from "../src/parse/text.js";

const dir = join(repoRoot(), "test/fixtures/perf-lock/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");
const con = (name: string) => parsePerfLockContention(read(name), name);
const times = (e: { waitTotalNs: number | null; waitMaxNs: number | null; waitAvgNs: number | null }) => [e.waitTotalNs, e.waitMaxNs, e.waitAvgNs];

test("Kim 2024-11 (-abl), quoted twice: lock-address mode, empty symbols, slab '&' names, before and after tables", () => {
  const c = con("kim-2024-11-contention-abl-slab-quoted");
  assert.deepEqual(c.tables.map((t) => [t.line, t.mode]), [[3, "lock"], [20, "lock"]]);
  const [before, after] = [1, 2].map((n) => c.entries.filter((e) => e.table === n));
  assert.equal(before!.length, 12);
  assert.equal(after!.length, 10);
  assert.deepEqual([before![0]!.contended, ...times(before![0]!), before![0]!.address, before![0]!.symbol, before![0]!.type], [2, 3340, 2870, 1670, "ffff9d7800ad9600", "", "mutex"]);
  assert.deepEqual([before![5]!.address, before![5]!.symbol, before![5]!.type, ...times(before![5]!)], ["ffffffff9da0b280", "jiffies_lock", "spinlock", 845, 845, 845]);
  assert.equal(before!.filter((e) => e.symbol === "").length, 5);
  assert.deepEqual(after!.map((e) => e.symbol).slice(0, 3), ["&task_struct", "&task_struct", "&kmalloc-cg-512"]);
  assert.deepEqual(times(after![0]!), [1950, 1770, 975]);
  assert.equal(after!.filter((e) => e.symbol === "").length, 0);
  assert.deepEqual(c.warnings.map((w) => w.line), [18, 33]);
});

test("Kim 2023-04 (-abt -E3): task mode before/after with perf bench output between, the debug block, prose after", () => {
  const c = con("kim-2023-04-contention-abt-before-after");
  assert.equal(c.mode, "task");
  assert.deepEqual(c.tables.map((t) => t.line), [8, 21]);
  assert.deepEqual(c.entries.map((e) => [e.table, e.pid, e.comm, e.contended, e.waitTotalNs]), [
    [1, 1305863, "sched-messaging", 19284, 3_510_000_000],
    [1, 1336608, "sched-messaging", 243, 84_090_000],
    [1, 1220416, "node", 177, 66_350_000],
    [2, 1431454, "sched-messaging", 18743, 591_920_000],
    [2, 1468724, "sched-messaging", 51, 210_640_000],
    [2, 1463183, "sched-messaging", 81, 68_610_000],
  ]);
  assert.deepEqual(c.debug, { bad: 1164137, total: 2253341, histogram: { task: 0, stack: 0, time: 0, data: 1164137 } });
  assert.deepEqual(c.warnings.map((w) => w.line), [14, 37]);
  assert.match(c.warnings[1]!.message, /debug block ends here/);
});

test("Shao 2025-02 (-abvo), quoted: waiter entries with stacks, then owner entries after '=== owner stack trace ==='", () => {
  const c = con("shao-2025-02-contention-abvo-owner-quoted");
  assert.equal(c.mode, "caller");
  assert.deepEqual(c.entries.map((e) => [e.owner, e.contended, e.caller, e.stack.length]), [
    [false, 171, "pipe_read+0x57", 5], [false, 36, "pipe_write+0x50", 5], [false, 4, "do_epoll_wait+0x24d", 5], [true, 3, "pipe_read+0x348", 5],
  ]);
  assert.deepEqual(times(c.entries[3]!), [31240, 15270, 10410]);
  assert.deepEqual(c.entries[2]!.stack[1], { address: "0xffffffffac69249b", symbol: "do_epoll_pwait.part.0+0xb" });
  assert.deepEqual(c.messages, ["Example output:", "  $ sudo ~/linux/tools/perf/perf lock con -abvo -Y mutex-spin -E3 perf bench sched pipe", "  ..."]);
  assert.deepEqual(c.warnings.map((w) => w.line), [33, 35]);
});

test("Kim 2023-08 (-abg, -abt -G), quoted-printable: soft breaks inside cgroup paths and comms are joined", () => {
  const text = read("kim-2023-08-contention-abg-abt-qp-quoted");
  assert.ok(detectPerfLockContention(text));
  const c = parsePerfLockContention(text, "qp");
  assert.deepEqual(c.tables.map((t) => [t.line, t.mode]), [[2, "cgroup"], [25, "task"]]);
  const cg = c.entries.filter((e) => e.table === 1);
  assert.equal(cg.length, 10);
  assert.deepEqual([cg[0]!.contended, cg[0]!.waitTotalNs, cg[0]!.cgroup], [1052, 3_340_000, "/app-org.gnome.Terminal.slice/vte-spawn-52221fb8-b33f-4a52-b5c3-e35d1e6fc0e0.scope"]);
  assert.deepEqual(cg.map((e) => e.cgroup).slice(2, 5), ["/", "/session-4.scope", "/app-gnome-firefox\\x2desr-34054.scope"]);
  assert.equal(cg[9]!.waitTotalNs, 742);
  const tasks = c.entries.filter((e) => e.table === 2);
  assert.deepEqual(tasks.map((e) => [e.pid, e.comm]), [[257552, "kworker/4:1"], [0, "swapper"], [255462, "kworker/0:2"], [257680, "kworker/3:1"], [257478, "kworker/2:2"], [15, "rcu_preempt"]]);
  assert.equal(c.warnings[0]!.line, 4);
  assert.match(c.warnings[0]!.message, /^12 quoted-printable soft line break/);
  // Without the joining, the first row would carry the cut name "/app-org.gnome.Term=".
  assert.ok(c.entries.every((e) => !/=$/.test(e.cgroup ?? e.comm ?? "")));
});

test("Song 2024-10 (-ab), quoted-printable: the header line itself is cut; '...snip...' is an elision", () => {
  const c = con("song-2024-10-contention-ab-qp-quoted");
  assert.equal(c.tables[0]!.line, 6);
  assert.deepEqual(c.entries.map((e) => [e.contended, e.waitTotalNs, e.type, e.caller]), [
    [34948, 53_630_000_000, "spinlock", "free_swap_and_cache_nr+0x350"],
    [16569, 40_050_000_000, "spinlock", "get_swap_pages+0x231"],
    [11191, 28_410_000_000, "spinlock", "swapcache_free_entries+0x59"],
    [4147, 22_780_000_000, "spinlock", "page_vma_mapped_walk+0x6f3"],
    [4595, 7_170_000_000, "spinlock", "swapcache_free_entries+0x59"],
    [406027, 2_740_000_000, "spinlock", "list_lru_add+0x39"],
  ]);
  assert.equal(c.entries[3]!.waitMaxNs, 122_660_000);
  assert.deepEqual(c.warnings.map((w) => w.line), [2, 21, 23]);
  assert.match(c.warnings[1]!.message, /"\.\.\.snip\.\.\." — entries left out/);
});

test("soft breaks: only a quoted line ending in one '=' followed by an unquoted line is joined", () => {
  const l = ["> a=", "b", "> === x ===", "c", "> d=", "> e", "f="];
  assert.deepEqual(joinSoftBreaks(l), [0]);
  assert.deepEqual(l, ["> ab", "", "> === x ===", "c", "> d=", "> e", "f="]);
  // A broken row in the second table is still an error naming its line.
  const bad = read("kim-2023-04-contention-abt-before-after").replace("210.64 ms", "210.64 mss");
  assert.throws(() => parsePerfLockContention(bad, "b.txt"), (e: unknown) => e instanceof ParseError && e.line === 24 && /time unit/.test(e.message));
});

test("Dumazet 2025-10 (perf lock record + contention), '>> > ' quoted-printable: four tables, the last without a header line", () => {
  const c = con("dumazet-2025-10-contention-record-qp-quoted3");
  assert.deepEqual(c.tables.map((t) => [t.line, t.headerless]), [[3, false], [16, false], [70, false], [87, true]]);
  const per = [1, 2, 3, 4].map((n) => c.entries.filter((e) => e.table === n));
  assert.deepEqual(per.map((p) => p.length), [4, 3, 6, 8]);
  assert.deepEqual([per[0]![0]!.contended, per[0]![0]!.waitTotalNs, per[0]![0]!.waitMaxNs, per[0]![0]!.caller], [442111, 6_790_000_000, 162_470_000, "dev_hard_start_xmit+0xcd"]);
  assert.deepEqual([per[3]![0]!.contended, per[3]![0]!.waitTotalNs, per[3]![0]!.caller], [32907, 316_980_000, "dev_hard_start_xmit+0xcd"]);
  assert.deepEqual([per[3]![7]!.contended, per[3]![7]!.waitAvgNs, per[3]![7]!.caller], [140, 2310, "___slab_alloc+0x4e0"]);
  // The patch's point, read from the tables: the qdisc-lock wait of dev_hard_start_xmit falls from 6.79 s to 107.18 ms.
  assert.equal(per[2]!.find((e) => e.caller === "dev_hard_start_xmit+0xcd")!.waitTotalNs, 107_180_000);
  assert.ok(c.entries.every((e) => e.type === "spinlock" && !/=$/.test(e.caller!)));
  const w = c.warnings.map((x) => `${x.line}: ${x.message}`).join("\n");
  assert.match(w, /^5: 39 quoted-printable soft line break/);
  assert.match(w, /87: table 4: rows without a header line; the columns of table 3 are assumed/);
});
