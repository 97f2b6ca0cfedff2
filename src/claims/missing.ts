/**
 * The claims issue 28 (item 10) found missing from the ledger, each with its quoted source (the raw
 * excerpts are verbatim blocks of the seed posts, data/published/<source>/*.raw.txt) and a verdict
 * from the kit's vocabulary: Sangappa's 128-byte padding and diffstat; Rostedt's "lucky" good runs
 * and "the smaller standard deviation is a win"; Spraul's wakeups and his try_atomic_semop bug;
 * Kirkwood's "schedule with a zero timeout"; Lu's 56 threads on 224 CPUs against Desnoyers' question.
 * Every number is read from the excerpts, the tables or other ledger entries.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { citeLine } from "./cite.js";
import { claimEntry, type ClaimEntry } from "./entry.js";
import type { LahrData } from "./lahr.js";
import { fmt, fmtInt, fmtP } from "./numbers.js";
import { numbersIn, rawText } from "./statements.js";
import type { Verdict } from "./verdicts.js";

const rawLines = (source: string, file: string): string[] => {
  const path = `data/published/${source}/${file}`;
  try {
    return readFileSync(join(repoRoot(), path), "utf8").split(/\r?\n/);
  } catch (err) {
    throw new UserError(`${path}: cannot read the raw excerpt (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
};
const num = (e: ClaimEntry, key: string): number => {
  const v = e.values[key];
  if (typeof v !== "number") throw new UserError(`ledger entry ${e.id}: expected a value ${key}`);
  return v;
};

/** The diffstat of a patch as printed: per-file change counts and the summary line. */
export function diffstat(lines: readonly string[], file: string): { files: { path: string; changes: number }[]; summary: { files: number; insertions: number; deletions: number } } {
  const files: { path: string; changes: number }[] = [];
  let summary: { files: number; insertions: number; deletions: number } | null = null;
  lines.forEach((l, i) => {
    const f = /^\s*(\S+)\s+\|\s+(\d+)\s+[+-]*\s*$/.exec(l);
    if (f) files.push({ path: f[1]!, changes: Number(f[2]) });
    const s = /^\s*(\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?/.exec(l);
    if (s) summary = { files: Number(s[1]), insertions: Number(s[2] ?? 0), deletions: Number(s[3] ?? 0) };
    if (!f && !s && l.trim() !== "") throw new UserError(`${file}:${i + 1}: expected a diffstat line ("path | N +-" or "N files changed, …"), found ${JSON.stringify(l)}`);
  });
  if (!summary) throw new UserError(`${file}: expected the summary line "N files changed, …", found none`);
  return { files, summary };
}

function sangappaEntries(): ClaimEntry[] {
  const src = "sangappa-2024";
  const [pad] = numbersIn(src, "shared-structure.raw.txt", /padded to (\d+) bytes/) as [number];
  const [per, page] = numbersIn(src, "shared-structure.raw.txt", /upto (\d+) per (\d+)k page/) as [number, number];
  const fits = Math.floor((page * 1024) / pad);
  const ds = diffstat(rawLines(src, "diffstat.raw.txt"), "data/published/sangappa-2024/diffstat.raw.txt");
  const total = ds.files.reduce((s, f) => s + f.changes, 0);
  const dsOk = ds.files.length === ds.summary.files && total === ds.summary.insertions + ds.summary.deletions;
  const largest = ds.files.reduce((a, b) => (b.changes > a.changes ? b : a));
  return [
    claimEntry({
      id: "sangappa-2024/shared-structure-padding",
      source: src,
      claim: `"These structures are padded to ${pad} bytes. Multiple such shared structures will be allocated from that page(upto ${per} per ${page}k page)"`,
      cites: [citeLine(src, "shared-structure.raw.txt", `are padded to ${pad} bytes`), citeLine(src, "shared-structure.raw.txt", `upto ${per} per ${page}k page`)],
      published: `${pad}-byte structures, up to ${per} per ${page} KiB page`,
      recomputed: `${page} × 1024 / ${pad} = ${fits} structures per page`,
      uncertainty: null,
      verdict: fits === per ? "recomputed" : "not recomputed",
      reason: fits === per ? `a ${page} KiB page holds exactly ${fits} structures of ${pad} bytes` : `a ${page} KiB page holds ${fits} structures of ${pad} bytes, not ${per}`,
      basis: `data/published/sangappa-2024/shared-structure.raw.txt; 1 KiB = 1024 bytes`,
      values: { paddingBytes: pad, perPage: per, pageKiB: page, fitsPerPage: fits },
    }),
    claimEntry({
      id: "sangappa-2024/patch-diffstat",
      source: src,
      claim: `the patch series' diffstat: "${ds.summary.files} files changed, ${ds.summary.insertions} insertions(+), ${ds.summary.deletions} deletions(-)"`,
      cites: [citeLine(src, "diffstat.raw.txt", `${ds.summary.files} files changed, ${ds.summary.insertions} insertions(+), ${ds.summary.deletions} deletions(-)`)],
      published: `${ds.summary.files} files, +${ds.summary.insertions} −${ds.summary.deletions}`,
      recomputed: `${ds.files.length} file lines whose change counts sum to ${total} = ${ds.summary.insertions} + ${ds.summary.deletions}; the largest is ${largest.path} (${largest.changes} lines, ${fmt((100 * largest.changes) / total, 0)}% of the changes)`,
      uncertainty: `the +/− bars are scaled, so the split of each file's count into insertions and deletions cannot be recomputed`,
      verdict: dsOk ? "recomputed" : "not recomputed",
      reason: dsOk
        ? `the summary line agrees with the per-file lines (${ds.files.length} files, ${total} changed lines)`
        : `the per-file lines give ${ds.files.length} files and ${total} changed lines, the summary ${ds.summary.files} and ${ds.summary.insertions + ds.summary.deletions}`,
      basis: `data/published/sangappa-2024/diffstat.raw.txt (every line parsed)`,
      values: { files: ds.files.length, changedLines: total, insertions: ds.summary.insertions, deletions: ds.summary.deletions, largestFileChanges: largest.changes },
    }),
  ];
}

function rostedtEntries(ledger: readonly ClaimEntry[]): ClaimEntry[] {
  const src = "rostedt-2023";
  const sd = ledger.find((e) => e.id === "rostedt-2023/smaller-std-dev");
  const ranges = ledger.find((e) => e.id === "rostedt-2023/ranges-overlap");
  if (!sd || !ranges) throw new UserError("the Rostedt entries smaller-std-dev and ranges-overlap must come first");
  const z = num(sd, "outlierZ");
  const run = num(sd, "outlierRun");
  const without = num(sd, "sdRatioWithoutOutlier");
  const pWithout = num(sd, "fTestPWithoutOutlier");
  const low = z < 0;
  return [
    claimEntry({
      id: "rostedt-2023/good-run-was-lucky",
      source: src,
      claim: `"a good run without the patch was just the test being "lucky" that it didn't get preempted as much in a critical section"`,
      cites: [citeLine(src, "claims.raw.txt", `without the patch was just the test being "lucky" that it didn't get preempted`)],
      published: "no figure (a cause, offered as a guess: \"I'm guessing\")",
      recomputed: `the unpatched spread comes mostly from one ${low ? "low" : "high"} run (run ${fmt(run, 0)}, ${fmt(z, 2)} SD from the mean of the unpatched runs); without it the SD ratio is ${fmt(without, 3)} (F-test p = ${fmtP(pWithout)})`,
      uncertainty: null,
      verdict: "consistent",
      reason:
        `a guess about the cause, and he says so ("I'm guessing"); the runs agree that the unpatched side varies more, ` +
        `${low ? "through one unusually bad run rather than unusually good ones — what a run preempted more often in its critical sections would give" : "through one unusually good run"}, but preemptions were not counted, so the cause cannot be read from tps`,
      basis: `the posted runs, as in rostedt-2023/smaller-std-dev (its outlier and leave-one-out values)`,
      reproduction: { status: "not yet reproduced", records: [], note: "no run of ours counts preemptions inside PostgreSQL's critical sections on bare metal" },
      values: { outlierRun: run, outlierZ: z, sdRatioWithoutOutlier: without, fTestPWithoutOutlier: pWithout },
    }),
    claimEntry({
      id: "rostedt-2023/smaller-std-dev-is-a-win",
      source: src,
      claim: `"I personally think the smaller standard deviation is a win as it makes the database run with a more deterministic behavior."`,
      cites: [citeLine(src, "claims.raw.txt", "I personally think the smaller standard deviation is a win as it makes the")],
      published: "no figure (a judgement)",
      recomputed: `the smaller standard deviation it rests on: ${sd.verdict} (rostedt-2023/smaller-std-dev: F-test p = ${fmtP(num(sd, "fTestP"))}, ${fmtP(pWithout)} without run ${fmt(run, 0)})`,
      uncertainty: null,
      verdict: sd.verdict === "fragile" ? "fragile" : sd.verdict === "recomputed" ? "consistent" : sd.verdict,
      reason:
        `a judgement, offered as his own ("I personally think"), and a reasonable one if the spread is smaller; ` +
        (sd.verdict === "fragile" ? `but that premise is fragile: it rests on one unpatched run (without it F-test p = ${fmtP(pWithout)})` : `its premise is ${sd.verdict}`),
      basis: `rostedt-2023/smaller-std-dev`,
      reproduction: { status: "not yet reproduced", records: [], note: "spreads with and without the extension exist only from a 2-vCPU VM under TCG" },
      values: { fTestPWithoutOutlier: pWithout },
    }),
  ];
}

function lahrEntries(d: LahrData): ClaimEntry[] {
  const src = "lahr-2001";
  const sec = d.spraulSection;
  const callers = d.rows.filter((r) => r.section === sec && r.kind === "caller" && r.lock === d.spraulLock);
  const semop = callers.filter((r) => r.name.startsWith("sys_semop"));
  const lock = d.rows.find((r) => r.section === sec && r.kind === "lock" && r.name === d.spraulLock)!;
  const semopSpins = semop.reduce((s, r) => s + r.spin, 0);
  const semopShare = (100 * semopSpins) / lock.spin;
  const zero = d.backoffUs.filter((x) => x === 0).length;
  const timed = d.backoffUs.filter((x) => x > 0);
  const timedMs = timed.reduce((s, x) => s + x, 0) / 1000;
  return [
    claimEntry({
      id: "lahr-2001/spraul-wakeups-cause",
      source: src,
      claim: `Spraul: "The high contention is caused by the wakeups: cpu0 scans the list of waiting processes and if it finds one it is woken up. If that thread runs before cpu0 can release the spinlock, the second cpu will spin."`,
      cites: [citeLine(src, "spraul-wakeups.raw.txt", "The high contention is caused by the wakeups"), citeLine(src, "lockstat.raw.txt", "sys_semop+0x35c")],
      published: `${d.spraulLock}: CON ${fmt(lock.conPct, 2)}%`,
      recomputed: `the ${semop.length} sys_semop call sites take ${fmtInt(semopSpins)} of the lock's ${fmtInt(lock.spin)} spins (${fmt(semopShare, 1)}%): ${semop.map((r) => `${r.name} CON ${fmt(r.conPct, 2)}%, ${fmtInt(r.spin)} spins`).join("; ")}`,
      uncertainty: null,
      verdict: "consistent",
      reason: `the table puts the contention where his explanation needs it, in sys_semop (${fmt(semopShare, 1)}% of the spins; one call site waits in ${fmt(Math.max(...semop.map((r) => r.conPct)), 2)}% of its acquisitions), but it counts spins per call site, not who was woken when, so the cause is his reading of the code`,
      basis: `${sec} table, the caller rows of ${d.spraulLock} (SPIN, CON)`,
      values: { semopSpins, lockSpins: lock.spin, semopSpinSharePct: semopShare, semopMaxConPct: Math.max(...semop.map((r) => r.conPct)) },
    }),
    claimEntry({
      id: "lahr-2001/spraul-semop-bug",
      source: src,
      claim: `Spraul: "Btw, I found a small bug in try_atomic_semop(): If a semaphore operation with sem_op==0 blocks, then the pid is corrupted. The bug also exists in 2.2."`,
      cites: [citeLine(src, "spraul-semop-bug.raw.txt", "I found a small bug in try_atomic_semop()")],
      published: "no figure (a bug report about ipc/sem.c)",
      recomputed: "nothing the tables could show",
      uncertainty: null,
      verdict: "not checkable",
      reason: `a statement about the kernel's source (Linux 2.4 and 2.2 ipc/sem.c), not about the posted numbers; the kit holds neither source tree nor the fix's fate`,
      basis: `data/published/lahr-2001/spraul-semop-bug.raw.txt`,
      values: {},
    }),
    claimEntry({
      id: "lahr-2001/kirkwood-zero-timeout",
      source: src,
      claim: `Kirkwood: "In the slow path of a spinlock_acquire they busy wait for a few cycles, and then call schedule with a zero timeout assuming that it'll basically do the same as a sched_yield() but more portably."`,
      cites: [citeLine(src, "kirkwood.raw.txt", "call schedule with a zero timeout")],
      published: "no figure",
      recomputed: `PostgreSQL's back-off table of the time (context.json): ${zero} of its ${d.backoffUs.length} delays are zero timeouts, ${timed.length} are ${fmt(timed[0]! / 1000, 0)} ms sleeps (${fmt(timedMs, 0)} ms per pass through the table)`,
      uncertainty: null,
      verdict: "consistent",
      reason:
        `right for most steps: ${zero} of ${d.backoffUs.length} back-off delays are select() with a zero timeout, the sched_yield()-like call Blanchard's strace shows; ` +
        `but ${timed.length} of ${d.backoffUs.length} sleep ${fmt(timed[0]! / 1000, 0)} ms, and those are all of the time the back-off sleeps (lahr-2001/blanchard-select-schedule: most armed timers fired)`,
      basis: `data/published/lahr-2001/context.json (postgres_s_spincycle_us, from s_lock.c)`,
      values: { zeroDelays: zero, timedDelays: timed.length, delays: d.backoffUs.length, timedMsPerPass: timedMs },
    }),
  ];
}

function luEntries(): ClaimEntry {
  const src = "lu-2023";
  const threads = numbersIn(src, "profiles.raw.txt", /nr_threads set to (\d+)/)[0]!;
  const [, , cpus] = numbersIn(src, "profiles.raw.txt", /(\d+)sockets\/(\d+)core\/(\d+)cpu/) as [number, number, number];
  // PostgreSQL forks one backend per connection, so each sysbench thread has a backend of its own.
  const tasks = 2 * threads;
  const question = rawText(src, "desnoyers-question.raw.txt");
  if (!/more heavily active threads than there are scheduler runqueues/.test(question)) {
    throw new UserError(`data/published/lu-2023/desnoyers-question.raw.txt: expected Desnoyers' question about threads and runqueues, found ${JSON.stringify(question)}`);
  }
  const over = tasks > cpus;
  const verdict: Verdict = "recomputed";
  return claimEntry({
    id: "lu-2023/not-oversubscribed",
    source: src,
    claim: `Lu's profile ran "sysbench's nr_threads set to ${threads}" on a "${cpus}cpu" server — Desnoyers asked: "Are there more heavily active threads than there are scheduler runqueues (CPUs) on your machine ?"`,
    cites: [citeLine(src, "profiles.raw.txt", `nr_threads set to ${threads}`), citeLine(src, "profiles.raw.txt", `${cpus}cpu`), citeLine(src, "desnoyers-question.raw.txt", "Are there more heavily active threads")],
    published: `${threads} sysbench threads; ${cpus} CPUs`,
    recomputed: `${threads} client threads and their ${threads} backends (one per connection) = ${tasks} busy tasks on ${cpus} CPUs (${fmt((100 * tasks) / cpus, 0)}%)`,
    uncertainty: null,
    verdict,
    reason: over
      ? `${tasks} busy tasks exceed the ${cpus} runqueues: the machine was oversubscribed`
      : `fewer busy tasks than runqueues (${tasks} < ${cpus}): the answer to Desnoyers' question is no — the contention appeared without oversubscription, which the post's own figures already say`,
    basis: `data/published/lu-2023/profiles.raw.txt (threads, CPUs), desnoyers-question.raw.txt; one backend process per PostgreSQL connection`,
    reproduction: { status: "not yet reproduced", records: [], note: `not run here (2 CPUs)` },
    values: { threads, backends: threads, busyTasks: tasks, cpus },
  });
}

/** The entries, grouped by source, to be placed after that source's others. */
export function missingClaims(d: LahrData, earlier: readonly ClaimEntry[]): { rostedt: ClaimEntry[]; sangappa: ClaimEntry[]; lahr: ClaimEntry[]; lu: ClaimEntry[] } {
  return { rostedt: rostedtEntries(earlier), sangappa: sangappaEntries(), lahr: lahrEntries(d), lu: [luEntries()] };
}
