/**
 * Headless rendering of Observable Plot figures: Plot draws into a jsdom document,
 * the SVG is serialised to a string with deterministic ids, and `svgToPng` turns it
 * into a PNG with resvg. Rendering the same figure twice gives identical bytes.
 */
import { createHash } from "node:crypto";
import { JSDOM } from "jsdom";
import * as Plot from "@observablehq/plot";
import { Resvg } from "@resvg/resvg-js";
import { FONT_FAMILY, FONT_SIZE, PNG_FONT, SIZE } from "./style.js";

let dom: JSDOM | undefined;

/** One jsdom document per process: Plot only needs `createElementNS` and friends. */
function plotDocument(): Document {
  dom ??= new JSDOM("<!DOCTYPE html><html><body></body></html>");
  return dom.window.document;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Plot numbers clip paths and markers from module-wide counters (`plot-clip-7`),
 * so the same figure drawn twice gets different ids, and two figures on one page
 * could collide. We renumber them in order of first appearance under a prefix
 * derived from the figure's content: deterministic, and distinct figures get
 * distinct ids when several are inlined in one HTML page.
 */
export function normaliseIds(svg: string): string {
  const ids = new Map<string, string>();
  const perKind = new Map<string, number>();
  const pattern = /plot-(clip|marker)-\d+/g;
  const numbered = svg.replace(pattern, (m: string, kind: string) => {
    let id = ids.get(m);
    if (id === undefined) {
      const k = (perKind.get(kind) ?? 0) + 1;
      perKind.set(kind, k);
      id = `@ID@${kind}-${k}`;
      ids.set(m, id);
    }
    return id;
  });
  if (ids.size === 0) return svg;
  const prefix = `sl${createHash("sha256").update(numbered).digest("hex").slice(0, 8)}`;
  return numbered.replaceAll("@ID@", `${prefix}-`);
}

/** Options every figure helper accepts (others are helper-specific). */
export interface FigureOptions {
  /** Width in CSS pixels; default SIZE.width. */
  width?: number;
  /** Height in CSS pixels; each helper has a default. */
  height?: number;
  /** Accessible name of the figure (the SVG's aria-label), e.g. "Rostedt 2023: tps per run". */
  ariaLabel?: string;
  /** A title drawn above the plot, inside the SVG (adds TITLE_HEIGHT pixels to the height). */
  title?: string;
  /** What kind of evidence the figure shows, drawn as a badge at the right of the title line. */
  badge?: EvidenceBadge;
  /**
   * One line (wrapped when long) under the plot saying what the figure shows, computed from the data.
   * Helpers compute a default from their table; false draws none.
   */
  takeaway?: string | false;
}

/**
 * "emulated": QEMU TCG runs (counts valid, times not performance), "emulated (icount)" when every run
 * is instruction-counted TCG; "real time": runs on hardware or KVM; "published": the source posts' own numbers.
 */
export type EvidenceBadge = "emulated" | "emulated (icount)" | "real time" | "published";

/** A colour legend drawn under the title: one swatch and label per item, wrapped to the figure's width. */
export interface LegendItem {
  label: string;
  color: string;
}

/** Extras drawn around the plot, inside the SVG. */
export interface FigureFrame {
  title?: string;
  badge?: EvidenceBadge;
  takeaway?: string | false;
  legend?: readonly LegendItem[];
}

/** Height added above a figure for its title. */
export const TITLE_HEIGHT = 24;

/**
 * Draws a Plot specification and returns standalone SVG text (with `xmlns`, so the
 * string can be written to a `.svg` file or inlined in HTML).
 *
 * Plot returns a `<figure>` instead of an `<svg>` when asked for a title, caption
 * or legend; helpers must draw those as marks, and this throws if they did not.
 */
export function renderSvg(options: Plot.PlotOptions & { badge?: EvidenceBadge; takeaway?: string | false }, figure: FigureFrame = {}): string {
  const document = plotDocument();
  // Helpers pass `width: options.width` through; an undefined value must not hide the default.
  const given = Object.fromEntries(Object.entries(options).filter(([k, v]) => v !== undefined && !["title", "badge", "takeaway"].includes(k)));
  const node = Plot.plot({
    width: SIZE.width,
    height: SIZE.height,
    style: { fontSize: `${FONT_SIZE}px` },
    ...given,
    document,
  }) as unknown as Element;
  if (node.tagName.toLowerCase() !== "svg") {
    throw new Error(`renderSvg: Plot returned <${node.tagName.toLowerCase()}>, expected <svg> (no title/caption/legend options)`);
  }
  node.setAttribute("font-family", FONT_FAMILY);
  node.setAttribute("font-size", String(FONT_SIZE));
  node.setAttribute("xmlns", SVG_NS);
  const title = figure.title ?? (typeof options.title === "string" ? options.title : undefined);
  const t = figure.takeaway ?? options.takeaway;
  const frame: FigureFrame = { title, badge: figure.badge ?? options.badge, takeaway: t === false ? undefined : t, legend: figure.legend };
  if (frame.badge !== undefined || frame.takeaway !== undefined || (frame.legend?.length ?? 0) > 0) addFrame(node, frame);
  else if (title !== undefined) addTitle(node, title);
  return normaliseIds(node.outerHTML);
}

/** Estimated width of text at `size` px in a sans-serif font (DejaVu Sans averages ≈ 0.6 em; digits and capitals run wider). */
export function textWidth(text: string, size: number = FONT_SIZE): number {
  let w = 0;
  for (const ch of text) w += /[A-Z0-9%@#&MW—–]/.test(ch) ? 0.68 : /[il.,:;'|!() ]/.test(ch) ? 0.34 : 0.58;
  return w * size;
}

/** Splits `text` into lines no wider than `width` px. */
export function wrapText(text: string, width: number, size: number = FONT_SIZE): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

const BADGE_COLORS: Record<EvidenceBadge, { fill: string; stroke: string }> = {
  emulated: { fill: "#fff1c2", stroke: "#d4a72c" },
  "emulated (icount)": { fill: "#fff1c2", stroke: "#d4a72c" },
  "real time": { fill: "#dafbe1", stroke: "#4ac26b" },
  published: { fill: "#ddf4ff", stroke: "#54aeff" },
};

/**
 * Draws the title (bold, left), the evidence badge (right of the title line), a colour legend (rows
 * of swatches under the title) and the takeaway (under the plot), moving the plot down to make room.
 * Each part is a <g> with its own class: sl-title, sl-badge, sl-legend, sl-takeaway.
 */
function addFrame(svg: Element, f: FigureFrame): void {
  const doc = svg.ownerDocument;
  const width = Number(svg.getAttribute("width"));
  const plotHeight = Number(svg.getAttribute("height"));
  const el = (name: string, attrs: Record<string, string | number>, text?: string) => {
    const e = doc.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const parts: Element[] = [];
  let y = 0;
  if (f.title !== undefined || f.badge !== undefined) {
    const label = f.badge?.toUpperCase() ?? "";
    const bw = f.badge !== undefined ? textWidth(label, FONT_SIZE - 1) + 12 : 0;
    // A title longer than the room left of the badge wraps onto more lines.
    const lines = f.title !== undefined ? wrapText(f.title, width - bw - 16, (FONT_SIZE + 2) * 1.12) : []; // bold runs wider
    lines.forEach((line, i) => parts.push(el("text", { class: "sl-title", x: 4, y: 16 + i * 17, "text-anchor": "start", "font-weight": "bold", "font-size": FONT_SIZE + 2 }, line)));
    if (f.badge !== undefined) {
      const g = el("g", { class: "sl-badge", transform: `translate(${width - bw - 2},3)` });
      g.append(el("rect", { width: bw, height: 17, rx: 8, fill: BADGE_COLORS[f.badge].fill, stroke: BADGE_COLORS[f.badge].stroke }));
      g.append(el("text", { x: bw / 2, y: 12.5, "text-anchor": "middle", "font-size": FONT_SIZE - 1, "font-weight": "bold" }, label));
      parts.push(g);
    }
    y = TITLE_HEIGHT + Math.max(0, lines.length - 1) * 17;
  }
  if (f.legend && f.legend.length > 0) {
    const g = el("g", { class: "sl-legend" });
    let x = 4;
    let row = 0;
    for (const item of f.legend) {
      const w = 16 + textWidth(item.label) + 14;
      if (x > 4 && x + w > width - 4) {
        x = 4;
        row++;
      }
      const it = el("g", { class: "sl-legend-item", transform: `translate(${x},${y + row * 17})` });
      it.append(el("rect", { x: 0, y: 2, width: 11, height: 11, fill: item.color }));
      it.append(el("text", { x: 16, y: 11.5, "text-anchor": "start" }, item.label));
      g.append(it);
      x += w;
    }
    parts.push(g);
    y += (row + 1) * 17 + 4;
  }
  const body = el("g", { transform: `translate(0,${y})` });
  for (const child of [...svg.childNodes]) {
    if ((child as Element).tagName?.toLowerCase() !== "style") body.appendChild(child);
  }
  let height = y + plotHeight;
  if (typeof f.takeaway === "string") {
    const lines = wrapText(f.takeaway, width - 8);
    const g = el("g", { class: "sl-takeaway" });
    lines.forEach((line, i) => g.append(el("text", { x: 4, y: height + 14 + i * 15, "text-anchor": "start", "font-style": "italic" }, line)));
    parts.push(g);
    height += 8 + lines.length * 15;
  }
  for (const p of parts) svg.appendChild(p);
  svg.appendChild(body);
  svg.setAttribute("height", String(height));
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
}

/** Moves the plot down by TITLE_HEIGHT and draws `title` above it, left-aligned and bold. */
function addTitle(svg: Element, title: string): void {
  const doc = svg.ownerDocument;
  const width = Number(svg.getAttribute("width"));
  const height = Number(svg.getAttribute("height")) + TITLE_HEIGHT;
  const body = doc.createElementNS(SVG_NS, "g");
  body.setAttribute("transform", `translate(0,${TITLE_HEIGHT})`);
  for (const child of [...svg.childNodes]) {
    if ((child as Element).tagName?.toLowerCase() !== "style") body.appendChild(child);
  }
  const text = doc.createElementNS(SVG_NS, "text");
  text.setAttribute("class", "sl-title");
  text.setAttribute("x", "4");
  text.setAttribute("y", "16");
  text.setAttribute("text-anchor", "start");
  text.setAttribute("font-weight", "bold");
  text.setAttribute("font-size", String(FONT_SIZE + 2));
  text.textContent = title;
  svg.appendChild(text);
  svg.appendChild(body);
  svg.setAttribute("height", String(height));
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
}

/** Options for {@link svgToPng}. */
export interface PngOptions {
  /** Background colour painted under the figure; default white (PNG files have no page behind them). */
  background?: string;
}

/**
 * Renders SVG text to PNG bytes `width` pixels wide (height keeps the aspect
 * ratio). Text uses the system's fonts: the generic `sans-serif` resolves to
 * {@link PNG_FONT} (Debian package fonts-dejavu-core).
 */
export function svgToPng(svg: string, width: number = SIZE.pngWidth, options: PngOptions = {}): Buffer {
  return rasterise(svg, width, options).asPng();
}

/** The decoded RGBA pixels of a rendered figure (for tests and checks). */
export function svgToPixels(svg: string, width: number = SIZE.pngWidth): { width: number; height: number; pixels: Buffer } {
  const img = rasterise(svg, width, {});
  return { width: img.width, height: img.height, pixels: img.pixels };
}

function rasterise(svg: string, width: number, options: PngOptions) {
  if (!Number.isInteger(width) || width <= 0) throw new Error(`svgToPng: width must be a positive integer, got ${width}`);
  const resvg = new Resvg(svg, {
    fitTo: { mode: "width", value: width },
    background: options.background ?? "white",
    font: {
      loadSystemFonts: true,
      defaultFontFamily: PNG_FONT,
      sansSerifFamily: PNG_FONT,
    },
    logLevel: "off",
  });
  return resvg.render();
}
