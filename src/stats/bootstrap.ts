import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { createRngFromState, jumpState, seedState, type Rng } from "./prng.js";
import { mean, sd } from "./summary.js";

/** Options of the bootstrap. */
export interface BootstrapOptions {
  /** Seed of the xoshiro128** generator (recorded in the result). Default 1. */
  seed?: number;
  /** Number of resamples. Default 10000. */
  resamples?: number;
  /** 1 − confidence level of the percentile intervals. Default 0.05. */
  alpha?: number;
  /**
   * Threads drawing the resamples (the replicates are the same numbers, bit for bit, with any count):
   * default SLICELAB_BOOTSTRAP_THREADS, else up to 4 of the CPUs when the resamples draw at least
   * PARALLEL_MIN_DRAWS indices, else 1.
   */
  threads?: number;
  /** For tests: the worker script (default ./bootstrap-worker.js) and how long a worker may take to start. */
  worker?: { url?: URL; startTimeoutMs?: number };
}

/** Below this many drawn indices (resamples × (nA + nB)) one thread is faster than starting workers. */
export const PARALLEL_MIN_DRAWS = 20_000_000;

/** The bootstrap replicates themselves (for plotting the distribution). */
export interface BootstrapReplicates {
  seed: number;
  resamples: number;
  /** 100·(mean B* − mean A*)/mean A* for each resample, in resampling order. */
  meanDiffPct: Float64Array;
  /** sd(B*)/sd(A*) for each resample (Infinity or NaN when sd(A*) = 0). */
  sdRatio: Float64Array;
}

/** A point estimate with its percentile bootstrap interval. */
export interface BootstrapInterval {
  estimate: number;
  lo: number;
  hi: number;
}

/** Percentile bootstrap confidence intervals of the comparison. */
export interface BootstrapResult {
  seed: number;
  resamples: number;
  confidence: number;
  /** Mean difference B − A in % of mean A. */
  meanDiffPct: BootstrapInterval;
  /** SD ratio B/A. */
  sdRatio: BootstrapInterval;
  /** Resamples whose SD ratio was undefined (both resampled SDs zero) and were left out of its interval. */
  undefinedSdRatios: number;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_RESAMPLES = 10000;

/** Fills `out` with a resample of `xs` (indices from `rng`, in order) and returns the plain sum of the drawn values. */
function draw(xs: Float64Array, out: Float64Array, idx: Int32Array, rng: Rng): number {
  const n = xs.length;
  rng.indices(n, idx);
  let s = 0;
  for (let i = 0; i < n; i++) {
    const v = xs[idx[i]!]!;
    out[i] = v;
    s += v;
  }
  return s;
}

/**
 * The mean and sample SD of `xs` given its plain sum, with exactly the
 * arithmetic of mean() and sd() in summary.ts (the residual correction of the
 * mean, the compensated two-pass variance), so the replicates are bit-identical
 * to computing mean()/sd() on the resample: two passes instead of their five.
 */
function meanAndSd(xs: Float64Array, sum: number, out: { mean: number; sd: number }): void {
  const n = xs.length;
  const m0 = sum / n;
  let r = 0;
  for (let i = 0; i < n; i++) r += xs[i]! - m0;
  const m = m0 + r / n;
  let ss = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - m;
    ss += d * d;
    c += d;
  }
  out.mean = m;
  out.sd = Math.sqrt((ss - (c * c) / n) / (n - 1));
}

/**
 * Draws `resamples` bootstrap resamples: each resamples A (nA indices) and then
 * B (nB indices) with replacement from one xoshiro128** stream seeded with `seed`.
 */
