/**
 * What the report does to nbconvert's HTML before a reader sees it (issue 28, items 2 and 3):
 *
 * - every code cell's source goes into a `<details class="sl-code">` after its output, collapsed;
 * - stray outputs are dropped: a stdout line that is one bare scalar ("77", "tcg", "true") from a
 *   cell that never prints (no `console.`/`process.stdout`) is tslab echoing the cell's last
 *   expression, not something the cell shows ({@link isStrayOutput});
 * - every `data/…` path in text becomes a relative link to that file or directory in the clone;
 *   a path that does not exist is reported (`missingPaths`), never linked;
 * - ledger ids (`rostedt-2023/smaller-std-dev`) link to their row of the ledger, URLs in text
 *   become links, and a Message-ID (`<id@host>`, or the `mailto:` Markdown makes of one) links
 *   to `https://lore.kernel.org/r/<id>`.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { JSDOM } from "jsdom";

export interface EnhanceContext {
  /** The clone's root: `data/…` paths are resolved against it. */
  repoRoot: string;
  /** The directory the page is written to (links are relative to it). */
  pageDir: string;
  /** Ledger ids that have an anchor (`claim-<id>`) in the index. */
  claimIds?: ReadonlySet<string>;
  /** The index page relative to this page ("" on the index itself). */
  indexHref?: string;
}

export interface EnhanceResult {
  html: string;
  /** `data/…` paths named in the page that do not exist in the clone (sorted, unique). */
  missingPaths: string[];
  /** `data/…` paths linked (unique). */
  linkedPaths: string[];
  foldedCells: number;
  strayOutputs: number;
}

const BARE_SCALAR = /^(-?\d+(\.\d+)?(e[+-]?\d+)?|true|false|null|undefined|NaN|[A-Za-z_][\w.-]{0,40})$/;

/**
 * Whether an output is a stray: a stdout stream whose whole text is one bare scalar (a number, a
 * boolean, one word) from a cell whose source never writes to stdout itself. tslab prints the value
 * of a cell's last expression (`recordValue(...)` returns its value), so "77" or "tcg" appear
 * under cells whose purpose is to record or show something else.
 */
export function isStrayOutput(cellSource: string, output: { stream: string; text: string }): boolean {
  if (output.stream !== "stdout") return false;
  if (/\bconsole\s*\.|process\s*\.\s*stdout/.test(cellSource)) return false;
  const text = output.text.trim();
  return text !== "" && !text.includes("\n") && BARE_SCALAR.test(text);
}

/** A `data/…` path mention: the path, and an optional `:line` or `:line-line` suffix. */
const DATA_PATH = /(?<![\w./-])(data\/[\w.+@=-]+(?:\/[\w.+@=-]+)*\/?)(\*|…|:\d+(?:-\d+)?)?/g;
const URL = /\bhttps?:\/\/[^\s<>"'`]+/g;
const MESSAGE_ID = /<([\w.+=-]+@[\w.-]+\.[a-z]{2,})>/gi;

/** Trailing characters a sentence adds after a path or URL. */
function trimTrailing(s: string): string {
  return s.replace(/[.,;:)\]]+$/, "");
}

export function loreUrl(messageId: string): string {
  return `https://lore.kernel.org/r/${encodeURIComponent(messageId).replace(/%40/g, "@")}`;
}

export function claimAnchor(id: string): string {
  return `claim-${id.replace(/[^a-z0-9-]+/gi, "-")}`;
}

/** Elements whose text is left alone (already a link, code, styles). */
const SKIP = new Set(["A", "SCRIPT", "STYLE", "TEXTAREA", "SUMMARY", "SVG"]);

function skipped(node: Node): boolean {
  for (let n: Node | null = node.parentNode; n; n = n.parentNode) {
    const el = n as Element;
    if (el.nodeType !== 1) continue;
    if (SKIP.has(el.tagName.toUpperCase())) return true;
    if (el.tagName.toLowerCase() === "svg") return true;
    if (el.classList?.contains("sl-code")) return true;
  }
  return false;
}

