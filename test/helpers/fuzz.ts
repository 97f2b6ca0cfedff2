/**
 * Mutations of tool output for the parsers' fuzz tests: every mutation is a
 * pure function of the text and a seeded generator, so a failure names the
 * seed, the fixture and the mutation and can be replayed.
 */
import { createRng, type Rng } from "../../src/stats/prng.js";

export interface Mutation {
  name: string;
  text: string;
}

function lines(text: string): string[] {
  return text.split("\n");
}

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.index(xs.length)]!;
}

const NON_ASCII = ["é", "µ", "\u00a0", "\u2212", "…", "\ufffd", "😀", "\u200b", "ß", "\u0000"];

/** A few random bytes as a latin1 string (what a binary file read as text becomes). */
function garbage(rng: Rng, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(rng.index(256));
  return s;
}

/**
 * `count` mutations of `text` drawn with the generator seeded by `seed`:
 * truncation at a byte, deleted / duplicated / swapped lines, changed column
 * widths, digits changed or removed, non-ASCII characters, binary garbage,
 * CRLF, mail quoting, tabs, a line cut in two (wrapping).
 */
export function mutations(text: string, seed: number, count: number): Mutation[] {
  const rng = createRng(seed);
  const out: Mutation[] = [];
  const kinds: ((t: string) => Mutation)[] = [
    (t) => {
      const at = rng.index(t.length + 1);
      return { name: `truncate@${at}`, text: t.slice(0, at) };
    },
    (t) => {
      const ls = lines(t);
      const i = rng.index(ls.length);
      ls.splice(i, 1);
      return { name: `delete-line ${i + 1}`, text: ls.join("\n") };
    },
    (t) => {
      const ls = lines(t);
      const i = rng.index(ls.length);
      ls.splice(i, 0, ls[i]!);
      return { name: `duplicate-line ${i + 1}`, text: ls.join("\n") };
    },
    (t) => {
      const ls = lines(t);
      const i = rng.index(ls.length);
      const j = rng.index(ls.length);
      [ls[i], ls[j]] = [ls[j]!, ls[i]!];
      return { name: `swap-lines ${i + 1},${j + 1}`, text: ls.join("\n") };
    },
    (t) => {
      // widen or narrow one run of spaces
      const runs = [...t.matchAll(/ {2,}/g)];
      if (runs.length === 0) return { name: "widen (none)", text: t };
      const r = pick(rng, runs);
      const w = rng.index(6);
      return { name: `width@${r.index}=${w}`, text: t.slice(0, r.index) + " ".repeat(w) + t.slice(r.index! + r[0].length) };
    },
    (t) => {
      const ds = [...t.matchAll(/\d/g)];
      if (ds.length === 0) return { name: "digit (none)", text: t };
      const d = pick(rng, ds);
      const repl = pick(rng, ["", "9", "99999999999999999999", ".", "-", "x", "e", "0.0.0"]);
      return { name: `digit@${d.index}→${JSON.stringify(repl)}`, text: t.slice(0, d.index) + repl + t.slice(d.index! + 1) };
    },
    (t) => {
      const at = rng.index(t.length + 1);
      const c = pick(rng, NON_ASCII);
      return { name: `non-ascii@${at}`, text: t.slice(0, at) + c + t.slice(at) };
    },
    (t) => {
      const at = rng.index(t.length + 1);
      return { name: `garbage@${at}`, text: t.slice(0, at) + garbage(rng, 1 + rng.index(64)) + t.slice(at) };
    },
    (t) => ({ name: "crlf", text: t.replace(/\n/g, "\r\n") }),
    (t) => ({ name: "quoted", text: lines(t).map((l) => (rng.index(2) ? `> ${l}` : `>> ${l}`)).join("\n") }),
    (t) => ({ name: "tabs", text: t.replace(/ {8}/g, "\t") }),
    (t) => {
      const ls = lines(t);
      const i = rng.index(ls.length);
      const l = ls[i]!;
      const at = rng.index(l.length + 1);
      ls.splice(i, 1, l.slice(0, at), l.slice(at));
      return { name: `wrap line ${i + 1}@${at}`, text: ls.join("\n") };
    },
    (t) => ({ name: "all-garbage", text: garbage(rng, 1 + rng.index(2000)) }),
    (t) => ({ name: "empty", text: "" }),
    (t) => {
      const at = rng.index(t.length + 1);
      return { name: `prose@${at}`, text: `${t.slice(0, at)}\nThanks, and sorry for the noise.\n-- \nA. Hacker\n${t.slice(at)}` };
    },
  ];
  for (let k = 0; k < count; k++) {
    // Stack one to three mutations.
    let t = text;
    const names: string[] = [];
    const depth = 1 + rng.index(3);
    for (let d = 0; d < depth; d++) {
      const m = pick(rng, kinds)(t);
      t = m.text;
      names.push(m.name);
    }
    out.push({ name: names.join(" + "), text: t });
  }
  return out;
}

/** The fuzz scale: SLICELAB_FUZZ=N multiplies the number of mutations (default 1). */
export function fuzzScale(): number {
  const v = Number(process.env.SLICELAB_FUZZ ?? "1");
  return Number.isFinite(v) && v >= 1 ? Math.floor(v) : 1;
}
