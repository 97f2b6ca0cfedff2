/**
 * Our PostgreSQL time-slice-extension patch: where it lives, its identity
 * (hash), a parser for `git format-patch` files (for the notebook's hunk-by-hunk
 * walk-through) and applying it to a tree — always a dry run first, so a tree
 * the patch does not fit is never half patched, and the error names the hunk.
 *
 * Layout: kernel-patches/postgresql/<major>/NNNN-*.patch, one series per
 * PostgreSQL major version (the GUC tables and shared-memory setup live in
 * different places in 15 and 18); new files are shared verbatim.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ParseError, UserError, quoteFound } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";

const run = promisify(execFile);

export interface Hunk {
  /** The `@@ -a,b +c,d @@ …` line. */
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Text after the second `@@`: the enclosing function, as diff found it. */
  section: string;
  /** Body lines, each starting with " ", "+" or "-". */
  lines: string[];
  /** 1-based line of the header in the patch file. */
  patchLine: number;
}

export interface FileDiff {
  /** Path relative to the tree root. */
  path: string;
  /** true when the patch creates the file. */
  created: boolean;
  hunks: Hunk[];
}

export interface PatchFile {
  path: string;
  subject: string;
  author: string;
  /** The commit message body (after the subject, before `---`). */
  message: string;
  files: FileDiff[];
}

/** The directory holding the series for MAJOR. */
export function patchDir(major: string): string {
  return join(repoRoot(), "kernel-patches", "postgresql", major);
}

/** The patch files for MAJOR, in order; throws a UserError naming the directory when there are none. */
export function patchFiles(major: string): string[] {
  const dir = patchDir(major);
  const files = existsSync(dir) ? readdirSync(dir).filter((n) => /^\d{4}-.*\.patch$/.test(n)).sort() : [];
  if (files.length === 0) {
    const have = existsSync(join(repoRoot(), "kernel-patches", "postgresql"))
      ? readdirSync(join(repoRoot(), "kernel-patches", "postgresql")).filter((n) => /^\d+$/.test(n))
      : [];
    throw new UserError(`no patch for PostgreSQL ${major}: expected ${dir}/NNNN-*.patch (patches exist for: ${have.join(", ") || "none"})`);
  }
  return files.map((n) => join(dir, n));
}

/**
 * The diagnostic patches for MAJOR (kernel-patches/postgresql/MAJOR/diag/NNNN-*.patch),
 * applied on top of the series by the diag build only; a UserError when there are none.
 */
export function diagPatchFiles(major: string): string[] {
  const dir = join(patchDir(major), "diag");
  const files = existsSync(dir) ? readdirSync(dir).filter((n) => /^\d{4}-.*\.patch$/.test(n)).sort() : [];
  if (files.length === 0) throw new UserError(`no diagnostic patch for PostgreSQL ${major}: expected ${dir}/NNNN-*.patch`);
  return files.map((n) => join(dir, n));
}

export function diagPatchHash(major: string): string {
  const h = createHash("sha256");
  for (const f of diagPatchFiles(major)) h.update(readFileSync(f));
  return h.digest("hex").slice(0, 12);
}

/** Applies the diagnostic patches to TREE (already patched with the series): a dry run first, no fuzz. */
export async function applyDiagPatches(tree: string, major: string): Promise<string[]> {
  const files = diagPatchFiles(major);
  for (const p of files) {
    try {
      await run("patch", ["-p1", "--batch", "--forward", "--fuzz=0", "--dry-run", "-i", p], { cwd: tree, maxBuffer: 1 << 24 });
    } catch (err) {
      throw new UserError(`${p}: does not apply on top of the series to ${tree}: ${((err as { stdout?: string }).stdout ?? (err as Error).message).trim().slice(0, 400)}`);
    }
    await run("patch", ["-p1", "--batch", "--forward", "--fuzz=0", "-i", p], { cwd: tree, maxBuffer: 1 << 24 });
  }
  return files;
}

