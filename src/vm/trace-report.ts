/**
 * Notebook 02's comparison of the two ways of timing grants in a traced run
 * (rseq tracepoints vs the hrtimer the kernel arms), as rows and a paragraph
 * computed from the runs' analysis files.
 */
type Json = Record<string, any>;

const us = (ns: number | null | undefined): string => (ns === null || ns === undefined ? "—" : (ns / 1000).toFixed(1));

/** Grant durations of both methods, for an ECDF: { side, us } rows. */
export function grantDurationRows(grants: Json[], timers: Json[]): { side: string; us: number }[] {
  return [
    ...grants.filter((g) => g.durationNs !== null).map((g) => ({ side: "tracepoints", us: g.durationNs / 1000 })),
    ...timers.filter((t) => t.durationNs !== null).map((t) => ({ side: "hrtimer", us: t.durationNs / 1000 })),
  ];
}

/** Rows "pair | grants | median diff | deadline diff | why" of the methods' disagreements. */
export function disagreementRows(ta: Json): (string | number)[][] {
  return (ta.matching.disagreements as Json[]).map((d) => [d.pair, d.n, us(d.medianDiffNs), us(d.medianDeadlineDiffNs), d.why]);
}

/** The numbers the paragraph quotes, for recordValue. */
export function traceMethodNumbers(ta: Json, a5: Json): { unseen: number; expiredBeforeUser5: number; grants5: number } {
  return { unseen: ta.matching.grantsWithoutTimer, expiredBeforeUser5: a5.tracepoints.outcomes["expired-before-user"] ?? 0, grants5: a5.tracepoints.grants };
}

/** The paragraph: what the hrtimer method sees of the traced run TA, against the default-slice run A5 (its provenance P5, record name R5). */
export function traceMethodParagraph(ta: Json, a5: Json, p5: Json, r5: string): string {
  const n = traceMethodNumbers(ta, a5);
  const ebu = ta.tracepoints.outcomes["expired-before-user"] ?? 0;
  const rbu = ta.tracepoints.outcomes["revoked-before-user"] ?? 0;
  const expPair = (ta.matching.disagreements as Json[]).find((d) => d.pair === "expired/expired");
  const allAgree = (ta.matching.disagreements as Json[]).every((d) => String(d.why).startsWith("agree"));
  return (
    `Of **${ta.tracepoints.grants}** grants the hrtimer method sees **${ta.hrtimer.intervals}**: ` +
    `${n.unseen} grants never armed the timer — ${ebu} had already expired on the way out to user space ` +
    `and ${rbu} were revoked before the timer was armed. Where both see a grant they ${allAgree ? "agree" : "do not always agree"} on how it ended, ` +
    `but the timer method starts its clock at \`hrtimer_start\`, after the grant: for the ${expPair?.n ?? 0} expiries ` +
    `its durations are a median ${us(-(expPair?.medianDiffNs ?? 0))} µs shorter — the way out to user space, slow under TCG. ` +
    `Measured from the deadline the timer carries (\`expires\` − \`slice_ext_nsec\`) the gap shrinks to ` +
    `${us(-(expPair?.medianDeadlineDiffNs ?? 0))} µs: the indirect method can recover the grant instant if it knows the slice length, ` +
    `but it cannot see grants that never reached the timer. On a real CPU the way out is far shorter; ` +
    `under TCG it is long enough that with the kernel's default slice (${p5.kernel.sliceExtNsec / 1000} µs) ` +
    `${n.expiredBeforeUser5} of ${n.grants5} grants expired before user space and the timer method saw ${a5.hrtimer.intervals} ` +
    `(\`${r5}\`).`
  );
}
