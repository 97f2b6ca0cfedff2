/**
 * Notebook 01's reading of lockmeter's WAIT MEAN on Spraul's lock (the 8-way `sem_ids` row): which
 * rows rule out a per-spin mean, whether the lock row's lost time is the sum over its callers under
 * each reading, and the paragraph that reports it. Every number of the paragraph is computed here.
 */
import { conDefinitionCheck, conPct, lahrClaims, lostTime, printedTimeInterval, runLengths, sectionLabel, SMALL_LOST_SHARE_PCT, waitMeanEvidence, type LahrData, type LockRow, type LostTime, type WaitMeanEvidence } from "./lahr.js";
import { claimValueName } from "./entry.js";
import { fmt, fmtInt, fmtInterval } from "./numbers.js";
import { UserError } from "../util/errors.js";
import { lahrInput } from "./inputs.js";
import type { LockstatDefinitions } from "./lahr.js";

export interface WaitMeanReading<R extends LockRow> {
  sem: R;
  lost: LostTime;
  evidence: WaitMeanEvidence<R>;
  /** The rows contradicting a per-spin mean, clearest first (WAIT MAX far above WAIT MEAN × SPIN). */
  clearest: R[];
  callers: R[];
  callersLostPerSpinS: number;
  callersLostPerAcquisitionS: number;
  /** Printed CON, CON recomputed as (SPIN + REJECT) / TOTAL, and the lost time as a share of the run's CPU time. */
  conPct: number;
  conRecomputedPct: number;
  lostShareOfCpuPct: number;
  conCheck: ReturnType<typeof conDefinitionCheck>;
  /** The paragraph notebook 01 prints (before the verdicts). */
  text: string;
}

/** How far WAIT MAX exceeds the most a per-spin mean allows (> 1: impossible). */
export function perSpinExcess(r: LockRow): number {
  return printedTimeInterval(r.waitMaxUs!).lo / (printedTimeInterval(r.waitMeanUs).hi * r.spin);
}

/**
 * The reading for the 8-way `sem_ids` lock row, given the 8-way run's CPU-seconds and Spraul's
 * "around N seconds" figure.
 */
