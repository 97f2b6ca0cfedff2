// The layering of src/: every folder has a layer, imports go only down (or sideways within a
// layer), there is no import cycle between folders, and the CLI's commands write no files
// themselves (they parse flags and call one function). Computed from the source files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { repoRoot } from "../src/util/paths.js";

/** Lower layers first; a folder may import its own layer's folders and those below. */
export const LAYERS: string[][] = [
  ["util"],
  ["stats"],
  ["parse"],
  ["collect", "debian", "kernel", "micro", "postgres", "published", "vm"],
  ["record"],
  ["drivers"],
  ["analysis", "bench", "bundle", "prepare", "study"],
  ["claims", "evidence", "plot", "report"],
  ["cli", "testing"],
];

/**
 * Imports against the layering that remain, each named with its reason: upward arrows, and
 * sideways arrows that close a cycle between folders (src/postgres/check-vm.ts -> vm). The test
 * fails on any other, and on an entry here that no longer exists (remove it once the arrow is gone).
 * FILE -> FOLDER.
 */
export const ALLOWED: Record<string, string> = {
  "src/postgres/check-vm.ts -> record": "make check in the VM writes a record (kitInfo, deriveRecord, writeRecord): an experiment in the platform folder; its move to src/drivers/ waits for src/postgres/v2-report.ts (which imports its VmCheckRecord type and is read by notebook 03 and src/evidence/figures.ts) to move up with it",
  "src/postgres/check-vm.ts -> vm": "make check inside the kit's VM (runVm, the probe): postgres -> vm closes a cycle with src/vm/traced-pg.ts -> postgres; goes with the move above",
};

export const WRITES_ALLOWED: Record<string, string> = {
  "src/cli/commands/parse.ts": "--output FILE: the user's own output file of a parse, not a record",
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (n.endsWith(".ts")) out.push(p);
  }
  return out;
}

const root = repoRoot();
const layerOf = new Map(LAYERS.flatMap((fs, i) => fs.map((f): [string, number] => [f, i])));
const folderOf = (rel: string) => rel.split("/")[1] as string;

/** Relative imports of a source file (static, re-exports, dynamic), as paths relative to the repository. */
export function importsOf(file: string, text: string): string[] {
  const specs = [
    ...[...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']/gm)].map((m) => m[1] as string),
    ...[...text.matchAll(/^\s*import\s*["'](\.{1,2}\/[^"']+)["']/gm)].map((m) => m[1] as string),
    ...[...text.matchAll(/\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)].map((m) => m[1] as string),
  ];
  return specs.map((s) => normalize(join(dirname(file), s)));
}

const files = sources(join(root, "src")).map((p) => relative(root, p));
const edges: { from: string; to: string; toFolder: string }[] = [];
for (const f of files) {
  for (const t of importsOf(f, readFileSync(join(root, f), "utf8"))) {
    if (!t.startsWith("src/") || t.split("/").length < 3) continue;
    edges.push({ from: f, to: t, toFolder: folderOf(t) });
  }
}

test("every folder of src/ has a layer", () => {
  const folders = [...new Set(files.filter((f) => f.split("/").length > 2).map(folderOf))].sort();
  assert.deepEqual(folders.filter((f) => !layerOf.has(f)), [], "give each new folder a layer in LAYERS");
  assert.deepEqual(files.filter((f) => f.split("/").length === 2), [], "no source files directly in src/");
});

test("imports go down the layers (or sideways), but for the named remaining arrows", () => {
  const up = new Map<string, string[]>();
  for (const e of edges) {
    const a = layerOf.get(folderOf(e.from)) as number;
    const b = layerOf.get(e.toFolder);
    if (b === undefined || b <= a) continue;
    const key = `${e.from} -> ${e.toFolder}`;
    up.set(key, [...(up.get(key) ?? []), e.to]);
  }
  const unexplained = [...up.entries()].filter(([k]) => !(k in ALLOWED)).map(([k, v]) => `${k} (${[...new Set(v)].join(", ")})`);
  assert.deepEqual(unexplained, [], "an import from a lower layer to a higher one");
  const all = new Set(edges.map((e) => `${e.from} -> ${e.toFolder}`));
  const stale = Object.keys(ALLOWED).filter((k) => !all.has(k));
  assert.deepEqual(stale, [], "allowed arrows that no longer exist: remove them from ALLOWED");
});

test("no import cycle between folders (allowed arrows left out)", () => {
  const g = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = folderOf(e.from);
    if (a === e.toFolder || `${e.from} -> ${e.toFolder}` in ALLOWED) continue;
    g.set(a, (g.get(a) ?? new Set()).add(e.toFolder));
  }
  // Tarjan's strongly connected components: a component of more than one folder is a cycle.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) cycles.push(comp.sort());
    }
  };
  for (const v of [...g.keys()].sort()) if (!idx.has(v)) visit(v);
  const why = cycles.map((c) => `${c.join(" ⇄ ")}: ${edges.filter((e) => c.includes(folderOf(e.from)) && c.includes(e.toFolder) && folderOf(e.from) !== e.toFolder && !(`${e.from} -> ${e.toFolder}` in ALLOWED)).map((e) => `${e.from} → ${e.to}`).join(", ")}`);
  assert.deepEqual(why, []);
});

test("src/cli/commands/* write no files (they call one function that does)", () => {
  const writers = /\b(writeFileSync|writeFileAtomic|createWriteStream|appendFileSync|mkdirSync|cpSync|copyFileSync|renameSync|rmSync)\b/;
  const dir = join(root, "src", "cli", "commands");
  const found: string[] = [];
  for (const n of readdirSync(dir).filter((x) => x.endsWith(".ts")).sort()) {
    const rel = `src/cli/commands/${n}`;
    const imports = [...readFileSync(join(dir, n), "utf8").matchAll(/^\s*import\s*\{([^}]*)\}\s*from\s*["'][^"']+["']/gm)].map((m) => m[1] as string).join(",");
    if (writers.test(imports) && !(rel in WRITES_ALLOWED)) found.push(`${rel}: imports ${imports.split(",").map((s) => s.trim()).filter((s) => writers.test(s)).join(", ")}`);
  }
  assert.deepEqual(found, []);
  for (const f of Object.keys(WRITES_ALLOWED)) assert.ok(writers.test(readFileSync(join(root, f), "utf8")), `${f}: no longer writes; remove it from WRITES_ALLOWED`);
});

test("the layering check sees what it should: a back-arrow and a cycle in a made-up graph", () => {
  assert.deepEqual(importsOf("src/collect/x.ts", 'import { a } from "../bench/series.js";\nexport * from "./y.js";\nconst m = await import("../record/format.js");\n// import { no } from "../cli/main.js"'), [
    "src/bench/series.js", "src/collect/y.js", "src/record/format.js",
  ]);
  assert.ok((layerOf.get("bench") as number) > (layerOf.get("collect") as number), "collect → bench is an upward arrow");
});
