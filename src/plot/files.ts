/** Writing a figure to disk as SVG and PNG (atomically). */
import { writeFileAtomic } from "../util/fs.js";
import { svgToPng } from "./render.js";
import { SIZE } from "./style.js";

/**
 * Writes `base.svg` and `base.png` (PNG `pngWidth` pixels wide) and returns both
 * paths. Each file is written atomically.
 */
export function writeFigure(base: string, svg: string, pngWidth: number = SIZE.pngWidth): { svg: string; png: string } {
  const paths = { svg: `${base}.svg`, png: `${base}.png` };
  writeFileAtomic(paths.svg, svg);
  writeFileAtomic(paths.png, svgToPng(svg, pngWidth));
  return paths;
}
