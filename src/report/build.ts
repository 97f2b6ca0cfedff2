/**
 * The HTML report: every notebook executed and converted to HTML, plus the claims
 * ledger table, in one self-contained `index.html` (and one page per notebook).
 * The report directory is replaced atomically: it is built next to its final place
 * and renamed into it, so a reader never sees half a report.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { repoRoot, workDir } from "../util/paths.js";
import { UserError } from "../util/errors.js";
import { executeNotebook, listNotebooks, notebooksToHtml, notebookValues, readNotebook } from "./notebooks.js";
import { escapeHtml } from "./notebook.js";
import { page, stripActiveContent } from "./page.js";
import { ledgerTableHtml, type LedgerRow } from "./ledger-html.js";
import type { RecordedValue } from "./values.js";
import { enhanceHtml } from "./enhance.js";
import { answerBoxHtml, computeAnswer, loadAnswerInputs, type Answer } from "./answer.js";

export interface ReportOptions {
  /** Output directory; default "reports" (relative to the current directory). */
  outDir?: string;
  /**
   * Execute the notebooks first (default true); false converts them as committed; a list of name
   * prefixes (e.g. ["00", "01"]) executes those and converts the others as committed.
   */
  execute?: boolean | readonly string[];
  /** Notebook files in order; default every notebooks/*.ipynb in name order. */
  notebooks?: string[];
  /** The claims ledger rows; default src/claims buildLedger(). */
  ledger?: readonly LedgerRow[];
  /** Verdict legend; default src/claims VERDICT_MEANINGS. */
  verdictMeanings?: Readonly<Record<string, string>>;
  /** Per-cell timeout in seconds. */
  timeoutSeconds?: number;
  /** How many notebooks execute at once (each in its own kernel); default 2. */
  concurrency?: number;
  /** Progress lines (e.g. to stderr); default none. */
  log?: (line: string) => void;
  /** The answer box of the index; default computed from the records (src/report/answer.ts); false: none. */
  answer?: Answer | false;
  /** The clone whose `data/…` paths the pages link to; default repoRoot(). */
  root?: string;
}

/** What every page says about how it was made. */
export interface ReportStamp {
  commit: string;
  dirty: boolean;
  /** UTC, ISO 8601 to the minute. */
  date: string;
}

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

/** The kit's commit (and whether tracked files differ from it) and the build date. */
export function reportStamp(root: string, now = new Date()): ReportStamp {
  const commit = git(root, ["rev-parse", "HEAD"]) ?? "unknown (not a git clone)";
  const dirty = (git(root, ["status", "--porcelain", "--untracked-files=no"]) ?? "") !== "";
  return { commit, dirty, date: `${now.toISOString().slice(0, 16).replace("T", " ")} UTC` };
}

/** The stamp line: commit, date, which notebooks ran for this report and which show committed outputs. */
export function stampHtml(stamp: ReportStamp, notebooks: readonly { name: string; ran: boolean; committed?: string | null }[]): string {
  const short = (n: string) => escapeHtml(n.replace(/\.ipynb$/, "").slice(0, 2));
  const ran = notebooks.filter((n) => n.ran);
  const kept = notebooks.filter((n) => !n.ran);
  const list = (xs: typeof notebooks) => (xs.length === 0 ? "none" : xs.map((n) => short(n.name) + (n.committed ? ` (${escapeHtml(n.committed)})` : "")).join(", "));
  return (
    `<p class="sl-stamp" data-commit="${escapeHtml(stamp.commit)}" data-date="${escapeHtml(stamp.date)}">Kit commit <code>${escapeHtml(stamp.commit.slice(0, 12))}</code>${stamp.dirty ? " (with uncommitted changes)" : ""} · built ${escapeHtml(stamp.date)} · ` +
    `notebooks re-executed for this report: ${list(ran)} · showing committed outputs (last commit): ${list(kept)}</p>`
  );
}

export interface ReportNotebook {
  /** File name, e.g. "00-introduction.ipynb". */
  name: string;
  /** Whether it was executed for this report (else its committed outputs were used). */
  ran: boolean;
  title: string;
  /** The page of this notebook, relative to the report directory. */
  page: string;
  /** The notebook the HTML was made from (executed copy or the committed file). */
  source: string;
  values: RecordedValue[];
  /** Milliseconds spent executing it (0 with execute: false). */
  executeMs: number;
}

