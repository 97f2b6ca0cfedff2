/**
 * Shared look of every slicelab figure: sizes, colours, fonts. Notebooks and the
 * HTML report call the same helpers, so a figure looks the same everywhere.
 */

/** Default figure size in CSS pixels (SVG user units). */
export const SIZE = {
  width: 640,
  height: 360,
  /** Height of one facet row or band when a helper sizes itself from the data. */
  rowHeight: 28,
  /** Width of the PNG written for files (pixels); the SVG is scaled to it. */
  pngWidth: 1280,
} as const;

/**
 * A generic family only: nothing is embedded, the viewer (browser, resvg) picks
 * its own sans-serif. resvg maps the generic to {@link PNG_FONT}.
 */
export const FONT_FAMILY = "sans-serif";
export const FONT_SIZE = 11;

/** The concrete family resvg uses for `sans-serif` when it draws PNG files (Debian: fonts-dejavu-core). */
export const PNG_FONT = "DejaVu Sans";

/** Colours: one per side of a comparison, in the order sides are given. */
export const SIDE_COLORS = ["#4269d0", "#ff725c"] as const;

/** A categorical palette for locks, CPU counts and similar (Observable10 order). */
export const CATEGORY_COLORS = [
  "#4269d0",
  "#efb118",
  "#ff725c",
  "#6cc5b0",
  "#3ca951",
  "#ff8ab7",
  "#a463f2",
  "#97bbf5",
  "#9c6b4e",
  "#9498a0",
] as const;

/** Colour of reference lines (zero, confidence bounds) and de-emphasised marks. */
export const MUTED = "#8a8a8a";
/** Colour of the main estimate (means, observed values). */
export const INK = "#222222";

/** The colour of the i-th side (cycling). */
export function sideColor(i: number): string {
  return SIDE_COLORS[i % SIDE_COLORS.length]!;
}

/** The colour of the i-th category (cycling). */
export function categoryColor(i: number): string {
  return CATEGORY_COLORS[i % CATEGORY_COLORS.length]!;
}