export function waitMeanReading<R extends LockRow>(
  rows: readonly R[],
  cpuSeconds: number,
  spraulSpinningS: number,
  tool: Pick<LockstatDefinitions, "version" | "url"> | null = lahrInput().lockstat,
): WaitMeanReading<R> {
  const sem = rows.find((r) => r.section === "8way" && r.kind === "lock" && r.name.startsWith("sem_ids"));
  if (!sem) throw new UserError("lahr-2001/lockmeter.json: no 8-way sem_ids lock row");
  const lost = lostTime(sem);
  const evidence = waitMeanEvidence(rows);
  const clearest = [...evidence.perSpinImpossible].sort((a, b) => perSpinExcess(b) - perSpinExcess(a));
  // A lock row sums its caller rows, so the right reading must give the lock row's figure back from them.
  const callers = rows.filter((r) => r.section === sem.section && r.kind === "caller" && r.lock === sem.name);
  const callersLostPerSpinS = callers.reduce((s, r) => s + lostTime(r).perSpinS, 0);
  const callersLostPerAcquisitionS = callers.reduce((s, r) => s + lostTime(r).perAcquisitionS, 0);
  const lostShareOfCpuPct = (100 * lost.perAcquisitionS) / cpuSeconds;
  const conCheck = conDefinitionCheck(rows);
  const ev = evidence;
  const single = ev.singleSpinMatchingMaxOverTotal;
  const text =
    `The rows above are the clearest of the ${ev.perSpinImpossible.length} rows whose longest single wait is longer than WAIT MEAN × SPIN could be, even at the rounding limits of the printed times; ` +
    `${ev.perAcquisitionImpossible.length} rows contradict WAIT MEAN × TOTAL, and lock rows' means equal their callers' means weighted by TOTAL for ${ev.lockMeanMatchesTotalWeighted} of ${ev.locksWithCallers} locks (by SPIN for ${ev.lockMeanMatchesSpinWeighted}). ` +
    `Summed over the ${callers.length} caller rows of \`${sem.name}\`, MEAN × SPIN gives ${fmt(callersLostPerSpinS, 3)} s against the lock row's ${fmt(lost.perSpinS, 3)} s, while MEAN × TOTAL gives ${fmt(callersLostPerAcquisitionS, 3)} s against ${fmt(lost.perAcquisitionS, 3)} s. ` +
    `The ${single.length} rows with a single spin, whose one wait is WAIT MAX, print WAIT MAX / TOTAL (${single.map((r) => `${sectionLabel(r.section ?? "")} \`${r.name}\`: ${fmt(r.waitMaxUs!, 1)} / ${r.total} = ${fmt(r.waitMaxUs! / r.total, 2)}, printed ${fmt(r.waitMeanUs, r.waitMeanUs < 10 ? 1 : 0)} µs`).join("; ")}). ` +
    `So this output (kernels with the lockmeter 1.4.5 patch) divides WAIT MEAN by TOTAL, although the tool's own source defines it per spin: ${tool ? `[lockstat.c ${tool.version}](${tool.url}) (John Hawkes, SGI) documents WAIT as "Mean spin-wait wait time" and prints the cumulative wait divided by the number of acquisitions that spun` : "lockstat.c defines it per spin"} — the reading Spraul made, so his arithmetic holds: for \`${sem.name}\` in the 8-way run, SPIN × WAIT MEAN = ${fmtInt(sem.spin)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lost.perSpinS, 3)} s, his "around ${spraulSpinningS} seconds"; ` +
    `TOTAL × WAIT MEAN = ${fmtInt(sem.total)} × ${fmt(sem.waitMeanUs, 1)} µs = ${fmt(lost.perAcquisitionS, 2)} s (${fmtInterval(lost.perAcquisitionBounds, 2, " s")} with the rounding of the mean). ` +
    `His conclusion stands either way: that is ${fmt((100 * lost.perSpinS) / cpuSeconds, 4)}% or ${fmt(lostShareOfCpuPct, 3)}% of the run's ${fmtInt(cpuSeconds)} CPU-seconds, while ${fmt(sem.conPct, 2)}% of its acquisitions waited. ` +
    `(CON is (SPIN + REJECT) / TOTAL: the printed CON matches it in ${conCheck.matchSpinPlusReject} of ${conCheck.rows} rows, SPIN / TOTAL alone in ${conCheck.matchSpinOnly}.)`;
  return {
    sem, lost, evidence, clearest, callers, callersLostPerSpinS, callersLostPerAcquisitionS,
    conPct: sem.conPct, conRecomputedPct: conPct(sem), lostShareOfCpuPct, conCheck, text,
  };
}

/** One of Lahr's tables (2-, 4-, 8-way) in the terms of the ledger: run length, and the lost time under both readings of WAIT MEAN. */
export interface LahrWay {
  section: string;
  cpus: number;
  locks: number;
  busiest: LockRow;
  mostContended: LockRow;
  /** Wall-clock run length from the table (lahr-2001/run-lengths) and CPU time = CPUs × that. */
  runLengthS: number;
  cpuS: number;
  /** Σ over the lock rows of SPIN × WAIT MEAN (the tool's definition) and TOTAL × WAIT MEAN (how this output's rows read). */
  perSpinS: number;
  perAcquisitionS: number;
}

/** Every table of the thread, with the run lengths the ledger uses. */
export function lahrWays(d: LahrData = lahrInput()): LahrWay[] {
  const sections = [d.withoutMq, ...d.withMq];
  const runs = runLengths(d.rows, sections, d.hz);
  return sections.map((section) => {
    const locks = d.rows.filter((r) => r.section === section && r.kind === "lock");
    const run = runs.find((r) => r.section === section)!;
    const cpus = d.cpus[section]!;
    return {
      section,
      cpus,
      locks: locks.length,
      busiest: locks.reduce((a, b) => (b.utilPct > a.utilPct ? b : a)),
      mostContended: locks.reduce((a, b) => (b.conPct > a.conPct ? b : a)),
      runLengthS: run.s,
      cpuS: cpus * run.s,
      perSpinS: locks.reduce((s, r) => s + lostTime(r).perSpinS, 0),
      perAcquisitionS: locks.reduce((s, r) => s + lostTime(r).perAcquisitionS, 0),
    };
  });
}

/**
 * Notebook 06's account of Spraul's arithmetic, from the same ledger entries as notebook 01 and
 * REPRODUCE (lahr-2001/run-lengths, spraul-lost-time, contention-high-lost-small): 1030 s is the
 * 8-way run's wall time, the lost time is SPIN × WAIT MEAN by the tool's definition and TOTAL × WAIT
 * MEAN as the rows read. `values` are ledger values (claimValueName names), for recordValue.
 */
