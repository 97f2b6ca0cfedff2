/**
 * The rest of REPRODUCE.md (issue 28 item 11: "every paragraph with a number"): every measured-looking
 * number (a decimal, a percentage, "N-fold") outside the measured regions of src/evidence/figures.ts is
 * traced here to the record it comes from, or marked as not a measurement (a version, a setting, a goal,
 * a confidence level) with the reason. Kept apart from figures.ts, in its shapes; `unregioned` is the check.
 * The published figures (Spraul's, Sangappa's) are read back through the claims ledger, which parses them
 * from data/published/ and recomputes them.
 */
import { buildLedger, type ClaimEntry } from "../claims/index.js";
import { FIGURES, MEASURED_REGIONS, NOT_MEASURED, checkEntry, normalizeDoc, type Doc, type FigureEntry, type NotMeasured } from "./figures.js";

const R = "REPRODUCE.md" as const;

let ledger: ClaimEntry[] | null = null;
/** A value of the claims ledger (buildLedger, cached): what the kit computes from the published excerpt. */
const ledgerValue = (id: string, name: string, round?: (x: number) => number) => (): number => {
  ledger ??= buildLedger();
  const e = ledger.find((x) => x.id === id);
  const v = e?.values[name];
  if (typeof v !== "number") throw new Error(`claims ledger: ${id} has no value ${name}`);
  return round ? round(v) : v;
};
const tens = (x: number) => Math.round(x / 10) * 10;

const LAHR_RUN = "The 8-way run lasted about 1030 s of wall time, so its CPU time on 8 CPUs is about 8,250 s; Spraul's \"129 s wall clock\" looks like 1030 / 8";
const LOCKSTAT = "data/published/lahr-2001/lockstat.raw.txt";
const SPRAUL = "data/published/lahr-2001/spraul-reply.raw.txt";

export const WHOLE_FIGURES: FigureEntry[] = [
  // §1, the Lahr readings: the run length the tables give, rounded to tens ("about").
  { doc: R, sentence: LAHR_RUN, figure: "about 1030 s", record: LOCKSTAT, field: "ledger lahr-2001/run-lengths runLengthS_8way (1031.6 s), to tens", value: ledgerValue("lahr-2001/run-lengths", "runLengthS_8way", tens) },
  { doc: R, sentence: LAHR_RUN, figure: "about 8,250 s", record: LOCKSTAT, field: "ledger lahr-2001/run-lengths cpuTimeS (8252.7 s), to tens", value: ledgerValue("lahr-2001/run-lengths", "cpuTimeS", tens) },
  { doc: R, sentence: LAHR_RUN, figure: "\"129 s", record: SPRAUL, field: "ledger lahr-2001/run-lengths spraulWallS (Spraul's figure as printed)", value: ledgerValue("lahr-2001/run-lengths", "spraulWallS") },
  { doc: R, sentence: LAHR_RUN, figure: "like 1030", record: SPRAUL, field: "ledger lahr-2001/run-lengths spraulCpuS (Spraul's figure as printed)", value: ledgerValue("lahr-2001/run-lengths", "spraulCpuS") },
  { doc: R, sentence: "Spraul's \"around 0.7 seconds lost to spinning\" is SPIN × WAIT MEAN", figure: "0.7 seconds", record: LOCKSTAT, field: "ledger lahr-2001/spraul-lost-time toolLostS (SPIN × WAIT MEAN of the 8-way sem_ids row, 0.678 s)", value: ledgerValue("lahr-2001/spraul-lost-time", "toolLostS") },
  { doc: R, sentence: "which gives about 1.86 s.", figure: "1.86 s", record: LOCKSTAT, field: "ledger lahr-2001/spraul-lost-time lostPerAcquisitionS (TOTAL × WAIT MEAN)", value: ledgerValue("lahr-2001/spraul-lost-time", "lostPerAcquisitionS") },
  // §2, what cannot be reproduced: Sangappa's stated gain.
  { doc: R, sentence: "Swingbench (Sangappa's +55%)", figure: "+55%", record: "data/published/sangappa-2024/test-results.raw.txt", field: "ledger sangappa-2024/swingbench-improvement statedPct", value: ledgerValue("sangappa-2024/swingbench-improvement", "statedPct") },
].map((e): FigureEntry => ({ ...e, value: e.value ? () => e.value!() : undefined }));

