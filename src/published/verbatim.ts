/**
 * The verbatim record of the published data: for each source, the sha256 of every raw excerpt
 * (data/published/<source>/*.raw.txt) and of the seed post it was copied from, with the byte offset
 * of the excerpt in the seed. Made by `node dist/scripts/record-verbatim.js` only when
 * every excerpt is found verbatim in its seed; committed as data/published/<source>/verbatim.json.
 *
 * So the check that the excerpts are verbatim does not need the seeds: a clone verifies each raw
 * file against its recorded hash (the seeds were checked when the record was made), and where the
 * seeds are present it verifies them too.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { UserError } from "../util/errors.js";
import { PUBLISHED_DIR } from "./build.js";

export const VERBATIM_FILE = "verbatim.json";

export interface VerbatimBlock {
  /** The raw excerpt's file name in the source's folder. */
  raw: string;
  /** sha256 of the raw file's bytes. */
  sha256: string;
  bytes: number;
  /** Byte offset of the raw file's text in the seed. */
  seedOffset: number;
}

export interface VerbatimRecord {
  source: string;
  /** The seed post: its file name (as in provenance.json's "seed") and sha256. */
  seed: { file: string; sha256: string; bytes: number };
  blocks: VerbatimBlock[];
}

const sha256 = (b: Buffer | string): string => createHash("sha256").update(b).digest("hex");

/** The raw excerpt files of a source, sorted. */
export function rawFiles(root: string, source: string): string[] {
  return readdirSync(join(root, PUBLISHED_DIR, source))
    .filter((n) => n.endsWith(".raw.txt"))
    .sort();
}

/**
 * The directories searched for the seed posts, in order: $SLICELAB_SEEDS, then `../shared/seeds`
 * beside the clone (CI's layout), then beside the main worktree when the clone is a git worktree.
 */
export function seedDirs(root: string): string[] {
  const dirs: string[] = [];
  if (process.env.SLICELAB_SEEDS) dirs.push(resolve(process.env.SLICELAB_SEEDS));
  dirs.push(resolve(root, "..", "shared", "seeds"));
  const r = spawnSync("git", ["rev-parse", "--git-common-dir"], { cwd: root, encoding: "utf8" });
  if (r.status === 0 && r.stdout.trim() !== "") {
    const common = r.stdout.trim();
    const mainTree = dirname(isAbsolute(common) ? common : resolve(root, common));
    dirs.push(resolve(mainTree, "..", "shared", "seeds"));
  }
  return [...new Set(dirs)];
}

/** The seed file named by provenance's "seed" field, where present on this machine; else undefined and where it was looked for. */
export function findSeed(root: string, seedField: string): { path?: string; tried: string[] } {
  const name = basename(seedField);
  const tried = seedDirs(root).map((d) => join(d, name));
  return { path: tried.find((p) => existsSync(p)), tried };
}

/**
 * Makes the verbatim record of a source from its raw files and seed text. Throws a UserError naming
 * the raw file when one is not a verbatim block of the seed.
 */
export function makeVerbatimRecord(root: string, source: string, seedField: string, seedText: Buffer): VerbatimRecord {
  const blocks: VerbatimBlock[] = [];
  for (const raw of rawFiles(root, source)) {
    const file = join(PUBLISHED_DIR, source, raw);
    const bytes = readFileSync(join(root, file));
    const at = seedText.indexOf(bytes);
    if (at < 0) throw new UserError(`${file}: expected a verbatim block of the seed ${basename(seedField)}, found text the seed does not contain`);
    blocks.push({ raw, sha256: sha256(bytes), bytes: bytes.length, seedOffset: at });
  }
  return { source, seed: { file: basename(seedField), sha256: sha256(seedText), bytes: seedText.length }, blocks };
}

/** The committed verbatim record of a source, or undefined when there is none. */
export function loadVerbatimRecord(root: string, source: string): VerbatimRecord | undefined {
  const path = join(root, PUBLISHED_DIR, source, VERBATIM_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as VerbatimRecord;
  } catch (err) {
    throw new UserError(`${path}: not valid JSON (${(err as Error).message})`);
  }
}

/** The record as committed: stable key order, one block per line. */
export function formatVerbatimRecord(r: VerbatimRecord): string {
  const blocks = r.blocks.map((b) => `    ${JSON.stringify({ raw: b.raw, sha256: b.sha256, bytes: b.bytes, seedOffset: b.seedOffset })}`);
  return `{\n  "source": ${JSON.stringify(r.source)},\n  "seed": ${JSON.stringify(r.seed)},\n  "blocks": [\n${blocks.join(",\n")}\n  ]\n}\n`;
}

/**
 * What is wrong with the raw files of a source against its committed record (no seed needed):
 * a raw file without an entry, an entry without a raw file, or a raw file whose hash changed.
 */
export function verbatimProblems(root: string, source: string): string[] {
  const rec = loadVerbatimRecord(root, source);
  const dir = join(PUBLISHED_DIR, source);
  if (!rec) return [`${join(dir, VERBATIM_FILE)} is missing: run \`node dist/scripts/record-verbatim.js\` where the seeds are present`];
  const out: string[] = [];
  const raws = rawFiles(root, source);
  for (const raw of raws) {
    const b = rec.blocks.find((x) => x.raw === raw);
    if (!b) {
      out.push(`${join(dir, raw)} has no entry in ${join(dir, VERBATIM_FILE)}: run \`node dist/scripts/record-verbatim.js\` where the seeds are present`);
      continue;
    }
    const h = sha256(readFileSync(join(root, dir, raw)));
    if (h !== b.sha256) out.push(`${join(dir, raw)}: expected sha256 ${b.sha256} (recorded when it was checked against the seed), found ${h}`);
  }
  for (const b of rec.blocks) if (!raws.includes(b.raw)) out.push(`${join(dir, VERBATIM_FILE)} lists ${b.raw}, which is not in ${dir}`);
  return out;
}

/** What is wrong with the committed record against the seed text: the seed's hash, or a block not at its recorded offset. */
export function seedProblems(root: string, source: string, seedText: Buffer): string[] {
  const rec = loadVerbatimRecord(root, source);
  if (!rec) return [`${join(PUBLISHED_DIR, source, VERBATIM_FILE)} is missing`];
  const out: string[] = [];
  const h = sha256(seedText);
  if (h !== rec.seed.sha256) out.push(`seed ${rec.seed.file}: expected sha256 ${rec.seed.sha256}, found ${h}`);
  for (const b of rec.blocks) {
    const path = join(root, PUBLISHED_DIR, source, b.raw);
    if (!existsSync(path)) continue;
    const bytes = readFileSync(path);
    if (!seedText.subarray(b.seedOffset, b.seedOffset + bytes.length).equals(bytes)) {
      out.push(`${join(PUBLISHED_DIR, source, b.raw)}: expected at byte ${b.seedOffset} of seed ${rec.seed.file}, found other text there`);
    }
  }
  return out;
}