/** Enhances one HTML fragment (a notebook's nbconvert output, or the index body). */
export function enhanceHtml(fragment: string, ctx: EnhanceContext): EnhanceResult {
  const dom = new JSDOM(`<!DOCTYPE html><body>${fragment}</body>`);
  const doc = dom.window.document;
  const missing = new Set<string>();
  const linked = new Set<string>();
  let folded = 0;
  let stray = 0;

  // Code cells: stray outputs out, source folded after the output.
  for (const cell of [...doc.querySelectorAll("div.code_cell")]) {
    const input = cell.querySelector(":scope > div.input");
    const source = input?.querySelector(".input_area pre")?.textContent ?? "";
    for (const area of [...cell.querySelectorAll("div.output_area")]) {
      const s = area.querySelector(".output_stream");
      if (!s) continue;
      const streamName = s.classList.contains("output_stdout") ? "stdout" : s.classList.contains("output_stderr") ? "stderr" : "other";
      if (isStrayOutput(source, { stream: streamName, text: s.textContent ?? "" })) {
        area.remove();
        stray++;
      }
    }
    if (!input) continue;
    const lines = source.replace(/\n$/, "").split("\n").length;
    const details = doc.createElement("details");
    details.className = "sl-code";
    const summary = doc.createElement("summary");
    summary.textContent = `show code (${lines} line${lines === 1 ? "" : "s"})`;
    details.append(summary);
    input.replaceWith(details);
    details.append(input);
    cell.append(details); // after the output
    folded++;
  }

  // Message-IDs Markdown turned into mailto: links.
  for (const a of [...doc.querySelectorAll('a[href^="mailto:"]')]) {
    const id = decodeURIComponent(a.getAttribute("href")!.slice("mailto:".length));
    if (/^[\w.+=-]+@[\w.-]+$/.test(id) && /\d/.test(id.split("@")[0]!)) a.setAttribute("href", loreUrl(id));
  }

  const claimIds = ctx.claimIds ?? new Set<string>();
  const claimRe = claimIds.size > 0 ? new RegExp(`(?<![\\w/-])(${[...claimIds].sort((a, b) => b.length - a.length).map((x) => x.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|")})(?![\\w-])`, "g") : null;
  const toRoot = relative(ctx.pageDir, ctx.repoRoot) || ".";
  const indexHref = ctx.indexHref ?? "";

  interface Hit {
    start: number;
    end: number;
    href: string;
    cls: string;
  }
  const walker = doc.createTreeWalker(doc.body, dom.window.NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n as Text);
  for (const t of texts) {
    const value = t.data;
    if (!/data\/|https?:\/\/|@|\//.test(value) || skipped(t)) continue;
    const hits: Hit[] = [];
    const taken = (s: number, e: number) => hits.some((h) => s < h.end && e > h.start);
    for (const m of value.matchAll(URL)) {
      const url = trimTrailing(m[0]);
      if (!taken(m.index!, m.index! + url.length)) hits.push({ start: m.index!, end: m.index! + url.length, href: url, cls: "sl-url" });
    }
    for (const m of value.matchAll(MESSAGE_ID)) {
      if (!taken(m.index!, m.index! + m[0].length)) hits.push({ start: m.index!, end: m.index! + m[0].length, href: loreUrl(m[1]!), cls: "sl-msgid" });
    }
    for (const m of value.matchAll(DATA_PATH)) {
      const path = trimTrailing(m[1]!);
      if (path === "data") continue;
      const end = m.index! + path.length + (path.length === m[1]!.length ? (m[2]?.length ?? 0) : 0);
      if (taken(m.index!, end)) continue;
      // A destination a command would write (`--out data/runs/NAME-…`) is not a mention of a record.
      if (/--out[ =]$/.test(value.slice(0, m.index!))) continue;
      let clean = path.replace(/\/$/, "");
      const pattern = path.length === m[1]!.length && (m[2] === "*" || m[2] === "…");
      if (pattern) {
        // A name pattern (data/runs/vm-micro-*, an output's data/runs/rostedt-2023-…): it resolves when an
        // entry of its directory starts with it, and links to that directory.
        const dir = path.endsWith("/") ? clean : clean.slice(0, clean.lastIndexOf("/"));
        const prefix = path.endsWith("/") ? "" : clean.slice(clean.lastIndexOf("/") + 1);
        const full = join(ctx.repoRoot, dir);
        if (!existsSync(full) || !readdirSync(full).some((e) => e.startsWith(prefix))) {
          missing.add(`${clean}${m[2]}`);
          continue;
        }
        clean = dir;
      } else if (!existsSync(join(ctx.repoRoot, clean))) {
        missing.add(clean);
        continue;
      }
      linked.add(clean);
      hits.push({ start: m.index!, end, href: `${toRoot}/${clean}`.replace(/^\.\//, ""), cls: "sl-path" });
    }
    if (claimRe) {
      for (const m of value.matchAll(claimRe)) {
        if (!taken(m.index!, m.index! + m[0].length)) hits.push({ start: m.index!, end: m.index! + m[0].length, href: `${indexHref}#${claimAnchor(m[1]!)}`, cls: "sl-claim-ref" });
      }
    }
    if (hits.length === 0) continue;
    hits.sort((a, b) => a.start - b.start);
    const frag = doc.createDocumentFragment();
    let at = 0;
    for (const h of hits) {
      if (h.start > at) frag.append(doc.createTextNode(value.slice(at, h.start)));
      const a = doc.createElement("a");
      a.setAttribute("href", h.href);
      a.className = h.cls;
      a.textContent = value.slice(h.start, h.end);
      frag.append(a);
      at = h.end;
    }
    if (at < value.length) frag.append(doc.createTextNode(value.slice(at)));
    t.replaceWith(frag);
  }

  return {
    html: doc.body.innerHTML,
    missingPaths: [...missing].sort(),
    linkedPaths: [...linked].sort(),
    foldedCells: folded,
    strayOutputs: stray,
  };
}