const nm = (sentence: string, figure: string, why: string): NotMeasured => ({ doc: R, sentence, figure, why });
export const WHOLE_NOT_MEASURED: NotMeasured[] = [
  nm("HZ = 100 of Linux 2.4 on i386", "2.4", "a kernel version"),
  nm("`lockstat.c` version 1.4.11 by John Hawkes", "1.4", "the tool's version"),
  nm("(kernels with the lockmeter 1.4.5 patch;", "1.4", "the patch's version"),
  nm("against SciPy 1.10.1 (", "1.10", "SciPy's version"),
  nm("(v6.6-rc4 + PREEMPT_AUTO", "6.6", "a kernel version"),
  nm("the merged interface (Linux 7.0) differs", "7.0", "a kernel version"),
  nm("Pentium II/III with Linux 2.4 and lockmeter", "2.4", "a kernel version"),
  nm("scale 100 (1.5 GB, fits in memory", "1.5", "the size pgbench's scale 100 has by definition (about 15 MB per scale unit), not a run of ours"),
  nm("ratios with a 95% t interval", "95%", "the confidence level"),
  nm("PASS / FAIL / UNRESOLVED against 0.99 (", "0.99", "the goal"),
  nm("(UNRESOLVED when the interval contains 0.99)", "0.99", "the goal"),
  nm("(when Linux 7.2 clears the word", "7.2", "a kernel version"),
  nm("On glibc older than 2.41 (Debian 12 has 2.36", "2.41", "the glibc version"),
  nm("On glibc older than 2.41 (Debian 12 has 2.36", "2.36", "the glibc version"),
  nm("hold-time p50/p99/p99.9/max", "99.9", "the name of a percentile"),
  nm("Pre-7.0 reference (preemption modes). Linux 7.0 removed", "-7.0", "a kernel version"),
  nm("Pre-7.0 reference (preemption modes). Linux 7.0 removed", "Linux 7.0", "a kernel version"),
  nm("`linux-source-6.1` (6.1.176 here)", "(6.1", "a kernel version"),
  nm("(`slice-ext` is refused on 6.1, naming", "6.1", "a kernel version"),
  nm("and the 7.0 release that added", "7.0", "a kernel version"),
  nm("On 6.1 the patched server", "6.1", "a kernel version"),
  nm("the paired 95% CI of all − off", "95%", "the confidence level"),
  nm("within blocks, against ±2%)", "±2%", "the goal"),
  nm("and the pre-7.0 reference is", "-7.0", "a kernel version"),
  nm("part only with glibc older than 2.41)", "2.41", "the glibc version"),
  nm("series merged for 7.0) by Message-ID", "7.0", "a kernel version"),
  nm("on the 6.18 host the extension", "6.18", "the host kernel's version"),
  nm("a throwaway sshd on 127.0.0.1 (", "127.0.0.1", "an address"),
  nm("--duration 0.5 --fault-every", "0.5", "a command's setting"),
  nm("boots the kit's 7.2 kernel once under", "7.2", "a kernel version"),
  nm("shows the predictions from the 7.2 source", "7.2", "a kernel version"),
];

/** Passages of the whole document whose integers are checked too (figures.ts's integer regions are its own). */
export const WHOLE_INT_REGIONS: { from: string; to: string }[] = [
  { from: "- The Lahr run lengths come from the tables", to: "- CON is (SPIN + REJECT) / TOTAL" },
];
WHOLE_NOT_MEASURED.push(
  nm("The 8-way run lasted", "8-way", "the name of the run (the machine's CPU count)"),
  nm("its CPU time on 8 CPUs is", "8 CPUs", "the machine's CPU count (data/published/lahr-2001/configuration.json)"),
  nm("looks like 1030 / 8.", "/ 8", "the machine's CPU count"),
  nm("SPIN × WAIT MEAN of the 8-way `sem_ids` row", "8-way", "the name of the run"),
);

/** Every number, with thousands separators, for the integer passages. */
const INT_RE = /[−+±-]?\d[\d,]*(?:\.\d+)*(?:%|-fold)?/g;

/** Measured-looking numbers, as figures.ts scans its measured regions: decimals, percentages, "N-fold". */
const MEASURED_RE = /[−+±-]?\d+(?:\.\d+)?(?:%|-fold)|[−+±-]?\d+\.\d+/g;

/** Problems of the whole-document check: the entries here that do not hold, and every measured-looking number of REPRODUCE outside the measured regions that no entry traces or marks. */
export function unregioned(docs: Record<Doc, string>, root: string): string[] {
  const out = WHOLE_FIGURES.flatMap((e) => checkEntry(e, docs, root));
  const doc = normalizeDoc(docs[R]);
  const spans: [number, number][] = [];
  for (const reg of MEASURED_REGIONS.filter((r) => r.doc === R)) {
    const from = doc.indexOf(reg.from);
    const to = from < 0 ? -1 : doc.indexOf(reg.to, from + reg.from.length);
    if (from >= 0 && to >= 0) spans.push([from, to]);
  }
  const covered: [number, number][] = [];
  for (const e of [...FIGURES, ...NOT_MEASURED, ...WHOLE_FIGURES, ...WHOLE_NOT_MEASURED]) {
    if (e.doc !== R) continue;
    for (let at = doc.indexOf(e.sentence); at >= 0; at = doc.indexOf(e.sentence, at + 1)) {
      const f = at + e.sentence.indexOf(e.figure);
      covered.push([f, f + e.figure.length]);
    }
  }
  const intSpans = WHOLE_INT_REGIONS.map((r) => {
    const from = doc.indexOf(r.from);
    const to = from < 0 ? -1 : doc.indexOf(r.to, from + r.from.length);
    if (from < 0 || to < 0) out.push(`REPRODUCE.md: integer passage "${r.from}" … "${r.to}" not found`);
    return [from, to] as [number, number];
  }).filter(([a, b]) => a >= 0 && b >= 0);
  const hits: { 0: string; index: number }[] = [...doc.matchAll(MEASURED_RE)].map((m) => ({ 0: m[0], index: m.index! })).filter((m) => !spans.some(([a, b]) => m.index >= a && m.index < b));
  for (const [a, b] of intSpans) {
    for (const m of doc.slice(a, b).matchAll(INT_RE)) if (!/\d\.\d+\.\d/.test(m[0]) && !hits.some((h) => h.index === a + m.index!)) hits.push({ 0: m[0], index: a + m.index! });
  }
  for (const m of hits) {
    const s = m.index;
    const e = s + m[0].length;
    if ((doc.slice(0, s).match(/`/g) ?? []).length % 2 === 1) continue; // in a code span or a path
    if (/[\w/.-]$/.test(doc.slice(Math.max(0, s - 1), s)) && !/^[−+±-]/.test(m[0])) continue; // part of a word, a hash or a path
    if (covered.some(([a, b]) => s >= a - 1 && e <= b + 1)) continue;
    out.push(`REPRODUCE.md: "${doc.slice(Math.max(0, s - 40), e + 20)}": ${m[0]} looks measured but no entry traces it (src/evidence/figures-whole.ts)`);
  }
  return out;
}
