/**
 * The HTML page around the report's content: one self-contained file per page,
 * with its CSS inline and no scripts, fonts or links to other hosts, so it can be
 * opened from disk without a network.
 */
import { escapeHtml } from "./notebook.js";

/** Styles for the page, the ledger table and nbconvert's `basic` template classes. */
export const REPORT_CSS = `
:root { --ink: #1f2328; --muted: #59636e; --rule: #d1d9e0; --code-bg: #f6f8fa; --accent: #4269d0; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: white; font: 15px/1.5 sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 20px 80px; }
header.sl-header { border-bottom: 1px solid var(--rule); margin-bottom: 24px; }
h1, h2, h3 { line-height: 1.25; }
a { color: var(--accent); }
nav.sl-toc ol { padding-left: 22px; }
section.sl-notebook { border-top: 3px solid var(--rule); margin-top: 48px; padding-top: 8px; }
p.sl-meta { color: var(--muted); font-size: 13px; }
table.sl-ledger, table.sl-table, .rendered_html table { border-collapse: collapse; font-size: 13px; margin: 12px 0; }
table.sl-ledger th, table.sl-ledger td, table.sl-table th, table.sl-table td, .rendered_html th, .rendered_html td {
  border: 1px solid var(--rule); padding: 4px 8px; vertical-align: top; text-align: left; }
table.sl-ledger th, table.sl-table th, .rendered_html th { background: var(--code-bg); }
table.sl-ledger { width: 100%; table-layout: fixed; }
table.sl-ledger td { overflow-wrap: anywhere; }
table.sl-ledger td.sl-id { font-family: monospace; font-size: 12px; }
table.sl-ledger col.sl-c-id { width: 15%; } table.sl-ledger col.sl-c-source { width: 8%; }
table.sl-ledger col.sl-c-claim { width: 17%; } table.sl-ledger col.sl-c-published { width: 12%; }
table.sl-ledger col.sl-c-recomputed { width: 16%; } table.sl-ledger col.sl-c-verdict { width: 10.5%; }
table.sl-ledger col.sl-c-reason { width: 21.5%; }
.sl-verdict { display: inline-block; padding: 1px 6px; border-radius: 3px; white-space: nowrap; font-weight: bold; }
.sl-verdict-reproduced { background: #dafbe1; }
.sl-verdict-not-reproduced { background: #ffebe9; }
.sl-verdict-not-significant, .sl-verdict-fragile { background: #fff8c5; }
.sl-verdict-recomputed { background: #ddf4ff; }
.sl-verdict-not-recomputed { background: #ffebe9; }
.sl-verdict-not-yet-reproduced { background: #f6f8fa; border: 1px dashed #8c959f; }
.sl-verdict-other { background: #eaeef2; }
.sl-figure svg { max-width: 100%; height: auto; }
/* nbconvert "basic" template */
.cell { margin: 14px 0; }
.prompt { display: none; }
.input_area { background: var(--code-bg); border: 1px solid var(--rule); border-radius: 4px; padding: 6px 10px; overflow-x: auto; }
.input_area pre, .output_text pre { margin: 0; font: 12.5px/1.45 monospace; white-space: pre-wrap; }
.output_area { margin: 6px 0; overflow-x: auto; }
.output_stderr { background: #fff1f0; }
.output_svg svg, .output_html svg { max-width: 100%; height: auto; }
.output_png img { max-width: 100%; }
.anchor-link { margin-left: 6px; color: #8c959f; text-decoration: none; font-weight: normal; font-size: 0.8em; }
.anchor-link:hover { color: var(--accent); }
header.sl-header h1 { margin: 0 0 4px; }
p.sl-stamp { color: var(--muted); font-size: 12.5px; margin: 4px 0 10px; }
section.sl-answer { border: 2px solid var(--accent); border-radius: 6px; padding: 10px 16px; margin: 0 0 18px; background: #f5f8ff; font-size: 14.5px; }
section.sl-answer p { margin: 6px 0; }
ul.sl-answer-list { margin: 6px 0; padding-left: 20px; }
ul.sl-answer-list li { margin: 3px 0; }
.sl-badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: bold; font-size: 12.5px; text-transform: uppercase; }
.sl-badge-emulated { background: #fff1c2; border: 1px solid #d4a72c; }
.sl-badge-real { background: #dafbe1; border: 1px solid #4ac26b; }
p.sl-missing { color: #9a6700; }
details.sl-code { margin: 4px 0 10px; }
details.sl-code > summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
nav.sl-prevnext { font-size: 13px; margin: 8px 0; color: var(--muted); }
.sl-figure-title { font-weight: bold; margin: 8px 0 2px; }
.sl-figure-takeaway { margin: 2px 0 10px; }
/* Pygments token classes used by nbconvert's highlighting */
.highlight .k, .highlight .kd, .highlight .kn, .highlight .kr, .highlight .kt { color: #cf222e; }
.highlight .s, .highlight .s1, .highlight .s2, .highlight .sb, .highlight .sa { color: #0a3069; }
.highlight .c, .highlight .c1, .highlight .cm { color: #6e7781; font-style: italic; }
.highlight .mi, .highlight .mf, .highlight .m { color: #0550ae; }
.highlight .nx, .highlight .n { color: #1f2328; }
.highlight .o, .highlight .p { color: #1f2328; }
.highlight .err { color: inherit; border: none; }
`;

/** A complete HTML page (doctype, meta charset, inline CSS, no scripts). */
export function page(title: string, body: string): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    "</head>",
    "<body>",
    "<main>",
    body,
    "</main>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/**
 * Removes what would make a page depend on a network or run code: <script> elements,
 * <link> elements and inline event handlers. nbconvert's basic template emits none
 * for our notebooks; this is a guard for outputs that carry them.
 */
export function stripActiveContent(html: string): string {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script\s*>/gi, "")
    .replace(/<script\b[^>]*\/>/gi, "")
    .replace(/<link\b[^>]*>/gi, "")
    .replace(/\son[a-z]+\s*=\s*("[^"]*"|'[^']*')/gi, "");
}