/** 12 hex digits of sha256 over the series' bytes: identifies the patched build. */
export function patchHash(major: string): string {
  const h = createHash("sha256");
  for (const f of patchFiles(major)) h.update(readFileSync(f));
  return h.digest("hex").slice(0, 12);
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** Parses a `git format-patch` file (mail headers, message, `---`, diffstat, diffs). */
export function parsePatch(text: string, path = "<patch>"): PatchFile {
  const lines = text.split("\n");
  let i = 0;
  let subject = "";
  let author = "";
  // mail header: up to the first empty line
  for (; i < lines.length && lines[i] !== ""; i++) {
    const l = lines[i]!;
    if (l.startsWith("Subject: ")) {
      subject = l.slice(9);
      while (i + 1 < lines.length && /^\s/.test(lines[i + 1]!) && lines[i + 1] !== "") subject += lines[++i]!.replace(/^\s+/, " ");
    } else if (l.startsWith("From: ")) author = l.slice(6);
  }
  if (subject === "") throw new ParseError(path, 1, "a mail header with a Subject: line (git format-patch output)", quoteFound(lines[0]));
  subject = subject.replace(/^\[PATCH[^\]]*\]\s*/, "");
  i++;
  const msg: string[] = [];
  for (; i < lines.length && lines[i] !== "---"; i++) msg.push(lines[i]!);
  if (i >= lines.length) throw new ParseError(path, lines.length, "a line `---` ending the commit message", "end of file");
  const files: FileDiff[] = [];
  let file: FileDiff | undefined;
  let hunk: Hunk | undefined;
  let remainingOld = 0;
  let remainingNew = 0;
  for (i++; i < lines.length; i++) {
    const l = lines[i]!;
    if (hunk && (remainingOld > 0 || remainingNew > 0)) {
      const tag = l[0];
      if (tag === " " || l === "") {
        remainingOld--;
        remainingNew--;
      } else if (tag === "-") remainingOld--;
      else if (tag === "+") remainingNew--;
      else if (tag === "\\") {
        hunk.lines.push(l);
        continue;
      } else throw new ParseError(path, i + 1, `a hunk line starting with " ", "+" or "-" (${remainingOld} old and ${remainingNew} new lines left)`, quoteFound(l));
      hunk.lines.push(l === "" ? " " : l);
      continue;
    }
    if (l.startsWith("diff --git ")) {
      const m = / b\/(.+)$/.exec(l);
      if (!m) throw new ParseError(path, i + 1, "diff --git a/PATH b/PATH", quoteFound(l));
      file = { path: m[1]!, created: false, hunks: [] };
      files.push(file);
      hunk = undefined;
    } else if (l.startsWith("new file mode") && file) file.created = true;
    else if (l.startsWith("@@")) {
      const m = HUNK_RE.exec(l);
      if (!m || !file) throw new ParseError(path, i + 1, "a hunk header @@ -A,B +C,D @@ inside a diff", quoteFound(l));
      hunk = {
        header: l,
        oldStart: Number(m[1]),
        oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newLines: m[4] === undefined ? 1 : Number(m[4]),
        section: m[5] ?? "",
        lines: [],
        patchLine: i + 1,
      };
      remainingOld = hunk.oldLines;
      remainingNew = hunk.newLines;
      file.hunks.push(hunk);
    } else if (l === "-- ") break; // signature
  }
  if (hunk && (remainingOld > 0 || remainingNew > 0)) {
    throw new ParseError(path, lines.length, `${remainingOld} more old and ${remainingNew} more new lines of the hunk at line ${hunk.patchLine}`, "end of file");
  }
  if (files.length === 0) throw new ParseError(path, lines.length, "at least one `diff --git` section", "none");
  return { path, subject, author, message: msg.join("\n").trim(), files };
}

/** Reads and parses every patch of the series for MAJOR. */
export function readPatchSeries(major: string): PatchFile[] {
  return patchFiles(major).map((f) => parsePatch(readFileSync(f, "utf8"), f));
}

export interface RejectedHunk {
  patch: string;
  file: string;
  /** 1-based index of the hunk within its file, as `patch` counts. */
  hunk: number;
  header: string;
  /** `patch`'s own words. */
  detail: string;
}

/**
 * Reads `patch --dry-run` output: which hunk of which file failed. GNU patch
 * prints "checking file F" then "Hunk #N FAILED at L." lines.
 */
export function rejectedHunks(output: string, patch: PatchFile): RejectedHunk[] {
  const out: RejectedHunk[] = [];
  let current: string | undefined;
  for (const line of output.split("\n")) {
    const f = /^(?:checking|patching) file (.+)$/.exec(line);
    if (f) {
      current = f[1]!.replace(/^'|'$/g, "");
      continue;
    }
    const h = /^Hunk #(\d+) FAILED/.exec(line);
    if (h && current !== undefined) {
      const n = Number(h[1]);
      const fd = patch.files.find((x) => x.path === current);
      out.push({ patch: patch.path, file: current, hunk: n, header: fd?.hunks[n - 1]?.header ?? "?", detail: line.trim() });
    }
    const missing = /^can't find file to patch|No file to patch/.exec(line);
    if (missing && current !== undefined) {
      out.push({ patch: patch.path, file: current, hunk: 0, header: "(whole file)", detail: line.trim() });
    }
    const exists = /^The next patch would create the file (.+),$/.exec(line);
    if (exists) out.push({ patch: patch.path, file: exists[1]!, hunk: 0, header: "(new file)", detail: "the file exists already: the tree is patched already?" });
  }
  return out;
}

