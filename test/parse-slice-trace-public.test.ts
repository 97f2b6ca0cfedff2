// The slice-trace parser (src/parse/slice-trace.ts) on public ftrace text: tracefs and
// trace-cmd report excerpts posted to LKML or in a blog (test/fixtures/slice-trace/public/,
// each with its .source.json). Mainline has no slice-extension tracepoint, so none of them
// holds an rseq_slice_* event; their hrtimer events are of other timers (tick, sleep,
// POSIX timers), which must give no enforcement-timer interval. Values below were read
// off the fixture files by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyseSliceTrace, detectSliceTrace, parseSliceTrace, type SliceTrace } from "../src/parse/slice-trace.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const PUB = join(repoRoot(), "test", "fixtures", "slice-trace", "public");
const file = (name: string) => join(PUB, `${name}.txt`);
const text = (name: string) => readFileSync(file(name), "utf8");
const parse = (name: string) => parseSliceTrace(text(name), file(name));
const kinds = (t: SliceTrace) => t.records.map((r) => r.event.kind);

/** What every public sample shares: no slice event, no grant, no enforcement-timer interval. */
function noSliceEvents(name: string, t: SliceTrace): void {
  assert.equal(detectSliceTrace(text(name)), false, name);
  const a = analyseSliceTrace(t);
  assert.equal(a.tracepoints.grants, 0, name);
  assert.equal(a.hrtimer.intervals, 0, `${name}: hrtimer events of other timers give no slice-timer interval`);
  assert.deepEqual(a.events, {}, name);
}

test("Hu 2020 (riscv commit message): the tracefs legend without its '#' marks is a header; 4-character flags", () => {
  const n = "hu-2020-06-23-tracefs-riscv-header-no-hash";
  const t = parse(n);
  assert.deepEqual(kinds(t), ["timer-expire", "timer-expire"]);
  assert.equal(t.otherEvents, 10);
  assert.deepEqual(t.otherEventNames, { sched_switch: 5, workqueue_queue_work: 1, tick_stop: 3, workqueue_execute_start: 1 });
  assert.equal(t.resolutionNs, 1000);
  const [first, last] = [t.records[0]!, t.records[1]!];
  // line 9: "user_loop-273   [001] d.h1   604.184788: hrtimer_expire_entry: hrtimer=000000002eda5fab function=tick_sched_timer now=604176096300"
  assert.deepEqual([first.line, first.comm, first.tid, first.cpu, first.tsNs], [9, "user_loop", 273, 1, 604_184_788_000]);
  assert.deepEqual(first.event, { kind: "timer-expire", hrtimer: "000000002eda5fab", fn: "tick_sched_timer", nowNs: 604176096300 });
  assert.deepEqual([last.line, last.tsNs], [16, 604_188_812_000]);
  noSliceEvents(n, t);
  // only the legend's own shapes are headers: another line of prose there is still an error
  const bad = text(n).replace("     TASK-PID   CPU#", "     TASK-PID list  CPU#");
  assert.throws(() => parseSliceTrace(bad, "h.txt"), (e: unknown) => e instanceof ParseError && e.line === 6);
});

test("Weisbecker 2022 (RT timer storm): the latency format, CPU run into the flags, µs since the buffer start", () => {
  const n = "weisbecker-2022-04-05-latency-format-timer-storm";
  const t = parse(n);
  assert.equal(t.records.length, 9);
  assert.ok(t.records.every((r) => r.event.kind === "timer-expire" && r.comm === "swapper/" && r.tid === 1 && r.cpu === 1));
  assert.equal(t.otherEvents, 0);
  assert.equal(t.resolutionNs, 1000);
  assert.equal(t.records[0]!.tsNs, 60_818_582_000);
  assert.equal(t.records[8]!.tsNs, 60_818_658_000);
  assert.deepEqual(t.records[0]!.event, { kind: "timer-expire", hrtimer: "00000000e0ef0f6b", fn: "tick_sched_timer", nowNs: 60415486608 });
  // the ticks are ~10 µs apart, by the trace and by the timer's own clock
  assert.deepEqual(t.records.slice(1).map((r, i) => r.tsNs - t.records[i]!.tsNs), [10, 9, 10, 9, 10, 9, 10, 9].map((us) => us * 1000));
  noSliceEvents(n, t);
  // a delay mark after "us" ('!' > 100 µs) is read the same; a timestamp without "us" is not this format
  const lines = text(n).split("\n");
  assert.equal(parseSliceTrace(lines[0]!.replace("60818582us :", "60818582us!:") + "\n", "m.txt").records[0]!.tsNs, 60_818_582_000);
  assert.throws(() => parseSliceTrace(lines[0]!.replace("60818582us :", "60818582 :") + "\n", "m.txt"), (e: unknown) => e instanceof ParseError && e.line === 1);
});

