/**
 * The history of user-space lock-holder preemption on Linux, 2001 → 2026, as a
 * small table for notebook 00. The four source posts take their date, author and
 * address from data/published/<source>/provenance.json; the other events carry
 * their own source (the seed post that mentions them, or a public report).
 */
import * as aq from "arquero";
import { loadDipietro2026, loadProvenance, printedNumber, secondaryFigure, type Provenance } from "../published/index.js";
import { UserError } from "../util/errors.js";

/** Where an event's date and description come from. */
export type EventBasis =
  /** One of the four posts the kit recomputes (data/published/<source>). */
  | "published data"
  /** Mentioned in one of the four posts (its date only as precise as the mention). */
  | "mentioned in a source post"
  /** A public report outside the four posts (mailing-list archive, LWN, news). */
  | "public report";

export interface HistoryEvent {
  /** "YYYY", "YYYY-MM" or "YYYY-MM-DD" (UTC date of the post, or the period). */
  date: string;
  /** True when the date is known only to the month/year or is inferred (see `note`). */
  approximate: boolean;
  who: string;
  what: string;
  /** Short label for the figure. */
  label: string;
  /** URL or Message-ID. */
  source: string;
  basis: EventBasis;
  /** The kit's data folder for published sources. */
  published?: string;
  note?: string;
}

/** The UTC calendar date of a provenance record's ISO 8601 date with offset. */
export function provenanceDay(p: Provenance): string {
  const t = Date.parse(p.date);
  if (Number.isNaN(t)) throw new Error(`${p.source}/provenance.json: date ${JSON.stringify(p.date)} is not ISO 8601`);
  return new Date(t).toISOString().slice(0, 10);
}

function fromProvenance(source: string, who: string, what: string, label: string): HistoryEvent {
  const p = loadProvenance(source);
  return {
    date: provenanceDay(p),
    approximate: false,
    who,
    what,
    label,
    source: p.message_id ? `<${p.message_id}> ${p.url}` : p.url,
    basis: "published data",
    published: `data/published/${source}`,
  };
}

/**
 * Figures of the April 2026 regression report (Salvatore Dipietro, AWS, LKML
 * 2026-04-03), read from data/published/dipietro-2026/secondary-figures.raw.txt: the
 * post is not in the stored archives, so they are as the public write-ups named
 * there print them (each figure keeps its file:line in `cites`).
 */
