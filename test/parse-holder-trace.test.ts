/**
 * The holder-trace parser on a real capture (test/fixtures/holder-trace/host-6.18-none-4k.txt:
 * `slicelab mechanism run --host` on this machine's 6.18 kernel, preemption mode none, 4 KB pages,
 * 0.5 s), checked against counts made independently of the parser, plus the classification rule
 * on stacks of each kind and the errors for malformed input.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { classifySwitch, holdDeschedulings, parseHolderTrace, summariseHolderTrace, holderTraceFormat } from "../src/parse/holder-trace.js";
import { findFormat, detectFormats } from "../src/parse/formats.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const FIXTURE = join(repoRoot(), "test", "fixtures", "holder-trace", "host-6.18-none-4k.txt");
const text = readFileSync(FIXTURE, "utf8");

test("parseHolderTrace reads the hold log and the tracefs part of a real capture", () => {
  const t = parseHolderTrace(text, FIXTURE);
  const workerLines = [...text.matchAll(/^# worker (\d+) tid (\d+) holds (\d+) logged (\d+) lost (\d+)$/gm)];
  assert.equal(t.workers.length, workerLines.length);
  assert.equal(t.holds.length, workerLines.reduce((a, m) => a + Number(m[4]), 0));
  assert.equal(t.minLogNs, 10000);
  const switchLines = text.split("\n").filter((l) => / sched_switch: prev_comm=/.test(l)).length;
  assert.equal(t.switches.length, switchLines);
  const tids = new Set(t.workers.map((w) => w.tid));
  const outs = t.switches.filter((s) => tids.has(s.prevPid));
  const stacks = (text.match(/<stack trace>/g) ?? []).length;
  assert.equal(outs.length, stacks, "one stack per switch away from a worker");
  assert.ok(outs.every((s) => s.stack !== null && s.stack.includes("__schedule")), "each stack attached to its switch");
  assert.equal(t.lostEvents, 0);
  assert.equal(t.sliceTracepoints, false, "6.18 has no rseq_slice tracepoints");
});

test("summariseHolderTrace: under preempt=none no holder is preempted inside the kernel; fault returns are told apart", () => {
  const t = parseHolderTrace(text, FIXTURE);
  const s = summariseHolderTrace(t);
  assert.ok(s.deschedHolds > 0, "some holds were descheduled");
  assert.equal(s.firstByClass["kernel-fault"] + s.firstByClass["kernel-other"], 0);
  assert.equal(s.switchesWithoutStack, 0);
  const faultStacks = t.switches.filter((x) => x.stack?.includes("asm_exc_page_fault")).length;
  assert.ok(s.allByClass["return-fault"] <= faultStacks);
  assert.ok(s.allByClass["return-fault"] >= 1, "the capture has a preemption at a fault's return inside a hold");
  assert.equal(s.preemptMarkAgreement.disagree, 0, "prev_state R (not R+) at every return-to-user preemption");
  // every descheduled hold: its holder was switched back in between its start and end
  for (const h of holdDeschedulings(t)) {
    const back = t.switches.filter((x) => x.nextPid === h.tid && x.tsNs >= h.startNs && x.tsNs <= h.endNs);
    assert.ok(back.length >= h.classes.length, `hold ${h.startNs}: ${back.length} switches in for ${h.classes.length} deschedulings`);
  }
});

test("classifySwitch: in the kernel (fault or elsewhere), at the return (fault, interrupt, syscall), voluntary, unclassified", () => {
  const base = ["trace_event_raw_event_sched_switch", "__traceiter_sched_switch", "__schedule"];
  assert.equal(classifySwitch({ prevState: "R+", stack: [...base, "preempt_schedule_irq", "irqentry_exit", "asm_sysvec_apic_timer_interrupt", "clear_page_erms", "handle_mm_fault", "do_user_addr_fault", "exc_page_fault", "asm_exc_page_fault"] }), "kernel-fault");
  assert.equal(classifySwitch({ prevState: "R+", stack: [...base, "preempt_schedule_irq", "irqentry_exit", "asm_sysvec_apic_timer_interrupt", "do_syscall_64"] }), "kernel-other");
  assert.equal(classifySwitch({ prevState: "R", stack: [...base, "schedule", "irqentry_exit_to_user_mode", "asm_exc_page_fault"] }), "return-fault");
  assert.equal(classifySwitch({ prevState: "R", stack: [...base, "schedule", "irqentry_exit_to_user_mode", "asm_sysvec_apic_timer_interrupt"] }), "return-interrupt");
  assert.equal(classifySwitch({ prevState: "R", stack: [...base, "schedule", "syscall_exit_to_user_mode", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"] }), "return-syscall");
  assert.equal(classifySwitch({ prevState: "S", stack: [...base, "schedule", "do_nanosleep"] }), "voluntary");
  assert.equal(classifySwitch({ prevState: "R", stack: null }), "unclassified");
});

test("holder-trace is a registered parse format and is detected by its header", () => {
  assert.equal(findFormat("holder-trace"), holderTraceFormat);
  assert.ok(detectFormats(text).includes(holderTraceFormat as never));
  const rows = holderTraceFormat.parse(text, FIXTURE);
  assert.equal(rows.length, summariseHolderTrace(parseHolderTrace(text, FIXTURE)).deschedHolds);
});

test("malformed holder traces: ParseError naming the line, the expectation and what was found", () => {
  const lines = text.split("\n");
  const err = (t: string, re: RegExp) => assert.throws(() => parseHolderTrace(t, "x.txt"), (e: unknown) => e instanceof ParseError && re.test(e.message), re.source);
  err("hello\n", /x\.txt:1: expected the hold log header/);
  err(lines.slice(0, 3).join("\n"), /expected a line "# slicelab-lhp trace follows"/);
  const badHold = [...lines];
  badHold[2] = "12 x 3 4";
  err(badHold.join("\n"), /x\.txt:3: expected a hold line TID START_NS END_NS FLAGS/);
  const sep = lines.findIndex((l) => l.startsWith("# slicelab-lhp trace follows"));
  const ev = lines.findIndex((l, i) => i > sep && / sched_switch: /.test(l));
  const badEvent = [...lines];
  badEvent[ev] = badEvent[ev]!.replace(/prev_state=\S+ ==> /, "prev_state=R ");
  err(badEvent.join("\n"), new RegExp(`x\\.txt:${ev + 1}: expected sched_switch: prev_comm=`));
  const orphan = [...lines];
  const st = orphan.findIndex((l) => l.startsWith(" => "));
  orphan.splice(st - 1, 1);
  err(orphan.join("\n"), /expected a stack line after a <stack trace> line/);
});

// Found by the fuzz test (seed 1601, a duplicated hold line): the consistency errors said "line 0".
test("regression: a duplicated hold line is refused naming its worker's line, not line 0", () => {
  const lines = text.split("\n");
  const dup = [...lines.slice(0, 16), lines[15]!, ...lines.slice(16)].join("\n");
  assert.throws(() => parseHolderTrace(dup, "dup.txt"), (e: unknown) => {
    assert.ok(e instanceof ParseError, String(e));
    assert.equal(e.line, 2, e.message);
    assert.match(e.message, /^dup\.txt:2: expected 50 hold lines for worker 0 \(tid 5156\), found 51/);
    return true;
  });
});