export function bootstrapReplicates(
  a: readonly number[],
  b: readonly number[],
  opts: BootstrapOptions = {},
): BootstrapReplicates {
  const seed = opts.seed ?? DEFAULT_SEED;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isSafeInteger(resamples) || resamples < 1) {
    throw new RangeError(`resamples must be a positive integer, found ${resamples}`);
  }
  if (a.length < 2 || b.length < 2) throw new RangeError("the bootstrap needs at least two values in each sample");
  const xa = Float64Array.from(a);
  const xb = Float64Array.from(b);
  const threads = bootstrapThreads(opts.threads, resamples * (a.length + b.length));
  const start = seedState(seed);
  if (threads === 1) {
    const meanDiffPct = new Float64Array(resamples);
    const sdRatio = new Float64Array(resamples);
    fillReplicates(xa, xb, start, 0, resamples, meanDiffPct, sdRatio);
    return { seed, resamples, meanDiffPct, sdRatio };
  }
  const meanDiffPct = new Float64Array(new SharedArrayBuffer(8 * resamples));
  const sdRatio = new Float64Array(new SharedArrayBuffer(8 * resamples));
  drawInThreads(xa, xb, start, resamples, threads, meanDiffPct, sdRatio, opts.worker ?? {});
  return { seed, resamples, meanDiffPct: Float64Array.from(meanDiffPct), sdRatio: Float64Array.from(sdRatio) };
}

/** The thread count: the option, else SLICELAB_BOOTSTRAP_THREADS, else by the work's size. */
export function bootstrapThreads(option: number | undefined, draws: number, env: NodeJS.ProcessEnv = process.env, cpus = availableParallelism()): number {
  const given = option ?? (env.SLICELAB_BOOTSTRAP_THREADS !== undefined && env.SLICELAB_BOOTSTRAP_THREADS !== "" ? Number(env.SLICELAB_BOOTSTRAP_THREADS) : undefined);
  if (given !== undefined) {
    if (!Number.isSafeInteger(given) || given < 1 || given > 64) {
      throw new RangeError(`bootstrap threads must be an integer from 1 to 64 (option threads or SLICELAB_BOOTSTRAP_THREADS), found ${option ?? JSON.stringify(env.SLICELAB_BOOTSTRAP_THREADS)}`);
    }
    return given;
  }
  return draws >= PARALLEL_MIN_DRAWS ? Math.max(1, Math.min(4, cpus)) : 1;
}

/**
 * Replicates r0 … r1 − 1 into meanDiffPct/sdRatio: `state` is the generator's state at the start of
 * replicate 0; replicate r starts r·(nA + nB) draws later (each resample draws nA then nB indices),
 * so a thread jumps there (jumpState) and draws exactly what one thread would have drawn.
 */
export function fillReplicates(
  xa: Float64Array,
  xb: Float64Array,
  state: readonly [number, number, number, number],
  r0: number,
  r1: number,
  meanDiffPct: Float64Array,
  sdRatio: Float64Array,
): void {
  const rng = createRngFromState(jumpState(state, r0 * (xa.length + xb.length)));
  const ra = new Float64Array(xa.length);
  const rb = new Float64Array(xb.length);
  const ia = new Int32Array(xa.length);
  const ib = new Int32Array(xb.length);
  const stA = { mean: 0, sd: 0 };
  const stB = { mean: 0, sd: 0 };
  for (let r = r0; r < r1; r++) {
    const sumA = draw(xa, ra, ia, rng);
    const sumB = draw(xb, rb, ib, rng);
    meanAndSd(ra, sumA, stA);
    meanAndSd(rb, sumB, stB);
    meanDiffPct[r] = (100 * (stB.mean - stA.mean)) / stA.mean;
    sdRatio[r] = stB.sd / stA.sd;
  }
}

/** Worker status words: what a worker has done with its chunk. */
export const WORKER_PENDING = 0;
export const WORKER_STARTED = 1;
export const WORKER_DONE = 2;
export const WORKER_FAILED = 3;
/** How long the calling thread waits for a worker to start before it draws that chunk itself. */
const WORKER_START_TIMEOUT_MS = 10_000;

/**
 * Splits the resamples into `threads` chunks: chunk 0 on this thread, the others in workers
 * (src/stats/bootstrap-worker.ts) writing into the shared arrays. The call stays synchronous: this
 * thread waits on a shared status word (Atomics.wait), and draws itself any chunk whose worker
 * failed or did not start within 10 s, so the result never depends on the workers.
 */