test("walac 2024 (blog, trace-cmd report | head): 8 CPUs, task names with spaces, callbacks printed as NAME/0x0", () => {
  const n = "walac-2024-06-24-trace-cmd-report-head";
  const t = parse(n);
  assert.equal(t.records.length, 9);
  assert.ok(t.records.every((r) => r.event.kind === "timer-expire"));
  assert.equal(t.otherEvents, 0);
  assert.equal(t.resolutionNs, 1000);
  assert.deepEqual(
    t.records.map((r) => [r.comm, r.tid, r.cpu]),
    [["<idle>", 0, 2], ["<idle>", 0, 7], ["Timer", 34807, 2], ["IPDL Background", 4695, 3], ["sleep", 45035, 1], ["Isolated Web Co", 29032, 4], ["<idle>", 0, 6], ["<idle>", 0, 5], ["dav1d-worker", 44563, 0]],
  );
  assert.equal(t.records[0]!.tsNs, 21403_059823_000);
  assert.equal(t.records[8]!.tsNs, 21403_059864_000);
  const fns = t.records.map((r) => (r.event.kind === "timer-expire" ? r.event.fn : ""));
  assert.deepEqual(fns.filter((f) => f === "hrtimer_wakeup/0x0").length, 2);
  assert.deepEqual(fns.filter((f) => f === "tick_nohz_handler/0x0").length, 7);
  assert.deepEqual(t.records[3]!.event, { kind: "timer-expire", hrtimer: "0xffff90d2cc3a6158", fn: "tick_nohz_handler/0x0", nowNs: 21402100001860 });
  noSliceEvents(n, t);
});

test("walac 2024 (trace-cmd report of record -T): the '=> FUNC (ADDR)' frames belong to the kernel_stack event", () => {
  const n = "walac-2024-06-24-trace-cmd-report-T-stack";
  const t = parse(n);
  assert.deepEqual(kinds(t), ["timer-expire"]);
  assert.deepEqual(t.otherEventNames, { kernel_stack: 1 });
  assert.equal(t.records[0]!.tsNs, 24703_375192_000);
  noSliceEvents(n, t);
  // a frame with no stack event before it is not trace text
  const lines = text(n).split("\n");
  lines.splice(2, 1); // drop the kernel_stack line
  assert.throws(() => parseSliceTrace(lines.join("\n"), "s.txt"), (e: unknown) => e instanceof ParseError && e.line === 3);
});

test("Lelli 2020 (quoted trace-cmd report with stacks): '> ' removed, frames skipped, one tick cycle", () => {
  const n = "lelli-2020-06-15-trace-cmd-quoted-kernel-stack";
  const t = parse(n);
  assert.deepEqual(kinds(t), ["timer-cancel", "timer-expire", "timer-start"]);
  assert.equal(t.otherEvents, 7);
  assert.deepEqual(t.otherEventNames, { kernel_stack: 2, softirq_raise: 2, hrtimer_expire_exit: 1, local_timer_exit: 1, tick_stop: 1 });
  // the quote mark is not part of the task name
  assert.ok(t.records.every((r) => r.comm === "ksoftirqd/4" && r.tid === 31 && r.cpu === 4));
  assert.deepEqual([t.records[0]!.line, t.records[0]!.tsNs], [1, 100_438_509_000]);
  const start = t.records[2]!;
  assert.deepEqual([start.line, start.tsNs], [48, 100_438_523_000]);
  assert.deepEqual(start.event, { kind: "timer-start", hrtimer: "0xffff92e9df91fd20", fn: "tick_sched_timer/0x0", expiresNs: 92631512937, wasArmed: null });
  noSliceEvents(n, t);
});