export function lahrLostTimeStory(d: LahrData = lahrInput()): { text: string; values: [string, number][]; ways: LahrWay[] } {
  const ledger = lahrClaims(d);
  const entry = (id: string) => {
    const e = ledger.find((x) => x.id === id);
    if (!e) throw new UserError(`the Lahr ledger has no entry ${id}`);
    return e;
  };
  const val = (id: string, key: string): number => {
    const v = entry(id).values[key];
    if (typeof v !== "number") throw new UserError(`ledger entry ${id}: no value ${key}`);
    return v;
  };
  const RL = "lahr-2001/run-lengths";
  const SL = "lahr-2001/spraul-lost-time";
  const CS = "lahr-2001/contention-high-lost-small";
  const sec = d.spraulSection;
  const ways = lahrWays(d);
  const way = ways.find((w) => w.section === sec)!;
  const run = val(RL, `runLengthS_${sec}`);
  const lo = val(RL, `runLengthLoS_${sec}`);
  const hi = val(RL, `runLengthHiS_${sec}`);
  const tick = entry(RL).values[`tickRunLengthS_${sec}`];
  const cpuS = val(RL, "cpuTimeS");
  const tool = val(SL, "toolLostS");
  const acq = val(SL, "lostPerAcquisitionS");
  const allCpuPct = val(CS, "allLocksShareOfCpuPct");
  const allWallPct = val(CS, "allLocksShareOfWallPct");
  const cpuIsWall = lo <= d.spraul.cpuS && d.spraul.cpuS <= hi;
  const perSpinCpuPct = (100 * way.perSpinS) / cpuS;
  const small = Math.max(perSpinCpuPct, allCpuPct) < SMALL_LOST_SHARE_PCT;
  const text =
    `Spraul put the ${sectionLabel(sec)} run at ~${d.spraul.wallS} s of wall-clock time and ${d.spraul.cpuS} s of CPU time. ` +
    `Lahr's own table ${cpuIsWall ? "says otherwise" : "gives a run length of its own"} (${RL}): UTIL is the share of the measurement's wall-clock time a lock was held (lockstat.c ${d.lockstat.version}), ` +
    `so HOLD MEAN × TOTAL / UTIL gives ${fmt(run, 0)} s ${fmtInterval({ lo, hi }, 0, " s")}${typeof tick === "number" ? ` (the once-per-tick timer_bh count: ${fmt(tick, 0)} s)` : ""}` +
    (cpuIsWall
      ? `: his ${d.spraul.cpuS} s is the run's wall time, ≈ ${fmtInt(cpuS)} CPU-seconds on ${way.cpus} CPUs, and ~${d.spraul.wallS} s looks like ${d.spraul.cpuS} / ${way.cpus} = ${fmt(d.spraul.cpuS / way.cpus, 2)}. `
      : `, ≈ ${fmtInt(cpuS)} CPU-seconds on ${way.cpus} CPUs. `) +
    `Lost to spinning on \`${d.spraulLock}\`: SPIN × WAIT MEAN = ${fmt(tool, 3)} s, the tool's own definition and his "around ${fmt(d.spraul.lostS, d.spraul.lostDecimals)} seconds"; ` +
    `${fmt(acq, 2)} s if this output's means are per acquisition, as its rows show (${SL}). ` +
    `Over the ${way.locks} lock rows of the ${sectionLabel(sec)} table: ${fmt(way.perSpinS, 2)} s per spin, ${fmt(way.perAcquisitionS, 2)} s per acquisition — ` +
    `${fmt(perSpinCpuPct, 4)}% and ${fmt(allCpuPct, 3)}% of the ${fmtInt(cpuS)} CPU-seconds (${fmt(allWallPct, 2)}% of the wall time). ` +
    (small
      ? `Under either reading the time lost to kernel spinning is below ${SMALL_LOST_SHARE_PCT}% of the CPU time, as Spraul concluded (${CS}: ${entry(CS).verdict}).`
      : `Under the per-acquisition reading it reaches ${fmt(allCpuPct, 2)}% of the CPU time (${CS}: ${entry(CS).verdict}).`);
  const values: [string, number][] = [
    [claimValueName(RL, `runLengthS_${sec}`), run],
    [claimValueName(RL, "cpuTimeS"), cpuS],
    [claimValueName(SL, "toolLostS"), tool],
    [claimValueName(SL, "lostPerAcquisitionS"), acq],
    [claimValueName(CS, "allLocksShareOfCpuPct"), allCpuPct],
  ];
  return { text, values, ways };
}