function drawInThreads(
  xa: Float64Array,
  xb: Float64Array,
  state: readonly [number, number, number, number],
  resamples: number,
  threads: number,
  meanDiffPct: Float64Array,
  sdRatio: Float64Array,
  worker: { url?: URL; startTimeoutMs?: number },
): void {
  const startTimeoutMs = worker.startTimeoutMs ?? WORKER_START_TIMEOUT_MS;
  const bounds = Array.from({ length: threads + 1 }, (_, i) => Math.round((i * resamples) / threads));
  const status = new Int32Array(new SharedArrayBuffer(4 * threads));
  const sa = new Float64Array(new SharedArrayBuffer(8 * xa.length));
  const sb = new Float64Array(new SharedArrayBuffer(8 * xb.length));
  sa.set(xa);
  sb.set(xb);
  const workers: (Worker | null)[] = [null];
  for (let t = 1; t < threads; t++) {
    try {
      const w = new Worker(worker.url ?? new URL("./bootstrap-worker.js", import.meta.url), {
        // Not the parent's --import preloads (the test suite's data/ guard) nor its flags.
        execArgv: [],
        workerData: { xa: sa, xb: sb, state, r0: bounds[t], r1: bounds[t + 1], meanDiffPct, sdRatio, status, index: t },
      });
      w.unref();
      w.on("error", () => undefined); // reported through the status word
      workers.push(w);
    } catch {
      Atomics.store(status, t, WORKER_FAILED);
      workers.push(null);
    }
  }
  fillReplicates(xa, xb, state, bounds[0]!, bounds[1]!, meanDiffPct, sdRatio);
  for (let t = 1; t < threads; t++) {
    const started = Date.now();
    for (;;) {
      const s = Atomics.load(status, t);
      if (s === WORKER_DONE || s === WORKER_FAILED) break;
      if (s === WORKER_PENDING) {
        const left = startTimeoutMs - (Date.now() - started);
        if (left <= 0) break;
        Atomics.wait(status, t, WORKER_PENDING, left);
      } else Atomics.wait(status, t, WORKER_STARTED);
    }
    if (Atomics.load(status, t) !== WORKER_DONE) {
      void workers[t]?.terminate();
      fillReplicates(xa, xb, state, bounds[t]!, bounds[t + 1]!, meanDiffPct, sdRatio);
    }
  }
}

/**
 * The p-quantile of sorted values by linear interpolation between order
 * statistics (Hyndman & Fan type 7, numpy.percentile's default).
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  const x0 = sorted[lo]!;
  const x1 = sorted[hi]!;
  if (x0 === x1) return x0;
  return x0 + (h - lo) * (x1 - x0);
}

function interval(estimate: number, values: Float64Array, alpha: number): { iv: BootstrapInterval; dropped: number } {
  const kept = values.filter((v) => !Number.isNaN(v)).sort();
  return {
    iv: { estimate, lo: quantileSorted(kept, alpha / 2), hi: quantileSorted(kept, 1 - alpha / 2) },
    dropped: values.length - kept.length,
  };
}

/**
 * Seeded percentile bootstrap: (1 − alpha) intervals of the mean difference in %
 * of A's mean and of the SD ratio B/A. Same seed and inputs → identical numbers.
 */
export function bootstrapCis(a: readonly number[], b: readonly number[], opts: BootstrapOptions = {}): BootstrapResult {
  const alpha = opts.alpha ?? 0.05;
  const reps = bootstrapReplicates(a, b, opts);
  const mA = mean(a);
  const diff = interval((100 * (mean(b) - mA)) / mA, reps.meanDiffPct, alpha);
  const ratio = interval(sd(b) / sd(a), reps.sdRatio, alpha);
  return {
    seed: reps.seed,
    resamples: reps.resamples,
    confidence: 1 - alpha,
    meanDiffPct: diff.iv,
    sdRatio: ratio.iv,
    undefinedSdRatios: ratio.dropped,
  };
}
