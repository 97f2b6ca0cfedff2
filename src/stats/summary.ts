/** Descriptive statistics of one sample. */
export interface Summary {
  n: number;
  mean: number;
  /** Sample standard deviation (divisor n − 1); NaN when n < 2. */
  sd: number;
  median: number;
  min: number;
  max: number;
  /** Coefficient of variation, sd / mean (a fraction, not %). */
  cv: number;
}

/** Arithmetic mean; NaN for an empty sample. */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  const m = s / xs.length;
  // One correction pass (the mean of the residuals) removes most rounding error of the sum.
  let r = 0;
  for (const x of xs) r += x - m;
  return m + r / xs.length;
}

/** Σ (x − m)² around the sample's mean m, two-pass with the compensated residual sum. */
export function sumSquaredDeviations(xs: readonly number[], m: number): number {
  let ss = 0;
  let c = 0;
  for (const x of xs) {
    const d = x - m;
    ss += d * d;
    c += d;
  }
  return ss - (c * c) / xs.length;
}

/** Sample variance (divisor n − 1), two-pass with the compensated residual sum; NaN when n < 2. */
export function variance(xs: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  return sumSquaredDeviations(xs, mean(xs)) / (n - 1);
}

/** Sample standard deviation (divisor n − 1); NaN when n < 2. */
export function sd(xs: readonly number[]): number {
  return Math.sqrt(variance(xs));
}

/** Median (mean of the two middle values for even n); NaN for an empty sample. */
export function median(xs: readonly number[]): number {
  const n = xs.length;
  if (n === 0) return NaN;
  const s = [...xs].sort((p, q) => p - q);
  const h = n >> 1;
  return n % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

/** n, mean, sample SD, median, min, max and CV of a sample of finite numbers. */
export function summary(xs: readonly number[]): Summary {
  for (const x of xs) {
    if (!Number.isFinite(x)) throw new RangeError(`summary: every value must be a finite number, found ${x}`);
  }
  const m = mean(xs);
  const s = sd(xs);
  let min = Infinity;
  let max = -Infinity;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return {
    n: xs.length,
    mean: m,
    sd: s,
    median: median(xs),
    min: xs.length ? min : NaN,
    max: xs.length ? max : NaN,
    cv: s / m,
  };
}
