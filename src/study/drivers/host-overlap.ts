import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import { csvRows } from "../../util/csv.js";

/**
 * Which runs of a VM batch shared the host with another TCG VM, from the batch's
 * host-activity.log: a `ps` sample about every 20 s, each listing the qemu processes
 * with their start time (lstart). A foreign VM counts as running from its lstart to
 * its last sample, and ended at the latest at the next sample. Per run (guest clock):
 *   all  = a foreign VM certainly ran during the whole run,
 *   none = no foreign VM can have run at any time of the run,
 *   part = otherwise.
 * Our own VMs are the qemu processes started within 5 s of a cell's `host start`
 * (CELL/host-times.txt). The result is host-overlap.csv of the vm-eviction batch
 * 20261130T080122Z (its text, byte for byte).
 */

export interface ForeignVm {
  pid: string;
  start: number;
  last: number;
  endBy: number;
}

export function foreignVms(log: string, ourStarts: number[]): { samples: number[]; foreign: ForeignVm[] } {
  const samples: number[] = [];
  const vms = new Map<string, { start: number; last: number }>();
  for (const line of log.split("\n")) {
    const t = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) load/.exec(line);
    if (t) {
      samples.push(Date.parse(t[1] as string));
      continue;
    }
    const q = /^\s*(\d+) (\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}) +[\d.]+ \/usr\/bin\/qemu-system/.exec(line);
    if (!q) continue;
    const now = samples[samples.length - 1] as number;
    const v = vms.get(q[1] as string) ?? { start: Date.parse(`${q[2]} UTC`), last: now };
    v.last = now;
    vms.set(q[1] as string, v);
  }
  const nextSample = (t: number) => samples.find((s) => s > t) ?? Infinity;
  const foreign = [...vms.entries()]
    .filter(([, v]) => !ourStarts.some((s) => Math.abs(v.start - s) <= 5000))
    .map(([pid, v]) => ({ pid, start: v.start, last: v.last, endBy: nextSample(v.last) }));
  return { samples, foreign };
}

/** all, none or part for a run from `a` to `b` (ms). */
export function overlapOf(a: number, b: number, samples: number[], foreign: ForeignVm[]): "all" | "none" | "part" {
  const firstSample = samples[0] ?? Infinity;
  let sure = true;
  let free = true;
  for (let t = a; t <= b; t += 1000) {
    if (t < firstSample) {
      sure = sure && foreign.some((v) => v.start <= t && v.last >= t);
      free = false;
      continue;
    }
    if (!foreign.some((v) => v.start <= t && v.last >= t)) sure = false;
    if (foreign.some((v) => v.start <= t && t < v.endBy)) free = false;
  }
  return sure ? "all" : free ? "none" : "part";
}

/** host-overlap.csv's text for the batch in `dir` with the given cells (CELL/series/results.csv, CELL/host-times.txt). */
export function hostOverlapCsv(dir: string, cells: string[]): string {
  const ourStarts = cells.map((c) => {
    const file = join(dir, c, "host-times.txt");
    const m = /host start (\S+)/.exec(readFileSync(file, "utf8"));
    if (!m) throw new UserError(`${file}: expected a line "host start TIME", found none`);
    return Date.parse(m[1] as string);
  });
  const { samples, foreign } = foreignVms(readFileSync(join(dir, "host-activity.log"), "utf8"), ourStarts);
  const out = ["cell,id,variant,warmup,tps,started,ended,otherVm"];
  for (const c of cells) {
    for (const r of csvRows(readFileSync(join(dir, c, "series/results.csv"), "utf8"))) {
      const mark = overlapOf(Date.parse(r.started as string), Date.parse(r.ended as string), samples, foreign);
      out.push([c, r.id, r.variant, r.warmup, r.tps, r.started, r.ended, mark].join(","));
    }
  }
  return `${out.join("\n")}\n`;
}
