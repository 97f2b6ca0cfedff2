/**
 * Where each ledger entry's words stand in the raw excerpts, and what our own runs
 * say about it. Phrases are looked up in data/published/<source>/<file> by cite.ts
 * (a phrase that is not there stops the ledger with the file named); records are
 * checked to exist under data/runs/. Entries about the posted arithmetic only are
 * "not applicable" for reproduction.
 */
import type { Reproduction } from "./entry.js";

/** A phrase of a raw excerpt of the entry's source: [file, words]. */
export type CitePhrase = readonly [file: string, words: string];

export interface Annotation {
  cites: readonly CitePhrase[];
  /** Omitted: not applicable (the posted arithmetic only). Records are names under data/runs/. */
  reproduction?: Omit<Reproduction, "records"> & { records: readonly string[] };
}

const VM = "a 2-vCPU VM under QEMU TCG: functional evidence, not performance";

export const ANNOTATIONS: Readonly<Record<string, Annotation>> = {
  "rostedt-2023/average-unpatched": { cites: [["reported-summary.raw.txt", "Without the patch:"], ["without-patch.raw.txt", "15 runs:"]] },
  "rostedt-2023/std-dev-unpatched": { cites: [["reported-summary.raw.txt", "Std Dev: 420.6304"], ["without-patch.raw.txt", "15 runs:"]] },
  "rostedt-2023/average-patched": { cites: [["reported-summary.raw.txt", "With the patch:"], ["with-patch.raw.txt", "15 runs:"]] },
  "rostedt-2023/std-dev-patched": { cites: [["reported-summary.raw.txt", "Std Dev: 136.7250"], ["with-patch.raw.txt", "15 runs:"]] },
  "rostedt-2023/difference-beyond-noise": {
    cites: [["claims.raw.txt", "it definitely made a difference. Not a huge one, but it was noticeable beyond the noise."]],
    reproduction: {
      status: "not yet reproduced",
      records: ["rostedt-2023/20261130T035419Z", "vm-eviction/20261130T000002Z"],
      note: `our host has no slice extension, so the patched/unpatched comparison runs only in ${VM}; rostedt-2023/20261130T035419Z measures his protocol's run-to-run noise on this machine (an A/A series, not the patch)`,
    },
  },
  "rostedt-2023/smaller-std-dev": {
    cites: [["claims.raw.txt", "But I noticed that with the patch, the standard deviation was much smaller than without the patch."]],
    reproduction: {
      status: "not yet reproduced",
      records: ["rostedt-2023/20261130T035419Z", "vm-eviction/20261130T000002Z"],
      note: `spreads with and without the extension exist only from ${VM}, where TCG's own variation dominates`,
    },
  },
  "rostedt-2023/first-run-cold": {
    cites: [["setup.raw.txt", "Note, I threw out the first run as it had horrible numbers"]],
    reproduction: { status: "not yet reproduced", records: ["rostedt-2023/20261130T035419Z"], note: "an A/A series of his protocol on this machine, with its first runs; this entry does not read it yet" },
  },
  "rostedt-2023/ranges-overlap": { cites: [["claims.raw.txt", "except that with the slower kernel, the worse performance with the patch was better than the best performance without it."]] },
  "sangappa-2024/lock-table-improvement": {
    cites: [["test-results.raw.txt", "Lock table test:- a simple database test"], ["test-results.raw.txt", "44% improvement."]],
    reproduction: {
      status: "not yet reproduced",
      records: ["sangappa-2024-locktable/20261130T021429Z", "vm-eviction/20261130T000002Z", "slice-trace/20261130T051418Z"],
      note: `the lock-table program was not published; our analogue protocol (sangappa-2024-locktable) ran with the extension only in ${VM}, and on the host as an A/A series`,
    },
  },
  "sangappa-2024/swingbench-improvement": {
    cites: [["test-results.raw.txt", "Swingbench - standard database benchmark"], ["test-results.raw.txt", "55% improvement in throughput."]],
    reproduction: { status: "not yet reproduced", records: [], note: "Swingbench runs on Oracle Database, which cannot be run here (REPRODUCE §1)" },
  },
  "sangappa-2024/clearly-shows-benefit": {
    cites: [["claims.raw.txt", "This clearly shows there is benefit."]],
    reproduction: { status: "not yet reproduced", records: ["vm-eviction/20261130T000002Z"], note: `only ${VM}` },
  },
  "lahr-2001/run-lengths": { cites: [["spraul-reply.raw.txt", "The 8-way test ran for ~ 129 seconds wall clock time (total cpu time 1030 seconds)"], ["lockstat.raw.txt", "8way:"]] },
  "lahr-2001/spraul-lost-time": { cites: [["spraul-reply.raw.txt", "and around 0.7 seconds were lost due to spinning."], ["lockstat.raw.txt", "8way:"]] },
  "lahr-2001/contention-high-lost-small": { cites: [["spraul-reply.raw.txt", "The contention is high, but the actual lost time is quite small."]] },
  "lahr-2001/not-major-problem": { cites: [["lahr-major-problem.raw.txt", "I agree it isn't a major performance problem under that workload."]] },
  "lahr-2001/runqueue-lock-after-mq": {
    cites: [["lahr-alleviated.raw.txt", "since it was largely alleviated by the multiqueue scheduler patch."], ["configuration.raw.txt", "[48]-way:  2.4.0 patched with"]],
    reproduction: { status: "not applicable", records: [], note: "Linux 2.4 and the multiqueue scheduler patch are not run here" },
  },
  "lahr-2001/blanchard-select-schedule": {
    cites: [["blanchard-strace.raw.txt", "From a quick strace, we found the threads do a load of select(0, NULL, NULL, NULL, {0,0}). Basically all threads are pounding on schedule()."], ["blanchard-quote.raw.txt", "24.38% 23.93% 15us( 218us) 4.3us( 111us) 744475"]],
  },
  "lahr-2001/spraul-timer-counts": { cites: [["spraul-timers.raw.txt", "The dual cpu numbers are really odd. Extremely high count of add_timer(), del_timer_sync(), schedule() and process_timeout()."]] },
  "lu-2023/schedule-share": { cites: [["profiles.raw.txt", "[k] __schedule"]] },
  "lu-2023/slowpath-share": { cites: [["profiles.raw.txt", "[k] native_queued_spin_lock_slowpath"]] },
  "lu-2023/rq-lock-contention": {
    cites: [["report.raw.txt", "I found rq's lock became very heavily contended as compared to v6.2 based kernels."]],
    reproduction: { status: "not yet reproduced", records: [], note: "needs a machine with at least 56 CPUs (lu-2023/cpus-needed); ours has 2" },
  },
};
