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
export function renderSvg(options: Plot.PlotOptions, figure: { title?: string } = {}): string {
  const document = plotDocument();
  // Helpers pass `width: options.width` through; an undefined value must not hide the default.
  const given = Object.fromEntries(Object.entries(options).filter(([k, v]) => v !== undefined && k !== "title"));
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
  if (title !== undefined) addTitle(node, title);
  return normaliseIds(node.outerHTML);
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