/** Spraul's arithmetic on a `perf lock` capture of today's kernel: kernel lock wait over seconds × CPUs. */
export function kernelLockShare(c: { seconds: number; cpus: number; totalWaitS: number; contentions: number }): { pct: number; small: boolean; text: string } {
  const pct = (100 * c.totalWaitS) / (c.seconds * c.cpus);
  const small = pct < SMALL_LOST_SHARE_PCT;
  const text =
    `${fmtInt(c.contentions)} contended kernel lock acquisitions in ${c.seconds} s, ${fmt(c.totalWaitS * 1e3, 1)} ms of waiting in all: ` +
    `**${fmt(pct, 3)} %** of ${c.seconds} s × ${c.cpus} CPUs — ` +
    (small
      ? `below the ${SMALL_LOST_SHARE_PCT} % that Spraul's arithmetic calls small, as in 2001.`
      : `above the ${SMALL_LOST_SHARE_PCT} % that Spraul's arithmetic calls small.`) +
    ` These are the kernel's own locks: PostgreSQL's user-space spinlocks and LWLocks are not in this report.`;
  return { pct, small, text };
}

/** The first findings of notebook 06, each chosen by the values it names. */
export function lockStatisticsFindings(o: {
  story: ReturnType<typeof lahrLostTimeStory>;
  perfLock: { pct: number; small: boolean } | null;
  collected: readonly { name: string; pct: number }[];
  d?: LahrData;
}): string {
  const d = o.d ?? lahrInput();
  // A lock taken a handful of times can print any CON (4-way inet_wait_for_connect: 1 of 2); count busy locks only.
  const MIN_TOTAL = 1000;
  const locks = d.rows.filter((r) => r.kind === "lock" && r.total >= MIN_TOTAL);
  const maxCon = locks.reduce((a, b) => (b.conPct > a.conPct ? b : a));
  const byName = new Map(o.story.values);
  const sec = d.spraulSection;
  const cpuS = byName.get(claimValueName("lahr-2001/run-lengths", "cpuTimeS"))!;
  const way = o.story.ways.find((w) => w.section === sec)!;
  const perSpinPct = (100 * way.perSpinS) / cpuS;
  const perAcqPct = byName.get(claimValueName("lahr-2001/contention-high-lost-small", "allLocksShareOfCpuPct"))!;
  const small2001 = Math.max(perSpinPct, perAcqPct) < SMALL_LOST_SHARE_PCT;
  const word = (small: boolean) => (small ? `below ${SMALL_LOST_SHARE_PCT} %` : `not below ${SMALL_LOST_SHARE_PCT} %`);
  const bullets = [
    `In 2001 the kernel's spinlocks were contended (CON up to ${fmt(maxCon.conPct, 2)} % among the locks taken at least ${fmtInt(MIN_TOTAL)} times, ${sectionLabel(maxCon.section ?? "")} \`${maxCon.name}\`), and the time lost to spinning on the ${sectionLabel(sec)} run's listed locks was ` +
      `${fmt(perSpinPct, 4)} % (the tool's definition) to ${fmt(perAcqPct, 3)} % (as the rows read) of its CPU time: ${word(small2001)}${small2001 ? ", as Spraul concluded" : ""}.`,
    ...(o.perfLock
      ? [
          `\`perf lock contention\` on this machine's kernel, under sysbench against PostgreSQL, puts the kernel's lock waits at ${fmt(o.perfLock.pct, 3)} % of the recording's CPU time (${word(o.perfLock.small)}). ` +
            `It records kernel locks only: a PostgreSQL backend preempted while holding a user-space lock, the cost the rseq slice extension targets, is not in it; ` +
            `the collectors record that side as wait events (\`pg-waits\`), involuntary switches (\`ctxsw\`) and, with the extension, the rseq counters (\`rseq-stats\`).`,
        ]
      : []),
    ...(o.collected.length
      ? [`Around our own collected runs \`perf lock\` reported kernel lock waits of ${o.collected.map((c) => `${fmt(c.pct, 3)} % (${c.name})`).join(" and ")} of the CPU time (${word(o.collected.every((c) => c.pct < SMALL_LOST_SHARE_PCT))}).`]
      : []),
  ];
  return bullets.map((b) => `- ${b}`).join("\n");
}
