/**
 * Small helpers about printed numbers: what interval a printed figure stands for,
 * and fixed-precision formatting for the ledger's text fields (deterministic, no locale).
 */
import type { Interval } from "./verdicts.js";

/** Number of digits after the decimal point in a printed number ("74527.7800" → 4, "182" → 0). */
export function decimalsOf(text: string): number {
  const m = /^[-+]?\d*(?:\.(\d*))?$/.exec(text.trim());
  if (!m) throw new RangeError(`not a plain decimal number: ${JSON.stringify(text)}`);
  return m[1]?.length ?? 0;
}

/**
 * The values a figure printed with `decimals` digits can stand for, whether it was
 * rounded (±½ unit in the last place) or truncated (up to 1 unit away from zero):
 * [v − ½u, v + u] for positive v, u = 10^−decimals.
 */
export function printedInterval(value: number, decimals: number): Interval {
  const u = 10 ** -decimals;
  return value >= 0 ? { lo: value - u / 2, hi: value + u } : { lo: value - u, hi: value + u / 2 };
}

/** The values a figure rounded to `decimals` digits can stand for: v ± ½ unit. */
export function roundedInterval(value: number, decimals: number): Interval {
  const h = 10 ** -decimals / 2;
  return { lo: value - h, hi: value + h };
}

/** Rounds half away from zero to `decimals` digits (as printf does for exactly representable halves). */
export function roundTo(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return (Math.sign(x) * Math.round(Math.abs(x) * f)) / f;
}

/** Truncates toward zero to `decimals` digits. */
export function truncateTo(x: number, decimals: number): number {
  const f = 10 ** decimals;
  // The small nudge keeps e.g. 0.29 * 100 = 28.999999999999996 from truncating to 28.
  return (Math.sign(x) * Math.floor(Math.abs(x) * f + 1e-9)) / f;
}

/** Fixed-point text, with "−" never used (plain ASCII minus) and "n/a" for non-finite values. */
export function fmt(x: number, decimals: number): string {
  if (!Number.isFinite(x)) return "n/a";
  const s = x.toFixed(decimals);
  return s === `-${(0).toFixed(decimals)}` ? (0).toFixed(decimals) : s;
}

/** A p-value as text: 3 significant digits, "< 0.0001" below that. */
export function fmtP(p: number): string {
  if (!Number.isFinite(p)) return "n/a";
  if (p < 1e-4) return "< 0.0001";
  return p.toPrecision(3).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
}

/** Percentage text with a sign: "+0.245%". */
export function fmtSignedPct(x: number, decimals: number): string {
  if (!Number.isFinite(x)) return "n/a";
  const s = fmt(x, decimals);
  return `${x > 0 && !/^0\.?0*$/.test(s) ? "+" : ""}${s}%`;
}

/** An interval as text: "[lo, hi]". */
export function fmtInterval(iv: Interval, decimals: number, unit = ""): string {
  return `[${fmt(iv.lo, decimals)}${unit}, ${fmt(iv.hi, decimals)}${unit}]`;
}

/** Integer with thousands separators as commas ("405038" → "405,038"). */
export function fmtInt(n: number): string {
  if (!Number.isFinite(n)) return "n/a";
  const s = Math.round(Math.abs(n)).toString();
  const g = s.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return n < 0 ? `-${g}` : g;
}
