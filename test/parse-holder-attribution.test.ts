/**
 * Issue 26: reschedule attribution in holder traces. The trace below is
 * constructed (not a capture): it has the shapes of the 7.2 guest's tracefs
 * text (function tracer on __resched_curr with func_stack_trace, sched_switch
 * with its stacktrace trigger, sched_waking, local_timer_entry,
 * hrtimer_expire_entry, page_fault_user), one hold per case. Real captures
 * are checked in test/mechanism-known-cases.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { attributeDeschedulings, countCauses, holderWhere, parseHolderTrace, requestBit, requestCause } from "../src/parse/holder-trace.js";

const W = 500;
const head = (ts: string, ctx = `lhp-w0-${W}`, flags = "d.h2.") => `  ${ctx}  [000] ${flags}  ${ts}:`;
const sw = (ts: string, prevState: string, stack: string[]) =>
  [`${head(ts, `lhp-w0-${W}`, "d..2.")} sched_switch: prev_comm=lhp-w0 prev_pid=${W} prev_prio=120 prev_state=${prevState} ==> next_comm=lhp-hog next_pid=600 next_prio=120`,
    `${head(ts, `lhp-w0-${W}`, "d..2.")} <stack trace>`, ...stack.map((f) => ` => ${f}+0x1/0x2`)];
const back = (ts: string) => `  lhp-hog-600  [000] d..2.  ${ts}: sched_switch: prev_comm=lhp-hog prev_pid=600 prev_prio=120 prev_state=R ==> next_comm=lhp-w0 next_pid=${W} next_prio=120`;
const resched = (ts: string, parent: string, stack: string[], flags = "d.h2.") =>
  [`${head(ts, `lhp-w0-${W}`, flags)} __resched_curr <-${parent}`, `${head(ts, `lhp-w0-${W}`, flags)} <stack trace>`, ...stack.map((f) => ` => ${f}`)];

const IN_FAULT = ["clear_page_erms", "handle_mm_fault", "do_user_addr_fault", "exc_page_fault", "asm_exc_page_fault"];
const KERNEL_FAULT_SWITCH = ["trace_event_raw_event_sched_switch", "__schedule", "preempt_schedule_irq", "irqentry_exit", "asm_sysvec_apic_timer_interrupt", ...IN_FAULT];
const RETURN_IRQ_SWITCH = ["trace_event_raw_event_sched_switch", "__schedule", "schedule", "irqentry_exit_to_user_mode", "asm_sysvec_apic_timer_interrupt"];
const TIMER_IRQ = ["__hrtimer_run_queues", "hrtimer_interrupt", "__sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", "asm_sysvec_apic_timer_interrupt"];
const TICK = ["resched_curr_lazy", "update_curr", "task_tick_fair", "sched_tick", "update_process_times", "tick_nohz_handler", ...TIMER_IRQ];
const HRTICK = ["resched_curr", "entity_tick", "task_tick_fair", "hrtick", ...TIMER_IRQ];

// hold 1 (10.000100–10.000900): hrtick in the fault → preempted in the fault
// hold 2 (10.002000–10.003000): tick's lazy request in user mode → return from the interrupt
// hold 3 (10.005000–10.008000): lazy request in the fault, then sched_tick's escalation, still in the fault
// hold 4 (10.010000–10.011000): a kworker woken by the timer interrupt
const lines = [
  "# slicelab-lhp hold log v1: tid start_ns end_ns flags (CLOCK_MONOTONIC; holds >= 10000 ns; flags 1 granted-at-release 2 dropped 4 touched 8 rearmed)",
  `# worker 0 tid ${W} holds 4 logged 4 lost 0`,
  `${W} 10000100000 10000900000 4`,
  `${W} 10002000000 10003000000 0`,
  `${W} 10005000000 10008000000 4`,
  `${W} 10010000000 10011000000 0`,
  "# slicelab-lhp trace follows",
  back("10.000050"),
  `${head("10.000150", `lhp-w0-${W}`, "....1.")} page_fault_user: address=0x7f0000001000 ip=0x401000 error_code=0x6`,
  `${head("10.000200")} local_timer_entry: vector=236`,
  `${head("10.000201")} hrtimer_expire_entry: hrtimer=00000000abcd now=10000201000 function=hrtick/0x0`,
  ...resched("10.000202", "resched_curr", [...HRTICK, ...IN_FAULT]),
  ...sw("10.000203", "R+", KERNEL_FAULT_SWITCH),
  back("10.000500"),
  `${head("10.002100")} local_timer_entry: vector=236`,
  ...resched("10.002101", "resched_curr_lazy", TICK),
  ...sw("10.002102", "R", RETURN_IRQ_SWITCH),
  back("10.002500"),
  `${head("10.005100", `lhp-w0-${W}`, "....1.")} page_fault_user: address=0x7f0000002000 ip=0x401000 error_code=0x6`,
  ...resched("10.005200", "resched_curr_lazy", [...TICK, ...IN_FAULT]),
  ...resched("10.006200", "sched_tick", ["update_process_times", "tick_nohz_handler", ...TIMER_IRQ, ...IN_FAULT]),
  ...sw("10.006201", "R+", KERNEL_FAULT_SWITCH),
  back("10.006500"),
  `${head("10.010100")} sched_waking: comm=kworker/0:1 pid=40 prio=120 target_cpu=000`,
  ...resched("10.010101", "resched_curr_lazy", ["wakeup_preempt_fair", "wakeup_preempt", "ttwu_do_activate", "try_to_wake_up", "call_timer_fn", ...TIMER_IRQ]),
  ...sw("10.010102", "R", RETURN_IRQ_SWITCH),
  back("10.010500"),
  "",
];
const TEXT = lines.join("\n");

test("function-tracer lines and their func_stack_trace blocks are parsed as requests, switches keep their own stacks", () => {
  const t = parseHolderTrace(TEXT, "constructed");
  assert.equal(t.resched.length, 5);
  assert.deepEqual(t.resched.map((r) => r.parent), ["resched_curr", "resched_curr_lazy", "resched_curr_lazy", "sched_tick", "resched_curr_lazy"]);
  assert.ok(t.resched.every((r) => r.stack !== null && r.hardirq));
  assert.equal(t.resched[0]!.stack![0], "resched_curr");
  const outs = t.switches.filter((s) => s.prevPid === W);
  assert.equal(outs.length, 4);
  assert.ok(outs.every((s) => s.stack !== null && s.stack.includes("__schedule")));
  assert.equal(t.around.filter((a) => a.kind === "fault-user").length, 2);
  assert.equal(t.around.find((a) => a.kind === "waking")!.targetCpu, 0);
  assert.equal(t.around.find((a) => a.kind === "hrtimer")!.target, "hrtick");
});

test("each descheduling gets the request it acted on: hrtick, tick, tick escalation of a lazy request, kthread wakeup", () => {
  const t = parseHolderTrace(TEXT, "constructed");
  const a = attributeDeschedulings(t, "lazy");
  assert.equal(a.length, 4);
  assert.deepEqual(a.map((x) => [x.cls, x.cause, x.bit, x.where]), [
    ["kernel-fault", "hrtick", "full", "fault"],
    ["return-interrupt", "tick", "lazy", "user"],
    ["kernel-fault", "tick-escalation", "full", "fault"],
    ["return-interrupt", "wakeup-rt-or-kthread", "lazy", "user"],
  ]);
  assert.equal(a[2]!.lazyOrigin, "tick");
  assert.equal(a[0]!.faultBeforeRequest, true);
  assert.equal(a[1]!.faultBeforeRequest, false);
  assert.equal(a[0]!.requestToSwitchNs, 1000);
  const c = countCauses(a);
  assert.equal(c.inKernel.hrtick, 1);
  assert.equal(c.inKernel["tick-escalation"], 1);
  assert.equal(c.atReturn.tick, 1);
  assert.equal(c.atReturn["wakeup-rt-or-kthread"], 1);
});

test("under full the same lazy-called requests set NEED_RESCHED: the first request decides", () => {
  const t = parseHolderTrace(TEXT, "constructed");
  const a = attributeDeschedulings(t, "full");
  // hold 3: under full the first (tick) request already set NEED_RESCHED
  assert.equal(a[2]!.cause, "tick");
  assert.equal(a[2]!.bit, "full");
  assert.equal(a[2]!.lazyOrigin, null);
});

test("requestBit, requestCause and holderWhere on single requests", () => {
  assert.equal(requestBit({ parent: "resched_curr_lazy" }, "lazy"), "lazy");
  assert.equal(requestBit({ parent: "resched_curr_lazy" }, "full"), "full");
  assert.equal(requestBit({ parent: "sched_tick" }, "lazy"), "full");
  assert.equal(requestCause({ parent: "resched_curr", stack: ["resched_curr", "check_preempt_wakeup_dl", "wakeup_preempt", "try_to_wake_up"] }, { target: "fio", targetPrio: 50 }), "wakeup-rt-or-kthread");
  assert.equal(requestCause({ parent: "resched_curr_lazy", stack: ["wakeup_preempt_fair", "wakeup_preempt", "try_to_wake_up", "futex_wake"] }, { target: "lhp-w1", targetPrio: 120 }), "wakeup-preemption");
  assert.equal(requestCause({ parent: "resched_curr", stack: ["hrtimer_wakeup", "__hrtimer_run_queues"] }, null), "hrtimer");
  assert.equal(requestCause({ parent: "resched_cpu", stack: ["resched_cpu", "rcu_core"] }, null), "other");
  assert.equal(holderWhere({ hardirq: true, stack: ["x", "asm_sysvec_apic_timer_interrupt"] }), "user");
  assert.equal(holderWhere({ hardirq: true, stack: ["x", "asm_sysvec_apic_timer_interrupt", "read_iter_zero", "vfs_read", "ksys_read", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"] }), "syscall");
  assert.equal(holderWhere({ hardirq: false, stack: ["wakeup_preempt", "try_to_wake_up", "futex_wake", "do_syscall_64"] }), "syscall");
  assert.equal(holderWhere({ hardirq: true, stack: null }), "unknown");
});

test("a request made on another CPU counts for the holder only when it wakes a task bound for the holder's CPU", () => {
  const other = [
    `  lhp-w1-501  [001] d..2.  10.002050: sched_waking: comm=kworker/0:1 pid=40 prio=120 target_cpu=000`,
    `  lhp-w1-501  [001] d..2.  10.002051: __resched_curr <-resched_curr_lazy`,
    `  lhp-w1-501  [001] d..2.  10.002051: <stack trace>`,
    " => wakeup_preempt_fair", " => wakeup_preempt", " => try_to_wake_up", " => do_syscall_64",
    `  lhp-w1-501  [001] d..2.  10.002060: sched_waking: comm=lhp-x pid=41 prio=120 target_cpu=001`,
    `  lhp-w1-501  [001] d..2.  10.002061: __resched_curr <-resched_curr_lazy`,
    `  lhp-w1-501  [001] d..2.  10.002061: <stack trace>`,
    " => wakeup_preempt_fair", " => wakeup_preempt", " => try_to_wake_up", " => do_syscall_64",
  ];
  const at = lines.findIndex((l) => l.includes("10.002100") && l.includes("local_timer_entry"));
  const text = [...lines.slice(0, at), ...other, ...lines.slice(at)].join("\n");
  const t = parseHolderTrace(text, "constructed");
  const a = attributeDeschedulings(t, "lazy");
  // hold 2: the remote wakeup of the kworker bound for CPU 0 came first
  assert.equal(a[1]!.cause, "wakeup-rt-or-kthread");
  assert.equal(a[1]!.where, "syscall");
});

test("timerSummary counts hrtimer expiries by callback and the tick's spacing", async () => {
  const { timerSummary } = await import("../src/parse/holder-trace.js");
  const t = parseHolderTrace(TEXT, "constructed");
  const s = timerSummary(t);
  assert.equal(s.hrtimerByFunction.hrtick, 1);
  assert.equal(s.timerIrqs, 2);
  assert.equal(s.tickIntervalMedianNs, null, "no tick_nohz_handler expiry in this trace");
});
