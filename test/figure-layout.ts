/**
 * Lays an SVG figure out in Chromium and reports text clipped by the figure's edge and labels that
 * overlap (shared by test/plot-layout.test.ts and test/plot-layout-notebooks.test.ts; not a test itself).
 */
import type { Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export interface Layout {
  clipped: string[];
  overlaps: string[];
  texts: number;
}

export async function layout(page: Page, svg: string): Promise<Layout> {
  await page.setContent(`<!DOCTYPE html><html><body style="margin:0">${svg}</body></html>`);
  return page.evaluate(() => {
    const svg = document.querySelector("svg")!;
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].filter((t) => (t.textContent ?? "").trim() !== "");
    const name = (t: Element) => JSON.stringify((t.textContent ?? "").slice(0, 40));
    const clipped = texts
      .map((t) => ({ t, r: t.getBoundingClientRect() }))
      .filter(({ r }) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
      .map(({ t, r }) => `${name(t)} at ${Math.round(r.left - box.left)}–${Math.round(r.right - box.left)} of ${Math.round(box.width)} px`);
    // Labels that must not overlap each other: tick labels within one axis, and every label outside the axes.
    const group = (t: Element) => {
      const axis = t.closest('g[aria-label$="tick label"]');
      return axis ? `axis:${axis.getAttribute("aria-label")}` : "labels";
    };
    const inter = (a: DOMRect, b: DOMRect) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
    const overlaps: string[] = [];
    const rects = texts.map((t) => ({ t, r: t.getBoundingClientRect(), g: group(t) }));
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++) {
        const a = rects[i]!;
        const b = rects[j]!;
        if (a.g !== b.g && !(a.g === "labels" || b.g === "labels")) continue;
        if (a.g !== b.g && a.g.startsWith("axis") && b.g.startsWith("axis")) continue;
        // An axis label against a tick of another axis is Plot's own layout; labels against labels and ticks against ticks of one axis are ours.
        if (a.g !== b.g) continue;
        const area = inter(a.r, b.r);
        if (area > 2) overlaps.push(`${name(a.t)} × ${name(b.t)} (${Math.round(area)} px²)`);
      }
    }
    return { clipped, overlaps, texts: texts.length };
  });
}

