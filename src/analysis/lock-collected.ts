/**
 * Spraul's arithmetic on our host series (notebook 06): reported kernel lock wait over the CPU time
 * of the measured runs, and the sentence on it, whose words follow the figures (tested in
 * test/analysis-lock-collected.test.ts).
 */
export interface KernelLockTime {
  name: string;
  waitS: number;
  runSeconds: number;
  cpus: number;
  /** waitS / (runSeconds × cpus), in %. */
  pct: number;
}

/** Kernel lock wait as a share of the CPU time of the measured runs. */
export function kernelLockTime(name: string, rows: { id: string; workload: string; seconds: number; waitTotalNs: number }[], cpus: number): KernelLockTime {
  const waitS = rows.reduce((a, r) => a + r.waitTotalNs, 0) / 1e9;
  const runSeconds = [...new Map(rows.map((r) => [`${r.id}/${r.workload}`, r.seconds])).values()].reduce((a, x) => a + x, 0);
  return { name, waitS, runSeconds, cpus, pct: (100 * waitS) / (runSeconds * cpus) };
}

/**
 * The sentence after the per-series figures: the sites common to every series' top 3, and how large
 * the kernel's lock wait was: "below 1 %" only when every series' share is, else the largest share.
 */
export function kernelLockSentence(times: KernelLockTime[], topEverywhere: string[]): string {
  const max = Math.max(...times.map((t) => t.pct));
  const size =
    times.length === 0
      ? "No series with perf-lock output."
      : max < 1
        ? `In every series the kernel's own lock wait was below 1 % of the CPU time (at most ${max.toFixed(3)} %).`
        : `The kernel's own lock wait reached ${max.toFixed(3)} % of the CPU time in ${times.find((t) => t.pct === max)!.name}.`;
  return (
    `The sites among the top 3 of every series: ${topEverywhere.map((c) => `\`${c}\``).join(", ") || "none in common"}. ` +
    `${size} PostgreSQL's user-space locks are not kernel locks and do not appear in these tables.`
  );
}

/**
 * What the pg-waits comparison of synchronous_commit on and off shows, computed from the two shares
 * (LWLock + IO waits among the active backends seen): which way they differ, nothing about why.
 */
export function commitWaitReading(syncPct: number, asyncPct: number): string {
  if (!Number.isFinite(syncPct) || !Number.isFinite(asyncPct)) return "one of the two shares is missing.";
  const d = syncPct - asyncPct;
  if (Math.abs(d) < 1) return `the two shares differ by less than 1 point (${d.toFixed(1)}).`;
  return d > 0
    ? `${d.toFixed(1)} points fewer LWLock and I/O waits with \`off\` than with \`on\`.`
    : `${(-d).toFixed(1)} points more LWLock and I/O waits with \`off\` than with \`on\`.`;
}

/**
 * Whether a sampled series saw enough active backends to say anything about lock waits: fewer than
 * one active backend per sample for every four clients is taken as too sparse (the sampler shares the
 * CPUs with the workload, so short waits go unseen).
 */
export function samplingReading(activePerSample: number, clients: number): string {
  if (!(clients > 0)) return "";
  return activePerSample * 4 < clients
    ? `${activePerSample.toFixed(3)} active backends per sample for ${clients} clients is too sparse a sample to measure lock-table contention.`
    : `${activePerSample.toFixed(3)} active backends per sample for ${clients} clients.`;
}