export interface ReportResult {
  outDir: string;
  index: string;
  notebooks: ReportNotebook[];
  claims: number;
  durationMs: number;
  stamp: ReportStamp;
  /** `data/…` paths named on a page that do not exist in the clone: page → paths (empty when all resolve). */
  missingPaths: Record<string, string[]>;
  /** Code cells folded and stray outputs dropped, over all pages. */
  foldedCells: number;
  strayOutputs: number;
}

/** The first Markdown heading of a notebook, else its file name. */
export function notebookTitle(path: string): string {
  for (const cell of readNotebook(path).cells) {
    if (cell.cell_type !== "markdown") continue;
    const text = Array.isArray(cell.source) ? cell.source.join("") : cell.source;
    const m = /^#{1,2}\s+(.+)$/m.exec(text);
    if (m) return m[1]!.trim();
  }
  return basename(path, ".ipynb");
}

async function defaultLedger(): Promise<{ rows: LedgerRow[]; meanings: Readonly<Record<string, string>> }> {
  const claims = await import("../claims/index.js");
  return { rows: claims.buildLedger(), meanings: claims.VERDICT_MEANINGS };
}

/** Each ledger source's URL (data/published/SOURCE/provenance.json), for the sources that have one. */
function sourceUrls(rows: readonly LedgerRow[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of new Set(rows.map((r) => r.source))) {
    const file = join(repoRoot(), "data", "published", source, "provenance.json");
    if (!existsSync(file)) continue;
    const p = JSON.parse(readFileSync(file, "utf8")) as { url?: string };
    if (typeof p.url === "string" && /^https?:\/\//.test(p.url)) out[source] = p.url;
  }
  return out;
}

/** Builds the report; see {@link ReportOptions}. */
export async function buildReport(options: ReportOptions = {}): Promise<ReportResult> {
  const t0 = Date.now();
  const log = options.log ?? (() => {});
  const outDir = resolve(options.outDir ?? "reports");
  const notebooks = options.notebooks ?? listNotebooks();
  if (notebooks.length === 0) throw new UserError("no notebooks to report on (notebooks/*.ipynb)");
  const execute = options.execute ?? true;
  const ledger = options.ledger ? { rows: [...options.ledger], meanings: options.verdictMeanings } : await defaultLedger();

  const runDir = join(workDir(), "report", "executed");
  // Each notebook runs in its own kernel; a few at a time (they are independent).
  const executed: { name: string; source: string; executeMs: number; ran: boolean }[] = new Array(notebooks.length);
  const shouldRun = (name: string): boolean =>
    execute === true || (Array.isArray(execute) && execute.some((prefix) => name.startsWith(prefix)));
  let next = 0;
  const worker = async () => {
    while (next < notebooks.length) {
      const i = next++;
      const nb = notebooks[i]!;
      const name = basename(nb);
      if (!shouldRun(name)) {
        executed[i] = { name, source: resolve(nb), executeMs: 0, ran: false };
        continue;
      }
      log(`report: executing ${name}`);
      const t = Date.now();
      const source = await executeNotebook(nb, { out: join(runDir, name), timeoutSeconds: options.timeoutSeconds });
      executed[i] = { name, source, executeMs: Date.now() - t, ran: true };
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 2, notebooks.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
  log(`report: converting ${executed.length} notebooks to HTML`);
  const fragments = await notebooksToHtml(executed.map((e) => e.source));
  const done: (ReportNotebook & { fragment: string })[] = executed.map((e, i) => ({
    ...e,
    title: notebookTitle(e.source),
    page: `notebooks/${basename(e.name, ".ipynb")}.html`,
    values: notebookValues(e.source),
    fragment: stripActiveContent(fragments[i]!),
  }));

  const root = options.root ?? repoRoot();
  const stamp = reportStamp(root);
  const withCommit = done.map((n) => ({ ...n, committed: n.ran ? null : git(root, ["log", "-1", "--format=%h %cs", "--", relative(root, n.source)]) || null }));
  const stampLine = stampHtml(stamp, withCommit);
  const claimIds = new Set(ledger.rows.map((r) => r.id));
  const missingPaths: Record<string, string[]> = {};
  let foldedCells = 0;
  let strayOutputs = 0;
  const enhance = (html: string, pageDir: string, indexHref: string, pageName: string): string => {
    const e = enhanceHtml(html, { repoRoot: root, pageDir, claimIds, indexHref });
    if (e.missingPaths.length > 0) {
      missingPaths[pageName] = [...new Set([...(missingPaths[pageName] ?? []), ...e.missingPaths])].sort();
      log(`report: ${pageName} names ${e.missingPaths.length} path(s) that are not in the clone: ${e.missingPaths.join(", ")}`);
    }
    foldedCells += e.foldedCells;
    strayOutputs += e.strayOutputs;
    return e.html;
  };

  const answer = options.answer === false ? null : (options.answer ?? computeAnswer(await loadAnswerInputs(root)));
  const nb07 = done.find((n) => n.name.startsWith("07"));
  const toc = done.map((n) => `<li><a href="#nb-${escapeHtml(basename(n.name, ".ipynb"))}">${escapeHtml(n.title)}</a> (<a href="${escapeHtml(n.page)}">own page</a>)</li>`).join("\n");
  const sections = done
    .map((n) => `<section class="sl-notebook" id="nb-${escapeHtml(basename(n.name, ".ipynb"))}">\n<p class="sl-meta">notebooks/${escapeHtml(n.name)} · ${n.ran ? "executed for this report" : "outputs as committed (recorded runs; not re-executed for this report)"}</p>\n${n.fragment}\n</section>`)
    .join("\n");
  const indexBody = [
    '<header class="sl-header">',
    "<h1>slicelab report</h1>",
    stampLine,
    "</header>",
    answer ? answerBoxHtml(answer, nb07 ? `${nb07.page}#The-answer` : "#answer") : "",
    '<nav class="sl-toc"><h2 id="contents">Contents<a class="anchor-link" href="#contents">¶</a></h2><ol>',
    '<li><a href="#claims-ledger">Claims ledger</a></li>',
    toc,
    "</ol></nav>",
    '<section id="claims-ledger"><h2>Claims ledger<a class="anchor-link" href="#claims-ledger">¶</a></h2>',
    "<p>User-space lock-holder preemption, the Linux rseq time-slice extension and PostgreSQL: every quantitative claim of the source posts recomputed from the numbers that were posted, and the notebooks that explain them.</p>",
    ledgerTableHtml(ledger.rows, ledger.meanings, sourceUrls(ledger.rows)),
    "</section>",
    sections,
  ].join("\n");

  // Build next to the destination, then swap it in.
  const tmp = `${outDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, "notebooks"), { recursive: true });
  // Links are made relative to where the pages end up (outDir), not the temporary directory.
  writeFileSync(join(tmp, "index.html"), page("slicelab report", enhance(indexBody, outDir, "", "index.html")));
  done.forEach((n, i) => {
    const prev = done[i - 1];
    const nextNb = done[i + 1];
    const link = (x: typeof n | undefined, rel: string, label: string) => (x ? `<a rel="${rel}" href="${escapeHtml(basename(x.page))}">${label} ${escapeHtml(x.title)}</a>` : `<span class="sl-none">${label} none</span>`);
    const nav = `<nav class="sl-prevnext">${link(prev, "prev", "← previous:")} · <a href="../index.html">slicelab report</a> · ${link(nextNb, "next", "next:")}</nav>`;
    const body = `${nav}\n${stampLine}\n<p class="sl-meta">notebooks/${escapeHtml(n.name)} · ${n.ran ? "executed for this report" : "outputs as committed (not re-executed for this report)"}</p>\n${n.fragment}\n${nav}`;
    writeFileSync(join(tmp, n.page), page(n.title, enhance(body, join(outDir, "notebooks"), "../index.html", n.page)));
  });
  const old = `${outDir}.old-${process.pid}`;
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(tmp, outDir);
  rmSync(old, { recursive: true, force: true });

  return {
    outDir,
    index: join(outDir, "index.html"),
    notebooks: done.map(({ fragment: _f, ...n }) => n),
    claims: ledger.rows.length,
    durationMs: Date.now() - t0,
    stamp,
    missingPaths,
    foldedCells,
    strayOutputs,
  };
}
