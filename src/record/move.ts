import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { STAMP_RE, utcStamp } from "../util/stamp.js";
import { filesBelow, known, listRecords, RECORD_FILE, SUMS_FILE, writeRecord, type LoadedRecord } from "./format.js";

/**
 * The one layout: `slicelab record convert` moves every record to
 * data/runs/<study>/<stamp>/, <study> a file in studies/ and <stamp> the one
 * UTC stamp (YYYYMMDDTHHMMSSZ, `utcStamp`). It keeps every raw file, writes the
 * old place into record.json (`formerPath`), removes code from under data/
 * (each file's replacement under src/ or studies/ is named in the record's
 * notes), and rewrites every citation of an old path in the kit's texts and
 * code. Running it again changes nothing.
 *
 * Rules, in order:
 * - study: the override below for the old directory's name, else the old
 *   top-level directory when it is a study's name, else the envelope's study;
 * - stamp: a full stamp in the record's own directory name (the time its maker
 *   gave it), else the envelope's `started` (to the second), else the date in
 *   its name at 00:00:00 UTC (only the date is known; `started` stays unknown);
 * - collisions within a study: in the order of the old paths, a record whose
 *   stamp is taken gets the next free second (stated in its notes).
 */


/**
 * Old record paths (below the runs root) whose records belong to a study other than the one
 * their envelope names. Hook-cost records (patch-cost/STAMP) stay in patch-cost: notebook 03
 * reads the newest record of data/runs/patch-cost as the hook cost.
 */
