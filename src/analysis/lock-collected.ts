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