/** Checks that every patch of the series applies to TREE without fuzz; throws a UserError naming the first rejected hunk. */
export async function checkPatchSeries(tree: string, major: string): Promise<{ patches: string[]; hunks: number }> {
  let hunks = 0;
  const patches = patchFiles(major);
  for (const p of patches) {
    const parsed = parsePatch(readFileSync(p, "utf8"), p);
    hunks += parsed.files.reduce((n, f) => n + f.hunks.length, 0);
    await dryRun(tree, p, parsed);
  }
  return { patches, hunks };
}

async function dryRun(tree: string, patchPath: string, parsed: PatchFile): Promise<void> {
  try {
    await run("patch", ["--dry-run", "-p1", "--batch", "--forward", "--fuzz=0", "-i", patchPath], { cwd: tree, maxBuffer: 1 << 24 });
  } catch (err) {
    const e = err as { code?: string | number; stdout?: string; stderr?: string };
    if (e.code === "ENOENT") throw new UserError("patch is not installed (Debian package patch)");
    const output = `${e.stdout ?? ""}\n${e.stderr ?? ""}`;
    const rej = rejectedHunks(output, parsed);
    if (rej.length > 0) {
      const r = rej[0]!;
      throw new UserError(
        `${patchPath}: hunk #${r.hunk} for ${r.file} (${r.header}) does not apply to ${tree}: ${r.detail}` +
          (rej.length > 1 ? ` (and ${rej.length - 1} more rejected hunk(s): ${rej.slice(1).map((x) => `${x.file} #${x.hunk}`).join(", ")})` : ""),
      );
    }
    throw new UserError(`${patchPath} does not apply to ${tree}: ${output.trim().split("\n").slice(0, 4).join(" / ")}`);
  }
}

/** Dry run, then the real thing. */
export async function applyPatchSeries(tree: string, major: string): Promise<{ patches: string[]; hunks: number }> {
  const checked = await checkPatchSeries(tree, major);
  for (const p of checked.patches) {
    await run("patch", ["-p1", "--batch", "--forward", "--fuzz=0", "-i", p], { cwd: tree, maxBuffer: 1 << 24 });
  }
  return checked;
}

/**
 * What each touched file's hunks do, for the notebook's walk-through. Keyed by
 * path; a file the series touches but this table lacks is reported by
 * `explainPatch` (so the notes cannot silently fall behind the patch).
 */
export const FILE_NOTES: Record<string, string> = {
  "src/backend/storage/ipc/ipci.c":
    "Reserves and initialises the shared-memory counters: one cache-line-padded slot per PGPROC plus a baseline per slot for resets. Creating it is also where the postmaster registers the rseq area and enables the extension, whatever the setting.",
  "src/backend/storage/lmgr/Makefile": "Builds the new file.",
  "doc/src/sgml/config.sgml": "Documents slice_extension in the lock management section of the configuration reference, in that chapter's style: what it asks the kernel for, the values, what the feature needs (kernel option, glibc or the tunable, a seccomp filter that allows rseq_slice_yield), and where the status and counters are.",
  "src/backend/catalog/system_functions.sql": "Revokes EXECUTE on pg_stat_reset_slice_extension() from PUBLIC, like the other pg_stat_reset functions (instead of a hard-coded superuser check).",
  "src/backend/utils/init/miscinit.c": "InitPostmasterChild zeroes the time slice extension counts fork() copied from the postmaster (version 3), so that a child's slot does not get the postmaster's counts added once per child.",
  "src/backend/storage/lmgr/meson.build": "Builds the new file (meson, PostgreSQL 16 and later).",
  "src/backend/storage/lmgr/lwlock.c":
    "After an LWLock is added to the held-locks array (LWLockAcquire, LWLockConditionalAcquire, LWLockAcquireOrWait) the hook begins the LWLock hold or re-arms the request; after LWLockRelease (and, in 18, LWLockReleaseDisowned and LWLockDisown) it is told how many LWLocks are still held and ends the hold when none is. LWLockWaitListLock's LW_FLAG_LOCKED spin loop is covered like a spinlock: hooked after the loop, released in LWLockWaitListUnlock and in LWLockWakeup's compare-and-exchange (a comment there documents that under spinlock a grant is given back before the dequeued waiters are woken). Version 3: LWLockReleaseAll ends a hold that a lock released without its hook left.",
  "src/backend/storage/lmgr/proc.c":
    "InitProcess and InitAuxiliaryProcess attach the process to its PGPROC's counter slot, after ProcKill is registered, and register the exit callback there (outside any critical section).",
  "src/backend/storage/buffer/bufmgr.c": "LockBufHdr's BM_LOCKED spin loop (taken for every clock-sweep candidate) is covered: the acquire hook runs after the loop.",
  "src/include/storage/buf_internals.h": "UnlockBufHdr, the only release of BM_LOCKED, runs the release hook.",
  "src/include/catalog/pg_proc.dat":
    "Two functions: pg_stat_get_slice_extension() returns the summed counters as one row, pg_stat_reset_slice_extension() resets them (EXECUTE revoked from PUBLIC in system_functions.sql).",
  "src/backend/storage/lmgr/slice_ext.c":
    "The new file: finding or registering the rseq area, the prctl() that enables extensions (errno printed by name and number), the probe of rseq_slice_yield in a child process (a seccomp filter), the one log line when any of it fails, the out-of-line parts (re-arm inside a hold after one rseq_slice_yield that consumes stale syscall work, yield at release when granted, classify each end), the fork and LWLockReleaseAll resets, the count level's private word, the per-PGPROC counter slots and the two SQL functions.",
  "src/backend/utils/misc/guc_tables.c":
    "The GUC slice_extension (off | spinlock | lwlock | all | count, on/true meaning all; superuser-settable at runtime) and the read-only slice_extension_status.",
  "src/backend/utils/misc/guc.c":
    "PostgreSQL 15 keeps the GUC tables in guc.c: the same two settings as in 18's guc_tables.c.",
  "src/backend/utils/misc/postgresql.conf.sample": "Documents the setting in the sample configuration.",
  "src/include/storage/slice_ext.h":
    "The new header: when the kernel clears slice_ctrl (with the kernel functions), the per-process state, the counter slot layout and the inline hooks. With the switch off each hook is one load and a not-taken branch; every covered acquire inside a hold re-arms the request when the kernel cleared it, never while granted.",
  "src/include/storage/spin.h":
    "SpinLockAcquire and SpinLockRelease call the hooks after S_LOCK and after S_UNLOCK: the request covers the critical section including the release store, and a waiter spinning for the lock does not ask for an extension. SpinLockAcquire stays an expression (a comma expression, version 3).",
};

export interface HunkExplanation {
  file: string;
  created: boolean;
  index: number;
  header: string;
  section: string;
  added: number;
  removed: number;
  note: string;
  lines: string[];
}

/** One entry per hunk, with the file's note; throws when a touched file has no note. */
export function explainPatch(patch: PatchFile): HunkExplanation[] {
  const out: HunkExplanation[] = [];
  for (const f of patch.files) {
    const note = FILE_NOTES[f.path];
    if (note === undefined) throw new UserError(`${patch.path}: no note for ${f.path} in FILE_NOTES (src/postgres/patch.ts)`);
    f.hunks.forEach((h, i) =>
      out.push({
        file: f.path,
        created: f.created,
        index: i + 1,
        header: h.header,
        section: h.section,
        added: h.lines.filter((l) => l.startsWith("+")).length,
        removed: h.lines.filter((l) => l.startsWith("-")).length,
        note,
        lines: h.lines,
      }),
    );
  }
  return out;
}

function escapeHtmlText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A hunk as an HTML <pre> with added/removed lines coloured; long new files are cut to `maxLines`. */
export function hunkHtml(h: { header: string; lines: string[] }, maxLines = 60): string {
  const shown = h.lines.slice(0, maxLines);
  const rows = shown.map((l) => {
    const color = l.startsWith("+") ? "#e6ffec" : l.startsWith("-") ? "#ffebe9" : "transparent";
    return `<span style="display:block;background:${color}">${escapeHtmlText(l) || " "}</span>`;
  });
  const more = h.lines.length > maxLines ? `<span style="display:block;color:#666">… ${h.lines.length - maxLines} more lines</span>` : "";
  return `<pre style="font-size:12px;line-height:1.3"><span style="display:block;color:#0550ae">${escapeHtmlText(h.header)}</span>${rows.join("")}${more}</pre>`;
}