export function dipietro2026Figures() {
  const d = loadDipietro2026();
  const num = (id: string, re: RegExp) => printedNumber(secondaryFigure(d, id), re).value;
  const cite = (id: string) => {
    const f = secondaryFigure(d, id);
    return `${f.file}:${f.line}`;
  };
  const machine = secondaryFigure(d, "machine").printed;
  const commit = /^([0-9a-f]{12})\b/.exec(secondaryFigure(d, "commit").printed)?.[1];
  if (!commit) throw new UserError(`${cite("commit")}: expected a 12-digit commit hash at the start of the figure`);
  const sources = [...new Set(d.figures.flatMap((f) => f.where.split(/\s+/).filter((w) => /^https?:\/\//.test(w))))];
  return {
    vcpus: num("machine", /^(\d+)-vCPU/),
    machine: machine.replace(/^\d+-vCPU\s*/, ""),
    workload: secondaryFigure(d, "workload").printed,
    tpsBefore: num("tps-before", /:\s*([\d,]+)\s+transactions/),
    tpsAfter: num("tps-after", /:\s*([\d,]+)\s+transactions/),
    sLockPct: num("perf-s-lock", /^([\d.]+)%/),
    commit: `${commit} (${secondaryFigure(d, "commit-title").printed})`,
    messageId: d.provenance.message_id,
    sources,
    cites: { tpsBefore: cite("tps-before"), tpsAfter: cite("tps-after"), sLockPct: cite("perf-s-lock"), commit: cite("commit") },
  };
}

/** The same figures, read once when this module loads (notebook 00 uses them). */
export const DIPIETRO_2026 = dipietro2026Figures();

/** The events in date order (ties: the order below). */
export function historyEvents(): HistoryEvent[] {
  const events: HistoryEvent[] = [
    fromProvenance(
      "lahr-2001",
      "Jonathan Lahr (IBM), replies by Manfred Spraul and Anton Blanchard",
      "lockmeter statistics of 2-, 4- and 8-way Linux 2.4 servers running pgbench; Spraul finds the lost time small, Blanchard traces the runqueue_lock contention to PostgreSQL's spinlock back-off, select(0, NULL, NULL, NULL, {0,0}) in a tight loop",
      "Lahr/Spraul/Blanchard: lockmeter, select(0) back-off",
    ),
    {
      date: "2014",
      approximate: true,
      who: "Steven Rostedt and Robert Haas",
      what: "a conversation at the Linux Collaboration Summit about PostgreSQL's user-space spinlocks (recalled by Rostedt in 2023)",
      label: "Rostedt & Haas talk user-space spinlocks",
      source: "<20231027175216.1424cd83@gandalf.local.home> (data/published/rostedt-2023)",
      basis: "mentioned in a source post",
    },
    {
      date: "2014-03",
      approximate: true,
      who: "Khalid Aziz (Oracle)",
      what: "an earlier proposal to let a thread ask for extra time on the CPU, cited by Sangappa as reference [2]",
      label: "Aziz: preemption-delay proposal",
      source: "<1395767870-28053-1-git-send-email-khalid.aziz@oracle.com>",
      basis: "mentioned in a source post",
      note: "month inferred from the Unix time at the start of the Message-ID",
    },
    fromProvenance(
      "lu-2023",
      "Aaron Lu (Intel), Mathieu Desnoyers",
      "run-queue lock contention after the mm_cid commit af7f588d8f73: a sysbench + PostgreSQL profile goes from a few % to almost half the samples in the scheduler's spinlock slow path",
      "Lu/Desnoyers: mm_cid rq-lock contention",
    ),
    fromProvenance(
      "rostedt-2023",
      "Steven Rostedt",
      "a proof-of-concept 'extend the time slice' bit in the rseq area on the PREEMPT_AUTO (lazy preemption) prototype, tried on pgbench -S with PostgreSQL's spinlocks and LWLocks marked",
      "Rostedt: extend-slice POC, pgbench -S",
    ),
    {
      date: "2023-10-30",
      approximate: true,
      who: "Peter Zijlstra",
      what: "a prototype that grants at most 50 µs of extra time, enforced by a timer, in reply to Rostedt (Sangappa's reference [3])",
      label: "Zijlstra: 50 µs prototype",
      source: "<20231030132949.GA38123@noisy.programming.kicks-ass.net>",
      basis: "mentioned in a source post",
      note: "date read from the Message-ID",
    },
    fromProvenance(
      "sangappa-2024",
      "Prakash Sangappa (Oracle)",
      "RFC: a 50 µs scheduler time-slice extension requested through a per-thread shared structure; database results with and without it",
      "Sangappa: 50 µs RFC",
    ),
    {
      date: "2025-12-15",
      approximate: false,
      who: "Thomas Gleixner",
      what: "version 6 of 'rseq: Implement time slice extension mechanism', built on the existing rseq area",
      label: "Gleixner: rseq slice extension V6",
      source: "https://lkml.iu.edu/hypermail/linux/kernel/2512.1/04416.html",
      basis: "public report",
    },
    {
      date: "2026-02-22",
      approximate: false,
      who: "Linus Torvalds",
      what: "Linux 7.0-rc1 closes the merge window: it brings the rseq time-slice extension, and commit 7dadeaa6e851 restricts the preemption modes of architectures that support lazy preemption to full and lazy",
      label: "7.0-rc1: slice extension; full/lazy only",
      source: "https://www.theregister.com/2026/02/23/linux_7_0_rc1/ https://lwn.net/Articles/1067029/",
      basis: "public report",
    },
    {
      date: "2026-04-03",
      approximate: false,
      who: "Salvatore Dipietro (AWS)",
      what: `LKML report: PostgreSQL pgbench on a ${DIPIETRO_2026.vcpus}-vCPU ${DIPIETRO_2026.machine} drops from ${DIPIETRO_2026.tpsBefore} to ${DIPIETRO_2026.tpsAfter} tps on Linux 7.0, with s_lock taking ${DIPIETRO_2026.sLockPct}% of CPU time (figures as public write-ups print them: data/published/dipietro-2026)`,
      label: "Dipietro: pgbench regression on 7.0",
      source: `<${DIPIETRO_2026.messageId}> (not in the stored archives) ${DIPIETRO_2026.sources.join(" ")}`,
      basis: "public report",
      published: "data/published/dipietro-2026",
    },
    {
      date: "2026-04-12",
      approximate: false,
      who: "Linus Torvalds",
      what: "Linux 7.0 released",
      label: "Linux 7.0 released",
      source: "https://pbxscience.com/linux-7-0-arrives-the-kernel-that-changes-everything-for-every-distro/",
      basis: "public report",
    },
  ];
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.date.localeCompare(b.e.date) || a.i - b.i)
    .map(({ e }) => e);
}

/** The events as a table for `eventsTimelinePlot` (columns date, label, approximate, who, basis). */
export function historyTable(events: HistoryEvent[] = historyEvents()) {
  return aq.from(events.map((e) => ({ date: e.date, label: e.label, approximate: e.approximate, who: e.who, basis: e.basis })));
}

/** The timeline's title and one-line takeaway, from the events (issue 28 item 4: notebook 00's figure had neither). */
export function historyFigureText(events: HistoryEvent[] = historyEvents()): { title: string; takeaway: string } {
  if (events.length === 0) throw new UserError("history: no events to draw");
  const years = events.map((e) => Number(e.date.slice(0, 4)));
  const first = Math.min(...years);
  const last = Math.max(...years);
  const published = events.filter((e) => e.basis === "published data").length;
  return {
    title: `Lock-holder preemption on Linux, ${first}–${last}`,
    takeaway: `${events.length} events over ${last - first} years; ${published} are the posts whose numbers this kit recomputes (the others: ${events.length - published} mentions and public reports).`,
  };
}
