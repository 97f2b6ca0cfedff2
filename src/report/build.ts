/**
 * The HTML report: every notebook executed and converted to HTML, plus the claims
 * ledger table, in one self-contained `index.html` (and one page per notebook).
 * The report directory is replaced atomically: it is built next to its final place
 * and renamed into it, so a reader never sees half a report.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { workDir } from "../util/paths.js";
import { UserError } from "../util/errors.js";
import { executeNotebook, listNotebooks, notebooksToHtml, notebookValues, readNotebook } from "./notebooks.js";
import { escapeHtml } from "./notebook.js";
import { page, stripActiveContent } from "./page.js";
import { ledgerTableHtml, type LedgerRow } from "./ledger-html.js";
import type { RecordedValue } from "./values.js";

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

  const toc = done.map((n) => `<li><a href="#nb-${escapeHtml(basename(n.name, ".ipynb"))}">${escapeHtml(n.title)}</a> (<a href="${escapeHtml(n.page)}">own page</a>)</li>`).join("\n");
  const sections = done
    .map((n) => `<section class="sl-notebook" id="nb-${escapeHtml(basename(n.name, ".ipynb"))}">\n<p class="sl-meta">notebooks/${escapeHtml(n.name)} · ${n.ran ? "executed for this report" : "outputs as committed (recorded runs; not re-executed for this report)"}</p>\n${n.fragment}\n</section>`)
    .join("\n");
  const indexBody = [
    '<header class="sl-header">',
    "<h1>slicelab report</h1>",
    "<p>User-space lock-holder preemption, the Linux rseq time-slice extension and PostgreSQL: every quantitative claim of the four source posts recomputed from the numbers that were posted, and the notebooks that explain them.</p>",
    "</header>",
    '<nav class="sl-toc"><h2>Contents</h2><ol>',
    '<li><a href="#claims-ledger">Claims ledger</a></li>',
    toc,
    "</ol></nav>",
    '<section id="claims-ledger"><h2>Claims ledger</h2>',
    ledgerTableHtml(ledger.rows, ledger.meanings),
    "</section>",
    sections,
  ].join("\n");

  // Build next to the destination, then swap it in.
  const tmp = `${outDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, "notebooks"), { recursive: true });
  writeFileSync(join(tmp, "index.html"), page("slicelab report", indexBody));
  for (const n of done) {
    const body = `<p class="sl-meta"><a href="../index.html">slicelab report</a> · notebooks/${escapeHtml(n.name)}</p>\n${n.fragment}`;
    writeFileSync(join(tmp, n.page), page(n.title, body));
  }
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
  };
}