test("Tosatti 2025 (blanks collapsed by the mail): four tick cycles; the same text with rseq_slice_expired would give intervals", () => {
  const n = "tosatti-2025-11-03-tracefs-collapsed-spaces";
  const t = parse(n);
  assert.equal(t.records.length, 10);
  assert.deepEqual(
    Object.fromEntries(["timer-start", "timer-cancel", "timer-expire"].map((k) => [k, kinds(t).filter((x) => x === k).length])),
    { "timer-start": 4, "timer-cancel": 3, "timer-expire": 3 },
  );
  assert.deepEqual(t.otherEventNames, { hrtimer_expire_exit: 3 });
  assert.equal(t.records[0]!.tsNs, 51_356_672_000);
  assert.equal(t.records[9]!.tsNs, 51_359_672_000);
  assert.deepEqual(t.records[0]!.event, { kind: "timer-start", hrtimer: "ffff927ae205c418", fn: "tick_nohz_handler", expiresNs: 51360062500, wasArmed: null });
  noSliceEvents(n, t);
  // What makes the intervals zero is the callback: renamed, the same events are enforcement-timer intervals.
  const renamed = analyseSliceTrace(parseSliceTrace(text(n).replaceAll("function=tick_nohz_handler", "function=rseq_slice_expired"), "r.txt"));
  assert.equal(renamed.hrtimer.intervals, 4);
  assert.deepEqual(renamed.hrtimer.outcomes, { cancelled: 3, open: 1 });
  assert.equal(renamed.timers[0]!.durationNs, 51_357_671_000 - 51_356_672_000);
});

test("Gleixner 2025 (POSIX timer regression, 6.10): syscall events and a function-tracer entry are other events", () => {
  const n = "gleixner-2025-08-25-tracefs-syscalls-function";
  const t = parse(n);
  assert.deepEqual(kinds(t), ["timer-start", "timer-expire"]);
  assert.deepEqual(t.otherEventNames, { sys_timer_settime: 2, sys_rt_sigreturn: 1, function: 1 });
  assert.equal(t.otherEvents, 4);
  assert.deepEqual([t.records[0]!.comm, t.records[0]!.tid, t.records[0]!.cpu, t.records[0]!.tsNs], ["stress-ng-timer", 2229, 110, 187_938_508_000]);
  assert.deepEqual(t.records[0]!.event, { kind: "timer-start", hrtimer: "0000000023e2c3e0", fn: "posix_timer_fn", expiresNs: 186716943483, wasArmed: null });
  assert.equal(t.records[1]!.tsNs, 187_938_509_000);
  noSliceEvents(n, t);
  // "FUNC <-PARENT" needs both names: a bare arrow is not trace text
  assert.throws(() => parseSliceTrace(text(n).replace("posixtimer_rearm <-dequeue_signal", "posixtimer_rearm <-"), "f.txt"), (e: unknown) => e instanceof ParseError && e.line === 5);
});

test("Gleixner 2020 (hwsim beacon race): sys_enter and a debugging event beside the hrtimer events", () => {
  const n = "gleixner-2020-09-28-tracefs-hwsim-beacon";
  const t = parse(n);
  assert.deepEqual(kinds(t), ["timer-cancel", "timer-expire", "timer-start"]);
  assert.deepEqual(t.otherEventNames, { sys_enter: 1, hrtimer_forward: 1 });
  const start = t.records[2]!;
  assert.deepEqual([start.line, start.comm, start.tid, start.cpu, start.tsNs], [4, "fail", 16132, 29, 933_715_794_000]);
  assert.deepEqual(start.event, { kind: "timer-start", hrtimer: "00000000fe9fe1b9", fn: "mac80211_hwsim_beacon", expiresNs: 933818720770, wasArmed: null });
  assert.equal(t.records[0]!.tsNs, 933_715_768_000);
  noSliceEvents(n, t);
});

