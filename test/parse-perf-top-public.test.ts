// perf top --stdio screens as posted (test/fixtures/perf-top/public/, each with its *.source.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { detectPerfTop, parsePerfTop } from "../src/parse/perf-top.js";
import { chooseFormat } from "../src/cli/commands/parse.js";

const dir = join(repoRoot(), "test/fixtures/perf-top/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");
const rowsOf = (top: ReturnType<typeof parsePerfTop>) => top.rows.map((r) => [r.selfPct, r.sharedObject, r.space, r.symbol]);

test("Piszcz 2019 (LKML, perf 5.1): a header wrapped after 'lost: 68/68', ten rows", () => {
  const top = parsePerfTop(read("piszcz-2019-khugepaged"), "p");
  assert.deepEqual(top.snapshots.map((s) => [s.line, s.irqsPerSec, s.kernelPct, s.exactPct, s.lost, s.lostTotal, s.drop, s.dropTotal, s.frequencyHz, s.event, s.target, s.cpus]), [
    [13, 3716, 92.9, 99.1, 68, 68, 0, 0, 4000, "cycles", "all", 12],
  ]);
  assert.equal(top.rows.length, 10);
  assert.deepEqual(rowsOf(top)[0], [47.53, "[kernel]", "kernel", "compaction_alloc"]);
  assert.deepEqual(rowsOf(top)[1], [38.88, "[kernel]", "kernel", "__pageblock_pfn_to_page"]);
  assert.deepEqual(rowsOf(top)[6], [0.25, "libdbus-1.so.3.19.9", "user", "_dbus_string_hex_decode"]);
  assert.deepEqual(rowsOf(top)[9], [0.19, "perf", "user", "__symbols__insert"]);
  assert.ok(top.rows.every((r) => r.snapshot === 0 && r.command === null));
  assert.deepEqual(top.warnings, []);
});

test("youling 2022 (quoted by Elver, linux-arch): header wrapped after 'drop:', unresolved kernel addresses", () => {
  const top = parsePerfTop(read("youling-2022-kmsan-hex-symbols"), "y");
  const s = top.snapshots[0]!;
  assert.deepEqual([s.irqsPerSec, s.kernelPct, s.exactPct, s.lost, s.drop, s.dropTotal, s.frequencyHz, s.cpus], [8253, 75.3, 100, 0, 0, 17899, 4000, 8]);
  assert.deepEqual(rowsOf(top), [
    [14.87, "[kernel]", "kernel", "0xffffffff941d1f37"],
    [6.71, "[kernel]", "kernel", "0xffffffff942016cf"],
  ]);
});

test("Zaharinov 2023 (netdev, quoted three deep by Ahern): a per-process target, a module as shared object", () => {
  const top = parsePerfTop(read("zaharinov-2023-smartdns-saddr"), "z");
  const s = top.snapshots[0]!;
  assert.deepEqual([s.irqsPerSec, s.kernelPct, s.exactPct, s.frequencyHz, s.event, s.target, s.cpus], [4223, 96.9, 100, 4000, "cycles", "target_pid: 1208268", null]);
  assert.deepEqual(rowsOf(top), [
    [28.48, "[kernel]", "kernel", "__ipv6_dev_get_saddr"],
    [12.31, "[kernel]", "kernel", "l3mdev_master_ifindex_rcu"],
    [6.63, "[pppoe]", "kernel", "pppoe_rcv"],
    [3.82, "[kernel]", "kernel", "ipv6_dev_get_saddr"],
    [2.07, "[kernel]", "kernel", "__dev_queue_xmit"],
  ]);
});

test("KOSAKI 2009 (linux-mm, perf 2.6.32): the old samples/pcnt/RIP layout with a sample period", () => {
  const top = parsePerfTop(read("kosaki-2009-aim7-spin-lock"), "k");
  const s = top.snapshots[0]!;
  assert.deepEqual([s.irqsPerSec, s.kernelPct, s.exactPct, s.frequencyHz, s.period, s.event, s.target, s.cpus], [864, 99.7, null, null, 100000, "cycles", "all", 8]);
  assert.equal(top.rows.length, 11);
  const r = top.rows;
  assert.deepEqual([r[0]!.samples, r[0]!.selfPct, r[0]!.address, r[0]!.symbol, r[0]!.sharedObject, r[0]!.space], [3235, 75.1, "ffffffff814afb21", "_spin_lock", null, "kernel"]);
  assert.deepEqual([r[2]!.samples, r[2]!.selfPct, r[2]!.symbol, r[2]!.sharedObject], [165, 3.8, "rpc_sleep_on", "[sunrpc]"]);
  assert.deepEqual([r[10]!.samples, r[10]!.selfPct, r[10]!.symbol], [5, 0.1, "get_page_from_freelist"]);
  // The prose after the table is not a row.
  assert.equal(r.at(-1)!.line, 18);
});

