/**
 * The mechanism experiment (issue 14: where lock holders are preempted, mode × pages × extension)
 * as one driver: the row schema (row.ts), the plan (plan.ts), the guest script (guest-script.ts),
 * the reduce of a run directory to a row (reduce.ts), the runners in the VM and on this machine
 * (run.ts) and the record's envelope (envelope.ts). The study driver src/study/drivers/mechanism-micro.ts
 * runs it for `slicelab study run mechanism-micro` (and `slicelab mechanism run`, its alias).
 */
export * from "./row.js";
export * from "./plan.js";
export * from "./guest-script.js";
export * from "./reduce.js";
export * from "./run.js";
export * from "./envelope.js";