test("Menzel 2025 (quoted three deep, format=flowed): the line broken after a space is joined; 'hrtimer_start:hrtimer=' is read", () => {
  const n = "menzel-2025-02-10-tracefs-triple-quoted-flowed";
  const t = parse(n);
  assert.deepEqual(kinds(t), ["timer-cancel", "timer-start", "timer-cancel", "timer-expire", "timer-start"]);
  assert.equal(t.otherEvents, 30);
  assert.deepEqual(t.otherEventNames, {
    hrtimer_init: 1, sched_switch: 13, sched_wakeup: 7, softirq_raise: 2, hrtimer_expire_exit: 1, softirq_entry: 2, softirq_exit: 2, timer_init: 1, timer_start: 1,
  });
  assert.deepEqual(t.joinedLines, [22]);
  const first = t.records[0]!;
  assert.deepEqual([first.line, first.comm, first.tid, first.cpu, first.tsNs], [1, "MediaPD~der #28", 14000, 0, 7542_703768_000]);
  assert.deepEqual(t.records[1]!.event, { kind: "timer-start", hrtimer: "00000000c6f259e7", fn: "hrtimer_wakeup", expiresNs: 7602581538204, wasArmed: null });
  // line 21 + 22: "…hrtimer_expire_entry: hrtimer=000000009bbda66a " / ">>> function=tick_nohz_handler now=7542584007490"
  const ex = t.records[3]!;
  assert.equal(ex.line, 21);
  assert.deepEqual(ex.event, { kind: "timer-expire", hrtimer: "000000009bbda66a", fn: "tick_nohz_handler", nowNs: 7542584007490 });
  assert.equal(t.records[4]!.tsNs, 7542_706340_000);
  noSliceEvents(n, t);
  // without the flowed mark (the trailing space) the two lines are two lines: line 21 lacks function=
  const hard = text(n).replace("hrtimer=000000009bbda66a \n", "hrtimer=000000009bbda66a\n");
  assert.throws(() => parseSliceTrace(hard, "m.txt"), (e: unknown) => e instanceof ParseError && e.line === 21 && /function=/.test(e.message));
  // a flowed break joins lines of the same quote depth only
  const depth = text(n).replace(">>> function=tick_nohz_handler", ">> function=tick_nohz_handler");
  assert.throws(() => parseSliceTrace(depth, "m.txt"), (e: unknown) => e instanceof ParseError && e.line === 21);
});

test("ftrace.rst (wakeup_rt on 3.8.0-test+): latency format with the tracer's own wakeup and context-switch entries", () => {
  const n = "rostedt-ftrace-rst-wakeup-rt-latency-events";
  const t = parse(n);
  assert.deepEqual(kinds(t), ["timer-cancel", "timer-start"]);
  assert.equal(t.otherEvents, 10);
  assert.deepEqual(t.otherEventNames, { wakeup: 1, function: 2, sched_wakeup: 1, hrtimer_expire_exit: 1, power_end: 1, cpu_idle: 1, rcu_utilization: 2, context_switch: 1 });
  assert.equal(t.resolutionNs, 1000);
  // line 25: "    <idle>-0       2dN.3    4us : hrtimer_start: hrtimer=ffff88007d50d5e0 function=tick_sched_timer …"
  const start = t.records[1]!;
  assert.deepEqual([start.line, start.comm, start.tid, start.cpu, start.tsNs], [25, "<idle>", 0, 2, 4000]);
  assert.deepEqual(start.event, { kind: "timer-start", hrtimer: "ffff88007d50d5e0", fn: "tick_sched_timer", expiresNs: 34311211000000, wasArmed: null });
  noSliceEvents(n, t);
  // a wakeup entry needs both tasks: cut after the CPU it is not trace text
  assert.throws(() => parseSliceTrace(text(n).replace("0:120:R   + [002]  5882: 94:R sleep", "0:120:R   + [002]"), "w.txt"), (e: unknown) => e instanceof ParseError && e.line === 18);
});
