/**
 * Fuzz test of every parser on mutations of every fixture it parses: the result
 * is records (with finite numbers or null) or a ParseError "FILE:LINE: expected …,
 * found …" with a line inside the input, within a time proportional to the
 * input — never a TypeError, a RangeError, a hang or a NaN in the records.
 * Fixed seed; SLICELAB_FUZZ=N runs N times as many mutations.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { formats, type ParserFormat } from "../src/parse/formats.js";
import { fuzzScale, mutations } from "./helpers/fuzz.js";

const root = join(repoRoot(), "test", "fixtures");
const SKIP_DIRS = new Set(["compare", "kernel-install"]);

function fixtureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!SKIP_DIRS.has(name)) out.push(...fixtureFiles(p));
    } else if (name.endsWith(".txt")) out.push(p);
  }
  return out;
}

/** A path in a record that holds a non-finite number, or null. */
function badNumber(v: unknown, path = "$", seen = new Set<unknown>()): string | null {
  if (typeof v === "number") return Number.isFinite(v) ? null : `${path} = ${v}`;
  if (v === null || typeof v !== "object" || seen.has(v)) return null;
  seen.add(v);
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const r = badNumber(x, `${path}.${k}`, seen);
    if (r) return r;
  }
  return null;
}

function parsesCleanly(format: ParserFormat, text: string, file: string): boolean {
  try {
    format.parse(text, file);
    return true;
  } catch {
    return false;
  }
}

/** Runs one parse and checks its outcome; returns the elapsed milliseconds. */
export function checkOutcome(format: ParserFormat, text: string, file: string, what: string): number {
  const t0 = performance.now();
  let result: unknown;
  try {
    result = format.parse(text, file);
  } catch (err) {
    const ms = performance.now() - t0;
    assert.ok(err instanceof ParseError, `${what}: threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n${err instanceof Error ? err.stack : ""}`);
    assert.match(err.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+: expected .+, found `, "s"), `${what}: message`);
    const nLines = text.split("\n").length;
    assert.ok(err.line >= 1 && err.line <= nLines + 1, `${what}: line ${err.line} outside 1…${nLines + 1}`);
    return ms;
  }
  const ms = performance.now() - t0;
  assert.ok(result !== undefined && result !== null, `${what}: returned nothing`);
  const bad = badNumber(result);
  // Non-finite numbers may only come from the input itself ("nan" printed by the tool).
  if (bad && !/\bnan\b|\binf/i.test(text)) assert.fail(`${what}: non-finite number in the records (${bad})`);
  return ms;
}

const files = fixtureFiles(root);
const scale = fuzzScale();
const PER_FIXTURE = 60 * scale;

for (const format of formats) {
  const mine = files
    .map((f) => ({ f, text: readFileSync(f, "utf8") }))
    .filter(({ f, text }) => parsesCleanly(format, text, relative(repoRoot(), f)));
  test(`fuzz ${format.name}: ${mine.length} fixtures × ${PER_FIXTURE} mutations give records or a ParseError`, () => {
    assert.ok(mine.length > 0, `no fixture parses as ${format.name}`);
    let seed = 1600;
    for (const { f, text } of mine) {
      const file = relative(repoRoot(), f);
      const ms0 = checkOutcome(format, text, file, `${file} unmutated`);
      for (const m of mutations(text, ++seed, PER_FIXTURE)) {
        const what = `${format.name} ${file} seed ${seed} [${m.name}]`;
        let ms = checkOutcome(format, m.text, file, what);
        // Generous: a mutation may not cost much more per byte than the original (plus a fixed allowance).
        const bound = 200 + 50 * Math.max(ms0, 1) * Math.max(1, m.text.length / Math.max(text.length, 1));
        // Over it, timed twice more and the best kept: a parser that blows up is slow every time, a
        // descheduled test process (this machine is shared) only once.
        if (ms >= bound) ms = Math.min(ms, checkOutcome(format, m.text, file, what), checkOutcome(format, m.text, file, what));
        assert.ok(ms < bound, `${format.name} ${file} seed ${seed} [${m.name}]: ${ms.toFixed(1)} ms (bound ${bound.toFixed(0)} ms)`);
      }
    }
  });

  test(`fuzz ${format.name}: truncation at every line end and a large in-memory input stay linear`, () => {
    for (const { f, text } of mine.slice(0, 3)) {
      const file = relative(repoRoot(), f);
      let pos = text.indexOf("\n");
      while (pos >= 0) {
        checkOutcome(format, text.slice(0, pos), file, `${file} truncated at byte ${pos}`);
        checkOutcome(format, text.slice(0, pos + 1), file, `${file} truncated after byte ${pos}`);
        pos = text.indexOf("\n", pos + 1);
      }
    }
    // A large input: the first fixture repeated to ~4 MB (SLICELAB_FUZZ scales it; 25 → 100 MB), in memory only.
    const { f, text } = mine[0]!;
    const file = relative(repoRoot(), f);
    // Linear, not quadratic: a 10× larger input may cost at most 8× per byte. Each time is the best of
    // three (this machine is shared), and the smaller input is 400 kB so that it takes long enough to time.
    const small = text.repeat(Math.max(1, Math.ceil(400_000 / text.length)));
    const big = text.repeat(Math.max(1, Math.ceil((4_000_000 * scale) / text.length)));
    const best = (t: string, what: string) => Math.min(...[0, 1, 2].map(() => checkOutcome(format, t, file, what)));
    const tSmall = best(small, `${file} × small`);
    const tBig = best(big, `${file} × ${big.length} bytes`);
    if (tSmall >= 20) {
      // A quadratic parser would show a ratio near 10; 8 leaves room for a loaded machine.
      const ratio = tBig / tSmall / (big.length / small.length);
      assert.ok(ratio < 8, `${format.name}: ${big.length} bytes took ${tBig.toFixed(0)} ms, ${ratio.toFixed(1)}× the per-byte time of ${small.length} bytes (${tSmall.toFixed(1)} ms)`);
    } else {
      // Too fast to time (e.g. refused at an early line): only a generous bound on the large input.
      assert.ok(tBig < 5000 * scale, `${format.name}: ${big.length} bytes took ${tBig.toFixed(0)} ms (${small.length} bytes: ${tSmall.toFixed(1)} ms)`);
    }
  });
}
