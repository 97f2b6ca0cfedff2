/**
 * GRUB as `slicelab kernel install` reads it: grub.cfg's menu entries (with their submenus), the
 * entry a release boots as, kernel release order, and /etc/default/grub's GRUB_DEFAULT and
 * GRUB_DISABLE_SUBMENU. Pure functions of the text; src/kernel/install.ts does the rest.
 */
import { basename } from "node:path";
import { UserError } from "../util/errors.js";

// ---------------------------------------------------------------- grub.cfg

/** One `menuentry` of a grub.cfg, with the titles of the submenus around it. */
export interface GrubEntry {
  /** Titles from the top level down to this entry (submenus first). */
  titles: string[];
  /** `$menuentry_id_option 'ID'` / `--id ID` of each level, when given. */
  ids: (string | null)[];
  /** Path of the `linux` command's image, e.g. /boot/vmlinuz-6.1.0-18-amd64 (null when none). */
  linux: string | null;
  /** Its kernel command line. */
  args: string;
  /** 1-based line of the `menuentry` in grub.cfg. */
  line: number;
}

export interface GrubConfig {
  entries: GrubEntry[];
  /** Number of top-level menu items (menuentry or submenu), what a numeric GRUB_DEFAULT indexes. */
  topLevel: { title: string; submenu: boolean; line: number }[];
  /** Whether the header loads grubenv and boots `next_entry` once (what grub-reboot writes). */
  honoursNextEntry: boolean;
}

/** Splits one line of GRUB script into words (single quotes literal, double quotes and backslashes as GRUB does). */
export function grubWords(line: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error("unterminated '");
      cur += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === "\\" && i + 1 < line.length) i++;
        cur += line[i];
        i++;
      }
      if (i >= line.length) throw new Error('unterminated "');
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (c === " " || c === "\t") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else if (c === "#" && !inWord) {
      break;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Parses the menu structure of a grub.cfg (menuentry/submenu blocks and their `linux` lines). */
export function parseGrubCfg(text: string, file = "grub.cfg"): GrubConfig {
  type Frame = { kind: "menuentry" | "submenu" | "other"; title: string; id: string | null; entry?: GrubEntry };
  const stack: Frame[] = [];
  const entries: GrubEntry[] = [];
  const topLevel: GrubConfig["topLevel"] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    const t = raw.trim();
    if (t === "" || t.startsWith("#")) continue;
    if (t === "}") {
      if (stack.length === 0) throw new UserError(`${file}:${i + 1}: expected a block to close, found "}" at the top level`);
      stack.pop();
      continue;
    }
    const head = /^(menuentry|submenu)\s/.exec(t)?.[1] as "menuentry" | "submenu" | undefined;
    if (head) {
      let w: string[];
      try {
        w = grubWords(t.replace(/\{\s*$/, ""));
      } catch (e) {
        throw new UserError(`${file}:${i + 1}: expected a ${head} line with balanced quotes, found ${(e as Error).message} in ${JSON.stringify(t.slice(0, 80))}`);
      }
      const title = w[1] ?? "";
      let id: string | null = null;
      for (let k = 2; k < w.length - 1; k++) if (w[k] === "$menuentry_id_option" || w[k] === "--id") id = w[k + 1]!;
      if (stack.every((f) => f.kind === "other")) topLevel.push({ title, submenu: head === "submenu", line: i + 1 });
      const frame: Frame = { kind: head, title, id };
      if (head === "menuentry") {
        const menus = stack.filter((f) => f.kind !== "other");
        frame.entry = { titles: [...menus.map((f) => f.title), title], ids: [...menus.map((f) => f.id), id], linux: null, args: "", line: i + 1 };
        entries.push(frame.entry);
      }
      if (!t.endsWith("{")) throw new UserError(`${file}:${i + 1}: expected "{" at the end of the ${head} line, found ${JSON.stringify(t.slice(-20))}`);
      stack.push(frame);
      continue;
    }
    if (t.endsWith("{")) {
      stack.push({ kind: "other", title: "", id: null });
      continue;
    }
    const lx = /^(?:linux|linux16|linuxefi)\s+(\S+)\s*(.*)$/.exec(t);
    if (lx) {
      const inEntry = [...stack].reverse().find((f) => f.kind === "menuentry");
      if (inEntry?.entry && inEntry.entry.linux === null) {
        inEntry.entry.linux = lx[1]!;
        inEntry.entry.args = lx[2]!;
      }
    }
  }
  if (stack.length > 0) throw new UserError(`${file}:${lines.length}: expected "}" closing the block opened for "${stack.at(-1)!.title}", found end of file`);
  // grub-mkconfig's 00_header: if [ "${next_entry}" ] ; then set default="${next_entry}"; … save_env next_entry
  const honoursNextEntry = /load_env/.test(text) && /if \[ "\$\{next_entry\}" \]/.test(text) && /set default="\$\{next_entry\}"/.test(text);
  return { entries, topLevel, honoursNextEntry };
}

export function isRecovery(e: GrubEntry): boolean {
  return /\(recovery mode\)/.test(e.titles.at(-1) ?? "") || /(^|\s)single(\s|$)/.test(e.args);
}

/**
 * The menu entry that boots `vmlinuz-RELEASE` (not recovery mode), as the
 * `>`-joined title path grub-reboot takes. The entry in "Advanced options"
 * whose title names the release wins over the top-level entry that boots the
 * newest kernel under a generic title.
 */
export function findEntry(cfg: GrubConfig, release: string): GrubEntry | undefined {
  const boots = cfg.entries.filter((e) => e.linux !== null && basename(e.linux) === `vmlinuz-${release}` && !isRecovery(e));
  return boots.find((e) => e.titles.length > 1 && e.titles.at(-1)!.includes(release)) ?? boots[0];
}

export function entryPath(e: GrubEntry): string {
  return e.titles.join(">");
}

/**
 * What update-grub will most likely call the new kernel's entry, before it is
 * installed: an existing per-version entry with its release replaced.
 */
export function predictEntry(cfg: GrubConfig, release: string): string | undefined {
  for (const e of cfg.entries) {
    if (e.linux === null || isRecovery(e) || e.titles.length < 2) continue;
    const old = basename(e.linux).replace(/^vmlinuz-/, "");
    if (old && e.titles.at(-1)!.includes(old)) return [...e.titles.slice(0, -1), e.titles.at(-1)!.replace(old, release)].join(">");
  }
  return undefined;
}

/** Orders kernel releases as `sort -V` does for the cases that matter here (numbers compared as numbers). */
export function compareReleases(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d/.test(x);
    const ny = /^\d/.test(y);
    if (nx && ny) {
      if (Number(x) !== Number(y)) return Number(x) - Number(y);
    } else if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** GRUB_DEFAULT and GRUB_DISABLE_SUBMENU from /etc/default/grub and /etc/default/grub.d/*.cfg (later files win). */
export function grubDefaults(texts: string[]): { grubDefault: string; disableSubmenu: boolean } {
  let grubDefault = "0";
  let disableSubmenu = false;
  for (const text of texts) {
    for (const line of text.split("\n")) {
      const m = /^\s*(GRUB_DEFAULT|GRUB_DISABLE_SUBMENU)=(.*)$/.exec(line);
      if (!m) continue;
      let v: string;
      try {
        v = grubWords(m[2]!)[0] ?? "";
      } catch {
        v = m[2]!.trim();
      }
      if (m[1] === "GRUB_DEFAULT") grubDefault = v;
      else disableSubmenu = v === "y" || v === "true";
    }
  }
  return { grubDefault, disableSubmenu };
}