test("Staszewski 2019 (quoted by Abeni, netdev, quoted-printable): header split at a '=20' soft break", () => {
  const top = parsePerfTop(read("staszewski-2019-forwarding-qp"), "s");
  const s = top.snapshots[0]!;
  assert.deepEqual([s.irqsPerSec, s.kernelPct, s.exactPct, s.frequencyHz, s.event, s.target, s.cpus], [104692, 99.5, 0, 4000, "cycles", "all", 56]);
  assert.equal(top.rows.length, 9);
  assert.deepEqual(rowsOf(top)[0], [9.06, "[kernel]", "kernel", "mlx5e_skb_from_cqe_mpwrq_linear"]);
  assert.deepEqual(rowsOf(top)[8], [2.73, "[kernel]", "kernel", "mlx5e_poll_rx_cq"]);
  assert.deepEqual(rowsOf(top)[1], [6.43, "[kernel]", "kernel", "tasklet_action_common.isra.21"]);
});

test("Garry 2020 (iommu): two screens, one CPU ('(all, CPU: 0)') then the whole system, both headers wrapped", () => {
  const top = parsePerfTop(read("garry-2020-arm-smmu-two-screens"), "g");
  assert.deepEqual(top.snapshots.map((s) => [s.line, s.irqsPerSec, s.kernelPct, s.exactPct, s.lost, s.lostTotal, s.drop, s.dropTotal, s.target, s.cpus, s.cpuList]), [
    [3, 1694, 97.3, 0, 0, 0, 0, 0, "all", null, "0"],
    [27, 85864, 89.6, 0, 0, 34434, 0, 40116, "all", 96, null],
  ]);
  const first = top.rows.filter((r) => r.snapshot === 0);
  const second = top.rows.filter((r) => r.snapshot === 1);
  assert.deepEqual([first.length, second.length], [14, 15]);
  assert.deepEqual([first[0]!.selfPct, first[0]!.symbol, second[0]!.selfPct, second[0]!.symbol], [50.84, "arm_smmu_cmdq_issue_cmdlist", 27.43, "arm_smmu_cmdq_issue_cmdlist"]);
  assert.deepEqual([first.at(-1)!.selfPct, first.at(-1)!.symbol, second.at(-1)!.selfPct, second.at(-1)!.symbol], [0.66, "blk_mq_complete_request", 0.88, "__arm_lpae_map"]);
});

test("parse auto: every public perf top sample is perf-top, not perf-report", () => {
  for (const n of ["piszcz-2019-khugepaged", "youling-2022-kmsan-hex-symbols", "zaharinov-2023-smartdns-saddr", "kosaki-2009-aim7-spin-lock", "staszewski-2019-forwarding-qp", "garry-2020-arm-smmu-two-screens"]) {
    assert.equal(chooseFormat(read(n), n).name, "perf-top", n);
  }
});

test("two snapshots, rows without a header, a broken header", () => {
  const a = read("zaharinov-2023-smartdns-saddr");
  const two = parsePerfTop(`${a}\n${read("piszcz-2019-khugepaged")}`, "two");
  assert.deepEqual(two.snapshots.map((s) => s.irqsPerSec), [4223, 3716]);
  assert.deepEqual([two.rows.filter((r) => r.snapshot === 0).length, two.rows.filter((r) => r.snapshot === 1).length], [5, 10]);
  const bare = parsePerfTop("    47.53%  [kernel]                 [k] compaction_alloc\n", "bare");
  assert.deepEqual([bare.rows.length, bare.rows[0]!.snapshot, bare.warnings.length, bare.warnings[0]!.line], [1, -1, 1, 1]);
  assert.equal(detectPerfTop("    47.53%  [kernel]  [k] compaction_alloc\n"), false);
  assert.throws(
    () => parsePerfTop("   PerfTop:    3716 irqs/sec  kernel:92.9%  exact: 99.1% [4000Hz cycles\n", "bad.txt"),
    (e: unknown) => e instanceof ParseError && /^bad\.txt:1: expected a PerfTop header/.test(e.message),
  );
});

test("mail artefacts: Piszcz's screen quoted, with CRLF and every row wrapped before its mark, gives the same rows", () => {
  const base = parsePerfTop(read("piszcz-2019-khugepaged"), "p");
  const mangled = read("piszcz-2019-khugepaged")
    .split("\n")
    .map((l) => `> ${l.replace(/\s+(\[[k.]\] )/, "\n> $1")}`)
    .join("\r\n");
  const top = parsePerfTop(mangled, "p");
  assert.deepEqual(rowsOf(top), rowsOf(base));
  assert.deepEqual(top.snapshots.map((s) => [s.irqsPerSec, s.lost, s.cpus]), [[3716, 68, 12]]);
});