const STUDY_OVERRIDES: [RegExp, string][] = [
  [/^lock-ops-per-txn-\d{8}$/, "lock-ops-vm"],
  [/^lock-ops-v2\/[^/]*-vm$/, "lock-ops-vm"],
  [/^lock-ops-v2\//, "lock-ops"],
  [/^mechanism-2026\//, "mechanism-2026"],
  [/^vm-eviction-/, "vm-eviction"],
  [/^vm-micro-\d{8}T\d{6}Z$/, "vm-micro"],
  [/^vm-slice-trace-\d{8}T\d{6}Z$/, "slice-trace"],
];

/**
 * Records that belong to another study than their directory's, known by their content: the
 * PostgreSQL variant of the mechanism factorial (rows with hugePages, written by `mechanism run
 * --pg` into data/runs/mechanism-2026/pg-STAMP, or already moved to mechanism-2026/STAMP) is study
 * mechanism-pg since issue 24; a record made later in the old layout by an older CLI moves too.
 */
const CONTENT_OVERRIDES: { path: RegExp; study: string; test: (dir: string) => boolean }[] = [
  { path: /^mechanism-2026\//, study: "mechanism-pg", test: (dir) => pgMechanismRows(dir) },
];

/** True when DIR/rows.json (or DIR/out/rows.json) holds PostgreSQL mechanism rows (hugePages in the first row). */
function pgMechanismRows(dir: string): boolean {
  for (const p of [join(dir, "rows.json"), join(dir, "out", "rows.json")]) {
    if (!existsSync(p)) continue;
    try {
      const rows = JSON.parse(readFileSync(p, "utf8")) as unknown;
      return Array.isArray(rows) && typeof rows[0] === "object" && rows[0] !== null && "hugePages" in rows[0];
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Old study directories whose records went to several studies, and the study that takes the
 * directory's own name (its README.md, and a citation of the bare directory): lock-ops-v2 held
 * the host record (lock-ops) and the VM one (lock-ops-vm); code reads "the newest lock-ops-v2
 * record" as the host's.
 */
const TOP_DIRS: Record<string, string> = { "lock-ops-v2": "lock-ops" };

/** Code once kept among the data, and what replaced it (the converter removes the file and names the replacement). */
export const CODE_REPLACEMENTS: Record<string, string> = {
  "analyse.mjs": "src/study/drivers/lock-ops.ts (lockOpsSummary: the same summary.json, tested in test/record-code.test.ts)",
  "guest.sh": "studies/lock-ops-vm.json (the guest's commands, in its notes)",
  "run-cell.sh": "studies/vm-eviction.json (the batch's design and guest command)",
  "run-batch.sh": "studies/vm-eviction.json (the batch's design and guest command)",
  "run.sh": "studies/vm-eviction.json (the batch's design and guest command)",
  "host-overlap.mjs": "src/study/drivers/host-overlap.ts (hostOverlap: the same host-overlap.csv, tested in test/record-code.test.ts)",
  "make-comparison.mjs": "src/study/drivers/eviction-comparison.ts (evictionComparison: the same summary.json and table.md, tested in test/record-code.test.ts)",
};

const CODE_RE = /\.(sh|mjs|js|ts|py)$/;

export interface Move {
  /** Paths relative to the runs root. */
  from: string;
  to: string;
  study: string;
  /** How the stamp was chosen, in words. */
  rule: string;
}

export interface Plan {
  moves: Move[];
  /** Files outside any record (a study directory's README.md) and where they go. */
  files: { from: string; to: string }[];
  /** Code files under the runs root (relative), with their replacement. */
  code: { file: string; record: string; replacement: string }[];
}

/** A full stamp inside a name (20261201T184719Z of host-20261201T184719Z). */
function stampIn(name: string): string | undefined {
  return /(?:^|[^0-9])(\d{8}T\d{6}Z)(?![0-9])/.exec(name)?.[1];
}

function dateIn(name: string): string | undefined {
  const m = /(?:^|[^0-9])(\d{4})-?(\d\d)-?(\d\d)(?![0-9])/.exec(name);
  return m ? `${m[1]}${m[2]}${m[3]}` : undefined;
}

function addSecond(stamp: string): string {
  const iso = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`;
  return utcStamp(new Date(Date.parse(iso) + 1000));
}

export function targetStudy(rel: string, envelopeStudy: string, studies: ReadonlySet<string>, dir?: string): string {
  const top = rel.split("/")[0] as string;
  const c = dir === undefined ? undefined : CONTENT_OVERRIDES.find((x) => x.path.test(rel) && studies.has(x.study) && x.test(dir));
  if (c) return c.study;
  const o = STUDY_OVERRIDES.find(([re]) => re.test(rel));
  if (o) return o[1];
  if (rel.includes("/") && studies.has(top)) return top;
  return envelopeStudy;
}

/** The moves that bring every record under `runsRoot` to <study>/<stamp>/; records already there stay. */
export function planMoves(runsRoot: string, studies: ReadonlySet<string>, records: LoadedRecord[] = listRecords(runsRoot)): Plan {
  const wanted = records.map((r) => {
    const from = relative(runsRoot, r.dir);
    const study = targetStudy(from, r.record.study, studies, r.dir);
    if (!studies.has(study)) throw new UserError(`${r.file}: belongs to study "${study}", which has no file in studies/ (add studies/${study}.json first)`);
    const name = basename(from);
    const started = known(r.record.started);
    let stamp: string;
    let rule: string;
    const inName = STAMP_RE.test(name) ? name : stampIn(name);
    if (inName) [stamp, rule] = [inName, "the stamp in its directory name"];
    else if (typeof started === "string" && !Number.isNaN(Date.parse(started))) [stamp, rule] = [utcStamp(new Date(Date.parse(started))), "its envelope's start time, to the second"];
    else {
      const d = dateIn(name);
      if (!d) throw new UserError(`${r.file}: no time is known (no stamp or date in the name, no start time in the envelope); cannot choose a stamp`);
      [stamp, rule] = [`${d}T000000Z`, "only the date in its name is known: 00:00:00 UTC of that day"];
    }
    return { from, study, stamp, rule, stays: from === `${study}/${name}` && STAMP_RE.test(name) };
  });
  const taken = new Set(wanted.filter((w) => w.stays).map((w) => `${w.study}/${w.stamp}`));
  const moves: Move[] = [];
  for (const w of [...wanted].sort((a, b) => a.from.localeCompare(b.from))) {
    if (w.stays) {
      moves.push({ from: w.from, to: w.from, study: w.study, rule: "already in place" });
      continue;
    }
    let stamp = w.stamp;
    let rule = w.rule;
    while (taken.has(`${w.study}/${stamp}`)) {
      stamp = addSecond(stamp);
      rule = `${w.rule}; that stamp was taken in the study, so the next free second`;
    }
    taken.add(`${w.study}/${stamp}`);
    moves.push({ from: w.from, to: `${w.study}/${stamp}`, study: w.study, rule });
  }
  moves.sort((a, b) => a.from.localeCompare(b.from));

  // Files beside records in an old study directory (lock-ops-v2/README.md): to the new study directory.
  const files: Plan["files"] = [];
  const recordDirs = new Set(moves.map((m) => m.from));
  for (const top of readdirSync(runsRoot).sort()) {
    const p = join(runsRoot, top);
    if (!statSync(p).isDirectory() || recordDirs.has(top)) continue;
    const inside = moves.filter((m) => m.from.startsWith(`${top}/`));
    const studiesOf = TOP_DIRS[top] ? [TOP_DIRS[top]] : [...new Set(inside.map((m) => m.study))];
    for (const f of readdirSync(p).sort()) {
      if (statSync(join(p, f)).isDirectory()) continue;
      if (studiesOf.length !== 1) {
        if (studiesOf.length > 1) throw new UserError(`${join(p, f)}: beside records of several studies (${studiesOf.join(", ")}); move it into one record first`);
        continue;
      }
      if (studiesOf[0] === top) continue;
      const dest = `${studiesOf[0]}/${f}`;
      files.push({ from: `${top}/${f}`, to: existsSync(join(runsRoot, dest)) || files.some((x) => x.to === dest) ? `${studiesOf[0]}/${top}-${f}` : dest });
    }
  }

  const code: Plan["code"] = [];
  for (const m of moves) {
    for (const f of filesBelow(join(runsRoot, m.from))) {
      if (!CODE_RE.test(f)) continue;
      const replacement = CODE_REPLACEMENTS[basename(f)];
      if (!replacement) throw new UserError(`${join(runsRoot, m.from, f)}: code under data/ with no replacement named in src/record/move.ts (CODE_REPLACEMENTS); port it first`);
      code.push({ file: f, record: m.from, replacement });
    }
  }
  return { moves, files, code };
}

function sha256(p: string): string {
  return createHash("sha256").update(readFileSync(p)).digest("hex");
}

/** Carries out a plan: moves directories, updates every moved record's envelope, removes code (naming its replacement). */
export function applyMoves(runsRoot: string, plan: Plan): void {
  const byFrom = new Map(listRecords(runsRoot).map((r) => [relative(runsRoot, r.dir), r]));
  // Code first, while each record is still where the plan found it.
  const codeNotes = new Map<string, string[]>();
  for (const c of plan.code) {
    const p = join(runsRoot, c.record, c.file);
    const lines = readFileSync(p, "utf8").split("\n").length - 1;
    const note = `code file ${c.file} (${lines} lines, sha256 ${sha256(p)}) removed by \`slicelab record convert\` (no code under data/); its replacement: ${c.replacement}; the file itself is in the repository's history`;
    codeNotes.set(c.record, [...(codeNotes.get(c.record) ?? []), note]);
    rmSync(p);
  }
  for (const m of plan.moves) {
    const loaded = byFrom.get(m.from);
    if (!loaded) throw new UserError(`${join(runsRoot, m.from)}: no record there any more; plan again`);
    const to = join(runsRoot, m.to);
    if (m.to !== m.from) {
      if (existsSync(to)) throw new UserError(`${to}: exists already; cannot move ${m.from} there`);
      mkdirSync(dirname(to), { recursive: true });
      renameSync(join(runsRoot, m.from), to);
    }
    const rec = loaded.record;
    const notes = [...rec.notes, ...(codeNotes.get(m.from) ?? [])];
    const changed = m.to !== m.from || rec.study !== m.study || (codeNotes.get(m.from)?.length ?? 0) > 0;
    if (!changed) continue;
    if (m.to !== m.from) notes.push(`moved by \`slicelab record convert\` from data/runs/${m.from} to data/runs/${m.to} (stamp: ${m.rule})`);
    if (rec.study !== m.study) notes.push(`study was "${rec.study}" before \`slicelab record convert\`; the record belongs to studies/${m.study}.json`);
    const top = readdirSync(to).filter((n) => n !== RECORD_FILE && n !== SUMS_FILE).sort();
    const next = { ...rec, study: m.study, files: top, notes, formerPath: rec.formerPath ?? (m.to !== m.from ? `data/runs/${m.from}` : undefined) };
    writeRecord(to, next);
    if (existsSync(join(to, SUMS_FILE))) {
      // The record's checksums stay its maker's, but for record.json (rewritten here) and removed code files.
      const keep = new Set(filesBelow(to, [SUMS_FILE]));
      const lines = readFileSync(join(to, SUMS_FILE), "utf8").split("\n").filter((l) => l.trim() !== "").flatMap((l) => {
        const f = l.replace(/^[0-9a-f]{64} [ *]/, "");
        if (!keep.has(f)) return [];
        return [f === RECORD_FILE ? `${sha256(join(to, RECORD_FILE))}  ${RECORD_FILE}` : l];
      });
      writeFileAtomic(join(to, SUMS_FILE), `${lines.join("\n")}\n`);
    }
  }
  for (const f of plan.files) {
    mkdirSync(dirname(join(runsRoot, f.to)), { recursive: true });
    renameSync(join(runsRoot, f.from), join(runsRoot, f.to));
  }
  // Old directories left empty by the moves.
  const prune = (d: string) => {
    if (!existsSync(d) || !statSync(d).isDirectory()) return;
    for (const n of readdirSync(d)) prune(join(d, n));
    if (d !== runsRoot && readdirSync(d).length === 0) rmdirSync(d);
  };
  prune(runsRoot);
}

/**
 * Old → new paths below data/runs for the citations, from the records themselves
 * (`formerPath`), so a re-run after the move (on a tree where other work added
 * citations of old paths) rewrites them too; plus every old top-level directory
 * (lock-ops-v2) whose records all went to one study and which is no study's name.
 */
export function citationMap(runsRoot: string, studies: ReadonlySet<string>): [string, string][] {
  const pairs = formerPaths(runsRoot);
  const tops = new Map<string, Set<string>>();
  for (const [o, n] of pairs) {
    const [top, ...rest] = o.split("/");
    if (rest.length === 0) continue;
    tops.set(top as string, (tops.get(top as string) ?? new Set()).add(n.split("/")[0] as string));
  }
  for (const [top, ss] of tops) {
    const to = TOP_DIRS[top] ?? (ss.size === 1 ? ([...ss][0] as string) : undefined);
    if (to && !studies.has(top) && !pairs.some(([o]) => o === top)) pairs.push([top, to]);
  }
  // A record moved twice (mechanism-2026/pg-STAMP → mechanism-2026/STAMP → mechanism-pg/STAMP): every
  // place its notes say it was moved from is cited by some text, and each goes to where it is now.
  for (const r of listRecords(runsRoot)) {
    const now = relative(runsRoot, r.dir);
    for (const n of r.record.notes) {
      const m = /^moved by `slicelab record convert` from data\/runs\/(\S+) to data\/runs\/(\S+) /.exec(n);
      for (const o of m ? [m[1] as string, m[2] as string] : []) if (o !== now && !pairs.some(([x]) => x === o)) pairs.push([o, now]);
    }
  }
  // A record renamed inside its study directory (mechanism-2026/host-STAMP → mechanism-2026/STAMP) is also cited by its bare name.
  for (const [o, n] of [...pairs]) {
    const [ot, os, ...orest] = o.split("/");
    const [nt, ns] = n.split("/");
    if (orest.length === 0 && os && ns && ot === nt && os !== ns && /\d{8}T\d{6}Z/.test(os) && !pairs.some(([x]) => x === os)) pairs.push([os, ns]);
  }
  return pairs.sort((a, b) => a[0].localeCompare(b[0]));
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Rewrites citations of old paths in a text: an old path (with or without
 * data/runs/ before it) as a whole token — not part of a longer name, not
 * followed by ".word" (a value name such as micro-cost.off-ns) — becomes the new
 * path. A template prefix (`data/runs/overhead-20261130T${stamp}`) becomes the new
 * prefix when every record it can name moved the same way. One pass, so a new
 * path is never rewritten again.
 */
export function rewriteText(text: string, pairs: [string, string][], prefixOnly: ReadonlySet<string> = new Set()): string {
  if (pairs.length === 0) return text;
  const map = new Map(pairs);
  const olds = [...map.keys()].sort((a, b) => b.length - a.length);
  const re = new RegExp(`(?<![A-Za-z0-9_.-])(${olds.map(escapeRe).join("|")})(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_])`, "g");
  // In a regular expression literal (data\/runs\/NAME) the new path's slashes are escaped as well.
  let out = text.replace(re, (_m, old: string, at: number, all: string) => {
    const n = map.get(old) as string;
    const before = all.slice(Math.max(0, at - 6), at);
    // a name that is also a study's (patch-cost-cpu) is a record only as a path below runs/
    if (prefixOnly.has(old) && !/runs(\/|\\\/)$/.test(before)) return old;
    return before.endsWith("\\/") ? n.replace(/\//g, "\\/") : n;
  });
  // Template prefixes: data/runs/PREFIX${ where PREFIX is the start of old record names.
  out = out.replace(/data\/runs\/([A-Za-z0-9_./-]+?)\$\{/g, (whole, prefix: string) => {
    const hits = pairs.filter(([o]) => o.startsWith(prefix) && o !== prefix);
    if (hits.length === 0) return whole;
    const news = new Set(hits.map(([o, n]) => (n.endsWith(o.slice(prefix.length)) ? n.slice(0, n.length - (o.length - prefix.length)) : "")));
    const [only] = [...news];
    return news.size === 1 && only ? `data/runs/${only}\${` : whole;
  });
  return out;
}

/** The texts that cite records (relative to the repository): docs, notebooks, code and tests, studies. */
export function citingFiles(repo: string): string[] {
  const out: string[] = [];
  for (const f of ["REPRODUCE.md", "README.md", "DEVELOPERS.md"]) if (existsSync(join(repo, f))) out.push(f);
  const walk = (d: string, ok: (n: string) => boolean) => {
    const p = join(repo, d);
    if (!existsSync(p)) return;
    for (const n of readdirSync(p).sort()) {
      const rel = join(d, n);
      if (statSync(join(repo, rel)).isDirectory()) {
        if (n !== "node_modules" && !rel.startsWith("test/fixtures/") || n === "fixtures") walk(rel, ok);
      } else if (ok(n)) out.push(rel);
    }
  };
  walk("notebooks", (n) => n.endsWith(".ipynb"));
  walk("src", (n) => /\.(ts|md)$/.test(n));
  walk("test", (n) => /\.(ts|md)$/.test(n));
  walk("scripts", (n) => /\.(ts|md)$/.test(n));
  walk("studies", (n) => /\.(json|md)$/.test(n));
  // The converter's own tables and tests name old paths on purpose.
  const own = new Set(["src/record/move.ts", "src/record/convert.ts", "test/record-move.test.ts"]);
  return out.filter((f) => !own.has(f));
}

/** Rewrites every citing file; returns the files changed. Old names that are also study names are rewritten only as paths (…runs/NAME). */
export function rewriteCitations(repo: string, pairs: [string, string][], studies: ReadonlySet<string> = new Set()): string[] {
  const changed: string[] = [];
  for (const f of citingFiles(repo)) {
    const p = join(repo, f);
    const text = readFileSync(p, "utf8");
    const next = rewriteText(text, pairs, studies);
    if (next !== text) {
      writeFileAtomic(p, next);
      changed.push(f);
    }
  }
  return changed;
}

/** The old → new map kept by the moved records themselves (formerPath), for re-runs after the move and for readers of old paths. */
export function formerPaths(runsRoot: string): [string, string][] {
  return listRecords(runsRoot)
    .filter((r) => r.record.formerPath !== undefined)
    .map((r) => [(r.record.formerPath as string).replace(/^data\/runs\//, ""), relative(runsRoot, r.dir)]);
}

/** A path that may name a record by its former place (data/runs/OLD/…), resolved to where the record is now. */
export function currentPath(repo: string, path: string): string {
  const runs = join(repo, "data", "runs");
  const rel = relative(runs, join(repo, path));
  if (existsSync(join(repo, path)) || rel.startsWith("..")) return path;
  for (const [o, n] of formerPaths(runs).sort((a, b) => b[0].length - a[0].length)) {
    if (rel === o || rel.startsWith(`${o}/`)) return join("data", "runs", n, rel.slice(o.length));
  }
  return path;
}

export interface ConvertReport {
  derived: { dir: string; study: string; unknown: string[] }[];
  plan: Plan;
  /** Citing files rewritten (relative to the repository). */
  rewritten: string[];
}

/**
 * The whole conversion: derive an envelope for every directory without one
 * (`deriveEnvelopes`), move every record to <study>/<stamp>/, rewrite the
 * citations, regenerate the index. Without `write` it only plans.
 */
export function convertRecords(
  repo: string,
  runsRoot: string,
  studies: ReadonlySet<string>,
  o: { write: boolean; derive: (root: string, write: boolean) => ConvertReport["derived"]; index: (repo: string, runsRoot: string) => string },
): ConvertReport {
  const derived = o.derive(runsRoot, o.write);
  const plan = planMoves(runsRoot, studies);
  if (!o.write) {
    const pending = [...citationMap(runsRoot, studies), ...plan.moves.filter((m) => m.from !== m.to).map((m): [string, string] => [m.from, m.to])];
    const rewritten = citingFiles(repo).filter((f) => {
      const t = readFileSync(join(repo, f), "utf8");
      return rewriteText(t, pending, studies) !== t;
    });
    return { derived, plan, rewritten };
  }
  applyMoves(runsRoot, plan);
  const rewritten = rewriteCitations(repo, citationMap(runsRoot, studies), studies);
  for (const f of pruneStudyRecords(repo, runsRoot)) if (!rewritten.includes(f)) rewritten.push(f);
  writeFileAtomic(join(runsRoot, "README.md"), o.index(repo, runsRoot));
  return { derived, plan, rewritten };
}

/**
 * A study file's `records` lists past records by directory; after the move a
 * record lives under its own study's directory, so an entry naming another
 * study's record is dropped (the list keeps the study's own). Returns the files changed.
 */
export function pruneStudyRecords(repo: string, runsRoot: string): string[] {
  const dir = join(repo, "studies");
  if (!existsSync(dir)) return [];
  const owner = new Map(listRecords(runsRoot).map((r) => [relative(runsRoot, r.dir), r.record.study]));
  const changed: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
    const p = join(dir, f);
    const text = readFileSync(p, "utf8");
    const m = /"records":\s*(\[[^\]]*\])/.exec(text);
    if (!m) continue;
    const list = JSON.parse(m[1] as string) as string[];
    const name = f.slice(0, -5);
    const moved = new Map(formerPaths(runsRoot));
    const keep = list.map((d) => moved.get(d) ?? d).filter((d) => !owner.has(d) || owner.get(d) === name);
    if (JSON.stringify(keep) === JSON.stringify(list)) continue;
    writeFileAtomic(p, text.replace(m[1] as string, JSON.stringify(keep)));
    changed.push(`studies/${f}`);
  }
  return changed;
}
